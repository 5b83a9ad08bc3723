# $/cancelRequest: a request cancelled before it ran is answered -32800 and never run;
# cancelling a finished or unknown request changes nothing.
# A long debounce makes hovers wait for the analysis of the edited document, so the
# cancelled hover could not have been answered early even if its cancellation came late.
args --debounce-ms 1500
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/c.log","languageId":"log","version":1,"text":"[rank1]: RuntimeError: CUDA error: out of memory\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"version":1}}
# Let the first analysis finish its bookkeeping, so the edit below is debounced rather than
# picked up by a re-run that the first analysis would start when it ends.
sleep 300
# The edit is debounced (1.5 s here), so the hover waits for the analysis of version 2.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/c.log","version":2},"contentChanges":[{"text":"[rank3]: RuntimeError: CUDA error: out of memory\n"}]}}
# The hover and its cancellation in one write (atomic on a pipe, so one read): the server
# accepts every frame of a read before dispatching any, so the cancellation is recorded
# before the hover can start, however the threads are scheduled.
raw b'Content-Length: 145\r\n\r\n{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/c.log"},"position":{"line":0,"character":20}}}Content-Length: 62\r\n\r\n{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}'
expect {"id":2,"error":{"code":-32800}}
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/c.log"},"position":{"line":0,"character":20}}}
expect {"id":3,"result":{"contents":{"value":"re:CUDA out of memory"}}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"never-sent"}}
expect-none 150 {"id":3}
send {"jsonrpc":"2.0","id":4,"method":"shutdown"}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
