// The Check Topology webview's HTML, rendered from `firstfault topo --format json`
// (schema firstfault.topology/1). No vscode import; all text is escaped, and the page
// loads nothing remote: a strict CSP with a nonce for its one style and one script.

export interface TopoRank {
  local_rank: number;
  gpu?: string | null;
  gpu_bus_id?: string | null;
  nic?: string | null;
  hca?: string | null;
  port?: number | null;
  nccl_ib_hca?: string | null;
  path?: string | null;
  from_log?: boolean;
  numa_node?: number | null;
  cpulist?: string | null;
  socket_ifname?: string | null;
  note?: string | null;
}

export interface TopoBinding {
  nccl_ib_hca?: string | null;
  notes?: string[];
  ranks?: TopoRank[];
}

export interface TopoFinding {
  check?: string;
  status?: string;
  subject?: string;
  reason?: string;
  evidence?: string[];
}

export interface TopoDevice {
  label: string;
  kind?: string;
  name?: string;
  bus_id?: string;
}

export interface TopoReport {
  schema?: string;
  source?: string;
  origin?: string;
  summary?: Record<string, number>;
  no_gpus?: boolean;
  devices?: TopoDevice[];
  matrix?: { labels: string[]; rows: (string | null)[][] };
  findings?: TopoFinding[];
  binding?: TopoBinding;
  notes?: (string | { line?: number; message?: string })[];
}

