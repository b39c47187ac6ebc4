// Plays an editor that the README configures: starts exactly the command,
// arguments and environment an editor-setup block names (EDITOR_SETUP, as
// JSON: {command, args, env, authMethod}) with the official ACP SDK client
// and runs what an editor does first: initialize, authenticate when the
// set-up names a method, session/new in ACP_WORKSPACE, and a prompt whose
// streamed answer must arrive before end_turn.
// TestEditorSetups (cmd/kast) runs it once per README block.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";

const setup = JSON.parse(process.env.EDITOR_SETUP);
const workspace = process.env.ACP_WORKSPACE;
const proc = spawn(setup.command, setup.args, {
  cwd: workspace,
  env: { ...process.env, ...setup.env },
  stdio: ["pipe", "pipe", "inherit"],
});
const spawned = new Promise((resolve, reject) => {
  proc.once("spawn", resolve);
  proc.once("error", reject);
});
await spawned;
const stream = acp.ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));
const chunks = [];
const app = acp.client({ name: "kast-editor-setup-test" })
  .onNotification(acp.methods.client.session.update, async ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") chunks.push(params.update.content.text);
  });
try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    assert.equal(init.protocolVersion, 1);
    if (setup.authMethod) {
      assert.ok(init.authMethods.some((m) => m.id === setup.authMethod), `kast offers no auth method ${setup.authMethod}`);
      await ctx.request(acp.methods.agent.authenticate, { methodId: setup.authMethod });
    }
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const r = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    assert.equal(r.stopReason, "end_turn");
    assert.equal(chunks.join(""), process.env.EXPECT_TEXT);
  });
} finally {
  proc.kill();
}
console.log(`${setup.command} ${setup.args.join(" ")}: initialize, ${setup.authMethod ? "authenticate, " : ""}session/new, prompt → "${chunks.join("")}"`);
