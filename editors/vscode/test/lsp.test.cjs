// The extension's LanguageClient (the real vscode-languageclient) against the
// real kast on kast's Kotlin sample: definition, references and rename; the
// status bar going READY with the index's counts; a crashed kast restarted.
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const vscode = require('vscode');
const h = require('./helpers.cjs');
const ext = require('../out/src/extension.js');

const kast = h.kastBinary();
h.isolate();
const root = h.sampleWorkspace();
const kt = path.join(root, 'src', 'main', 'kotlin', 'sample');
vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(root), name: 'sample', index: 0 }];
vscode.__settings['kast.server.path'] = kast;

let api;
test.before(async () => {
  api = await ext.activate(h.extensionContext(), () => () => '');
});
test.after(() => ext.deactivate());

const uri = (f) => vscode.Uri.file(path.join(kt, f)).toString();
const at = (loc) => `${path.basename(vscode.Uri.parse(loc.uri ?? loc.targetUri).fsPath)}:${(loc.range ?? loc.targetSelectionRange).start.line + 1}:${(loc.range ?? loc.targetSelectionRange).start.character + 1}`;

test('the status bar says READY with the indexed files; clicking it runs kast.status', async () => {
  const item = vscode.__statusItems[0];
  assert.equal(item.command, 'kast.showStatus');
  // READY comes once indexing ends ($/progress end), with the files kast.status counts.
  await h.until(() => /kast: READY \([1-9]\d* files\)/.test(item.text), 30000, `READY in the status bar (it says ${item.text})`);
  // Before READY it showed kast's $/progress (the indexing pass's title).
  assert.ok(item.history.some((t) => /^\$\(sync~spin\) kast: indexing/.test(t)), item.history.join(' | '));
  const st = await vscode.commands.executeCommand('kast.showStatus');
  assert.equal(st.roots[0].path, root);
  assert.ok(st.roots[0].files >= 6, `files: ${st.roots[0].files}`);
  assert.match(item.text, new RegExp(`READY \\(${st.roots[0].files} files\\)`));
  assert.ok(vscode.__messages.some(([k, m]) => k === 'info' && m.startsWith('kast: ') && m.includes(`${st.roots[0].files} files`)), `kast.status tells the user: ${JSON.stringify(vscode.__messages)}`);
});

test('definition, references and rename of greet through the LanguageClient', async () => {
  const client = api.client;
  assert.ok(client.initializeResult.capabilities.experimental.kimi, 'kast advertises the Kimi IDE family');
  const pos = { textDocument: { uri: uri('Use.kt') }, position: { line: 2, character: 20 } };
  const defs = await client.sendRequest('textDocument/definition', pos);
  assert.deepEqual([].concat(defs).map(at), ['Greeter.kt:4:5']);

  const refs = await client.sendRequest('textDocument/references', { ...pos, context: { includeDeclaration: false } });
  const got = refs.map(at).sort();
  for (const want of ['SecondaryUse.kt:3:26', 'Use.kt:3:21']) {
    assert.ok(got.includes(want), `references ${got} lack ${want}`);
  }

  const edit = await client.sendRequest('textDocument/rename', { ...pos, newName: 'welcome' });
  const places = Object.entries(edit.changes ?? {}).flatMap(([u, es]) => es.map((e) => `${path.basename(vscode.Uri.parse(u).fsPath)}:${e.range.start.line + 1}`))
    .concat((edit.documentChanges ?? []).flatMap((dc) => dc.edits.map((e) => `${path.basename(vscode.Uri.parse(dc.textDocument.uri).fsPath)}:${e.range.start.line + 1}`)));
  assert.deepEqual(places.sort(), ['Greeter.kt:4', 'SecondaryUse.kt:3', 'Shop.kt:14', 'Use.kt:3']);
});

test('a crashed kast is restarted and answers again', async () => {
  const client = api.client;
  const before = client._serverProcess.pid;
  process.kill(before, 'SIGKILL');
  await h.until(() => client.isRunning() && client._serverProcess && client._serverProcess.pid !== before, 20000, 'a restarted kast');
  const defs = await client.sendRequest('textDocument/definition', { textDocument: { uri: uri('Use.kt') }, position: { line: 2, character: 20 } });
  assert.deepEqual([].concat(defs).map(at), ['Greeter.kt:4:5']);
  assert.ok(vscode.__output.some((l) => l.includes('restarting (1 of 5)')), 'the restart is logged');
});
