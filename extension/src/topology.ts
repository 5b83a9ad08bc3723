// Check Topology: the language server's firstfault.checkTopology (this machine, or the file
// firstfault.topology.file names, read and told apart by the server), shown in one panel
// with one message listener for its life (src/pure/topologyPanel.ts).
import * as crypto from "crypto";
import * as path from "path";
import * as vscode from "vscode";

import { readSettings, ServerHost } from "./client";
import { RegisterCommand } from "./commands";
import { REPORT_SCHEME } from "./pure/reportDocuments";
import { TopoReport } from "./pure/topologyHtml";
import { TopologyPanel } from "./pure/topologyPanel";

export function registerTopology(context: vscode.ExtensionContext, cmd: RegisterCommand, server: ServerHost): void {
  const topology = topologyPanel(context);
  cmd("firstfault.showTopology", async () => {
    const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "firstfault: checking topology" }, () =>
      checkTopology(server),
    );
    topology.show(report);
  });
}

/** The panel; "Apply" inserts the binding into the last text editor that was not a report. */
function topologyPanel(context: vscode.ExtensionContext): TopologyPanel {
  let lastTextEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor((e) => e && e.document.uri.scheme !== REPORT_SCHEME && (lastTextEditor = e)));
  return new TopologyPanel({
    createPanel: () =>
      vscode.window.createWebviewPanel("firstfault.topology", "firstfault: topology", vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      }),
    nonce: () => crypto.randomBytes(16).toString("base64").replace(/[^A-Za-z0-9]/g, ""),
    copy: async (lines) => {
      await vscode.env.clipboard.writeText(lines);
      void vscode.window.showInformationMessage("firstfault: binding export lines copied.");
    },
    apply: async (lines) => {
      const ed = lastTextEditor && !lastTextEditor.document.isClosed && lastTextEditor.document.languageId !== "log" ? lastTextEditor : undefined;
      if (ed) {
        await ed.edit((b) => b.insert(ed.selection.active, lines));
        await vscode.window.showTextDocument(ed.document, ed.viewColumn);
        void vscode.window.showInformationMessage(`firstfault: binding inserted into ${path.basename(ed.document.uri.path)}.`);
      } else {
        const doc = await vscode.workspace.openTextDocument({ language: "shellscript", content: `#!/bin/sh\n${lines}` });
        await vscode.window.showTextDocument(doc, vscode.ViewColumn.Beside);
      }
    },
  });
}

/** The topology report, always from the language server: it reads this machine, or the
 * topology file (relative to the first workspace folder), on a worker. */
async function checkTopology(server: ServerHost): Promise<TopoReport> {
  const file = readSettings().topologyFile.trim();
  let abs = file;
  if (file && !path.isAbsolute(file)) {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error(`firstfault.topology.file "${file}" is a relative path and no folder is open`);
    abs = path.join(folder.uri.fsPath, file);
  }
  if (!server.running()) throw new Error("the firstfault language server is not running (see the firstfault output)");
  return server.execute<TopoReport>("firstfault.checkTopology", abs ? [{ file: abs }] : []);
}
