// The page against a live kast: the real binary ($KAST_BIN, `kast lsp
// --stdio`) runs the agent on a loopback model, and this test relays
// between kast and the page as the extension does (kast's Kimi IDE events
// in, the page's send / approval / stop out). It also checks that the
// recording the other page tests replay (testdata/vscode/chat-turn.json)
// has the shape kast really sends, so the two cannot drift apart.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { findChromium, launch, openChat, recording, serve } from './harness.mjs';
import { Kast, startModel } from './kast.mjs';

const kastBin = process.env.KAST_BIN;
const skip = !findChromium()
  ? 'Debian chromium is not installed (apt-get install chromium)'
  : !kastBin
    ? 'KAST_BIN is not set (the Go test editors/vscode_chat_test.go builds kast and sets it)'
    : false;

const wireEvents = new Set(['TurnBegin', 'StepBegin', 'ContentPart', 'ToolCall', 'ToolResult', 'StepEnd', 'TurnEnd',
  'ApprovalRequest', 'StatusUpdate', 'Error']);

let browser;
let server;
let tmp;
before(async () => {
  if (skip) return;
  server = await serve();
  browser = await launch();
  tmp = mkdtempSync(join(tmpdir(), 'kast-chat-live-'));
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const greet = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';

test('a live kast turn in the page: streamed answer, tool calls, an approval answered from the page, Stop', { skip }, async () => {
  const root = join(tmp, 'ws');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'greet.ts'), greet);
  const model = await startModel([
    { think: ['The user asks about greet; ', 'read it first.'], toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'src/greet.ts' } } },
    {
      text: ['`greet` prints the name as given. ', 'A fallback:\n\n```ts\nconst who = name.trim() ', "|| 'stranger';\n```\n\n<b>not bold</b> "],
      toolCall: { id: 'c2', name: 'run_shell_command', arguments: { command: 'echo checked' } },
    },
    { text: ['The check ', 'passed.'] },
    { stall: true },
  ]);
  const kast = new Kast(kastBin, root, {
    XDG_CONFIG_HOME: join(tmp, 'config'), XDG_DATA_HOME: join(tmp, 'data'), XDG_CACHE_HOME: join(tmp, 'cache'),
    KAST_PROVIDER: 'moonshot', KAST_BASE_URL: model.url, MOONSHOT_API_KEY: 'sk-moonshot-test-123456', KAST_MODEL: '',
    OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENROUTER_API_KEY: '',
  });
  try {
    const init = await kast.start(pathToFileURL(root).href);
    assert.equal(init.capabilities.experimental.kimi.protocol, 'kimi-ide');

    // The relay, in order: kast's events to the page, the page's messages to kast.
    const seen = [];
    let turnId = '';
    let toPage = Promise.resolve();
    let chat;
    kast.on('notification', (name, params) => {
      if (!wireEvents.has(name)) return;
      seen.push({ name, params });
      if (name === 'TurnBegin') turnId = params.turn_id;
      toPage = toPage.then(() => chat.send({ type: 'event', name, params })).catch(() => {});
    });
    const fromPage = [];
    const onPost = (m) => {
      const call = {
        send: () => kast.request('sendMessage', { content: m.text, context: m.withContext
          ? { current_file: join(root, 'src', 'greet.ts'), open_files: [join(root, 'src', 'greet.ts')], workspace_root: root }
          : { workspace_root: root } }),
        approval: () => kast.request('submitApproval', { request_id: m.requestId, approved: m.approved }),
        stop: () => kast.request('interruptTurn', { turn_id: turnId }),
      }[m.type];
      if (call) fromPage.push(call());
    };
    chat = await openChat(browser, server.url, { onPost });
    const { page } = chat;
    await chat.send({ type: 'context', file: join(root, 'src', 'greet.ts'), language: 'typescript' });

    await page.locator('textarea.input').fill('What does greet do?');
    await page.keyboard.press('Enter');
    const approval = page.locator('.approval');
    await approval.locator('button[data-action="approve"]').waitFor();
    const left = Number(/^Auto-rejects in (\d+) s$/.exec(await approval.locator('.countdown').textContent())?.[1]);
    assert.ok(left > 0 && left <= 60, `kast's 60 s approval timeout counts down: ${left}`);
    assert.equal(await approval.locator('.approval-command').textContent(), '$ echo checked');
    const read = page.locator('details.tool').first();
    assert.equal(await read.getAttribute('data-status'), 'done');
    assert.equal(await read.locator('.tool-name').textContent(), 'read_file');
    assert.match(await read.locator('.tool-result').textContent(), /export function greet/);
    assert.match(await page.locator('.think-text').textContent(), /The user asks about greet; read it first\./);
    const answer = page.locator('.turn .markdown').first();
    assert.equal(await answer.locator('pre code').textContent(), "const who = name.trim() || 'stranger';\n");
    assert.match(await answer.textContent(), /<b>not bold<\/b>/);
    assert.equal(await answer.locator('b').count(), 0);
    await chat.shot('live-1-approval');
    await approval.locator('button[data-action="approve"]').click();

    await page.locator('.turn[data-state="completed"]').waitFor();
    const shell = page.locator('details.tool').nth(1);
    assert.equal(await shell.getAttribute('data-status'), 'done');
    assert.match(await shell.locator('.tool-result').textContent(), /checked/);
    assert.match(await page.locator('.turn .markdown').last().textContent(), /The check passed\./);
    assert.equal(await page.locator('button[data-action="stop"]').isVisible(), false);
    assert.equal(await approval.locator('.approval-outcome').textContent(), 'Approved');
    await chat.shot('live-2-done');

    // A second turn stalls at the model; Stop interrupts it through kast.
    await page.locator('textarea.input').fill('And farewell?');
    await page.keyboard.press('Enter');
    await page.locator('.turn').nth(1).locator('.markdown').waitFor();
    await page.locator('button[data-action="stop"]').click();
    await page.locator('.turn[data-state="interrupted"]').waitFor();
    assert.equal(await page.locator('.turn').nth(1).locator('.turn-foot').textContent(), 'Stopped.');
    await Promise.all(fromPage);
    assert.deepEqual(chat.posted.filter((m) => m.type === 'send').map((m) => m.withContext), [true, true]);
    assert.deepEqual(await chat.problems(), []);
    await chat.shot('live-3-stopped');

    // The recording replayed by chat.test.mjs has the shape kast sends.
    assertSameShape(seen, recording('chat-turn.json'));
    await chat.close();
  } finally {
    await kast.stop();
    await model.close();
  }
});

