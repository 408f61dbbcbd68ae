package toolcode_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
)

// echoTools answers each operation with what it was asked.
type echoTools struct{}

func (echoTools) Search(_ context.Context, q string, limit int) ([]toolindex.Summary, error) {
	return []toolindex.Summary{{ID: q, Score: float64(limit)}}, nil
}
func (echoTools) Namespaces(context.Context) ([]string, error) { return []string{"ns"}, nil }
func (echoTools) Describe(_ context.Context, id string, level tooldocs.DetailLevel) (tooldocs.Doc, error) {
	return tooldocs.Doc{ID: id, Level: level}, nil
}
func (echoTools) Examples(_ context.Context, id string, limit int) ([]tooldocs.Example, error) {
	return []tooldocs.Example{{Name: id, Args: map[string]any{"limit": limit}}}, nil
}
func (echoTools) Run(_ context.Context, id string, args map[string]any) (any, error) {
	return map[string]any{"id": id, "args": args}, nil
}
func (echoTools) Chain(_ context.Context, steps []toolcode.ChainStep) ([]any, error) {
	return []any{steps}, nil
}
func (echoTools) Log(context.Context, string) error { return nil }

type panicTools struct{ echoTools }

func (panicTools) Namespaces(context.Context) ([]string, error) { panic("boom") }

func TestDispatch(t *testing.T) {
	tests := []struct {
		name, op, id string
		arg          any
		want         string // the JSON of the result, or the error's code
	}{
		{"run", "run", "math:add", map[string]any{"a": 1.0}, `{"id":"math:add","args":{"a":1}}`},
		{"run without arguments", "run", "plain", nil, `{"id":"plain","args":{}}`},
		{"run with arguments not an object", "run", "math:add", []any{1.0}, string(errors.InvalidArgument)},
		{"search with a limit", "search", "add", 3.0, `[{"id":"add","name":"","backends":null,"score":3}]`},
		{"search without a limit", "search", "add", nil, `[{"id":"add","name":"","backends":null}]`},
		{"search with a fractional limit", "search", "add", 1.5, string(errors.InvalidArgument)},
		{"search with a text limit", "search", "add", "one", string(errors.InvalidArgument)},
		{"namespaces", "namespaces", "", nil, `["ns"]`},
		{"describe at an unknown level", "describe", "math:add", "everything", string(errors.InvalidArgument)},
		{"examples", "examples", "math:add", 2.0, `[{"name":"math:add","args":{"limit":2}}]`},
		{"chain", "chain", "", []any{map[string]any{"toolId": "math:add", "usePrevious": true}}, `[[{"toolId":"math:add","usePrevious":true}]]`},
		{"chain of the wrong shape", "chain", "", map[string]any{"toolId": "math:add"}, string(errors.InvalidArgument)},
		{"unknown operation", "delete", "math:add", nil, string(errors.InvalidArgument)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := toolcode.Dispatch(context.Background(), echoTools{}, tt.op, tt.id, tt.arg)
			if err != nil {
				assert.Equal(t, tt.want, string(errors.CodeOf(err)), err.Error())
				return
			}
			b, err := json.Marshal(out)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestDispatchRecoversAPanic(t *testing.T) {
	_, err := toolcode.Dispatch(context.Background(), panicTools{}, "namespaces", "", nil)
	require.Error(t, err)
	assert.Equal(t, errors.Internal, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "boom")
}
