// Package mcpexec runs the tools of MCP servers: a [Manager] holds one
// session per configured server, on the official go-sdk client, and is the
// toolrun.Executor of [toolmodel.BackendMCP] backends. It also lists the
// servers' tools, and keeps a toolindex.Index in step with them.
//
//	m, err := mcpexec.NewManager(
//		mcpexec.WithServer("github", mcpexec.ServerConfig{Command: "github-mcp", Args: []string{"stdio"}}),
//		mcpexec.WithServer("search", mcpexec.ServerConfig{URL: "https://search.example.com/mcp",
//			Headers: map[string]string{"Authorization": "Bearer " + token}}),
//	)
//	if err != nil { ... }
//	defer m.Close()
//
//	idx := toolindex.New(toolindex.WithSource(m.Source("github", "github")), toolindex.WithSource(m.Source("search", "search")))
//	err = idx.Refresh(ctx)    // list the servers' tools
//	stop := m.AutoRefresh(idx) // and follow their changes
//	defer stop()
//
//	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
//		toolmodel.BackendMCP: m,
//	}), toolrun.WithIndex(idx))
//	res, err := runner.Run(ctx, "github:create_issue", map[string]any{"title": "Crash"})
//
// # Servers
//
// A [ServerConfig] reaches a server in one of three ways: a command run as
// a child process speaking over its standard input and output (with its
// arguments, environment and working directory), a streamable HTTP URL
// (with headers sent on every request), or a function returning an
// mcp.Transport, for servers in the same process ([InMemory]) and any
// other transport. Configurations decode from the JSON of usual MCP client
// configuration files, strictly. The protocol version is negotiated by
// the SDK: the latest one it supports, or the newest the server accepts.
//
// # Command servers
//
// A command server runs in a minimal environment, as MCP hosts run theirs:
// the current process's PATH, HOME, USER, LOGNAME, SHELL, locale (LANG,
// LANGUAGE, LC_*, TZ), TMPDIR, TERM, XDG_* directories, proxies
// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, ALL_PROXY, in either case),
// certificate authorities (SSL_CERT_FILE, SSL_CERT_DIR,
// NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE), the settings of the package
// runners (npm_config_*, UV_*, PIP_*, PIPX_*), and on Windows the
// variables programs need there (SystemRoot, ComSpec, PATHEXT, TEMP,
// USERPROFILE, APPDATA, ...); then the variables
// [ServerConfig.InheritEnv] names, when set; then [ServerConfig.Env]. The
// rest of the environment, such as the tokens of the program that runs
// the manager, stays out of reach of upstream servers.
//
// The manager reads each process's standard error: it keeps the last
// lines (20 lines, 4 KiB), which the errors of failed connections and of
// calls cut short by a crash quote ("connect to MCP server "x": ... EOF;
// stderr: fatal: missing API key"), and passes each line on to
// [ServerConfig.Stderr] and, with [ServerConfig.LogStderr], to the log. A
// failed connection attempt, a process that exits while its session is
// open, and each restart that follows (its attempt number and cause,
// stderr included) are logged at level Warn through [WithLogger].
//
// A server's errors, its tools' error results (their text and structured
// content), its log messages and the lines of its standard error reach a
// model, so the manager replaces by "***" the secrets the server
// is given, which its messages often repeat ("invalid key sk-..."), and
// which the HTTP client quotes with the URL it could not reach
// ([Manager.Redact] does it for requests made on a [Manager.Session]): for
// a command, the
// values of its variables and command-line flags whose names suggest a
// secret (OPENAI_API_KEY, GITHUB_TOKEN, --password: the rule of
// [toolrun.SecretMasker]) and the passwords of URLs among them; for a
// URL, its password, its query and the values of the query's parameters
// and of the headers whose names suggest a secret (api_key, key, sig;
// Authorization, X-API-Key); and any credential written after "Bearer",
// "Basic" or "token". A secret the server learnt elsewhere is not known
// to the manager.
//
// A connection attempt is bounded by [WithConnectTimeout] (30 seconds by
// default) or the server's own [ServerConfig.ConnectTimeout]. The first
// start through a package runner (npx, pnpx, bunx, uvx, pipx) may
// download the server first: without a bound of its own, it gets
// [PackageRunnerConnectTimeout] when that is longer. An attempt that runs
// out of time says which setting raises it ([WithConnectTimeoutSettings]).
//
// # Sessions
//
// A server's session is opened on first use and shared by all the calls to
// that server, concurrent ones included (but see the calls on behalf of a
// client, above). When a server goes away (its
// process exits, its HTTP session ends), the next call opens a new
// session; a call whose request could not be sent because the session had
// ended is sent again once, on the new session, while a call that was
// under way fails with an [errors.Unavailable] error, since the server
// may have acted on it. Both follow the rule of [toolrun.SafeToRepeat],
// as the runner's retries do: a call of a tool annotated read-only or
// idempotent (or declared so, toolrun.WithIdempotentTools) is sent again
// in both cases, as doing it twice is harmless; any other, such as a
// destructive tool whose server crashed during the call, runs once.
// Failed connection attempts, whose calls were never sent
// ([toolrun.MarkNotSent]), back off exponentially ([WithReconnectBackoff]),
// and the errors of calls made meanwhile carry the time left
// ([toolrun.RetryAfter]), which the runner's default retry policy honours.
// A session starts with server/discover, as protocol 2026-07-28 does, and
// falls back to initialize for a server of an earlier protocol; one that
// never answers server/discover costs [WithDiscoverTimeout], not the
// connect timeout.
// [Manager.Close] closes every session; a child process that does not exit
// once its input is closed gets SIGTERM, then SIGKILL, after a short grace
// period ([WithTerminateTimeout]).
//
// # Gateways: calls on behalf of a client
//
// A server that puts MCP servers behind its own passes, with each call,
// the client it serves ([WithClient]; an *mcp.ServerSession will do).
// What a server asks of its client during the call then reaches that
// client: sampling and elicitation requests, and log messages (named
// after the server, "server/logger"). A client that can answer sampling
// or elicitation gets a session of each server of its own, declaring its
// capabilities and no more, so that every request a server sends on it
// is that client's; it ends when the client's session does. Other calls
// share one session per server, whose capabilities
// [WithSharedCapabilities] sets, and whose log messages reach the client
// of the calls in flight when they all belong to one client. A client's
// cancellation of its call reaches the server as notifications/cancelled,
// and progress flows back through the call's progress callback. The cost:
// for a command server, each client with a session of its own runs one
// more process. A client's own session asks the server for the protocol
// version the client asked for, so that the server asks for input the way
// the client can be asked: by requests of its own before 2026-07-28, in
// the call's result from then on (multi-round-trip requests, which the
// SDK fulfils through the same forwarding). Clients on protocol
// 2026-07-28 or later cannot be sent requests outside a call's result,
// and get no session of their own: their calls go on the shared session,
// so that a stateless server, whose every request is a client of its
// own, does not start a process for each call. A call of such a client
// that carries [toolrun.Call.Input] gets the server's requests for input
// back as [toolrun.Output.InputRequired], which the client answers in a
// retry; an older server's requests stop the call, and the retry calls
// the tool again, answering them from the client's answers of every round.
// A server may offer a tool only to clients that declare a capability
// (sampling, elicitation); a client whose own session lacks a tool the
// shared session listed gets an [errors.Unsupported] error that names the
// capabilities it does not declare, not the server's "tool not found".
//
// # Calls
//
// [Manager.Execute] calls tools/call with the call's arguments, under the
// backend's ToolName or else the tool's name. The result maps to a
// toolrun.Output as is: its content, its structured content and its
// isError flag, so a tool's own failure is a result, not an error. A
// JSON-RPC error of the server keeps its code through [errors.FromWire];
// a server that cannot be reached is [errors.Unavailable] and retryable;
// the end of the call's context is [errors.Timeout] or [errors.Canceled].
// When the call has a progress callback, the request carries a progress
// token and the server's notifications/progress reach the callback (and,
// through toolrun.Runner.RunStream, the stream's progress events).
//
// # Tools and indexes
//
// [Manager.ListTools] lists a server's tools, following pagination. A
// tool that cannot be a metatools tool (its name holds a space, say) is
// skipped, logged and reported by [Manager.SkippedTools]; the server's
// other tools are kept.
// [Manager.RegisterTools] copies them into an index once; a [Source] lets
// the index list them on each Refresh, adding, updating and removing
// tools; and [Manager.AutoRefresh] refreshes the index when a server it
// has a Source of sends notifications/tools/list_changed, once per burst
// of notifications, listing again only the servers that sent them, even
// before the index ever listed the server.
//
// # How to plug in your own
//
// Transports: set [ServerConfig.Transport] to a function returning any
// mcp.Transport (the SDK's or your own); it is called for each connection,
// reconnections included. Other MCP features: [Manager.Session] returns
// the live mcp.ClientSession of a server, for resources, prompts and the
// like; [WithServerNotifications] passes on what the servers report outside
// any call (their resource and prompt lists changed, a subscribed resource
// was updated), so that a caller can list them again or relay the update.
package mcpexec
