package toolindex_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestDefaultSelector(t *testing.T) {
	mcpA, mcpB := mcpBackend("a"), mcpBackend("b")
	local := localBackend("l")
	provider := toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "p"}}
	http := toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "https://x.test", Method: "GET"}}
	grpc := toolmodel.ToolBackend{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{Address: "x:1", Method: "/a.B/C"}}
	custom := toolmodel.ToolBackend{Kind: "wasm", Config: map[string]string{"source": "mod"}}

	tests := []struct {
		name     string
		backends []toolmodel.ToolBackend
		hints    []toolindex.SelectHint
		want     toolmodel.ToolBackend
	}{
		{"local first", []toolmodel.ToolBackend{mcpA, http, grpc, provider, local, custom}, nil, local},
		{"then provider", []toolmodel.ToolBackend{custom, mcpA, http, grpc, provider}, nil, provider},
		{"then http", []toolmodel.ToolBackend{mcpA, grpc, http}, nil, http},
		{"then grpc", []toolmodel.ToolBackend{custom, mcpA, grpc}, nil, grpc},
		{"then mcp", []toolmodel.ToolBackend{custom, mcpA}, nil, mcpA},
		{"other kinds last", []toolmodel.ToolBackend{custom}, nil, custom},
		{"first registered within a kind", []toolmodel.ToolBackend{mcpB, mcpA}, nil, mcpB},
		{"hint by kind", []toolmodel.ToolBackend{local, mcpA, mcpB}, []toolindex.SelectHint{{Kind: toolmodel.BackendMCP}}, mcpA},
		{"hint by backend", []toolmodel.ToolBackend{local, mcpA, mcpB}, []toolindex.SelectHint{{Backend: "mcp:b"}}, mcpB},
		{"hint by both", []toolmodel.ToolBackend{local, mcpA, mcpB}, []toolindex.SelectHint{{Kind: toolmodel.BackendMCP, Backend: "mcp:b"}}, mcpB},
		{"contradictory hint falls back", []toolmodel.ToolBackend{local, mcpA}, []toolindex.SelectHint{{Kind: toolmodel.BackendHTTP, Backend: "mcp:a"}}, local},
		{"unmatched hint falls back", []toolmodel.ToolBackend{mcpA, local}, []toolindex.SelectHint{{Backend: "mcp:zzz"}}, local},
		{"first matching hint wins", []toolmodel.ToolBackend{local, mcpA, grpc}, []toolindex.SelectHint{{Kind: toolmodel.BackendHTTP}, {Kind: toolmodel.BackendGRPC}, {Kind: toolmodel.BackendMCP}}, grpc},
		{"empty hint matches all", []toolmodel.ToolBackend{mcpA, local}, []toolindex.SelectHint{{}}, local},
	}
	tool := newTool("", "t", "d")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolindex.DefaultSelector{}.Select(context.Background(), &tool, tt.backends, tt.hints)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := toolindex.DefaultSelector{}.Select(context.Background(), &tool, nil, nil)
	require.ErrorIs(t, err, errors.ErrNotFound)
}

func TestSelectHintMatches(t *testing.T) {
	b := mcpBackend("gh")
	assert.True(t, toolindex.SelectHint{}.Matches(&b))
	assert.True(t, toolindex.SelectHint{Kind: toolmodel.BackendMCP}.Matches(&b))
	assert.True(t, toolindex.SelectHint{Backend: "mcp:gh"}.Matches(&b))
	assert.False(t, toolindex.SelectHint{Kind: toolmodel.BackendLocal}.Matches(&b))
	assert.False(t, toolindex.SelectHint{Kind: toolmodel.BackendMCP, Backend: "mcp:other"}.Matches(&b))
}

func TestDefaultSelectorNilAndEmpty(t *testing.T) {
	tool := newTool("", "t", "d")
	backends := []toolmodel.ToolBackend{mcpBackend("a"), localBackend("l")}
	tests := []struct {
		name     string
		tool     *toolmodel.Tool
		backends []toolmodel.ToolBackend
		hints    []toolindex.SelectHint
		want     toolmodel.ToolBackend
		wantErr  error
	}{
		{"nil tool", nil, backends, nil, toolmodel.ToolBackend{}, errors.ErrInvalidArgument},
		{"nil tool and no backends", nil, nil, nil, toolmodel.ToolBackend{}, errors.ErrInvalidArgument},
		{"no backends", &tool, nil, nil, toolmodel.ToolBackend{}, errors.ErrNotFound},
		{"empty backends", &tool, []toolmodel.ToolBackend{}, []toolindex.SelectHint{{}}, toolmodel.ToolBackend{}, errors.ErrNotFound},
		{"zero backend", &tool, []toolmodel.ToolBackend{{}}, []toolindex.SelectHint{{Kind: toolmodel.BackendMCP}}, toolmodel.ToolBackend{}, nil},
		{"empty hints", &tool, backends, []toolindex.SelectHint{}, localBackend("l"), nil},
		{"zero hints", &tool, backends, make([]toolindex.SelectHint, 3), localBackend("l"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got toolmodel.ToolBackend
			var err error
			require.NotPanics(t, func() {
				got, err = toolindex.DefaultSelector{}.Select(context.Background(), tt.tool, tt.backends, tt.hints)
			})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), "toolindex.Select")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSelectHintMatchesNil(t *testing.T) {
	for _, h := range []toolindex.SelectHint{{}, {Kind: toolmodel.BackendMCP}, {Backend: "mcp:gh"}, {Kind: toolmodel.BackendMCP, Backend: "mcp:gh"}} {
		assert.False(t, h.Matches(nil), "%+v matches no missing backend", h)
	}
}
