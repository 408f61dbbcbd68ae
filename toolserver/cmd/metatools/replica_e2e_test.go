package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run metatools as it runs in replicas behind a load
// balancer: the built binary, serving stateless HTTP, stopped by SIGTERM.

// eventBound bounds each wait for an event of a served process: it is a
// failure bound, never a pace.
const eventBound = 60 * time.Second

// served is a `metatools serve --http` process whose standard error the
// test reads line by line, as events.
type served struct {
	cmd      *exec.Cmd
	endpoint string // the MCP endpoint
	base     string // the server's root URL, where the probes are
	lines    chan string
	log      *lockedLog
}

// lockedLog keeps every line a process wrote, for failure messages.
type lockedLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// startServed starts `metatools serve --http 127.0.0.1:0` with args and
// env, and returns once it has announced its address and is ready
// (its log says /readyz answers 200).
func startServed(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	s := startAnnounced(t, env, args...)
	s.await(t, "metatools: ready: /readyz answers 200")
	return s
}

// startAnnounced is startServed without the wait for readiness.
func startAnnounced(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(metatoolsBinary(t), append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	s := &served{cmd: cmd, lines: make(chan string, 1024), log: &lockedLog{}}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(s.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.log.add(sc.Text())
			select {
			case s.lines <- sc.Text():
			default: // nobody waits for more events: the log keeps it
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-readerDone
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("metatools log:\n%s", s.log)
		}
	})
	line := s.await(t, "serving MCP at ")
	m := announcement.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	s.endpoint = m[1]
	s.base = strings.TrimSuffix(s.endpoint, "/mcp")
	return s
}

// await returns the first line still unread that holds text, failing the
// test when the process ends or eventBound passes first.
func (s *served) await(t *testing.T, text string) string {
	t.Helper()
	timeout := time.NewTimer(eventBound)
	defer timeout.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			require.True(t, ok, "metatools ended before logging %q", text)
			if strings.Contains(line, text) {
				return line
			}
		case <-timeout.C:
			require.FailNow(t, "metatools did not log "+text+" in time")
		}
	}
}

// probe returns the status and body of a GET of path on s.
func (s *served) probe(t *testing.T, path string) (int, string) {
	t.Helper()
	return s.ask(t, http.MethodGet, path)
}

// ask returns the status and body of a request of path on s, without a
// body.
func (s *served) ask(t *testing.T, method, path string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: eventBound}
	req, err := http.NewRequestWithContext(t.Context(), method, s.base+path, http.NoBody)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// connectHTTP connects a go-sdk client to endpoint with token.
func connectHTTP(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "replica-e2e", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: withToken(token)}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestProbesAnswerWithoutToken checks the probes of a server that wants a
// token: they need none, answer in a word, and refuse other methods.
func TestProbesAnswerWithoutToken(t *testing.T) {
	s := startServed(t, []string{tokenEnv + "=probe-secret"}, "--stateless", "--drain-delay", "0")
	for _, tt := range []struct {
		path, body string
	}{
		{healthzPath, "ok\n"},
		{readyzPath, "ready\n"},
	} {
		status, body := s.probe(t, tt.path)
		assert.Equal(t, http.StatusOK, status, tt.path)
		assert.Equal(t, tt.body, body, tt.path)
		status, body = s.ask(t, http.MethodHead, tt.path)
		assert.Equal(t, http.StatusOK, status, "HEAD %s", tt.path)
		assert.Empty(t, body, "HEAD %s", tt.path)

		resp, err := http.Post(s.base+tt.path, "text/plain", strings.NewReader("x"))
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "POST %s", tt.path)
	}
	resp, err := http.Post(s.endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "/mcp still wants the token")
}

