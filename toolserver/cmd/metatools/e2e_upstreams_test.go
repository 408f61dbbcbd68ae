package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These end-to-end tests check that `metatools serve` serves the
// resources, resource templates and prompts of server-everything, and
// answers for them by asking it.

// legacyProtocol is the protocol version of the clients of these tests:
// server-everything speaks it, and its notifications reach a client as
// soon as they are sent, with no stream to open first.
const legacyProtocol = "2025-11-25"

// everythingUpstreams writes a configuration with server-everything as
// upstream under each of the given names, with the given extra YAML for
// each entry.
func everythingUpstreams(t *testing.T, extra string, names ...string) string {
	t.Helper()
	server := everythingServer(t)
	var cfg strings.Builder
	cfg.WriteString("mcpServers:\n")
	for _, name := range names {
		fmt.Fprintf(&cfg, "  - name: %s\n    command: node\n    args: [%q, stdio]\n%s", name, server, extra)
	}
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg.String()), 0o600))
	return path
}

// connectLegacy starts `metatools serve` with args and connects to it with
// the legacy protocol version.
func connectLegacy(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(metatoolsBinary(t), append([]string{"serve"}, args...)...)
	cmd.Stderr = &testWriter{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func within(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s arrived", what)
		return ""
	}
}

func TestServerEverythingResourcesAndPrompts(t *testing.T) {
	updated, resourcesChanged := make(chan string, 100), make(chan string, 100)
	cs := connectLegacy(t, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			resourcesChanged <- "changed"
		},
	}, "--config", everythingConfig(t))
	ctx := t.Context()
	// serve lists the upstream's resources and prompts once it is up.
	waitForUpstreams(t, cs)
	poll(t, "the upstream's resources and prompts", func() bool {
		resources, err := cs.ListResources(ctx, nil)
		require.NoError(t, err)
		prompts, err := cs.ListPrompts(ctx, nil)
		require.NoError(t, err)
		return len(resources.Resources) > 0 && len(prompts.Prompts) > 0
	})

	// Resources keep their URIs; their names take the namespace.
	var static *mcp.Resource
	for r, err := range cs.Resources(ctx, nil) {
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(r.Name, "everything."), r.Name)
		if strings.HasPrefix(r.URI, "demo://resource/static/document/") && static == nil {
			static = r
		}
	}
	require.NotNil(t, static, "server-everything's static documents are listed")
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		require.NoError(t, err)
		templates = append(templates, rt.URITemplate)
		assert.True(t, strings.HasPrefix(rt.Name, "everything."), rt.Name)
	}
	assert.Contains(t, templates, "demo://resource/dynamic/text/{resourceId}")
	var prompts []string
	for p, err := range cs.Prompts(ctx, nil) {
		require.NoError(t, err)
		prompts = append(prompts, p.Name)
	}
	assert.Subset(t, prompts, []string{"everything.simple-prompt", "everything.args-prompt", "everything.completable-prompt"})

	// Reads, prompts and completions reach server-everything.
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: static.URI})
	require.NoError(t, err)
	require.NotEmpty(t, res.Contents)
	assert.Equal(t, static.URI, res.Contents[0].URI)
	assert.NotEmpty(t, res.Contents[0].Text+string(res.Contents[0].Blob))
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/dynamic/text/3"})
	require.NoError(t, err, "a templated URI")
	require.NotEmpty(t, res.Contents)
	assert.Contains(t, res.Contents[0].Text, "3")

	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "everything.args-prompt", Arguments: map[string]string{"city": "Paris", "state": "Texas"}})
	require.NoError(t, err)
	require.NotEmpty(t, got.Messages)
	assert.Equal(t, "What's weather in Paris, Texas?", got.Messages[0].Content.(*mcp.TextContent).Text)

	completion, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "everything.completable-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "department", Value: "Eng"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"Engineering"}, completion.Completion.Values)

	// A subscription is made upstream, and its updates come through.
	const uri = "demo://resource/dynamic/text/1"
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
	toggle, _ := callTool(t, cs, "run_tool", map[string]any{"id": "everything:toggle-subscriber-updates"})
	require.False(t, toggle.IsError, resultText(toggle))
	assert.Equal(t, uri, within(t, updated, "resource update"))

	// A resource server-everything registers at run time is served once
	// it reports the change.
	gz, _ := callTool(t, cs, "run_tool", map[string]any{"id": "everything:gzip-file-as-resource",
		"args": map[string]any{"name": "e2e.txt.gz", "data": "data:text/plain;base64,aGVsbG8gZTJl"}})
	require.False(t, gz.IsError, resultText(gz))
	const session = "demo://resource/session/e2e.txt.gz"
	for listed := false; !listed; {
		// Each change of the upstream's list is a notification: the one of
		// the new resource comes, possibly after others.
		within(t, resourcesChanged, "resources/list_changed")
		for r, err := range cs.Resources(ctx, nil) {
			require.NoError(t, err)
			listed = listed || r.URI == session
		}
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: session})
	require.NoError(t, err)
	require.NotEmpty(t, res.Contents)
	assert.NotEmpty(t, res.Contents[0].Blob)
}

func TestServerEverythingKeepNames(t *testing.T) {
	cs := connectLegacy(t, nil, "--config", everythingUpstreams(t, "    keepNames: true\n", "everything"))
	ctx := t.Context()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.Subset(t, names, []string{"search_tools", "run_tool", "echo", "get-sum"}, "the meta-tools and the upstream's tools, unprefixed")
	assert.NotContains(t, names, "everything.echo")

	res, _ := callTool(t, cs, "echo", map[string]any{"message": "kept"})
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, resultText(res), "kept")

	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "simple-prompt"})
	require.NoError(t, err)
	assert.NotEmpty(t, got.Messages)
	for r, err := range cs.Resources(ctx, nil) {
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(r.Name, "everything."), r.Name)
	}
}

func TestKeepNamesClashStopsStartUp(t *testing.T) {
	cfg := everythingUpstreams(t, "    keepNames: true\n", "one", "two")
	cmd := exec.Command(metatoolsBinary(t), "serve", "--config", cfg)
	cmd.Stdin = strings.NewReader("")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "serve fails: %s", stderr.String())
	assert.Equal(t, exitUsage, exit.ExitCode(), "a configuration error")
	assert.Contains(t, stderr.String(), "keepNames:")
	assert.Contains(t, stderr.String(), `tool "two:echo" is exposed as "echo", the name of tool "one:echo"`)
	assert.Contains(t, stderr.String(), `prompt "simple-prompt" of upstream "two" clashes with the prompt of upstream "one"`)
}
