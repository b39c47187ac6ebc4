// Drives kast's two Kimi wires as their clients do, with no npm packages:
//
//  - `kast kimi --wire-stdio` with a client written after the Kimi IDE
//    extension's WireClient (src/kimi/wire.ts at its first commit): numeric
//    ids, 60 s request timeouts, events as notifications named after the
//    event, submitApproval sent as a notification;
//  - `kast kimi --wire` with a client written to kimi-cli's documented wire
//    mode: string ids, initialize, `event` notifications, approvals answered
//    as JSON-RPC responses to `request`s.
//
// Each completes a turn with an approved file write and an interrupted
// turn. The Go test TestKimiNodeClients (cmd/kast) runs it with KAST_BIN,
// the workspaces and the loopback model URLs in the environment.
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";

const REQUEST_TIMEOUT_MS = 60_000;

// A newline-delimited JSON-RPC peer over a child process.
class LinePeer extends EventEmitter {
  constructor(args, cwd, env) {
    super();
    this.child = spawn(process.env.KAST_BIN, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "ignore"] });
    this.pending = new Map();
    createInterface({ input: this.child.stdout }).on("line", (line) => this.onLine(line));
    this.child.on("exit", (code) => {
      for (const { reject } of this.pending.values()) reject(new Error(`kast exited (${code})`));
      this.pending.clear();
    });
  }
  write(msg) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
  }
  call(id, method, params) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no reply within ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (v) => { clearTimeout(timer); resolve(v); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.write({ id, method, params });
    });
  }
  onLine(line) {
    const msg = JSON.parse(line);
    if (msg.method !== undefined) {
      this.emit("message", msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) throw new Error(`a reply to no request: ${line}`);
    this.pending.delete(msg.id);
    if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
    else p.resolve(msg.result);
  }
  close() {
    this.child.stdin.end();
    return new Promise((resolve) => this.child.once("exit", resolve));
  }
  next(event, pred = () => true) {
    return new Promise((resolve) => {
      const on = (payload) => {
        if (pred(payload)) {
          this.off(event, on);
          resolve(payload);
        }
      };
      this.on(event, on);
    });
  }
}

// The IDE extension's WireClient: numeric ids, events named after the event.
class WireClient extends LinePeer {
  constructor(cwd, env) {
    super(["kimi", "--wire-stdio"], cwd, env);
    this.nextId = 0;
    this.on("message", (msg) => this.emit(msg.method, msg.params));
  }
  request(method, params) { return this.call(++this.nextId, method, params); }
  sendMessage(content, context) { return this.request("sendMessage", { content, context }); }
  interruptTurn(turnId) { return this.request("interruptTurn", { turn_id: turnId }); }
  ping() { return this.request("ping", {}); }
  // The extension sent approvals as notifications.
  submitApproval(requestId, approved, reason) {
    this.write({ method: "submitApproval", params: { request_id: requestId, approved, reason: approved ? undefined : reason } });
  }
}

// A kimi-cli wire client: string ids "<n>_<ms>", approvals as responses.
class KimiWireClient extends LinePeer {
  constructor(cwd, env) {
    super(["kimi", "--wire", "--work-dir", cwd], cwd, env);
    this.n = 0;
    this.on("message", (msg) => {
      if (msg.method === "event") this.emit(msg.params.type, msg.params.payload);
      if (msg.method === "request") this.emit("request", msg);
    });
  }
  request(method, params) { return this.call(`${++this.n}_${Date.now()}`, method, params); }
  respond(id, result) { this.write({ id, result }); }
}

async function ideWire() {
  const ws = process.env.KIMI_IDE_WORKSPACE;
  const client = new WireClient(ws, { KAST_BASE_URL: process.env.KIMI_IDE_MODEL_URL });
  assert.equal(await client.ping(), "pong");

  step("ide ping");
  // A turn with an approved write.
  client.on("ApprovalRequest", (req) => {
    assert.equal(req.type, "file_write");
    assert.equal(req.details.file_path, "hello.txt");
    client.submitApproval(req.request_id, true);
  });
  const ended = client.next("TurnEnd");
  const begun = client.next("TurnBegin");
  assert.equal(await client.sendMessage("write hello.txt", { workspace_root: ws, current_file: join(ws, "notes.md") }), null);
  const turn = await begun;
  assert.equal(turn.user_input, "write hello.txt");
  const end = await ended;
  assert.equal(end.turn_id, turn.turn_id);
  assert.equal(end.finish_reason, "completed");
  assert.equal(readFileSync(join(ws, "hello.txt"), "utf8"), "hello from the IDE wire\n");

  step("ide write done");
  // An interrupted turn.
  const working = client.next("ContentPart", (p) => p.type === "text" && p.text === "working...");
  const begun2 = client.next("TurnBegin");
  const ended2 = client.next("TurnEnd");
  await client.sendMessage("a long task", { workspace_root: ws });
  const turn2 = await begun2;
  await working;
  assert.equal(await client.interruptTurn(turn2.turn_id), null);
  assert.equal((await ended2).finish_reason, "interrupted");
  await assert.rejects(client.interruptTurn(turn2.turn_id), { code: -32000 });
  await client.close();
}

async function kimiCliWire() {
  const ws = process.env.KIMI_WIRE_WORKSPACE;
  const client = new KimiWireClient(ws, { KAST_BASE_URL: process.env.KIMI_WIRE_MODEL_URL });
  const init = await client.request("initialize", { protocol_version: "1.10", client: { name: "node-test", version: "1" } });
  assert.equal(init.protocol_version, "1.10");

  step("wire initialized");
  // A turn with an approved write: the approval is a request answered by a response.
  client.on("request", (msg) => {
    assert.equal(typeof msg.id, "string");
    assert.equal(msg.params.type, "ApprovalRequest");
    // kimi-cli sends a request under its payload's id.
    assert.equal(msg.id, msg.params.payload.id);
    client.respond(msg.id, { request_id: msg.params.payload.id, response: "approve" });
  });
  const approved = client.next("ApprovalResponse");
  const result = await client.request("prompt", { user_input: "write hello.txt" });
  assert.equal(result.status, "finished");
  assert.equal((await approved).response, "approve");
  assert.equal(readFileSync(join(ws, "hello.txt"), "utf8"), "hello from kimi-cli's wire\n");

  step("wire write done");
  // An interrupted turn: cancel, and the prompt answers cancelled.
  const working = client.next("ContentPart", (p) => p.type === "text" && p.text === "working...");
  const prompt = client.request("prompt", { user_input: "a long task" });
  await working;
  assert.deepEqual(await client.request("cancel"), {});
  assert.equal((await prompt).status, "cancelled");
  await assert.rejects(client.request("cancel"), { code: -32000 });
  await client.close();
}

const step = (name) => console.log(`step: ${name}`);
globalThis.step = step;
await ideWire();
step("ide done");
await kimiCliWire();
console.log("ok: both Kimi wires");
