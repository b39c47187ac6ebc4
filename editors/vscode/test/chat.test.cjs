// The chat view's host side against the real kast and a loopback model:
// kimi.explainCode streams a turn into the page, an approval is answered
// from the page's message protocol, Stop interrupts the turn, resuming a
// session replays it; validateApiKey and ghost text make real round trips;
// the API key lives only in SecretStorage and kast's environment.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const h = require('./helpers.cjs');
const ext = require('../out/src/extension.js');

const fakeKey = 'sk-fake-kimi-key-4242-do-not-leak';
const kast = h.kastBinary();
h.isolate();
const root = h.sampleWorkspace();
const greeter = path.join(root, 'src', 'main', 'kotlin', 'sample', 'Greeter.kt');
vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(root), name: 'sample', index: 0 }];

const script = [];
let model;
let api;
let context;
let page;
let htmlArgs;

/** The next model replies, in order (the last repeats). */
const replies = (...r) => { script.length = 0; script.push(...r); };
const events = (name) => page.posted.filter((m) => m.type === 'event' && (!name || m.name === name));

test.before(async () => {
  model = await h.modelServer(script);
  Object.assign(vscode.__settings, {
    'kast.server.path': kast, 'kast.server.extraArgs': ['--log-level=debug'], 'kimi.baseUrl': model.url,
    'kimi.model': 'moonshot-v1-32k', 'kimi.lsp.completionDebounceMs': 100,
    // The spec's kimi.apiKey: read once at activation, moved to SecretStorage, cleared from settings.
    'kimi.apiKey': fakeKey,
  });
  context = h.extensionContext();
  api = await ext.activate(context, () => (args) => { htmlArgs = args; return '<!doctype html>'; });
  const [, viewType, provider] = vscode.__registrations.find((r) => r[0] === 'webviewView');
  assert.equal(viewType, 'kast.chat');
  page = h.webviewView();
  provider.resolveWebviewView(page.view);
});
test.after(async () => {
  await ext.deactivate();
  model.close();
});

test('the page gets its CSP inputs and, once ready, the editor context', async () => {
  assert.equal(htmlArgs.cspSource, 'vscode-webview://test');
  assert.match(htmlArgs.nonce, /^[a-z0-9]{32}$/);
  assert.match(htmlArgs.scriptUri, /webview\/dist\/chat\.js$/);
  assert.match(htmlArgs.styleUri, /webview\/chat\.css$/);
  assert.equal(page.view.webview.options.enableScripts, true);
  h.openEditor(greeter, 'kotlin', 'fun greet(name: String): String = "hi $name"');
  page.page({ type: 'ready' });
  await h.until(() => page.posted.find((m) => m.type === 'context'), 5000, 'a context message');
  assert.deepEqual(page.posted.find((m) => m.type === 'context'), { type: 'context', file: greeter, language: 'kotlin', selection: { startLine: 4, endLine: 4 } });
});

test('kimi.explainCode on a selection streams a chat turn from the model into the page', async () => {
  replies({ text: ['greet builds ', 'a greeting.'] });
  h.openEditor(greeter, 'kotlin', 'fun greet(name: String): String = "hi $name"');
  const seen = [];
  const sub = api.on('ContentPart', (p) => seen.push(p.text));
  await vscode.commands.executeCommand('kimi.explainCode');
  const end = await h.until(() => events('TurnEnd')[0], 30000, 'TurnEnd');
  sub.dispose();
  assert.equal(end.params.finish_reason, 'completed');
  assert.deepEqual(page.posted.find((m) => m.type === 'userMessage'), { type: 'userMessage', text: 'Explain the selected code.' });
  const begin = events('TurnBegin')[0].params;
  assert.equal(begin.user_input, 'Explain the selected code.');
  assert.deepEqual(begin.context.files, [greeter]);
  assert.equal(begin.context.selections[0].content, 'fun greet(name: String): String = "hi $name"');
  const text = events('ContentPart').filter((e) => e.params.type === 'text').map((e) => e.params.text);
  assert.deepEqual(text, ['greet builds ', 'a greeting.']);
  assert.deepEqual(seen, ['greet builds ', 'a greeting.'], 'the API subscriber heard the same stream');
  // The model was called with the key from SecretStorage and was shown the selection.
  const req = model.requests.at(-1);
  assert.equal(req.headers.authorization, `Bearer ${fakeKey}`);
  assert.equal(req.body.model, 'moonshot-v1-32k');
  assert.ok(JSON.stringify(req.body.messages).includes('fun greet(name: String)'), 'the selection reached the model');
});

