// Drives `metatools serve --http` with the official TypeScript SDK's
// streamable HTTP client, as an agent in code mode would: it searches for
// the tools of a task, reads their declarations in the answer, runs a
// TypeScript program making twelve calls at once through execute_code,
// then a program that makes more calls than the server allows. Prints
// what it got as JSON. Arguments: the node_modules folder holding
// @modelcontextprotocol/sdk, the MCP endpoint, the bearer token, and the
// program.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { readFileSync } from "node:fs";

const [modules, endpoint, token, programFile] = process.argv.slice(2);
const sdk = (file) => import(pathToFileURL(join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "client", file)).href);
const { Client } = await sdk("index.js");
const { StreamableHTTPClientTransport } = await sdk("streamableHttp.js");

const client = new Client({ name: "code-mode-http-e2e", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);

// Wait until the everything upstream is up.
for (let i = 0; ; i++) {
  const res = await client.callTool({ name: "list_namespaces", arguments: {} });
  if (res.structuredContent.namespaces.includes("everything")) break;
  if (i > 300) throw new Error("the everything upstream did not come up");
  await new Promise((r) => setTimeout(r, 100));
}

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const searches = [];
for (const query of ["sum of two numbers", "evaluate a math expression", "change the case of a text"]) {
  const res = await client.callTool({ name: "search_tools", arguments: { query, limit: 3 } });
  searches.push({
    query,
    isError: res.isError ?? false,
    ids: res.structuredContent.tools.map((t) => t.id),
    typescript: res.structuredContent.typescript ?? "",
    text: text(res),
  });
}

const code = await client.callTool({
  name: "execute_code",
  arguments: { language: "typescript", code: readFileSync(programFile, "utf8") },
});
const capped = await client.callTool({
  name: "execute_code",
  arguments: {
    language: "typescript",
    code: "const n: number[] = Array.from({ length: 20 }, (_, i) => i);\n" +
      "return await Promise.all(n.map((i) => tools.math.eval({ expression: `${i}+1` })));",
  },
});

console.log(JSON.stringify({
  sessionId: transport.sessionId ?? "",
  searches,
  result: { isError: code.isError ?? false, structured: code.structuredContent, text: text(code), meta: code._meta },
  capped: { isError: capped.isError ?? false, text: text(capped), meta: capped._meta },
}));
await client.close();
