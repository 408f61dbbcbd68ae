// An MCP server over stdio, written with the official TypeScript SDK,
// that offers one tool, one resource, one resource template and one
// prompt, each named after its label, and completes the template's and
// the prompt's arguments. Arguments: the node_modules folder and the
// label ("docs" offers docs://note, docs://notes/{id}, the prompt greet
// and the tool note).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, label] = process.argv.slice(2);
const load = (...path) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", ...path)).href);
const { Server } = await load("server", "index.js");
const { StdioServerTransport } = await load("server", "stdio.js");
const types = await load("types.js");

const server = new Server(
  { name: `faces-${label}`, version: "1.0.0" },
  { capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} } },
);
const note = `the ${label} note`;
server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
  tools: [{ name: "note", description: `Read the ${label} note.`, inputSchema: { type: "object", properties: {} } }],
}));
server.setRequestHandler(types.CallToolRequestSchema, async () => ({ content: [{ type: "text", text: note }] }));
server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({
  resources: [{ uri: `${label}://note`, name: "note", mimeType: "text/plain" }],
}));
server.setRequestHandler(types.ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [{ uriTemplate: `${label}://notes/{id}`, name: "notes" }],
}));
server.setRequestHandler(types.ReadResourceRequestSchema, async (req) => ({
  contents: [{ uri: req.params.uri, mimeType: "text/plain", text: note }],
}));
server.setRequestHandler(types.ListPromptsRequestSchema, async () => ({
  prompts: [{ name: "greet", description: `Greet from ${label}.`, arguments: [{ name: "who", required: true }] }],
}));
server.setRequestHandler(types.GetPromptRequestSchema, async (req) => ({
  messages: [{ role: "user", content: { type: "text", text: `hello ${req.params.arguments?.who} from ${label}` } }],
}));
server.setRequestHandler(types.CompleteRequestSchema, async () => ({
  completion: { values: [`${label}-1`, `${label}-2`], hasMore: false },
}));
await server.connect(new StdioServerTransport());
