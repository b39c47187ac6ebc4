// The chat's state: a transcript of entries that the host's messages update.
// It is plain data (kept with setState and restored on reload) and knows
// nothing of the DOM; view.ts draws it. Every entry and block carries a
// revision the view compares to redraw only what changed.

import type { EditorContext, SessionSummary } from './protocol';

export type ToolStatus = 'running' | 'done' | 'error' | 'interrupted';
export type ApprovalOutcome = 'approved' | 'always' | 'rejected' | 'expired';

export type Block =
  | { kind: 'text'; key: number; rev: number; text: string }
  | { kind: 'think'; key: number; rev: number; text: string; open: boolean }
  | {
      kind: 'tool';
      key: number;
      rev: number;
      id: string;
      name: string;
      args: unknown;
      status: ToolStatus;
      result?: string;
      ms?: number;
      open: boolean;
    }
  | {
      kind: 'approval';
      key: number;
      rev: number;
      requestId: string;
      type: string;
      description: string;
      details: unknown;
      deadline: number; // epoch ms after which kast rejects it
      timeoutMs: number;
      outcome?: ApprovalOutcome;
    }
  | { kind: 'error'; key: number; rev: number; code: number; message: string };

export type TurnState = 'running' | 'completed' | 'interrupted' | 'error';

export type Entry =
  | { kind: 'user'; key: number; rev: number; text: string; pending: boolean; attached?: string }
  | { kind: 'turn'; key: number; rev: number; turnId: string; state: TurnState; blocks: Block[] }
  | {
      kind: 'diff';
      key: number;
      rev: number;
      id: string;
      path: string;
      before: string;
      after: string;
      title?: string;
      decision?: 'accepted' | 'rejected';
    }
  | { kind: 'error'; key: number; rev: number; code: number; message: string };

export interface ChatState {
  version: 1;
  entries: Entry[];
  nextKey: number;
  /** A turn runs, or a message was sent and its turn has not begun. */
  busy: boolean;
  status: string;
  draft: string;
  context?: EditorContext;
  withContext: boolean;
  sessions?: SessionSummary[];
  sessionsOpen: boolean;
  sessionId?: string;
}

export function emptyState(): ChatState {
  return { version: 1, entries: [], nextKey: 1, busy: false, status: '', draft: '', withContext: true, sessionsOpen: false };
}

/** restore accepts a state saved by this page's version, or starts empty. */
export function restore(saved: unknown): ChatState {
  const s = saved as Partial<ChatState> | undefined;
  if (!s || s.version !== 1 || !Array.isArray(s.entries) || typeof s.nextKey !== 'number') {
    return emptyState();
  }
  return { ...emptyState(), ...s } as ChatState;
}

// Readers for untrusted params: a wrong type reads as absent.
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

function key(s: ChatState): number {
  return s.nextKey++;
}

function bump(x: { rev: number }): void {
  x.rev++;
}

function lastTurn(s: ChatState): Extract<Entry, { kind: 'turn' }> | undefined {
  for (let i = s.entries.length - 1; i >= 0; i--) {
    const e = s.entries[i];
    if (e.kind === 'turn') return e;
  }
  return undefined;
}

/** The turn events go to: the one named, else the running one, else a new one. */
function turnFor(s: ChatState, turnId: string): Extract<Entry, { kind: 'turn' }> {
  const last = lastTurn(s);
  if (last && (turnId === '' || last.turnId === turnId || last.turnId === '') && last.state === 'running') {
    if (last.turnId === '') last.turnId = turnId;
    return last;
  }
  if (turnId !== '') {
    const named = s.entries.find((e) => e.kind === 'turn' && e.turnId === turnId);
    if (named && named.kind === 'turn') return named;
  }
  const t: Entry = { kind: 'turn', key: key(s), rev: 0, turnId, state: 'running', blocks: [] };
  s.entries.push(t);
  return t;
}

function attachedLabel(context: unknown): string | undefined {
  const c = obj(context);
  const sel = Array.isArray(c.selections) ? obj(c.selections[0]) : {};
  const file = str(sel.file_path) || (Array.isArray(c.files) ? str(c.files[0]) : '');
  if (!file) return undefined;
  const name = file.split(/[\\/]/).pop() ?? file;
  if (typeof sel.start_line === 'number' && typeof sel.end_line === 'number') {
    return `${name}:${sel.start_line + 1}-${sel.end_line + 1}`;
  }
  return name;
}

