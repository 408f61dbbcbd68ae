package tooldocstest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

// RunResolverConformance checks that the resolvers newResolver returns
// keep the contract of [tooldocs.ToolResolver]. newResolver is called once
// per subtest and must return a resolver that knows exactly the given
// tools; it may use t to register cleanups.
func RunResolverConformance(t *testing.T, newResolver func(t *testing.T, tools []toolmodel.Tool) tooldocs.ToolResolver) {
	t.Helper()
	tools := sampleTools()

	t.Run("resolves every known tool", func(t *testing.T) {
		r := newResolver(t, cloneTools(tools))
		for _, want := range tools {
			got, err := r.ResolveTool(t.Context(), want.ID())
			require.NoError(t, err, "ResolveTool(%q)", want.ID())
			assert.True(t, want.Equal(got), "ResolveTool(%q) = %+v, want %+v", want.ID(), got, want)
		}
	})

	t.Run("unknown tools are not found", func(t *testing.T) {
		r := newResolver(t, cloneTools(tools))
		for _, id := range []string{"conformance:missing", "missing", "other:search"} {
			_, err := r.ResolveTool(t.Context(), id)
			require.ErrorIs(t, err, errors.ErrNotFound, "ResolveTool(%q)", id)
		}
	})

	t.Run("results are copies", func(t *testing.T) {
		r := newResolver(t, cloneTools(tools))
		id := tools[0].ID()
		got, err := r.ResolveTool(t.Context(), id)
		require.NoError(t, err)
		scribble(&got)
		again, err := r.ResolveTool(t.Context(), id)
		require.NoError(t, err)
		assert.True(t, tools[0].Equal(again), "a change to a result reached the resolver: got %+v", again)
	})

	t.Run("concurrent use", func(t *testing.T) {
		r := newResolver(t, cloneTools(tools))
		var wg sync.WaitGroup
		errs := make(chan error, len(tools)*4)
		for range 4 {
			for _, want := range tools {
				wg.Go(func() {
					got, err := r.ResolveTool(context.Background(), want.ID())
					switch {
					case err != nil:
						errs <- err
					case !want.Equal(got):
						errs <- fmt.Errorf("ResolveTool(%q) = %+v", want.ID(), got)
					default:
						scribble(&got)
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	})

	t.Run("a store describes the resolved tools", func(t *testing.T) {
		s := tooldocs.NewStore(tooldocs.WithResolver(newResolver(t, cloneTools(tools))))
		for _, want := range tools {
			doc, err := s.Describe(t.Context(), want.ID(), tooldocs.LevelSchema)
			require.NoError(t, err, "Describe(%q)", want.ID())
			assert.Equal(t, want.Name, doc.Name)
			assert.NotNil(t, doc.Input)
		}
	})
}

// sampleTools returns the tools the resolver suite registers: with and
// without namespace, tags, metadata and an output schema.
func sampleTools() []toolmodel.Tool {
	search := toolmodel.Tool{Namespace: "conformance", Tags: []string{"docs", "search"}, Metadata: map[string]any{"owner": "docs-team"}}
	search.Name = "search"
	search.Description = "Search the documentation."
	search.InputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)
	search.OutputSchema = json.RawMessage(`{"type":"object","properties":{"hits":{"type":"array","items":{"type":"string"}}}}`)

	ping := toolmodel.Tool{}
	ping.Name = "ping"
	ping.InputSchema = json.RawMessage(`{"type":"object"}`)
	return []toolmodel.Tool{search, ping}
}

func cloneTools(tools []toolmodel.Tool) []toolmodel.Tool {
	out := make([]toolmodel.Tool, len(tools))
	for i, t := range tools {
		out[i] = t.Clone()
	}
	return out
}

// scribble changes everything mutable in a tool, in place.
func scribble(t *toolmodel.Tool) {
	t.Description = "scribbled"
	if len(t.Tags) > 0 {
		t.Tags[0] = "scribbled"
	}
	for k := range t.Metadata {
		t.Metadata[k] = "scribbled"
	}
	if raw, ok := t.InputSchema.(json.RawMessage); ok && len(raw) > 0 {
		raw[0] = ' '
	}
}
