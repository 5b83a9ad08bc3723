import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "path";
import { bundledServerPath, FirstfaultSettings, serverLaunch } from "../../src/pure/serverArgs";

const base: FirstfaultSettings = { serverPath: "", rulesDirectories: [], topologyFile: "", terminalOffer: "ask", maskHostNames: false, traceServer: "off" };
const ext = "/ext";
const bundled = bundledServerPath(ext, "linux", "x64");

test("the bundled binary is bin/<platform>-<arch>/firstfault", () => {
  assert.equal(bundled, path.join("/ext", "bin", "linux-x64", "firstfault"));
});

test("default settings run the bundled server with the shipped docs", () => {
  const l = serverLaunch(base, { extensionPath: ext, platform: "linux", arch: "x64", exists: () => true });
  assert.deepEqual(l, { command: bundled, args: ["lsp", "--log-level", "info", "--docs", path.join(ext, "docs")], origin: "bundled" });
});

test("without a bundled binary it falls back to PATH", () => {
  const l = serverLaunch(base, { extensionPath: ext, platform: "darwin", arch: "arm64", exists: () => false });
  assert.equal(l.command, "firstfault");
  assert.equal(l.origin, "path");
  assert.deepEqual(l.args, ["lsp", "--log-level", "info"]);
});

test("server.path, rules directories (resolved, deduplicated) and verbose trace", () => {
  const l = serverLaunch(
    { ...base, serverPath: "~/bin/firstfault", rulesDirectories: ["rules", "/abs/rules", " ", "rules"], traceServer: "verbose" },
    { extensionPath: ext, platform: "linux", arch: "x64", workspaceFolder: "/ws", exists: () => false },
    "/home/u",
  );
  assert.equal(l.command, "/home/u/bin/firstfault");
  assert.equal(l.origin, "setting");
  assert.deepEqual(l.args, ["lsp", "--log-level", "debug", "--rules", "/ws/rules", "--rules", "/abs/rules"]);
});

test("an untrusted workspace ignores server.path and rules directories", () => {
  const l = serverLaunch({ ...base, serverPath: "/evil", rulesDirectories: ["/r"] }, { extensionPath: ext, platform: "linux", arch: "x64", exists: (p) => p === bundled, trusted: false });
  assert.equal(l.command, bundled);
  assert.ok(!l.args.includes("--rules"));
});
