// The extension against what the server really sends: tests/lsp/golden/ is written by
// tests/lsp/make_golden.py from `firstfault lsp` on a real log, and ctest lsp.golden_fresh
// fails when the server's output changes without the fixture. No skip: the fixture is part
// of the repository, and a missing one is a failure.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { DiagnosticLike, diagnosticData, formatStatus } from "../../src/pure/status";

const GOLDEN = path.join(__dirname, "../../../../tests/lsp/golden/horovod-3929.diagnostics.json");

interface LspDiagnostic {
  severity: number; // LSP numbering: 1 Error .. 4 Hint
  message: string;
  source?: string;
  data?: unknown;
}

function load(): DiagnosticLike[] {
  const published = JSON.parse(fs.readFileSync(GOLDEN, "utf8")) as { diagnostics: LspDiagnostic[] };
  // As the language client hands them to VS Code: severity one lower, data kept.
  return published.diagnostics.map((d) => ({ severity: d.severity - 1, message: d.message, source: d.source, data: d.data }));
}

test("every diagnostic the server publishes carries the typed data", () => {
  const diags = load();
  assert.ok(diags.length > 0);
  const roles = new Set(["initiating", "alternative", "collateral", "evidence", "finding", "context"]);
  for (const d of diags) {
    const data = diagnosticData(d);
    assert.ok(data, d.message);
    assert.ok(data.rule && data.title && data.category, JSON.stringify(d.data));
    assert.ok(data.role && roles.has(data.role), `role ${data.role}`);
    const raw = d.data as Record<string, unknown>;
    for (const key of ["rank", "host", "confidence"]) assert.ok(key in raw, `${key} missing (null when unknown)`);
    if (typeof data.confidence === "number") assert.ok(data.confidence > 0 && data.confidence <= 1);
  }
  assert.equal(diags.filter((d) => diagnosticData(d)?.role === "initiating").length, 1);
});

test("the status bar shows the root cause's category, initiating rank and confidence from data", () => {
  const diags = load();
  const root = diagnosticData(diags.find((d) => diagnosticData(d)?.role === "initiating") as DiagnosticLike);
  assert.ok(root && typeof root.rank === "number" && typeof root.confidence === "number");
  const s = formatStatus(diags);
  assert.ok(s);
  assert.equal(s.text, `$(error) ${root.category} · rank ${root.rank} · ${Math.round(root.confidence * 100)}%`);
  assert.match(s.tooltip, new RegExp(`rule: ${root.rule}`));
  // The message is for people: replacing every message changes nothing.
  const scrambled = diags.map((d) => ({ ...d, message: "Root cause (rank 99): x [other, 1%]." }));
  assert.deepEqual(formatStatus(scrambled), s);
});
