import { execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Rpc } from './wire';

/** A Kaiak v1 incident (what `kast kaiak fix --dry-run --json` prints). */
export interface Incident {
  id: string;
  rule_id: string;
  file_path: string;
  line_number?: number;
  severity?: string;
  description?: string;
  message?: string;
  category?: string;
}

type Node = { kind: 'file'; file: string; incidents: Incident[] } | { kind: 'incident'; incident: Incident };

const proposalScheme = 'kast-kaiak';

/** Reads Konveyor analyzer output through kast's own converter. */
export function convertAnalysis(kast: string, analysis: string, workspace: string): Promise<Incident[]> {
  return new Promise((resolve, reject) => {
    execFile(kast, ['kaiak', 'fix', '--analysis', analysis, '--workspace', workspace, '--dry-run', '--json'], { maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          reject(new Error(`kast kaiak fix --dry-run: ${stderr.trim() || err.message}`));
          return;
        }
        // A summary precedes the JSON list.
        const at = stdout.search(/^\[/m);
        try {
          resolve(at < 0 ? [] : (JSON.parse(stdout.slice(at)) ?? []));
        } catch (e) {
          reject(e);
        }
      });
  });
}

/**
 * The Kaiak view: a Konveyor analysis's incidents grouped by file, "Fix"
 * per file (kaiak/fix/generate on kast's LSP connection), progress from
 * kaiak/stream/*, and each proposal shown as a diff to apply or reject
 * (kaiak/interaction/respond).
 */
