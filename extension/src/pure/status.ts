// The status-bar text for the active log, from its diagnostics' typed data (the server's
// contract, docs/LSP.md: rule, title, category, role, rank, host, confidence). The message
// text is for people and is never parsed here. No vscode import.

/** A firstfault diagnostic's `data`, as the server sends it (tests/lsp/golden/). */
export interface DiagnosticData {
  rule?: string;
  title?: string;
  category?: string;
  role?: string; // initiating | alternative | collateral | evidence | finding | context
  rank?: number | null;
  host?: string | null;
  confidence?: number | null; // 0..1
}

export interface DiagnosticLike {
  /** vscode.DiagnosticSeverity numbering: 0 Error, 1 Warning, 2 Information, 3 Hint. */
  severity: number;
  message: string;
  source?: string;
  data?: unknown;
}

export interface StatusText {
  text: string;
  tooltip: string;
}

/** The diagnostic's data when it is a firstfault one, else undefined. */
export function diagnosticData(d: DiagnosticLike): DiagnosticData | undefined {
  const x = d.data;
  if (!x || typeof x !== "object") return undefined;
  const o = x as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  return {
    rule: str(o.rule),
    title: str(o.title),
    category: str(o.category),
    role: str(o.role),
    rank: num(o.rank),
    host: str(o.host),
    confidence: num(o.confidence),
  };
}

/** "rank 3", else "host gpu-node-1", else undefined. */
export function who(d: DiagnosticData): string | undefined {
  if (typeof d.rank === "number") return `rank ${d.rank}`;
  if (d.host) return `host ${d.host}`;
  return undefined;
}

export function percent(confidence: number | null | undefined): string | undefined {
  return typeof confidence === "number" ? `${Math.round(confidence * 100)}%` : undefined;
}

function firstfaultOnly(diags: readonly DiagnosticLike[]): DiagnosticLike[] {
  return diags.filter((d) => d.source === undefined || d.source === "firstfault");
}

/**
 * The status text: the diagnostic whose role is "initiating" is the root cause. Returns
 * undefined when the document has no firstfault diagnostics at all (the item is then hidden).
 */
export function formatStatus(diags: readonly DiagnosticLike[], maxTitle = 48): StatusText | undefined {
  const own = firstfaultOnly(diags);
  if (own.length === 0) return undefined;
  const data = own.map(diagnosticData);
  const rootIndex = data.findIndex((d) => d?.role === "initiating");
  if (rootIndex < 0) {
    return { text: "$(pass) firstfault: no root cause", tooltip: `firstfault: ${own.length} finding(s), no failure identified` };
  }
  const rc = data[rootIndex] as DiagnosticData;
  const title = rc.title ?? rc.rule ?? "unknown";
  const label = rc.category ?? title;
  const short = label.length > maxTitle ? label.slice(0, maxTitle - 1) + "…" : label;
  const by = who(rc);
  const conf = percent(rc.confidence);
  const parts = [short];
  if (by) parts.push(by);
  if (conf) parts.push(conf);
  const alternatives = data.filter((d) => d?.role === "alternative").length;
  const tooltipLines = [
    `firstfault root cause: ${title}`,
    rc.category ? `category: ${rc.category}` : "",
    by ? `initiating: ${by}` : "",
    conf ? `confidence: ${conf}` : "",
    rc.rule ? `rule: ${rc.rule}` : "",
    alternatives ? `${alternatives} less likely cause(s)` : "",
    "Click to show the report",
  ].filter(Boolean);
  return { text: `$(error) ${parts.join(" · ")}`, tooltip: tooltipLines.join("\n") };
}