// TestReadyOnceUpstreamsTried holds the first connection attempt of an
// upstream: /readyz answers 503 until it ends (here, failed), then 200.
func TestReadyOnceUpstreamsTried(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
		http.Error(w, "not an MCP server", http.StatusInternalServerError)
	}))
	t.Cleanup(upstream.Close)
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf("mcpServers:\n  - name: gate\n    url: %s/mcp\n", upstream.URL))

	s := startAnnounced(t, nil, "--stateless", "--config", cfg, "--drain-delay", "0")
	select {
	case <-arrived: // the first attempt is under way
	case <-time.After(eventBound):
		require.FailNow(t, "the upstream was never tried")
	}
	status, body := s.probe(t, readyzPath)
	assert.Equal(t, http.StatusServiceUnavailable, status, "/readyz while an upstream is tried for the first time")
	assert.Equal(t, "starting\n", body)
	status, _ = s.probe(t, healthzPath)
	assert.Equal(t, http.StatusOK, status, "/healthz: alive meanwhile")

	unblock()
	s.await(t, "metatools: ready: /readyz answers 200")
	status, body = s.probe(t, readyzPath)
	assert.Equal(t, http.StatusOK, status, "/readyz once the upstream failed once")
	assert.Equal(t, "ready\n", body)
}

// TestSIGTERMDrainsAndFinishesRunningCalls stops a server while a call
// waits on a slow web server: /readyz turns 503 at once, new calls are
// still served during the drain delay, then the server stops accepting,
// the running call answers with its real result, and the process exits 0.
func TestSIGTERMDrainsAndFinishesRunningCalls(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		<-release
		_, _ = io.WriteString(w, "slow answer")
	}))
	t.Cleanup(web.Close)
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock)

	const drain = 3 * time.Second
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf("builtin:\n  httpAllow: [\"127.0.0.1:*\"]\nserver:\n  shutdownTimeout: 30s\n  http:\n    drainDelay: %s\n", drain))
	s := startServed(t, []string{tokenEnv + "=drain-secret"}, "--stateless", "--config", cfg)
	status, _ := s.probe(t, readyzPath)
	require.Equal(t, http.StatusOK, status)

	cs := connectHTTP(t, s.endpoint, "drain-secret")
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	slow := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_tool",
			Arguments: map[string]any{"id": "http:fetch", "args": map[string]any{"url": web.URL}}})
		slow <- outcome{res, err}
	}()
	select {
	case <-arrived: // the call is running
	case <-time.After(eventBound):
		require.FailNow(t, "the slow call never reached the web server")
	}

	sent := time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	s.await(t, "metatools: stopping: /readyz answers 503")
	status, body := s.probe(t, readyzPath)
	assert.Equal(t, http.StatusServiceUnavailable, status, "/readyz during the drain")
	assert.Equal(t, "stopping\n", body)
	status, _ = s.probe(t, healthzPath)
	assert.Equal(t, http.StatusOK, status, "/healthz during the drain: the process is alive")
	during := connectHTTP(t, s.endpoint, "drain-secret")
	res, out := callTool(t, during, "run_tool", map[string]any{"id": "text:case", "args": map[string]any{"text": "still serving", "to": "upper"}})
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, fmt.Sprint(out["result"]), "STILL SERVING", "a new call during the drain is served")
	probedAt := time.Since(sent)

	line := s.await(t, "metatools: no longer accepting")
	drained := time.Since(sent)
	assert.Contains(t, line, "requests running: 1", "the slow call is running")
	assert.GreaterOrEqual(t, drained, drain, "serving went on for the drain delay")
	_, err := net.DialTimeout("tcp", strings.TrimPrefix(s.base, "http://"), eventBound)
	require.Error(t, err, "new connections are refused once the drain is over")

	select {
	case o := <-slow:
		require.FailNow(t, "the slow call ended before it was released", "%v %v", o.res, o.err)
	default:
	}
	unblock()
	var o outcome
	select {
	case o = <-slow:
	case <-time.After(eventBound):
		require.FailNow(t, "the running call never answered")
	}
	require.NoError(t, o.err)
	require.False(t, o.res.IsError, resultText(o.res))
	assert.Contains(t, resultText(o.res), "slow answer", "the running call answers with its real result")

	s.await(t, "metatools: every request finished")
	s.await(t, "metatools: SIGTERM received, stopped")
	require.NoError(t, s.cmd.Wait(), "exit status 0")
	exited := time.Since(sent)
	assert.Equal(t, 0, s.cmd.ProcessState.ExitCode())
	t.Logf("SIGTERM -> /readyz 503 and a new call served: %s; -> no longer accepting: %s (drain delay %s); -> exit 0: %s",
		probedAt.Round(time.Millisecond), drained.Round(time.Millisecond), drain, exited.Round(time.Millisecond))
}

