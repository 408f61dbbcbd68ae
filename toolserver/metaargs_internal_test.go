package toolserver

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// argsFor returns the decoding settings of a meta-tool whose input is In.
func argsFor[In any](t testing.TB) metaArgs {
	t.Helper()
	schema, err := jsonschema.For[In](nil)
	require.NoError(t, err)
	return metaArgs{tool: "probe", schema: schema, validator: toolmodel.NewValidator()}
}

func TestDecodeMetaArgs(t *testing.T) {
	m := argsFor[chainInput](t)
	in, err := decodeMetaArgs[chainInput](m, json.RawMessage(`{"steps": [{"id": "a:b", "args": {"x": [1, {"y": null}]}}, {"id": "c", "usePrevious": true}], "continueOnError": true}`))
	require.NoError(t, err)
	assert.Equal(t, chainInput{ContinueOnError: true, Steps: []chainStepInput{
		{ID: "a:b", Args: map[string]any{"x": []any{1.0, map[string]any{"y": nil}}}},
		{ID: "c", UsePrevious: true},
	}}, in)

	for _, raw := range []string{``, `null`, `{}`} {
		in, err := decodeMetaArgs[namespacesInput](argsFor[namespacesInput](t), json.RawMessage(raw))
		require.NoError(t, err, "%q is no arguments", raw)
		assert.Zero(t, in)
	}

	_, err = decodeMetaArgs[chainInput](m, json.RawMessage(`{"steps": [{"id": 5}]}`))
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	assert.Contains(t, err.Error(), `probe: invalid arguments: /steps/0/id: type: 5 has type "integer", want "string"`)
	assert.Contains(t, err.Error(), "call probe again with arguments that follow its input schema")

	_, err = decodeMetaArgs[chainInput](m, json.RawMessage(`{"steps": `))
	assert.ErrorContains(t, err, "the arguments are not JSON")
}

// TestAssignJSONNamesTheMember covers a schema that lets through what the
// type cannot hold: the error names the member, and nothing panics.
func TestAssignJSONNamesTheMember(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type outer struct {
		List []inner          `json:"list"`
		Map  map[string]inner `json:"a/b~c"`
	}
	tests := []struct {
		value any
		want  string
	}{
		{map[string]any{"list": []any{map[string]any{"n": 1.0}, map[string]any{"n": 1.5}}}, "/list/1/n: int cannot hold a JSON number"},
		{map[string]any{"list": []any{map[string]any{"n": 1e300}}}, "/list/0/n: int cannot hold a JSON number"},
		{map[string]any{"a/b~c": map[string]any{"k": map[string]any{"n": "x"}}}, "/a~1b~0c/k/n: int cannot hold a JSON string"},
		{map[string]any{"list": "x"}, "/list: []toolserver.inner cannot hold a JSON string"},
		{[]any{}, "the arguments: toolserver.outer cannot hold a JSON array"},
	}
	for _, tt := range tests {
		var out outer
		err := assignJSON(reflect.ValueOf(&out).Elem(), tt.value)
		assert.EqualError(t, err, tt.want)
	}
}

// FuzzDecodeMetaArgs decodes arbitrary JSON as the arguments of each
// meta-tool: it never panics, and what it accepts goes back to JSON that
// decodes to the same input.
func FuzzDecodeMetaArgs(f *testing.F) {
	for _, seed := range []string{
		`{"query": "x", "limit": 3}`, `{"limit": 2.5}`, `{"id": "a:b", "args": {"n": 1}}`,
		`{"steps": [{"id": "a", "args": {"t": {"$previous": "/x"}}}]}`, `[]`, `null`, `"x"`, `{"steps": [null]}`,
	} {
		f.Add(uint8(0), []byte(seed))
	}
	search, run, chain := argsFor[searchInput](f), argsFor[runInput](f), argsFor[chainInput](f)
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		switch which % 3 {
		case 0:
			roundTripAs[searchInput](t, search, raw)
		case 1:
			roundTripAs[runInput](t, run, raw)
		default:
			roundTripAs[chainInput](t, chain, raw)
		}
	})
}

func roundTripAs[In any](t *testing.T, m metaArgs, raw []byte) {
	t.Helper()
	in, err := decodeMetaArgs[In](m, raw)
	if err != nil {
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		return
	}
	again, err := json.Marshal(in)
	require.NoError(t, err)
	back, err := decodeMetaArgs[In](m, again)
	require.NoError(t, err, "%s decodes", again)
	twice, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(again), string(twice))
}
