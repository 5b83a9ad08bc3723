// firstfault for VS Code: diagnostics from `firstfault lsp` on logs, and commands that
// diagnose a selection, the last failed terminal command, the topology and the report.
import * as path from 'path';
import * as vscode from 'vscode';

import {registerCatalogCommand} from './catalog';
import {LOG_SELECTOR, ServerHost} from './client';
import {commandRegistrar} from './commands';
import {DiskLogs} from './diskLogs';
import {folderLogs} from './pure/diskLogs';
import {commandDiagnosisText, commandOutcome, CommandRecord, JobOutcome} from './pure/terminalBuffer';
import {registerReportDocuments} from './reports';
import {RootCauseStatus} from './rootCauseStatus';
import {registerServerCommands, restartOnSettingsChange} from './serverLifecycle';
import {terminalSelection, TerminalWatcher} from './terminal';
import {registerTopology} from './topology';
import {registerVerificationCommands} from './verificationCommands';

const LOG_DOCUMENTS = LOG_SELECTOR as vscode.DocumentSelector;

interface DiagnoseTextResult {
  report?: { diagnoses?: { rule?: string; title?: string; category?: string; confidence?: number }[] } & Record<string, unknown>;
  text?: string;
  /** The heading sent as `title`, masked by the server when maskHostNames is on. */
  title?: string;
}

