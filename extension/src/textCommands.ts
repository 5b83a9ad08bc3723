// The commands that diagnose text: the selection, a hung job's log, the terminal's selection,
// and the last failed terminal command (captured by the TerminalWatcher, src/terminal.ts).
import * as vscode from "vscode";

import { ServerHost } from "./client";
import { RegisterCommand } from "./commands";
import { commandDiagnosisText, commandOutcome } from "./pure/terminalBuffer";
import { terminalSelection, TerminalWatcher } from "./terminal";
import { DiagnoseTextResult, recordHeader, TextDiagnosis } from "./textDiagnosis";

/** Watches the terminals' commands, and offers a failed one's diagnosis. */
export function watchTerminalCommands(context: vscode.ExtensionContext, server: ServerHost, diagnosis: TextDiagnosis): TerminalWatcher {
  const watcher = new TerminalWatcher(
      server.log,
      (r) => server.execute<DiagnoseTextResult>(
          'firstfault.diagnoseText',
          [
            {
              text: commandDiagnosisText(r),
              title: recordHeader(r),
              outcome: commandOutcome(r.exitCode)
            },
          ]),
      async (_r, a) => void (await diagnosis.present(a as DiagnoseTextResult, `command-${Date.now()}`)),
  );
  context.subscriptions.push(watcher);
  return watcher;
}

export function registerTextCommands(cmd: RegisterCommand, diagnosis: TextDiagnosis, watcher: TerminalWatcher): void {
  const diagnoseText = diagnosis.diagnose.bind(diagnosis);

  cmd("firstfault.diagnoseSelection", async () => {
    const ed = vscode.window.activeTextEditor;
    const text = ed ? ed.selections.map((s) => ed.document.getText(s)).join("\n") : "";
    if (text.trim()) return diagnoseText(text, `selection-${Date.now()}`, "diagnosis of the selection");
    if (vscode.window.activeTerminal) {
      const t = await terminalSelection();
      if (t.kind === "text") return diagnoseText(t.text, `terminal-selection-${Date.now()}`, "diagnosis of the terminal selection");
    }
    void vscode.window.showInformationMessage("firstfault: select the log lines to diagnose first.");
  });

  // A job that stopped making progress says least in its log: the server then offers what it
  // observed as hypotheses, or says nothing explains the hang and what to capture next time.
  cmd('firstfault.diagnoseHung', async () => {
    const ed = vscode.window.activeTextEditor;
    const selected = ed ? ed.selections.map((s) => ed.document.getText(s)).join('\n') : '';
    const text = selected.trim() ? selected : ed ? ed.document.getText() : '';
    if (text.trim())
      return diagnoseText(text, `hung-${Date.now()}`, 'diagnosis of a hung job', {hung: true});
    if (vscode.window.activeTerminal) {
      const t = await terminalSelection();
      if (t.kind === 'text')
        return diagnoseText(t.text, `hung-${Date.now()}`, 'diagnosis of a hung job', {hung: true});
    }
    void vscode.window.showInformationMessage(
        'firstfault: open the hung job\'s log (or select its lines) first.');
  });

  cmd("firstfault.diagnoseTerminalSelection", async () => {
    const t = await terminalSelection();
    if (t.kind === "text") return diagnoseText(t.text, `terminal-selection-${Date.now()}`, "diagnosis of the terminal selection");
    void vscode.window.showInformationMessage(t.message);
  });

  cmd("firstfault.diagnoseLastFailedCommand", async () => {
    const last = watcher.history.lastFailed();
    const term = vscode.window.activeTerminal;
    if (last && (!term || term.shellIntegration || last.terminalName === term.name)) return diagnosis.diagnoseRecord(last);
    if (term) {
      const t = await terminalSelection();
      if (t.kind === "text") return diagnoseText(t.text, `terminal-selection-${Date.now()}`, "diagnosis of the terminal selection");
      void vscode.window.showInformationMessage(
        term.shellIntegration
          ? "firstfault: no failed command seen in this terminal yet."
          : "firstfault: this terminal has no shell integration. Select the failed command's output in the terminal and run the command again.",
      );
      return;
    }
    void vscode.window.showInformationMessage("firstfault: no terminal is open.");
  });
}
