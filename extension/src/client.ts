// Starting, restarting and talking to `firstfault lsp`.
import * as fs from "fs";
import * as vscode from "vscode";
import {
  CloseAction,
  DocumentSelector,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  ExecuteCommandRequest,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  Message,
  RevealOutputChannelOn,
  ServerCapabilities,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from "vscode-languageclient/node";
import { LogFiles, logFilesOf, logSelector, serverSelector } from "./pure/logFiles";
import { FirstfaultSettings, ServerLaunch, serverLaunch } from "./pure/serverArgs";

/**
 * Reads the server's log file patterns from its initialize result and puts them in the
 * client's document selector (the array given to the client, changed in place) before any
 * of the client's features reads it: which files are logs is the server's to say.
 */
class LogFilesFeature implements StaticFeature {
  constructor(private readonly selector: DocumentSelector, private readonly onLogFiles: (l: LogFiles) => void) {}
  fillClientCapabilities(): void {}
  preInitialize(capabilities: ServerCapabilities): void {
    const logFiles = logFilesOf(capabilities);
    this.selector.splice(0, this.selector.length, ...serverSelector(logFiles));
    this.onLogFiles(logFiles);
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: "static" };
  }
  clear(): void {}
}

export function readSettings(): FirstfaultSettings {
  const c = vscode.workspace.getConfiguration("firstfault");
  return {
    serverPath: c.get<string>("server.path", ""),
    rulesDirectories: c.get<string[]>("rules.directories", []),
    topologyFile: c.get<string>("topology.file", ""),
    terminalOffer: c.get<string>("terminal.offer", "ask"),
    maskHostNames: c.get<boolean>("report.maskHostNames", false),
    traceServer: c.get<string>("trace.server", "off"),
  };
}

export function currentLaunch(context: vscode.ExtensionContext): ServerLaunch {
  return serverLaunch(readSettings(), {
    extensionPath: context.extensionPath,
    platform: process.platform,
    arch: process.arch,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    exists: (p) => fs.existsSync(p),
    trusted: vscode.workspace.isTrusted,
  }, process.env.HOME);
}

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

class RestartingErrorHandler implements ErrorHandler {
  private restarts: number[] = [];
  constructor(private readonly log: vscode.OutputChannel, private readonly onGiveUp: () => void) {}

  error(_error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
    if (count !== undefined && count <= 3) return { action: ErrorAction.Continue, handled: true };
    return { action: ErrorAction.Shutdown, handled: false };
  }

  closed(): CloseHandlerResult {
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    this.restarts.push(now);
    if (this.restarts.length > MAX_RESTARTS) {
      this.log.appendLine(`[client] the server stopped ${this.restarts.length} times in 3 minutes; not restarting it`);
      this.onGiveUp();
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const n = this.restarts.length;
    this.log.appendLine(`[client] the server stopped unexpectedly; restarting it (${n} of ${MAX_RESTARTS})`);
    void vscode.window
      .showWarningMessage(`firstfault: the language server stopped unexpectedly and was restarted (${n} of ${MAX_RESTARTS} in 3 minutes).`, "Show Log")
      .then((a) => a && this.log.show(true));
    return { action: CloseAction.Restart, handled: true };
  }
}

export class ServerHost implements vscode.Disposable {
  client: LanguageClient | undefined;
  readonly log: vscode.OutputChannel;
  readonly trace: vscode.OutputChannel;
  private launch: ServerLaunch | undefined;
  /** Called each time a server (re)starts running, also after an automatic restart. */
  onRunning: (() => void) | undefined;
  /** The log files of the running server (its initialize result); none before it runs. */
  logFiles: LogFiles = { patterns: [] };

  constructor(private readonly context: vscode.ExtensionContext, private readonly onReportCommand: (markdown: string, uri: string) => void) {
    this.log = vscode.window.createOutputChannel("firstfault");
    this.trace = vscode.window.createOutputChannel("firstfault (trace)");
  }

  get launchInfo(): ServerLaunch | undefined {
    return this.launch;
  }

