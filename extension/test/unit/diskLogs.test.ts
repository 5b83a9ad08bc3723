import { test } from "node:test";
import * as assert from "node:assert/strict";
import { activeLogUri, folderLogs, diskDecision, followedWithoutTab, looksLikeLogPath, MODEL_SYNC_LIMIT, unsyncedLogTabs } from "../../src/pure/diskLogs";

const tab = (path: string, scheme = "file") => ({ uri: `${scheme}://${path}`, scheme, path });

test("log names follow the extension's log language", () => {
  for (const p of ["/j/train.log", "/j/slurm-1234.out", "/j/rank3.err", "/j/NIGHT.LOG"]) assert.ok(looksLikeLogPath(p), p);
  for (const p of ["/j/train.py", "/j/run.sh", "/j/log", "/j/x.log.gz", "/j/notes.md"]) assert.ok(!looksLikeLogPath(p), p);
});

test("only log tabs on disk without a document and not yet followed", () => {
  const tabs = [tab("/j/big.log"), tab("/j/small.log"), tab("/j/train.py"), tab("/j/a.log", "untitled"), tab("/j/big.log"), tab("/j/old.out")];
  const documents = new Set(["file:///j/small.log"]);
  const followed = new Set(["file:///j/old.out"]);
  assert.deepEqual(unsyncedLogTabs(tabs, documents, followed), ["file:///j/big.log"]);
  assert.deepEqual(unsyncedLogTabs([], documents, followed), []);
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

test("a folder's logs: files with log names, ranks in numeric order, bounded", () => {
  const entries: [string, boolean][] = [["rank10.log", true], ["rank2.log", true], ["train.py", true], ["sub.log", false], ["slurm-77.out", true], ["rank1.err", true]];
  assert.deepEqual(folderLogs(entries), ["rank1.err", "rank2.log", "rank10.log", "slurm-77.out"]);
  assert.deepEqual(folderLogs(entries, 2), ["rank1.err", "rank2.log"]);
  assert.deepEqual(folderLogs([]), []);
});
