import { test } from "node:test";
import * as assert from "node:assert/strict";
import { maskHostNames } from "../../src/pure/mask";

test("NCCL line prefixes and IPs are masked consistently", () => {
  const text = "gpu-node-12:1234:1234 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.3.7<0>\n" +
    "gpu-node-1:99:99 [1] NCCL WARN NET/IB : Got completion from peer 10.0.3.8<4312> with error 12\n" +
    "Root cause on host gpu-node-12";
  const out = maskHostNames(text);
  assert.ok(!out.includes("gpu-node-12") && !out.includes("gpu-node-1:"), out);
  assert.ok(!out.includes("10.0.3.7") && !out.includes("10.0.3.8"), out);
  assert.match(out, /^host-1:1234:1234 \[0\]/);
  assert.match(out, /\nhost-2:99:99 \[1\]/);
  assert.match(out, /host host-1$/);
  assert.match(out, /ip-1<0>/);
});

test("words that are not host names are left alone", () => {
  const t = "rank 3 on node the GPU; CUDA error: an illegal memory access";
  assert.equal(maskHostNames(t), t);
  assert.equal(maskHostNames("listening on 127.0.0.1"), "listening on 127.0.0.1");
});
