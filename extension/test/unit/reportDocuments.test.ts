import { test } from "node:test";
import * as assert from "node:assert/strict";
import { ClosedDocument, MAX_REPORTS, REPORT_SCHEME, ReportStore, reportPath } from "../../src/pure/reportDocuments";

// workspace.onDidCloseTextDocument, faked: listeners registered, and a way to close a document.
function fakeCloseEvent() {
  const listeners = new Set<(d: ClosedDocument) => unknown>();
  const event = (l: (d: ClosedDocument) => unknown) => {
    listeners.add(l);
    return { dispose: () => listeners.delete(l) };
  };
  const close = (scheme: string, s: string) => {
    for (const l of [...listeners]) l({ uri: { scheme, toString: () => s } });
  };
  return { event, close, listeners };
}

const uri = (name: string) => `${REPORT_SCHEME}:${reportPath(name)}`;

test("a report is forgotten when its document closes; other documents do not matter", () => {
  const store = new ReportStore();
  const ev = fakeCloseEvent();
  const sub = store.forgetOnClose(ev.event);
  store.set(uri("report-a.log"), "# a");
  store.set(uri("report-b.log"), "# b");
  store.set(uri("selection-1"), "# s");
  assert.equal(store.size, 3);
  ev.close(REPORT_SCHEME, uri("report-b.log"));
  assert.equal(store.size, 2);
  assert.equal(store.get(uri("report-b.log")), undefined);
  assert.equal(store.get(uri("report-a.log")), "# a");
  // A log with the same path under another scheme is not a report.
  ev.close("file", uri("report-a.log"));
  assert.equal(store.size, 2);
  ev.close(REPORT_SCHEME, uri("report-a.log"));
  ev.close(REPORT_SCHEME, uri("selection-1"));
  assert.equal(store.size, 0);
  sub.dispose();
  assert.equal(ev.listeners.size, 0);
});

test("the store is bounded: the oldest reports go first, a report set again is the newest", () => {
  const store = new ReportStore(3);
  store.set("r:1", "1");
  store.set("r:2", "2");
  store.set("r:3", "3");
  store.set("r:1", "1 again"); // now the newest
  store.set("r:4", "4");
  assert.equal(store.size, 3);
  assert.equal(store.get("r:2"), undefined);
  assert.equal(store.get("r:1"), "1 again");
  assert.deepEqual(["r:1", "r:3", "r:4"].map((k) => store.get(k) !== undefined), [true, true, true]);
  const big = new ReportStore();
  for (let i = 0; i < MAX_REPORTS * 3; i++) big.set(`r:${i}`, `${i}`);
  assert.equal(big.size, MAX_REPORTS);
  assert.equal(big.get(`r:${MAX_REPORTS * 3 - 1}`), `${MAX_REPORTS * 3 - 1}`);
});

test("reportPath keeps safe characters only", () => {
  assert.equal(reportPath("report-slurm 123.out"), "/report-slurm-123.out.md");
  assert.equal(reportPath("../../etc/passwd"), "/..-..-etc-passwd.md");
});
