package toolserver_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

func TestImplementationAndInstructions(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithImplementation("acme-tools", "1.2.3"),
		toolserver.WithInstructions("Search before you run.")), nil)
	info := cs.InitializeResult()
	assert.Equal(t, "acme-tools", info.ServerInfo.Name)
	assert.Equal(t, "1.2.3", info.ServerInfo.Version)
	assert.Equal(t, "Search before you run.", info.Instructions)
}

func TestSearchLimit(t *testing.T) {
	c := newCatalogue(t)
	c.opsOptions = []toolops.Option{toolops.WithLimits(toolops.Limits{SearchResults: 2})}
	cs := connect(t, c.server(), nil)
	var out struct {
		Tools      []struct{ ID string }
		NextCursor string
	}
	structured(t, call(t, cs, "search_tools", map[string]any{"query": ""}), &out)
	assert.Len(t, out.Tools, 2, "the default limit")
	assert.NotEmpty(t, out.NextCursor)
	structured(t, call(t, cs, "search_tools", map[string]any{"query": "", "limit": 4}), &out)
	assert.Len(t, out.Tools, 4, "a client's limit wins")
}

func TestCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCatalogue(t)
		c.add(t, `{"name":"wait","namespace":"clock","description":"Wait until canceled.","inputSchema":{"type":"object"}}`,
			func(ctx context.Context, _ map[string]any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
		c.runner = toolrun.New(c.registry, toolrun.WithIndex(c.index), toolrun.WithDefaultTimeout(3*time.Second))
		cs := connect(t, c.server(), nil)
		start := time.Now()
		res := call(t, cs, "run_tool", map[string]any{"id": "clock:wait"})
		assert.Equal(t, 3*time.Second, time.Since(start))
		require.True(t, res.IsError)
		assert.Equal(t, errors.Timeout, metaError(t, res).Code)

		res = call(t, cs, "run_tool", map[string]any{"id": "github:create_issue", "args": map[string]any{"title": "t"}})
		assert.False(t, res.IsError, "a quick call is not affected: %s", text(res))
	})
}
