// The Markdown reports shown as `firstfault-report:` documents (a content provider serves
// them by URI). A report is forgotten when its document closes, and at most MAX_REPORTS are
// kept (the oldest go first: a session that diagnoses many selections does not grow
// without bound; a report still open after that shows "no longer available").

export const REPORT_SCHEME = "firstfault-report";
export const MAX_REPORTS = 50;

export interface Disposable {
  dispose(): unknown;
}

/** What a closed document tells: its URI's scheme and its string form. */
export interface ClosedDocument {
  uri: { scheme: string; toString(): string };
}

/** The path of a report's URI: `/<name>.md`, the name reduced to safe characters. */
export function reportPath(name: string): string {
  return `/${name.replace(/[^A-Za-z0-9_.-]+/g, "-")}.md`;
}

/** Report texts by URI string, insertion ordered, bounded. */
export class ReportStore {
  private readonly docs = new Map<string, string>();
  constructor(private readonly max = MAX_REPORTS) {}

  set(uri: string, markdown: string): void {
    this.docs.delete(uri); // a report set again is the newest
    this.docs.set(uri, markdown);
    while (this.docs.size > this.max) {
      const oldest = this.docs.keys().next().value as string;
      this.docs.delete(oldest);
    }
  }
  get(uri: string): string | undefined {
    return this.docs.get(uri);
  }
  delete(uri: string): void {
    this.docs.delete(uri);
  }
  get size(): number {
    return this.docs.size;
  }

  /** Forgets each report whose document closes; `onDidClose` is workspace.onDidCloseTextDocument. */
  forgetOnClose(onDidClose: (listener: (doc: ClosedDocument) => unknown) => Disposable): Disposable {
    return onDidClose((doc) => {
      if (doc.uri.scheme === REPORT_SCHEME) this.delete(doc.uri.toString());
    });
  }
}
