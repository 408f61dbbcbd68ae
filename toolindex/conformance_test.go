package toolindex_test

import (
	"testing"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolindex/toolindextest"
)

func TestMemoryIndexConformance(t *testing.T) {
	toolindextest.RunIndexConformance(t, func(*testing.T) toolindex.Index { return toolindex.New() })
}

func TestLexicalSearcherConformance(t *testing.T) {
	toolindextest.RunSearcherConformance(t, func(*testing.T) toolindex.Searcher { return toolindex.NewLexicalSearcher() })
}