// TestStopEndsListeningStreams stops a server with sessions, one of
// whose clients listens on its stream of notifications: the stream holds
// no call, so the stop ends it at once rather than waiting for it until
// server.shutdownTimeout.
func TestStopEndsListeningStreams(t *testing.T) {
	cfg := writeFile(t, "metatools.yaml", "server:\n  shutdownTimeout: 5m\n")
	s := startServed(t, nil, "--config", cfg, "--drain-delay", "0")
	cs := connectHTTP(t, s.endpoint, "")
	res, _ := callTool(t, cs, "list_namespaces", map[string]any{})
	require.False(t, res.IsError, resultText(res))

	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	line := s.await(t, "metatools: no longer accepting")
	t.Log(line)
	s.await(t, "metatools: every request finished")
	require.NoError(t, s.cmd.Wait(), "exit status 0")
}

// roundRobin is a reverse proxy that sends each request to the next of
// its backends in turn, and records which backend got which request.
type roundRobin struct {
	backends []*url.URL
	proxies  []*httputil.ReverseProxy

	running sync.WaitGroup // requests being proxied
	mu      sync.Mutex
	next    int
	seq     []int      // the backend of each request, in order
	what    []exchange // each request and its answer, in order
}

// exchange is a request the proxy passed on, and the status of its answer.
type exchange struct {
	method string // the HTTP method
	label  string // the HTTP method and, for a POST, the JSON-RPC method
	status int
}

func (x exchange) String() string { return fmt.Sprintf("%s→%d", x.label, x.status) }

func newRoundRobin(t *testing.T, bases ...string) (*roundRobin, string) {
	t.Helper()
	rr := &roundRobin{}
	for _, b := range bases {
		u, err := url.Parse(b)
		require.NoError(t, err)
		rr.backends = append(rr.backends, u)
		rr.proxies = append(rr.proxies, &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }})
	}
	front := httptest.NewServer(rr)
	t.Cleanup(front.Close)
	return rr, front.URL + "/mcp"
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rr.running.Add(1)
	defer rr.running.Done()
	label := r.Method
	if r.Body != nil && r.Method == http.MethodPost {
		// The JSON-RPC method names the request in the test's log.
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
			label += " " + msg.Method
		}
	}
	rr.mu.Lock()
	i := rr.next
	rr.next = (rr.next + 1) % len(rr.backends)
	rr.seq = append(rr.seq, i)
	n := len(rr.what)
	rr.what = append(rr.what, exchange{method: r.Method, label: label})
	rr.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	rr.proxies[i].ServeHTTP(sw, r)
	rr.mu.Lock()
	rr.what[n].status = sw.status
	rr.mu.Unlock()
}

// reset forgets the requests seen so far, and starts again at the first
// backend.
func (rr *roundRobin) reset() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.next, rr.seq, rr.what = 0, nil, nil
}

// counts returns, once every request passed on has been answered, how
// many requests each backend got, the backend of each request in order,
// and each exchange.
func (rr *roundRobin) counts() (perBackend []int, seq []int, what []exchange) {
	rr.running.Wait()
	rr.mu.Lock()
	defer rr.mu.Unlock()
	perBackend = make([]int, len(rr.backends))
	for _, b := range rr.seq {
		perBackend[b]++
	}
	return perBackend, append([]int(nil), rr.seq...), append([]exchange(nil), rr.what...)
}

// statusWriter remembers the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// Unwrap lets the proxy flush event streams through the writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// replicaCall is one call the replica test makes.
type replicaCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

var replicaCalls = []replicaCall{
	{"search_tools", map[string]any{"query": "convert text case"}},
	{"list_namespaces", map[string]any{}},
	{"describe_tool", map[string]any{"id": "text:case", "level": "full"}},
	{"list_tool_examples", map[string]any{"id": "text:case"}},
	{"run_tool", map[string]any{"id": "text:case", "args": map[string]any{"text": "replicas agree", "to": "snake"}}},
	{"run_tool", map[string]any{"id": "text:hash", "args": map[string]any{"text": "replicas agree", "algorithm": "sha256"}}},
	{"run_tool", map[string]any{"id": "time:nope"}},
}