/** shape lists an event's params as key paths with their JSON types. */
function shape(v, path = '') {
  if (v === null) return [`${path}:null`];
  if (Array.isArray(v)) return [`${path}:array`, ...(v.length ? shape(v[0], `${path}[]`) : [])];
  if (typeof v !== 'object') return [`${path}:${typeof v}`];
  return Object.entries(v).flatMap(([k, x]) => shape(x, `${path}.${k}`));
}

function assertSameShape(live, recorded) {
  const variant = (e) => `${e.name}${e.params?.type ? `/${e.params.type}` : ''}`;
  const liveShapes = new Map(live.map((e) => [variant(e), new Set(shape(e.params))]));
  for (const m of recorded.filter((x) => x.type === 'event')) {
    const want = liveShapes.get(variant(m));
    if (!want) continue; // kast did not send this variant in the live turn
    // Free-form objects (tool arguments, approval details) differ by tool.
    const got = shape(m.params).filter((p) => !/^\.(arguments|details|context\.selections\[\])\./.test(p));
    for (const p of got) assert.ok(want.has(p), `the recording's ${variant(m)} has ${p}, which kast does not send: ${[...want]}`);
    for (const p of want) {
      if (/^\.(arguments|details|context\.selections\[\])\./.test(p)) continue;
      assert.ok(got.includes(p) || p.endsWith(':null') || p.startsWith('.progress'),
        `kast's ${variant(m)} has ${p}, which the recording lacks`);
    }
  }
  for (const v of ['TurnBegin', 'ContentPart/think', 'ContentPart/text', 'ToolCall', 'ToolResult', 'ApprovalRequest/command_execute', 'TurnEnd', 'StepBegin/response']) {
    assert.ok(liveShapes.has(v), `kast sent no ${v} in the live turn`);
  }
}
