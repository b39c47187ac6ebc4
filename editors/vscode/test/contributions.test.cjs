// package.json's contributions against what activate() registers: every
// contributed command has a handler and every handler is contributed; every
// kimi.* setting of the spec is contributed with its range and mirrored
// under kast.*; the selection commands are code actions; the views have
// providers. kast is not started here (kimi.enableLSP off).
const test = require('node:test');
const assert = require('node:assert');
const vscode = require('vscode');
const h = require('./helpers.cjs');
const pkg = require('../package.json');
const ext = require('../out/src/extension.js');

vscode.__settings['kimi.enableLSP'] = false;

test('activate() registers exactly the contributed commands', async () => {
  const context = h.extensionContext();
  const api = await ext.activate(context, () => () => '');
  const contributed = pkg.contributes.commands.map((c) => c.command).sort();
  const registered = [...vscode.commands._reg.keys()].sort();
  assert.deepEqual(registered, contributed);
  // The spec's ids, each with its kast.* alias.
  for (const id of ['inlineEdit', 'acceptEdit', 'rejectEdit', 'showDiff', 'explainCode', 'fixCode', 'optimizeCode', 'generateTests', 'addDocs',
    'refactorCode', 'quickChat', 'chatWithContext', 'configureApiKey', 'validateApiKey', 'openSettings']) {
    assert.ok(registered.includes(`kimi.${id}`) && registered.includes(`kast.${id}`), id);
  }
  for (const fn of ['sendMessage', 'on', 'onEvent', 'interruptTurn', 'submitApproval']) {
    assert.equal(typeof api[fn], 'function', `the API has ${fn}`);
  }
  const kinds = vscode.__registrations.map((r) => r[0]);
  for (const k of ['webviewView', 'treeData', 'registerCodeActionsProvider', 'registerInlineCompletionItemProvider']) {
    assert.ok(kinds.includes(k), `${k} registered`);
  }
  const views = Object.values(pkg.contributes.views).flat().map((v) => v.id).sort();
  const provided = vscode.__registrations.filter((r) => r[0] === 'webviewView' || r[0] === 'treeData').map((r) => r[1]).sort();
  assert.deepEqual(provided, views);
  await ext.deactivate();
});

