# Issue 18: each diagnostic reaches the client once. A client that pulls with refresh support
# (what vscode-languageclient 9 declares) is offered diagnosticProvider, pulls, and is told by
# workspace/diagnostic/refresh when an analysis changed the results; nothing is pushed for the
# documents it synchronizes (VS Code would count pushed and pulled diagnostics twice). A real
# corpus log (FunASR#2006).
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${ROOTURI}","capabilities":{"textDocument":{"diagnostic":{"dynamicRegistration":true,"relatedDocumentSupport":false}},"workspace":{"diagnostics":{"refreshSupport":true}}}}}
expect {"id":1,"result":{"capabilities":{"diagnosticProvider":{"identifier":"firstfault","interFileDependencies":true}}}}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt","languageId":"plaintext","version":1,"text":@file(tests/corpus/funasr-2006/log.txt)}}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"}}}
expect {"id":2,"result":{"kind":"full","items":[{"severity":1,"code":"cuda-out-of-memory","data":{"role":"initiating"}}]}}
expect {"method":"workspace/diagnostic/refresh","id":"*"}
# The client answers the server's request; the server takes it quietly.
send {"jsonrpc":"2.0","id":"firstfault/refresh/0","result":null}
expect-none 300 {"method":"textDocument/publishDiagnostics"}
send {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"}}}
expect-none 300 {"method":"textDocument/publishDiagnostics"}
send {"jsonrpc":"2.0","id":3,"method":"shutdown"}
expect {"id":3,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
