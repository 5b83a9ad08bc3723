# exit without shutdown exits 1.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
send {"jsonrpc":"2.0","method":"exit"}
exit 1 2000
