package tooldocs_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

// longSummaryTool returns a tool whose first sentence is longer than
// DefaultSummaryLength, so that a Store without the default cuts it
// differently.
func longSummaryTool(tb testing.TB) *toolmodel.Tool {
	tb.Helper()
	tool := mustTool(tb, searchToolJSON)
	tool.Description = "Search " + strings.Repeat("the documentation ", 12) + "for a query. Results are ranked."
	return tool
}

// TestZeroStore checks that a Store NewStore did not make works as
// NewStore's does, whichever method is called first.
func TestZeroStore(t *testing.T) {
	ctx := context.Background()
	tool := longSummaryTool(t)
	entry := tooldocs.Entry{Tool: tool, Examples: []tooldocs.Example{{Name: "basic", Args: map[string]any{"query": "x"}}}}
	notFound := func(err error) error {
		if errors.Is(err, errors.ErrNotFound) {
			return nil
		}
		return err
	}
	tests := []struct {
		name  string
		first func(*tooldocs.Store) error
	}{
		{"Register", func(s *tooldocs.Store) error { return s.Register(ctx, entry) }},
		{"RegisterMany", func(s *tooldocs.Store) error { return s.RegisterMany(ctx, []tooldocs.Entry{entry}) }},
		{"Describe", func(s *tooldocs.Store) error {
			_, err := s.Describe(ctx, "docs:search", tooldocs.LevelFull)
			return notFound(err)
		}},
		{"DescribeWithin", func(s *tooldocs.Store) error {
			_, err := s.DescribeWithin(ctx, "docs:search", 1000)
			return notFound(err)
		}},
		{"Costs", func(s *tooldocs.Store) error { _, err := s.Costs(ctx, "docs:search"); return notFound(err) }},
		{"Examples", func(s *tooldocs.Store) error { _, err := s.Examples(ctx, "docs:search", 0); return notFound(err) }},
		{"TypeScript", func(s *tooldocs.Store) error {
			_, err := s.TypeScript(ctx, []string{"docs:search"}, tooldocs.TypeScriptOptions{})
			return notFound(err)
		}},
		{"Get", func(s *tooldocs.Store) error { _, err := s.Get("docs:search"); return notFound(err) }},
		{"Remove", func(s *tooldocs.Store) error { return notFound(s.Remove("docs:search")) }},
		{"RemoveSource", func(s *tooldocs.Store) error { assert.Zero(t, s.RemoveSource("")); return nil }},
		{"List", func(s *tooldocs.Store) error { assert.Empty(t, s.List(tooldocs.ListFilter{})); return nil }},
		{"Len", func(s *tooldocs.Store) error { assert.Zero(t, s.Len()); return nil }},
	}

	want := tooldocs.NewStore()
	require.NoError(t, want.Register(ctx, entry))
	wantDoc, err := want.Describe(ctx, "docs:search", tooldocs.LevelFull)
	require.NoError(t, err)
	wantCosts, err := want.Costs(ctx, "docs:search")
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s tooldocs.Store
			require.NotPanics(t, func() { require.NoError(t, tt.first(&s)) })

			require.NoError(t, s.Register(ctx, entry))
			doc, err := s.Describe(ctx, "docs:search", tooldocs.LevelFull)
			require.NoError(t, err)
			assert.Equal(t, wantDoc, doc, "the summary has the default length")
			costs, err := s.Costs(ctx, "docs:search")
			require.NoError(t, err)
			assert.Equal(t, wantCosts, costs)
			err = s.Register(ctx, tooldocs.Entry{Tool: tool, Examples: []tooldocs.Example{{Name: "bad", Args: map[string]any{"query": 1}}}})
			require.ErrorIs(t, err, errors.ErrValidation, "examples are checked")
		})
	}
}

// TestZeroStoreFirstUseRaces registers into and reads from a zero Store
// at once; -race checks that setting it up is synchronized with them.
func TestZeroStoreFirstUseRaces(t *testing.T) {
	ctx := context.Background()
	var s tooldocs.Store
	var wg sync.WaitGroup
	// Each registration reports its error here; require may only stop
	// the test from the test's own goroutine.
	errs := make(chan error, 4)
	for i := range 4 {
		tool := mustTool(t, searchToolJSON)
		tool.Name = "search" + string(rune('a'+i))
		wg.Go(func() {
			errs <- s.Register(ctx, tooldocs.Entry{Tool: tool, Examples: []tooldocs.Example{{Name: "basic", Args: map[string]any{"query": "x"}}}})
		})
		wg.Go(func() {
			_, _ = s.Costs(ctx, "docs:searcha")
			_, _ = s.Describe(ctx, "docs:searcha", tooldocs.LevelFull)
			_ = s.List(tooldocs.ListFilter{})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 4, s.Len())
}

// TestStoreNilOptions checks that options given nil keep the defaults
// instead of making later calls panic.
func TestStoreNilOptions(t *testing.T) {
	ctx := context.Background()
	entry := tooldocs.Entry{Tool: longSummaryTool(t), Examples: []tooldocs.Example{{Name: "basic", Args: map[string]any{"query": "x"}}}}
	want := tooldocs.NewStore()
	require.NoError(t, want.Register(ctx, entry))
	wantCosts, err := want.Costs(ctx, "docs:search")
	require.NoError(t, err)

	tests := []struct {
		name string
		opt  tooldocs.Option
	}{
		{"nil option", nil},
		{"nil resolver", tooldocs.WithResolver(nil)},
		{"nil resolver func", tooldocs.WithResolver(tooldocs.ToolResolverFunc(nil))},
		{"nil validator", tooldocs.WithValidator(nil)},
		{"nil estimator", tooldocs.WithTokenEstimator(nil)},
		{"nil estimator func", tooldocs.WithTokenEstimator(tooldocs.TokenEstimatorFunc(nil))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tooldocs.NewStore(tt.opt)
			require.NotPanics(t, func() {
				require.NoError(t, s.Register(ctx, entry))
				costs, err := s.Costs(ctx, "docs:search")
				require.NoError(t, err)
				assert.Equal(t, wantCosts, costs)
				_, err = s.Describe(ctx, "docs:unknown", tooldocs.LevelFull)
				require.ErrorIs(t, err, errors.ErrNotFound, "no resolver to ask")
			})
		})
	}
}

// mapIndex is an IndexReader over a map; its method needs a non-nil
// receiver.
type mapIndex struct{ tools map[string]toolmodel.Tool }

func (x *mapIndex) GetAll(_ context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
	return x.tools[id], nil, nil
}

func TestIndexResolverWithoutIndex(t *testing.T) {
	tests := []struct {
		name string
		idx  tooldocs.IndexReader
	}{
		{"nil", nil},
		{"nil pointer", (*mapIndex)(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(tt.idx)))
			require.NotPanics(t, func() {
				_, err := s.Describe(t.Context(), "docs:search", tooldocs.LevelFull)
				require.ErrorIs(t, err, errors.ErrInvalidArgument)
				assert.ErrorContains(t, err, "given no index")
				err = s.Register(t.Context(), tooldocs.Entry{ToolID: "docs:search", Notes: []string{"A note."}})
				require.ErrorIs(t, err, errors.ErrInvalidArgument)
			})
		})
	}
}

func TestAnnotationsStringNil(t *testing.T) {
	var a *tooldocs.Annotations
	require.NotPanics(t, func() { assert.Empty(t, a.String()) })
}
