package catalog_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The catalogue's search index is bleve's, which analyses documents on
	// a process-wide pool of workers started when it is loaded, shared by
	// every index: they are not ours to stop.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
}
