// The page under a real browser: a loopback static server that serves the
// HTML chatHtml() builds (with its CSP) and the built bundle, and Debian's
// Chromium driven by playwright-core with VS Code's webview API replaced by
// a recorder. Only that API is fake; the page, its CSP and the browser are real.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const pageDir = join(here, '..');
export const repoDir = join(pageDir, '..', '..', '..');
export const artifacts = process.env.KAST_ARTIFACTS || join(pageDir, 'test-artifacts');

/** findChromium returns Debian's Chromium, or undefined where it is not installed. */
export function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => p && existsSync(p));
}

/** recording reads a recorded turn from testdata/vscode. */
export function recording(name) {
  return JSON.parse(readFileSync(join(repoDir, 'testdata', 'vscode', name), 'utf8')).messages;
}

const types = { '.js': 'text/javascript', '.css': 'text/css' };

/** serve starts the static server; every page load gets a fresh nonce. */
export async function serve() {
  const { chatHtml } = await import(join(pageDir, 'dist', 'html.mjs'));
  const files = { '/dist/chat.js': join(pageDir, 'dist', 'chat.js'), '/chat.css': join(pageDir, 'chat.css') };
  const server = createServer((req, res) => {
    const origin = `http://${req.headers.host}`;
    const path = new URL(req.url ?? '/', origin).pathname;
    if (path === '/') {
      const nonce = randomBytes(16).toString('base64');
      const html = chatHtml({ cspSource: origin, nonce, scriptUri: `${origin}/dist/chat.js`, styleUri: `${origin}/chat.css` });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      return;
    }
    const file = files[path];
    if (path === '/favicon.ico') {
      res.writeHead(204).end(); // the browser asks on its own; a webview never does
      return;
    }
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[file.slice(file.lastIndexOf('.'))] }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

export async function launch() {
  return chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
}

// Runs in the page before the bundle, as VS Code's preload does: the API
// may be acquired once, and its state survives a reload as VS Code keeps it
// (serialised), here in sessionStorage.
function fakeVsCodeApi() {
  let acquired = false;
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi may only be called once');
    acquired = true;
    return {
      postMessage: (m) => window.__kastPosted(JSON.parse(JSON.stringify(m))),
      getState: () => {
        const s = sessionStorage.getItem('vscode-state');
        return s === null ? undefined : JSON.parse(s);
      },
      setState: (s) => {
        sessionStorage.setItem('vscode-state', JSON.stringify(s));
        return s;
      },
    };
  };
}

/**
 * openChat opens the page in a fresh browser context and returns helpers:
 * posted (what the page sent the extension), send (a message from the
 * extension), waitPosted, shot (a screenshot artefact), problems (page
 * errors and CSP violations). onPost sees each message as the page posts it.
 */
export async function openChat(browser, url, { clock, onPost } = {}) {
  const context = await browser.newContext({ viewport: { width: 460, height: 900 } });
  const page = await context.newPage();
  const posted = [];
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.exposeFunction('__kastPosted', (m) => {
    posted.push(m);
    onPost?.(m);
  });
  await page.addInitScript(fakeVsCodeApi);
  if (clock) {
    // Paused before the page loads, so the page's 250 ms countdown ticks
    // fall on whole steps of the fake time and runFor lands on one. (The
    // fake time runs until paused; a minute ahead is never in its past.)
    await page.clock.install({ time: clock });
    await page.clock.pauseAt(new Date(clock).getTime() + 60_000);
  }
  await page.goto(url);
  const chat = {
    page,
    posted,
    // send returns once the page has handled the message: a posted message
    // is delivered later, and an assertion right after it read the page as
    // it was before (a listener added now runs after the page's own).
    async send(message) {
      await page.evaluate((m) => new Promise((handled) => {
        window.addEventListener('message', () => handled(), { once: true });
        window.postMessage(m, '*');
      }), message);
    },
    async sendAll(messages) {
      for (const m of messages) await chat.send(m);
    },
    async waitPosted(match, what = JSON.stringify(match)) {
      const found = () => posted.find((m) => Object.entries(match).every(([k, v]) => JSON.stringify(m[k]) === JSON.stringify(v)));
      for (let i = 0; i < 200 && !found(); i++) await new Promise((r) => setTimeout(r, 25));
      if (!found()) throw new Error(`the page did not post ${what}; it posted ${JSON.stringify(posted)}`);
      return found();
    },
    async shot(name) {
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
    },
    async problems() {
      const csp = await page.evaluate(() => window.__csp);
      return [...errors, ...csp.map((v) => `CSP violation: ${v}`)];
    },
    close: () => context.close(),
  };
  await chat.waitPosted({ type: 'ready' });
  return chat;
}
