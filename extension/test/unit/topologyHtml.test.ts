import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { bindingExportLines, escapeHtml, gpuNicMatrix, pathClass, renderTopologyHtml, TopoReport } from "../../src/pure/topologyHtml";

const report: TopoReport = {
  schema: "firstfault.topology/1",
  source: "hwloc-xml",
  origin: "node<1>.xml",
  summary: { gpus: 2, nics: 2 },
  devices: [
    { label: "GPU0", kind: "gpu" },
    { label: "GPU1", kind: "gpu" },
    { label: "NIC0", kind: "nic" },
    { label: "NIC1", kind: "nic" },
  ],
  matrix: {
    labels: ["GPU0", "GPU1", "NIC0", "NIC1"],
    rows: [
      ["X", "NV12", "PIX", "SYS"],
      ["NV12", "X", "SYS", null],
      ["PIX", "SYS", "X", "SYS"],
      ["SYS", null, "SYS", "X"],
    ],
  },
  findings: [{ check: "nearest-nic", status: "warn", subject: "GPU1", reason: "<script>alert(1)</script> & more", evidence: ["paths: NIC0=SYS"] }],
  binding: {
    nccl_ib_hca: "=mlx5_0:1,mlx5_1:1",
    ranks: [
      { local_rank: 0, gpu: "GPU0", nic: "NIC0", hca: "mlx5_0", port: 1, nccl_ib_hca: "=mlx5_0:1", path: "PIX", numa_node: 0, cpulist: "0-3", socket_ifname: "ib0" },
      { local_rank: 1, gpu: "GPU1", nic: null, hca: null, port: null, nccl_ib_hca: null, path: null, numa_node: null, cpulist: null, socket_ifname: null, note: "no NIC" },
    ],
  },
  notes: ["a note with \"quotes\""],
};

test("escapeHtml escapes the five characters", () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  assert.equal(escapeHtml(null), "");
});

test("pathClass maps every nvidia-smi path type", () => {
  assert.deepEqual(["X", "NV1", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", null, "??"].map(pathClass), [
    "p-x", "p-nv", "p-nv", "p-pix", "p-pxb", "p-phb", "p-node", "p-sys", "p-unknown", "p-unknown",
  ]);
});

test("gpuNicMatrix keeps GPU rows and NIC columns", () => {
  assert.deepEqual(gpuNicMatrix(report), { gpus: ["GPU0", "GPU1"], nics: ["NIC0", "NIC1"], cells: [["PIX", "SYS"], ["SYS", null]] });
});

test("the page escapes all text, colours cells and has a strict CSP with the nonce", () => {
  const html = renderTopologyHtml(report, { nonce: "abc123", cspSource: "vscode-resource:" });
  assert.ok(!html.includes("<script>alert(1)</script>"));
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
  assert.ok(html.includes("node&lt;1&gt;.xml"));
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-abc123'; script-src 'nonce-abc123';/);
  assert.ok(!/https?:\/\//.test(html), "no remote resources");
  // Every <script> and <style> carries the nonce.
  assert.equal((html.match(/<script(?![^>]*nonce="abc123")/g) ?? []).length, 0);
  assert.equal((html.match(/<style(?![^>]*nonce="abc123")/g) ?? []).length, 0);
  assert.match(html, /<td class="cell p-pix" title="GPU0 → NIC0">PIX<\/td>/);
  assert.match(html, /<td class="cell p-sys" title="GPU0 → NIC1">SYS<\/td>/);
  assert.match(html, /<td class="cell p-unknown" title="GPU1 → NIC1">\?<\/td>/);
  assert.match(html, /id="apply"/);
});

test("no GPUs and no NICs are said plainly", () => {
  assert.match(renderTopologyHtml({ no_gpus: true }, { nonce: "n", cspSource: "s" }), /No GPUs found/);
  assert.match(renderTopologyHtml({ devices: [{ label: "GPU0", kind: "gpu" }], matrix: { labels: ["GPU0"], rows: [["X"]] } }, { nonce: "n", cspSource: "s" }), /No NICs found/);
});

test("bindingExportLines writes one export and a per-rank case", () => {
  assert.equal(
    bindingExportLines(report.binding),
    [
      "# firstfault topology binding (source this in the launch script, per node)",
      "export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1",
      'case "${LOCAL_RANK:-0}" in',
      "  0) export NCCL_IB_HCA==mlx5_0:1 NCCL_SOCKET_IFNAME=ib0 ;; # GPU0, NUMA 0, CPUs 0-3",
      "esac",
      "",
    ].join("\n"),
  );
  assert.equal(bindingExportLines(undefined), "");
  assert.equal(bindingExportLines({ ranks: [{ local_rank: 0, socket_ifname: "eth 0" }] }).split("\n")[2], "  0) export NCCL_SOCKET_IFNAME='eth 0' ;;");
});

// The committed output of `firstfault topo --format json --xml
// tests/data/topologies/synthetic/server-8gpu-8nic-crossed.xml` (run from the repository
// root); ctest topo_fixture_fresh fails when the CLI's output no longer matches it.
test("renders the real output of firstfault topo", () => {
  const real = JSON.parse(fs.readFileSync(path.join(__dirname, "../../../test/unit/fixtures/topo-8gpu-crossed.json"), "utf8")) as TopoReport;
  const m = gpuNicMatrix(real);
  assert.equal(m.gpus.length, 8);
  assert.equal(m.nics.length, 8);
  const html = renderTopologyHtml(real, { nonce: "n", cspSource: "s" });
  assert.match(html, /p-node/);
  assert.match(bindingExportLines(real.binding), /export NCCL_IB_HCA==mlx5_0:1,/);
});