function appendStream(s: ChatState, kind: 'text' | 'think', text: string): void {
  if (text === '') return;
  const t = turnFor(s, '');
  const last = t.blocks[t.blocks.length - 1];
  if (last && last.kind === kind) {
    last.text += text;
    bump(last);
  } else if (kind === 'text') {
    t.blocks.push({ kind: 'text', key: key(s), rev: 0, text });
  } else {
    t.blocks.push({ kind: 'think', key: key(s), rev: 0, text, open: false });
  }
  bump(t);
}

function toolCall(s: ChatState, id: string, name: string, args: unknown): void {
  const t = turnFor(s, '');
  t.blocks.push({ kind: 'tool', key: key(s), rev: 0, id, name, args, status: 'running', open: false });
  bump(t);
}

function toolResult(s: ChatState, id: string, name: string, content: unknown, isError: boolean, ms?: number): void {
  const t = turnFor(s, '');
  let b = t.blocks.find((x) => x.kind === 'tool' && x.id === id);
  if (!b) {
    b = { kind: 'tool', key: key(s), rev: 0, id, name, args: undefined, status: 'running', open: false };
    t.blocks.push(b);
  }
  if (b.kind !== 'tool') return;
  b.status = isError ? 'error' : 'done';
  b.result = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
  b.ms = ms;
  bump(b);
  bump(t);
}

function settleTurn(t: Extract<Entry, { kind: 'turn' }>, state: TurnState): void {
  t.state = state;
  for (const b of t.blocks) {
    if (b.kind === 'tool' && b.status === 'running') {
      b.status = 'interrupted';
      bump(b);
    } else if (b.kind === 'approval' && !b.outcome) {
      b.outcome = 'expired';
      bump(b);
    }
  }
  bump(t);
}

/** applyEvent folds one Kimi IDE wire event into the transcript. now is Date.now(). */
export function applyEvent(s: ChatState, name: string, params: unknown, now: number, replay = false): void {
  const p = obj(params);
  switch (name) {
    case 'TurnBegin': {
      const turnId = str(p.turn_id);
      const input = str(p.user_input);
      const pending = s.entries.find((e) => e.kind === 'user' && e.pending);
      const attached = attachedLabel(p.context);
      if (pending && pending.kind === 'user') {
        pending.pending = false;
        pending.attached = pending.attached ?? attached;
        bump(pending);
      } else if (input !== '') {
        s.entries.push({ kind: 'user', key: key(s), rev: 0, text: input, pending: false, attached });
      }
      s.entries.push({ kind: 'turn', key: key(s), rev: 0, turnId, state: 'running', blocks: [] });
      s.busy = true;
      return;
    }
    case 'ContentPart': {
      switch (str(p.type)) {
        case 'text':
          return appendStream(s, 'text', str(p.text));
        case 'think':
          return appendStream(s, 'think', str(p.content));
        case 'tool_call': {
          const c = obj(p.tool_call);
          return toolCall(s, str(c.id), str(c.name, 'tool'), c.arguments);
        }
        case 'tool_result':
          return toolResult(s, str(p.tool_call_id), str(p.name), p.content, p.is_error === true);
      }
      return;
    }
    case 'ToolCall':
      return toolCall(s, str(p.id), str(p.name, 'tool'), p.arguments);
    case 'ToolResult':
      return toolResult(s, str(p.tool_call_id), str(p.name), p.content, p.is_error === true,
        typeof p.execution_time_ms === 'number' ? p.execution_time_ms : undefined);
    case 'ApprovalRequest': {
      const t = turnFor(s, str(p.turn_id));
      const timeoutMs = Math.max(0, num(p.timeout_ms, 30000));
      t.blocks.push({
        kind: 'approval', key: key(s), rev: 0, requestId: str(p.request_id), type: str(p.type, 'tool_call'),
        description: str(p.description, 'The agent asks for approval'), details: p.details,
        deadline: now + timeoutMs, timeoutMs, outcome: replay ? 'expired' : undefined,
      });
      bump(t);
      return;
    }
    case 'TurnEnd': {
      const t = turnFor(s, str(p.turn_id));
      const reason = str(p.finish_reason, 'completed');
      const state: TurnState = reason === 'interrupted' ? 'interrupted' : reason === 'error' ? 'error' : 'completed';
      const why = str(p.error, 'The turn failed.');
      // kast sends the failure as an Error event first; show it once.
      if (state === 'error' && !t.blocks.some((b) => b.kind === 'error' && b.message === why)) {
        t.blocks.push({ kind: 'error', key: key(s), rev: 0, code: -32000, message: why });
      }
      settleTurn(t, state);
      s.busy = s.entries.some((e) => e.kind === 'turn' && e.state === 'running');
      if (!s.busy) s.status = '';
      return;
    }
    case 'StatusUpdate':
      s.status = str(p.type) === 'idle' ? '' : str(p.message);
      return;
    case 'Error': {
      const data = obj(p.data);
      const code = num(p.code, -32000);
      const message = str(p.message, 'Unknown error');
      const requestId = str(data.request_id);
      const turnId = str(data.turn_id);
      const turn = turnId !== '' ? s.entries.find((e) => e.kind === 'turn' && e.turnId === turnId) : undefined;
      if (requestId !== '' && turn && turn.kind === 'turn') {
        const a = turn.blocks.find((b) => b.kind === 'approval' && b.requestId === requestId);
        if (a && a.kind === 'approval' && !a.outcome) {
          a.outcome = 'expired';
          bump(a);
        }
      }
      if (turn && turn.kind === 'turn') {
        turn.blocks.push({ kind: 'error', key: key(s), rev: 0, code, message });
        bump(turn);
      } else {
        s.entries.push({ kind: 'error', key: key(s), rev: 0, code, message });
        // An error outside any turn (sendMessage refused, kast gone) ends the wait.
        if (!s.entries.some((e) => e.kind === 'turn' && e.state === 'running')) s.busy = false;
      }
      return;
    }
    // StepBegin / StepEnd only frame the parts above; nothing to draw.
  }
}

