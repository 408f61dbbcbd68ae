package toolrun_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolrun"
)

func TestHooksGetADeepCopyOfTheArguments(t *testing.T) {
	f := newFixture(t)
	args := map[string]any{
		"text":    "hi",
		"options": map[string]any{"lang": "en", "tags": []any{"a", map[string]any{"deep": "x"}}},
		"ids":     []string{"1", "2"},
		"limits":  map[string]int{"max": 3},
	}
	metadata := map[string]string{"user": "ada"}
	r := f.runner(toolrun.WithPreCall(toolrun.PreCallFunc(func(_ context.Context, c *toolrun.Call) error {
		opts := c.Args["options"].(map[string]any)
		opts["lang"] = "fr"
		opts["added"] = true
		tags := opts["tags"].([]any)
		tags[0] = "changed"
		tags[1].(map[string]any)["deep"] = "changed"
		c.Args["ids"].([]string)[0] = "changed"
		c.Args["limits"].(map[string]int)["max"] = 99
		c.Metadata["user"] = "mallory"
		return nil
	})))
	res, err := r.Run(context.Background(), "demo:echo", args, toolrun.CallOptions{Metadata: metadata})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"text":    "hi",
		"options": map[string]any{"lang": "en", "tags": []any{"a", map[string]any{"deep": "x"}}},
		"ids":     []string{"1", "2"},
		"limits":  map[string]int{"max": 3},
	}, args, "the caller's arguments are unchanged at every depth")
	assert.Equal(t, map[string]string{"user": "ada"}, metadata, "the caller's metadata is unchanged")
	out := res.Structured.(map[string]any)
	assert.Equal(t, "fr", out["options"].(map[string]any)["lang"], "the tool sees the hook's changes")
	assert.Equal(t, []any{"changed", "2"}, out["ids"])
}

type point struct {
	X, Y int
}

type report struct {
	Name   string   `json:"name"`
	Tags   []string `json:"tags"`
	Count  int      `json:"count"`
	Origin point    `json:"origin"`
	Ratio  float32  `json:"ratio"`
	Extra  *point   `json:"extra,omitempty"`
}

func TestLocalResultsAreJSONValues(t *testing.T) {
	f := newFixture(t)
	f.add(t, `{"name":"report","namespace":"demo","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) {
			return map[string]any{
				"tags":    []string{"a", "b"},
				"count":   3,
				"big":     int64(1) << 40,
				"nested":  map[string]any{"list": []int{1, 2}, "set": map[string]bool{"x": true}},
				"report":  report{Name: "r", Tags: []string{"t"}, Count: 2, Origin: point{1, 2}, Ratio: 0.5},
				"nothing": nil,
			}, nil
		})
	f.add(t, `{"name":"list","namespace":"demo","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) { return []report{{Name: "only"}}, nil })
	f.add(t, `{"name":"count","namespace":"demo","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) { return 7, nil })
	want := map[string]any{
		"tags":   []any{"a", "b"},
		"count":  3.0,
		"big":    float64(int64(1) << 40),
		"nested": map[string]any{"list": []any{1.0, 2.0}, "set": map[string]any{"x": true}},
		"report": map[string]any{"name": "r", "tags": []any{"t"}, "count": 2.0,
			"origin": map[string]any{"X": 1.0, "Y": 2.0}, "ratio": 0.5},
		"nothing": nil,
	}

	r := f.runner()
	ctx := context.Background()
	res, err := r.Run(ctx, "demo:report", nil)
	require.NoError(t, err)
	assert.Equal(t, want, res.Structured)
	res, err = r.Run(ctx, "demo:list", nil)
	require.NoError(t, err)
	assert.Equal(t, []any{map[string]any{"name": "only", "tags": nil, "count": 0.0, "origin": map[string]any{"X": 0.0, "Y": 0.0}, "ratio": 0.0}}, res.Structured)
	res, err = r.Run(ctx, "demo:count", nil)
	require.NoError(t, err)
	assert.Equal(t, 7.0, res.Structured) //nolint:testifylint // the exact float64 is the point

	// A chain hands the next step JSON values, as an MCP or HTTP tool's
	// result would be.
	var received any
	f.add(t, `{"name":"sink","namespace":"demo","inputSchema":{"type":"object"}}`,
		func(_ context.Context, args map[string]any) (any, error) {
			received = args["previous"]
			return "ok", nil
		})
	_, err = r.RunChain(ctx, []toolrun.ChainStep{{ToolID: "demo:report"}, {ToolID: "demo:sink", UsePrevious: true}})
	require.NoError(t, err)
	assert.Equal(t, want, received)
}
