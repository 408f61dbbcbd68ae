// Measures what execute_code costs an agent over streamable HTTP: with
// the official TypeScript SDK's client, it runs a JavaScript program
// making ten tool calls one after the other (math:eval, built in), once
// as the first execution of the server, then N times more, and times
// each round trip of callTool. Each program evaluates other expressions,
// and its value is checked; a wrong value fails the script, so that no
// figure comes from a program that did not do its work. Prints JSON:
// {first, times (ms), values, calls, isolation}. Arguments: the
// node_modules folder holding @modelcontextprotocol/sdk, the MCP
// endpoint, the bearer token, and N.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [modules, endpoint, token, count] = process.argv.slice(2);
const runs = Number(count);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`N must be a positive integer, not ${JSON.stringify(count)}`);
const sdk = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "client", file)).href);
const { Client } = await sdk("index.js");
const { StreamableHTTPClientTransport } = await sdk("streamableHttp.js");

const client = new Client({ name: "code-mode-latency", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);

// Wait until the everything upstream is up, so that its start does not
// share the machine with the first execution.
for (let i = 0; ; i++) {
  const res = await client.callTool({ name: "list_namespaces", arguments: {} });
  if (res.structuredContent.namespaces.includes("everything")) break;
  if (i > 300) throw new Error("the everything upstream did not come up");
  await new Promise((r) => setTimeout(r, 100));
}

const calls = 10;
// Execution i evaluates i*100 + k for k = 0..9, one call after the other.
const program = (i) =>
  "const values = [];\n" +
  `for (let k = 0; k < ${calls}; k++) {\n` +
  `  const r = await tools.math.eval({ expression: \`${i}*100 + \${k}\` });\n` +
  "  values.push(r.value);\n" +
  "}\n" +
  "return values;";
const want = (i) => Array.from({ length: calls }, (_, k) => i * 100 + k);
const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const isolation = [];
const values = [];
const traced = [];
const run = async (i) => {
  const start = performance.now();
  const res = await client.callTool({ name: "execute_code", arguments: { language: "javascript", code: program(i) } });
  const ms = performance.now() - start;
  if (res.isError) throw new Error(`execution ${i} failed: ${text(res)}`);
  const { value, trace } = res.structuredContent;
  if (JSON.stringify(value) !== JSON.stringify(want(i))) {
    throw new Error(`execution ${i} returned ${JSON.stringify(value)}, want ${JSON.stringify(want(i))}`);
  }
  values.push(value);
  traced.push(trace.filter((c) => c.ok).length);
  isolation.push(res._meta?.["dev.metatools/isolation"] ?? {});
  return ms;
};

const first = await run(0);
const times = [];
for (let i = 1; i <= runs; i++) times.push(await run(i));

console.log(JSON.stringify({ first, times, values, calls: traced, isolation }));
await client.close();
