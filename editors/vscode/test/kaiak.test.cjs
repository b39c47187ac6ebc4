// The Kaiak view against the real kast and a loopback model: a Konveyor
// analysis (kast.kaiak.openAnalysis) fills the tree (incidents grouped by file,
// converted by kast), Fix runs kaiak/fix/generate for a file, progress from
// kaiak/stream/* shows on the file, and the proposal is shown as a diff and
// applied once the user approves it (kaiak/interaction/respond).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const h = require('./helpers.cjs');
const ext = require('../out/src/extension.js');

/** The files of a txtar archive. */
function txtar(file) {
  const files = {};
  let name;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^-- (.+) --$/.exec(line);
    if (m) { name = m[1]; files[name] = ''; } else if (name) { files[name] += `${line}\n`; }
  }
  return files;
}

const kast = h.kastBinary();
h.isolate();
const root = fs.realpathSync(h.tempDir('kast-kaiak-'));
for (const [rel, text] of Object.entries(txtar(path.join(h.repo, 'testdata', 'kaiak', 'java.txtar')))) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}
const analysis = path.join(h.repo, 'testdata', 'kaiak', 'java-analysis.yaml');
const order = 'src/main/java/com/example/Order.java';
vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(root), name: 'java', index: 0 }];

const script = [];
let model;
test.before(async () => {
  model = await h.modelServer(script);
  Object.assign(vscode.__settings, { 'kast.server.path': kast, 'kimi.baseUrl': model.url });
  const context = h.extensionContext();
  await context.secrets.store('kast.apiKey', 'sk-kaiak-test-key');
  await ext.activate(context, () => () => '');
});
test.after(async () => {
  await ext.deactivate();
  model.close();
});

test('an opened Konveyor analysis fills the view; Fix on a file proposes a diff that is applied once approved', async () => {
  const [, viewId, tree] = vscode.__registrations.find((r) => r[0] === 'treeData');
  assert.equal(viewId, 'kast.kaiak');
  let refreshed = 0;
  tree.onDidChangeTreeData(() => refreshed++);
  await vscode.commands.executeCommand('kast.kaiak.openAnalysis', analysis);
  const files = tree.getChildren();
  assert.ok(files.length >= 3, JSON.stringify(files.map((f) => f.file)));
  const orderNode = files.find((f) => f.file === order);
  assert.ok(orderNode, 'Order.java is a group');
  const item = tree.getTreeItem(orderNode);
  assert.equal(item.contextValue, 'kaiakFile');
  assert.match(item.description, /^\d+ incident\(s\)$/);
  const incidents = tree.getChildren(orderNode);
  assert.ok(incidents.length >= 1);
  assert.match(tree.getTreeItem(incidents[0]).label, /^\d+: /);

  script.length = 0;
  script.push(
    { toolCall: { id: 'c1', name: 'edit_file', arguments: JSON.stringify({ path: order, edits: [
      { old_text: 'import javax.persistence.Entity;', new_text: 'import jakarta.persistence.Entity;' },
      { old_text: 'import javax.persistence.Id;', new_text: 'import jakarta.persistence.Id;' }],
    description: 'Replace javax.persistence with jakarta.persistence', confidence: 0.9 }) } },
    { text: ['Replaced the imports.'] });
  const asked = [];
  vscode.window.showInformationMessage = async (m, ...buttons) => { asked.push([m, buttons]); return buttons.includes('Apply') ? 'Apply' : undefined; };
  await vscode.commands.executeCommand('kast.kaiak.fix', orderNode);
  await h.until(() => tree.status(order) === 'fixed', 30000, `the fix to finish (status ${tree.status(order)})`);
  assert.ok(refreshed > 2, 'progress refreshed the tree');
  const diff = vscode.commands._builtin.find(([id]) => id === 'vscode.diff');
  assert.ok(diff, 'the proposal was shown as a diff');
  assert.equal(diff[1].fsPath, path.join(root, order));
  const proposed = tree.provideTextDocumentContent(diff[2]);
  assert.match(proposed, /import jakarta\.persistence\.Entity;/);
  assert.deepEqual(asked[0][1], ['Apply', 'Reject']);
  assert.equal(tree.decisions.length, 1);
  assert.equal(tree.decisions[0].approved, true);
  const text = fs.readFileSync(path.join(root, order), 'utf8');
  assert.match(text, /import jakarta\.persistence\.Entity;\nimport jakarta\.persistence\.Id;/);
  // Refresh reads the analysis again: the statuses start over.
  assert.equal(await vscode.commands.executeCommand('kast.kaiak.refresh'), files.flatMap((f) => f.incidents).length);
  assert.equal(tree.status(order), undefined);
});