test('an approval is answered from the page: the write is shown as a diff and happens once approved', async () => {
  page.posted.length = 0;
  replies({ toolCall: { id: 'c1', name: 'write_file', arguments: JSON.stringify({ path: 'NOTES.md', content: 'greet is simple\n' }) } }, { text: ['Written.'] });
  page.page({ type: 'send', text: 'write a note', withContext: false });
  const ask = await h.until(() => events('ApprovalRequest')[0], 30000, 'ApprovalRequest');
  assert.equal(ask.params.type, 'file_write');
  assert.ok(ask.params.timeout_ms > 0);
  const diff = await h.until(() => page.posted.find((m) => m.type === 'diff'), 5000, 'the write as a diff');
  assert.deepEqual(diff, { type: 'diff', id: `approval:${ask.params.request_id}`, path: 'NOTES.md', before: '', after: 'greet is simple\n', title: ask.params.description });
  assert.equal(fs.existsSync(path.join(root, 'NOTES.md')), false, 'nothing is written before the approval');
  page.page({ type: 'approval', requestId: ask.params.request_id, approved: true });
  const result = await h.until(() => events('ToolResult')[0], 30000, 'ToolResult');
  assert.equal(result.params.is_error, false);
  await h.until(() => events('TurnEnd')[0], 30000, 'TurnEnd');
  assert.equal(fs.readFileSync(path.join(root, 'NOTES.md'), 'utf8'), 'greet is simple\n');
  assert.ok(page.posted.some((m) => m.type === 'diffResolved' && m.id === diff.id && m.accepted === true));
});

test('"always" on an approval answers the later requests of its type without asking', async () => {
  page.posted.length = 0;
  replies({ toolCall: { id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'A.md', content: 'a\n' }) } },
    { toolCall: { id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'B.md', content: 'b\n' }) } }, { text: ['Both.'] });
  page.page({ type: 'send', text: 'write two notes', withContext: false });
  const first = await h.until(() => events('ApprovalRequest')[0], 30000, 'the first ApprovalRequest');
  page.page({ type: 'approval', requestId: first.params.request_id, approved: true, always: true });
  await h.until(() => events('TurnEnd')[0], 30000, 'TurnEnd');
  assert.equal(events('ApprovalRequest').length, 2, 'the second request was still shown');
  assert.equal(fs.readFileSync(path.join(root, 'B.md'), 'utf8'), 'b\n', 'and answered');
  assert.ok(events('ToolResult').every((e) => !e.params.is_error));
});

test('Stop in the page interrupts the running turn (interruptTurn)', async () => {
  page.posted.length = 0;
  replies({ stall: true });
  page.page({ type: 'send', text: 'take your time', withContext: true });
  await h.until(() => events('ContentPart').find((e) => e.params.text === 'working...'), 30000, 'the first delta');
  page.page({ type: 'stop' });
  const end = await h.until(() => events('TurnEnd')[0], 30000, 'TurnEnd');
  assert.equal(end.params.finish_reason, 'interrupted');
});

test('Retry resends the last message', async () => {
  page.posted.length = 0;
  replies({ text: ['Again.'] });
  page.page({ type: 'retry' });
  const begin = await h.until(() => events('TurnBegin')[0], 30000, 'TurnBegin');
  assert.equal(begin.params.user_input, 'take your time');
  await h.until(() => events('TurnEnd')[0], 30000, 'TurnEnd');
});

