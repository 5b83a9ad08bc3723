// Which files are logs is the server's to say: the extension reads the patterns the server
// advertises (tests/lsp/golden/log-files.json, written from `firstfault lsp`'s initialize
// result and kept fresh by ctest lsp.golden_fresh) and applies them; its manifest, which VS
// Code reads before any server runs, must name the same files.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { isLogFile, LogFiles, logFilesOf, logSelector, serverSelector } from "../../src/pure/logFiles";

const ROOT = path.join(__dirname, "../../../..");
const SERVER: LogFiles = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/lsp/golden/log-files.json"), "utf8"));

test("the patterns are read from the initialize result's experimental capability", () => {
  assert.deepEqual(logFilesOf({ experimental: { firstfault: { logFiles: { patterns: ["*.log", 3] } } } }), { patterns: ["*.log"] });
  assert.deepEqual(logFilesOf({}), { patterns: [] });
  assert.deepEqual(logFilesOf(undefined), { patterns: [] });
  assert.ok(SERVER.patterns.length > 0);
});

test("file names match the server's patterns as the server matches them", () => {
  for (const p of ["/j/train.log", "/j/slurm-1234.out", "/j/rank3.err", "/j/NIGHT.LOG"]) assert.ok(isLogFile(SERVER, p), p);
  for (const p of ["/j/train.py", "/j/run.sh", "/j/log", "/j/x.log.gz", "/j/notes.md", "/x.log/run.sh"]) assert.ok(!isLogFile(SERVER, p), p);
  assert.ok(isLogFile({ patterns: ["a*b(c)"] }, "/j/aXb(c)")); // only `*` is special
  assert.ok(!isLogFile({ patterns: ["a*b(c)"] }, "/j/aXbc"));
});

test("the selectors are the Log language and the server's patterns, then the launch files", () => {
  const logs = logSelector(SERVER);
  assert.deepEqual(logs[0], { language: "log" });
  for (const p of SERVER.patterns) assert.ok(logs.some((f) => "pattern" in f && f.pattern === `**/${p}`), p);
  const all = serverSelector(SERVER);
  assert.deepEqual(all.slice(0, logs.length), logs);
  assert.ok(all.some((f) => "language" in f && f.language === "shellscript"));
  assert.deepEqual(logSelector({ patterns: [] }), [{ language: "log" }, { scheme: "untitled", language: "log" }]);
});

test("the manifest's Log language and activation name the files the server calls logs", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "../../../package.json"), "utf8"));
  const log = manifest.contributes.languages.find((l: { id: string }) => l.id === "log");
  const declared = [...log.extensions.map((e: string) => `*${e}`), ...log.filenamePatterns].sort();
  assert.deepEqual(declared, [...SERVER.patterns].sort());
  const activation = manifest.activationEvents.filter((e: string) => e.startsWith("workspaceContains:")).map((e: string) => e.slice("workspaceContains:**/".length));
  for (const a of activation) assert.ok(isLogFile(SERVER, a.replace("*", "x")), a);
});
