package console_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The catalogue's search index is bleve's, whose process-wide workers
	// are not ours to stop. Pins go to a state directory of the tests'.
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
