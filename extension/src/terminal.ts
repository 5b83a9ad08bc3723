// Capturing terminal commands through shell integration, and the selection fallback.
import * as vscode from "vscode";
import { BoundedBuffer, CommandHistory, CommandRecord, DEFAULT_MAX_CHARS, offerAction, stripTerminalEscapes } from "./pure/terminalBuffer";

interface Reading {
  buffer: BoundedBuffer;
  done: Promise<void>;
}

export class TerminalWatcher implements vscode.Disposable {
  readonly history = new CommandHistory(5);
  private readonly reading = new Map<vscode.TerminalShellExecution, Reading>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.OutputChannel, private readonly diagnose: (r: CommandRecord) => Promise<void>) {
    // Both events exist from VS Code 1.93; guard anyway for other hosts.
    const w = vscode.window as Partial<typeof vscode.window>;
    if (w.onDidStartTerminalShellExecution && w.onDidEndTerminalShellExecution) {
      this.disposables.push(w.onDidStartTerminalShellExecution((e) => this.onStart(e)));
      this.disposables.push(w.onDidEndTerminalShellExecution((e) => void this.onEnd(e)));
    }
  }

  private onStart(e: vscode.TerminalShellExecutionStartEvent) {
    // Output is only delivered after read() is first iterated: start at once.
    const buffer = new BoundedBuffer(DEFAULT_MAX_CHARS);
    const done = (async () => {
      try {
        for await (const chunk of e.execution.read()) buffer.append(chunk);
      } catch (err) {
        this.log.appendLine(`[terminal] read failed: ${err instanceof Error ? err.message : err}`);
      }
    })();
    this.reading.set(e.execution, { buffer, done });
  }

  private async onEnd(e: vscode.TerminalShellExecutionEndEvent) {
    const r = this.reading.get(e.execution);
    this.reading.delete(e.execution);
    if (r) await Promise.race([r.done, new Promise((res) => setTimeout(res, 1000))]);
    const record: CommandRecord = {
      commandLine: e.execution.commandLine.value,
      exitCode: e.exitCode,
      output: r ? stripTerminalEscapes(r.buffer.text()) : "",
      truncated: r ? r.buffer.truncated : false,
      terminalName: e.terminal.name,
      endedAt: Date.now(),
    };
    this.history.add(record);
    const setting = vscode.workspace.getConfiguration("firstfault").get<string>("terminal.offer", "ask");
    const action = offerAction(setting, e.exitCode);
    this.log.appendLine(`[terminal] '${record.commandLine}' ended with ${e.exitCode ?? "unknown"} (${record.output.length} chars): ${action}`);
    if (action === "diagnose") await this.diagnose(record);
    else if (action === "ask") {
      const short = record.commandLine.length > 60 ? record.commandLine.slice(0, 59) + "…" : record.commandLine;
      const pick = await vscode.window.showWarningMessage(`'${short}' failed with exit status ${e.exitCode}. Diagnose it with firstfault?`, "Diagnose", "Never Ask");
      if (pick === "Diagnose") await this.diagnose(record);
      if (pick === "Never Ask") await vscode.workspace.getConfiguration("firstfault").update("terminal.offer", "off", vscode.ConfigurationTarget.Global);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.reading.clear();
  }
}

/** The active terminal's selection, through the clipboard (restored afterwards). */
export async function terminalSelectionText(): Promise<string> {
  const before = await vscode.env.clipboard.readText();
  const marker = `\u0000firstfault-${Date.now()}`;
  await vscode.env.clipboard.writeText(marker);
  try {
    await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
    const text = await vscode.env.clipboard.readText();
    return text === marker ? "" : text;
  } finally {
    await vscode.env.clipboard.writeText(before);
  }
}
