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
