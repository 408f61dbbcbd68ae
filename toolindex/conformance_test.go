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

// The zero values are ready to use: they pass the same suites as the
// values New and NewLexicalSearcher make.
func TestZeroMemoryIndexConformance(t *testing.T) {
	toolindextest.RunIndexConformance(t, func(*testing.T) toolindex.Index { return new(toolindex.MemoryIndex) })
}

func TestZeroLexicalSearcherConformance(t *testing.T) {
	toolindextest.RunSearcherConformance(t, func(*testing.T) toolindex.Searcher { return new(toolindex.LexicalSearcher) })
}
