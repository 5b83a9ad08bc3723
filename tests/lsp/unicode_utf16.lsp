# Non-ASCII before the match: columns in UTF-16 code units (the default), and a range edit
# given in UTF-16.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-16"]}}}}
expect {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/u.log","languageId":"log","version":1,"text":"[rank2]: 日本😀 torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"version":1,"diagnostics":[{"severity":1,"range":{"start":{"line":0,"character":43},"end":{"line":0,"character":89}}}]}}
# Insert two characters just before the match, at UTF-16 column 14.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/u.log","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":14},"end":{"line":0,"character":14}},"text":"ÄÖ"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"version":2,"diagnostics":[{"severity":1,"range":{"start":{"line":0,"character":45},"end":{"line":0,"character":91}}}]}}
# A shell script: hover on an NCCL variable after non-ASCII text.
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/run.sh","languageId":"shellscript","version":1,"text":"# 日本😀 NCCL_IB_HCA=mlx5\n"}}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/run.sh"},"position":{"line":0,"character":10}}}
expect {"id":2,"result":{"contents":{"value":"re:NCCL_IB_HCA"},"range":{"start":{"line":0,"character":7},"end":{"line":0,"character":18}}}}
# Inside the surrogate pair of the emoji: no crash, no hover.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/run.sh"},"position":{"line":0,"character":5}}}
expect {"id":3,"result":null}
# Invalid UTF-8 in a message body is a parse error, and the server goes on.
raw b'Content-Length: 64\r\n\r\n{"jsonrpc":"2.0","id":4,"method":"shutdown","params":{"x":"\xff\xfe"}}'
expect {"id":null,"error":{"code":-32700}}
send {"jsonrpc":"2.0","id":5,"method":"shutdown"}
expect {"id":5,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
