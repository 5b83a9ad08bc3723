// The status bar item: the active log's root cause, from the server's diagnostics.
import * as vscode from "vscode";

import { activeLogUri } from "./pure/diskLogs";
import { REPORT_SCHEME } from "./pure/reportDocuments";
import { formatStatus } from "./pure/status";

export class RootCauseStatus {
  private readonly item: vscode.StatusBarItem;

  /**
   * `followed`: the logs the server reads from disk (src/diskLogs.ts), which may have no editor.
   * The item follows the active editor and tab, and their diagnostics.
   */
  constructor(context: vscode.ExtensionContext, private readonly followed: ReadonlySet<string>) {
    const status = vscode.window.createStatusBarItem("firstfault.rootCause", vscode.StatusBarAlignment.Left, 50);
    status.name = "firstfault root cause";
    status.command = "firstfault.showReport";
    context.subscriptions.push(status);
    this.item = status;
    context.subscriptions.push(
      vscode.languages.onDidChangeDiagnostics((e) => {
        const active = this.uri()?.toString();
        if (active && e.uris.some((u) => u.toString() === active)) this.update();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.window.tabGroups.onDidChangeTabs(() => this.update()),
    );
  }

  /** The log shown: the active editor's, or the active tab's when the server reads it from disk. */
  uri(): vscode.Uri | undefined {
    const ed = vscode.window.activeTextEditor?.document.uri;
    const u = activeLogUri(ed?.toString(), activeTabUri(), this.followed);
    return u === undefined ? undefined : u === ed?.toString() ? ed : vscode.Uri.parse(u);
  }

  update(): void {
    const status = this.item;
    const uri = this.uri();
    if (!uri || uri.scheme === REPORT_SCHEME) return status.hide();
    const diags = vscode.languages.getDiagnostics(uri).filter((d) => d.source === "firstfault");
    // The language client's diagnostics carry the server's `data` (ProtocolDiagnostic).
    const s = formatStatus(diags.map((d) => ({ severity: d.severity, message: d.message, source: d.source, data: (d as { data?: unknown }).data })));
    if (!s) return status.hide();
    status.text = s.text;
    status.tooltip = s.tooltip;
    status.backgroundColor = s.text.startsWith("$(error)") ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    status.show();
  }
}

function activeTabUri(): string | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri.toString() : undefined;
}
