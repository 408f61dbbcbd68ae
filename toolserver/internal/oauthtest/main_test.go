package oauthtest_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The catalogue's package brings bleve, which starts a process-wide
	// pool of analysis workers when it is loaded: they are not ours to
	// stop, even though these tests search with the lexical engine.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
}
