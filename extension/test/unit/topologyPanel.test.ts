import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { TopoReport } from "../../src/pure/topologyHtml";
import { TopologyPanel, TopologyPanelHost, TopologyWebviewPanel } from "../../src/pure/topologyPanel";

// A fake webview panel that counts its message listeners and can deliver a message to
// every one of them, as VS Code does.
class FakePanel implements TopologyWebviewPanel {
  readonly listeners = new Set<(m: unknown) => unknown>();
  private readonly disposeListeners = new Set<() => unknown>();
  reveals = 0;
  readonly webview = {
    html: "",
    cspSource: "vscode-webview://fake",
    onDidReceiveMessage: (l: (m: unknown) => unknown) => {
      this.listeners.add(l);
      return { dispose: () => this.listeners.delete(l) };
    },
  };
  reveal() {
    this.reveals++;
  }
  onDidDispose(l: () => unknown) {
    this.disposeListeners.add(l);
    return { dispose: () => this.disposeListeners.delete(l) };
  }
  async post(m: unknown) {
    await Promise.all([...this.listeners].map((l) => l(m)));
  }
  close() {
    for (const l of [...this.disposeListeners]) l();
  }
}

function host() {
  const panels: FakePanel[] = [];
  const applied: string[] = [];
  const copied: string[] = [];
  const h: TopologyPanelHost = {
    createPanel: () => {
      const p = new FakePanel();
      panels.push(p);
      return p;
    },
    nonce: () => "nonce",
    copy: async (lines) => void copied.push(lines),
    apply: async (lines) => void applied.push(lines),
  };
  return { h, panels, applied, copied };
}

// The real output of `firstfault topo --format json --xml tests/data/topologies/synthetic/server-8gpu-8nic-crossed.xml`.
const real = JSON.parse(fs.readFileSync(path.join(__dirname, "../../../test/unit/fixtures/topo-8gpu-crossed.json"), "utf8")) as TopoReport;
const other: TopoReport = { ...real, binding: { ...real.binding, ranks: [{ local_rank: 0, nccl_ib_hca: "=mlx5_9:1" }] } };

test("Check Topology run three times: one panel, one listener, Apply inserts the binding once", async () => {
  const t = host();
  const panel = new TopologyPanel(t.h);
  panel.show(other);
  panel.show(other);
  panel.show(real);
  assert.equal(t.panels.length, 1);
  const p = t.panels[0];
  assert.equal(p.listeners.size, 1);
  assert.equal(p.reveals, 3);
  assert.match(p.webview.html, /GPU0/);
  await p.post({ type: "apply" });
  assert.equal(t.applied.length, 1);
  // The latest check's lines, not an earlier one's.
  assert.match(t.applied[0], /export NCCL_IB_HCA==mlx5_0:1,/);
  assert.doesNotMatch(t.applied[0], /mlx5_9/);
  await p.post({ type: "copy" });
  assert.deepEqual(t.copied, [t.applied[0]]);
  await p.post({ type: "something else" });
  await p.post(null);
  assert.equal(t.applied.length + t.copied.length, 2);
});

test("a closed panel drops its listener; the next check opens a new panel with one listener", async () => {
  const t = host();
  const panel = new TopologyPanel(t.h);
  panel.show(real);
  t.panels[0].close();
  assert.equal(t.panels[0].listeners.size, 0);
  assert.equal(panel.isOpen, false);
  panel.show(real);
  panel.show(real);
  assert.equal(t.panels.length, 2);
  assert.equal(t.panels[1].listeners.size, 1);
  await t.panels[1].post({ type: "apply" });
  assert.equal(t.applied.length, 1);
});
