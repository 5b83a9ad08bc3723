# initialize / initialized / shutdown / exit 0; requests before initialize get -32002.
send {"jsonrpc":"2.0","id":0,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.log"},"position":{"line":0,"character":0}}}
expect {"id":0,"error":{"code":-32002}}
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
expect {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16","textDocumentSync":{"openClose":true,"change":2},
  "hoverProvider":true,"codeActionProvider":{"codeActionKinds":["quickfix"]},"codeLensProvider":{},
  "executeCommandProvider":{"commands":["firstfault.diagnoseText","firstfault.checkTopology","firstfault.report","firstfault.analyzeFile","firstfault.analyzeFolder","firstfault.forgetFile"]},
  "experimental":{"firstfault":{"logFiles":{"patterns":["*.log","*.out","*.err","slurm-*.out"]}}}},
  "serverInfo":{"name":"firstfault"}}}
send {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}
expect {"id":2,"error":{"code":-32600}}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
send {"jsonrpc":"2.0","id":3,"method":"shutdown"}
expect {"id":3,"result":null}
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{}}
expect {"id":4,"error":{"code":-32600}}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
