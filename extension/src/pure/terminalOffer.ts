// What a failed terminal command leads to, once firstfault has analysed its output: the
// offer appears only when the analysis found a failure (with its one-line root cause);
// otherwise a quiet status-bar note. Whether there is a failure, and what it is, is the
// server's answer (the report's ranked diagnoses, docs/JSON.md); nothing here judges a log.
// No vscode import.
import { classifyExit } from "./terminalBuffer";

/** The part of firstfault.diagnoseText's report read here. */
export interface TextReport {
  diagnoses?: { rule?: string; title?: string; category?: string; confidence?: number }[];
}

/** The root cause in one line ("title [category]"), or undefined when none was found. */
export function rootCauseLine(report: TextReport | undefined, max = 100): string | undefined {
  const top = report?.diagnoses?.[0];
  if (!top) return undefined;
  const title = (top.title ?? top.rule ?? "unknown failure").replace(/\s+/g, " ").trim();
  const line = top.category ? `${title} [${top.category}]` : title;
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

/** Whether a finished command is analysed at all (the setting, and a non-zero exit). */
export function analyseCommand(setting: string | undefined, exitCode: number | undefined): boolean {
  return setting !== "off" && classifyExit(exitCode) !== "success";
}

export type Outcome =
  | { kind: "show" } // "always": the report at once
  | { kind: "offer"; message: string } // a notification with "Show Report"
  | { kind: "note"; message: string }; // a status-bar note that goes away by itself

function shortCommand(commandLine: string, max = 60): string {
  const one = commandLine.replace(/\s+/g, " ").trim();
  return one.length > max ? one.slice(0, max - 1) + "…" : one;
}

/**
 * The note for a failed command of which VS Code passed on no output. Shell integration
 * hands an extension only the output written after it announced the command's start, so
 * the output of a command that ends within a few milliseconds (a short `cat`) can be lost
 * entirely; saying "no known failure" then would be wrong, so the note says what happened
 * and what to do instead.
 */
export function uncapturedNote(commandLine: string, exitCode: number | undefined): string {
  return `firstfault: no output of '${shortCommand(commandLine)}' reached the extension (${exitStatus(exitCode)}); if it printed some, select it and run Diagnose Terminal Selection`;
}

function exitStatus(exitCode: number | undefined): string {
  return exitCode === undefined ? "exit status unknown" : `exit status ${exitCode}`;
}

/** What to show for an analysed command, from its root cause (undefined: none found). */
export function commandOutcome(setting: string | undefined, commandLine: string, exitCode: number | undefined, rootCause: string | undefined): Outcome {
  const cmd = shortCommand(commandLine);
  const status = exitStatus(exitCode);
  if (!rootCause) return { kind: "note", message: `firstfault: no known failure in the output of '${cmd}' (${status})` };
  if (setting === "always") return { kind: "show" };
  return { kind: "offer", message: `'${cmd}' failed (${status}). firstfault root cause: ${rootCause}` };
}
