// Terminal output capture, free of any vscode import so that it can be unit tested.
//
// Shell integration only returns the output produced after execution.read() is first
// iterated, so the extension starts reading when a command starts and keeps the tail of
// the output here, bounded, until the command ends.

export const DEFAULT_MAX_CHARS = 2 * 1024 * 1024;

/** Keeps the last `maxChars` characters appended to it (a tail buffer). */
export class BoundedBuffer {
  private chunks: string[] = [];
  private size = 0;
  private dropped = 0;

  constructor(readonly maxChars: number = DEFAULT_MAX_CHARS) {
    if (!Number.isFinite(maxChars) || maxChars <= 0) throw new RangeError("maxChars must be > 0");
  }

  append(chunk: string): void {
    if (!chunk) return;
    if (chunk.length >= this.maxChars) {
      this.dropped += this.size + chunk.length - this.maxChars;
      this.chunks = [chunk.slice(chunk.length - this.maxChars)];
      this.size = this.maxChars;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.maxChars) {
      const excess = this.size - this.maxChars;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.slice(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
    // Keep the array short: many tiny chunks are joined now and then.
    if (this.chunks.length > 1024) this.chunks = [this.chunks.join("")];
  }

  /** Characters currently held. */
  get length(): number {
    return this.size;
  }

  /** Characters dropped from the front so far. */
  get droppedChars(): number {
    return this.dropped;
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    return this.chunks.join("");
  }
}

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), DCS/PM/APC strings, and two-byte
// escapes. Shell integration's own OSC 633 sequences are among the OSCs.
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const STRING_SEQ = /\x1b[P^_][^\x1b]*(?:\x1b\\)?/g;
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const TWO_BYTE = /\x1b[@-Z\\-_]/g;
const C1_CSI = /\x9b[0-?]*[ -/]*[@-~]/g;

/** Terminal output as plain text: escape sequences removed, \r\n and progress-bar \r handled. */
export function stripTerminalEscapes(raw: string): string {
  const noEsc = raw
    .replace(OSC, "")
    .replace(STRING_SEQ, "")
    .replace(CSI, "")
    .replace(C1_CSI, "")
    .replace(TWO_BYTE, "")
    .replace(/\x1b/g, "");
  const lines = noEsc.replace(/\r+\n/g, "\n").split("\n");
  return lines
    .map((line) => {
      // A carriage return inside a line rewrites it: keep what was written last.
      const i = line.lastIndexOf("\r");
      return i >= 0 && i < line.length - 1 ? line.slice(i + 1) : line.replace(/\r$/, "");
    })
    .join("\n")
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "");
}

export type ExitKind = "success" | "failure" | "unknown";

/** An exit code of undefined means the shell did not report one: unknown, not success. */
export function classifyExit(exitCode: number | undefined): ExitKind {
  if (exitCode === undefined || exitCode === null || Number.isNaN(exitCode)) return "unknown";
  return exitCode === 0 ? "success" : "failure";
}

export interface CommandRecord {
  commandLine: string;
  exitCode: number | undefined;
  output: string; // already stripped of escapes
  truncated: boolean;
  terminalName: string;
  endedAt: number;
}

/** The last few finished commands, newest last. */
export class CommandHistory {
  private records: CommandRecord[] = [];
  constructor(readonly limit = 5) {}

  add(r: CommandRecord): void {
    this.records.push(r);
    if (this.records.length > this.limit) this.records.splice(0, this.records.length - this.limit);
  }

  /** The most recent command that did not succeed (failed, or whose exit code is unknown). */
  lastFailed(): CommandRecord | undefined {
    for (let i = this.records.length - 1; i >= 0; i--)
      if (classifyExit(this.records[i].exitCode) !== "success") return this.records[i];
    return undefined;
  }

  get size(): number {
    return this.records.length;
  }
}

/** How a job ended, as firstfault.diagnoseText takes it (docs/LSP.md). */
export interface JobOutcome {
  failed?: boolean;
  hung?: boolean;
  exitCode?: number;
}

/**
 * What a command's exit code says about the job it ran: a non-zero code (or a signal, which
 * shells report as 128 + N) is a known failure the server may explain with observations; an
 * unknown code says nothing, and 0 says the command succeeded.
 */
export function commandOutcome(exitCode: number|undefined): JobOutcome|undefined {
  if (exitCode === undefined || !Number.isInteger(exitCode) || exitCode < -64 || exitCode > 255)
    return undefined;
  return exitCode === 0 ? {exitCode} : {failed: true, exitCode};
}

/** The text sent to the server for a failed command: a header line, then its output. */
export function commandDiagnosisText(r: CommandRecord): string {
  const code = r.exitCode === undefined ? "unknown" : String(r.exitCode);
  return `$ ${r.commandLine}\n${r.output}${r.output.endsWith("\n") ? "" : "\n"}[exit status: ${code}]\n`;
}