export function escapeHtml(s: unknown): string {
  return String(s ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The CSS class for a path type: X, NV# (NV1, NV12...), PIX, PXB, PHB, NODE, SYS, or unknown. */
export function pathClass(path: string | null | undefined): string {
  if (path === null || path === undefined || path === "") return "p-unknown";
  const p = String(path).toUpperCase();
  if (p === "X") return "p-x";
  if (/^NV\d+$/.test(p)) return "p-nv";
  if (p === "PIX" || p === "PXB" || p === "PHB" || p === "NODE" || p === "SYS") return `p-${p.toLowerCase()}`;
  return "p-unknown";
}

const PATH_LEGEND: [string, string][] = [
  ["X", "self"],
  ["NV#", "NVLink (# links)"],
  ["PIX", "at most one PCIe bridge"],
  ["PXB", "several PCIe bridges"],
  ["PHB", "through a PCIe host bridge (CPU)"],
  ["NODE", "across host bridges within a NUMA node"],
  ["SYS", "across the inter-socket link (SMP)"],
];

function isNic(label: string, devices: TopoDevice[] | undefined): boolean {
  const d = devices?.find((x) => x.label === label);
  if (d?.kind) return d.kind.toLowerCase() === "nic";
  return /^NIC/i.test(label) || /^mlx/i.test(label);
}

/** The GPU x NIC part of the matrix: row labels, column labels and cells. */
export function gpuNicMatrix(report: TopoReport): { gpus: string[]; nics: string[]; cells: (string | null)[][] } {
  const labels = report.matrix?.labels ?? [];
  const rows = report.matrix?.rows ?? [];
  const gi: number[] = [];
  const ni: number[] = [];
  labels.forEach((l, i) => (isNic(l, report.devices) ? ni : gi).push(i));
  return {
    gpus: gi.map((i) => labels[i]),
    nics: ni.map((i) => labels[i]),
    cells: gi.map((r) => ni.map((c) => rows[r]?.[c] ?? null)),
  };
}

function shQuote(v: string): string {
  return /^[A-Za-z0-9_=:,./@+-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** Shell lines that apply the binding: one NCCL_IB_HCA for all ranks, then per LOCAL_RANK. */
export function bindingExportLines(b: TopoBinding | undefined): string {
  if (!b) return "";
  const out = ["# firstfault topology binding (source this in the launch script, per node)"];
  if (b.nccl_ib_hca) out.push(`export NCCL_IB_HCA=${shQuote(b.nccl_ib_hca)}`);
  const ranks = (b.ranks ?? []).filter((r) => r.nccl_ib_hca || r.socket_ifname);
  if (ranks.length) {
    out.push('case "${LOCAL_RANK:-0}" in');
    for (const r of ranks) {
      const vars: string[] = [];
      if (r.nccl_ib_hca) vars.push(`NCCL_IB_HCA=${shQuote(r.nccl_ib_hca)}`);
      if (r.socket_ifname) vars.push(`NCCL_SOCKET_IFNAME=${shQuote(r.socket_ifname)}`);
      const where = [r.gpu, r.numa_node !== null && r.numa_node !== undefined ? `NUMA ${r.numa_node}` : "", r.cpulist ? `CPUs ${r.cpulist}` : ""]
        .filter(Boolean)
        .join(", ");
      out.push(`  ${Number(r.local_rank)}) export ${vars.join(" ")} ;;${where ? ` # ${where}` : ""}`);
    }
    out.push("esac");
  }
  return out.join("\n") + "\n";
}

function statusClass(s: string | undefined): string {
  const v = (s ?? "").toLowerCase();
  if (v === "pass" || v === "ok") return "s-pass";
  if (v === "fail" || v === "error") return "s-fail";
  if (v === "warn" || v === "warning") return "s-warn";
  return "s-info";
}

export interface RenderOptions {
  nonce: string;
  cspSource: string; // webview.cspSource
  title?: string;
}

/** The page's Content-Security-Policy: nothing remote, only the nonce'd style and script. */
function contentSecurityPolicy(nonce: string, cspSource: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    "font-src 'none'",
    "connect-src 'none'",
    "form-action 'none'",
    "frame-src 'none'",
  ].join("; ");
}

function summaryHtml(summary: Record<string, number>): string {
  return Object.entries(summary)
    .map(([k, v]) => `${escapeHtml(k.replace(/_/g, " "))}: <b>${escapeHtml(v)}</b>`)
    .join(" · ");
}

/** The GPU x NIC path matrix, or why there is none. */
function matrixHtml(report: TopoReport): string {
  const m = gpuNicMatrix(report);
  if (report.no_gpus || m.gpus.length === 0) return `<p class="empty">No GPUs found.</p>`;
  if (m.nics.length === 0) return `<p class="empty">No NICs found (${m.gpus.length} GPU(s)).</p>`;
  const head = `<tr><th scope="col"></th>${m.nics.map((n) => `<th scope="col">${escapeHtml(n)}</th>`).join("")}</tr>`;
  const body = m.gpus
    .map(
      (g, r) =>
        `<tr><th scope="row">${escapeHtml(g)}</th>${m.cells[r]
          .map((c, k) => `<td class="cell ${pathClass(c)}" title="${escapeHtml(g)} → ${escapeHtml(m.nics[k])}">${escapeHtml(c ?? "?")}</td>`)
          .join("")}</tr>`,
    )
    .join("");
  return `<table class="matrix" id="matrix"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function legendHtml(): string {
  return PATH_LEGEND.map(([k, d]) => `<span class="cell ${pathClass(k === "NV#" ? "NV1" : k)}">${escapeHtml(k)}</span> ${escapeHtml(d)}`).join(
    " &nbsp; ",
  );
}

function findingsHtml(findings: TopoFinding[]): string {
  return findings.length
    ? `<table class="findings" id="findings"><thead><tr><th>status</th><th>check</th><th>subject</th><th>reason</th></tr></thead><tbody>${findings
        .map(
          (f) =>
            `<tr><td><span class="status ${statusClass(f.status)}">${escapeHtml(f.status)}</span></td><td>${escapeHtml(f.check)}</td><td>${escapeHtml(
              f.subject,
            )}</td><td>${escapeHtml(f.reason)}${
              f.evidence?.length ? `<div class="evidence">${f.evidence.map((e) => escapeHtml(e)).join("<br>")}</div>` : ""
            }</td></tr>`,
        )
        .join("")}</tbody></table>`
    : `<p class="empty">No findings.</p>`;
}

function bindingHtml(ranks: TopoRank[]): string {
  return ranks.length
    ? `<table class="binding" id="binding"><thead><tr><th>local rank</th><th>GPU</th><th>NIC</th><th>HCA</th><th>path</th><th>NCCL_IB_HCA</th><th>NUMA</th><th>CPUs</th><th>socket if</th><th>note</th></tr></thead><tbody>${ranks
        .map(
          (r) =>
            `<tr><td>${escapeHtml(r.local_rank)}</td><td>${escapeHtml(r.gpu)}</td><td>${escapeHtml(r.nic)}</td><td>${escapeHtml(r.hca)}${
              r.port ? `:${escapeHtml(r.port)}` : ""
            }</td><td><span class="cell ${pathClass(r.path)}">${escapeHtml(r.path ?? "?")}</span></td><td><code>${escapeHtml(r.nccl_ib_hca)}</code></td><td>${escapeHtml(
              r.numa_node,
            )}</td><td>${escapeHtml(r.cpulist)}</td><td>${escapeHtml(r.socket_ifname)}</td><td>${escapeHtml(r.note)}${r.from_log ? " (from log)" : ""}</td></tr>`,
        )
        .join("")}</tbody></table>`
    : `<p class="empty">No binding could be computed.</p>`;
}

/** The export lines, with the buttons that copy them or apply them to a launch script. */
function exportsHtml(exportLines: string): string {
  return exportLines
    ? `<pre id="exports">${escapeHtml(exportLines)}</pre>
<p><button id="apply" title="Insert these lines into the active editor (a launch script)">Apply to launch script</button><button id="copy" class="secondary">Copy export lines</button></p>`
    : "";
}

function notesHtml(report: TopoReport): string {
  const notes = [...(report.notes ?? []), ...(report.binding?.notes ?? [])].map((n) =>
    typeof n === "string" ? n : `${n.line !== undefined ? `line ${n.line}: ` : ""}${n.message ?? ""}`,
  );
  return notes.length ? `<h2>Notes</h2><ul>${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>` : "";
}

const PAGE_STYLE = `body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px 24px; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--vscode-editor-inactiveSelectionBackground, #8882); font-weight: 600; }
.matrix td { text-align: center; min-width: 3.2em; font-family: var(--vscode-editor-font-family); }
.cell { display: inline-block; padding: 0 4px; border-radius: 3px; font-family: var(--vscode-editor-font-family); }
td.cell { display: table-cell; border-radius: 0; }
.p-x { background: #7777; } .p-nv { background: #1b7f3b; color: #fff; } .p-pix { background: #2e9d4f; color: #fff; }
.p-pxb { background: #8fbf3a; color: #000; } .p-phb { background: #e0b000; color: #000; } .p-node { background: #e07b00; color: #000; }
.p-sys { background: #c62828; color: #fff; } .p-unknown { background: transparent; }
.status { padding: 0 6px; border-radius: 8px; font-size: 0.9em; }
.s-pass { background: #2e9d4f; color: #fff; } .s-fail { background: #c62828; color: #fff; } .s-warn { background: #e0b000; color: #000; } .s-info { background: #7777; }
.evidence { opacity: 0.75; font-size: 0.9em; font-family: var(--vscode-editor-font-family); }
.legend { font-size: 0.9em; margin: 6px 0; line-height: 1.9; } .meta { opacity: 0.8; }
pre { background: var(--vscode-textCodeBlock-background, #8882); padding: 8px; overflow-x: auto; }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 5px 12px; margin-right: 8px; cursor: pointer; }
button:hover { background: var(--vscode-button-hoverBackground); }
button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
.empty { opacity: 0.8; font-style: italic; }`;

// The page's one script: the buttons post their id to the extension (src/pure/topologyPanel.ts).
const PAGE_SCRIPT = `(function () {
  const vscode = acquireVsCodeApi();
  for (const id of ["apply", "copy"]) {
    const b = document.getElementById(id);
    if (b) b.addEventListener("click", () => vscode.postMessage({ type: id }));
  }
})();`;

export function renderTopologyHtml(report: TopoReport, opts: RenderOptions): string {
  const nonce = escapeHtml(opts.nonce);
  const summaryText = summaryHtml(report.summary ?? {});
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce, opts.cspSource)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(opts.title ?? "firstfault: topology")}</title>
<style nonce="${nonce}">
${PAGE_STYLE}
</style>
</head>
<body>
<h1>firstfault: GPU × NIC topology</h1>
<p class="meta">source: <b>${escapeHtml(report.source ?? "?")}</b> · origin: <code>${escapeHtml(report.origin ?? "?")}</code>${summaryText ? `<br>${summaryText}` : ""}</p>
<h2>Paths</h2>
${matrixHtml(report)}
<div class="legend">${legendHtml()}</div>
<h2>Findings</h2>
${findingsHtml(report.findings ?? [])}
<h2>Binding</h2>
${bindingHtml(report.binding?.ranks ?? [])}
${exportsHtml(bindingExportLines(report.binding))}
${notesHtml(report)}
<script nonce="${nonce}">
${PAGE_SCRIPT}
</script>
</body>
</html>
`;
}
