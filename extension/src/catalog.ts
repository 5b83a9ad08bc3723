// "Open Error Catalog": docs/catalog.md, shipped with the extension or in a workspace folder.
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";

import { RegisterCommand } from "./commands";

export function registerCatalogCommand(cmd: RegisterCommand, context: vscode.ExtensionContext): void {
  cmd("firstfault.openCatalog", async () => {
    const candidates = [path.join(context.extensionPath, "docs", "catalog.md")];
    for (const f of vscode.workspace.workspaceFolders ?? []) candidates.push(path.join(f.uri.fsPath, "docs", "catalog.md"));
    const found = candidates.find((p) => fs.existsSync(p));
    if (!found) return void vscode.window.showWarningMessage("firstfault: docs/catalog.md is not shipped in this build; see the firstfault repository's docs/catalog.md.");
    await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.file(found));
  });
}
