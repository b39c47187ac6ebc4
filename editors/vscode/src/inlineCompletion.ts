import * as vscode from 'vscode';
import { ranged, setting } from './settings';
import type { Rpc } from './wire';

const contextChars = 4000; // text sent on each side of the cursor

/**
 * Ghost text from the agent's model through kast (the inlineCompletion
 * request): debounced by kimi.lsp.completionDebounceMs, cancelled when the
 * user types on, cached for kimi.lsp.cacheTimeout seconds, and off unless
 * kimi.enableInlineCompletions is set and kast has a provider.
 */
export class InlineCompletions implements vscode.InlineCompletionItemProvider {
  private readonly cache = new Map<string, { at: number; items: string[] }>();
  /** Whether kast has a model provider; settled once the client is up. */
  providerReady = false;

  constructor(private readonly rpc: () => Rpc | undefined, private readonly sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))) {}

  async provideInlineCompletionItems(doc: vscode.TextDocument, pos: vscode.Position, _ctx: vscode.InlineCompletionContext,
    token: vscode.CancellationToken): Promise<vscode.InlineCompletionItem[]> {
    const rpc = this.rpc();
    if (!rpc || !this.providerReady || !setting<boolean>('enableInlineCompletions', true)) {
      return [];
    }
    const offset = doc.offsetAt(pos);
    const text = doc.getText();
    const prefix = text.slice(Math.max(0, offset - contextChars), offset);
    const suffix = text.slice(offset, offset + contextChars);
    const key = `${doc.uri.toString()}\n${prefix}\n${suffix}`;
    const ttl = ranged('lsp.cacheTimeout', 300, 60, 600) * 1000;
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < ttl) {
      return this.items(hit.items, pos);
    }
    await this.sleep(ranged('lsp.completionDebounceMs', 300, 100, 2000));
    if (token.isCancellationRequested) {
      return [];
    }
    const max = ranged('lsp.maxCompletions', 5, 1, 10);
    try {
      // The client's token cancels the request on the wire ($/cancelRequest) when the user types on.
      const res = await rpc.sendRequest<{ items: Array<{ text: string }> }>('inlineCompletion', {
        path: doc.uri.fsPath, language: doc.languageId, prefix, suffix, max,
      }, token);
      const items = (res?.items ?? []).map((i) => i.text).filter((t) => t.trim() !== '').slice(0, max);
      this.cache.set(key, { at: Date.now(), items });
      if (this.cache.size > 200) {
        this.cache.delete(this.cache.keys().next().value as string);
      }
      return this.items(items, pos);
    } catch {
      return [];
    }
  }

  private items(texts: string[], pos: vscode.Position): vscode.InlineCompletionItem[] {
    return texts.map((t) => new vscode.InlineCompletionItem(t, new vscode.Range(pos, pos)));
  }
}
