import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { historyEvents, TranscriptMessage } from './history';
import { editorContext, MessageContext, Wire } from './wire';

/** Builds the page's HTML (webview/src/html.ts, chatHtml). */
export type ChatHtml = (p: { cspSource: string; nonce: string; scriptUri: string; styleUri: string }) => string;

/**
 * The page's HTML builder (webview/src/html.ts), loaded when the view first
 * opens: esbuild bundles it into the extension, and tests pass their own.
 */
export function loadChatHtml(): ChatHtml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../webview/src/html').chatHtml as ChatHtml;
}

/** A proposed file edit shown in the page with Accept / Reject. */
export interface Proposal {
  id: string;
  path: string;
  before: string;
  after: string;
  title?: string;
  /** Settles the proposal; the page or the editor decided. */
  decide(accepted: boolean): Promise<void> | void;
}

type PageMessage =
  | { type: 'ready' } | { type: 'send'; text: string; withContext: boolean } | { type: 'stop' } | { type: 'retry' }
  | { type: 'approval'; requestId: string; approved: boolean; always?: boolean } | { type: 'diffDecision'; id: string; accepted: boolean }
  | { type: 'copy'; text: string } | { type: 'insert'; text: string } | { type: 'listSessions' } | { type: 'resume'; sessionId: string }
  | { type: 'newSession' };

