// Package catalogtest is what the tests of the packages that build
// catalogues share.
package catalogtest

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Main runs the tests of a package that builds catalogues, and fails them
// when a goroutine is left behind. The pins of upstream tools go to a
// state directory of the tests' own (XDG_STATE_HOME), removed afterwards,
// not to the user's. The catalogue's search index is bleve's, which
// analyses documents on a process-wide pool of workers started when it
// is loaded, shared by every index: those are not the tests' to stop.
func Main(m *testing.M) {
	state, err := os.MkdirTemp("", "metatools-state-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv("XDG_STATE_HOME", state); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
		goleak.Cleanup(func(int) { _ = os.RemoveAll(state) }))
}
