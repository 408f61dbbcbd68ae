package catalog_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolserver/catalog"
)

// greeter serves a real MCP server over streamable HTTP, with one tool
// that greets whoever it is given, and returns its endpoint and the
// X-Team header of each call.
func greeter(t *testing.T) (endpoint string, teams <-chan string) {
	t.Helper()
	got := make(chan string, 16)
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1"}, nil)
	type in struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greet a person by name."},
		func(_ context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
			got <- req.Extra.Header.Get("X-Team")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, " + args.Name}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL, got
}

// output is a writer that processes write to from goroutines of their
// own; each write is signalled on written, without ever blocking.
type output struct {
	mu      sync.Mutex
	buf     strings.Builder
	written chan struct{}
}

func newOutput() *output { return &output{written: make(chan struct{}, 1)} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	select {
	case o.written <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// TestURLUpstream connects an MCP server reached by URL, with and without
// a receiver of the standard error of command servers: that receiver
// concerns command servers only and must not make a URL server invalid.
func TestURLUpstream(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []catalog.Option
	}{
		{"default", nil},
		{"with upstream stderr", []catalog.Option{catalog.WithUpstreamStderr(newOutput())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoint, teams := greeter(t)
			cat := build(t, "builtin: {disabled: true}\nmcpServers:\n  - {name: greeter, url: '"+endpoint+"', headers: {X-Team: blue}}\n", tc.opts...)
			ups := cat.Upstreams()
			require.Len(t, ups, 1)
			require.Empty(t, ups[0].Error)
			assert.Equal(t, 1, ups[0].Tools)

			ctx := context.Background()
			page, err := cat.Index.Search(ctx, toolindex.SearchRequest{Query: "greet a person"})
			require.NoError(t, err)
			require.NotEmpty(t, page.Items)
			assert.Equal(t, "greeter:greet", page.Items[0].ID)

			res, err := cat.Runner.Run(ctx, "greeter:greet", map[string]any{"name": "Ada"})
			require.NoError(t, err)
			require.NoError(t, res.Err())
			assert.Contains(t, res.Structured, "hello, Ada")
			assert.Equal(t, "mcp:greeter", res.Backend.Identity())
			assert.Equal(t, "blue", <-teams, "the configured headers are sent")
		})
	}
}

// TestCommandUpstreamStderr checks that the standard error of a server
// started as a command still reaches the configured receiver.
func TestCommandUpstreamStderr(t *testing.T) {
	stderr := newOutput()
	cat := build(t, `
builtin: {disabled: true}
limits: {connectTimeout: 10s}
mcpServers:
  - {name: noisy, command: /bin/sh, args: ["-c", "echo noisy upstream speaking >&2; exit 3"]}
`, catalog.WithUpstreamStderr(stderr))
	require.NotEmpty(t, cat.Upstreams()[0].Error, "a server that exits at once fails to connect")
	deadline := time.After(10 * time.Second)
	for !strings.Contains(stderr.String(), "noisy upstream speaking") {
		select {
		case <-stderr.written:
		case <-deadline:
			t.Fatalf("the server's standard error did not arrive; got %q", stderr.String())
		}
	}
}

// TestUpstreamWithAnInvalidToolKeepsTheOthers connects an MCP server that
// lists a tool whose name no tool ID can hold among valid ones: that tool
// is skipped and reported, the others are served.
func TestUpstreamWithAnInvalidToolKeepsTheOthers(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mixed", Version: "1"}, nil)
	for _, name := range []string{"alpha", "bad name!", "beta"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "The " + name + " tool.", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	logs := newOutput()
	cat := build(t, "builtin: {disabled: true}\nmcpServers:\n  - {name: mixed, url: '"+hs.URL+"'}\n",
		catalog.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	ups := cat.Upstreams()
	require.Len(t, ups, 1)
	require.Empty(t, ups[0].Error, "the upstream is not skipped")
	assert.Equal(t, 2, ups[0].Tools)
	require.Len(t, ups[0].Skipped, 1)
	assert.Contains(t, ups[0].Skipped[0], `"bad name!"`)
	assert.Contains(t, ups[0].Skipped[0], "only ASCII letters")
	assert.Contains(t, logs.String(), `first="bad name!"`)
	assert.Contains(t, logs.String(), "server=mixed")

	for _, id := range []string{"mixed:alpha", "mixed:beta"} {
		_, _, err := cat.Index.GetAll(t.Context(), id)
		assert.NoError(t, err, id)
	}
}
