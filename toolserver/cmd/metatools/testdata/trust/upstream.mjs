// An MCP server whose tools are those of a JSON file (an array of
// {name, description, inputSchema}), read again each time the file
// changes: it then tells its clients that its tools changed
// (notifications/tools/list_changed). Each tool answers with its name.
//
// Usage: node upstream.mjs NODE_MODULES TOOLS.json [stdio | http]
// Over http it listens on a port of 127.0.0.1 and prints the endpoint's
// URL on its standard output.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync, watch } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, toolsFile, transport = "stdio"] = process.argv.slice(2);
const esm = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", file)).href);
const { Server } = await esm("server/index.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = await esm("types.js");

let tools = JSON.parse(readFileSync(toolsFile, "utf8"));
const servers = new Set();

function newServer() {
  const server = new Server({ name: "trust-upstream", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: "text", text: `ran ${req.params.name}` }] }));
  servers.add(server);
  server.onclose = () => servers.delete(server);
  return server;
}

watch(toolsFile, () => {
  let next;
  try {
    next = JSON.parse(readFileSync(toolsFile, "utf8"));
  } catch {
    return; // written halfway: the next event reads it whole
  }
  if (JSON.stringify(next) === JSON.stringify(tools)) return;
  tools = next;
  for (const server of servers) server.sendToolListChanged().catch(() => {});
});

if (transport === "stdio") {
  const { StdioServerTransport } = await esm("server/stdio.js");
  await newServer().connect(new StdioServerTransport());
} else {
  const { StreamableHTTPServerTransport } = await esm("server/streamableHttp.js");
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    }
    let t = sessions.get(req.headers["mcp-session-id"]);
    if (!t) {
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, t) });
      t.onclose = () => sessions.delete(t.sessionId);
      await newServer().connect(t);
    }
    await t.handleRequest(req, res, body);
  });
  http.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
}
