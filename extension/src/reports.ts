// The firstfault-report: documents: the reports, shown as Markdown previews beside the editor.
import * as vscode from "vscode";

import { REPORT_SCHEME, reportPath, ReportStore } from "./pure/reportDocuments";

/** The firstfault-report: documents, served from a bounded store (src/pure/reportDocuments.ts). */
class ReportDocuments implements vscode.TextDocumentContentProvider {
  readonly store = new ReportStore();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.store.get(uri.toString()) ?? "# firstfault\n\nThis report is no longer available.\n";
  }
  set(name: string, markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: reportPath(name) });
    this.store.set(uri.toString(), markdown);
    this.emitter.fire(uri);
    return uri;
  }
}

/** Shows `markdown` as the report `name`, in a preview beside the editor. */
export type ShowMarkdown = (name: string, markdown: string) => Promise<void>;

/** Serves the firstfault-report: documents for the extension's life; returns how to show one. */
export function registerReportDocuments(context: vscode.ExtensionContext): ShowMarkdown {
  const reports = new ReportDocuments();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, reports));
  context.subscriptions.push(reports.store.forgetOnClose((l) => vscode.workspace.onDidCloseTextDocument(l)));
  return async (name: string, markdown: string) => {
    // Masked by the server when firstfault.report.maskHostNames is set (initializationOptions).
    const uri = reports.set(name, markdown);
    try {
      await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
    } catch {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }
  };
}
