package catalog_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The catalogue's search index is bleve's, which analyses documents on
	// a process-wide pool of workers started when it is loaded, shared by
	// every index: they are not ours to stop.
	// The pins of upstream tools go to a state directory of the tests'
	// own, not to the user's.
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
