package toolindex_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolindex"
)

func TestContextCarriesIndex(t *testing.T) {
	ctx := context.Background()
	_, ok := toolindex.IndexFrom(ctx)
	assert.False(t, ok, "no index in a plain context")

	idx := toolindex.New()
	got, ok := toolindex.IndexFrom(toolindex.WithIndex(ctx, idx))
	assert.True(t, ok)
	assert.Same(t, idx, got)

	_, ok = toolindex.IndexFrom(toolindex.WithIndex(ctx, nil))
	assert.False(t, ok, "a nil index is no index")
}

func TestContextTypedNilIndexIsNone(t *testing.T) {
	var typedNil *toolindex.MemoryIndex
	ctx := toolindex.WithIndex(context.Background(), typedNil)
	idx, ok := toolindex.IndexFrom(ctx)
	assert.False(t, ok, "a typed nil index is no index")
	assert.Nil(t, idx)

	outer := toolindex.WithIndex(context.Background(), toolindex.New())
	_, ok = toolindex.IndexFrom(toolindex.WithIndex(outer, typedNil))
	assert.False(t, ok, "a typed nil index hides an outer one, as a nil index does")
}
