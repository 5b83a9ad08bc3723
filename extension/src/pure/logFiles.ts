// Which files are logs is the server's decision (server/src/lsp/log_files.hpp): it advertises
// its file-name patterns in its initialize result, `capabilities.experimental.firstfault.logFiles`
// (docs/LSP.md), and the extension builds its document selector and its choice of the tabs
// to hand over from them. No copy of the rules here: only how to read and apply the patterns.
// No vscode import.

/** The server's answer: file-name globs where `*` is any run of characters, letters in either case. */
export interface LogFiles {
  patterns: string[];
}

/** A document filter as vscode-languageclient takes it: by language, or by file pattern. */
export type DocumentFilterLike = { language: string; scheme?: string } | { scheme: string; pattern: string };

/** The log files an initialize result's capabilities advertise; none when it names none. */
export function logFilesOf(capabilities: unknown): LogFiles {
  const experimental = (capabilities as { experimental?: { firstfault?: { logFiles?: { patterns?: unknown } } } } | undefined)?.experimental;
  const patterns = experimental?.firstfault?.logFiles?.patterns;
  return { patterns: Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === "string") : [] };
}

function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "is");
}

/** Whether a path's file name (the part after its last "/") matches one of the patterns. */
export function isLogFile(logFiles: LogFiles, path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return logFiles.patterns.some((p) => patternRegExp(p).test(name));
}

/** The documents that are logs: the extension's Log language, and files the patterns name. */
export function logSelector(logFiles: LogFiles): DocumentFilterLike[] {
  return [{ language: "log" }, ...logFiles.patterns.map((p) => ({ scheme: "file", pattern: `**/${p}` })), { scheme: "untitled", language: "log" }];
}

/**
 * What the server is given: the logs, plus launch scripts and configs. It analyses none of
 * the latter, but hovers explain their NCCL_* variables and the NCCL_IB_HCA binding edits
 * the open launch scripts.
 */
export function serverSelector(logFiles: LogFiles): DocumentFilterLike[] {
  return [
    ...logSelector(logFiles),
    { scheme: "file", language: "shellscript" },
    { scheme: "file", language: "python" },
    { scheme: "file", language: "yaml" },
    { scheme: "file", language: "dockerfile" },
  ];
}
