# Malformed framing: the server reports and resynchronises on the next header.
args --max-message-bytes 4096
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
# A header without Content-Length (its body is skipped up to the next header).
raw b'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{"jsonrpc":"2.0","id":90,"method":"shutdown"}'
expect {"id":null,"error":{"code":-32700,"message":"re:Content-Length"}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"file:///a.log"}}}
expect {"id":2,"result":{"kind":"full"}}
# Raw JSON without any header.
raw b'{"jsonrpc":"2.0","id":91,"method":"shutdown"}\r\n'
expect {"id":null,"error":{"code":-32700,"message":"re:without a Content-Length"}}
# A Content-Length that is not a number.
raw b'Content-Length: abc\r\n\r\n{}'
expect {"id":null,"error":{"code":-32700,"message":"re:invalid Content-Length"}}
# A Content-Length that is too short: the truncated body is not JSON.
raw b'Content-Length: 10\r\n\r\n{"jsonrpc":"2.0","id":92,"method":"shutdown"}'
expect {"id":null,"error":{"code":-32700}}
# Header lines in lowercase and bare LF line ends are accepted.
raw b'content-length: 69\n\n{"jsonrpc":"2.0","id":3,"method":"textDocument/codeLens","params":{}}'
expect {"id":3,"error":{"code":-32602}}
# Over the limit: refused without buffering it, and the next message still works.
send {"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"firstfault.diagnoseText","arguments":[{"text":@repeat(x,10000)}]}}
expect {"id":null,"error":{"code":-32600,"message":"re:exceeds the limit of 4096"}}
send {"jsonrpc":"2.0","id":5,"method":"shutdown"}
expect {"id":5,"result":null}
# A header with no body, then end of input.
raw b'Content-Length: 50\r\n\r\n'
close-stdin
exit 0 1000
