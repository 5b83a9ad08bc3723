// Logs the server reads from disk (firstfault.analyzeFile): a tab VS Code does not
// synchronize (above 50 MB), or "Diagnose File" from the explorer.
import * as vscode from "vscode";

import { ServerHost } from "./client";
import { diskDecision, DOCUMENT_GRACE_MS, followedWithoutTab, TabResource, unsyncedLogTabs } from "./pure/diskLogs";

export class DiskLogs {
  /** The logs the server follows from disk. */
  readonly followed = new Set<string>();
  /** Those of `followed` read for a tab: forgotten when no tab shows them any more. */
  private readonly followedForTabs = new Set<string>();
  // Tabs whose log the extension cannot see: the server reads them from disk.
  private readonly pendingTabs = new Map<string, number>(); // uri -> when first seen
  /** Called after the server was asked to read a log, and after each sync of the tabs. */
  onChange: () => void = () => undefined;

  constructor(private readonly server: ServerHost) {}

  /** Syncs the tabs each time they change. */
  syncTabsOnChange(context: vscode.ExtensionContext): void {
    context.subscriptions.push(vscode.window.tabGroups.onDidChangeTabs(() => void this.syncTabs()));
  }

  /** A server that starts running follows nothing yet: the open tabs are handed to it again. */
  serverStarted(): void {
    this.followed.clear();
    this.followedForTabs.clear();
    void this.syncTabs();
  }

  async analyze(uri: vscode.Uri): Promise<void> {
    const server = this.server;
    const r = await server.execute<{ uri: string; bytes: number; synchronized: boolean }>("firstfault.analyzeFile", [{ uri: uri.toString() }]);
    if (!r.synchronized) this.followed.add(uri.toString());
    server.log.appendLine(`[client] ${uri.fsPath}: ${r.synchronized ? "open in the editor, analysed as a document" : `${r.bytes} bytes read by the server, followed as it grows`}`);
    this.onChange();
  }

  async syncTabs(): Promise<void> {
    const server = this.server;
    // Not while the server starts (execute() would start a second one); each server that
    // starts running gets a syncTabs() of its own (server.onRunning).
    if (!server.running()) return;
    const tabs: TabResource[] = [];
    for (const g of vscode.window.tabGroups.all)
      for (const t of g.tabs) if (t.input instanceof vscode.TabInputText) tabs.push({ uri: t.input.uri.toString(), scheme: t.input.uri.scheme, path: t.input.uri.path });
    const documents = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    for (const u of followedWithoutTab(this.followedForTabs, new Set(tabs.map((t) => t.uri)))) {
      this.followedForTabs.delete(u);
      this.followed.delete(u);
      void server.execute("firstfault.forgetFile", [{ uri: u }]).catch(() => undefined);
    }
    for (const u of unsyncedLogTabs(tabs, documents, this.followed, server.logFiles)) {
      const uri = vscode.Uri.parse(u);
      const first = this.pendingTabs.get(u) ?? Date.now();
      this.pendingTabs.set(u, first);
      let size: number | undefined;
      try {
        size = (await vscode.workspace.fs.stat(uri)).size;
      } catch {
        size = undefined;
      }
      const hasDocument = vscode.workspace.textDocuments.some((d) => d.uri.toString() === u);
      const what = diskDecision(size, hasDocument, Date.now() - first);
      if (what === "wait") {
        setTimeout(() => void this.syncTabs(), DOCUMENT_GRACE_MS);
        continue;
      }
      this.pendingTabs.delete(u);
      if (what === "disk") {
        this.followedForTabs.add(u);
        await this.analyze(uri).catch((e) => server.log.appendLine(`[client] ${uri.fsPath}: ${e instanceof Error ? e.message : e}`));
      }
    }
    this.onChange();
  }
}
