import * as vscode from 'vscode';
import type { ChatViewProvider } from './chatView';
import { editorContext, Wire } from './wire';

const scheme = 'kast-proposal';

interface PendingEdit {
  id: string;
  uri: vscode.Uri;
  range: vscode.Range;
  before: string;
  after: string;
  version: number;
}

/** The code of the model's answer: its first fenced block, or the whole answer. */
export function codeOf(answer: string): string {
  const m = /```[^\n]*\n([\s\S]*?)\n?```/.exec(answer);
  return m ? m[1] : answer.trim();
}

/**
 * Inline edit of the selection: the model rewrites it as the user asks, the
 * result is shown as a diff (editor and chat page), and acceptEdit or
 * rejectEdit settles it.
 */
export class InlineEdits implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private pending?: PendingEdit;
  private seq = 0;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly reg: vscode.Disposable;

  constructor(private readonly wire: Wire, private readonly chat: ChatViewProvider) {
    this.reg = vscode.workspace.registerTextDocumentContentProvider(scheme, this);
  }

  provideTextDocumentContent(): string {
    return this.pending?.after ?? '';
  }

  get current(): PendingEdit | undefined {
    return this.pending;
  }

  /** kimi.inlineEdit: asks for an instruction unless given one. */
  async start(instruction?: string): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    if (!ed || ed.selection.isEmpty) {
      void vscode.window.showInformationMessage('Select the code to edit first.');
      return;
    }
    instruction ??= await vscode.window.showInputBox({ prompt: 'How should the selection change?', placeHolder: 'e.g. handle the empty list' });
    if (!instruction) {
      return;
    }
    const range = new vscode.Range(ed.selection.start, ed.selection.end);
    const before = ed.document.getText(range);
    const prompt = `Rewrite the selected code: ${instruction}\n` +
      'Answer with only the replacement for the selection in one fenced code block, no explanation, and do not edit files.';
    const answer = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Kimi is editing…', cancellable: true },
      (_p, token) => this.wire.ask(prompt, editorContext(), token));
    if (answer === undefined) {
      return;
    }
    await this.propose(ed.document.uri, range, before, codeOf(answer), ed.document.version);
  }

  /** Shows a replacement of range as a pending edit (diff in the editor and in the chat). */
  async propose(uri: vscode.Uri, range: vscode.Range, before: string, after: string, version: number): Promise<void> {
    if (this.pending) {
      this.chat.resolved(this.pending.id, false);
    }
    this.pending = { id: `edit-${++this.seq}`, uri, range, before, after, version };
    await vscode.commands.executeCommand('setContext', 'kast.editPending', true);
    this.changed.fire(this.proposalUri());
    this.chat.propose({ id: this.pending.id, path: uri.fsPath, before, after, title: 'Inline edit',
      decide: (accepted) => (accepted ? this.accept() : this.reject()).then(() => undefined) });
    await this.showDiff();
  }

  private proposalUri(): vscode.Uri {
    return vscode.Uri.parse(`${scheme}:${this.pending?.uri.path ?? '/proposal'}?${this.pending?.id ?? ''}`);
  }

  /** kimi.showDiff: the pending edit beside the current selection text. */
  async showDiff(): Promise<void> {
    if (!this.pending) {
      void vscode.window.showInformationMessage('No edit is pending.');
      return;
    }
    await vscode.commands.executeCommand('vscode.diff', this.pending.uri, this.proposalUri(), 'Kimi: proposed edit');
  }

  /** kimi.acceptEdit: replaces the range, if the document still has the text the edit was made from. */
  async accept(): Promise<boolean> {
    const p = this.pending;
    if (!p) {
      return false;
    }
    const doc = await vscode.workspace.openTextDocument(p.uri);
    if (doc.getText(p.range) !== p.before) {
      void vscode.window.showWarningMessage('The selection changed since the edit was proposed; it was not applied.');
      await this.settle(false);
      return false;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(p.uri, p.range, p.after);
    const ok = await vscode.workspace.applyEdit(edit);
    await this.settle(ok);
    return ok;
  }

  /** kimi.rejectEdit. */
  async reject(): Promise<boolean> {
    if (!this.pending) {
      return false;
    }
    await this.settle(false);
    return true;
  }

  private async settle(accepted: boolean): Promise<void> {
    const p = this.pending;
    this.pending = undefined;
    await vscode.commands.executeCommand('setContext', 'kast.editPending', false);
    if (p) {
      this.chat.resolved(p.id, accepted);
    }
  }

  dispose(): void {
    this.reg.dispose();
    this.changed.dispose();
  }
}
