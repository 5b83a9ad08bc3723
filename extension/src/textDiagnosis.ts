// Diagnosing text (a selection, a terminal command's output) with the server, and showing
// the diagnosis as a report.
import * as vscode from "vscode";

import { ServerHost } from "./client";
import { commandDiagnosisText, commandOutcome, CommandRecord, JobOutcome } from "./pure/terminalBuffer";
import { ShowMarkdown } from "./reports";

export interface DiagnoseTextResult {
  report?: { diagnoses?: { rule?: string; title?: string; category?: string; confidence?: number }[] } & Record<string, unknown>;
  text?: string;
  /** The heading sent as `title`, masked by the server when maskHostNames is on. */
  title?: string;
  /** The report to show, rendered (and masked) by the server. */
  markdown: string;
}

/** A terminal command's heading: its command line and how it ended. */
export function recordHeader(r: CommandRecord): string {
  const code = r.exitCode === undefined ? "exit status unknown" : `exit status ${r.exitCode}`;
  return `\`${r.commandLine.slice(0, 80)}\` (${code}${r.truncated ? ", output truncated to the last 2 MB" : ""})`;
}

export class TextDiagnosis {
  constructor(private readonly server: ServerHost, private readonly showMarkdown: ShowMarkdown) {}

  // The heading (a terminal's command line) goes through the server, which masks it with the
  // report: the extension never shows an unmasked line beside a masked report.
  // `outcome`: how the job ended, when known (a terminal's exit code, "Diagnose as a Hung Job").
  run(text: string, title: string, outcome?: JobOutcome) {
    return vscode.window.withProgress(
        {location: vscode.ProgressLocation.Window, title: 'firstfault: diagnosing'},
        () => this.server.execute<DiagnoseTextResult>(
            'firstfault.diagnoseText', [{text, title, outcome}]),
    );
  }

  /** Shows the server's report of the result as the report `name`; returns its top diagnosis. */
  async present(result: DiagnoseTextResult, name: string) {
    await this.showMarkdown(name, result.markdown);
    return result.report?.diagnoses?.[0];
  }

  async diagnose(text: string, name: string, header: string, outcome?: JobOutcome) {
    if (!text.trim()) {
      void vscode.window.showInformationMessage("firstfault: nothing to diagnose (the text is empty).");
      return;
    }
    const top = await this.present(await this.run(text, header, outcome), name);
    const msg = top ? `firstfault: root cause: ${top.title ?? top.rule}${top.category ? ` [${top.category}]` : ""}` : "firstfault: no failure found in the text";
    void vscode.window.showInformationMessage(msg);
  }

  async diagnoseRecord(r: CommandRecord) {
    return this.diagnose(
        commandDiagnosisText(r), `command-${Date.now()}`, recordHeader(r),
        commandOutcome(r.exitCode));
  }
}
