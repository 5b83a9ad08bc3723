# Out-of-order and stale versions are ignored; a burst of 2000 edits is coalesced; published
# versions only ever increase and the last one is the final version.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/v.log","languageId":"log","version":1,"text":"nothing here\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/v.log","version":1,"diagnostics":[]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/v.log","version":3},"contentChanges":[{"text":"[rank3]: RuntimeError: CUDA error: out of memory\n"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/v.log","version":2},"contentChanges":[{"text":"stale text\n"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/v.log","version":3,"diagnostics":[{"severity":1,"message":"re:rank 3"}]}}
expect-none 200 {"method":"textDocument/publishDiagnostics","params":{"version":2}}
# 2000 appends of one character each, in one write.
burst 4 2003 {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/v.log","version":${i}},"contentChanges":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"text":"x"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/v.log","version":2003}}
versions-increase file:///tmp/v.log
send {"jsonrpc":"2.0","id":2,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"file:///tmp/v.log"}}}
expect {"id":2,"result":{"items":[{"severity":1,"range":{"start":{"line":0}}}]}}
stderr-contains analysis: 1 document\(s\), 2000 of 2049 bytes scanned
send {"jsonrpc":"2.0","id":3,"method":"shutdown"}
expect {"id":3,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
