import { test } from "node:test";
import * as assert from "node:assert/strict";
import { formatStatus, parseRootCause } from "../../src/pure/status";

const root = {
  severity: 0,
  source: "firstfault",
  code: "nccl-ib-remote-error",
  message: "Root cause (rank 3): NCCL IB: remote access error [network, 87%]. The first error on any rank ...",
};

test("parseRootCause reads the server's initiating message", () => {
  assert.deepEqual(parseRootCause(root.message, root.code), {
    who: "rank 3",
    title: "NCCL IB: remote access error",
    category: "network",
    confidence: "87%",
    rule: "nccl-ib-remote-error",
  });
});

test("parseRootCause without a rank, and with a host", () => {
  assert.equal(parseRootCause("Root cause: CUDA OOM [memory, 90%]. x").who, undefined);
  assert.equal(parseRootCause("Root cause (host gpu-node-1): CUDA OOM [memory, 90%].").who, "host gpu-node-1");
  assert.equal(parseRootCause("something else entirely").title, "something else entirely");
  assert.equal(parseRootCause("x", { value: "r1" }).rule, "r1");
});

test("formatStatus uses the Error-severity diagnostic", () => {
  const s = formatStatus([{ severity: 2, source: "firstfault", message: "Consequence of ..." }, root, { severity: 1, source: "firstfault", message: "Less likely cause (10%): X" }]);
  assert.ok(s);
  assert.equal(s.text, "$(error) network · rank 3 · 87%");
  assert.match(s.tooltip, /root cause: NCCL IB: remote access error/);
  assert.match(s.tooltip, /initiating: rank 3/);
  assert.match(s.tooltip, /1 less likely cause/);
});

test("formatStatus hides without firstfault diagnostics, and says so when there is no error", () => {
  assert.equal(formatStatus([]), undefined);
  assert.equal(formatStatus([{ severity: 0, source: "eslint", message: "x" }]), undefined);
  assert.equal(formatStatus([{ severity: 3, source: "firstfault", message: "Context: y" }])?.text, "$(pass) firstfault: no root cause");
});

test("formatStatus shortens long titles", () => {
  const s = formatStatus([{ severity: 0, message: "Root cause: " + "x".repeat(100) + "." }], 20);
  assert.ok(s && s.text.length < 40 && s.text.endsWith("…"));
});
