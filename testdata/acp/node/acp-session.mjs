// Drives `kast acp` with the official ACP SDK client (@agentclientprotocol/sdk,
// pinned in package.json): initialize, session/new, a prompt that streams
// text and writes a file after the user allows it once, a second write the
// user rejects, a prompt cancelled mid-turn, a mode change, then session/load
// in a new kast process, which must replay the whole history before it
// answers and come back in that mode.
// TestACPNodeClient (cmd/kast) runs it with KAST_BIN, ACP_WORKSPACE and the
// loopback model's environment set.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";

const workspace = process.env.ACP_WORKSPACE;
const answers = ["allow_once", "reject_once"];

// session runs fn against a fresh `kast acp` and returns the updates seen.
async function session(fn) {
  const proc = spawn(process.env.KAST_BIN, ["acp"], { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));
  const updates = [];
  const listeners = [];
  const app = acp.client({ name: "kast-acp-test" })
    .onNotification(acp.methods.client.session.update, async ({ params }) => {
      updates.push(params.update);
      for (const l of listeners) l(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      const optionId = answers.shift();
      assert.ok(optionId, "an unexpected permission request");
      assert.ok(params.options.some((o) => o.optionId === optionId));
      return { outcome: { outcome: "selected", optionId } };
    });
  try {
    await app.connectWith(stream, (ctx) => fn(ctx, updates, listeners));
  } finally {
    proc.kill();
  }
  return updates;
}

const texts = (updates, kind) => updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");

let sessionId;
const live = await session(async (ctx, updates, listeners) => {
  const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  const s = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  sessionId = s.sessionId;

  // 1. Streamed text and an edit the user allows once.
  let r = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write hello" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(readFileSync(join(workspace, "hello.txt"), "utf8"), "hello from ACP\n");
  const call = updates.find((u) => u.sessionUpdate === "tool_call");
  assert.equal(call.kind, "edit");
  assert.equal(call.content[0].type, "diff");
  assert.equal(texts(updates, "agent_message_chunk"), "Written.");

  // 2. The next edit is rejected: the file keeps its text.
  r = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "change it" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(readFileSync(join(workspace, "hello.txt"), "utf8"), "hello from ACP\n");
  assert.ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"));

  // 3. Cancelled mid-turn, once text has streamed.
  const before = updates.length;
  const streaming = new Promise((resolve) => listeners.push((u) => { if (u.sessionUpdate === "agent_message_chunk") resolve(); }));
  const pending = ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "take your time" }] });
  await streaming;
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  r = await pending;
  assert.equal(r.stopReason, "cancelled");
  assert.ok(updates.length > before);

  // 4. The mode outlives the process: it is kept in the session file.
  await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "acceptEdits" });
});

// 5. A new process loads the session, in the mode it left, and replays it
// before answering.
const replayed = await session(async (ctx, updates) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
  assert.equal(loaded.modes.currentModeId, "acceptEdits");
  const users = updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
  assert.deepEqual(users, ["write hello", "change it", "take your time"]);
  assert.ok(texts(updates, "agent_message_chunk").startsWith("Written.Not changed."));
  const calls = updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
  assert.deepEqual(calls, ["c1", "c2"]);
  const results = updates.filter((u) => u.sessionUpdate === "tool_call_update").map((u) => u.status);
  assert.deepEqual(results, ["completed", "failed"]);
});
console.log(`live updates: ${live.length}, replayed: ${replayed.length}`);
