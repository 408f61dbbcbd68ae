package toolsearch_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolindex/toolindextest"
	"github.com/metatools-go/metatools/toolsearch"
)

func TestSearcherConformance(t *testing.T) {
	t.Run("Memory", func(t *testing.T) {
		toolindextest.RunSearcherConformance(t, func(t *testing.T) toolindex.Searcher {
			return newSearcher(t)
		})
	})
	t.Run("Disk", func(t *testing.T) {
		toolindextest.RunSearcherConformance(t, func(t *testing.T) toolindex.Searcher {
			return newSearcher(t, toolsearch.WithPath(t.TempDir()))
		})
	})
	t.Run("Fusion", func(t *testing.T) {
		toolindextest.RunSearcherConformance(t, func(t *testing.T) toolindex.Searcher {
			return newSearcher(t, toolsearch.WithFusion(true))
		})
	})
}

// newSearcher returns a Searcher closed at the end of the test.
func newSearcher(t testing.TB, opts ...toolsearch.Option) *toolsearch.Searcher {
	t.Helper()
	s, err := toolsearch.New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}
