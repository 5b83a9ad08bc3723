// The status-bar text for the active log, from its diagnostics. No vscode import.

export interface DiagnosticLike {
  /** vscode.DiagnosticSeverity numbering: 0 Error, 1 Warning, 2 Information, 3 Hint. */
  severity: number;
  message: string;
  code?: string | number | { value: string | number };
  source?: string;
}

export interface StatusText {
  text: string;
  tooltip: string;
}

export interface RootCause {
  title: string;
  category?: string;
  who?: string; // "rank 3" or "host gpu-node-1"
  confidence?: string; // "87%"
  rule?: string;
}

const ROOT = /^Root cause(?: \(([^)]*)\))?: /;
const TAIL = / \[([^,\]]+), ([\d.]+%)\]/;

/** Parses the server's initiating-diagnostic message ("Root cause (rank 3): T [cat, 87%]. ..."). */
export function parseRootCause(message: string, code?: DiagnosticLike["code"]): RootCause {
  const rule = code === undefined ? undefined : typeof code === "object" ? String(code.value) : String(code);
  const m = ROOT.exec(message);
  if (!m) return { title: message.split("\n")[0].slice(0, 120), rule };
  const rest = message.slice(m[0].length);
  const t = TAIL.exec(rest);
  if (t) return { who: m[1] || undefined, title: rest.slice(0, t.index), category: t[1], confidence: t[2], rule };
  const end = rest.search(/\.(?: |$)/);
  return { who: m[1] || undefined, title: end >= 0 ? rest.slice(0, end) : rest, rule };
}

function firstfaultOnly(diags: readonly DiagnosticLike[]): DiagnosticLike[] {
  return diags.filter((d) => d.source === undefined || d.source === "firstfault");
}

/**
 * The status text: the Error-severity diagnostic is the root cause. Returns undefined
 * when the document has no firstfault diagnostics at all (the item is then hidden).
 */
export function formatStatus(diags: readonly DiagnosticLike[], maxTitle = 48): StatusText | undefined {
  const own = firstfaultOnly(diags);
  if (own.length === 0) return undefined;
  const root = own.find((d) => d.severity === 0);
  if (!root) {
    return { text: "$(pass) firstfault: no root cause", tooltip: `firstfault: ${own.length} finding(s), no failure identified` };
  }
  const rc = parseRootCause(root.message, root.code);
  const label = rc.category ?? rc.title;
  const short = label.length > maxTitle ? label.slice(0, maxTitle - 1) + "…" : label;
  const parts = [short];
  if (rc.who) parts.push(rc.who);
  if (rc.confidence) parts.push(rc.confidence);
  const alternatives = own.filter((d) => d.severity === 1).length;
  const tooltipLines = [
    `firstfault root cause: ${rc.title}`,
    rc.category ? `category: ${rc.category}` : "",
    rc.who ? `initiating: ${rc.who}` : "",
    rc.confidence ? `confidence: ${rc.confidence}` : "",
    rc.rule ? `rule: ${rc.rule}` : "",
    alternatives ? `${alternatives} less likely cause(s)` : "",
    "Click to show the report",
  ].filter(Boolean);
  return { text: `$(error) ${parts.join(" · ")}`, tooltip: tooltipLines.join("\n") };
}
