// One DOM element per transcript entry or turn block. Everything the host
// or the model sent goes in as text (textContent), except model text, which
// goes through markdown.ts. Buttons carry data-action; main.ts handles the
// clicks for the whole page.

import { diffLines, hunks, stats } from './diff';
import { renderMarkdown } from './markdown';
import type { Block, Entry } from './model';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function button(label: string, action: string, data: Record<string, string> = {}, className = ''): HTMLButtonElement {
  const b = el('button', className, label);
  b.type = 'button';
  b.dataset.action = action;
  for (const [k, v] of Object.entries(data)) b.dataset[k] = v;
  return b;
}

function pre(text: string, className = ''): HTMLPreElement {
  return el('pre', className, text);
}

function json(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

export function renderUser(e: Extract<Entry, { kind: 'user' }>): HTMLElement {
  const box = el('div', 'entry user');
  box.append(el('div', 'who', 'You'), el('div', 'user-text', e.text));
  if (e.attached) box.append(el('div', 'attached', `with ${e.attached}`));
  return box;
}

export function renderErrorEntry(e: { code: number; message: string }): HTMLElement {
  const box = el('div', 'error-box');
  box.setAttribute('role', 'alert');
  box.append(el('span', 'error-text', `Error ${e.code}: ${e.message}`), button('Retry', 'retry', {}, 'secondary'));
  return box;
}

export function turnFrame(): { box: HTMLElement; blocks: HTMLElement; foot: HTMLElement } {
  const box = el('div', 'entry turn');
  const blocks = el('div', 'blocks');
  const foot = el('div', 'turn-foot');
  box.append(el('div', 'who', 'Kast'), blocks, foot);
  return { box, blocks, foot };
}

export function updateTurnFoot(box: HTMLElement, foot: HTMLElement, e: Extract<Entry, { kind: 'turn' }>): void {
  box.dataset.state = e.state;
  foot.textContent =
    e.state === 'running' && e.blocks.length === 0 ? 'Working…' : e.state === 'interrupted' ? 'Stopped.' : '';
}

export function renderBlock(b: Block, now: number): HTMLElement {
  switch (b.kind) {
    case 'text': {
      const box = el('div', 'markdown');
      box.append(renderMarkdown(b.text));
      return box;
    }
    case 'think': {
      const box = el('details', 'think');
      box.open = b.open;
      box.dataset.blockKey = String(b.key);
      box.append(el('summary', '', 'Thinking'), el('div', 'think-text', b.text));
      return box;
    }
    case 'tool':
      return renderTool(b);
    case 'approval':
      return renderApproval(b, now);
    case 'error':
      return renderErrorEntry(b);
  }
}

const toolStatusLabel: Record<string, string> = {
  running: 'running…',
  done: 'done',
  error: 'failed',
  interrupted: 'interrupted',
};

function argsSummary(args: unknown): string {
  if (args === null || typeof args !== 'object') return '';
  const a = args as Record<string, unknown>;
  for (const k of ['path', 'file_path', 'command', 'pattern', 'query', 'url']) {
    if (typeof a[k] === 'string') return a[k] as string;
  }
  return '';
}

function renderTool(b: Extract<Block, { kind: 'tool' }>): HTMLElement {
  const box = el('details', 'tool');
  box.open = b.open;
  box.dataset.blockKey = String(b.key);
  box.dataset.status = b.status;
  const summary = el('summary');
  summary.append(
    el('span', 'tool-status', toolStatusLabel[b.status] ?? b.status),
    el('span', 'tool-name', b.name),
    el('span', 'tool-args', argsSummary(b.args)),
  );
  if (b.ms !== undefined) summary.append(el('span', 'tool-ms', `${b.ms} ms`));
  box.append(summary);
  if (b.args !== undefined) box.append(el('div', 'label', 'Arguments'), pre(json(b.args), 'tool-io'));
  if (b.result !== undefined) box.append(el('div', 'label', 'Result'), pre(b.result, 'tool-io tool-result'));
  return box;
}

const approvalTitle: Record<string, string> = {
  file_write: 'Write a file',
  command_execute: 'Run a command',
  tool_call: 'Call a tool',
  external_request: 'Make a web request',
};

const outcomeText: Record<string, string> = {
  approved: 'Approved',
  always: 'Approved (always for this kind)',
  rejected: 'Rejected',
  expired: 'No answer in time: rejected',
};

function approvalDetails(type: string, details: unknown): HTMLElement | undefined {
  if (details === null || typeof details !== 'object') return undefined;
  const d = details as Record<string, unknown>;
  const box = el('div', 'approval-details');
  if (type === 'command_execute' && typeof d.command === 'string') {
    box.append(pre(`$ ${d.command}`, 'approval-command'));
    if (typeof d.cwd === 'string') box.append(el('div', 'label', `in ${d.cwd}`));
    return box;
  }
  if (type === 'file_write' && typeof d.file_path === 'string') {
    const verb = d.is_delete === true ? 'delete' : d.is_create === true ? 'create' : 'overwrite';
    box.append(el('div', 'label', `${verb} ${d.file_path}`));
    if (typeof d.content_preview === 'string' && d.content_preview !== '') box.append(pre(d.content_preview, 'tool-io'));
    return box;
  }
  box.append(pre(json(details), 'tool-io'));
  return box;
}

export function countdownText(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `Auto-rejects in ${s} s`;
}

function renderApproval(b: Extract<Block, { kind: 'approval' }>, now: number): HTMLElement {
  const box = el('div', 'approval');
  box.dataset.state = b.outcome ?? 'pending';
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'Approval request');
  box.append(el('div', 'approval-title', approvalTitle[b.type] ?? 'Approval needed'), el('div', 'approval-desc', b.description));
  const details = approvalDetails(b.type, b.details);
  if (details) box.append(details);
  if (b.outcome) {
    box.append(el('div', 'approval-outcome', outcomeText[b.outcome]));
    return box;
  }
  const actions = el('div', 'approval-actions');
  const id = { requestId: b.requestId };
  actions.append(
    button('Approve', 'approve', id),
    button('Always', 'approve-always', id, 'secondary'),
    button('Reject', 'reject', id, 'secondary'),
  );
  const left = b.deadline - now;
  const countdown = el('span', 'countdown', countdownText(left));
  countdown.dataset.deadline = String(b.deadline);
  const bar = el('progress', 'countdown-bar');
  bar.max = Math.max(1, b.timeoutMs);
  bar.value = Math.max(0, left);
  bar.dataset.deadline = String(b.deadline);
  box.append(actions, countdown, bar);
  return box;
}

