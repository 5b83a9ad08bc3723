// The commands that run a diagnosis's verification command in a terminal, after the user
// confirms it or completes its placeholders.
import * as vscode from "vscode";

import { RegisterCommand } from "./commands";
import { verificationPlaceholders } from "./pure/verification";

export function registerVerificationCommands(cmd: RegisterCommand): void {
  cmd("firstfault.runVerification", async (command?: string) => {
    if (typeof command !== "string" || !command.trim()) return;
    // The server sends only commands whose placeholders it filled; one left (an older
    // server, a hand-made call) is completed first: `<gpu>` is a redirection to a shell.
    if (verificationPlaceholders(command).length)
      return vscode.commands.executeCommand('firstfault.editVerification', command);
    const pick = await vscode.window.showWarningMessage(`Run the verification command in a terminal?\n\n${command}`, { modal: true }, "Run");
    if (pick !== "Run") return;
    const t = vscode.window.createTerminal({ name: "firstfault: verify" });
    t.show();
    t.sendText(command, true);
  });

  cmd('firstfault.editVerification', async (command?: string) => {
    if (typeof command !== 'string' || !command.trim()) return;
    const left = verificationPlaceholders(command);
    const edited = await vscode.window.showInputBox({
      title: 'firstfault: complete the verification command',
      prompt: left.length ? `Replace ${left.join(', ')}, then press Enter to run it in a terminal` :
                            'Press Enter to run it in a terminal',
      value: command,
      valueSelection: left.length ?
          [command.indexOf(left[0]), command.indexOf(left[0]) + left[0].length] :
          undefined,
      validateInput: (v) => {
        const still = verificationPlaceholders(v);
        return still.length ? `Still to fill in: ${still.join(', ')}` : undefined;
      },
      ignoreFocusOut: true,
    });
    if (edited === undefined || !edited.trim()) return;
    const t = vscode.window.createTerminal({name: 'firstfault: verify'});
    t.show();
    t.sendText(edited, true);
  });
}