/** userSent records a message the user typed (or a command sent) before its turn begins. */
export function userSent(s: ChatState, text: string, attached?: string): void {
  s.entries.push({ kind: 'user', key: key(s), rev: 0, text, pending: true, attached });
  s.busy = true;
}

export function addDiff(s: ChatState, m: { id: string; path: string; before: string; after: string; title?: string }): void {
  const existing = s.entries.find((e) => e.kind === 'diff' && e.id === m.id);
  if (existing && existing.kind === 'diff') {
    Object.assign(existing, { path: m.path, before: m.before, after: m.after, title: m.title, decision: undefined });
    bump(existing);
    return;
  }
  s.entries.push({ kind: 'diff', key: key(s), rev: 0, ...m });
}

export function resolveDiff(s: ChatState, id: string, accepted: boolean): void {
  const d = s.entries.find((e) => e.kind === 'diff' && e.id === id);
  if (d && d.kind === 'diff') {
    d.decision = accepted ? 'accepted' : 'rejected';
    bump(d);
  }
}

export function decideApproval(s: ChatState, requestId: string, outcome: ApprovalOutcome): void {
  for (const e of s.entries) {
    if (e.kind !== 'turn') continue;
    for (const b of e.blocks) {
      if (b.kind === 'approval' && b.requestId === requestId && !b.outcome) {
        b.outcome = outcome;
        bump(b);
        bump(e);
      }
    }
  }
}

/** expireApprovals marks the approvals whose countdown ran out; it reports whether any changed. */
export function expireApprovals(s: ChatState, now: number): boolean {
  let changed = false;
  for (const e of s.entries) {
    if (e.kind !== 'turn') continue;
    for (const b of e.blocks) {
      if (b.kind === 'approval' && !b.outcome && now >= b.deadline) {
        b.outcome = 'expired';
        bump(b);
        bump(e);
        changed = true;
      }
    }
  }
  return changed;
}

/** findBlock returns a block by key, with its turn, for the view's toggles. */
export function findBlock(s: ChatState, blockKey: number): { turn: Entry; block: Block } | undefined {
  for (const e of s.entries) {
    if (e.kind !== 'turn') continue;
    const block = e.blocks.find((b) => b.key === blockKey);
    if (block) return { turn: e, block };
  }
  return undefined;
}

/** history replaces the transcript with a resumed session's events. */
export function loadHistory(s: ChatState, sessionId: string, events: unknown, now: number): void {
  s.entries = [];
  s.busy = false;
  s.status = '';
  s.sessionId = sessionId;
  s.sessionsOpen = false;
  if (!Array.isArray(events)) return;
  for (const ev of events) {
    const e = obj(ev);
    applyEvent(s, str(e.name), e.params, now, true);
  }
  // A replayed turn that never ended is over: nothing will continue it.
  for (const e of s.entries) {
    if (e.kind === 'turn' && e.state === 'running') settleTurn(e, 'interrupted');
    if (e.kind === 'user') e.pending = false;
  }
  s.busy = false;
}

export function resetTranscript(s: ChatState): void {
  s.entries = [];
  s.busy = false;
  s.status = '';
  s.sessionId = undefined;
}

/** lastUserText is what Retry resends, for the page's own label. */
export function lastUserText(s: ChatState): string | undefined {
  for (let i = s.entries.length - 1; i >= 0; i--) {
    const e = s.entries[i];
    if (e.kind === 'user') return e.text;
  }
  return undefined;
}
