// An MCP server that takes its time to start: it waits DELAY_MS
// milliseconds (3000 by default) before it speaks MCP on standard input
// and output, then offers one tool, "sundial". Its only argument is the
// node_modules folder holding @modelcontextprotocol/sdk.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.argv[2];
const sdk = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "server", file)).href);
const { McpServer } = await sdk("mcp.js");
const { StdioServerTransport } = await sdk("stdio.js");

await new Promise((resolve) => setTimeout(resolve, Number(process.env.DELAY_MS ?? 3000)));
const server = new McpServer({ name: "slow", version: "1.0.0" });
server.registerTool("sundial", { description: "Tell the time from the shadow of a sundial, slowly." },
  async () => ({ content: [{ type: "text", text: "noon, roughly" }] }));
await server.connect(new StdioServerTransport());
