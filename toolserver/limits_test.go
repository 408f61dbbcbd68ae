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
	"github.com/metatools-go/metatools/toolserver"
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
	res := call(t, cs, "run_chain", map[string]any{"steps": chainOf(toolserver.DefaultMaxChainSteps+1, 1)})
	require.True(t, res.IsError, "the chain is refused with a tool error")
	assert.Contains(t, text(res), fmt.Sprintf("run_chain has %d steps, the limit is %d", toolserver.DefaultMaxChainSteps+1, toolserver.DefaultMaxChainSteps))
	assert.Contains(t, text(res), "WithMaxChainSteps")
	assert.Contains(t, text(res), "limits.chainSteps")
	assert.Nil(t, res.StructuredContent, "no step ran")
	assert.Equal(t, errors.InvalidArgument, metaError(t, res).Code)

	res = call(t, cs, "run_chain", map[string]any{"steps": chainOf(toolserver.DefaultMaxChainSteps, 1)})
	assert.False(t, res.IsError, "a chain at the limit runs: %s", text(res))

	cs = connect(t, newCatalogue(t).server(toolserver.WithMaxChainSteps(2)), nil)
	res = call(t, cs, "run_chain", map[string]any{"steps": chainOf(3, 1)})
	assert.Contains(t, text(res), "run_chain has 3 steps, the limit is 2")
}

func TestMetaToolAnswersAreBounded(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithMaxAnswerBytes(10_000)), nil)
	res := call(t, cs, "run_chain", map[string]any{"steps": chainOf(4, 2_000)})
	require.True(t, res.IsError, "an answer over the limit is refused")
	assert.Contains(t, text(res), "the answer of run_chain is")
	assert.Contains(t, text(res), "the limit is 10000 bytes")
	assert.Contains(t, text(res), "WithMaxAnswerBytes")
	assert.Contains(t, text(res), "limits.answerBytes")
	assert.Equal(t, errors.ResourceExhausted, metaError(t, res).Code)
	assert.Nil(t, res.StructuredContent)

	res = call(t, cs, "run_tool", map[string]any{"id": "github:create_issue", "args": map[string]any{"title": strings.Repeat("t", 6_000)}})
	require.True(t, res.IsError, "every meta-tool's answer is bounded")
	assert.Contains(t, text(res), "the answer of run_tool is")

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
