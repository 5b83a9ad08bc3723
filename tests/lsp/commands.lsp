# workspace/executeCommand: diagnoseText, checkTopology (with progress; of a file given as
# {file} or a string, which must be absolute), runVerification,
# and hover on the table's variables in YAML and Python.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"firstfault.diagnoseText","arguments":[{"text":@file(tests/corpus/funasr-2006/log.txt)}]}}
expect {"id":2,"result":{"report":{"version":1,"diagnoses":[{"category":"gpu-oom"}]},"text":"re:Root cause: CUDA out of memory","markdown":"re:^# firstfault: diagnosis of the text\n\n\\*\\*Root cause:\\*\\* CUDA out of memory.*```text\n"}}
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"firstfault.checkTopology","workDoneToken":"topo-1"}}
expect {"method":"$/progress","params":{"token":"topo-1","value":{"kind":"begin"}}}
expect {"method":"$/progress","params":{"token":"topo-1","value":{"kind":"end"}}}
expect 20 {"id":3}
send {"jsonrpc":"2.0","id":31,"method":"workspace/executeCommand","params":{"command":"firstfault.checkTopology","arguments":[{"file":"${ROOT}/tests/data/topologies/nvidia-smi-topo/NVIDIA-nccl-1357.txt"}]}}
expect 20 {"id":31,"result":{"source":"nvidia-smi","binding":{"origin":"re:NVIDIA-nccl-1357.txt$","ranks":[{"gpu":"GPU0"}]}}}
send {"jsonrpc":"2.0","id":32,"method":"workspace/executeCommand","params":{"command":"firstfault.checkTopology","arguments":["${ROOT}/tests/data/topologies/nccl-log/two-node-ib.log"]}}
expect 20 {"id":32,"result":{"source":"nccl-log"}}
send {"jsonrpc":"2.0","id":33,"method":"workspace/executeCommand","params":{"command":"firstfault.checkTopology","arguments":[{"file":"tests/data/topologies/nccl-log/two-node-ib.log"}]}}
expect {"id":33,"error":{"code":-32602,"message":"re:absolute path"}}
send {"jsonrpc":"2.0","id":34,"method":"workspace/executeCommand","params":{"command":"firstfault.checkTopology","arguments":[{"file":"${ROOT}/tests/data/no-such-topology.txt"}]}}
expect 20 {"id":34,"error":{"message":"re:cannot read the topology file"}}
send {"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"firstfault.runVerification","arguments":["nvidia-smi"]}}
expect {"id":4,"result":{"command":"nvidia-smi"}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///job/env.yaml","languageId":"yaml","version":1,"text":"env:\n  - name: NCCL_SOCKET_IFNAME\n    value: \"^docker,lo\"\n  - name: NCCL_FOO_BAR\n"}}}
send {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///job/env.yaml"},"position":{"line":1,"character":12}}}
expect {"id":5,"result":{"contents":{"value":"re:NCCL_SOCKET_IFNAME.*Syntax"},"range":{"start":{"line":1,"character":10},"end":{"line":1,"character":28}}}}
send {"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///job/env.yaml"},"position":{"line":3,"character":12}}}
expect {"id":6,"result":{"contents":{"value":"re:NCCL_FOO_BAR.*no notes"}}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///job/train.py","languageId":"python","version":1,"text":"os.environ['TORCH_NCCL_ASYNC_ERROR_HANDLING'] = '1'\n"}}}
send {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///job/train.py"},"position":{"line":0,"character":20}}}
expect {"id":7,"result":{"contents":{"value":"re:TORCH_NCCL_ASYNC_ERROR_HANDLING.*PyTorch"}}}
send {"jsonrpc":"2.0","id":8,"method":"shutdown"}
expect {"id":8,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
