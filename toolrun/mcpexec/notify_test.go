package mcpexec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// notified records the notifications a manager's callbacks receive.
type notified struct {
	resources chan string
	prompts   chan string
	updated   chan string // server + " " + URI
}

func newNotified() *notified {
	return &notified{resources: make(chan string, 16), prompts: make(chan string, 16), updated: make(chan string, 16)}
}

func (n *notified) callbacks() mcpexec.ServerNotifications {
	return mcpexec.ServerNotifications{
		ResourceListChanged: func(server string) { n.resources <- server },
		PromptListChanged:   func(server string) { n.prompts <- server },
		ResourceUpdated: func(server string, p *mcp.ResourceUpdatedNotificationParams) {
			n.updated <- server + " " + p.URI
		},
	}
}

// poke calls act until a value arrives on ch, and returns it. A client of
// the latest protocol version asks for notifications on a stream it opens
// in the background, so the server may act before it knows who listens:
// the test acts again until the notification arrives.
func poke(t *testing.T, ch <-chan string, what string, act func()) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		act()
		select {
		case v := <-ch:
			return v
		case <-tick.C:
		case <-deadline:
			t.Fatalf("no %s notification arrived", what)
			return ""
		}
	}
}

// resourceServer is a server with one resource and one prompt, which
// accepts subscriptions.
func resourceServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "resources", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "hello"}}}, nil
	}
	srv.AddResource(&mcp.Resource{URI: "test://one", Name: "one"}, read)
	srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	return srv
}

func TestServerNotifications(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config func(t *testing.T, srv *mcp.Server) mcpexec.ServerConfig
	}{
		{"memory", func(_ *testing.T, srv *mcp.Server) mcpexec.ServerConfig { return mcpexec.InMemory(srv) }},
		{"http", func(t *testing.T, srv *mcp.Server) mcpexec.ServerConfig {
			h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
			t.Cleanup(h.Close)
			return mcpexec.ServerConfig{URL: h.URL}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := resourceServer()
			n := newNotified()
			m := newManager(t, mcpexec.WithServer("docs", tc.config(t, srv)), mcpexec.WithServerNotifications(n.callbacks()))
			ctx := t.Context()
			sess, err := m.Session(ctx, "docs")
			require.NoError(t, err)

			assert.Equal(t, "docs", poke(t, n.resources, "resources/list_changed", func() {
				srv.AddResource(&mcp.Resource{URI: "test://two", Name: "two"}, nil)
			}))
			assert.Equal(t, "docs", poke(t, n.prompts, "prompts/list_changed", func() {
				srv.AddPrompt(&mcp.Prompt{Name: "bye"}, nil)
			}))

			require.NoError(t, sess.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://one"}))
			got := poke(t, n.updated, "resources/updated", func() {
				assert.NoError(t, srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://one"}))
			})
			assert.Equal(t, "docs test://one", got)
		})
	}
}

func TestServerNotificationsLeftUnset(t *testing.T) {
	// A callback left nil ignores its notification; the others still work.
	srv := resourceServer()
	prompts := make(chan string, 4)
	m := newManager(t, mcpexec.WithServer("docs", mcpexec.InMemory(srv)),
		mcpexec.WithServerNotifications(mcpexec.ServerNotifications{PromptListChanged: func(s string) { prompts <- s }}))
	_, err := m.Session(t.Context(), "docs")
	require.NoError(t, err)
	srv.AddResource(&mcp.Resource{URI: "test://two", Name: "two"}, nil)
	assert.Equal(t, "docs", poke(t, prompts, "prompts/list_changed", func() {
		srv.AddPrompt(&mcp.Prompt{Name: "bye"}, nil)
	}))
}
