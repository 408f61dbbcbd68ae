// Calls metatools' meta-tools with an official TypeScript SDK client and
// prints what it answered, as JSON. Arguments: the node_modules folder,
// the SDK ("v1" for @modelcontextprotocol/sdk, "v2" for
// @modelcontextprotocol/client, "v2-2026-07-28" for it pinned to the
// revision 2026-07-28), the transport ("stdio" or "http"), the
// metatools binary and its configuration (stdio) or the endpoint (http),
// and a JSON file of calls [{name, tool, args, follow} or {name, method,
// args}]; a call with follow set goes on with each answer's nextCursor,
// and answers the tools of every page together; a call with a method
// calls that method of the client (readResource, getPrompt, ...) with
// args. Over HTTP, FACES_TOKEN is sent as a bearer token; FACES_NO_WAIT
// set skips the wait for the upstreams (for a token that may not list
// them).
//
// Prints {tools: [names of tools/list], answers: {name: {isError, text,
// structured}}, protocolVersion} (the revision negotiated, as SDK v2
// reports it); a method answers {result}, and a call that fails as a
// request (an unknown tool name, a refused method) answers
// {protocolError: message, protocolCode: code}.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { readFileSync } from "node:fs";

const [modules, sdkName, transport, target, config, callsFile] = process.argv.slice(2);
const load = (...path) => import(pathToFileURL(join(modules, ...path)).href);

let Client, StdioClientTransport, StreamableHTTPClientTransport;
if (sdkName === "v1") {
  const dist = ["@modelcontextprotocol", "sdk", "dist", "esm", "client"];
  ({ Client } = await load(...dist, "index.js"));
  ({ StdioClientTransport } = await load(...dist, "stdio.js"));
  ({ StreamableHTTPClientTransport } = await load(...dist, "streamableHttp.js"));
} else {
  const dist = ["@modelcontextprotocol", "client", "dist"];
  ({ Client, StreamableHTTPClientTransport } = await load(...dist, "index.mjs"));
  ({ StdioClientTransport } = await load(...dist, "stdio.mjs"));
}

const pinned = sdkName.startsWith("v2-") ? { versionNegotiation: { mode: { pin: sdkName.slice(3) } } } : {};
const client = new Client({ name: `faces-${sdkName}-${transport}`, version: "1.0.0" }, pinned);
await client.connect(
  transport === "stdio"
    ? new StdioClientTransport({ command: target, args: ["serve", "--config", config], stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target), {
        requestInit: process.env.FACES_TOKEN ? { headers: { Authorization: `Bearer ${process.env.FACES_TOKEN}` } } : undefined,
      }),
);

// Every upstream has been up or failed once before the calls.
for (let i = 0; !process.env.FACES_NO_WAIT; i++) {
  const res = await client.callTool({ name: "list_namespaces", arguments: {} });
  const ups = res.structuredContent?.upstreams ?? [];
  // The upstreams' prompts are served once they are listed, after they are up.
  const served = ups.some((u) => u.state === "up" && u.name !== "builtin") ? (await client.listPrompts()).prompts.length > 0 : true;
  if (ups.length > 0 && ups.every((u) => u.state !== "connecting") && served) break;
  if (i > 300) throw new Error("the upstreams did not settle: " + JSON.stringify(ups));
  await new Promise((r) => setTimeout(r, 100));
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const answers = {};
for (const call of JSON.parse(readFileSync(callsFile, "utf8"))) {
  try {
    if (call.method) {
      answers[call.name] = { result: await client[call.method](call.args) };
      continue;
    }
    let res = await client.callTool({ name: call.tool, arguments: call.args });
    if (call.follow) {
      const tools = [...res.structuredContent.tools];
      const pages = [tools.length];
      while (!res.isError && res.structuredContent.nextCursor) {
        res = await client.callTool({ name: call.tool, arguments: { ...call.args, cursor: res.structuredContent.nextCursor } });
        tools.push(...(res.structuredContent?.tools ?? []));
        pages.push(res.structuredContent?.tools?.length ?? 0);
      }
      res = { ...res, structuredContent: { tools, pages } };
    }
    answers[call.name] = { isError: res.isError ?? false, text: text(res), structured: res.structuredContent ?? null };
  } catch (e) {
    answers[call.name] = { protocolError: String(e.message ?? e), protocolCode: e.code ?? null };
  }
}
const tools = (await client.listTools()).tools.map((t) => t.name).sort();
const protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
console.log(JSON.stringify({ tools, answers, protocolVersion }));
await client.close();
