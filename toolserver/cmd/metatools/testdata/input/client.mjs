// Runs tools through metatools' meta-tools, and gets prompts, whose
// upstream asks the client for input, with an official TypeScript SDK client that
// answers sampling and elicitation, and prints what it saw, as JSON.
// Arguments: the node_modules folder, the SDK ("v1" for
// @modelcontextprotocol/sdk, "v2-2026-07-28" for @modelcontextprotocol/client
// pinned to that revision), the transport ("stdio" or "http"), the
// metatools binary and its configuration (stdio) or the endpoint (http),
// and a JSON list of requests: {tool, args} runs a tool with run_tool,
// {metatool, args} calls a meta-tool, {prompt, args} gets a prompt.
//
// A v1 client is asked by requests of the server during a call; a v2
// client pinned to 2026-07-28 gets input_required results, which its SDK
// answers through the same handlers and retries.
//
// Prints {protocolVersion, results: [{isError, text}], asked: [what the
// handlers were asked]}.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { settle } from "../settle.mjs";

const [modules, sdkName, transport, target, config, requests] = process.argv.slice(2);
const load = (...path) => import(pathToFileURL(join(modules, ...path)).href);

let Client, StdioClientTransport, StreamableHTTPClientTransport, on;
const asked = [];
const sample = (request) => {
  asked.push({ sampling: request.params.messages.at(-1).content.text });
  return { model: "e2e-model", role: "assistant", content: { type: "text", text: "sampled by the e2e client" } };
};
const elicit = (request) => {
  asked.push({ elicitation: request.params.message });
  const fields = request.params.requestedSchema?.properties ?? {};
  const content = "context" in fields ? { context: "an operator's gateway" } : { name: "Ada Lovelace", check: true };
  return { action: "accept", content };
};
const capabilities = { capabilities: { sampling: {}, elicitation: {} } };
let client;
if (sdkName === "v1") {
  const dist = ["@modelcontextprotocol", "sdk", "dist", "esm"];
  ({ Client } = await load(...dist, "client", "index.js"));
  ({ StdioClientTransport } = await load(...dist, "client", "stdio.js"));
  ({ StreamableHTTPClientTransport } = await load(...dist, "client", "streamableHttp.js"));
  const { CreateMessageRequestSchema, ElicitRequestSchema } = await load(...dist, "types.js");
  client = new Client({ name: `input-${sdkName}-${transport}`, version: "1.0.0" }, capabilities);
  client.setRequestHandler(CreateMessageRequestSchema, sample);
  client.setRequestHandler(ElicitRequestSchema, elicit);
} else {
  const dist = ["@modelcontextprotocol", "client", "dist"];
  ({ Client, StreamableHTTPClientTransport } = await load(...dist, "index.mjs"));
  ({ StdioClientTransport } = await load(...dist, "stdio.mjs"));
  client = new Client({ name: `input-${sdkName}-${transport}`, version: "1.0.0" },
    { ...capabilities, versionNegotiation: { mode: { pin: sdkName.slice(3) } } });
  client.setRequestHandler("sampling/createMessage", sample);
  client.setRequestHandler("elicitation/create", elicit);
}
await client.connect(
  transport === "stdio"
    ? new StdioClientTransport({ command: target, args: ["serve", "--config", config], stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target)),
);

// The upstream has been up once before the calls.
await settle(client);

const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const results = [];
for (const req of JSON.parse(requests)) {
  try {
    if (req.prompt) {
      const res = await client.getPrompt({ name: req.prompt, arguments: req.args ?? {} });
      results.push({ isError: false, text: text(res.messages.map((m) => m.content)) });
    } else {
      const call = req.metatool
        ? { name: req.metatool, arguments: req.args ?? {} }
        : { name: "run_tool", arguments: { id: req.tool, args: req.args ?? {} } };
      const res = await client.callTool(call);
      results.push({ isError: res.isError ?? false, text: text(res.content) });
    }
  } catch (e) {
    results.push({ isError: true, text: "protocol error: " + String(e.message ?? e) });
  }
}
const protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
console.log(JSON.stringify({ protocolVersion, results, asked }));
await client.close();
