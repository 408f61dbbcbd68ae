package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// These end-to-end tests run the real metatools binary against real
// third-party MCP software: the reference server "server-everything" as an
// upstream, and the official MCP Inspector as a client. Both come from the
// npm registry, pinned in toolserver/e2e/package.json; `make e2e-deps`
// installs them, and the tests find them through npmFile (npm_test.go).

// built holds the binaries the end-to-end tests run, built when a test
// first needs them: a run that needs none (a unit test alone, fuzzing)
// builds none.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// metatoolsBinary returns the metatools binary built for these tests. The
// sandbox runner is next to it, where metatools finds it: static, as
// bubblewrap needs it, and compiled to WebAssembly.
func metatoolsBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() { built.dir, built.err = buildBinaries() })
	require.NoError(t, built.err)
	return filepath.Join(built.dir, "metatools")
}

// conformanceUpstream returns the path of the conformance upstream
// (internal/conformanceupstream), built once.
func conformanceUpstream(t testing.TB) string {
	return filepath.Join(filepath.Dir(metatoolsBinary(t)), "conformanceupstream")
}

func buildBinaries() (string, error) {
	dir, err := os.MkdirTemp("", "metatools-e2e")
	if err != nil {
		return "", err
	}
	// Run as root, the standard profile runs the runner as an
	// unprivileged user, who must be able to reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return dir, err
	}
	// The runner is looked for next to the metatools executable, under
	// the name of its package.
	const runnerPkg, runnerName = "github.com/metatools-go/metatools/toolruntime/cmd/toolruntime-runner", "toolruntime-runner"
	for _, b := range []struct {
		out, pkg string
		env      []string
	}{
		{"metatools", ".", nil},
		{"conformanceupstream", "./internal/conformanceupstream", nil},
		{runnerName, runnerPkg, []string{"CGO_ENABLED=0"}},
		{runnerName + ".wasm", runnerPkg, []string{"GOOS=wasip1", "GOARCH=wasm"}},
	} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg)
		build.Env = append(os.Environ(), b.env...)
		if out, err := build.CombinedOutput(); err != nil {
			return dir, fmt.Errorf("build %s: %w\n%s", b.pkg, err, out)
		}
	}
	return dir, nil
}

func TestMain(m *testing.M) {
	// The catalogue's search index is bleve's, which analyses documents on
	// a process-wide pool of workers started when it is loaded, shared by
	// every index: they are not ours to stop.
	bleveWorkers := goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker")
	state := testStateHome()
	goleak.VerifyTestMain(m, bleveWorkers, goleak.Cleanup(func(int) {
		if built.dir != "" {
			_ = os.RemoveAll(built.dir)
		}
		_ = os.RemoveAll(state)
	}))
}

// testStateHome points XDG_STATE_HOME, for the tests and the processes
// they start, at a directory of their own, which it returns: the pins of
// upstream tools are not written in the user's state directory.
func testStateHome() string {
	state, err := os.MkdirTemp("", "metatools-state-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv("XDG_STATE_HOME", state); err != nil {
		panic(err)
	}
	return state
}

// everythingConfig writes a configuration with server-everything as an
// upstream MCP server over stdio.
func everythingConfig(t *testing.T) string {
	t.Helper()
	server := everythingServer(t)
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	cfg := fmt.Sprintf("mcpServers:\n  - name: everything\n    command: node\n    args: [%q, stdio]\n", server)
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// connectStdio starts `metatools serve` with args and connects to it.
func connectStdio(t testing.TB, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(metatoolsBinary(t), append([]string{"serve"}, args...)...)
	cmd.Stderr = &testWriter{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// testWriter logs a process's standard error in the test's log.
type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	var out map[string]any
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &out))
	}
	return res, out
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestServerEverythingUpstream(t *testing.T) {
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	cs := connectStdio(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		progress <- req.Params
	}}, "--config", everythingConfig(t))
	waitForUpstreams(t, cs)

	// Its tools are in the catalogue, found by search.
	res, _ := callTool(t, cs, "search_tools", map[string]any{"query": "echo back a message", "limit": 5})
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, resultText(res), "everything:echo")
	_, out := callTool(t, cs, "search_tools", map[string]any{"query": "", "namespace": "everything", "limit": 50})
	var ids []string
	for _, tool := range out["tools"].([]any) {
		ids = append(ids, tool.(map[string]any)["id"].(string))
	}
	assert.ElementsMatch(t, everythingTools(t), ids, "every tool the upstream lists is in the catalogue")

	res, out = callTool(t, cs, "run_tool", map[string]any{"id": "everything:echo", "args": map[string]any{"message": "hello from metatools"}})
	require.False(t, res.IsError, resultText(res))
	assert.Equal(t, "mcp:everything", out["backend"])
	assert.Contains(t, resultText(res), "hello from metatools")

	// Its progress-reporting tool's notifications reach the client.
	params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{
		"id": "everything:trigger-long-running-operation", "args": map[string]any{"duration": 1, "steps": 4},
	}}
	params.SetProgressToken("e2e-progress")
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, resultText(res), "completed")
	// Notifications travel apart from responses, on both hops, so the last
	// ones may come after the result or not at all (a session manager drops
	// progress that arrives after its call ended); the early ones arrive.
	select {
	case p := <-progress:
		assert.Equal(t, "e2e-progress", p.ProgressToken)
		assert.InDelta(t, 4.0, p.Total, 0)
		assert.GreaterOrEqual(t, p.Progress, 1.0)
		assert.LessOrEqual(t, p.Progress, 4.0)
	case <-time.After(30 * time.Second):
		t.Fatal("no progress notification reached the client")
	}

	// A tool failure upstream comes back as a tool error, not a protocol error.
	res, _ = callTool(t, cs, "run_tool", map[string]any{"id": "everything:echo", "args": map[string]any{}})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(res), "[validation]")
}

