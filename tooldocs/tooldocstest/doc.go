// Package tooldocstest holds conformance suites for implementations of the
// tooldocs extension interfaces, in the manner of testing/fstest: an
// implementation's tests call [RunResolverConformance] or
// [RunEstimatorConformance], and every behaviour the interface's contract
// promises is checked in its own subtest.
//
//	func TestResolverConformance(t *testing.T) {
//		tooldocstest.RunResolverConformance(t, func(t *testing.T, tools []toolmodel.Tool) tooldocs.ToolResolver {
//			return mycatalog.New(tools)
//		})
//	}
//
// The suites include concurrency checks that are meant to run under -race.
package tooldocstest