  async start(): Promise<boolean> {
    const launch = currentLaunch(this.context);
    this.launch = launch;
    this.log.appendLine(`[client] starting ${launch.command} ${launch.args.join(" ")} (${launch.origin})`);
    if (launch.origin !== "path" && !fs.existsSync(launch.command)) {
      this.failStart(`the server binary ${launch.command} does not exist`, launch);
      return false;
    }
    const serverOptions: ServerOptions = {
      run: { command: launch.command, args: launch.args, transport: TransportKind.stdio },
      debug: { command: launch.command, args: launch.args, transport: TransportKind.stdio },
    };
    const settings = readSettings();
    // Completed with the server's log file patterns once it answers initialize (LogFilesFeature).
    const selector: DocumentSelector = serverSelector(this.logFiles);
    const clientOptions: LanguageClientOptions = {
      documentSelector: selector,
      outputChannel: this.log,
      traceOutputChannel: this.trace,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { maskHostNames: settings.maskHostNames, client: "vscode-firstfault" },
      errorHandler: new RestartingErrorHandler(this.log, () => {
        void vscode.window
          .showErrorMessage("firstfault: the language server keeps crashing (6 times in 3 minutes) and was not restarted. See the log.", "Show Log", "Restart")
          .then((a) => {
            if (a === "Show Log") this.log.show(true);
            if (a === "Restart") void this.restart();
          });
      }),
      middleware: {
        // The server's code lens may carry firstfault.report: show the report, not a JSON result.
        executeCommand: async (command, args, next) => {
          const result = await next(command, args);
          if (command === "firstfault.report" && result && typeof result.markdown === "string") {
            const a = args?.[0];
            const uri = typeof a === "string" ? a : a?.uri ?? "";
            this.onReportCommand(result.markdown, uri);
          }
          return result;
        },
      },
    };
    const client = new LanguageClient("firstfault", "firstfault", serverOptions, clientOptions);
    client.registerFeature(new LogFilesFeature(selector, (l) => (this.logFiles = l)));
    this.client = client;
    // A restarted server knows none of the files the previous one read from disk.
    client.onDidChangeState((e) => {
      if (e.newState === State.Running && this.client === client) this.onRunning?.();
    });
    try {
      await client.start();
      this.log.appendLine(`[client] server ${client.initializeResult?.serverInfo?.name ?? "?"} ${client.initializeResult?.serverInfo?.version ?? ""} running`);
      return true;
    } catch (e) {
      this.failStart(e instanceof Error ? e.message : String(e), launch);
      return false;
    }
  }

  private failStart(why: string, launch: ServerLaunch) {
    this.log.appendLine(`[client] cannot start the server: ${why}`);
    const hint =
      launch.origin === "path"
        ? "No server is bundled for this platform and `firstfault` is not on PATH: set firstfault.server.path."
        : launch.origin === "setting"
          ? "Check the firstfault.server.path setting."
          : "The extension's bundled server could not be run.";
    void vscode.window.showErrorMessage(`firstfault: cannot start the language server (${why}). ${hint}`, "Open Settings", "Show Log").then((a) => {
      if (a === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "firstfault.server.path");
      if (a === "Show Log") this.log.show(true);
    });
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c && c.state !== State.Stopped) {
      try {
        await c.stop(2000);
      } catch (e) {
        this.log.appendLine(`[client] stop: ${e instanceof Error ? e.message : e}`);
      }
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  running(): boolean {
    return !!this.client && this.client.state === State.Running;
  }

  /** workspace/executeCommand on the server; throws when it is not running. */
  async execute<T>(command: string, args: unknown[]): Promise<T> {
    if (!this.running()) {
      if (!(await this.start()) || !this.running()) throw new Error("the firstfault language server is not running");
    }
    return (await this.client!.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  /**
   * workspace/executeCommand with a work-done token: `onProgress` gets the server's $/progress
   * values, and `cancel` sends $/cancelRequest.
   */
  async executeWithProgress<T>(command: string, args: unknown[], onProgress: (v: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => void, cancel: vscode.CancellationToken): Promise<T> {
    if (!this.running()) throw new Error("the firstfault language server is not running");
    const token = `firstfault-${command}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const sub = this.client!.onProgress(WorkDoneProgress.type, token, onProgress);
    try {
      return (await this.client!.sendRequest(ExecuteCommandRequest.type, { command, arguments: args, workDoneToken: token }, cancel)) as T;
    } finally {
      sub.dispose();
    }
  }

  /** The documents the server analyses as logs (its log file patterns, and the Log language). */
  logSelector(): DocumentSelector {
    return logSelector(this.logFiles);
  }

  dispose(): void {
    void this.stop();
    this.log.dispose();
    this.trace.dispose();
  }
}
