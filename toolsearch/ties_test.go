package toolsearch

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// TestTiesInIDOrder pages through tools that all score the same, in
// groups smaller and larger than a page, and expects ID order.
func TestTiesInIDOrder(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{5, 100} {
		t.Run(fmt.Sprint("tools=", n), func(t *testing.T) {
			s, err := New()
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			tools := make([]toolmodel.Tool, n)
			want := make([]string, n)
			for i := range tools {
				// Upsert in reverse ID order, so that index order is not ID order.
				tools[i] = tool("", fmt.Sprintf("t%03d", n-1-i), "same words")
				want[n-1-i] = tools[i].Name
			}
			require.NoError(t, s.Upsert(ctx, tools))

			var got []string
			for offset := 0; offset < n; offset += 7 {
				hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "words", Offset: offset, Limit: 7})
				require.NoError(t, err)
				for _, h := range hits {
					got = append(got, h.ID)
				}
			}
			assert.Equal(t, want, got)
		})
	}
}
