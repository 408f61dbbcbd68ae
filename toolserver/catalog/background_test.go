package catalog_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/config"
)

// buildNow builds a catalogue without waiting for its upstreams.
func buildNow(t *testing.T, yaml string, opts ...catalog.Option) *catalog.Catalog {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml))
	require.NoError(t, err)
	cat, err := catalog.Build(context.Background(), cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cat.Close()) })
	return cat
}

// toolServer serves a real MCP server over streamable HTTP, with one
// tool per name; gate, when not nil, holds every request until it is
// closed.
func toolServer(t *testing.T, gate <-chan struct{}, names ...string) (*mcp.Server, string) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools", Version: "1"}, nil)
	for _, name := range names {
		addTool(srv, name)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

func addTool(srv *mcp.Server, name string) {
	srv.AddTool(&mcp.Tool{Name: name, Description: "The " + name + " tool.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
		})
}

// eventually waits for a change of the index that makes cond true.
func eventually(t *testing.T, idx *toolindex.MemoryIndex, what string, cond func() bool) {
	t.Helper()
	changed := make(chan struct{}, 1)
	defer idx.OnChange(func(toolindex.ChangeEvent) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%s: not within 20s", what)
		}
	}
}

func indexSearchIDs(t *testing.T, idx toolindex.Index, query string) []string {
	t.Helper()
	page, err := idx.Search(context.Background(), toolindex.SearchRequest{Query: query, Limit: 50})
	require.NoError(t, err)
	var ids []string
	for _, s := range page.Items {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestBuildDoesNotWaitForUpstreams holds an upstream's every answer:
// Build returns with the built-in tools served and the upstream
// connecting; its tools come once it answers.
func TestBuildDoesNotWaitForUpstreams(t *testing.T) {
	gate := make(chan struct{})
	_, url := toolServer(t, gate, "slowpoke")
	var mu sync.Mutex
	var states []string
	cat := buildNow(t, "search: {engine: lexical}\nmcpServers:\n  - {name: slow, url: '"+url+"'}\n",
		catalog.WithProgress(func(u toolops.Upstream, _ bool) {
			if u.Name == "slow" {
				mu.Lock()
				states = append(states, u.State)
				mu.Unlock()
			}
		}))

	ups := cat.Upstreams()
	require.Len(t, ups, 2)
	assert.Equal(t, toolops.UpstreamUp, ups[0].State, "the built-in tools are there at once")
	assert.Positive(t, cat.Index.Len())
	assert.Equal(t, toolops.UpstreamConnecting, ups[1].State)
	assert.Equal(t, 1, ups[1].Attempts)
	assert.False(t, ups[1].Since.IsZero())
	select {
	case <-cat.Ready():
		t.Fatal("ready before the upstream answered")
	default:
	}
	assert.Empty(t, indexSearchIDs(t, cat.Index, "slowpoke"))

	close(gate)
	require.NoError(t, cat.Wait(t.Context()))
	ups = cat.Upstreams()
	assert.Equal(t, toolops.UpstreamUp, ups[1].State)
	assert.Equal(t, 1, ups[1].Tools)
	assert.Equal(t, []string{"slow:slowpoke"}, indexSearchIDs(t, cat.Index, "slowpoke"))
	mu.Lock()
	assert.Equal(t, []string{toolops.UpstreamConnecting, toolops.UpstreamUp}, states, "progress reports each change of state")
	mu.Unlock()
}

// TestUpstreamToolChangesReachSearch changes the tools of a real MCP
// server: its notifications/tools/list_changed alone brings the catalogue
// in line.
func TestUpstreamToolChangesReachSearch(t *testing.T) {
	srv, url := toolServer(t, nil, "alpha")
	cat := build(t, "builtin: {disabled: true}\nsearch: {engine: lexical}\nmcpServers:\n  - {name: live, url: '"+url+"'}\n")
	require.Equal(t, []string{"live:alpha"}, indexSearchIDs(t, cat.Index, "alpha"))

	addTool(srv, "gamma")
	eventually(t, cat.Index, "the added tool is found", func() bool { return len(indexSearchIDs(t, cat.Index, "gamma")) == 1 })
	assert.Equal(t, 2, cat.Upstreams()[0].Tools, "the upstream's state counts the tools it lists now")

	srv.RemoveTools("alpha")
	eventually(t, cat.Index, "the removed tool is gone", func() bool { return len(indexSearchIDs(t, cat.Index, "alpha")) == 0 })
	assert.Equal(t, 1, cat.Upstreams()[0].Tools)
}

// TestFailingUpstreamIsRetriedWithBackoff imports an OpenAPI document
// that is not there yet: each attempt fails, the next comes after a
// delay that doubles, less its jitter, and the document is imported once
// it exists.
func TestFailingUpstreamIsRetriedWithBackoff(t *testing.T) {
	doc, err := os.ReadFile("testdata/notes.yaml")
	require.NoError(t, err)
	spec := filepath.Join(t.TempDir(), "notes.yaml")
	synctest.Test(t, func(t *testing.T) {
		cat := buildNow(t, "builtin: {disabled: true}\nsearch: {engine: lexical}\nopenapi:\n  - {name: notes, spec: '"+spec+"', baseUrl: 'http://127.0.0.1:1/v1'}\n",
			catalog.WithRetryBackoff(time.Second, 4*time.Second), catalog.WithJitter(func() float64 { return 0.5 }))
		require.NoError(t, cat.Wait(t.Context()))
		for attempt, delay := range []time.Duration{900 * time.Millisecond, 1800 * time.Millisecond, 3600 * time.Millisecond, 3600 * time.Millisecond} {
			synctest.Wait()
			u := cat.Upstreams()[0]
			require.Equal(t, toolops.UpstreamFailed, u.State)
			require.Contains(t, u.Error, "notes.yaml")
			assert.Equal(t, attempt+1, u.Attempts)
			assert.Equal(t, u.Since.Add(delay), u.NextRetry, "attempt %d", attempt+1)
			time.Sleep(delay - time.Nanosecond)
			synctest.Wait()
			assert.Equal(t, toolops.UpstreamFailed, cat.Upstreams()[0].State, "no attempt before the delay")
			time.Sleep(time.Nanosecond)
		}
		// The fifth attempt fails before the document appears.
		synctest.Wait()
		require.Equal(t, 5, cat.Upstreams()[0].Attempts)
		require.NoError(t, os.WriteFile(spec, doc, 0o600))
		time.Sleep(3600 * time.Millisecond)
		synctest.Wait()
		u := cat.Upstreams()[0]
		assert.Equal(t, toolops.UpstreamUp, u.State)
		assert.Equal(t, 6, u.Attempts)
		assert.Positive(t, u.Tools)
		assert.True(t, u.NextRetry.IsZero())
	})
}

// TestListNamespacesReportsUpstreams asks a server over the catalogue,
// through a real client, for the state of its upstreams.
func TestListNamespacesReportsUpstreams(t *testing.T) {
	cat := build(t, `
search: {engine: lexical}
limits: {connectTimeout: 10s}
mcpServers:
  - {name: broken, command: /bin/sh, args: ["-c", "exit 3"]}
`, catalog.WithRetryBackoff(time.Hour, time.Hour))
	srv, err := cat.NewServer()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	ct, st := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolserver.ToolNamespaces})
	require.NoError(t, err)
	require.False(t, res.IsError)
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out struct {
		Namespaces []string           `json:"namespaces"`
		Upstreams  []toolops.Upstream `json:"upstreams"`
	}
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Contains(t, out.Namespaces, "math")
	require.Len(t, out.Upstreams, 2)
	assert.Equal(t, toolops.Upstream{Name: "builtin", Kind: "builtin", State: "up", Tools: cat.Index.Len(), Attempts: 1,
		Since: out.Upstreams[0].Since}, out.Upstreams[0])
	broken := out.Upstreams[1]
	assert.Equal(t, "failed", broken.State)
	assert.Equal(t, 1, broken.Attempts)
	assert.NotEmpty(t, broken.Error)
	assert.False(t, broken.NextRetry.IsZero())
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "- builtin (builtin): up")
	assert.Contains(t, text, "- broken (mcp): failed: "+broken.Error+"; 1 attempts, next in ")
}
