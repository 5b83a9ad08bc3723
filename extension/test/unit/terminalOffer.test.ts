import { test } from "node:test";
import * as assert from "node:assert/strict";
import { analyseCommand, commandOutcome, rootCauseLine, uncapturedNote } from "../../src/pure/terminalOffer";

test("only failed (or unknown) commands are analysed, and never with the setting off", () => {
  assert.equal(analyseCommand("ask", 127), true);
  assert.equal(analyseCommand("always", 1), true);
  assert.equal(analyseCommand("ask", undefined), true);
  assert.equal(analyseCommand("ask", 0), false);
  assert.equal(analyseCommand("off", 1), false);
  assert.equal(analyseCommand(undefined, 2), true);
});

test("the root cause is the top diagnosis, in one line", () => {
  assert.equal(rootCauseLine({ diagnoses: [] }), undefined);
  assert.equal(rootCauseLine(undefined), undefined);
  assert.equal(rootCauseLine({ diagnoses: [{ title: "CUDA out of memory", category: "oom" }, { title: "watchdog timeout" }] }), "CUDA out of memory [oom]");
  assert.equal(rootCauseLine({ diagnoses: [{ rule: "nccl-unhandled", title: "a\n  b" }] }), "a b");
  const long = rootCauseLine({ diagnoses: [{ title: "x".repeat(300) }] }, 50)!;
  assert.equal(long.length, 50);
  assert.ok(long.endsWith("…"));
});

test("no failure found: a quiet note, never an offer, whatever the setting", () => {
  for (const setting of ["ask", "always", undefined]) {
    const o = commandOutcome(setting, "cho hi", 127, undefined);
    assert.equal(o.kind, "note");
    assert.match((o as { message: string }).message, /cho hi.*exit status 127/);
  }
});

test("a failure found: offered with its root cause, or shown at once with 'always'", () => {
  const o = commandOutcome("ask", "torchrun --nproc_per_node 8 train.py", 1, "CUDA out of memory [oom]");
  assert.equal(o.kind, "offer");
  assert.match((o as { message: string }).message, /CUDA out of memory \[oom\]/);
  assert.match((o as { message: string }).message, /exit status 1/);
  assert.deepEqual(commandOutcome("always", "x", 1, "CUDA out of memory [oom]"), { kind: "show" });
  const u = commandOutcome("ask", "x", undefined, "y");
  assert.match((u as { message: string }).message, /exit status unknown/);
});

test("a failed command whose output VS Code did not pass on: a note that says so, not 'no known failure'", () => {
  const m = uncapturedNote("cat crash.txt; false", 1);
  assert.match(m, /no output of 'cat crash.txt; false' reached the extension \(exit status 1\)/);
  assert.match(m, /Diagnose Terminal Selection/);
  assert.doesNotMatch(m, /no known failure/);
});
