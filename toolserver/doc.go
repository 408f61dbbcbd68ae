// Package toolserver is the MCP server of metatools: it puts a whole tool
// catalogue behind six meta-tools, so that an agent's context holds six
// tool definitions instead of hundreds, and the agent reads only the
// documentation of the tools it is about to use.
//
//   - search_tools: find tools for a task (free text, namespace filter,
//     paging);
//   - list_namespaces: the catalogue's namespaces;
//   - describe_tool: a tool's documentation at the level the agent can
//     afford (summary, schema, full);
//   - list_tool_examples: sample calls;
//   - run_tool: run a tool by ID, on whichever backend serves it, with
//     progress forwarded to the client;
//   - run_chain: run tools in sequence, passing each result to the next;
//   - execute_code, with [WithCodeMode] (off by default): run a JavaScript
//     or TypeScript program that calls many tools and returns only what
//     the agent needs (code mode, on the toolcode module); describe_tool
//     then also gives a tool's TypeScript declaration.
//
// A [Server] answers with the operations of the toolops module, over a
// toolindex.Index that holds the catalogue, a tooldocs store that
// documents it and a toolrun.Runner that executes it (the package catalog
// builds all of them from a configuration):
//
//	ops, err := toolops.New(idx, docs, runner)
//	srv, err := toolserver.New(ops)
//	err := srv.ServeStdio(ctx)
//	// or: http.Handle("/mcp", srv.HTTPHandler(toolserver.HTTPOptions{BearerTokens: tokens}))
//
// Over HTTP, clients authenticate with static bearer tokens or, with
// [HTTPOptions].OAuth, with OAuth access tokens: the server is then an
// OAuth 2.1 resource server ([OAuthOptions]) that checks JWTs against its
// issuer's keys, serves its protected-resource metadata
// ([OAuthOptions.MetadataHandler]) and lets each token call only the
// meta-tools its scopes allow.
// The HTTP handler is bounded by default: idle sessions expire, live
// sessions are capped (the one idle the longest is evicted), request bodies
// must arrive in time, and requests from other web origins are refused
// (see [HTTPOptions]). Over stdio, lines that are no JSON-RPC message are
// answered with a JSON-RPC error and reading goes on; once the client
// closes its input, running calls answer before [Server.ServeStdio]
// returns ([WithShutdownTimeout]).
//
// Bad arguments to a meta-tool are protocol errors (JSON-RPC invalid
// params); anything that goes wrong with the tool it runs is a tool error
// result carrying the error's code, for the model to read and act on.
//
// With [WithUpstreams], the server also serves the resources, resource
// templates and prompts of upstream MCP servers, prefixed by their
// namespace ("ns.name") or, for an [Upstream] with KeepNames, under their
// own names; it forwards resources/read, prompts/get, completion/complete
// and resource subscriptions (counted per URI, one upstream subscription
// for any number of clients) to the upstream that owns them, and follows
// the changes upstreams report ([Server.UpstreamChanged],
// [Server.UpstreamResourceUpdated]). Clashes go to the first upstream
// configured; a clash of names kept as they are fails [New].
//
// The catalog subpackage builds a catalogue from a configuration file
// (config), with the built-in tools of the builtin subpackage; the
// metatools command (cmd/metatools) serves it and offers the same
// operations at a terminal.
package toolserver
