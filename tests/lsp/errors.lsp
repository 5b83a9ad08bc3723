# Every JSON-RPC / LSP error code the server answers with.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
# -32700: the body is not JSON.
raw b'Content-Length: 9\r\n\r\n{"jsonrp}'
expect {"id":null,"error":{"code":-32700}}
# -32600: not an object, no method, bad jsonrpc, bad id type, bad params type.
send [1,2,3]
expect {"id":null,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":10}
expect {"id":10,"error":{"code":-32600}}
send {"jsonrpc":"1.0","id":11,"method":"shutdown"}
expect {"id":11,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}
expect {"id":null,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":12,"method":"textDocument/hover","params":5}
expect {"id":12,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":13,"method":12}
expect {"id":13,"error":{"code":-32600}}
# -32601: unknown request; unknown and $/ notifications are ignored (no reply at all).
send {"jsonrpc":"2.0","id":"str-id","method":"textDocument/frobnicate","params":{}}
expect {"id":"str-id","error":{"code":-32601}}
send {"jsonrpc":"2.0","method":"textDocument/frobnicate","params":{}}
send {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}
send {"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":{}}}
expect-none 150 {"error":{"code":-32601}}
# -32602: invalid params.
send {"jsonrpc":"2.0","id":20,"method":"textDocument/hover","params":{}}
expect {"id":20,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":21,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.log"},"position":{"line":-1,"character":"a"}}}
expect {"id":21,"error":{"code":-32602}}
# Code actions come with their edits: there is nothing to resolve.
send {"jsonrpc":"2.0","id":22,"method":"codeAction/resolve","params":{"title":"x"}}
expect {"id":22,"error":{"code":-32601}}
send {"jsonrpc":"2.0","id":23,"method":"workspace/executeCommand","params":{"command":"firstfault.nope"}}
expect {"id":23,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":24,"method":"workspace/executeCommand","params":{"command":"firstfault.diagnoseText","arguments":[42]}}
expect {"id":24,"error":{"code":-32602}}
# Requests on documents never opened, positions past the end: empty answers, no crash.
send {"jsonrpc":"2.0","id":30,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///never.log"},"position":{"line":100000,"character":100000}}}
expect {"id":30,"result":null}
send {"jsonrpc":"2.0","id":31,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///never.log"},"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"context":{"diagnostics":[]}}}
expect {"id":31,"result":[]}
send {"jsonrpc":"2.0","id":32,"method":"textDocument/codeLens","params":{"textDocument":{"uri":"file:///never.log"}}}
expect {"id":32,"result":[]}
send {"jsonrpc":"2.0","id":33,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"file:///never.log"}}}
expect {"id":33,"result":{"kind":"full","items":[]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///never.log","version":3},"contentChanges":[{"text":"x"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///never.log"}}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}
send {"jsonrpc":"2.0","id":34,"method":"shutdown"}
expect {"id":34,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
