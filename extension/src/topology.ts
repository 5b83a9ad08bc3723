// Check Topology: `firstfault topo` run by the server (or directly), shown in one panel with
// one message listener for its life (src/pure/topologyPanel.ts).
import { execFile } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";

import { readSettings, ServerHost } from "./client";
import { RegisterCommand } from "./commands";
import { REPORT_SCHEME } from "./pure/reportDocuments";
import { topoArgs, topologyInputKind } from "./pure/serverArgs";
import { TopoReport } from "./pure/topologyHtml";
import { TopologyPanel } from "./pure/topologyPanel";

export function registerTopology(context: vscode.ExtensionContext, cmd: RegisterCommand, server: ServerHost): void {
  const topology = topologyPanel(context);
  cmd("firstfault.showTopology", async () => {
    const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "firstfault: checking topology" }, () =>
      checkTopology(context, server),
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

async function checkTopology(context: vscode.ExtensionContext, server: ServerHost): Promise<TopoReport> {
  const settings = readSettings();
  const file = settings.topologyFile.trim();
  if (!file && server.running() && server.serverCommands().includes("firstfault.checkTopology")) {
    try {
      return await server.execute<TopoReport>("firstfault.checkTopology", []);
    } catch (e) {
      server.log.appendLine(`[client] firstfault.checkTopology failed (${e instanceof Error ? e.message : e}); running firstfault topo directly`);
    }
  }
  let abs = file;
  if (file && !path.isAbsolute(file) && vscode.workspace.workspaceFolders?.[0]) abs = path.join(vscode.workspace.workspaceFolders[0].uri.fsPath, file);
  let head = "";
  if (abs) {
    try {
      const fd = fs.openSync(abs, "r");
      const buf = Buffer.alloc(4096);
      const n = fs.readSync(fd, buf, 0, 4096, 0);
      fs.closeSync(fd);
      head = buf.subarray(0, n).toString("utf8");
    } catch (e) {
      throw new Error(`cannot read firstfault.topology.file ${abs}: ${e instanceof Error ? e.message : e}`);
    }
  }
  const exe = server.launchInfo?.command ?? "firstfault";
  const args = topoArgs(abs, abs ? topologyInputKind(abs, head) : undefined, process.env);
  server.log.appendLine(`[client] running ${exe} ${args.join(" ")}`);
  const out = await new Promise<string>((resolve, reject) =>
    execFile(exe, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`firstfault topo failed: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    }),
  );
  void context;
  return JSON.parse(out) as TopoReport;
}
