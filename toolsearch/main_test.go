package toolsearch

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// bleve analyses documents on a process-wide pool of workers started
	// when it is loaded, shared by every index: they are not ours to stop.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
}
