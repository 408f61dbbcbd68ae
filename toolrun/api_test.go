package toolrun_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// closingExecutor is an executor that records its Close.
type closingExecutor struct {
	toolrun.Executor
	closed bool
	err    error
}

func (c *closingExecutor) Close() error {
	c.closed = true
	return c.err
}

var _ io.Closer = (*closingExecutor)(nil)

func TestExecutorRegistryKindsAndClose(t *testing.T) {
	noop := toolrun.ExecutorFunc(func(context.Context, *toolrun.Call) (toolrun.Output, error) { return toolrun.Output{}, nil })
	healthy := &closingExecutor{Executor: noop}
	failing := &closingExecutor{Executor: noop, err: errors.New("socket stuck")}
	r := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
		toolmodel.BackendMCP: healthy, toolmodel.BackendHTTP: failing, toolmodel.BackendLocal: noop,
	})
	assert.Equal(t, []toolmodel.BackendKind{toolmodel.BackendHTTP, toolmodel.BackendLocal, toolmodel.BackendMCP}, r.Kinds())

	err := r.Close()
	require.ErrorContains(t, err, "close http executor: socket stuck")
	assert.True(t, healthy.closed)
	assert.True(t, failing.closed, "every closer is closed, whatever the others do")
}

// refusingValidator accepts no arguments and records what it saw.
type refusingValidator struct{ seen []string }

func (v *refusingValidator) Validate(any, any) error {
	v.seen = append(v.seen, "schema")
	return nil
}

func (v *refusingValidator) ValidateInput(*toolmodel.Tool, any) error {
	v.seen = append(v.seen, "input")
	return errors.Errorf(errors.Validation, "refused by policy")
}

func (v *refusingValidator) ValidateOutput(*toolmodel.Tool, any) error {
	v.seen = append(v.seen, "output")
	return nil
}

func TestWithValidator(t *testing.T) {
	f := newFixture(t)
	v := &refusingValidator{}
	_, err := f.runner(toolrun.WithValidator(v)).Run(context.Background(), "demo:echo", map[string]any{"text": "hi"})
	require.ErrorIs(t, err, errors.ErrValidation)
	assert.Contains(t, err.Error(), "refused by policy")
	assert.Equal(t, []string{"input"}, v.seen)
}

func TestWithChunks(t *testing.T) {
	f := newFixture(t)
	f.registry.Register(toolmodel.BackendLocal, toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
		if call.OnChunk == nil {
			return toolrun.Output{Structured: []any{"a", "b"}}, nil // gathered
		}
		call.OnChunk("a")
		call.OnChunk("b")
		return toolrun.Output{}, nil
	}))
	var chunks []any
	res, err := f.runner().Run(context.Background(), "demo:echo", nil, toolrun.CallOptions{OnChunk: func(v any) { chunks = append(chunks, v) }})
	require.NoError(t, err)
	assert.Equal(t, []any{"a", "b"}, chunks)
	assert.Nil(t, res.Structured, "the chunks went to the callback")

	res, err = f.runner().Run(context.Background(), "demo:echo", nil)
	require.NoError(t, err)
	assert.Equal(t, []any{"a", "b"}, res.Structured, "without a callback the executor gathers them")
}

func TestAdapters(t *testing.T) {
	f := newFixture(t)
	var shown []string
	var retries []int
	r := f.runner(
		toolrun.WithMasker(toolrun.ArgumentMaskerFunc(func(toolID string, args any) any {
			return map[string]any{"tool": toolID}
		})),
		toolrun.WithEventPublisher(toolrun.EventPublisherFunc(func(_ context.Context, ev toolrun.Event) {
			shown = append(shown, ev.Args)
		})),
		toolrun.WithRetryPolicy(toolrun.RetryFunc(func(attempt int, err error) (time.Duration, bool) {
			retries = append(retries, attempt)
			return 0, attempt < 2
		})),
	)
	f.flaky.Store(5)
	_, err := r.Run(context.Background(), "demo:flaky", map[string]any{"token": "s3cret"})
	require.ErrorIs(t, err, errors.ErrUnavailable)
	assert.Equal(t, []int{1, 2}, retries, "the retry function decides")
	require.NotEmpty(t, shown)
	for _, args := range shown {
		assert.JSONEq(t, `{"tool":"demo:flaky"}`, args, "the masker function decides what events show")
	}
}

func TestOutputText(t *testing.T) {
	tests := []struct {
		name string
		out  toolrun.Output
		want string
	}{
		{"text contents, a line each, before the structured result", toolrun.Output{Content: []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}}, Structured: 1.0}, "one\ntwo"},
		{"structured result as JSON", toolrun.Output{Structured: map[string]any{"a": 1.0}}, `{"a":1}`},
		{"nothing", toolrun.Output{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, toolrun.OutputText(tt.out))
		})
	}
}
