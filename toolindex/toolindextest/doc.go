// Package toolindextest holds conformance suites for implementations of
// the toolindex interfaces, in the manner of testing/fstest: an
// implementation's tests call [RunIndexConformance] or
// [RunSearcherConformance] with a constructor, and every behaviour the
// interface's contract promises is checked in its own subtest.
//
//	func TestConformance(t *testing.T) {
//		toolindextest.RunSearcherConformance(t, func(t *testing.T) toolindex.Searcher {
//			return mysearch.New()
//		})
//	}
//
// The suites run their subtests in parallel, and include concurrency
// checks that are meant to run under -race. [NewTool], [LocalBackend],
// [MCPBackend] and [HTTPBackend] build the small valid definitions such
// tests need.
package toolindextest
