// firstfault for VS Code: diagnostics from `firstfault lsp` on logs, and commands that
// diagnose a selection, the last failed terminal command, the topology and the report.
import * as path from 'path';
import * as vscode from 'vscode';

import {registerCatalogCommand} from './catalog';
import {LOG_SELECTOR, ServerHost} from './client';
import {commandRegistrar} from './commands';
import {DiskLogs} from './diskLogs';
import {folderLogs} from './pure/diskLogs';
import {registerReportDocuments} from './reports';
import {RootCauseStatus} from './rootCauseStatus';
import {registerServerCommands, restartOnSettingsChange} from './serverLifecycle';
import {registerTextCommands, watchTerminalCommands} from './textCommands';
import {TextDiagnosis} from './textDiagnosis';
import {registerTopology} from './topology';
import {registerVerificationCommands} from './verificationCommands';

const LOG_DOCUMENTS = LOG_SELECTOR as vscode.DocumentSelector;

let host: ServerHost | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const showMarkdown = registerReportDocuments(context);

  host = new ServerHost(context, (md, uri) => void showMarkdown(`report-${path.basename(vscode.Uri.parse(uri).path)}`, md));
  context.subscriptions.push(host);
  const server = host;

  const disk = new DiskLogs(server);
  const status = new RootCauseStatus(context, disk.followed);
  disk.onChange = () => status.update();

  const diagnosis = new TextDiagnosis(server, showMarkdown);
  const watcher = watchTerminalCommands(context, server, diagnosis);
  const cmd = commandRegistrar(context, server);
  registerTextCommands(cmd, diagnosis, watcher);

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
      return diagnosis.diagnose(doc.getText(), `report-${path.basename(doc.uri.path)}`, `report of ${path.basename(doc.uri.path)}`);
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
