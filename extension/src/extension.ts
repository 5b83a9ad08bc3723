// firstfault for VS Code: diagnostics from `firstfault lsp` on logs, and commands that
// diagnose a selection, the last failed terminal command, the topology and the report.
import * as path from "path";
import * as vscode from "vscode";

import { registerCatalogCommand } from "./catalog";
import { ServerHost } from "./client";
import { commandRegistrar } from "./commands";
import { DiskLogs } from "./diskLogs";
import { registerFileCommands } from "./fileCommands";
import { registerReportDocuments } from "./reports";
import { RootCauseStatus } from "./rootCauseStatus";
import { registerServerCommands, restartOnSettingsChange } from "./serverLifecycle";
import { registerTextCommands, watchTerminalCommands } from "./textCommands";
import { TextDiagnosis } from "./textDiagnosis";
import { registerTopology } from "./topology";
import { registerVerificationCommands } from "./verificationCommands";

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
  disk.syncTabsOnChange(context);
  registerFileCommands(cmd, { server, disk, status, diagnosis, showMarkdown });
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
