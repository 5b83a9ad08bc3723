# A real corpus log (FunASR#2006: rank 2 runs out of GPU memory, the others time out):
# pushed and pulled diagnostics, hover, quick fix with lazy resolve, code lens, report.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${ROOTURI}","capabilities":{"textDocument":{"codeAction":{"resolveSupport":{"properties":["edit"]}}}}}}
expect {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt","languageId":"plaintext","version":7,"text":@file(tests/corpus/funasr-2006/log.txt)}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt","version":7,"diagnostics":[
  {"severity":1,"code":"cuda-out-of-memory","source":"firstfault","message":"re:^Root cause \\(rank 2\\): CUDA out of memory",
   "range":{"start":{"line":0,"character":38},"end":{"line":0,"character":86}},
   "codeDescription":{"href":"file://${ROOT}/docs/catalog.md#cuda-out-of-memory"},
   "data":{"rule":"cuda-out-of-memory","category":"gpu-oom","role":"initiating","env":{"PYTORCH_CUDA_ALLOC_CONF":"expandable_segments:True"}},
   "relatedInformation":[{"location":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt","range":{"start":{"line":5}}},"message":"re:collateral \\(rank 5\\)"}]},
  {"severity":3,"range":{"start":{"line":1}}},
  {"severity":3,"range":{"start":{"line":5}},"message":"re:^Consequence of the root cause at log.txt:1",
   "relatedInformation":[{"location":{"range":{"start":{"line":0,"character":38}}},"message":"re:root cause"}]}]}}
last-publish ${ROOTURI}/tests/corpus/funasr-2006/log.txt {"params":{"diagnostics":{"$len":6}}}
# Pull: the same, as a full report.
send {"jsonrpc":"2.0","id":2,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"}}}
expect {"id":2,"result":{"kind":"full","items":[{"severity":1,"code":"cuda-out-of-memory"},{"severity":3,"code":"*"}]}}
# Hover on the flagged line: meaning, checks ticked, fix, verification.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"},"position":{"line":0,"character":50}}}
expect {"id":3,"result":{"contents":{"kind":"markdown","value":"re:CUDA out of memory on one rank.*- \\[x\\] The message shows reserved-but-unallocated.*- \\[ \\] Memory use of this rank grows.*export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.*nvidia-smi --query-gpu"},"range":{"start":{"line":0}}}}
# Hover on an unflagged position of a log line that has nothing: null.
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"},"position":{"line":999,"character":999}}}
expect {"id":4,"result":null}
# Code actions: the preferred quick fix, planned with its edit (fix::Planner). No launch
# script is open: the rule's own script is created next to the log (a name per rule).
send {"jsonrpc":"2.0","id":5,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":10}},"context":{"diagnostics":[]}}}
expect {"id":5,"result":[{"title":"re:^firstfault: Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \\(firstfault-fix-cuda-out-of-memory.sh\\)$","kind":"quickfix","isPreferred":true,"diagnostics":[{"code":"cuda-out-of-memory"}],
  "edit":{"documentChanges":[{"kind":"create","uri":"${ROOTURI}/tests/corpus/funasr-2006/firstfault-fix-cuda-out-of-memory.sh"},
    {"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/firstfault-fix-cuda-out-of-memory.sh","version":null},"edits":[{"newText":"re:export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"}]}]}},
  {"title":"re:^firstfault: apply every fix of this diagnosis"},
  {"command":{"command":"firstfault.runVerification","arguments":["re:^nvidia-smi"]}}]}
# With a launch script open in the log's folder, the fix edits it, at its version.
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/run.sh","languageId":"shellscript","version":7,"text":"#!/bin/sh\nexec torchrun --nproc-per-node 8 train.py\n"}}}
send {"jsonrpc":"2.0","id":6,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":10}},"context":{"diagnostics":[]}}}
expect {"id":6,"result":[{"title":"re:^firstfault: Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \\(run.sh\\)$","isPreferred":true,
  "edit":{"documentChanges":[{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/run.sh","version":7},"edits":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"newText":"re:PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"}]}]}}]}
send {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/run.sh"}}}
# Code lens on the initiating line.
send {"jsonrpc":"2.0","id":7,"method":"textDocument/codeLens","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"}}}
expect {"id":7,"result":[{"range":{"start":{"line":0}},"command":{"title":"re:root cause gpu-oom on rank 2 . 5 collateral","command":"firstfault.runVerification","arguments":["nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv -l 5"]}}]}
# Closing the document clears its diagnostics.
send {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt","diagnostics":{"$len":0}}}
send {"jsonrpc":"2.0","id":8,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"${ROOTURI}/tests/corpus/funasr-2006/log.txt"}}}
expect {"id":8,"result":{"kind":"full","items":{"$len":0}}}
send {"jsonrpc":"2.0","id":9,"method":"shutdown"}
expect {"id":9,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0 2000
