// The chat page in headless Chromium: a recorded turn fed as the extension
// would post it, and checks of what a person sees and what the page posts
// back. Screenshots land in test-artifacts/ (or $KAST_ARTIFACTS).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { findChromium, launch, openChat, recording, serve } from './harness.mjs';

const chromiumPath = findChromium();
const skip = chromiumPath ? false : 'Debian chromium is not installed (apt-get install chromium)';
if (!chromiumPath && process.env.CI) throw new Error('chromium is not installed; .ci/run installs it');

let browser;
let server;
before(async () => {
  if (skip) return;
  server = await serve();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const turn = recording('chat-turn.json');
const at = (pred) => {
  const i = turn.findIndex(pred);
  assert.ok(i >= 0, 'recording lacks an expected message');
  return i;
};
const isEvent = (name, p = () => true) => (m) => m.type === 'event' && m.name === name && p(m.params);
const textOf = (loc) => loc.evaluate((e) => e.textContent);

test('a recorded turn: streamed markdown, thinking, tools, approval countdown, diff, Stop, reload', { skip }, async () => {
  const start = new Date('2026-11-26T12:00:00Z');
  const chat = await openChat(browser, server.url, { clock: start });
  const { page } = chat;

  // The context chip, then Shift+Enter for a newline and Enter to send.
  await chat.send(turn[0]);
  const chip = page.locator('.context-chip');
  assert.equal(await chip.textContent(), 'greet.ts · lines 1–3 · typescript');
  const input = page.locator('textarea.input');
  await input.click();
  await page.keyboard.type('Make greet handle');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('an empty name');
  assert.equal(await input.inputValue(), 'Make greet handle\nan empty name');
  assert.equal(chat.posted.filter((m) => m.type === 'send').length, 0, 'Shift+Enter must not send');
  await input.fill('Make greet handle an empty name');
  await page.keyboard.press('Enter');
  await chat.waitPosted({ type: 'send', text: 'Make greet handle an empty name', withContext: true });
  assert.equal(await input.inputValue(), '');
  assert.equal(await page.locator('.entry.user').count(), 1);
  assert.match(await page.locator('.entry.user .attached').textContent(), /greet\.ts:1-3/);
  assert.ok(await page.locator('button[data-action="stop"]').isVisible(), 'Stop shows while the message waits');

  // Thinking and the read_file call, streamed up to the first text part.
  const firstText = at(isEvent('ContentPart', (p) => p.type === 'text'));
  await chat.sendAll(turn.slice(1, at(isEvent('ToolCall'))));
  const think = page.locator('details.think');
  assert.equal(await think.getAttribute('open'), null, 'thinking starts collapsed');
  assert.equal(await page.locator('.think-text').isVisible(), false);
  await chat.send(turn[at(isEvent('ToolCall'))]);
  const readTool = page.locator('details.tool').first();
  assert.equal(await readTool.getAttribute('data-status'), 'running');
  assert.equal(await readTool.locator('.tool-status').textContent(), 'running…');
  await chat.sendAll(turn.slice(at(isEvent('ToolCall')) + 1, firstText + 1));
  assert.equal(await readTool.getAttribute('data-status'), 'done');
  assert.equal(await readTool.locator('.tool-result').isVisible(), false, 'a tool result starts collapsed');
  await readTool.locator('summary').click();
  assert.match(await readTool.locator('.tool-result').textContent(), /export function greet/);
  await think.locator('summary').click();
  assert.match(await page.locator('.think-text').textContent(), /^The user wants greet to cope with an empty or blank name/);

  // Text streams part by part into one markdown block.
  const answer = page.locator('.turn .markdown').first();
  assert.match(await answer.textContent(), /greet prints the name as given, so an empty\s*$/);
  await chat.send(turn[firstText + 1]);
  assert.match(await answer.textContent(), /Fall back to a default:/);
  assert.equal(await answer.locator('pre code').textContent(), 'const who = name.trim() ', 'an open fence shows as code');
  await chat.send(turn[firstText + 2]);
  const code = "const who = name.trim() || 'stranger';\nreturn `Hello, ${who}!`;";
  assert.equal(await answer.locator('pre code').textContent(), code + '\n');
  assert.equal(await answer.locator('.code-lang').textContent(), 'ts');
  await chat.sendAll(turn.slice(firstText + 3, at(isEvent('ApprovalRequest'))));

  // HTML from the model is text: nothing runs, no element is made.
  const said = await answer.textContent();
  assert.ok(said.includes('<img src=x onerror="window.__pwned=1">'), said);
  assert.ok(said.includes('<script>window.__pwned=2</script>'), said);
  assert.equal(await page.locator('.transcript img, .transcript script').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  // Copy and Insert post the code block's text.
  await answer.locator('button[data-action="copy"]').click();
  await chat.waitPosted({ type: 'copy', text: code });
  await answer.locator('button[data-action="insert"]').click();
  await chat.waitPosted({ type: 'insert', text: code });

  // The approval, its countdown from timeout_ms, and the answer.
  await chat.send(turn[at(isEvent('ApprovalRequest'))]);
  const approval = page.locator('.approval');
  assert.equal(await approval.locator('.approval-title').textContent(), 'Run a command');
  assert.equal(await approval.locator('.approval-command').textContent(), '$ npm test');
  assert.equal(await approval.locator('.countdown').textContent(), 'Auto-rejects in 30 s');
  await page.clock.runFor(5000);
  assert.equal(await approval.locator('.countdown').textContent(), 'Auto-rejects in 25 s');
  assert.equal(await approval.locator('progress').evaluate((p) => Math.round(p.value)), 25000);
  await chat.shot('1-approval-countdown');
  await approval.locator('button[data-action="approve"]').click();
  await chat.waitPosted({ type: 'approval', requestId: 'appr-1', approved: true });
  assert.equal(chat.posted.find((m) => m.type === 'approval').always, undefined);
  assert.equal(await approval.locator('.approval-outcome').textContent(), 'Approved');
  assert.equal(await approval.locator('button').count(), 0, 'an answered approval has no buttons');

  // Stop while the turn runs.
  await page.locator('button[data-action="stop"]').click();
  await chat.waitPosted({ type: 'stop' });

  // The diff, computed in the page, with Accept and Reject.
  const diffAt = at((m) => m.type === 'diff');
  await chat.sendAll(turn.slice(at(isEvent('ApprovalRequest')) + 1, diffAt + 1));
  const diff = page.locator('.entry.diff');
  assert.equal(await diff.locator('.diff-title').textContent(), 'Handle an empty name');
  assert.equal(await diff.locator('.diff-stat.add').textContent(), '+2');
  assert.equal(await diff.locator('.diff-stat.del').textContent(), '−1');
  assert.deepEqual(await diff.locator('tr.row-del td.code').allTextContents(), ['  return `Hello, ${name}!`;']);
  assert.deepEqual(await diff.locator('tr.row-add td.code').allTextContents(), [
    "  const who = name.trim() || 'stranger';",
    '  return `Hello, ${who}!`;',
  ]);
  assert.ok(await diff.locator('button[data-action="reject-diff"]').isVisible());
  await chat.shot('2-diff');
  await diff.locator('button[data-action="accept-diff"]').click();
  await chat.waitPosted({ type: 'diffDecision', id: 'edit-1', accepted: true });
  assert.equal(await diff.locator('.diff-outcome').textContent(), 'Accepted');

  // The turn ends: Stop goes away.
  await chat.sendAll(turn.slice(diffAt + 1));
  assert.equal(await page.locator('button[data-action="stop"]').isVisible(), false);
  assert.equal(await page.locator('.turn').getAttribute('data-state'), 'completed');
  assert.match(await textOf(page.locator('.turn .markdown').last()), /The tests pass/);
  await chat.shot('3-turn-done');

  // Reload: the transcript, decisions and open sections come back from getState.
  const before = await page.locator('.transcript').textContent();
  await page.reload();
  await chat.waitPosted({ type: 'ready' });
  assert.equal(chat.posted.filter((m) => m.type === 'ready').length, 2);
  assert.equal(await page.locator('.transcript').textContent(), before);
  assert.equal(await page.locator('.entry.diff .diff-outcome').textContent(), 'Accepted');
  assert.equal(await page.locator('.approval .approval-outcome').textContent(), 'Approved');
  assert.equal(await page.locator('details.think').getAttribute('open'), '', 'the opened thinking stays open');
  assert.equal(await page.locator('.context-chip').textContent(), 'greet.ts · lines 1–3 · typescript');
  await chat.shot('4-after-reload');

  assert.deepEqual(await chat.problems(), []);
  await chat.close();
});

const begin = (turnId, input = 'go') =>
  ({ type: 'event', name: 'TurnBegin', params: { turn_id: turnId, user_input: input, context: { files: [], selections: [] } } });
const approvalFor = (turnId, requestId, timeoutMs, type = 'file_write') => ({
  type: 'event',
  name: 'ApprovalRequest',
  params: {
    request_id: requestId, turn_id: turnId, type, description: 'Write to file out.txt',
    details: { file_path: 'out.txt', content_preview: 'draft', is_create: true, is_delete: false }, timeout_ms: timeoutMs,
  },
});

test('approvals: Always and Reject, an unanswered one times out, errors offer Retry', { skip }, async () => {
  const start = new Date('2026-11-26T12:00:00Z');
  const chat = await openChat(browser, server.url, { clock: start });
  const { page } = chat;
  await chat.sendAll([begin('t1'), approvalFor('t1', 'a1', 5000), approvalFor('t1', 'a2', 5000), approvalFor('t1', 'a3', 2000)]);
  assert.equal(await page.locator('.entry.user .user-text').textContent(), 'go', 'a turn begun elsewhere shows its input');
  const [a1, a2, a3] = [0, 1, 2].map((i) => page.locator('.approval').nth(i));
  assert.equal(await a1.locator('.approval-details .label').textContent(), 'create out.txt');
  await a1.locator('button[data-action="approve-always"]').click();
  await chat.waitPosted({ type: 'approval', requestId: 'a1', approved: true, always: true });
  await a2.locator('button[data-action="reject"]').click();
  await chat.waitPosted({ type: 'approval', requestId: 'a2', approved: false });
  assert.equal(await a2.locator('.approval-outcome').textContent(), 'Rejected');

  await page.clock.runFor(2500);
  assert.equal(await a3.locator('.approval-outcome').textContent(), 'No answer in time: rejected');
  assert.equal(await a3.locator('button').count(), 0);
  assert.equal(chat.posted.filter((m) => m.type === 'approval').length, 2, 'a timed-out approval posts nothing');

  await chat.sendAll([
    { type: 'event', name: 'Error', params: { code: -32002, message: 'the approval request timed out and was rejected', data: { turn_id: 't1', request_id: 'a3' } } },
    { type: 'event', name: 'Error', params: { code: -32000, message: 'the model failed', data: { turn_id: 't1' } } },
    { type: 'event', name: 'TurnEnd', params: { turn_id: 't1', finish_reason: 'error', error: 'the model failed' } },
  ]);
  const errors = page.locator('.turn .error-box');
  assert.deepEqual(await errors.locator('.error-text').allTextContents(), [
    'Error -32002: the approval request timed out and was rejected',
    'Error -32000: the model failed',
  ], 'the turn failure is shown once');
  const error = errors.last();
  await chat.shot('5-approvals-and-error');
  await error.locator('button[data-action="retry"]').click();
  await chat.waitPosted({ type: 'retry' });

  // An error with no turn (kast refused the message) ends the wait.
  await chat.sendAll([{ type: 'event', name: 'Error', params: { code: -32001, message: 'kast is not running' } }]);
  assert.match(await page.locator('.transcript > .entry > .error-box').textContent(), /kast is not running/);
  assert.equal(await page.locator('button[data-action="stop"]').isVisible(), false);
  assert.deepEqual(await chat.problems(), []);
  await chat.close();
});

test('sessions: list, resume renders the history, a command message, Reject and diffResolved, reset', { skip }, async () => {
  const chat = await openChat(browser, server.url);
  const { page } = chat;
  await page.locator('button[data-action="list-sessions"]').click();
  await chat.waitPosted({ type: 'listSessions' });
  await chat.send({
    type: 'sessions',
    sessions: [
      { id: 's-1', title: 'Fix the greeter', updatedAt: '2026-11-25T09:30:00Z' },
      { id: 's-2', title: '<b>bold?</b>', updatedAt: 1764150000000 },
    ],
  });
  const items = page.locator('button.session');
  assert.deepEqual(await items.locator('.session-title').allTextContents(), ['Fix the greeter', '<b>bold?</b>']);
  await chat.shot('6-sessions');
  await items.first().click();
  await chat.waitPosted({ type: 'resume', sessionId: 's-1' });
  assert.equal(await page.locator('.sessions').isVisible(), false);
  await chat.send({
    type: 'history',
    sessionId: 's-1',
    events: [
      { name: 'TurnBegin', params: { turn_id: 'old', user_input: 'why does greet fail?', context: { files: [], selections: [] } } },
      { name: 'ContentPart', params: { type: 'text', text: 'It **ignores** blank names.' } },
      { name: 'ToolCall', params: { id: 'c9', name: 'read_file', arguments: { path: 'src/greet.ts' } } },
      { name: 'ApprovalRequest', params: { request_id: 'old-a', turn_id: 'old', type: 'tool_call', description: 'Call tool x', details: {}, timeout_ms: 60000 } },
    ],
  });
  assert.equal(await page.locator('.entry.user .user-text').textContent(), 'why does greet fail?');
  assert.equal(await page.locator('.markdown strong').textContent(), 'ignores');
  assert.equal(await page.locator('.tool').getAttribute('data-status'), 'interrupted', 'a replayed unfinished call is over');
  assert.equal(await page.locator('.approval button').count(), 0, 'a replayed approval cannot be answered');
  assert.equal(await page.locator('button[data-action="stop"]').isVisible(), false);

  await chat.send({ type: 'userMessage', text: 'Explain this code' });
  assert.equal(await page.locator('.entry.user .user-text').nth(1).textContent(), 'Explain this code');
  await chat.send({ type: 'diff', id: 'd2', path: 'a.txt', before: 'one\ntwo\n', after: 'one\n2\n' });
  await page.locator('.entry.diff button[data-action="reject-diff"]').click();
  await chat.waitPosted({ type: 'diffDecision', id: 'd2', accepted: false });
  assert.equal(await page.locator('.entry.diff .diff-outcome').textContent(), 'Rejected');
  await chat.send({ type: 'diff', id: 'd3', path: 'b.txt', before: '', after: 'new\n' });
  await chat.send({ type: 'diffResolved', id: 'd3', accepted: true });
  // The second diff's outcome: last() could still match the first's, as the
  // page handles a posted message after send returns.
  assert.equal(await page.locator('.entry.diff .diff-outcome').nth(1).textContent(), 'Accepted');

  await page.locator('button[data-action="new-session"]').click();
  await chat.waitPosted({ type: 'newSession' });
  assert.equal(await page.locator('.transcript .entry').count(), 0);
  await chat.send({ type: 'userMessage', text: 'x' });
  await chat.send({ type: 'reset' });
  assert.equal(await page.locator('.transcript .entry').count(), 0);
  assert.deepEqual(await chat.problems(), []);
  await chat.close();
});

test('malformed messages are ignored and the page keeps working', { skip }, async () => {
  const chat = await openChat(browser, server.url);
  const { page } = chat;
  await chat.sendAll([
    'not an object',
    null,
    { type: 'event' },
    { type: 'event', name: 'ContentPart', params: null },
    { type: 'event', name: 'ContentPart', params: { type: 'text', text: 42 } },
    { type: 'event', name: 'ToolResult', params: { tool_call_id: 7, content: { nested: true } } },
    { type: 'event', name: 'ApprovalRequest', params: { timeout_ms: 'soon', details: 'x' } },
    { type: 'diff', id: 1 },
    { type: 'sessions', sessions: 'none' },
    { type: 'history', events: 'none' },
    { type: 'context', selection: 5 },
    { type: 'unknown' },
  ]);
  assert.deepEqual(await chat.problems(), []);
  await chat.send({ type: 'event', name: 'ContentPart', params: { type: 'text', text: 'still here' } });
  assert.match(await page.locator('.transcript').textContent(), /still here/);
  await chat.close();
});

test('the page runs under its strict CSP, which blocks inline code', { skip }, async () => {
  const chat = await openChat(browser, server.url);
  const { page } = chat;
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.match(csp, /^default-src 'none'; img-src http:\/\/127\.0\.0\.1:\d+ data:; style-src http:\/\/127\.0\.0\.1:\d+; script-src 'nonce-[^']+';$/);
  // The page itself drew under it (its script and stylesheet loaded) ...
  assert.equal(await page.locator('button[data-action="new-session"]').isVisible(), true);
  assert.notEqual(await page.locator('.toolbar').evaluate((e) => getComputedStyle(e).display), 'block');
  assert.deepEqual(await chat.problems(), []);
  // ... and an inline script or style added later does not apply.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inline = 1';
    document.body.append(s);
    const st = document.createElement('style');
    st.textContent = '.toolbar { display: none }';
    document.head.append(st);
  });
  assert.equal(await page.evaluate(() => window.__inline), undefined);
  assert.equal(await page.locator('.toolbar').isVisible(), true);
  assert.ok((await chat.problems()).some((p) => p.startsWith('CSP violation: script-src')), await chat.problems());
  await chat.close();
});
