// The commands on log files: Diagnose File and Diagnose Folder (the server reads them from
// disk), and Show Report.
import * as path from "path";
import * as vscode from "vscode";

import { ServerHost } from "./client";
import { RegisterCommand } from "./commands";
import { DiskLogs } from "./diskLogs";
import { ShowMarkdown } from "./reports";
import { RootCauseStatus } from "./rootCauseStatus";
import { TextDiagnosis } from "./textDiagnosis";

export interface FileCommandsDeps {
  server: ServerHost;
  disk: DiskLogs;
  status: RootCauseStatus;
  diagnosis: TextDiagnosis;
  showMarkdown: ShowMarkdown;
}

export function registerFileCommands(cmd: RegisterCommand, d: FileCommandsDeps): void {
  const { server, disk, status, diagnosis } = d;
  const reportFromServer = (uri: vscode.Uri) => showServerReport(server, d.showMarkdown, uri);

  cmd("firstfault.diagnoseFile", async (arg?: vscode.Uri) => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== "file") return void vscode.window.showInformationMessage("firstfault: choose a file on disk in the explorer.");
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `firstfault: diagnosing ${path.basename(uri.fsPath)}` }, async () => {
      await disk.analyze(uri);
      await reportFromServer(uri); // answered once the file is analysed
    });
  });

  cmd("firstfault.diagnoseFolder", (arg?: vscode.Uri) => diagnoseFolder(server, disk, status, arg));

  cmd("firstfault.showReport", async (arg?: vscode.Uri) => {
    const target = arg instanceof vscode.Uri ? arg : status.uri();
    // A file the server reads from disk has no document here (above 50 MB none can be opened).
    if (target && disk.followed.has(target.toString())) return reportFromServer(target);
    const doc = arg instanceof vscode.Uri ? await vscode.workspace.openTextDocument(arg) : vscode.window.activeTextEditor?.document;
    if (!doc) return void vscode.window.showInformationMessage("firstfault: open a log first.");
    if (vscode.languages.match(server.logSelector() as vscode.DocumentSelector, doc) === 0) {
      // Not a log the server follows (e.g. an untitled buffer): diagnose its text instead.
      return diagnosis.diagnose(doc.getText(), `report-${path.basename(doc.uri.path)}`, `report of ${path.basename(doc.uri.path)}`);
    }
    await reportFromServer(doc.uri);
  });
}

async function showServerReport(server: ServerHost, showMarkdown: ShowMarkdown, uri: vscode.Uri): Promise<void> {
  const r = await server.execute<{ markdown: string }>("firstfault.report", [{ uri: uri.toString() }]);
  await showMarkdown(`report-${path.basename(uri.path)}`, r.markdown);
}

interface FolderResult {
  done: number;
  total: number; // -1: the user cancelled
}

// A folder of per-rank logs is one job: the server lists and reads every log in it on a
// worker (firstfault.analyzeFolder), reports $/progress per file, can be cancelled, and
// analyses them together (cross-file links).
async function diagnoseFolder(server: ServerHost, disk: DiskLogs, status: RootCauseStatus, arg?: vscode.Uri): Promise<void> {
  const folder = arg instanceof vscode.Uri ? arg : vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder || folder.scheme !== "file") return void vscode.window.showInformationMessage("firstfault: choose a folder on disk in the explorer.");
  const name = path.basename(folder.fsPath);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `firstfault: diagnosing the logs in ${name}`, cancellable: true },
    (progress, cancel) => analyzeFolder(server, disk, folder, progress, cancel),
  );
  status.update();
  if (result.total < 0) return void vscode.window.showInformationMessage(`firstfault: diagnosing ${name} was cancelled.`);
  if (result.total === 0) return void vscode.window.showInformationMessage(`firstfault: no log files in ${folder.fsPath}.`);
  void vscode.window.showInformationMessage(`firstfault: ${result.done} log(s) of ${name} diagnosed as one job; see the Problems panel.`);
}

type FolderProgress = vscode.Progress<{ message?: string; increment?: number }>;

async function analyzeFolder(server: ServerHost, disk: DiskLogs, folder: vscode.Uri, progress: FolderProgress, cancel: vscode.CancellationToken): Promise<FolderResult> {
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
