// Drives `metatools serve` over stdio with the official TypeScript SDK
// client: runs a TypeScript program through execute_code, then the same
// ten calls through run_tool, and prints what each path made the agent
// read, as JSON. Arguments: the node_modules folder holding
// @modelcontextprotocol/sdk, the metatools binary, its configuration, and
// the program.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { readFileSync } from "node:fs";

const [modules, binary, config, programFile] = process.argv.slice(2);
const sdk = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "client", file)).href);
const { Client } = await sdk("index.js");
const { StdioClientTransport } = await sdk("stdio.js");

const client = new Client({ name: "code-mode-e2e", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: binary, args: ["serve", "--config", config], stderr: "inherit" }));

// Wait until the everything upstream is up.
for (let i = 0; ; i++) {
  const res = await client.callTool({ name: "list_namespaces", arguments: {} });
  if (res.structuredContent.namespaces.includes("everything")) break;
  if (i > 300) throw new Error("the everything upstream did not come up");
  await new Promise((r) => setTimeout(r, 100));
}

const bytes = (v) => Buffer.byteLength(JSON.stringify(v));
const textBytes = (res) => res.content.filter((c) => c.type === "text").reduce((n, c) => n + Buffer.byteLength(c.text), 0);
const read = (res) => ({ text: textBytes(res), all: textBytes(res) + (res.structuredContent ? bytes(res.structuredContent) : 0) });

const { tools } = await client.listTools();
const execute = tools.find((t) => t.name === "execute_code");
const describe = tools.find((t) => t.name === "describe_tool");

const code = await client.callTool({ name: "execute_code", arguments: { language: "typescript", code: readFileSync(programFile, "utf8") } });
const decl = await client.callTool({ name: "describe_tool", arguments: { id: "everything:get-sum", format: "typescript" } });
const failed = await client.callTool({ name: "execute_code", arguments: { code: "await tools.run('nope:none', {})" } });

const calls = [];
for (const [a, b] of [[1, 10], [2, 20], [3, 30], [4, 40], [5, 50]]) calls.push({ id: "everything:get-sum", args: { a, b } });
for (const expression of ["1+1", "2*3", "10/4", "2^8", "7%3"]) calls.push({ id: "math:eval", args: { expression } });
const runs = await Promise.all(calls.map((c) => client.callTool({ name: "run_tool", arguments: c })));

console.log(JSON.stringify({
  listBytes: bytes(tools),
  executeCodeBytes: bytes(execute),
  describeFormat: Object.keys(describe.inputSchema.properties).includes("format"),
  result: { isError: code.isError ?? false, structured: code.structuredContent, read: read(code) },
  declaration: decl.structuredContent?.typescript ?? "",
  failure: { isError: failed.isError ?? false, meta: failed._meta },
  runToolRead: runs.reduce((n, r) => ({ text: n.text + read(r).text, all: n.all + read(r).all }), { text: 0, all: 0 }),
  runToolErrors: runs.filter((r) => r.isError).length,
}));
await client.close();
