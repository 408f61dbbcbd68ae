package oauthtest_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The catalogue's package brings bleve, which starts a process-wide
	// pool of analysis workers when it is loaded: they are not ours to
	// stop, even though these tests search with the lexical engine.
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
