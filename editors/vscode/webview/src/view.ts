// The page's frame (header, sessions, transcript, composer) and the keyed
// redraw: an entry or block is rebuilt only when its revision changed, so
// streaming one more text part leaves the rest of the page (open sections,
// focus, selections) alone.

import {
  button,
  countdownText,
  el,
  renderBlock,
  renderDiff,
  renderErrorEntry,
  renderUser,
  turnFrame,
  updateTurnFoot,
} from './blocks';
import type { ChatState, Entry } from './model';

interface Drawn {
  rev: number;
  el: HTMLElement;
  blocks?: HTMLElement;
  foot?: HTMLElement;
  children?: Map<number, Drawn>;
}

export class ChatView {
  readonly transcript: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sessions: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly status: HTMLElement;
  private readonly chip: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private readonly send: HTMLButtonElement;
  private drawn = new Map<number, Drawn>();

  constructor(root: HTMLElement) {
    const header = el('header', 'toolbar');
    header.append(
      el('span', 'title', 'Kast Chat'),
      button('Sessions', 'list-sessions', {}, 'secondary'),
      button('New', 'new-session', {}, 'secondary'),
    );
    this.sessions = el('section', 'sessions');
    this.sessions.hidden = true;
    this.transcript = el('main', 'transcript');
    this.transcript.setAttribute('role', 'log');
    this.transcript.setAttribute('aria-live', 'polite');
    this.empty = el('div', 'empty', 'Ask about your code. Enter sends, Shift+Enter starts a new line.');
    const composer = el('footer', 'composer');
    this.status = el('div', 'status');
    this.chip = button('', 'toggle-context', {}, 'context-chip');
    this.input = el('textarea', 'input');
    this.input.rows = 3;
    this.input.placeholder = 'Ask Kast…';
    this.input.setAttribute('aria-label', 'Message');
    const actions = el('div', 'composer-actions');
    this.stop = button('Stop', 'stop', {}, 'danger');
    this.send = button('Send', 'send');
    actions.append(this.chip, el('span', 'spacer'), this.stop, this.send);
    composer.append(this.status, this.input, actions);
    root.append(header, this.sessions, this.transcript, composer);
  }

  /** render brings the page up to date with the state. */
  render(s: ChatState, now: number): void {
    const stick = this.atBottom();
    this.renderEntries(s.entries, now);
    this.renderSessions(s);
    this.status.textContent = s.status;
    this.status.hidden = s.status === '';
    this.stop.hidden = !s.busy;
    this.send.disabled = this.input.value.trim() === '';
    const c = s.context;
    this.chip.hidden = !c?.file;
    if (c?.file) {
      const name = c.file.split(/[\\/]/).pop() ?? c.file;
      const lines = c.selection ? ` · lines ${c.selection.startLine + 1}–${c.selection.endLine + 1}` : '';
      this.chip.textContent = `${s.withContext ? '' : 'without '}${name}${lines}${c.language ? ` · ${c.language}` : ''}`;
      this.chip.title = s.withContext ? `${c.file} is attached to the next message; click to leave it out` : `Click to attach ${c.file}`;
      this.chip.setAttribute('aria-pressed', String(s.withContext));
    }
    if (stick) this.transcript.scrollTop = this.transcript.scrollHeight;
  }

  /** tick moves the approval countdowns without a redraw. */
  tick(now: number): void {
    for (const node of Array.from(this.transcript.querySelectorAll<HTMLElement>('[data-deadline]'))) {
      const left = Number(node.dataset.deadline) - now;
      if (node instanceof HTMLProgressElement) node.value = Math.max(0, left);
      else node.textContent = countdownText(left);
    }
  }

  private atBottom(): boolean {
    const t = this.transcript;
    return t.scrollHeight - t.scrollTop - t.clientHeight < 48;
  }

  private renderEntries(entries: Entry[], now: number): void {
    const next = new Map<number, Drawn>();
    const nodes: HTMLElement[] = [];
    for (const e of entries) {
      let d = this.drawn.get(e.key);
      if (e.kind === 'turn') {
        if (!d || !d.blocks) {
          const f = turnFrame();
          d = { rev: -1, el: f.box, blocks: f.blocks, foot: f.foot, children: new Map() };
        }
        if (d.rev !== e.rev) {
          d.children = this.renderBlocks(d, e, now);
          updateTurnFoot(d.el, d.foot!, e);
          d.rev = e.rev;
        }
      } else if (!d || d.rev !== e.rev) {
        d = { rev: e.rev, el: this.renderEntry(e) };
      }
      next.set(e.key, d);
      nodes.push(d.el);
    }
    this.drawn = next;
    if (nodes.length === 0) nodes.push(this.empty);
    syncChildren(this.transcript, nodes);
  }

  private renderBlocks(d: Drawn, e: Extract<Entry, { kind: 'turn' }>, now: number): Map<number, Drawn> {
    const old = d.children ?? new Map<number, Drawn>();
    const next = new Map<number, Drawn>();
    const nodes: HTMLElement[] = [];
    for (const b of e.blocks) {
      let c = old.get(b.key);
      if (!c || c.rev !== b.rev) c = { rev: b.rev, el: renderBlock(b, now) };
      next.set(b.key, c);
      nodes.push(c.el);
    }
    syncChildren(d.blocks!, nodes);
    return next;
  }

  private renderEntry(e: Exclude<Entry, { kind: 'turn' }>): HTMLElement {
    switch (e.kind) {
      case 'user':
        return renderUser(e);
      case 'diff':
        return renderDiff(e);
      case 'error': {
        const box = el('div', 'entry');
        box.append(renderErrorEntry(e));
        return box;
      }
    }
  }

  private renderSessions(s: ChatState): void {
    this.sessions.hidden = !s.sessionsOpen;
    if (!s.sessionsOpen) return;
    const list = el('div', 'session-list');
    const head = el('div', 'sessions-head');
    head.append(el('span', 'title', 'Sessions'), button('Close', 'close-sessions', {}, 'secondary'));
    if (!s.sessions) list.append(el('div', 'label', 'Loading…'));
    else if (s.sessions.length === 0) list.append(el('div', 'label', 'No earlier sessions.'));
    for (const sess of s.sessions ?? []) {
      const item = button('', 'resume', { sessionId: sess.id }, 'session');
      if (sess.id === s.sessionId) item.setAttribute('aria-current', 'true');
      item.append(el('span', 'session-title', sess.title || sess.id), el('span', 'session-time', when(sess.updatedAt)));
      list.append(item);
    }
    this.sessions.replaceChildren(head, list);
  }
}

/** syncChildren makes parent's children exactly nodes, moving only what moved. */
function syncChildren(parent: HTMLElement, nodes: HTMLElement[]): void {
  nodes.forEach((node, i) => {
    if (parent.children[i] !== node) parent.insertBefore(node, parent.children[i] ?? null);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild!.remove();
}

function when(t: string | number): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t ?? '') : d.toLocaleString();
}
