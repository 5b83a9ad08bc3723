// Registering the extension's commands: an error a command throws is logged and shown.
import * as vscode from "vscode";

import { ServerHost } from "./client";

/** Registers the command `id` for the extension's life. */
export type RegisterCommand = (id: string, f: (...a: any[]) => unknown) => void;

export function commandRegistrar(context: vscode.ExtensionContext, server: ServerHost): RegisterCommand {
  return (id: string, f: (...a: any[]) => unknown) =>
    void context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...a: any[]) => {
        try {
          return await f(...a);
        } catch (e) {
          const m = e instanceof Error ? e.message : String(e);
          server.log.appendLine(`[client] ${id}: ${m}`);
          void vscode.window.showErrorMessage(`firstfault: ${m}`, "Show Log").then((x) => x && server.log.show(true));
        }
      }),
    );
}
