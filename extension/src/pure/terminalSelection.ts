// Reading the active terminal's selected text. VS Code gives a published extension no
// direct way to read it: `Terminal.selection` is a proposed API (microsoft/vscode#188173,
// vscode.proposed.terminalSelection.d.ts), checked here at run time in case the host
// exposes it, never declared in enabledApiProposals. Without it the selection is copied
// (workbench.action.terminal.copySelection) and read back from the clipboard, which is
// borrowed for that moment: the user's clipboard text is saved first and written back
// afterwards, also when copying or reading fails. The host's functions are injected so the
// clipboard's fate is unit tested.

/** What reading the selection needs of the editor host. */
export interface TerminalSelectionHost {
  /** The active terminal, if any (its `selection` is read when it is a string). */
  terminal: unknown;
  readClipboard(): PromiseLike<string>;
  writeClipboard(text: string): PromiseLike<void>;
  /** Copies the active terminal's selection to the clipboard (leaves it alone when nothing is selected). */
  copySelection(): PromiseLike<unknown>;
}

export type TerminalSelection =
  | { kind: "text"; text: string; via: "selection" | "clipboard" }
  | { kind: "empty"; message: string }
  | { kind: "no-terminal"; message: string };

export const SELECT_IN_TERMINAL_FIRST = "firstfault: select the log lines in the terminal first.";
export const NO_TERMINAL = "firstfault: no terminal is open.";

/**
 * The proposed API's `Terminal.selection`, when the host gives it (a string); else
 * undefined. A host may guard proposed members with a getter that throws for an extension
 * that did not enable the proposal: that counts as not given.
 */
export function proposedSelection(terminal: unknown): string | undefined {
  if (typeof terminal !== "object" || terminal === null) return undefined;
  try {
    const s = (terminal as { selection?: unknown }).selection;
    return typeof s === "string" ? s : undefined;
  } catch {
    return undefined;
  }
}

function result(text: string, via: "selection" | "clipboard"): TerminalSelection {
  return text.trim() ? { kind: "text", text, via } : { kind: "empty", message: SELECT_IN_TERMINAL_FIRST };
}

/**
 * The active terminal's selection. Rejects (after restoring the clipboard) when copying or
 * reading fails; the clipboard text the user had is on the clipboard again whenever this
 * settles.
 */
export async function readTerminalSelection(host: TerminalSelectionHost): Promise<TerminalSelection> {
  if (host.terminal === undefined || host.terminal === null) return { kind: "no-terminal", message: NO_TERMINAL };
  const direct = proposedSelection(host.terminal);
  if (direct !== undefined) return result(direct, "selection");
  // Nothing is written before the user's text is safely read: if this read fails, the
  // clipboard is untouched.
  const saved = await host.readClipboard();
  // A marker no selection contains: it is still there after the copy when nothing was selected.
  const marker = `\u0000firstfault-selection-${Date.now()}-${Math.random()}`;
  try {
    await host.writeClipboard(marker);
    await host.copySelection();
    const text = await host.readClipboard();
    return result(text === marker ? "" : text, "clipboard");
  } finally {
    await host.writeClipboard(saved);
  }
}
