// Capturing terminal commands through shell integration, and the selection fallback.
import * as vscode from "vscode";
import { BoundedBuffer, CommandHistory, CommandRecord, DEFAULT_MAX_CHARS, stripTerminalEscapes } from "./pure/terminalBuffer";
import { analyseCommand, commandOutcome, rootCauseLine, TextReport, uncapturedNote } from "./pure/terminalOffer";
import { readTerminalSelection, TerminalSelection } from "./pure/terminalSelection";

/** A command's output analysed by the server (firstfault.diagnoseText). */
export interface CommandAnalysis {
  report?: TextReport;
}

interface Reading {
  buffer: BoundedBuffer;
  done: Promise<void>;
}

export class TerminalWatcher implements vscode.Disposable {
  readonly history = new CommandHistory(5);
  private readonly reading = new Map<vscode.TerminalShellExecution, Reading>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly log: vscode.OutputChannel,
    private readonly analyse: (r: CommandRecord) => Promise<CommandAnalysis>,
    private readonly show: (r: CommandRecord, a: CommandAnalysis) => Promise<void>,
  ) {
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
    if (!analyseCommand(setting, e.exitCode)) {
      this.log.appendLine(`[terminal] '${record.commandLine}' ended with ${e.exitCode ?? "unknown"}: not analysed`);
      return;
    }
    if (!record.output.trim()) {
      this.log.appendLine(`[terminal] '${record.commandLine}' ended with ${e.exitCode ?? "unknown"}: no output was passed on`);
      vscode.window.setStatusBarMessage(uncapturedNote(record.commandLine, e.exitCode), 8000);
      return;
    }
    // The output is analysed first (on a server worker); only a failure firstfault found is
    // worth interrupting the user for.
    let analysis: CommandAnalysis;
    try {
      analysis = await this.analyse(record);
    } catch (err) {
      this.log.appendLine(`[terminal] analysis of '${record.commandLine}' failed: ${err instanceof Error ? err.message : err}`);
      return;
    }
    const rootCause = rootCauseLine(analysis.report);
    const outcome = commandOutcome(setting, record.commandLine, e.exitCode, rootCause);
    this.log.appendLine(`[terminal] '${record.commandLine}' ended with ${e.exitCode ?? "unknown"} (${record.output.length} chars): ${rootCause ?? "no failure found"} -> ${outcome.kind}`);
    if (outcome.kind === "note") {
      vscode.window.setStatusBarMessage(outcome.message, 8000);
    } else if (outcome.kind === "show") {
      await this.show(record, analysis);
    } else {
      const pick = await vscode.window.showWarningMessage(outcome.message, "Show Report", "Never Ask");
      if (pick === "Show Report") await this.show(record, analysis);
      if (pick === "Never Ask") await vscode.workspace.getConfiguration("firstfault").update("terminal.offer", "off", vscode.ConfigurationTarget.Global);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.reading.clear();
  }
}

/**
 * The active terminal's selection (src/pure/terminalSelection.ts): Terminal.selection if
 * the host gives it to this extension (a proposed API today, microsoft/vscode#188173),
 * else copied through the clipboard, whose text is restored afterwards.
 */
export function terminalSelection(): Promise<TerminalSelection> {
  return readTerminalSelection({
    terminal: vscode.window.activeTerminal,
    readClipboard: () => vscode.env.clipboard.readText(),
    writeClipboard: (text) => vscode.env.clipboard.writeText(text),
    copySelection: () => vscode.commands.executeCommand("workbench.action.terminal.copySelection"),
  });
}