test('sessions are listed, and resuming one replays it in the page', async () => {
  page.posted.length = 0;
  page.page({ type: 'listSessions' });
  const list = await h.until(() => page.posted.find((m) => m.type === 'sessions'), 10000, 'sessions');
  const s = list.sessions.find((x) => x.title === 'Explain the selected code.' || x.title.startsWith('Explain the selected code.'));
  assert.ok(s, JSON.stringify(list.sessions));
  assert.ok(s.updatedAt);
  page.page({ type: 'newSession' });
  await h.until(() => page.posted.find((m) => m.type === 'reset'), 10000, 'reset');
  page.page({ type: 'resume', sessionId: s.id });
  const hist = await h.until(() => page.posted.find((m) => m.type === 'history'), 10000, 'history');
  assert.equal(hist.sessionId, s.id);
  assert.equal(hist.events[0].name, 'TurnBegin');
  assert.equal(hist.events[0].params.user_input, 'Explain the selected code.');
  assert.ok(hist.events.some((e) => e.name === 'ContentPart' && e.params.text === 'greet builds a greeting.'), JSON.stringify(hist.events));
  assert.equal(hist.events.at(-1).name, 'TurnEnd');
});

test('copy and insert from the page', async () => {
  const ed = h.openEditor(greeter, 'kotlin', 'greet');
  page.page({ type: 'copy', text: 'fun x() = 1' });
  page.page({ type: 'insert', text: 'val y = 2' });
  await h.until(() => vscode.env.clipboard.text === 'fun x() = 1' && ed.inserted.length === 1, 5000, 'copy and insert');
  assert.equal(ed.inserted[0][1], 'val y = 2');
});

test('kimi.validateApiKey is a real round trip through kast', async () => {
  replies({ text: ['OK'] });
  const ok = await vscode.commands.executeCommand('kimi.validateApiKey');
  assert.equal(ok.valid, true);
  assert.ok(vscode.__messages.some(([k, m]) => k === 'info' && /The API key works/.test(m)));
  const before = model.requests.length;
  replies({ status: 401, body: { error: { message: 'Invalid Authentication', type: 'invalid_authentication_error' } } });
  const bad = await vscode.commands.executeCommand('kast.validateApiKey');
  assert.equal(bad.valid, false);
  assert.match(bad.message, /401/);
  assert.equal(model.requests.length, before + 1);
});

test('ghost text comes from the model through kast, debounced and cancellable', async () => {
  const [, , provider] = vscode.__registrations.find((r) => r[0] === 'registerInlineCompletionItemProvider');
  await h.until(() => provider.providerReady, 10000, 'kast to report a provider');
  replies({ text: ['"hello $name"'] });
  const doc = h.document(greeter, 'kotlin');
  const pos = doc.positionAt(doc.getText().indexOf('"hi $name"'));
  const items = await provider.provideInlineCompletionItems(doc, pos, {}, new vscode.CancellationTokenSource().token);
  assert.deepEqual(items.map((i) => i.insertText), ['"hello $name"']);
  const req = model.requests.at(-1).body;
  assert.ok(JSON.stringify(req.messages).includes('<CURSOR>'));
  // Typing on during the debounce cancels: no request reaches the model.
  const n = model.requests.length;
  const cts = new vscode.CancellationTokenSource();
  const pending = provider.provideInlineCompletionItems(doc, doc.positionAt(3), {}, cts.token);
  cts.cancel();
  assert.deepEqual(await pending, []);
  assert.equal(model.requests.length, n);
});

test('the API key is only in SecretStorage: not in settings, the output channel or kast\'s stderr', async () => {
  assert.equal(context.__secrets.get('kast.apiKey'), fakeKey);
  assert.equal(vscode.__settings['kimi.apiKey'], undefined, 'kimi.apiKey was cleared');
  assert.ok(!JSON.stringify(vscode.__settings).includes(fakeKey), 'settings');
  const log = vscode.__output.join('\n');
  assert.ok(/level=DEBUG|DEBUG/.test(log), 'kast\'s debug stderr reaches the output channel, so the grep sees it');
  assert.ok(!log.includes(fakeKey), 'the output channel (with kast\'s stderr)');
  assert.ok(!vscode.__messages.some(([, m]) => String(m).includes(fakeKey)), 'messages');
  // A key set with configureApiKey restarts kast with it.
  const second = 'sk-second-fake-key-777';
  await vscode.commands.executeCommand('kimi.configureApiKey', second);
  await h.until(() => api.client.isRunning(), 20000, 'kast restarted');
  replies({ text: ['OK'] });
  const r = await vscode.commands.executeCommand('kimi.validateApiKey');
  assert.equal(r.valid, true);
  assert.equal(model.requests.at(-1).headers.authorization, `Bearer ${second}`);
  assert.ok(!vscode.__output.join('\n').includes(second));
});
