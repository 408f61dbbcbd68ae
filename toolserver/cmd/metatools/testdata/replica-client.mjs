// An MCP client on the official TypeScript SDK that makes the calls of
// the replica test and prints their results, one JSON array on standard
// output. Arguments: the node_modules folder holding
// @modelcontextprotocol/sdk, the MCP endpoint, and a file holding the
// calls as a JSON array of {name, arguments}. The bearer token comes from
// METATOOLS_TOKEN.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, endpoint, callsFile] = process.argv.slice(2);
const sdk = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "client", file)).href);
const { Client } = await sdk("index.js");
const { StreamableHTTPClientTransport } = await sdk("streamableHttp.js");

const calls = JSON.parse(await readFile(callsFile, "utf8"));
const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.METATOOLS_TOKEN}` } },
});
const client = new Client({ name: "replica-e2e", version: "1.0.0" });
await client.connect(transport);
const results = [];
for (const call of calls) {
  results.push(await client.callTool({ name: call.name, arguments: call.arguments }));
}
await client.close();
process.stdout.write(JSON.stringify(results));