let host: ServerHost | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const showMarkdown = registerReportDocuments(context);

  host = new ServerHost(context, (md, uri) => void showMarkdown(`report-${path.basename(vscode.Uri.parse(uri).path)}`, md));
  context.subscriptions.push(host);
  const server = host;

  const disk = new DiskLogs(server);
  const status = new RootCauseStatus(context, disk.followed);
  disk.onChange = () => status.update();

  // ---- diagnosing text (selection, terminal output)
  // The heading (a terminal's command line) goes through the server, which masks it with the
  // report: the extension never shows an unmasked line beside a masked report.
  // `outcome`: how the job ended, when known (a terminal's exit code, "Diagnose as a Hung Job").
  const runDiagnoseText = (text: string, title: string, outcome?: JobOutcome) =>
      vscode.window.withProgress(
          {location: vscode.ProgressLocation.Window, title: 'firstfault: diagnosing'},
          () => server.execute<DiagnoseTextResult>(
              'firstfault.diagnoseText', [{text, title, outcome}]),
      );
  const presentDiagnosis = async (result: DiagnoseTextResult, name: string, header: string) => {
    const top = result.report?.diagnoses?.[0];
    const plain = result.text ?? JSON.stringify(result.report, null, 2);
    const md = `# firstfault: ${result.title ?? header}\n\n${top ? `**Root cause:** ${top.title ?? top.rule ?? "?"}${top.category ? ` (\`${top.category}\`)` : ""}\n\n` : "No failure found in the text.\n\n"}\`\`\`text\n${plain.replace(/```/g, "``\u200b`")}\n\`\`\`\n`;
    await showMarkdown(name, md);
    return top;
  };
  const diagnoseText = async (text: string, name: string, header: string, outcome?: JobOutcome) => {
    if (!text.trim()) {
      void vscode.window.showInformationMessage("firstfault: nothing to diagnose (the text is empty).");
      return;
    }
    const top = await presentDiagnosis(await runDiagnoseText(text, header, outcome), name, header);
    const msg = top ? `firstfault: root cause: ${top.title ?? top.rule}${top.category ? ` [${top.category}]` : ""}` : "firstfault: no failure found in the text";
    void vscode.window.showInformationMessage(msg);
  };

  const recordHeader = (r: CommandRecord) => {
    const code = r.exitCode === undefined ? "exit status unknown" : `exit status ${r.exitCode}`;
    return `\`${r.commandLine.slice(0, 80)}\` (${code}${r.truncated ? ", output truncated to the last 2 MB" : ""})`;
  };
  const diagnoseRecord = async (r: CommandRecord) => diagnoseText(
      commandDiagnosisText(r), `command-${Date.now()}`, recordHeader(r),
      commandOutcome(r.exitCode));
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
      async (r, a) => void (await presentDiagnosis(
          a as DiagnoseTextResult, `command-${Date.now()}`, recordHeader(r))),
  );
  context.subscriptions.push(watcher);

  const cmd = commandRegistrar(context, server);

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
    if (last && (!term || term.shellIntegration || last.terminalName === term.name)) return diagnoseRecord(last);
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

  const reportFromServer = async (uri: vscode.Uri) => {
    const r = await server.execute<{ markdown: string }>("firstfault.report", [{ uri: uri.toString() }]);
    await showMarkdown(`report-${path.basename(uri.path)}`, r.markdown);
  };
  disk.syncTabsOnChange(context);

  cmd("firstfault.diagnoseFile", async (arg?: vscode.Uri) => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== "file") return void vscode.window.showInformationMessage("firstfault: choose a file on disk in the explorer.");
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `firstfault: diagnosing ${path.basename(uri.fsPath)}` }, async () => {
      await disk.analyze(uri);
      await reportFromServer(uri); // answered once the file is analysed
    });
  });

  // A folder of per-rank logs is one job: the server lists and reads every log in it on a
  // worker (firstfault.analyzeFolder), reports $/progress per file, can be cancelled, and
  // analyses them together (cross-file links). An older server without the command gets the
  // files one by one.
  cmd("firstfault.diagnoseFolder", async (arg?: vscode.Uri) => {
    const folder = arg instanceof vscode.Uri ? arg : vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder || folder.scheme !== "file") return void vscode.window.showInformationMessage("firstfault: choose a folder on disk in the explorer.");
    const name = path.basename(folder.fsPath);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `firstfault: diagnosing the logs in ${name}`, cancellable: true },
      async (progress, cancel) => {
        if (server.serverCommands().includes("firstfault.analyzeFolder")) {
          let last = 0;
          let r: { files: string[] };
          try {
            r = await server.executeWithProgress<{ files: string[] }>(
              "firstfault.analyzeFolder",
              [{ uri: folder.toString() }],
              (v) => {
                if (v.kind === "report" && typeof v.percentage === "number") {
                  progress.report({ increment: v.percentage - last, message: v.message });
                  last = v.percentage;
                }
              },
              cancel,
            );
          } catch (e) {
            if (cancel.isCancellationRequested) return { done: 0, total: -1 }; // the user cancelled
            throw e;
          }
          for (const f of r.files) disk.followed.add(f);
          return { done: r.files.length, total: r.files.length };
        }
        const names = folderLogs((await vscode.workspace.fs.readDirectory(folder)).map(([n, t]) => [n, (t & vscode.FileType.File) !== 0] as [string, boolean]));
        let done = 0;
        for (const n of names) {
          if (cancel.isCancellationRequested) break;
          await disk.analyze(vscode.Uri.joinPath(folder, n));
          done++;
          progress.report({ increment: 100 / names.length, message: `${done} of ${names.length}` });
        }
        return { done, total: names.length };
      },
    );
    status.update();
    if (result.total < 0) return void vscode.window.showInformationMessage(`firstfault: diagnosing ${name} was cancelled.`);
    if (result.total === 0) return void vscode.window.showInformationMessage(`firstfault: no log files (*.log, *.out, *.err) in ${folder.fsPath}.`);
    void vscode.window.showInformationMessage(`firstfault: ${result.done} log(s) of ${name} diagnosed as one job; see the Problems panel.`);
  });

  cmd("firstfault.showReport", async (arg?: vscode.Uri) => {
    const target = arg instanceof vscode.Uri ? arg : status.uri();
    // A file the server reads from disk has no document here (above 50 MB none can be opened).
    if (target && disk.followed.has(target.toString())) return reportFromServer(target);
    const doc = arg instanceof vscode.Uri ? await vscode.workspace.openTextDocument(arg) : vscode.window.activeTextEditor?.document;
    if (!doc) return void vscode.window.showInformationMessage("firstfault: open a log first.");
    if (vscode.languages.match(LOG_DOCUMENTS, doc) === 0) {
      // Not a log the server follows (e.g. an untitled buffer): diagnose its text instead.
      return diagnoseText(doc.getText(), `report-${path.basename(doc.uri.path)}`, `report of ${path.basename(doc.uri.path)}`);
    }
    await reportFromServer(doc.uri);
  });

  registerCatalogCommand(cmd, context);
  registerVerificationCommands(cmd);

  registerServerCommands(cmd, server, disk);

  registerTopology(context, cmd, server);

  restartOnSettingsChange(context, server);

  await server.start();
  status.update();
}

export async function deactivate(): Promise<void> {
  await host?.stop();
}
