import * as assert from 'node:assert/strict';
import {test} from 'node:test';

import {BoundedBuffer, classifyExit, commandDiagnosisText, CommandHistory, commandOutcome, stripTerminalEscapes} from '../../src/pure/terminalBuffer';

test("BoundedBuffer keeps everything under the limit", () => {
  const b = new BoundedBuffer(10);
  b.append("abc");
  b.append("def");
  assert.equal(b.text(), "abcdef");
  assert.equal(b.truncated, false);
});

test("BoundedBuffer keeps the tail across chunk boundaries", () => {
  const b = new BoundedBuffer(5);
  b.append("abc");
  b.append("defg");
  assert.equal(b.text(), "cdefg");
  assert.equal(b.length, 5);
  assert.equal(b.droppedChars, 2);
  assert.equal(b.truncated, true);
});

test("BoundedBuffer handles a chunk larger than the limit", () => {
  const b = new BoundedBuffer(4);
  b.append("xy");
  b.append("0123456789");
  assert.equal(b.text(), "6789");
  assert.equal(b.droppedChars, 8);
});

test("BoundedBuffer stays bounded over many small chunks (2 MB default)", () => {
  const b = new BoundedBuffer();
  const line = "rank 3: NCCL WARN something happened\n";
  for (let i = 0; i < 80_000; i++) b.append(line);
  assert.equal(b.length, 2 * 1024 * 1024);
  assert.ok(b.text().endsWith(line));
  assert.ok(b.truncated);
});

test("BoundedBuffer rejects a non-positive limit", () => {
  assert.throws(() => new BoundedBuffer(0), RangeError);
});

test("stripTerminalEscapes removes CSI, OSC 633 and handles \\r", () => {
  const raw = "\x1b]633;C\x07\x1b[31mError\x1b[0m: boom\r\n10%\r50%\r100%\r\nlast\x1b]633;D;1\x07";
  assert.equal(stripTerminalEscapes(raw), "Error: boom\n100%\nlast");
});

test("stripTerminalEscapes keeps plain text intact", () => {
  assert.equal(stripTerminalEscapes("a\nb\tc\n"), "a\nb\tc\n");
});

test("an undefined exit code is unknown, not success", () => {
  assert.equal(classifyExit(undefined), "unknown");
  assert.equal(classifyExit(0), "success");
  assert.equal(classifyExit(1), "failure");
  assert.equal(classifyExit(137), "failure");
});

test("CommandHistory.lastFailed skips successes and counts unknown exits", () => {
  const h = new CommandHistory(3);
  const rec = (commandLine: string, exitCode: number | undefined) => ({ commandLine, exitCode, output: "", truncated: false, terminalName: "t", endedAt: 0 });
  assert.equal(h.lastFailed(), undefined);
  h.add(rec("a", 1));
  h.add(rec("b", 0));
  assert.equal(h.lastFailed()?.commandLine, "a");
  h.add(rec("c", undefined));
  assert.equal(h.lastFailed()?.commandLine, "c");
  h.add(rec("d", 0));
  h.add(rec("e", 0));
  assert.equal(h.lastFailed()?.commandLine, "c");
  h.add(rec("f", 0));
  assert.equal(h.size, 3);
  assert.equal(h.lastFailed(), undefined, "older records fall out of the history");
});

test('commandOutcome: a non-zero exit is a failure, 0 is not, unknown says nothing', () => {
  assert.deepEqual(commandOutcome(137), {failed: true, exitCode: 137});
  assert.deepEqual(commandOutcome(1), {failed: true, exitCode: 1});
  assert.deepEqual(commandOutcome(0), {exitCode: 0});
  assert.equal(commandOutcome(undefined), undefined);
  assert.equal(commandOutcome(4096), undefined);
});

test("commandDiagnosisText includes the command and exit status", () => {
  const t = commandDiagnosisText({ commandLine: "torchrun train.py", exitCode: undefined, output: "boom", truncated: false, terminalName: "t", endedAt: 0 });
  assert.equal(t, "$ torchrun train.py\nboom\n[exit status: unknown]\n");
});
