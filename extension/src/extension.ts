// firstfault for VS Code: diagnostics from `firstfault lsp` on logs, and commands that
// diagnose a selection, the last failed terminal command, the topology and the report.
import * as path from 'path';
import * as vscode from 'vscode';

import {registerCatalogCommand} from './catalog';
import {LOG_SELECTOR, ServerHost} from './client';
import {commandRegistrar} from './commands';
import {activeLogUri, diskDecision, DOCUMENT_GRACE_MS, folderLogs, followedWithoutTab, TabResource, unsyncedLogTabs} from './pure/diskLogs';
import {REPORT_SCHEME} from './pure/reportDocuments';
import {formatStatus} from './pure/status';
import {commandDiagnosisText, commandOutcome, CommandRecord, JobOutcome} from './pure/terminalBuffer';
import {registerReportDocuments} from './reports';
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

  // ---- status bar: the active log's root cause
  const status = vscode.window.createStatusBarItem("firstfault.rootCause", vscode.StatusBarAlignment.Left, 50);
  status.name = "firstfault root cause";
  status.command = "firstfault.showReport";
  context.subscriptions.push(status);
  // Logs the server reads from disk (firstfault.analyzeFile): a tab VS Code does not
  // synchronize (above 50 MB), or "Diagnose File" from the explorer.
  const followed = new Set<string>();
  const followedForTabs = new Set<string>();
  const activeTabUri = (): string | undefined => {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputText ? input.uri.toString() : undefined;
  };
  const statusUri = (): vscode.Uri | undefined => {
    const ed = vscode.window.activeTextEditor?.document.uri;
    const u = activeLogUri(ed?.toString(), activeTabUri(), followed);
    return u === undefined ? undefined : u === ed?.toString() ? ed : vscode.Uri.parse(u);
  };
  const updateStatus = () => {
    const uri = statusUri();
    if (!uri || uri.scheme === REPORT_SCHEME) return status.hide();
    const diags = vscode.languages.getDiagnostics(uri).filter((d) => d.source === "firstfault");
    // The language client's diagnostics carry the server's `data` (ProtocolDiagnostic).
    const s = formatStatus(diags.map((d) => ({ severity: d.severity, message: d.message, source: d.source, data: (d as { data?: unknown }).data })));
    if (!s) return status.hide();
    status.text = s.text;
    status.tooltip = s.tooltip;
    status.backgroundColor = s.text.startsWith("$(error)") ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    status.show();
  };
  context.subscriptions.push(
    vscode.languages.onDidChangeDiagnostics((e) => {
      const active = statusUri()?.toString();
      if (active && e.uris.some((u) => u.toString() === active)) updateStatus();
    }),
    vscode.window.onDidChangeActiveTextEditor(() => updateStatus()),
    vscode.window.tabGroups.onDidChangeTabs(() => updateStatus()),
  );

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
  const analyzeFromDisk = async (uri: vscode.Uri) => {
    const r = await server.execute<{ uri: string; bytes: number; synchronized: boolean }>("firstfault.analyzeFile", [{ uri: uri.toString() }]);
    if (!r.synchronized) followed.add(uri.toString());
    server.log.appendLine(`[client] ${uri.fsPath}: ${r.synchronized ? "open in the editor, analysed as a document" : `${r.bytes} bytes read by the server, followed as it grows`}`);
    updateStatus();
  };

  // Tabs whose log the extension cannot see: the server reads them from disk.
  const pendingTabs = new Map<string, number>(); // uri -> when first seen
  const syncTabs = async () => {
    // Not while the server starts (execute() would start a second one); each server that
    // starts running gets a syncTabs() of its own (server.onRunning).
    if (!server.running()) return;
    const tabs: TabResource[] = [];
    for (const g of vscode.window.tabGroups.all)
      for (const t of g.tabs) if (t.input instanceof vscode.TabInputText) tabs.push({ uri: t.input.uri.toString(), scheme: t.input.uri.scheme, path: t.input.uri.path });
    const documents = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    for (const u of followedWithoutTab(followedForTabs, new Set(tabs.map((t) => t.uri)))) {
      followedForTabs.delete(u);
      followed.delete(u);
      void server.execute("firstfault.forgetFile", [{ uri: u }]).catch(() => undefined);
    }
    for (const u of unsyncedLogTabs(tabs, documents, followed)) {
      const uri = vscode.Uri.parse(u);
      const first = pendingTabs.get(u) ?? Date.now();
      pendingTabs.set(u, first);
      let size: number | undefined;
      try {
        size = (await vscode.workspace.fs.stat(uri)).size;
      } catch {
        size = undefined;
      }
      const hasDocument = vscode.workspace.textDocuments.some((d) => d.uri.toString() === u);
      const what = diskDecision(size, hasDocument, Date.now() - first);
      if (what === "wait") {
        setTimeout(() => void syncTabs(), DOCUMENT_GRACE_MS);
        continue;
      }
      pendingTabs.delete(u);
      if (what === "disk") {
        followedForTabs.add(u);
        await analyzeFromDisk(uri).catch((e) => server.log.appendLine(`[client] ${uri.fsPath}: ${e instanceof Error ? e.message : e}`));
      }
    }
    updateStatus();
  };
  context.subscriptions.push(vscode.window.tabGroups.onDidChangeTabs(() => void syncTabs()));

  cmd("firstfault.diagnoseFile", async (arg?: vscode.Uri) => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== "file") return void vscode.window.showInformationMessage("firstfault: choose a file on disk in the explorer.");
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `firstfault: diagnosing ${path.basename(uri.fsPath)}` }, async () => {
      await analyzeFromDisk(uri);
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
          for (const f of r.files) followed.add(f);
          return { done: r.files.length, total: r.files.length };
        }
        const names = folderLogs((await vscode.workspace.fs.readDirectory(folder)).map(([n, t]) => [n, (t & vscode.FileType.File) !== 0] as [string, boolean]));
        let done = 0;
        for (const n of names) {
          if (cancel.isCancellationRequested) break;
          await analyzeFromDisk(vscode.Uri.joinPath(folder, n));
          done++;
          progress.report({ increment: 100 / names.length, message: `${done} of ${names.length}` });
        }
        return { done, total: names.length };
      },
    );
    updateStatus();
    if (result.total < 0) return void vscode.window.showInformationMessage(`firstfault: diagnosing ${name} was cancelled.`);
    if (result.total === 0) return void vscode.window.showInformationMessage(`firstfault: no log files (*.log, *.out, *.err) in ${folder.fsPath}.`);
    void vscode.window.showInformationMessage(`firstfault: ${result.done} log(s) of ${name} diagnosed as one job; see the Problems panel.`);
  });

  cmd("firstfault.showReport", async (arg?: vscode.Uri) => {
    const target = arg instanceof vscode.Uri ? arg : statusUri();
    // A file the server reads from disk has no document here (above 50 MB none can be opened).
    if (target && followed.has(target.toString())) return reportFromServer(target);
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

  // Each server that starts running (first start, restart, restart after a crash) follows
  // nothing yet: the open tabs are handed to it again.
  server.onRunning = () => {
    followed.clear();
    followedForTabs.clear();
    void syncTabs();
  };
  const restartAndResync = () => server.restart();
  cmd("firstfault.restartServer", async () => {
    await restartAndResync();
    void vscode.window.showInformationMessage("firstfault: language server restarted.");
  });
  cmd("firstfault.showOutput", () => server.log.show(true));

  registerTopology(context, cmd, server);

  // ---- settings that need a restart
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (["firstfault.server.path", "firstfault.rules.directories", "firstfault.report.maskHostNames"].some((k) => e.affectsConfiguration(k))) {
        server.log.appendLine("[client] settings changed: restarting the server");
        void restartAndResync();
      } else if (e.affectsConfiguration("firstfault.trace.server")) {
        void restartAndResync(); // the log level passed on the command line follows the trace setting
      }
    }),
  );

  await server.start();
  updateStatus();
}

export async function deactivate(): Promise<void> {
  await host?.stop();
}