// everythingTools returns the IDs of the tools server-everything lists to
// a go-sdk client connected to it directly.
func everythingTools(t *testing.T) []string {
	t.Helper()
	server := everythingServer(t)
	// The catalogue lists upstreams as a client declaring roots and able to
	// answer sampling and elicitation (which it forwards), so the tools
	// offered only to such clients are in it too.
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-direct", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}})
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command("node", server, "stdio"), TerminateDuration: time.Second}, nil)
	require.NoError(t, err)
	defer cs.Close()
	var ids []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		require.NoError(t, err)
		ids = append(ids, "everything:"+tool.Name)
	}
	require.Len(t, ids, 17)
	return ids
}

// TestStartsAndListsQuickly is a sanity bound on start-up, generous so that
// a loaded machine does not fail it: BenchmarkStartAndList measures it.
func TestStartsAndListsQuickly(t *testing.T) {
	start := time.Now()
	cs := connectStdio(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	elapsed := time.Since(start)
	require.Len(t, res.Tools, 6)
	t.Logf("metatools serve answered tools/list %v after start", elapsed)
	assert.Less(t, elapsed, 10*time.Second, "serve answers tools/list within seconds of its start")
}

// BenchmarkStartAndList measures the time from starting `metatools serve`
// on its built-in catalogue to its answer to tools/list, the wait of a
// client that launches it; stopping the process is not counted.
func BenchmarkStartAndList(b *testing.B) {
	for b.Loop() {
		cs := connectStdio(b, nil)
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(b, err)
		require.Len(b, res.Tools, 6)
		b.StopTimer()
		require.NoError(b, cs.Close())
		b.StartTimer()
	}
}

// inspector runs the MCP Inspector's command-line client against
// `metatools serve` and returns its standard output.
func inspector(t *testing.T, args ...string) string {
	t.Helper()
	bin := inspectorCommand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--cli", metatoolsBinary(t), "serve", "--"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "inspector: %s", stderr.String())
	return string(out)
}

func TestInspectorClient(t *testing.T) {
	out := inspector(t, "--method", "tools/list")
	var list struct{ Tools []struct{ Name string } }
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"search_tools", "list_namespaces", "describe_tool", "list_tool_examples", "run_tool", "run_chain"}, names)

	out = inspector(t, "--method", "tools/call", "--tool-name", "search_tools", "--tool-arg", "query=evaluate a math expression")
	assert.Contains(t, out, "math:eval")

	out = inspector(t, "--method", "tools/call", "--tool-name", "run_tool", "--tool-arg", "id=math:eval", `--tool-arg`, `args={"expression":"6*7"}`)
	var call struct {
		IsError           bool
		StructuredContent struct {
			Result map[string]any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &call), out)
	assert.False(t, call.IsError)
	assert.InDelta(t, 42.0, call.StructuredContent.Result["value"], 0)
}

// serveHTTP starts `metatools serve --http` on a free port of the
// loopback, with env added to its environment, until the test ends, and
// returns its MCP endpoint.
func serveHTTP(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, metatoolsBinary(t), append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })

	// The address comes from the server's start-up line.
	addrLine := regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)
	sc := bufio.NewScanner(stderr)
	var endpoint string
	for endpoint == "" && sc.Scan() {
		if m := addrLine.FindStringSubmatch(sc.Text()); m != nil {
			endpoint = m[1]
		}
	}
	require.NotEmpty(t, endpoint, "the server announced its address")
	go func() {
		for sc.Scan() { // keep draining the server's log
		}
	}()
	return endpoint
}

func TestHTTPServing(t *testing.T) {
	ctx := t.Context()
	endpoint := serveHTTP(t, []string{"METATOOLS_TOKEN=e2e-secret"})

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no token, no access")

	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	_, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: withToken("wrong")}, nil)
	require.Error(t, err, "a wrong token is refused")

	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: withToken("e2e-secret")}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, out := callTool(t, cs, "run_tool", map[string]any{"id": "text:case", "args": map[string]any{"text": "over http", "to": "upper"}})
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, fmt.Sprint(out["result"]), "OVER HTTP")
}

type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(req)
}

func withToken(token string) *http.Client { return &http.Client{Transport: tokenTransport{token}} }
