package toolserver_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
)

// TestUnknownToolWhileUpstreamsConnect checks that an agent asking for a
// tool that is not in the catalogue is told which upstreams are still
// connecting, and that it may try again, only while some are.
func TestUnknownToolWhileUpstreamsConnect(t *testing.T) {
	var connecting atomic.Bool
	connecting.Store(true)
	status := func() []toolops.Upstream {
		slow := toolops.Upstream{Name: "slow", Kind: "mcp", State: toolops.UpstreamUp}
		if connecting.Load() {
			slow.State = toolops.UpstreamConnecting
		}
		return []toolops.Upstream{{Name: "builtin", Kind: "builtin", State: toolops.UpstreamUp}, slow}
	}
	c := newCatalogue(t)
	c.opsOptions = []toolops.Option{toolops.WithUpstreams(status)}
	cs := connect(t, c.server(), nil)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"run_tool", map[string]any{"id": "slow:sundial"}},
		{"describe_tool", map[string]any{"id": "slow:sundial"}},
		{"list_tool_examples", map[string]any{"id": "slow:sundial"}},
	}
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args)
		e := metaError(t, res)
		assert.Equal(t, errors.NotFound, e.Code, c.tool)
		assert.True(t, e.Retryable, "%s: a tool of a connecting upstream may come", c.tool)
		assert.Contains(t, text(res), "upstreams still connecting, whose tools are not listed yet: slow;", c.tool)
		assert.NotContains(t, text(res), "builtin", c.tool)
	}

	connecting.Store(false)
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args)
		e := metaError(t, res)
		assert.Equal(t, errors.NotFound, e.Code, c.tool)
		assert.False(t, e.Retryable, c.tool)
		assert.NotContains(t, text(res), "connecting", c.tool)
	}
}
