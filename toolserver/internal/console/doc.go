// Package console is the web console of a metatools server: a few pages
// at /ui, served next to /mcp on the same listener and behind the same
// authentication, and the small JSON API under /ui/api/ they read.
//
// Every answer comes from the operations every face shares
// ([toolops.Service]): the upstreams' states, the catalogue's search with
// its real ranking, a tool's documentation, examples and TypeScript
// declaration, and runs, through the runner and its policies. A tool the
// policies refuse, or one the catalogue quarantines, is as invisible here
// as through MCP. The recent calls are the runner's own audit records
// ([Calls], an event publisher kept in memory), and the quarantine review
// and approval are those of `metatools tools review|approve`
// ([catalog.Review], [catalog.Approve]).
//
// The pages are plain HTML, one small script and one style sheet,
// embedded in the binary: no framework, no build step, nothing fetched
// from elsewhere. Every answer forbids inline scripts and framing
// (Content-Security-Policy) and content sniffing; a request that changes
// something (a POST: a run, an approval) must come from the console's own
// origin (Origin and Sec-Fetch-Site) with the console's header
// ([HeaderName]) and a JSON body, so that no other site can make a
// browser send one. Running tools and approving them are each off unless
// configured ([Options]).
//
// Behind tokens, [WithLogin] adds a sign-in page for browsers, which
// cannot add an Authorization header themselves: the token given there,
// checked by the same authentication, stays on the server, and the
// browser holds a random session ID in an HttpOnly, SameSite=Strict
// cookie.
//
// # Example
//
//	calls := console.NewCalls(console.DefaultCalls)
//	cat, _ := catalog.Build(ctx, cfg, catalog.WithEventPublisher(calls))
//	ui := console.New(cat.Ops, console.Options{Calls: calls, Pins: pins, Run: true})
//	mux.Handle(console.Path, console.WithLogin(ui, func(h http.Handler) http.Handler {
//		return srv.Authenticate(opts, h)
//	}))
package console
