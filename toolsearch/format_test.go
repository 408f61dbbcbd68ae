package toolsearch

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestDiskIndexOfAnotherFormatIsRebuilt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(WithPath(dir))
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tool("", "old", "kept until the format changes")}))
	require.NoError(t, s.idx.SetInternal(formatKey, []byte("toolsearch/0")))
	require.NoError(t, s.Close())

	s, err = New(WithPath(dir))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	n, err := s.idx.DocCount()
	require.NoError(t, err)
	assert.Zero(t, n, "the outdated index is discarded")
	format, err := s.idx.GetInternal(formatKey)
	require.NoError(t, err)
	assert.Equal(t, formatVersion, string(format))

	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tool("", "new", "kept")}))
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "kept", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "new", hits[0].ID)
}
