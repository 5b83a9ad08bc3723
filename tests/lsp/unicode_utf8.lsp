# The same text with UTF-8 negotiated: columns are bytes.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8","utf-16"]}}}}
expect {"id":1,"result":{"capabilities":{"positionEncoding":"utf-8"}}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/u.log","languageId":"log","version":1,"text":"[rank2]: 日本😀 torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"version":1,"diagnostics":[{"severity":1,"range":{"start":{"line":0,"character":49},"end":{"line":0,"character":95}}}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/u.log","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":20},"end":{"line":0,"character":20}},"text":"ÄÖ"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"version":2,"diagnostics":[{"severity":1,"range":{"start":{"line":0,"character":53},"end":{"line":0,"character":99}}}]}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/run.sh","languageId":"shellscript","version":1,"text":"# 日本😀 NCCL_IB_HCA=mlx5\n"}}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/run.sh"},"position":{"line":0,"character":14}}}
expect {"id":2,"result":{"contents":{"value":"re:NCCL_IB_HCA"},"range":{"start":{"line":0,"character":13},"end":{"line":0,"character":24}}}}
send {"jsonrpc":"2.0","id":5,"method":"shutdown"}
expect {"id":5,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
