# stdin closing ends the process within a second, even with an open document being analysed.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/big.log","languageId":"log","version":1,"text":@repeat([rank3]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n,20000)}}}
close-stdin
exit 1 1000