/**
 * The chat view's host side: the page's messages become Kimi wire requests
 * on kast's LSP connection (and Kward's sessions methods); every wire event
 * goes to the page as it came.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'kast.chat';
  private view?: vscode.WebviewView;
  private readonly subs: vscode.Disposable[] = [];
  private readonly proposals = new Map<string, Proposal>();
  private lastSend?: { text: string; withContext: boolean };
  private readonly alwaysApprove = new Set<string>();
  private pending: unknown[] = [];

  constructor(private readonly extensionUri: vscode.Uri, private readonly wire: Wire, private readonly loadHtml: () => ChatHtml,
    private readonly log: vscode.OutputChannel) {
    this.subs.push(wire.onEvent((ev) => {
      this.post({ type: 'event', name: ev.name, params: ev.params });
      if (ev.name === 'ApprovalRequest') {
        this.onApprovalRequest(ev.params);
      }
    }));
    this.subs.push(vscode.window.onDidChangeActiveTextEditor(() => this.postContext()));
    this.subs.push(vscode.window.onDidChangeTextEditorSelection(() => this.postContext()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    const nonce = randomBytes(16).toString('hex');
    view.webview.html = this.loadHtml()({
      cspSource: view.webview.cspSource,
      nonce,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'chat.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
    });
    this.subs.push(view.webview.onDidReceiveMessage((m: PageMessage) => this.receive(m).catch((e) => this.fail(e))));
    this.subs.push(view.onDidDispose(() => {
      this.view = undefined;
    }));
  }

  /** Reveals the view (the command that opens the chat). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand('kast.chat.focus').then(undefined, () => undefined);
  }

  /** Sends a message the way the page's Send does; commands use it and tell the page what was asked. */
  async send(text: string, context: MessageContext | undefined, fromCommand = false): Promise<void> {
    this.lastSend = { text, withContext: context !== undefined };
    if (fromCommand) {
      this.post({ type: 'userMessage', text });
    }
    await this.wire.sendMessage(text, context ?? {});
  }

  /** Shows a proposed edit in the page; decide runs when the user accepts or rejects it. */
  propose(p: Proposal): void {
    this.proposals.set(p.id, p);
    this.post({ type: 'diff', id: p.id, path: p.path, before: p.before, after: p.after, ...(p.title ? { title: p.title } : {}) });
  }

  /** Tells the page a proposal was settled elsewhere (e.g. from the editor). */
  resolved(id: string, accepted: boolean): void {
    if (this.proposals.delete(id)) {
      this.post({ type: 'diffResolved', id, accepted });
    }
  }

  private async receive(m: PageMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        // The page (re)loaded: what was posted while it was away, then the context chip.
        this.pending.splice(0).forEach((msg) => void this.view?.webview.postMessage(msg));
        this.postContext();
        return;
      case 'send':
        if (typeof m.text === 'string' && m.text.trim() !== '') {
          await this.send(m.text, m.withContext ? editorContext() : undefined);
        }
        return;
      case 'retry':
        if (this.lastSend) {
          await this.send(this.lastSend.text, this.lastSend.withContext ? editorContext() : undefined);
        }
        return;
      case 'stop':
        await this.wire.interrupt();
        return;
      case 'approval':
        if (m.always && this.approvalTypes.has(m.requestId)) {
          this.alwaysApprove.add(this.approvalTypes.get(m.requestId)!);
        }
        await this.answer(m.requestId, !!m.approved);
        return;
      case 'diffDecision': {
        const p = this.proposals.get(m.id);
        if (p) {
          this.proposals.delete(m.id);
          await p.decide(!!m.accepted);
          this.post({ type: 'diffResolved', id: m.id, accepted: !!m.accepted });
        }
        return;
      }
      case 'copy':
        await vscode.env.clipboard.writeText(String(m.text ?? ''));
        return;
      case 'insert': {
        const ed = vscode.window.activeTextEditor;
        if (ed) {
          await ed.edit((b) => b.insert(ed.selection.active, String(m.text ?? '')));
        }
        return;
      }
      case 'listSessions':
        await this.listSessions();
        return;
      case 'resume':
        await this.resume(m.sessionId);
        return;
      case 'newSession':
        await this.wire.request('newSession', { ...(editorContext(false).workspace_root ? { workspace_root: editorContext(false).workspace_root } : {}) });
        this.lastSend = undefined;
        this.post({ type: 'reset' });
        return;
    }
  }

  private readonly approvalTypes = new Map<string, string>();

  private onApprovalRequest(p: any): void {
    if (!p?.request_id) {
      return;
    }
    this.approvalTypes.set(p.request_id, p.type);
    if (this.alwaysApprove.has(p.type)) {
      void this.answer(p.request_id, true).catch((e) => this.fail(e));
      return;
    }
    // A file write is also a diff the user can accept or reject.
    const file = p.type === 'file_write' ? p.details?.file_path : undefined;
    if (typeof file === 'string' && typeof p.details?.content_preview === 'string' && !p.details.is_delete) {
      void this.currentText(file).then((before) => this.propose({
        id: `approval:${p.request_id}`, path: file, before, after: p.details.content_preview, title: p.description,
        decide: (accepted) => this.answer(p.request_id, accepted),
      }));
    }
  }

  private async answer(requestId: string, approved: boolean): Promise<void> {
    this.approvalTypes.delete(requestId);
    const asDiff = `approval:${requestId}`;
    if (this.proposals.delete(asDiff)) {
      this.post({ type: 'diffResolved', id: asDiff, accepted: approved });
    }
    await this.wire.submitApproval(requestId, approved);
  }

  private async currentText(file: string): Promise<string> {
    const root = editorContext(false).workspace_root;
    const uri = file.startsWith('/') || !root ? vscode.Uri.file(file) : vscode.Uri.joinPath(vscode.Uri.file(root), file);
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return ''; // a new file
    }
  }

  private async listSessions(): Promise<void> {
    const root = editorContext(false).workspace_root;
    const res = await this.wire.request<{ sessions: Array<{ id: string; name: string | null; firstMessage?: string; modifiedAt?: string }> }>(
      'sessions/list', root ? { workspaceRoot: root } : {});
    const sessions = (res?.sessions ?? []).map((s) => ({ id: s.id, title: s.name ?? s.firstMessage ?? s.id, updatedAt: s.modifiedAt ?? '' }));
    this.post({ type: 'sessions', sessions });
  }

  /** Continues a stored session on the Kimi wire and shows its conversation so far. */
  private async resume(id: string): Promise<void> {
    const root = editorContext(false).workspace_root;
    const opened = await this.wire.request<{ session_id: string }>('newSession', { resume_id: id, ...(root ? { workspace_root: root } : {}) });
    const tr = await this.wire.request<{ messages: TranscriptMessage[] }>('sessions/transcript', { sessionId: opened.session_id });
    this.lastSend = undefined;
    this.post({ type: 'history', sessionId: id, events: historyEvents(tr?.messages ?? []) });
  }

  private postContext(): void {
    const ed = vscode.window.activeTextEditor;
    if (!ed) {
      this.post({ type: 'context' });
      return;
    }
    const sel = ed.selection;
    this.post({
      type: 'context', file: ed.document.uri.fsPath, language: ed.document.languageId,
      ...(sel && !sel.isEmpty ? { selection: { startLine: sel.start.line + 1, endLine: sel.end.line + 1 } } : {}),
    });
  }

  /** Posts to the page; kept for the page's next ready while the view is closed. */
  private post(msg: unknown): void {
    if (this.view) {
      void this.view.webview.postMessage(msg);
    } else if ((msg as { type: string }).type !== 'context') {
      this.pending.push(msg);
      if (this.pending.length > 5000) {
        this.pending.shift();
      }
    }
  }

  private fail(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.log.appendLine(`chat: ${message}`);
    this.post({ type: 'event', name: 'Error', params: { code: (e as { code?: number })?.code ?? -32000, message } });
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}
