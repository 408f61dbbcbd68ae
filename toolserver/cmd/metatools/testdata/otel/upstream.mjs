// An MCP server over standard input and output with one tool, "meta",
// that answers with the _meta of the request that called it, as JSON: it
// shows what trace context reached the server. Its only argument is the
// node_modules folder holding @modelcontextprotocol/sdk.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.argv[2];
const sdk = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "server", file)).href);
const { McpServer } = await sdk("mcp.js");
const { StdioServerTransport } = await sdk("stdio.js");

const server = new McpServer({ name: "meta", version: "1.0.0" });
server.registerTool("meta", { description: "Answer with the _meta of the request." },
  async (extra) => ({ content: [{ type: "text", text: JSON.stringify(extra._meta ?? {}) }] }));
await server.connect(new StdioServerTransport());
