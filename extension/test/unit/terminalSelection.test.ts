import { test } from "node:test";
import * as assert from "node:assert/strict";
import { NO_TERMINAL, proposedSelection, readTerminalSelection, SELECT_IN_TERMINAL_FIRST, TerminalSelectionHost } from "../../src/pure/terminalSelection";

// A fake host: a clipboard holding the user's text, a terminal whose selection the copy
// command puts on the clipboard (nothing when nothing is selected, as VS Code does), and a
// count of every clipboard call.
function fakeHost(opts: { terminal?: unknown; selected?: string; copyThrows?: boolean; readThrowsAfterCopy?: boolean }) {
  const calls = { read: 0, write: 0, copy: 0 };
  let clipboard = "the user's clipboard\nwith two lines";
  const user = clipboard;
  let copied = false;
  const host: TerminalSelectionHost = {
    terminal: "terminal" in opts ? opts.terminal : { name: "bash" },
    readClipboard: async () => {
      calls.read++;
      if (copied && opts.readThrowsAfterCopy) throw new Error("clipboard unavailable");
      return clipboard;
    },
    writeClipboard: async (t: string) => {
      calls.write++;
      clipboard = t;
    },
    copySelection: async () => {
      calls.copy++;
      copied = true;
      if (opts.copyThrows) throw new Error("command not found");
      if (opts.selected) clipboard = opts.selected;
    },
  };
  return { host, calls, clipboard: () => clipboard, user };
}

test("with Terminal.selection (proposed API) the selection is read and the clipboard is never touched", async () => {
  const f = fakeHost({ terminal: { name: "bash", selection: "NCCL WARN NET/IB : Got completion with error 12" } });
  const r = await readTerminalSelection(f.host);
  assert.deepEqual(r, { kind: "text", text: "NCCL WARN NET/IB : Got completion with error 12", via: "selection" });
  assert.deepEqual(f.calls, { read: 0, write: 0, copy: 0 });
  assert.equal(f.clipboard(), f.user);
});

test("an empty Terminal.selection asks for a selection, without the clipboard", async () => {
  const f = fakeHost({ terminal: { selection: "  \n" } });
  assert.deepEqual(await readTerminalSelection(f.host), { kind: "empty", message: SELECT_IN_TERMINAL_FIRST });
  assert.deepEqual(f.calls, { read: 0, write: 0, copy: 0 });
});

test("without the proposed API the selection comes through the clipboard, which is restored", async () => {
  const f = fakeHost({ selected: "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970" });
  const r = await readTerminalSelection(f.host);
  assert.deepEqual(r, { kind: "text", text: "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970", via: "clipboard" });
  assert.equal(f.calls.copy, 1);
  assert.equal(f.clipboard(), f.user);
});

test("nothing selected: a clear message, and the clipboard keeps the user's text (not the marker)", async () => {
  const f = fakeHost({});
  const r = await readTerminalSelection(f.host);
  assert.equal(r.kind, "empty");
  assert.equal(r.kind === "empty" && r.message, SELECT_IN_TERMINAL_FIRST);
  assert.match(SELECT_IN_TERMINAL_FIRST, /select .* in the terminal first/);
  assert.equal(f.clipboard(), f.user);
});

test("a copy command that throws still restores the clipboard, and the failure is reported", async () => {
  const f = fakeHost({ copyThrows: true });
  await assert.rejects(readTerminalSelection(f.host), /command not found/);
  assert.equal(f.clipboard(), f.user);
});

test("a clipboard read that throws after the copy still restores the clipboard", async () => {
  const f = fakeHost({ selected: "some output", readThrowsAfterCopy: true });
  await assert.rejects(readTerminalSelection(f.host), /clipboard unavailable/);
  assert.equal(f.clipboard(), f.user);
});

test("no terminal: no clipboard use, and says so", async () => {
  const f = fakeHost({ terminal: undefined });
  assert.deepEqual(await readTerminalSelection(f.host), { kind: "no-terminal", message: NO_TERMINAL });
  assert.deepEqual(f.calls, { read: 0, write: 0, copy: 0 });
});

test("proposedSelection: only a string counts; a throwing getter counts as absent", () => {
  assert.equal(proposedSelection({ selection: "x" }), "x");
  assert.equal(proposedSelection({ selection: undefined }), undefined);
  assert.equal(proposedSelection({}), undefined);
  assert.equal(proposedSelection(undefined), undefined);
  const guarded = {
    get selection(): string {
      throw new Error("proposed API terminalSelection is not enabled");
    },
  };
  assert.equal(proposedSelection(guarded), undefined);
});
