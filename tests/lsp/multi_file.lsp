# Several open logs are one job: the root cause is in rank2.log, the collateral in rank5.log
# points to it (and back).
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///job/rank5.log","languageId":"log","version":1,"text":"[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=220084533, NumelOut=220084533, Timeout(ms)=600000) ran for 600037 milliseconds before timing out.\n"}}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///job/rank2.err","languageId":"","version":1,"text":"step 10\n[rank2]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 336.00 MiB.\n"}}}
# A script is not a log: no diagnostics for it.
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///job/train.sh","languageId":"shellscript","version":1,"text":"export NCCL_DEBUG=INFO\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///job/rank2.err","diagnostics":[{"severity":1,"code":"cuda-out-of-memory","range":{"start":{"line":1}},
  "relatedInformation":[{"location":{"uri":"file:///job/rank5.log","range":{"start":{"line":0}}}}]}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///job/rank5.log","diagnostics":[{"severity":3,"message":"re:Consequence of the root cause at rank2.err:2",
  "relatedInformation":[{"location":{"uri":"file:///job/rank2.err","range":{"start":{"line":1}}}}]}]}}
expect-none 200 {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///job/train.sh"}}
# Hover on NCCL_DEBUG in the script.
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///job/train.sh"},"position":{"line":0,"character":9}}}
expect {"id":2,"result":{"contents":{"value":"re:NCCL_DEBUG.*VERSION.*WARN.*INFO"}}}
# The report of rank5.log names the correlated file and the root cause.
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"firstfault.report","arguments":[{"uri":"file:///job/rank5.log"}]}}
expect {"id":3,"result":{"markdown":"re:Correlated with 1 other open log.*rank2.err.*Root cause: CUDA out of memory.*rank 2"}}
send {"jsonrpc":"2.0","id":4,"method":"shutdown"}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
