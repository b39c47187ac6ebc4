// The messages between the chat page and the extension host: the fixed
// contract both sides implement. The page trusts nothing it is sent:
// every field is checked where it is read (see model.ts).

/** The part of VS Code's webview API the page uses. */
export interface VsCodeApi {
  postMessage(message: PageMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** Kimi IDE wire events, as kast sends them on the LSP connection. */
export type WireEventName =
  | 'TurnBegin'
  | 'StepBegin'
  | 'ContentPart'
  | 'ToolCall'
  | 'ToolResult'
  | 'StepEnd'
  | 'TurnEnd'
  | 'ApprovalRequest'
  | 'StatusUpdate'
  | 'Error';

export interface WireEvent {
  name: string;
  params: unknown;
}

export interface SessionSummary {
  id: string;
  title: string;
  updatedAt: string | number;
}

export interface EditorContext {
  file?: string;
  selection?: { startLine: number; endLine: number };
  language?: string;
}

/** Extension → page. */
export type HostMessage =
  | { type: 'event'; name: string; params: unknown }
  | { type: 'diff'; id: string; path: string; before: string; after: string; title?: string }
  | { type: 'diffResolved'; id: string; accepted: boolean }
  | { type: 'sessions'; sessions: SessionSummary[] }
  | { type: 'history'; sessionId: string; events: WireEvent[] }
  | ({ type: 'context' } & EditorContext)
  | { type: 'userMessage'; text: string }
  | { type: 'reset' };

/** Page → extension. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string; withContext: boolean }
  | { type: 'stop' }
  | { type: 'retry' }
  | { type: 'approval'; requestId: string; approved: boolean; always?: boolean }
  | { type: 'diffDecision'; id: string; accepted: boolean }
  | { type: 'copy'; text: string }
  | { type: 'insert'; text: string }
  | { type: 'listSessions' }
  | { type: 'resume'; sessionId: string }
  | { type: 'newSession' };
