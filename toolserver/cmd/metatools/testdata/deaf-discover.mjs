// An MCP server over standard I/O that never answers server/discover, as
// a server of an earlier protocol that ignores requests it does not know:
// it runs the command line it is given as its server, and passes every
// line of its input on to it except those of server/discover.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ["pipe", "inherit", "inherit"] });
server.on("exit", (code) => process.exit(code ?? 1));
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  try {
    if (JSON.parse(line).method === "server/discover") return;
  } catch {
    // Not JSON: the server answers it.
  }
  server.stdin.write(line + "\n");
});
lines.on("close", () => server.stdin.end());
