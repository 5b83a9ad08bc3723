// Which logs the server must read from disk because the extension cannot see them: VS Code
// hands no document above 50 MB to extensions (MODEL_SYNC_LIMIT), so such a log shows in a
// tab but never reaches the language client, and no didOpen reaches the server. The server
// then reads the file itself (firstfault.analyzeFile) and follows it as it grows. No vscode
// import: the extension feeds these functions from window.tabGroups and workspace.textDocuments.

import { isLogFile, LogFiles } from "./logFiles";

/** VS Code's limit on the documents it synchronizes with extensions (50 MB). */
export const MODEL_SYNC_LIMIT = 50 * 1024 * 1024;

/** How long a small file's tab may wait for its document (tab events come first). */
export const DOCUMENT_GRACE_MS = 2000;

/** A tab showing a text resource (vscode.TabInputText), as plain data. */
export interface TabResource {
  uri: string; // vscode.Uri.toString()
  scheme: string;
  path: string;
}

/**
 * The tabs showing a log on disk (a name the server's `logFiles` patterns match) whose
 * document the extension cannot see and that the server does not follow yet: their URIs,
 * each once, in tab order.
 */
export function unsyncedLogTabs(tabs: readonly TabResource[], documents: ReadonlySet<string>, followed: ReadonlySet<string>, logFiles: LogFiles): string[] {
  const out: string[] = [];
  for (const t of tabs) {
    if (t.scheme !== "file" || !isLogFile(logFiles, t.path)) continue;
    if (documents.has(t.uri) || followed.has(t.uri) || out.includes(t.uri)) continue;
    out.push(t.uri);
  }
  return out;
}

/**
 * What to do with such a tab's file: "disk" (the server reads it) when it is above the
 * limit, or when no document appeared within the grace period; "wait" while a small file's
 * document may still come; "editor" when the document came (the client syncs it).
 */
export function diskDecision(sizeBytes: number | undefined, hasDocument: boolean, waitedMs: number, graceMs = DOCUMENT_GRACE_MS): "disk" | "wait" | "editor" {
  if (hasDocument) return "editor";
  if (sizeBytes !== undefined && sizeBytes >= MODEL_SYNC_LIMIT) return "disk";
  return waitedMs >= graceMs ? "disk" : "wait";
}

/** The files followed because a tab showed them that no tab shows any more. */
export function followedWithoutTab(followedForTabs: ReadonlySet<string>, tabUris: ReadonlySet<string>): string[] {
  return [...followedForTabs].filter((u) => !tabUris.has(u));
}

/**
 * The resource the status bar and "Show Report" are about: the active editor's document,
 * else the active tab's resource when the server reads it from disk (an editor the
 * extension cannot see).
 */
export function activeLogUri(activeEditorUri: string | undefined, activeTabUri: string | undefined, followed: ReadonlySet<string>): string | undefined {
  if (activeEditorUri) return activeEditorUri;
  return activeTabUri && followed.has(activeTabUri) ? activeTabUri : undefined;
}
