package catalog_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver/builtin"
	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/config"
)

func build(t *testing.T, yaml string, opts ...catalog.Option) *catalog.Catalog {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml))
	require.NoError(t, err)
	cat, err := catalog.Build(context.Background(), cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cat.Close()) })
	require.NoError(t, cat.Wait(context.Background()))
	return cat
}

func TestBuiltinCatalogue(t *testing.T) {
	fixed := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cat := build(t, "search: {engine: lexical}", catalog.WithBuiltinOptions(builtin.WithClock(func() time.Time { return fixed })))
	ups := cat.Upstreams()
	require.Len(t, ups, 1)
	assert.Equal(t, "builtin", ups[0].Kind)
	require.Empty(t, ups[0].Error)
	assert.Equal(t, cat.Index.Len(), ups[0].Tools)

	ctx := context.Background()
	page, err := cat.Index.Search(ctx, toolindex.SearchRequest{Query: "evaluate arithmetic expression"})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	assert.Equal(t, "math:eval", page.Items[0].ID)

	res, err := cat.Runner.Run(ctx, "time:now", map[string]any{"timezone": "UTC"})
	require.NoError(t, err)
	assert.Contains(t, res.Structured.(map[string]any)["iso"], "2026-03-01T12:00:00")

	examples, err := cat.Docs.Examples(ctx, "math:eval", 0)
	require.NoError(t, err)
	assert.NotEmpty(t, examples, "the built-in tools' examples are documented")
}

func TestPolicyAndLimits(t *testing.T) {
	cat := build(t, "policy: {deny: ['text:*']}\nlimits: {retries: 1, maxConcurrent: 2}")
	_, err := cat.Runner.Run(context.Background(), "text:stats", map[string]any{"text": "x"})
	require.ErrorIs(t, err, errors.ErrPermissionDenied)
	_, err = cat.Runner.Run(context.Background(), "math:eval", map[string]any{"expression": "1+1"})
	require.NoError(t, err)
}

func TestBuiltinCanBeDisabled(t *testing.T) {
	cat := build(t, "builtin: {disabled: true}")
	assert.Zero(t, cat.Index.Len())
	assert.Empty(t, cat.Upstreams())
}

func TestFailingUpstreamIsReportedAndSkipped(t *testing.T) {
	var mu sync.Mutex
	var events []string
	cat := build(t, `
limits: {connectTimeout: 10s}
mcpServers:
  - {name: missing, command: /nonexistent/server}
  - {name: refused, url: "http://127.0.0.1:1/mcp"}
`, catalog.WithRetryBackoff(time.Hour, time.Hour), catalog.WithProgress(func(u toolops.Upstream, done bool) {
		mu.Lock()
		defer mu.Unlock()
		state := "start"
		if done {
			state = "done"
		}
		events = append(events, u.Name+" "+state)
	}))
	ups := cat.Upstreams()
	require.Len(t, ups, 3)
	assert.Equal(t, []string{"builtin", "missing", "refused"}, []string{ups[0].Name, ups[1].Name, ups[2].Name})
	require.Empty(t, ups[0].Error)
	assert.Equal(t, toolops.UpstreamUp, ups[0].State)
	for _, u := range ups[1:] {
		require.NotEmpty(t, u.Error)
		assert.Equal(t, toolops.UpstreamFailed, u.State)
		assert.Equal(t, 1, u.Attempts)
		assert.WithinDuration(t, u.Since.Add(time.Hour), u.NextRetry, time.Hour/5, "retried after the backoff, less its jitter")
	}
	assert.Positive(t, cat.Index.Len(), "the built-in tools are served")
	assert.ElementsMatch(t, []string{"builtin start", "builtin done", "missing start", "missing done", "refused start", "refused done"}, events)
}

func TestBadSearchIndexPath(t *testing.T) {
	cfg, err := config.Parse([]byte("search: {indexPath: /proc/version/not-a-dir}"))
	require.NoError(t, err)
	_, err = catalog.Build(context.Background(), cfg)
	require.Error(t, err)
}
