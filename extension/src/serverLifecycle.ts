// The language server's lifecycle as the user sees it: Restart Server, Show Output, the
// settings that need a restart, and the open tabs handed to each server that starts.
import * as vscode from "vscode";

import { ServerHost } from "./client";
import { RegisterCommand } from "./commands";
import { DiskLogs } from "./diskLogs";

export function registerServerCommands(cmd: RegisterCommand, server: ServerHost, disk: DiskLogs): void {
  // Each server that starts running (first start, restart, restart after a crash) follows
  // nothing yet: the open tabs are handed to it again.
  server.onRunning = () => disk.serverStarted();
  cmd("firstfault.restartServer", async () => {
    await restartAndResync(server);
    void vscode.window.showInformationMessage("firstfault: language server restarted.");
  });
  cmd("firstfault.showOutput", () => server.log.show(true));
}

/** Restarts the server when a setting it reads at start changes. */
export function restartOnSettingsChange(context: vscode.ExtensionContext, server: ServerHost): void {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (["firstfault.server.path", "firstfault.rules.directories", "firstfault.report.maskHostNames"].some((k) => e.affectsConfiguration(k))) {
        server.log.appendLine("[client] settings changed: restarting the server");
        void restartAndResync(server);
      } else if (e.affectsConfiguration("firstfault.trace.server")) {
        void restartAndResync(server); // the log level passed on the command line follows the trace setting
      }
    }),
  );
}

/** The restarted server gets the open tabs again through server.onRunning. */
function restartAndResync(server: ServerHost): Promise<void> {
  return server.restart();
}
