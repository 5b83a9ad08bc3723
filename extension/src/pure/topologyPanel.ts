// The Check Topology webview: one panel, reused by every check while it is open, with one
// message listener for the panel's life. The listener acts on the latest check's binding
// lines, so "Apply" inserts the binding once however many checks ran (a listener added per
// check would insert it once per earlier check). The panel and the buttons' effects are
// injected, so the listener count is unit tested with a fake panel.
import { bindingExportLines, renderTopologyHtml, TopoReport } from "./topologyHtml";

export interface Disposable {
  dispose(): unknown;
}

export interface TopologyWebview {
  html: string;
  readonly cspSource: string;
  onDidReceiveMessage(listener: (message: unknown) => unknown): Disposable;
}

export interface TopologyWebviewPanel {
  readonly webview: TopologyWebview;
  reveal(): void;
  onDidDispose(listener: () => unknown): Disposable;
}

export interface TopologyPanelHost {
  /** A new webview panel (scripts enabled, no local resources). */
  createPanel(): TopologyWebviewPanel;
  /** A fresh nonce for the page's CSP. */
  nonce(): string;
  /** "Copy export lines". */
  copy(lines: string): PromiseLike<void> | void;
  /** "Apply to launch script": insert at the last editor's cursor, or in a new script. */
  apply(lines: string): PromiseLike<void> | void;
}

export class TopologyPanel {
  private panel: TopologyWebviewPanel | undefined;
  private lines = ""; // the binding export lines of the latest check

  constructor(private readonly host: TopologyPanelHost) {}

  /** Shows a check's result, in the open panel if there is one. */
  show(report: TopoReport): void {
    const panel = this.panel ?? this.open();
    panel.webview.html = renderTopologyHtml(report, { nonce: this.host.nonce(), cspSource: panel.webview.cspSource });
    this.lines = bindingExportLines(report.binding);
    panel.reveal();
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  private open(): TopologyWebviewPanel {
    const panel = this.host.createPanel();
    this.panel = panel;
    const listener = panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    panel.onDidDispose(() => {
      listener.dispose();
      if (this.panel === panel) this.panel = undefined;
    });
    return panel;
  }

  private async onMessage(m: unknown): Promise<void> {
    const type = typeof m === "object" && m !== null ? (m as { type?: unknown }).type : undefined;
    const lines = this.lines;
    if (type === "copy") await this.host.copy(lines);
    else if (type === "apply") await this.host.apply(lines);
  }
}