export class KaiakView implements vscode.TreeDataProvider<Node>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private byFile = new Map<string, Incident[]>();
  private readonly state = new Map<string, string>(); // file → what its fix is doing
  private readonly requests = new Map<string, string>(); // request id → file
  private readonly proposals = new Map<string, { path: string; after: string }>();
  private sessionId?: string;
  private subs: vscode.Disposable[] = [];
  workspace = '';
  /** Every proposal decision, for the tests and the log. */
  readonly decisions: Array<{ proposal: string; approved: boolean }> = [];

  constructor(private readonly rpc: () => Rpc | undefined, private readonly kast: () => string | undefined, private readonly log: vscode.OutputChannel) {
    this.subs.push(vscode.workspace.registerTextDocumentContentProvider(proposalScheme, this));
  }

  /** Listens to the Kaiak stream on a (new) connection. */
  attach(rpc: Rpc): void {
    this.subs.push(
      rpc.onNotification('kaiak/stream/progress', (p) => this.progress(p)),
      rpc.onNotification('kaiak/stream/file_modification', (p) => this.proposals.set(p.proposal_id,
        { path: p.content?.file_path, after: p.content?.proposed_content ?? '' })),
      rpc.onNotification('kaiak/stream/user_interaction', (p) => void this.interact(p).catch((e) => this.log.appendLine(`kaiak: ${e.message}`))),
      rpc.onNotification('kaiak/stream/error', (p) => this.log.appendLine(`kaiak: ${p.content?.message ?? JSON.stringify(p.content)}`)),
      rpc.onNotification('kaiak/stream/system', (p) => {
        if (p.content?.event === 'request_completed') {
          this.mark(p.request_id, p.content.status === 'success' ? 'fixed' : String(p.content.status));
        }
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposals.get(uri.query)?.after ?? '';
  }

  get files(): string[] {
    return [...this.byFile.keys()];
  }

  status(file: string): string | undefined {
    return this.state.get(file);
  }

  private last?: { analysis: string; workspace: string };

  /** Reads the last analysis again (the view's refresh button). */
  async reload(): Promise<number> {
    return this.last ? this.open(this.last.analysis, this.last.workspace) : 0;
  }

  /** Loads an analysis output (YAML or JSON) for the workspace. */
  async open(analysis: string, workspace: string): Promise<number> {
    this.last = { analysis, workspace };
    const kast = this.kast();
    if (!kast) {
      throw new Error('kast was not found; set kast.server.path');
    }
    const incidents = await convertAnalysis(kast, analysis, workspace);
    this.workspace = workspace;
    this.byFile = new Map();
    for (const i of incidents) {
      this.byFile.set(i.file_path, [...(this.byFile.get(i.file_path) ?? []), i]);
    }
    this.state.clear();
    this.changed.fire(undefined);
    return incidents.length;
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      return [...this.byFile].map(([file, incidents]) => ({ kind: 'file', file, incidents }));
    }
    return node.kind === 'file' ? node.incidents.map((incident) => ({ kind: 'incident', incident })) : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'file') {
      const item = new vscode.TreeItem(node.file, vscode.TreeItemCollapsibleState.Expanded);
      item.contextValue = 'kaiakFile';
      item.description = this.state.get(node.file) ?? `${node.incidents.length} incident(s)`;
      item.resourceUri = vscode.Uri.file(path.join(this.workspace, node.file));
      return item;
    }
    const i = node.incident;
    const item = new vscode.TreeItem(`${i.line_number ? `${i.line_number}: ` : ''}${(i.message ?? i.description ?? i.rule_id).split('\n')[0]}`);
    item.tooltip = `${i.rule_id} (${i.category ?? i.severity ?? ''})\n${i.message ?? ''}`;
    const uri = vscode.Uri.file(path.join(this.workspace, i.file_path));
    const line = Math.max(0, (i.line_number ?? 1) - 1);
    item.command = { command: 'vscode.open', title: 'Open', arguments: [uri, { selection: new vscode.Range(line, 0, line, 0) }] };
    return item;
  }

  /** Fix: asks kast's Kaiak family to fix the file's incidents. */
  async fix(node?: Node | string): Promise<string | undefined> {
    const file = typeof node === 'string' ? node : node?.kind === 'file' ? node.file : this.files[0];
    const rpc = this.rpc();
    const incidents = file ? this.byFile.get(file) : undefined;
    if (!rpc || !file || !incidents) {
      return undefined;
    }
    if (!this.sessionId) {
      const s = await rpc.sendRequest<{ session_id: string }>('kaiak/session/create', { workspace_path: this.workspace });
      this.sessionId = s.session_id;
    }
    const r = await rpc.sendRequest<{ request_id: string }>('kaiak/fix/generate', { session_id: this.sessionId, incidents });
    this.requests.set(r.request_id, file);
    this.mark(r.request_id, 'fixing…');
    return r.request_id;
  }

  private progress(p: any): void {
    const c = p.content ?? {};
    this.mark(p.request_id, `${c.percentage ?? 0}% ${c.description ?? c.phase ?? ''}`.trim());
  }

  private mark(requestId: string, what: string): void {
    const file = this.requests.get(requestId);
    if (file) {
      this.state.set(file, what);
      this.changed.fire(undefined);
    }
  }

  /** A question from the fix: a proposal to approve (shown as a diff), or a choice, input or confirmation. */
  private async interact(p: any): Promise<void> {
    const c = p.content ?? {};
    let response: unknown;
    if (c.interaction_type === 'approval' && c.proposal_id && this.proposals.has(c.proposal_id)) {
      const prop = this.proposals.get(c.proposal_id)!;
      const left = vscode.Uri.file(path.join(this.workspace, prop.path));
      const right = vscode.Uri.parse(`${proposalScheme}:${left.path}?${c.proposal_id}`);
      await vscode.commands.executeCommand('vscode.diff', left, right, `Kaiak: ${prop.path}`);
      const pick = await vscode.window.showInformationMessage(c.prompt ?? `Apply this change to ${prop.path}?`, 'Apply', 'Reject');
      const approved = pick === 'Apply';
      this.decisions.push({ proposal: c.proposal_id, approved });
      response = { approved };
    } else if (c.interaction_type === 'choice') {
      const choice = await vscode.window.showQuickPick((c.options ?? []).map(String), { placeHolder: c.prompt });
      response = { choice: choice ?? null };
    } else if (c.interaction_type === 'input') {
      response = { input: (await vscode.window.showInputBox({ prompt: c.prompt })) ?? '' };
    } else {
      const pick = await vscode.window.showInformationMessage(c.prompt ?? 'Continue?', 'Yes', 'No');
      response = { approved: pick === 'Yes', confirmed: pick === 'Yes' };
    }
    await this.rpc()?.sendRequest('kaiak/interaction/respond', {
      interaction_id: p.interaction_id, response_type: c.interaction_type ?? 'approval', response_data: response,
    });
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}
