package toolserver_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
)

// chainOf returns n run_chain steps that each create an issue with a
// title of titleBytes bytes.
func chainOf(n, titleBytes int) []any {
	steps := make([]any, n)
	for i := range steps {
		steps[i] = map[string]any{"id": "github:create_issue", "args": map[string]any{"title": strings.Repeat("t", titleBytes)}}
	}
	return steps
}

func TestRunChainRefusesMoreStepsThanTheLimit(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	steps := toolops.DefaultLimits.ChainSteps
	res := call(t, cs, "run_chain", map[string]any{"steps": chainOf(steps+1, 1)})
	require.True(t, res.IsError, "the chain is refused with a tool error")
	assert.Contains(t, text(res), fmt.Sprintf("the chain has %d steps, the limit is %d", steps+1, steps))
	assert.Contains(t, text(res), "limits.chainSteps")
	assert.Nil(t, res.StructuredContent, "no step ran")
	assert.Equal(t, errors.InvalidArgument, metaError(t, res).Code)

	res = call(t, cs, "run_chain", map[string]any{"steps": chainOf(steps, 1)})
	assert.False(t, res.IsError, "a chain at the limit runs: %s", text(res))

	c := newCatalogue(t)
	c.opsOptions = []toolops.Option{toolops.WithLimits(toolops.Limits{ChainSteps: 2})}
	cs = connect(t, c.server(), nil)
	res = call(t, cs, "run_chain", map[string]any{"steps": chainOf(3, 1)})
	assert.Contains(t, text(res), "the chain has 3 steps, the limit is 2")
}

func TestMetaToolAnswersAreBounded(t *testing.T) {
	c := newCatalogue(t)
	c.opsOptions = []toolops.Option{toolops.WithLimits(toolops.Limits{AnswerBytes: 10_000})}
	cs := connect(t, c.server(), nil)
	res := call(t, cs, "run_chain", map[string]any{"steps": chainOf(4, 2_000)})
	require.True(t, res.IsError, "an answer over the limit is refused")
	assert.Contains(t, text(res), "run_chain: the answer is")
	assert.Contains(t, text(res), "the limit is 10000 bytes")
	assert.Contains(t, text(res), "limits.answerBytes")
	assert.Equal(t, errors.ResourceExhausted, metaError(t, res).Code)
	assert.Nil(t, res.StructuredContent)

	res = call(t, cs, "run_tool", map[string]any{"id": "github:create_issue", "args": map[string]any{"title": strings.Repeat("t", 6_000)}})
	require.True(t, res.IsError, "every meta-tool's answer is bounded")
	assert.Contains(t, text(res), "run_tool: the answer is")

	res = call(t, cs, "run_chain", map[string]any{"steps": chainOf(2, 100)})
	assert.False(t, res.IsError, "a small answer passes: %s", text(res))
}

// TestRunChainProbe measures a run_chain request with very many steps:
// the time it takes and the memory it leaves allocated.
func TestRunChainProbe(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	steps := chainOf(20_000, 150)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_chain", Arguments: map[string]any{"steps": steps}})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	answer := len(text(res))
	t.Logf("run_chain of %d steps: %s, %d MB allocated, answer text %d bytes",
		len(steps), elapsed.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, answer)
	require.True(t, res.IsError, "the chain is refused")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(200<<20))
}
