// Shared test setup: the real kast binary, a sample workspace, a loopback
// model speaking OpenAI's streaming chat wire, and the VS Code surfaces the
// stub does not have (an extension context with SecretStorage, documents,
// editors, a webview view).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const vscode = require('vscode');

const repo = path.resolve(__dirname, '..', '..', '..');

/** KAST_CMD, or the kast test/build-kast.cjs built from this checkout (npm test runs it first). */
function kastBinary() {
  const bin = process.env.KAST_CMD ?? path.join(__dirname, '..', 'out', 'test-bin', 'kast');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run npm test (it builds kast) or set KAST_CMD`);
  return bin;
}

/** A fresh temporary folder, removed when the test process exits. */
function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of kast's Kotlin sample in a fresh Gradle-style root, plus extra files. */
function sampleWorkspace(extra = {}) {
  const root = tempDir('kast-vscode-');
  fs.cpSync(path.join(repo, 'cmd', 'kast', 'sample', 'src'), path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'settings.gradle.kts'), '');
  for (const [rel, text] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return fs.realpathSync(root);
}

/** kast's config and data in temporary folders, and no provider from the machine's environment. */
function isolate() {
  const home = tempDir('kast-vscode-home-');
  process.env.XDG_CONFIG_HOME = path.join(home, 'config');
  process.env.XDG_DATA_HOME = path.join(home, 'data');
  process.env.XDG_CACHE_HOME = path.join(home, 'cache');
  for (const k of ['KAST_PROVIDER', 'KAST_MODEL', 'KAST_BASE_URL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENROUTER_API_KEY', 'MOONSHOT_API_KEY']) {
    delete process.env[k];
  }
  return home;
}

/**
 * A loopback OpenAI-compatible chat-completions endpoint playing scripted
 * replies in order (the last repeats): {text:[deltas]}, {toolCall:{id,name,
 * arguments}}, {stall:true} (one delta, then nothing until the client goes),
 * {status, body}. requests keeps every request's headers and body.
 */
async function modelServer(script) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      requests.push({ url: req.url, headers: req.headers, body: body ? JSON.parse(body) : null });
      const r = script.length > 1 ? script.shift() : script[0];
      if (r.status) {
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(r.body ?? {}));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (delta, extra = {}) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, ...extra }] })}\n\n`);
      if (r.stall) {
        send({ content: 'working...' });
        return; // left open until the client closes it
      }
      for (const t of r.text ?? []) send({ content: t });
      if (r.toolCall) {
        const c = r.toolCall;
        send({ tool_calls: [{ index: 0, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }] });
        send({}, { finish_reason: 'tool_calls' });
      }
      res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 2, total_tokens: 42 } })}\n\ndata: [DONE]\n\n`);
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => { server.closeAllConnections(); server.close(); } };
}

/** An extension context with a SecretStorage kept in memory. */
function extensionContext() {
  const secrets = new Map();
  const changed = new vscode.EventEmitter();
  return {
    subscriptions: [],
    extensionUri: vscode.Uri.file(path.join(__dirname, '..')),
    extensionPath: path.join(__dirname, '..'),
    secrets: {
      store: async (k, v) => { secrets.set(k, v); changed.fire({ key: k }); },
      get: async (k) => secrets.get(k),
      delete: async (k) => { secrets.delete(k); changed.fire({ key: k }); },
      onDidChange: changed.event,
    },
    __secrets: secrets,
  };
}

/** A read-only document over a file on disk. */
function document(file, languageId) {
  const text = fs.readFileSync(file, 'utf8');
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const offsetAt = (p) => starts[p.line] + p.character;
  return {
    uri: vscode.Uri.file(file), fileName: file, languageId, version: 1, getText: (r) => (r ? text.slice(offsetAt(r.start), offsetAt(r.end)) : text),
    offsetAt, positionAt: (o) => { let l = 0; while (l + 1 < starts.length && starts[l + 1] <= o) l++; return new vscode.Position(l, o - starts[l]); },
  };
}

/** Makes an editor on file, with the given text selected, the active one. */
function openEditor(file, languageId, selected) {
  const doc = document(file, languageId);
  const at = doc.getText().indexOf(selected);
  if (at < 0) throw new Error(`${selected} is not in ${file}`);
  const sel = new vscode.Selection(doc.positionAt(at), doc.positionAt(at + selected.length));
  const inserted = [];
  const editor = { document: doc, selection: sel, inserted, edit: async (fn) => { fn({ insert: (p, t) => inserted.push([p, t]) }); return true; } };
  vscode.window.activeTextEditor = editor;
  vscode.window.visibleTextEditors = [editor];
  return editor;
}

/** A webview view: records what the extension posts; page() sends a message as the page would. */
function webviewView() {
  const posted = [];
  const fromPage = new vscode.EventEmitter();
  const view = {
    webview: { options: {}, html: '', cspSource: 'vscode-webview://test', asWebviewUri: (u) => u,
      postMessage: async (m) => { posted.push(m); return true; }, onDidReceiveMessage: fromPage.event },
    onDidDispose: () => new vscode.Disposable(() => {}), onDidChangeVisibility: () => new vscode.Disposable(() => {}), visible: true, show() {},
  };
  return { view, posted, page: (m) => fromPage.fire(m) };
}

/** Resolves when pred() holds, polling; fails after ms with what was seen. */
async function until(pred, ms = 20000, what = 'condition') {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await pred();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

module.exports = { repo, tempDir, kastBinary, sampleWorkspace, isolate, modelServer, extensionContext, document, openEditor, webviewView, until };
