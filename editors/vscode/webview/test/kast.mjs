// What stands in for VS Code's extension host in the live page test: the
// real kast binary (`kast lsp --stdio`, Content-Length framed) and a
// loopback model speaking the OpenAI-compatible streaming wire that kast's
// Moonshot provider talks. Only the model is replaced.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';

/**
 * startModel serves scripted chat-completions replies in order (the last
 * repeats). A reply is {think?: string[], text?: string[], toolCall?: {id,
 * name, arguments}, stall?: true}.
 */
export async function startModel(replies) {
  let next = 0;
  const requests = [];
  const open = new Set();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push(body);
      const r = replies[Math.min(next++, replies.length - 1)];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, extra = {}) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, ...extra }] })}\n\n`);
      if (r.stall) {
        chunk({ content: 'working...' });
        open.add(res);
        res.on('close', () => open.delete(res));
        return; // nothing more until kast gives up on it
      }
      for (const t of r.think ?? []) chunk({ reasoning_content: t });
      for (const t of r.text ?? []) chunk({ content: t });
      if (r.toolCall) {
        const { id, name, arguments: args } = r.toolCall;
        chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
        chunk({}, { finish_reason: 'tool_calls' });
      }
      res.end('data: {"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":2,"total_tokens":42}}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => {
      for (const res of open) res.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

/** Kast is `kast lsp --stdio` with a JSON-RPC client over its pipes. */
export class Kast extends EventEmitter {
  constructor(bin, cwd, env) {
    super();
    this.child = spawn(bin, ['lsp', '--stdio'], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.child.stderr.on('data', (d) => (this.stderr += d));
    this.nextId = 1;
    this.pending = new Map();
    this.buffer = Buffer.alloc(0);
    this.child.stdout.on('data', (d) => this.read(d));
    this.child.on('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`kast exited (${code}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  write(msg) {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }));
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ id, method, params });
    });
  }

  notify(method, params) {
    this.write({ method, params });
  }

  read(data) {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: *(\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const msg = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString());
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.dispatch(msg);
    }
  }

  dispatch(msg) {
    if (msg.id !== undefined && msg.method === undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p?.reject(Object.assign(new Error(msg.error.message), { data: msg.error }));
      else p?.resolve(msg.result);
    } else if (msg.id !== undefined) {
      // A server→client request (progress tokens, configuration): VS Code
      // answers these; null is an acceptable answer to each.
      this.write({ id: msg.id, result: null });
    } else {
      this.emit('notification', msg.method, msg.params);
    }
  }

  async start(rootUri) {
    const init = await this.request('initialize', { processId: process.pid, rootUri, capabilities: {} });
    this.notify('initialized', {});
    return init;
  }

  async stop() {
    try {
      await this.request('shutdown');
      this.notify('exit');
    } catch {
      // already gone
    }
    await new Promise((r) => (this.child.exitCode !== null ? r() : this.child.on('exit', r)));
  }
}
