// Package toolops is the catalogue's operations as offered to a caller:
// search, namespaces, describe, examples, declarations, run and chain.
//
// Every face of metatools — the MCP meta-tools, code mode's tools.* inside
// a program, the sandbox gateway, the command line, a web console — is an
// adapter over one [Service]. The Service is the one place that decides
// what a caller sees and how it is answered:
//
//   - Policy. A tool the runner's authorization policies refuse
//     ([toolrun.Runner.Authorize]) is hidden on every operation: left out of
//     searches and namespaces, and answered exactly as an unknown tool by
//     describe, examples, declarations, run and chain, so that a caller can
//     neither list it nor confirm that it exists nor read the pattern that
//     hides it. A namespace with no tool offered is hidden too.
//   - Pages. A search or a listing is filled past hidden tools, with a
//     cursor that never skips nor repeats a tool.
//   - Defaults and bounds. Result counts, detail levels, chain lengths and
//     answer sizes have their defaults and limits in [Limits], and every
//     argument is checked here, with the same message whatever the face.
//   - Errors. Every failure is an *errors.Error whose code survives every
//     wire; its Op is the operation's name ([OpSearch], [OpRun], ...).
//
// Who asks travels in the context ([WithCaller]): the caller's metadata
// reaches the runner's policies and hooks on every operation, so a policy
// that depends on the caller hides the same tools from its searches as from
// its runs.
//
// # Example
//
//	ops := toolops.New(idx, docs, runner)
//	found, err := ops.Search(ctx, toolops.SearchRequest{Query: "weather in Paris"})
//	...
//	res, err := ops.Run(ctx, toolops.RunRequest{ID: found.Tools[0].ID, Args: args})
//
// # Cost model
//
// Describe and examples cost one authorization (O(1) with the built-in
// policies) on top of the documentation store; a run costs the runner's
// own, and one more authorization only when the runner refused it or
// found no such tool; a chain, one authorization per step before it
// starts. A
// search page costs the index's search plus one authorization per entry it
// looks at, and looks at no more than [MaxScannedPerPage] entries: when
// policies hide most of the catalogue, a page may hold fewer tools than
// asked, with a cursor to go on. Namespaces costs, per namespace, a listing
// until the first offered tool: one lookup when policies allow the first.
package toolops
