// Settings -> how to start the server. No vscode import.
import * as path from "path";

export interface FirstfaultSettings {
  serverPath: string;
  rulesDirectories: string[];
  topologyFile: string;
  terminalOffer: string;
  maskHostNames: boolean;
  traceServer: string;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  /** Where the command came from, for messages. */
  origin: "setting" | "bundled" | "path";
}

export interface LaunchContext {
  extensionPath: string;
  platform: string; // process.platform
  arch: string; // process.arch
  workspaceFolder?: string;
  exists: (p: string) => boolean;
  /** In an untrusted workspace the path and rules settings are ignored. */
  trusted?: boolean;
}

export function bundledServerPath(extensionPath: string, platform: string, arch: string): string {
  const exe = platform === "win32" ? "firstfault.exe" : "firstfault";
  return path.join(extensionPath, "bin", `${platform}-${arch}`, exe);
}

function expandHome(p: string, home?: string): string {
  if (home && (p === "~" || p.startsWith("~/"))) return path.join(home, p.slice(1));
  return p;
}

function resolveIn(p: string, base?: string, home?: string): string {
  const e = expandHome(p.trim(), home);
  if (path.isAbsolute(e) || !base) return e;
  return path.join(base, e);
}

export function logLevelFor(trace: string): string {
  return trace === "verbose" ? "debug" : "info";
}

/** The server command line for these settings. */
export function serverLaunch(s: FirstfaultSettings, ctx: LaunchContext, home?: string): ServerLaunch {
  const trusted = ctx.trusted !== false;
  const args = ["lsp", "--log-level", logLevelFor(s.traceServer)];
  const docs = path.join(ctx.extensionPath, "docs");
  if (ctx.exists(path.join(docs, "catalog.md"))) args.push("--docs", docs);
  if (trusted) {
    const seen = new Set<string>();
    for (const dir of s.rulesDirectories ?? []) {
      if (typeof dir !== "string" || dir.trim() === "") continue;
      const abs = resolveIn(dir, ctx.workspaceFolder, home);
      if (seen.has(abs)) continue;
      seen.add(abs);
      args.push("--rules", abs);
    }
  }
  if (trusted && s.serverPath && s.serverPath.trim() !== "")
    return { command: resolveIn(s.serverPath, ctx.workspaceFolder, home), args, origin: "setting" };
  const bundled = bundledServerPath(ctx.extensionPath, ctx.platform, ctx.arch);
  if (ctx.exists(bundled)) return { command: bundled, args, origin: "bundled" };
  return { command: "firstfault", args, origin: "path" };
}