test('the spec settings are contributed with their ranges and mirrored under kast.*', () => {
  const props = pkg.contributes.configuration.properties;
  const spec = {
    apiKey: { type: 'string', default: '' }, baseUrl: { type: 'string', default: 'https://api.moonshot.cn/v1' },
    model: { default: 'moonshot-v1-8k', enum: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'] },
    enableInlineCompletions: { type: 'boolean', default: true }, enableLSP: { type: 'boolean', default: true },
    hasSeenWelcome: { type: 'boolean', default: false },
    'lsp.completionDebounceMs': { default: 300, minimum: 100, maximum: 2000 }, 'lsp.maxCompletions': { default: 5, minimum: 1, maximum: 10 },
    'lsp.cacheTimeout': { default: 300, minimum: 60, maximum: 600 },
  };
  for (const [key, want] of Object.entries(spec)) {
    for (const ns of ['kimi', 'kast']) {
      const p = props[`${ns}.${key}`];
      assert.ok(p, `${ns}.${key} is contributed`);
      for (const [field, v] of Object.entries(want)) {
        assert.deepEqual(p[field], v, `${ns}.${key}.${field}`);
      }
    }
  }
});

test('the selection commands are code actions when there is a selection, and in the editor menu', async () => {
  const { SelectionActions } = require('../out/src/commands.js');
  const p = new SelectionActions();
  const sel = new vscode.Selection(0, 0, 0, 5);
  const ids = p.provideCodeActions({}, sel).map((a) => a.command.command).sort();
  assert.deepEqual(ids, ['kimi.addDocs', 'kimi.explainCode', 'kimi.fixCode', 'kimi.generateTests', 'kimi.inlineEdit', 'kimi.optimizeCode', 'kimi.refactorCode']);
  assert.deepEqual(p.provideCodeActions({}, new vscode.Selection(0, 0, 0, 0)), []);
  const menu = pkg.contributes.menus['editor/context'];
  assert.ok(menu.every((m) => m.when === 'editorHasSelection'));
});

test('a kast.* setting wins over its kimi.* twin; unset, kimi.* applies', () => {
  const { setting, ranged } = require('../out/src/settings.js');
  vscode.__settings['kimi.model'] = 'moonshot-v1-32k';
  assert.equal(setting('model', 'x'), 'moonshot-v1-32k');
  vscode.__settings['kast.model'] = 'moonshot-v1-128k';
  assert.equal(setting('model', 'x'), 'moonshot-v1-128k');
  vscode.__settings['kimi.lsp.completionDebounceMs'] = 5;
  assert.equal(ranged('lsp.completionDebounceMs', 300, 100, 2000), 100);
});

test('a crashing kast is restarted kast.server.maxRestarts times in three minutes, then left stopped with a message', () => {
  const { RestartPolicy } = require('../out/src/server.js');
  const { CloseAction } = require('vscode-languageclient/node');
  vscode.__settings['kast.server.maxRestarts'] = 2;
  let now = 0;
  const lines = [];
  const policy = new RestartPolicy({ appendLine: (l) => lines.push(l) }, () => now);
  assert.equal(policy.closed().action, CloseAction.Restart);
  now += 60_000;
  assert.equal(policy.closed().action, CloseAction.Restart);
  now += 60_000;
  const before = vscode.__messages.length;
  assert.equal(policy.closed().action, CloseAction.DoNotRestart);
  assert.match(vscode.__messages.at(-1)[1], /stopped 3 times in three minutes.*Restart Server/);
  assert.equal(vscode.__messages.length, before + 1);
  // Crashes older than three minutes are forgotten.
  now += 10 * 60_000;
  assert.equal(policy.closed().action, CloseAction.Restart);
  delete vscode.__settings['kast.server.maxRestarts'];
});

test('findServer: the setting, then PATH, then the bundled binary', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { findServer } = require('../out/src/server.js');
  const dir = h.tempDir('kast-find-');
  const bundled = path.join(dir, 'ext', 'bin', `${process.platform}-${process.arch}`, 'kast');
  fs.mkdirSync(path.dirname(bundled), { recursive: true });
  fs.writeFileSync(bundled, '#!/bin/sh\n', { mode: 0o755 });
  const onPath = path.join(dir, 'path', 'kast');
  fs.mkdirSync(path.dirname(onPath));
  fs.writeFileSync(onPath, '#!/bin/sh\n', { mode: 0o755 });
  assert.equal(findServer(path.join(dir, 'ext'), '/opt/kast', { PATH: path.dirname(onPath) }), '/opt/kast');
  assert.equal(findServer(path.join(dir, 'ext'), '', { PATH: path.dirname(onPath) }), onPath);
  assert.equal(findServer(path.join(dir, 'ext'), '', { PATH: path.join(dir, 'nowhere') }), bundled);
  assert.equal(findServer(path.join(dir, 'none'), '', { PATH: '' }), undefined);
});

test('serverEnv: the stored key and the Kimi settings go to kast\'s environment only when a key is stored', () => {
  const { serverEnv } = require('../out/src/server.js');
  vscode.__settings['kimi.baseUrl'] = 'http://127.0.0.1:9/v1';
  const env = serverEnv('sk-x', { PATH: '/bin' });
  assert.deepEqual(env, { PATH: '/bin', KAST_PROVIDER: 'moonshot', MOONSHOT_API_KEY: 'sk-x', KAST_BASE_URL: 'http://127.0.0.1:9/v1', KAST_MODEL: 'moonshot-v1-128k' });
  assert.deepEqual(serverEnv(undefined, { PATH: '/bin' }), { PATH: '/bin' });
});
