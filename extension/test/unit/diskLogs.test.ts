import { test } from "node:test";
import * as assert from "node:assert/strict";
import { activeLogUri, diskDecision, followedWithoutTab, MODEL_SYNC_LIMIT, unsyncedLogTabs } from "../../src/pure/diskLogs";

// The server's log file patterns (tests/lsp/golden/log-files.json is what it advertises).
const LOG_FILES = { patterns: ["*.log", "*.out", "*.err", "slurm-*.out"] };

const tab = (path: string, scheme = "file") => ({ uri: `${scheme}://${path}`, scheme, path });

test("only log tabs on disk without a document and not yet followed", () => {
  const tabs = [tab("/j/big.log"), tab("/j/small.log"), tab("/j/train.py"), tab("/j/a.log", "untitled"), tab("/j/big.log"), tab("/j/old.out")];
  const documents = new Set(["file:///j/small.log"]);
  const followed = new Set(["file:///j/old.out"]);
  assert.deepEqual(unsyncedLogTabs(tabs, documents, followed, LOG_FILES), ["file:///j/big.log"]);
  assert.deepEqual(unsyncedLogTabs([], documents, followed, LOG_FILES), []);
  // Before the server said which files are logs, no tab is one.
  assert.deepEqual(unsyncedLogTabs(tabs, documents, followed, { patterns: [] }), []);
});

test("a file above the sync limit goes to the server at once; a small one after the grace period", () => {
  assert.equal(diskDecision(MODEL_SYNC_LIMIT, false, 0), "disk");
  assert.equal(diskDecision(200 * 1024 * 1024, false, 0), "disk");
  assert.equal(diskDecision(MODEL_SYNC_LIMIT - 1, false, 0), "wait");
  assert.equal(diskDecision(1000, false, 1999, 2000), "wait");
  assert.equal(diskDecision(1000, false, 2000, 2000), "disk");
  assert.equal(diskDecision(undefined, false, 0), "wait"); // size unknown (stat failed): wait
  // The document arrived: the language client syncs it, whatever its size says.
  assert.equal(diskDecision(1000, true, 5000), "editor");
  assert.equal(diskDecision(MODEL_SYNC_LIMIT * 2, true, 0), "editor");
});

test("files followed for a tab are forgotten once no tab shows them", () => {
  const followed = new Set(["file:///j/a.log", "file:///j/b.log"]);
  assert.deepEqual(followedWithoutTab(followed, new Set(["file:///j/b.log"])), ["file:///j/a.log"]);
  assert.deepEqual(followedWithoutTab(followed, new Set(["file:///j/a.log", "file:///j/b.log"])), []);
});

test("the status bar follows the active editor, else a followed file's tab", () => {
  const followed = new Set(["file:///j/big.log"]);
  assert.equal(activeLogUri("file:///j/x.log", "file:///j/big.log", followed), "file:///j/x.log");
  assert.equal(activeLogUri(undefined, "file:///j/big.log", followed), "file:///j/big.log");
  assert.equal(activeLogUri(undefined, "file:///j/other.log", followed), undefined);
  assert.equal(activeLogUri(undefined, undefined, followed), undefined);
});
