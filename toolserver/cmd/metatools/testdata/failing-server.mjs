// An MCP server that cannot start: it says why on standard error and
// exits with status 1, as a server missing its credentials does.
console.error("fatal: missing API key");
process.exit(1);
