import * as vscode from 'vscode';

/** The prompts of the selection commands (kimi.explainCode …). */
export const selectionPrompts: Record<string, { title: string; prompt: string; kind: vscode.CodeActionKind }> = {
  explainCode: { title: 'Explain Code', prompt: 'Explain the selected code.', kind: vscode.CodeActionKind.Empty },
  fixCode: { title: 'Fix Code', prompt: 'Find and fix the problems in the selected code.', kind: vscode.CodeActionKind.QuickFix },
  optimizeCode: { title: 'Optimize Code', prompt: 'Optimize the selected code; keep its behaviour.', kind: vscode.CodeActionKind.RefactorRewrite },
  generateTests: { title: 'Generate Tests', prompt: 'Write unit tests for the selected code.', kind: vscode.CodeActionKind.Empty },
  addDocs: { title: 'Add Documentation', prompt: 'Write documentation comments for the selected code.', kind: vscode.CodeActionKind.RefactorRewrite },
  refactorCode: { title: 'Refactor Code', prompt: 'Refactor the selected code for clarity; keep its behaviour.', kind: vscode.CodeActionKind.Refactor },
};

/** Every command's id without its namespace; each is registered as kimi.<id> and kast.<id>. */
export const kimiCommands = ['inlineEdit', 'acceptEdit', 'rejectEdit', 'showDiff', ...Object.keys(selectionPrompts), 'quickChat',
  'chatWithContext', 'configureApiKey', 'validateApiKey', 'openSettings'];

/** kast's own commands. */
export const kastCommands = ['restartServer', 'showStatus', 'showOutput', 'openChat', 'kaiak.openAnalysis', 'kaiak.fix', 'kaiak.refresh'];

/** Registers each handler under kimi.<id> and its kast.<id> alias. */
export function registerAliased(handlers: Record<string, (...args: any[]) => unknown>): vscode.Disposable[] {
  return Object.entries(handlers).flatMap(([id, fn]) => [
    vscode.commands.registerCommand(`kimi.${id}`, fn),
    vscode.commands.registerCommand(`kast.${id}`, fn),
  ]);
}

/** The selection commands as code actions, offered when there is a selection. */
export class SelectionActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix, vscode.CodeActionKind.Refactor, vscode.CodeActionKind.RefactorRewrite, vscode.CodeActionKind.Empty];

  provideCodeActions(_doc: vscode.TextDocument, range: vscode.Range | vscode.Selection): vscode.CodeAction[] {
    if (range.isEmpty) {
      return [];
    }
    const actions = Object.entries(selectionPrompts).map(([id, p]) => {
      const a = new vscode.CodeAction(`Kimi: ${p.title}`, p.kind);
      a.command = { command: `kimi.${id}`, title: p.title };
      return a;
    });
    const edit = new vscode.CodeAction('Kimi: Edit Selection…', vscode.CodeActionKind.RefactorRewrite);
    edit.command = { command: 'kimi.inlineEdit', title: 'Edit Selection' };
    return [...actions, edit];
  }
}