export function renderDiff(e: Extract<Entry, { kind: 'diff' }>): HTMLElement {
  const box = el('div', 'entry diff');
  box.dataset.diffId = e.id;
  const ops = diffLines(e.before, e.after);
  const { added, removed } = stats(ops);
  const head = el('div', 'diff-head');
  head.append(
    el('span', 'diff-title', e.title || 'Proposed edit'),
    el('span', 'diff-path', e.path),
    el('span', 'diff-stat add', `+${added}`),
    el('span', 'diff-stat del', `−${removed}`),
  );
  const table = el('table', 'diff-lines');
  const body = el('tbody');
  for (const row of hunks(ops)) {
    const tr = el('tr', `row-${row.op}`);
    if (row.op === 'skip') {
      const td = el('td', 'skip', `⋯ ${row.count} unchanged line${row.count === 1 ? '' : 's'}`);
      td.colSpan = 4;
      tr.append(td);
    } else {
      const mark = row.op === 'add' ? '+' : row.op === 'del' ? '−' : ' ';
      tr.append(
        el('td', 'ln', row.oldNo ? String(row.oldNo) : ''),
        el('td', 'ln', row.newNo ? String(row.newNo) : ''),
        el('td', 'mark', mark),
        el('td', 'code', row.text),
      );
    }
    body.append(tr);
  }
  table.append(body);
  const scroller = el('div', 'diff-scroll');
  scroller.append(table);
  box.append(head, scroller);
  if (ops.length === 0 || (added === 0 && removed === 0)) box.append(el('div', 'label', 'No changes.'));
  if (e.decision) {
    box.append(el('div', 'diff-outcome', e.decision === 'accepted' ? 'Accepted' : 'Rejected'));
  } else {
    const actions = el('div', 'diff-actions');
    actions.append(button('Accept', 'accept-diff', { diffId: e.id }), button('Reject', 'reject-diff', { diffId: e.id }, 'secondary'));
    box.append(actions);
  }
  return box;
}
