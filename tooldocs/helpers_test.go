package tooldocs_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

// loadEntries returns the sample entries of testdata/entries.json: a
// GitHub tool with everything, an OpenAPI-style draft-07 tool, a
// hand-written tool without namespace, and a bare tool.
func loadEntries(tb testing.TB) []tooldocs.Entry {
	tb.Helper()
	data, err := os.ReadFile("testdata/entries.json")
	require.NoError(tb, err)
	var entries []tooldocs.Entry
	require.NoError(tb, json.Unmarshal(data, &entries))
	return entries
}

// sampleStore returns a Store holding the sample entries.
func sampleStore(tb testing.TB, opts ...tooldocs.Option) *tooldocs.Store {
	tb.Helper()
	s := tooldocs.NewStore(opts...)
	require.NoError(tb, s.RegisterMany(context.Background(), loadEntries(tb)))
	return s
}

// mustTool decodes a tool from JSON.
func mustTool(tb testing.TB, data string) *toolmodel.Tool {
	tb.Helper()
	tool, err := toolmodel.DecodeTool([]byte(data))
	require.NoError(tb, err)
	return &tool
}

// catalog is a ToolResolver over a map that tests change as they go.
type catalog struct {
	mu    sync.Mutex
	tools map[string]toolmodel.Tool
}

func newCatalog(tools ...*toolmodel.Tool) *catalog {
	c := &catalog{tools: map[string]toolmodel.Tool{}}
	for _, t := range tools {
		c.put(t)
	}
	return c
}

func (c *catalog) put(t *toolmodel.Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools[t.ID()] = t.Clone()
}

func (c *catalog) ResolveTool(ctx context.Context, id string) (toolmodel.Tool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return toolmodel.Tool{}, err
	}
	t, ok := c.tools[id]
	if !ok {
		return toolmodel.Tool{}, errors.Errorf(errors.NotFound, "no tool %q", id)
	}
	return t.Clone(), nil
}

var _ tooldocs.ToolResolver = (*catalog)(nil)

const searchToolJSON = `{"namespace":"docs","name":"search","description":"Search the documentation. Results are ranked.","tags":["docs"],
	"inputSchema":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["query"]},
	"outputSchema":{"type":"object","properties":{"hits":{"type":"array","items":{"type":"string"}}},"required":["hits"]}}`

func itoa(n int) string { return strconv.Itoa(n) }
