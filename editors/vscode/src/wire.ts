import * as vscode from 'vscode';

/** The Kimi IDE wire's notifications, as kast sends them on the LSP connection. */
export const wireEvents = ['TurnBegin', 'StepBegin', 'ContentPart', 'ToolCall', 'ToolResult', 'StepEnd', 'TurnEnd',
  'ApprovalRequest', 'StatusUpdate', 'Error'] as const;
export type WireEventName = (typeof wireEvents)[number];

export interface WireEvent {
  name: WireEventName;
  params: any;
}

/** The editor state sent with a message (specs/kimi-ide-api.md, MessageContext). */
export interface MessageContext {
  current_file?: string;
  selected_text?: string;
  selection_range?: { start_line: number; start_column: number; end_line: number; end_column: number };
  open_files?: string[];
  workspace_root?: string;
}

/** The part of the LanguageClient the wire needs; a plain JSON-RPC connection fits too. */
export interface Rpc {
  sendRequest<R>(method: string, params?: unknown, token?: vscode.CancellationToken): Promise<R>;
  onNotification(method: string, handler: (params: any) => void): vscode.Disposable;
}

/**
 * The Kimi IDE wire on kast's LSP connection: requests out, every event to
 * the subscribers, and the id of the running turn (for interruptTurn).
 */
export class Wire implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<WireEvent>();
  readonly onEvent = this.emitter.event;
  private subs: vscode.Disposable[] = [];
  turnId: string | undefined;

  constructor(private rpc: Rpc) {
    this.attach(rpc);
  }

  /** Listens on a (new) connection; a restarted client keeps its handlers, a new one needs this. */
  attach(rpc: Rpc): void {
    this.subs.forEach((d) => d.dispose());
    this.rpc = rpc;
    this.subs = wireEvents.map((name) => rpc.onNotification(name, (params) => {
      if (name === 'TurnBegin') {
        this.turnId = params?.turn_id;
      } else if (name === 'TurnEnd' && params?.turn_id === this.turnId) {
        this.turnId = undefined;
      }
      this.emitter.fire({ name, params });
    }));
  }

  sendMessage(content: string, context: MessageContext = {}): Promise<null> {
    return this.rpc.sendRequest<null>('sendMessage', { content, context });
  }

  /** Interrupts the running turn; false when none runs. */
  async interrupt(): Promise<boolean> {
    if (!this.turnId) {
      return false;
    }
    await this.rpc.sendRequest('interruptTurn', { turn_id: this.turnId });
    return true;
  }

  submitApproval(requestId: string, approved: boolean, reason?: string): Promise<null> {
    return this.rpc.sendRequest<null>('submitApproval', { request_id: requestId, approved, ...(reason ? { reason } : {}) });
  }

  request<R>(method: string, params?: unknown): Promise<R> {
    return this.rpc.sendRequest<R>(method, params);
  }

  /**
   * Sends content and resolves with the turn's text once it ends. Used by
   * the inline edit, which needs the whole answer, not the stream.
   */
  async ask(content: string, context: MessageContext, token?: vscode.CancellationToken): Promise<string> {
    let text = '';
    let turn: string | undefined;
    const done = new Promise<string>((resolve, reject) => {
      const sub = this.onEvent(({ name, params }) => {
        if (name === 'TurnBegin' && turn === undefined && params?.user_input === content) {
          turn = params.turn_id;
        } else if (name === 'ContentPart' && turn !== undefined && params?.type === 'text') {
          text += params.text ?? '';
        } else if (name === 'TurnEnd' && params?.turn_id === turn) {
          sub.dispose();
          if (params.finish_reason === 'completed') {
            resolve(text);
          } else {
            reject(new Error(params.error ?? `the turn ended: ${params.finish_reason}`));
          }
        }
      });
      token?.onCancellationRequested(() => {
        sub.dispose();
        void this.interrupt().catch(() => undefined);
        reject(new vscode.CancellationError());
      });
    });
    await this.sendMessage(content, context);
    return done;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.emitter.dispose();
  }
}

/** The active editor's context: file, selection and its range, open files, workspace root. */
export function editorContext(withSelection = true): MessageContext {
  const ctx: MessageContext = {};
  const ed = vscode.window.activeTextEditor;
  const root = ed ? vscode.workspace.getWorkspaceFolder?.(ed.document.uri) ?? vscode.workspace.workspaceFolders?.[0]
    : vscode.workspace.workspaceFolders?.[0];
  if (root) {
    ctx.workspace_root = root.uri.fsPath;
  }
  if (ed) {
    if (ed.document.uri.scheme === 'file') {
      ctx.current_file = ed.document.uri.fsPath;
    }
    const sel = ed.selection;
    if (withSelection && sel && !sel.isEmpty) {
      ctx.selected_text = ed.document.getText(sel);
      ctx.selection_range = { start_line: sel.start.line, start_column: sel.start.character, end_line: sel.end.line, end_column: sel.end.character };
    }
  }
  const open = (vscode.window.visibleTextEditors ?? []).map((e) => e.document.uri).filter((u) => u.scheme === 'file').map((u) => u.fsPath);
  if (open.length > 0) {
    ctx.open_files = [...new Set(open)];
  }
  return ctx;
}
