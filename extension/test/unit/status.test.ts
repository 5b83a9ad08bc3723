import { test } from "node:test";
import * as assert from "node:assert/strict";
import { diagnosticData, formatStatus, who } from "../../src/pure/status";

const root = {
  severity: 0,
  source: "firstfault",
  message: "whatever the server says to people",
  data: { rule: "nccl-ib-remote-error", title: "NCCL IB: remote access error", category: "network", role: "initiating", rank: 3, host: "gpu-node-1", confidence: 0.87 },
};

test("diagnosticData reads the typed fields and drops mistyped ones", () => {
  assert.deepEqual(diagnosticData(root), root.data);
  const odd = diagnosticData({ severity: 0, message: "", data: { rule: 1, rank: "3", host: null, confidence: "high" } });
  assert.deepEqual(odd, { rule: undefined, title: undefined, category: undefined, role: undefined, rank: undefined, host: undefined, confidence: undefined });
  assert.equal(diagnosticData({ severity: 0, message: "" }), undefined);
});

test("who prefers the rank, then the host", () => {
  assert.equal(who({ rank: 0, host: "h" }), "rank 0");
  assert.equal(who({ rank: null, host: "gpu-node-1" }), "host gpu-node-1");
  assert.equal(who({}), undefined);
});

test("formatStatus uses the initiating diagnostic's data", () => {
  const alt = { severity: 1, source: "firstfault", message: "x", data: { role: "alternative", rule: "r2", category: "other" } };
  const s = formatStatus([{ severity: 2, source: "firstfault", message: "Consequence of ...", data: { role: "collateral" } }, root, alt]);
  assert.ok(s);
  assert.equal(s.text, "$(error) network · rank 3 · 87%");
  assert.match(s.tooltip, /root cause: NCCL IB: remote access error/);
  assert.match(s.tooltip, /initiating: rank 3/);
  assert.match(s.tooltip, /1 less likely cause/);
});

test("formatStatus hides without firstfault diagnostics, and says so when there is no root cause", () => {
  assert.equal(formatStatus([]), undefined);
  assert.equal(formatStatus([{ severity: 0, source: "eslint", message: "x" }]), undefined);
  assert.equal(formatStatus([{ severity: 3, source: "firstfault", message: "Context: y", data: { role: "context" } }])?.text, "$(pass) firstfault: no root cause");
  // An Error-severity line whose data says nothing is not taken for a root cause.
  assert.equal(formatStatus([{ severity: 0, source: "firstfault", message: "Root cause (rank 1): X [a, 90%]." }])?.text, "$(pass) firstfault: no root cause");
});

test("formatStatus shortens long labels", () => {
  const s = formatStatus([{ severity: 0, message: "", data: { role: "initiating", title: "x".repeat(100) } }], 20);
  assert.ok(s && s.text.length < 40 && s.text.endsWith("…"));
});
