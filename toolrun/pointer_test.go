package toolrun_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

func ref(pointer string) map[string]any { return map[string]any{toolrun.PreviousRef: pointer} }

func TestChainStepPicksAPartOfThePreviousResult(t *testing.T) {
	f := newFixture(t)
	echoArgs := map[string]any{
		"text":  "sum",
		"n":     ref("/sum"),
		"all":   ref(""),
		"deep":  map[string]any{"list": []any{ref("/sum"), "kept"}},
		"plain": map[string]any{"x": 1.0},
	}
	steps := []toolrun.ChainStep{
		{ToolID: "math:add", Args: map[string]any{"a": 1, "b": 2}},
		{ToolID: "demo:echo", Args: echoArgs},
		{ToolID: "demo:echo", Args: ref("/plain")},
	}
	results, err := f.runner().RunChain(context.Background(), steps)
	require.NoError(t, err)
	require.Len(t, results, 3)
	assert.Equal(t, map[string]any{
		"text": "sum", "n": 3.0, "all": map[string]any{"sum": 3.0},
		"deep": map[string]any{"list": []any{3.0, "kept"}}, "plain": map[string]any{"x": 1.0},
	}, results[1].Result.Structured)
	assert.Equal(t, map[string]any{"x": 1.0}, results[2].Result.Structured, "the arguments as a whole may be a part of the result")
	assert.Equal(t, ref("/sum"), echoArgs["n"], "the step's arguments are not modified")
	assert.Equal(t, []any{ref("/sum"), "kept"}, echoArgs["deep"].(map[string]any)["list"])
}

func TestChainStepReferenceErrors(t *testing.T) {
	f := newFixture(t)
	add := toolrun.ChainStep{ToolID: "math:add", Args: map[string]any{"a": 1, "b": 2}}
	tests := []struct {
		name  string
		steps []toolrun.ChainStep
		want  string
	}{
		{"member not found", []toolrun.ChainStep{add, {ToolID: "demo:echo", Args: map[string]any{"text": ref("/content/0/text")}}},
			`chain step 1 (demo:echo): argument /text: $previous "/content/0/text": the result has no member "content" (it has members "sum")`},
		{"into a number", []toolrun.ChainStep{add, {ToolID: "demo:echo", Args: map[string]any{"text": ref("/sum/x")}}},
			`argument /text: $previous "/sum/x": /sum is a number, not an object or array: it has no "x"`},
		{"malformed pointer", []toolrun.ChainStep{add, {ToolID: "demo:echo", Args: map[string]any{"text": ref("sum")}}},
			`chain step 1 (demo:echo): argument /text: $previous "sum": JSON pointer "sum" does not start with "/"`},
		{"bad escape", []toolrun.ChainStep{add, {ToolID: "demo:echo", Args: map[string]any{"a~b": []any{ref("/s~2")}}}},
			`argument /a~0b/0: $previous "/s~2": JSON pointer "/s~2" has a "~" not followed by 0 or 1`},
		{"not a string", []toolrun.ChainStep{add, {ToolID: "demo:echo", Args: map[string]any{"text": map[string]any{"$previous": 1.0}}}},
			`argument /text: the value of "$previous" is a number, not a JSON pointer string`},
		{"first step", []toolrun.ChainStep{{ToolID: "demo:echo", Args: map[string]any{"text": ref("/x")}}},
			`chain step 0 (demo:echo): step 0 refers to the previous result with "$previous", but there is none`},
		{"previous failed", []toolrun.ChainStep{{ToolID: "demo:fail"}, {ToolID: "demo:echo", Args: map[string]any{"text": ref("")}}},
			`step 1 refers to the result of step 0 with "$previous", but that step failed`},
		{"whole arguments not an object", []toolrun.ChainStep{add, {ToolID: "demo:echo", Args: ref("/sum")}},
			`step 1 takes its arguments from the previous result with "$previous", but the part selected is a number, not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results, err := f.runner().RunChain(context.Background(), tt.steps, toolrun.ContinueOnError())
			require.Error(t, err)
			require.ErrorContains(t, err, tt.want)
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			last := results[len(results)-1]
			require.Error(t, last.Err)
			assert.Nil(t, last.Result, "the step did not run")
		})
	}
}
