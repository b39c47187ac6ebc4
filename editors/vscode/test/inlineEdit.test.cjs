// kimi.inlineEdit against the real kast and a loopback model: the model's
// rewrite of the selection becomes a pending edit shown as a diff (editor
// and chat page); kimi.acceptEdit applies it, kimi.rejectEdit drops it, and
// an edit whose selection changed meanwhile is not applied.
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const vscode = require('vscode');
const h = require('./helpers.cjs');
const ext = require('../out/src/extension.js');

const kast = h.kastBinary();
h.isolate();
const root = h.sampleWorkspace();
const greeter = path.join(root, 'src', 'main', 'kotlin', 'sample', 'Greeter.kt');
vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(root), name: 'sample', index: 0 }];

const script = [];
let model;
let page;
const applied = [];
test.before(async () => {
  model = await h.modelServer(script);
  Object.assign(vscode.__settings, { 'kast.server.path': kast, 'kimi.baseUrl': model.url });
  const context = h.extensionContext();
  await context.secrets.store('kast.apiKey', 'sk-inline-edit-key');
  await ext.activate(context, () => () => '');
  page = h.webviewView();
  vscode.__registrations.find((r) => r[0] === 'webviewView')[2].resolveWebviewView(page.view);
  vscode.workspace.openTextDocument = async (uri) => h.document(uri.fsPath, 'kotlin');
  vscode.workspace.applyEdit = async (edit) => { applied.push(...edit.edits); return true; };
});
test.after(async () => {
  await ext.deactivate();
  model.close();
});

test('the rewrite is shown as a diff and applied by kimi.acceptEdit', async () => {
  script.length = 0;
  script.push({ text: ['```kotlin\n"hello, $name!"\n```'] });
  h.openEditor(greeter, 'kotlin', '"hi $name"');
  await vscode.commands.executeCommand('kimi.inlineEdit', 'be friendlier');
  const diff = vscode.commands._builtin.find(([id]) => id === 'vscode.diff');
  assert.ok(diff, 'a diff was opened');
  assert.equal(diff[1].fsPath, greeter);
  assert.ok(vscode.commands._builtin.some(([id, key, v]) => id === 'setContext' && key === 'kast.editPending' && v === true));
  const proposal = page.posted.find((m) => m.type === 'diff');
  assert.deepEqual({ path: proposal.path, before: proposal.before, after: proposal.after }, { path: greeter, before: '"hi $name"', after: '"hello, $name!"' });
  assert.match(JSON.stringify(model.requests.at(-1).body.messages), /be friendlier/);
  assert.equal(await vscode.commands.executeCommand('kimi.acceptEdit'), true);
  assert.equal(applied.length, 1);
  assert.equal(applied[0].newText, '"hello, $name!"');
  assert.deepEqual([applied[0].range.start.line, applied[0].range.start.character], [3, 34]);
  assert.ok(page.posted.some((m) => m.type === 'diffResolved' && m.id === proposal.id && m.accepted === true));
  assert.equal(await vscode.commands.executeCommand('kast.acceptEdit'), false, 'nothing is pending any more');
});

test('kimi.rejectEdit drops the edit; the page\'s Reject does too', async () => {
  script.length = 0;
  script.push({ text: ['"bye $name"'] });
  h.openEditor(greeter, 'kotlin', '"hi $name"');
  await vscode.commands.executeCommand('kast.inlineEdit', 'say bye');
  assert.equal(await vscode.commands.executeCommand('kimi.rejectEdit'), true);
  await vscode.commands.executeCommand('kimi.inlineEdit', 'say bye');
  const last = page.posted.filter((m) => m.type === 'diff').at(-1);
  page.page({ type: 'diffDecision', id: last.id, accepted: false });
  await h.until(() => page.posted.some((m) => m.type === 'diffResolved' && m.id === last.id && m.accepted === false), 5000, 'diffResolved');
  assert.equal(applied.length, 1, 'nothing more was applied');
});
