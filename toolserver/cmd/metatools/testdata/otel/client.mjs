// Calls metatools' tools with the official TypeScript SDK v2 client over
// standard input and output, each request carrying a W3C trace context in
// its _meta, as a traced agent does, and prints the text of each result,
// as a JSON list. Arguments: the node_modules folder, the metatools
// binary, its configuration, the traceparent, and a JSON list of calls
// {name, arguments}.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { settle } from "../settle.mjs";

const [modules, binary, config, traceparent, calls] = process.argv.slice(2);
const dist = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "client", "dist", file)).href);
const { Client } = await dist("index.mjs");
const { StdioClientTransport } = await dist("stdio.mjs");

const client = new Client({ name: "otel-e2e", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: binary, args: ["serve", "--config", config], stderr: "inherit", env: process.env }));
// The upstream has been up once before the calls.
await settle(client);
const texts = [];
for (const call of JSON.parse(calls)) {
  const res = await client.callTool({ ...call, _meta: { traceparent } });
  texts.push((res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"));
}
console.log(JSON.stringify(texts));
await client.close();
