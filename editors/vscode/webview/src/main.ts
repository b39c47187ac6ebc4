// The chat page's entry point: restores the saved transcript, folds the
// extension's messages into it, and turns clicks and keys into the page's
// messages. The extension is the only party that talks to kast.

import { codeOf } from './markdown';
import {
  addDiff,
  applyEvent,
  decideApproval,
  expireApprovals,
  findBlock,
  loadHistory,
  resetTranscript,
  resolveDiff,
  restore,
  userSent,
  type ChatState,
} from './model';
import type { PageMessage, SessionSummary, VsCodeApi } from './protocol';
import { ChatView } from './view';

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const state: ChatState = restore(api.getState());
const root = document.getElementById('app') ?? document.body;
const view = new ChatView(root);
view.input.value = state.draft;

const post = (m: PageMessage): void => api.postMessage(m);

function update(): void {
  api.setState(state);
  view.render(state, Date.now());
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

function onHostMessage(m: Record<string, unknown>): void {
  switch (m.type) {
    case 'event':
      if (isStr(m.name)) applyEvent(state, m.name, m.params, Date.now());
      break;
    case 'diff':
      if (isStr(m.id) && isStr(m.path) && isStr(m.before) && isStr(m.after)) {
        addDiff(state, { id: m.id, path: m.path, before: m.before, after: m.after, title: isStr(m.title) ? m.title : undefined });
      }
      break;
    case 'diffResolved':
      if (isStr(m.id)) resolveDiff(state, m.id, m.accepted === true);
      break;
    case 'sessions':
      state.sessions = Array.isArray(m.sessions)
        ? m.sessions.filter((x): x is SessionSummary => isObj(x) && isStr(x.id))
        : [];
      state.sessionsOpen = true;
      break;
    case 'history':
      loadHistory(state, isStr(m.sessionId) ? m.sessionId : '', m.events, Date.now());
      break;
    case 'context': {
      const sel = isObj(m.selection) ? m.selection : undefined;
      state.context = isStr(m.file)
        ? {
            file: m.file,
            language: isStr(m.language) ? m.language : undefined,
            selection:
              sel && typeof sel.startLine === 'number' && typeof sel.endLine === 'number'
                ? { startLine: sel.startLine, endLine: sel.endLine }
                : undefined,
          }
        : undefined;
      break;
    }
    case 'userMessage':
      if (isStr(m.text)) userSent(state, m.text, contextLabel());
      break;
    case 'reset':
      resetTranscript(state);
      break;
    default:
      return;
  }
  update();
}

window.addEventListener('message', (ev: MessageEvent) => {
  if (!isObj(ev.data)) return;
  try {
    onHostMessage(ev.data);
  } catch (err) {
    // A malformed message must not take the page down with it.
    console.error('kast chat: message not shown', err);
  }
});

function contextLabel(): string | undefined {
  const c = state.context;
  if (!state.withContext || !c?.file) return undefined;
  const name = c.file.split(/[\\/]/).pop() ?? c.file;
  return c.selection ? `${name}:${c.selection.startLine + 1}-${c.selection.endLine + 1}` : name;
}

function send(): void {
  const text = view.input.value.trim();
  if (text === '') return;
  const attached = contextLabel();
  userSent(state, text, attached);
  post({ type: 'send', text, withContext: attached !== undefined });
  view.input.value = '';
  state.draft = '';
  update();
}

function flash(b: HTMLElement, label: string): void {
  const was = b.textContent;
  b.textContent = label;
  setTimeout(() => (b.textContent = was), 1200);
}

document.addEventListener('click', (ev) => {
  const target = (ev.target as Element | null)?.closest<HTMLElement>('[data-action]');
  if (!target || (target as HTMLButtonElement).disabled) return;
  const d = target.dataset;
  switch (d.action) {
    case 'send':
      return send();
    case 'stop':
      post({ type: 'stop' });
      state.status = 'Stopping…';
      break;
    case 'retry':
      post({ type: 'retry' });
      state.busy = true;
      break;
    case 'copy':
      post({ type: 'copy', text: codeOf(target) });
      return flash(target, 'Copied');
    case 'insert':
      post({ type: 'insert', text: codeOf(target) });
      return flash(target, 'Inserted');
    case 'approve':
    case 'approve-always':
    case 'reject': {
      const requestId = d.requestId ?? '';
      const approved = d.action !== 'reject';
      const always = d.action === 'approve-always';
      post(always ? { type: 'approval', requestId, approved, always } : { type: 'approval', requestId, approved });
      decideApproval(state, requestId, always ? 'always' : approved ? 'approved' : 'rejected');
      break;
    }
    case 'accept-diff':
    case 'reject-diff': {
      const id = d.diffId ?? '';
      const accepted = d.action === 'accept-diff';
      post({ type: 'diffDecision', id, accepted });
      resolveDiff(state, id, accepted);
      break;
    }
    case 'list-sessions':
      state.sessions = undefined;
      state.sessionsOpen = true;
      post({ type: 'listSessions' });
      break;
    case 'close-sessions':
      state.sessionsOpen = false;
      break;
    case 'resume':
      if (d.sessionId) post({ type: 'resume', sessionId: d.sessionId });
      state.sessionsOpen = false;
      break;
    case 'new-session':
      post({ type: 'newSession' });
      resetTranscript(state);
      break;
    case 'toggle-context':
      state.withContext = !state.withContext;
      break;
    default:
      return;
  }
  update();
});

view.input.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    send();
  }
});

view.input.addEventListener('input', () => {
  state.draft = view.input.value;
  update();
});

// Opening a thinking or tool section is remembered across reloads; toggle
// does not bubble, so listen while it is captured.
document.addEventListener(
  'toggle',
  (ev) => {
    const details = ev.target as HTMLDetailsElement;
    const k = Number(details.dataset?.blockKey);
    const found = Number.isFinite(k) ? findBlock(state, k) : undefined;
    if (found && (found.block.kind === 'think' || found.block.kind === 'tool')) {
      found.block.open = details.open;
      api.setState(state);
    }
  },
  true,
);

setInterval(() => {
  const now = Date.now();
  if (expireApprovals(state, now)) update();
  else view.tick(now);
}, 250);

update();
post({ type: 'ready' });
