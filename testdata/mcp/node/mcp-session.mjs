// Drives `kast mcp` with the official MCP TypeScript SDK client over stdio,
// as Claude Desktop, the MCP Inspector and other TypeScript hosts do: the
// handshake, tools/list with every tool's schema, one call of each tool with
// its structured result, a page cursor, and an invalid-params error.
// Run by TestMCPNodeClient (cmd/kast), which sets KAST_BIN and MCP_WORKSPACE.
import assert from "node:assert/strict";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const ws = process.env.MCP_WORKSPACE;
const transport = new StdioClientTransport({
  command: process.env.KAST_BIN,
  args: ["mcp", "--root", ws],
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "kast-node-test", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
assert.equal(info.name, "kast-ck");
assert.ok(client.getServerCapabilities().tools, "tools capability");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, [
  "default_ckignore", "health_check", "hybrid_search", "index_status",
  "lexical_search", "regex_search", "reindex", "semantic_search",
]);
for (const t of tools) {
  assert.equal(t.inputSchema.type, "object", `${t.name} schema`);
}

// The SDK validates structuredContent against each tool's outputSchema
// when one is declared; a mismatch would throw here.
async function ok(name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
  assert.equal(res.content[0].type, "text", `${name} text content`);
  return res.structuredContent;
}

assert.equal((await ok("health_check", {})).status, "healthy");

const rx = await ok("regex_search", { pattern: "func \\w+Config", path: ws });
assert.equal(rx.results.matches.length, 1);
assert.equal(rx.results.matches[0].file.path, path.join(ws, "pkg", "config.go"));
assert.equal(rx.results.matches[0].match.line_number, 6);

for (const [tool, query, want] of [
  ["lexical_search", "retry backoff", "retry_with_backoff"],
  ["semantic_search", "parse config", "ParseConfig"],
  ["hybrid_search", "handle request", "HTTPServer.HandleRequest"],
]) {
  const out = await ok(tool, { query, path: ws, top_k: 3 });
  assert.ok(out.results.matches.length > 0, `${tool}: no matches`);
  assert.equal(out.results.matches[0].match.name, want, `${tool} first match`);
  assert.equal(typeof out.results.matches[0].match.score, "number", `${tool} score`);
}

// Unknown arguments are ignored, as ck's server ignores them.
await ok("regex_search", { pattern: "x", path: ws, bogus: 1 });

// Pages: three of three lines, the cursor carried back.
let cursor;
const seen = new Set();
for (let page = 1; page <= 3; page++) {
  const args = { pattern: "func|type|return", path: ws, page_size: 3 };
  if (cursor) args.cursor = cursor;
  const out = await ok("regex_search", args);
  assert.equal(out.results.count, 3, `page ${page}`);
  for (const m of out.results.matches) seen.add(`${m.file.path}:${m.match.line_number}`);
  cursor = out.pagination.next_cursor;
}
assert.equal(seen.size, 9, "pages overlap");

const status = await ok("index_status", { path: ws });
assert.equal(status.indexed, true);
assert.ok(status.file_count >= 4);
assert.ok(!String(status.last_updated).startsWith("0001"), "last_updated set");

const ckignore = await ok("default_ckignore", {});
assert.ok(ckignore.ckignore.includes("*.png") && ckignore.length > 0, "default .ckignore");

assert.equal((await ok("reindex", { path: ws })).status, "success");

// A path outside the root is invalid params, an McpError the SDK raises.
await assert.rejects(
  client.callTool({ name: "regex_search", arguments: { pattern: "x", path: "/etc" } }),
  (err) => err instanceof McpError && err.code === -32602,
);
// A negative top_k is refused, an unsigned field as ck validates it.
await assert.rejects(
  client.callTool({ name: "lexical_search", arguments: { query: "x", path: ws, top_k: -1 } }),
  (err) => err instanceof McpError && err.code === -32602,
);

await client.close();
console.log(`ok: ${names.length} tools, ${seen.size} paged lines`);