// assertAlternated checks that the requests went to each backend in turn,
// that both served some, and that none failed but the stream GETs a
// stateless server refuses (405).
func assertAlternated(t *testing.T, rr *roundRobin, client string) {
	t.Helper()
	perBackend, seq, what := rr.counts()
	t.Logf("%s through the proxy: requests per backend %v, in order %v: %v", client, perBackend, seq, what)
	require.Len(t, perBackend, 2)
	assert.Positive(t, perBackend[0], "backend 0 served requests")
	assert.Positive(t, perBackend[1], "backend 1 served requests")
	assert.LessOrEqual(t, perBackend[0]-perBackend[1], 1)
	for i := 1; i < len(seq); i++ {
		assert.NotEqual(t, seq[i-1], seq[i], "request %d went to the same backend as the one before", i)
	}
	for i, x := range what {
		ok := x.status/100 == 2 || (x.method == http.MethodGet && x.status == http.StatusMethodNotAllowed)
		assert.True(t, ok, "request %d: %s", i, x)
	}
}

// canonical returns the JSON of a call's result with the parts of no
// meaning to compare taken out: the object as the server sent it, in
// key order.
func canonical(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	if isErr, ok := m["isError"].(bool); ok && !isErr {
		delete(m, "isError")
	}
	// How long a tool ran is measured, not computed: it may differ by a
	// millisecond between two runs of the same call.
	if sc, ok := m["structuredContent"].(map[string]any); ok {
		delete(sc, "durationMs")
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

// TestReplicasBehindRoundRobin serves the same configuration from two
// stateless metatools processes behind a proxy that alternates between
// them at every request: a go-sdk client and a TypeScript SDK client each
// make every call through it, each request lands on the other replica
// than the one before, and every result is the one the same call gets
// from one replica directly.
func TestReplicasBehindRoundRobin(t *testing.T) {
	const token = "replica-secret"
	env := []string{tokenEnv + "=" + token}
	cfg := writeFile(t, "metatools.yaml", "search:\n  limit: 3\n")
	var replicas [2]*served
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { replicas[i] = startServed(t, env, "--stateless", "--config", cfg, "--drain-delay", "0") })
	}
	wg.Wait()
	for _, r := range replicas {
		require.NotNil(t, r, "a replica started")
	}
	rr, front := newRoundRobin(t, replicas[0].base, replicas[1].base)

	t.Run("go-sdk", func(t *testing.T) {
		direct := connectHTTP(t, replicas[0].endpoint, token)
		var want []string
		for _, c := range replicaCalls {
			res, err := direct.CallTool(t.Context(), &mcp.CallToolParams{Name: c.Name, Arguments: c.Arguments})
			require.NoError(t, err, c.Name)
			want = append(want, canonical(t, res))
		}

		rr.reset()
		cs := connectHTTP(t, front, token)
		for i, c := range replicaCalls {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.Name, Arguments: c.Arguments})
			require.NoError(t, err, c.Name)
			assert.JSONEq(t, want[i], canonical(t, res), "%s through the proxy", c.Name)
		}
		require.NoError(t, cs.Close())
		assertAlternated(t, rr, "go-sdk")
	})

	t.Run("typescript-sdk", func(t *testing.T) {
		modules, err := filepath.Abs(e2eModules)
		require.NoError(t, err)
		npmFile(t, "@modelcontextprotocol", "sdk", "dist", "esm", "client", "streamableHttp.js")
		data, err := json.Marshal(replicaCalls)
		require.NoError(t, err)
		calls := writeFile(t, "calls.json", string(data))
		script, err := filepath.Abs("testdata/replica-client.mjs")
		require.NoError(t, err)
		runClient := func(endpoint string) []any {
			ctx, cancel := context.WithTimeout(t.Context(), eventBound)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", script, modules, endpoint, calls)
			cmd.Env = append(os.Environ(), env...)
			cmd.Stderr = &testWriter{t: t}
			out, err := cmd.Output()
			require.NoError(t, err, "the TypeScript client against %s", endpoint)
			var results []any
			require.NoError(t, json.Unmarshal(out, &results), "%s", out)
			require.Len(t, results, len(replicaCalls))
			return results
		}
		direct := runClient(replicas[0].endpoint)
		rr.reset()
		through := runClient(front)
		assertAlternated(t, rr, "typescript-sdk")
		for i, c := range replicaCalls {
			assert.JSONEq(t, canonical(t, direct[i]), canonical(t, through[i]), "%s through the proxy", c.Name)
		}
	})
}

