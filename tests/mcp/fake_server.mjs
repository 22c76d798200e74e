// A deliberately odd MCP server over stdio, for what the reference server never does:
// tools/list in pages of two (nextCursor), a tool that adds a tool and announces it
// (notifications/tools/list_changed), garbage on stdout, a response that is not valid
// JSON-RPC, an oversized message, and (mode "old-version") a protocol version nobody speaks.
// Usage: node fake_server.mjs [normal|old-version]
import readline from "node:readline";

const mode = process.argv[2] || "normal";
const tools = ["alpha", "beta", "gamma", "add_tool", "bad_response", "huge"].map((name) => ({
  name,
  description: `fake tool ${name}`,
  inputSchema: { type: "object", properties: { size: { type: "number" } } },
}));

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const answer = (id, result) => send({ jsonrpc: "2.0", id, result });
const text = (value) => ({ content: [{ type: "text", text: value }] });

function listTools(id, params) {
  const start = Number(params?.cursor ?? 0);
  const page = tools.slice(start, start + 2);
  const next = start + 2 < tools.length ? String(start + 2) : undefined;
  answer(id, next ? { tools: page, nextCursor: next } : { tools: page });
}

function callTool(id, params) {
  switch (params.name) {
    case "add_tool":
      tools.push({ name: "extra", description: "added later", inputSchema: { type: "object" } });
      answer(id, text("added"));
      send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      return;
    case "bad_response":
      send({ jsonrpc: "2.0", id });
      return;
    case "huge":
      answer(id, text("x".repeat(params.arguments?.size ?? 3000000)));
      return;
    default:
      process.stdout.write("this line is not JSON\n");
      answer(id, text(`${params.name} ran`));
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;  // notifications
  switch (message.method) {
    case "initialize":
      process.stdout.write("a banner the server should not print\n");
      answer(message.id, {
        protocolVersion: mode === "old-version" ? "1999-01-01" : "2025-06-18",
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "fake", version: "1" },
      });
      return;
    case "tools/list":
      return listTools(message.id, message.params);
    case "tools/call":
      return callTool(message.id, message.params);
    default:
      send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no such method" } });
  }
});
