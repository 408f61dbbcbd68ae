package toolindextest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// RunSearcherConformance checks that the searchers newSearcher returns
// keep the contract of [toolindex.Searcher]. newSearcher is called once per
// subtest and must return an empty searcher; subtests run in parallel, so
// it must be safe to call concurrently (use t.TempDir for files).
//
// It checks that a searcher finds tools by the words of their names
// (whatever the identifier style) and descriptions; that a query of
// several words matches tools containing any of them, those containing
// more ranking higher; that an upsert replaces the old text and a removal
// takes a tool out; the namespace filter; that offset and limit page
// consistently through one ranking; the order (score descending, then ID
// ascending, ties included); that text looking like a query language is
// searched as plain words; that bad requests and canceled contexts fail
// with the right errors; and that concurrent use is safe.
func RunSearcherConformance(t *testing.T, newSearcher func(t *testing.T) toolindex.Searcher) {
	t.Helper()
	ctx := context.Background()

	// setup returns a new searcher holding tools.
	setup := func(t *testing.T, tools ...toolmodel.Tool) toolindex.Searcher {
		t.Helper()
		s := newSearcher(t)
		require.NotNil(t, s, "newSearcher returned nil")
		require.NoError(t, s.Upsert(ctx, tools))
		return s
	}
	search := func(t *testing.T, s toolindex.Searcher, text, namespace string, offset, limit int) []toolindex.Hit {
		t.Helper()
		hits, err := s.Search(ctx, toolindex.SearchQuery{Text: text, Namespace: namespace, Offset: offset, Limit: limit})
		require.NoError(t, err, "search %q", text)
		require.LessOrEqual(t, len(hits), limit, "search %q returned more hits than the limit", text)
		require.Empty(t, rankingError(hits), "search %q", text)
		return hits
	}
	ids := func(t *testing.T, s toolindex.Searcher, text string) []string {
		t.Helper()
		return hitIDs(search(t, s, text, "", 0, 100))
	}

	issue := NewTool("github", "create_issue", "Open a new ticket in a repository.")
	weather := NewTool("", "getWeather", "Current conditions for a city.")
	forecast := NewTool("meteo", "outlook", "Forecast for the coming days.")
	both := NewTool("meteo", "weather-forecast", "Weather forecast, hour by hour.")
	mail := NewTool("mail", "send.email", "Deliver a message to a recipient.")

	t.Run("FindsByNameWords", func(t *testing.T) {
		t.Parallel()
		s := setup(t, issue, weather, mail)
		for _, q := range []string{"create", "issue", "create issue", "createIssue", "create_issue", "github.create-issue", "ISSUE"} {
			assert.Contains(t, ids(t, s, q), "github:create_issue", "query %q", q)
		}
		assert.Contains(t, ids(t, s, "weather"), "getWeather")
		assert.Contains(t, ids(t, s, "email"), "mail:send.email")
		assert.NotContains(t, ids(t, s, "issue"), "getWeather")
	})

	t.Run("FindsByDescriptionWords", func(t *testing.T) {
		t.Parallel()
		s := setup(t, issue, weather, mail)
		assert.Equal(t, []string{"github:create_issue"}, ids(t, s, "repository"))
		assert.Equal(t, []string{"mail:send.email"}, ids(t, s, "recipient"))
		assert.Equal(t, []string{"getWeather"}, ids(t, s, "city"))
	})

	t.Run("MultiWordMatchesAnyWord", func(t *testing.T) {
		t.Parallel()
		s := setup(t, weather, forecast, both, issue)
		got := ids(t, s, "weather forecast")
		assert.ElementsMatch(t, []string{"getWeather", "meteo:outlook", "meteo:weather-forecast"}, got)
		require.NotEmpty(t, got)
		assert.Equal(t, "meteo:weather-forecast", got[0], "the tool with both words ranks first")
	})

	t.Run("NoSearchableWordMatchesNothing", func(t *testing.T) {
		t.Parallel()
		s := setup(t, issue, weather)
		for _, q := range []string{"", "   ", "!!! ... ---", "zzzunknownzzz"} {
			assert.Empty(t, search(t, s, q, "", 0, 10), "query %q", q)
		}
	})

	t.Run("UpsertReplacesOldText", func(t *testing.T) {
		t.Parallel()
		s := setup(t, NewTool("", "probe", "alpha quartz"))
		require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{NewTool("", "probe", "beta quartz")}))
		assert.Empty(t, ids(t, s, "alpha"), "old text must be gone")
		assert.Equal(t, []string{"probe"}, ids(t, s, "beta"))
		assert.Equal(t, []string{"probe"}, ids(t, s, "quartz"), "one hit per tool, no stale copy")
	})

	t.Run("UpsertCopiesInput", func(t *testing.T) {
		t.Parallel()
		tool := NewTool("", "probe", "quartz")
		tool.Tags = []string{"alpha"}
		tools := []toolmodel.Tool{tool}
		s := setup(t, tools...)
		tools[0].Tags[0] = "omega"
		assert.Equal(t, []string{"probe"}, ids(t, s, "alpha"))
		assert.Empty(t, ids(t, s, "omega"))
	})

	t.Run("RemoveTakesToolsOut", func(t *testing.T) {
		t.Parallel()
		s := setup(t, issue, weather, mail)
		require.NoError(t, s.Remove(ctx, []string{"github:create_issue", "no:such-tool"}))
		assert.Empty(t, ids(t, s, "issue"))
		assert.Equal(t, []string{"getWeather"}, ids(t, s, "weather"))
		require.NoError(t, s.Remove(ctx, nil))
		require.NoError(t, s.Upsert(ctx, nil))
		assert.Equal(t, []string{"mail:send.email"}, ids(t, s, "email"))
	})

	t.Run("NamespaceFilter", func(t *testing.T) {
		t.Parallel()
		s := setup(t,
			NewTool("alpha", "lookup", "find a record"),
			NewTool("beta", "lookup", "find a record"),
			NewTool("", "lookup", "find a record"))
		assert.Equal(t, []string{"beta:lookup"}, hitIDs(search(t, s, "record", "beta", 0, 10)))
		assert.Empty(t, search(t, s, "record", "gamma", 0, 10))
		assert.Len(t, search(t, s, "record", "", 0, 10), 3)
	})

	t.Run("OffsetLimitPaging", func(t *testing.T) {
		t.Parallel()
		tools := catalogue(60)
		s := setup(t, tools...)
		const q = "create issue report"
		all := search(t, s, q, "", 0, 100)
		require.Greater(t, len(all), 10, "the catalogue should match many tools")
		var paged []toolindex.Hit
		for offset := 0; ; offset += 7 {
			page := search(t, s, q, "", offset, 7)
			paged = append(paged, page...)
			if len(page) < 7 {
				break
			}
		}
		assert.Equal(t, hitIDs(all), hitIDs(paged), "pages must concatenate to the full ranking")
		assert.Empty(t, search(t, s, q, "", len(all), 5), "offset past the end")
		assert.Equal(t, hitIDs(all[:3]), hitIDs(search(t, s, q, "", 0, 3)))
	})

	t.Run("DeterministicTies", func(t *testing.T) {
		t.Parallel()
		s := newSearcher(t)
		// Identical text in namespaces of the same length: equal scores.
		for _, ns := range []string{"ccc", "aaa", "bbb"} {
			require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{NewTool(ns, "echo", "repeat the input")}))
		}
		hits := search(t, s, "echo", "", 0, 10)
		require.Len(t, hits, 3)
		assert.Equal(t, []string{"aaa:echo", "bbb:echo", "ccc:echo"}, hitIDs(hits), "ties are ordered by ID")
		assert.InDelta(t, hits[0].Score, hits[2].Score, 1e-9)
		for range 3 {
			assert.Equal(t, hits, search(t, s, "echo", "", 0, 10), "repeated queries give the same hits")
		}
	})

	t.Run("QuerySyntaxIsText", func(t *testing.T) {
		t.Parallel()
		s := setup(t,
			NewTool("", "foo", "first probe"),
			NewTool("", "bar", "second probe"),
			NewTool("", "baz", "third probe"))
		for _, q := range []string{
			`name:foo +bar -baz "quoted" *`, `foo AND bar OR NOT baz`, `(foo`, `foo)`, `"unterminated`,
			`\`, `foo~2`, `bar^3`, `ba*`, `?`, `/regex[/`, `{}[]`, `:`, `-`, `+`, `&&||!`, "\x00\xff", "\u00e9t\u00e9 \U0001F600",
		} {
			_, err := s.Search(ctx, toolindex.SearchQuery{Text: q, Limit: 10})
			require.NoError(t, err, "query %q", q)
		}
		got := ids(t, s, `name:foo +bar -baz "quoted" *`)
		assert.Subset(t, got, []string{"foo", "bar", "baz"}, "operators are not operators: -baz still matches baz")
	})

	t.Run("BadRequests", func(t *testing.T) {
		t.Parallel()
		s := setup(t, issue)
		for _, q := range []toolindex.SearchQuery{
			{Text: "issue", Offset: -1, Limit: 10},
			{Text: "issue", Limit: 0},
			{Text: "issue", Limit: -5},
		} {
			_, err := s.Search(ctx, q)
			assert.ErrorIs(t, err, errors.ErrInvalidArgument, "query %+v", q)
		}
	})

	t.Run("CanceledContext", func(t *testing.T) {
		t.Parallel()
		s := setup(t, issue)
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := s.Search(canceled, toolindex.SearchQuery{Text: "issue", Limit: 10})
		require.ErrorIs(t, err, context.Canceled, "Search")
		require.ErrorIs(t, s.Upsert(canceled, []toolmodel.Tool{weather}), context.Canceled, "Upsert")
		require.ErrorIs(t, s.Remove(canceled, []string{"github:create_issue"}), context.Canceled, "Remove")
		assert.Equal(t, []string{"github:create_issue"}, ids(t, s, "issue"), "a canceled change changes nothing")
		assert.Empty(t, ids(t, s, "weather"))
	})

	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		s := setup(t, catalogue(40)...)
		// Workers report their first error; require may only stop the
		// test from its own goroutine.
		failures := make([]error, 4)
		var wg sync.WaitGroup
		for w := range failures {
			wg.Go(func() {
				failures[w] = func() error {
					for i := range 25 {
						id := fmt.Sprintf("worker%d_tool%d", w, i)
						if err := s.Upsert(ctx, []toolmodel.Tool{NewTool("", id, "concurrent probe")}); err != nil {
							return err
						}
						if _, err := s.Search(ctx, toolindex.SearchQuery{Text: "probe create", Limit: 5}); err != nil {
							return err
						}
						if i%2 == 0 {
							if err := s.Remove(ctx, []string{id}); err != nil {
								return err
							}
						}
					}
					return nil
				}()
			})
		}
		wg.Wait()
		require.NoError(t, errors.Join(failures...))
		// 4 workers kept their 12 odd-numbered tools each.
		assert.Len(t, search(t, s, "concurrent", "", 0, 100), 48)
	})
}