// TestStatelessCannotAskTheClient runs an upstream tool that asks the
// client for a sampling: a stateless server has no session to ask it on,
// so the call fails and the client is never asked, as the README says.
func TestStatelessCannotAskTheClient(t *testing.T) {
	config, _ := teeConfig(t)
	endpoint := serveHTTP(t, nil, "--config", config, "--stateless", "--drain-delay", "0")
	f := newForwardingClient()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-stateless", Version: "1"}, f.opts)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	waitForUpstreams(t, cs)

	res, _ := callTool(t, cs, "run_tool", map[string]any{"id": "everything:trigger-sampling-request",
		"args": map[string]any{"prompt": "what is a gateway?"}})
	assert.True(t, res.IsError, "the call fails: %s", resultText(res))
	t.Logf("the sampling call answers: %s", resultText(res))
	select {
	case s := <-f.samples:
		assert.Fail(t, "the client was asked for a sampling", s)
	default:
	}
}

// TestInputRetriesReachTheOtherReplica runs server-everything's tools
// that ask for sampling and elicitation, with run_tool, run_chain and
// execute_code, through two stateless replicas
// behind a round-robin proxy, for the TypeScript SDK v2 client pinned to
// 2026-07-28: each input_required result comes from one replica and the
// client's retry reaches the other. With the same server.stateKey the
// other replica accepts the retry and the calls complete; with a key of
// each replica's own, it refuses the state (-32602), which shows that
// the retries did cross.
func TestInputRetriesReachTheOtherReplica(t *testing.T) {
	upstream := everythingServer(t)
	calls := inputCalls[:len(inputCalls)-1] + "," + chainAndProgramCalls[1:]
	run := func(t *testing.T, keys [2]string) inputReport {
		var replicas [2]*served
		var wg sync.WaitGroup
		for i := range replicas {
			cfg := fmt.Sprintf("codeMode:\n  enabled: true\nmcpServers:\n  - name: everything\n    command: node\n    args: [%q, stdio]\n", upstream)
			if keys[i] != "" {
				cfg += "server:\n  stateKey: ${METATOOLS_STATE_KEY}\n"
			}
			file := writeFile(t, fmt.Sprintf("replica%d.yaml", i), cfg)
			env := []string{"METATOOLS_STATE_KEY=" + keys[i]}
			wg.Go(func() { replicas[i] = startServed(t, env, "--stateless", "--config", file, "--drain-delay", "0") })
		}
		wg.Wait()
		for _, r := range replicas {
			require.NotNil(t, r, "a replica started")
		}
		rr, front := newRoundRobin(t, replicas[0].base, replicas[1].base)
		r := runInputClient(t, "v2-2026-07-28", "http", front, "", calls)
		_, seq, what := rr.counts()
		t.Logf("through the proxy, in order %v: %v", seq, what)
		return r
	}

	t.Run("shared key", func(t *testing.T) {
		key := strings.Repeat("k", 32)
		r := run(t, [2]string{key, key})
		for _, res := range r.Results {
			assert.False(t, res.IsError, res.Text)
		}
		assert.Contains(t, r.Results[0].Text, "sampled by the e2e client")
		assert.Contains(t, r.Results[1].Text, "Ada Lovelace")
		for _, res := range r.Results[2:] {
			assert.Contains(t, res.Text, "Ada Lovelace", "the chain's and the program's answers reached the upstream")
			assert.Contains(t, res.Text, "sampled by the e2e client")
		}
	})
	t.Run("a key of each replica's own", func(t *testing.T) {
		r := run(t, [2]string{})
		for _, res := range r.Results {
			assert.True(t, res.IsError, res.Text)
			assert.Contains(t, res.Text, "invalid requestState: it is not one this server issued")
		}
	})
}
