// Package toolindex is the registry and discovery layer of metatools: it
// records which tools exist and which backends serve them, and lets an
// agent find them by listing or searching, without loading the whole
// catalogue into its context.
//
// The [Index] interface is the contract; [New] returns the built-in
// in-memory implementation, [MemoryIndex]:
//
//	idx := toolindex.New()
//	err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: backend})
//	...
//	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "create issue"})
//	for _, s := range page.Items {
//		fmt.Println(s.ID, s.Description)
//	}
//	tool, backends, err := idx.GetAll(ctx, page.Items[0].ID)
//
// # Tools, backends and sources
//
// A tool ([toolmodel.Tool], plain data) is known by its ID and may be
// served by several backends ([toolmodel.ToolBackend]), each from a
// source named by its identity ("mcp:github", "local:calc", ...).
// Registering the same definition from another source adds a backend; a
// different definition from another source is a conflict unless
// [Replace] is given; the same source registering again updates its tool,
// or does nothing when nothing changed. [Index.UnregisterBackend] takes a
// source away, and with it the tools it alone served.
//
// For sources that change over time, give the index a [Source] with
// [WithSource]: [Index.Refresh] lists it again and reconciles, adding,
// updating and removing that source's tools.
//
// # Listings, search and cursors
//
// [Index.List] pages through tools in ID order, optionally by namespace or
// backend; [Index.Search] pages through the best matches of a free-text
// query. Both return a [Page] of [Summary] values and an opaque
// NextCursor. A listing cursor records the last ID seen, so it goes on
// correctly while the catalogue changes elsewhere; a search cursor
// records a position in a ranking and is bound to its query. A cursor
// used with another request, or any string that is not a cursor, is
// refused with [errors.InvalidArgument].
//
// # Changes
//
// Every change bumps the index [Index.Version] and is reported to
// [Index.OnChange] subscribers as a [ChangeEvent], in order, without the
// index's lock held, so that subscribers may call back into the index.
//
// # Backend selection
//
// [Index.GetAll] returns a tool with every one of its backends. The choice
// among them is made in one place, the toolrun.Runner that runs the tool
// (toolrun.WithSelector), by default as [DefaultSelector] does: it prefers
// local, then provider, http, grpc and mcp backends, and follows a
// caller's [SelectHint] when one matches.
//
// # How to plug in your own
//
// Search: implement [Searcher] (for example the BM25 searcher of the
// toolsearch module) and pass it with [WithSearcher]. A Searcher is
// incremental: the index calls Upsert and Remove as tools change, and
// Search answers from the Searcher's own structures. Run
// toolindextest.RunSearcherConformance in your tests.
//
// Sources: implement [Source] (an identity and a ListTools method) and
// pass it with [WithSource].
//
// A whole index: implement [Index] and run
// toolindextest.RunIndexConformance in your tests.
//
// Code deep in a request reaches the live index through the context:
// [WithIndex] and [IndexFrom].
package toolindex
