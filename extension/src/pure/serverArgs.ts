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

export type TopologyInputKind = "xml" | "nvidia-smi" | "nccl-topo" | "from-log";

/** Which `firstfault topo` flag reads this file, judged by its name and first bytes. */
export function topologyInputKind(file: string, head: string): TopologyInputKind {
  const h = head.slice(0, 4096);
  if (/<system[\s>]/.test(h) && /<cpu[\s>]|<pci[\s>]/.test(h) && !/<topology[\s>]/.test(h)) return "nccl-topo";
  if (/<topology[\s>]/.test(h) || /<object[\s>]/.test(h)) return "xml";
  if (/^\s*<\?xml/.test(h) || /\.xml$/i.test(file)) return /<system/.test(h) ? "nccl-topo" : "xml";
  if (/NCCL INFO/.test(h)) return "from-log";
  if (/\bGPU0\b/.test(h) && /\bLegend\b|\bX\b/.test(h)) return "nvidia-smi";
  if (/\.(log|out|err)$/i.test(file)) return "from-log";
  return "nvidia-smi";
}

/** Arguments for running `firstfault topo --format json` directly. */
export function topoArgs(topologyFile: string, kind: TopologyInputKind | undefined, env: Record<string, string | undefined>): string[] {
  const args = ["topo", "--format", "json"];
  if (topologyFile && kind) args.push(`--${kind}`, topologyFile);
  for (const v of ["NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "LOCAL_RANK", "CUDA_VISIBLE_DEVICES"]) {
    const val = env[v];
    if (val !== undefined && val !== "") args.push("--env", `${v}=${val}`);
  }
  return args;
}
