package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamStatus is an upstream's state as list_namespaces reports it.
type upstreamStatus struct {
	Name      string    `json:"name"`
	Kind      string    `json:"kind"`
	State     string    `json:"state"`
	Tools     int       `json:"tools"`
	Error     string    `json:"error"`
	Attempts  int       `json:"attempts"`
	NextRetry time.Time `json:"nextRetry"`
	Since     time.Time `json:"since"`
}

// upstreams asks the server for the state of its upstreams.
func upstreams(t *testing.T, cs *mcp.ClientSession) map[string]upstreamStatus {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_namespaces"})
	require.NoError(t, err)
	require.False(t, res.IsError, resultText(res))
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out struct {
		Upstreams []upstreamStatus `json:"upstreams"`
	}
	require.NoError(t, json.Unmarshal(raw, &out))
	byName := map[string]upstreamStatus{}
	for _, u := range out.Upstreams {
		byName[u.Name] = u
	}
	return byName
}

// poll calls check until it returns true, for at most a minute. The
// state of upstreams in another process can only be asked for: nothing
// is sent to a client when an upstream connects.
func poll(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute", what)
		}
		<-tick.C
	}
}

// waitForUpstreams waits until every upstream of the server has been up
// or failed at least once, as the tests that use upstreams' tools at once
// need since `serve` connects them in the background.
func waitForUpstreams(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	poll(t, "upstreams connected", func() bool {
		for _, u := range upstreams(t, cs) {
			if u.State == "connecting" && u.Attempts <= 1 {
				return false
			}
		}
		return true
	})
}

// startAndList starts `serve --http` with args, connects and lists the
// tools, and returns the time from the start to the answer.
func startAndList(t *testing.T, args ...string) (time.Duration, *mcp.ClientSession) {
	t.Helper()
	start := time.Now()
	endpoint := serveHTTP(t, nil, args...)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	elapsed := time.Since(start)
	require.Len(t, tools.Tools, 6, "the meta-tools")
	return elapsed, cs
}

// TestServeAnswersAtOnceAndUpstreamsArrive serves three upstreams over
// HTTP: server-everything, which starts in about a second, a server that
// waits three seconds before it speaks, and one that exits at once
// complaining of a missing key. The server answers before any of them is
// there; their tools arrive in the order they do, and the failure's
// reason reaches the client.
func TestServeAnswersAtOnceAndUpstreamsArrive(t *testing.T) {
	modules := npmFile(t)
	slow, err := filepath.Abs("testdata/slow-server.mjs")
	require.NoError(t, err)
	failing, err := filepath.Abs("testdata/failing-server.mjs")
	require.NoError(t, err)
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf(`limits: {connectTimeout: 30s}
mcpServers:
  - {name: healthy, command: node, args: [%q, stdio]}
  - {name: slow, command: node, args: [%q, %q], env: {DELAY_MS: "3000"}}
  - {name: failing, command: node, args: [%q]}
`, everythingServer(t), slow, modules, failing))

	// The bound is on what upstreams add to the start of serve: on a busy
	// machine, starting any process may take longer than the bound.
	baseline, _ := startAndList(t)
	elapsed, cs := startAndList(t, "--config", cfg)
	start := time.Now().Add(-elapsed)
	t.Logf("tools/list answered %v after the start of serve, %v without upstreams", elapsed, baseline)
	assert.Less(t, elapsed, baseline+500*time.Millisecond, "serve answers without waiting for its upstreams")

	ups := upstreams(t, cs)
	require.Len(t, ups, 4, "the built-in tools and the three servers")
	assert.Equal(t, "up", ups["builtin"].State)
	assert.Equal(t, "connecting", ups["slow"].State, "the slow server is not there yet")

	found := func(query, id string) bool {
		_, out := callTool(t, cs, "search_tools", map[string]any{"query": query, "limit": 10})
		return slices.Contains(searchIDs(t, out), id)
	}
	// server-everything's tools come as it connects, while the slow
	// server's do not until it speaks.
	poll(t, "server-everything's tools", func() bool { return found("echo back a message", "healthy:echo") })
	if upstreams(t, cs)["slow"].State == "connecting" {
		assert.False(t, found("sundial shadow", "slow:sundial"), "no tool of a server still connecting")
	}
	poll(t, "the slow server's tool", func() bool { return found("sundial shadow", "slow:sundial") })
	// The state turns up once the listing that brought the tool is
	// committed, which may wait for another upstream's listing.
	poll(t, "the slow server up", func() bool {
		ups = upstreams(t, cs)
		return ups["slow"].State == "up"
	})
	healthy, late := ups["healthy"], ups["slow"]
	assert.Equal(t, "up", healthy.State)
	assert.Positive(t, healthy.Tools)
	assert.Equal(t, "up", late.State)
	assert.Equal(t, 1, late.Tools)
	assert.True(t, healthy.Since.Before(late.Since), "server-everything came first")
	assert.GreaterOrEqual(t, late.Since.Sub(start), 3*time.Second, "the slow server came after its delay")

	// The failing server is reported with its reason and its next retry.
	var bad upstreamStatus
	poll(t, "the failing server's report", func() bool {
		bad = upstreams(t, cs)["failing"]
		return bad.Error != ""
	})
	assert.Contains(t, []string{"failed", "connecting"}, bad.State, "failed, or trying again")
	assert.GreaterOrEqual(t, bad.Attempts, 1)
	if bad.State == "failed" {
		assert.False(t, bad.NextRetry.IsZero(), "it is retried")
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_namespaces"})
	require.NoError(t, err)
	assert.Contains(t, resultText(res), "- failing (mcp): ")
	// The reason ends with what the server said on its standard error.
	assert.Contains(t, bad.Error, "fatal: missing API key")
}
