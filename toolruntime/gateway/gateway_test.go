package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolruntime/gateway"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeTools is a toolcode.Tools that echoes runs and records log lines,
// failing a line past maxLog bytes as the executor's Tools does.
type fakeTools struct {
	maxLog int

	mu    sync.Mutex
	lines []string
	bytes int
}

var _ toolcode.Tools = (*fakeTools)(nil)

func (f *fakeTools) Search(context.Context, toolops.SearchRequest) (toolops.SearchResult, error) {
	return toolops.SearchResult{Tools: []toolindex.Summary{{ID: "math:add"}}}, nil
}
func (f *fakeTools) Namespaces(context.Context) ([]string, error) { return []string{"math"}, nil }
func (f *fakeTools) Describe(context.Context, toolops.DescribeRequest) (tooldocs.Doc, error) {
	return tooldocs.Doc{}, nil
}
func (f *fakeTools) Examples(context.Context, toolops.ExamplesRequest) ([]tooldocs.Example, error) {
	return nil, nil
}
func (f *fakeTools) Run(_ context.Context, id string, args map[string]any) (any, error) {
	if id == "util:fail" {
		return nil, errors.Errorf(errors.PermissionDenied, "denied")
	}
	return args, nil
}
func (f *fakeTools) Chain(context.Context, []toolops.ChainStep) ([]any, error) { return nil, nil }
func (f *fakeTools) Log(_ context.Context, line string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.maxLog > 0 && f.bytes+len(line) > f.maxLog {
		return toolcode.LimitError(toolcode.LimitOutputBytes, f.maxLog)
	}
	f.bytes += len(line)
	f.lines = append(f.lines, line)
	return nil
}

// guest is the test playing the guest: it reads what the host writes and
// writes what the host reads.
type guest struct {
	t    *testing.T
	in   *bufio.Reader  // the host's messages
	inR  *io.PipeReader // under in
	out  *io.PipeWriter // to the host
	done chan hostResult
}

type hostResult struct {
	value json.RawMessage
	err   error
}

// startHost runs gateway.Host against the test as guest.
func startHost(t *testing.T, tools toolcode.Tools, maxMessage int) *guest {
	t.Helper()
	hostReads, guestWrites := io.Pipe()
	guestReads, hostWrites := io.Pipe()
	g := &guest{t: t, in: bufio.NewReader(guestReads), inR: guestReads, out: guestWrites, done: make(chan hostResult, 1)}
	go func() {
		v, err := gateway.Host(context.Background(), hostReads, hostWrites, gateway.Execution{Language: "javascript", Code: "1"}, tools, maxMessage)
		_ = hostWrites.Close()
		_ = hostReads.Close()
		g.done <- hostResult{v, err}
	}()
	t.Cleanup(func() { _ = guestWrites.Close(); _ = guestReads.Close() })
	return g
}

func (g *guest) read() map[string]any {
	g.t.Helper()
	line, err := g.in.ReadString('\n')
	require.NoError(g.t, err)
	var m map[string]any
	require.NoError(g.t, json.Unmarshal([]byte(line), &m))
	return m
}

func (g *guest) write(line string) {
	g.t.Helper()
	_, err := io.WriteString(g.out, line+"\n")
	require.NoError(g.t, err)
}

// result ends the guest, as a process ends: both its pipes close.
func (g *guest) result() hostResult {
	g.t.Helper()
	_ = g.out.Close()
	_ = g.inR.Close()
	return <-g.done
}

func TestHostSendsExecute(t *testing.T) {
	g := startHost(t, &fakeTools{}, 0)
	m := g.read()
	assert.Equal(t, "2.0", m["jsonrpc"])
	assert.InDelta(t, 1, m["id"], 0)
	assert.Equal(t, gateway.MethodExecute, m["method"])
	assert.Equal(t, map[string]any{"language": "javascript", "code": "1", "limits": map[string]any{}}, m["params"])
	g.write(`{"jsonrpc":"2.0","id":1,"result":{"value":{"answer":42}}}`)
	res := g.result()
	require.NoError(t, res.err)
	assert.JSONEq(t, `{"answer":42}`, string(res.value))
}

func TestHostServesCallsAndLogs(t *testing.T) {
	tools := &fakeTools{}
	g := startHost(t, tools, 0)
	g.read()
	g.write(`{"jsonrpc":"2.0","method":"log","params":{"line":"hello"}}`)
	g.write(`{"jsonrpc":"2.0","id":2,"method":"tools/run","params":{"id":"util:echo","args":{"x":1}}}`)
	answer := g.read()
	assert.InDelta(t, 2, answer["id"], 0)
	assert.Equal(t, map[string]any{"x": float64(1)}, answer["result"])
	g.write(`{"jsonrpc":"2.0","id":3,"method":"tools/run","params":{"id":"util:fail"}}`)
	answer = g.read()
	wire, ok := answer["error"].(map[string]any)
	require.True(t, ok, "an error answer: %v", answer)
	assert.Equal(t, "permission_denied", wire["data"].(map[string]any)["code"])
	g.write(`{"jsonrpc":"2.0","id":1,"result":{"value":null}}`)
	res := g.result()
	require.NoError(t, res.err)
	assert.Equal(t, []string{"hello"}, tools.lines)
}

func TestHostFailures(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		max   int
		tools *fakeTools
		code  errors.Code
		limit string
	}{
		{"malformed JSON", []string{`{"jsonrpc":`}, 0, nil, errors.InvalidArgument, ""},
		{"not JSON-RPC 2.0", []string{`{"jsonrpc":"1.0","id":1,"result":1}`}, 0, nil, errors.InvalidArgument, ""},
		{"unknown field", []string{`{"jsonrpc":"2.0","id":1,"result":1,"extra":true}`}, 0, nil, errors.InvalidArgument, ""},
		{"answer to an unknown id", []string{`{"jsonrpc":"2.0","id":7,"result":{}}`}, 0, nil, errors.InvalidArgument, ""},
		{"unknown notification", []string{`{"jsonrpc":"2.0","method":"exit"}`}, 0, nil, errors.InvalidArgument, ""},
		{"malformed log", []string{`{"jsonrpc":"2.0","method":"log","params":[1]}`}, 0, nil, errors.InvalidArgument, ""},
		{"oversized message", []string{`{"jsonrpc":"2.0","method":"log","params":{"line":"` + strings.Repeat("x", 200) + `"}}`}, 100, nil, errors.ResourceExhausted, ""},
		{"dies mid-call", []string{`{"jsonrpc":"2.0","id":2,"method":"tools/run","params":{"id":"util:echo"}}`}, 0, nil, errors.Unavailable, ""},
		{"output limit through log", []string{
			`{"jsonrpc":"2.0","method":"log","params":{"line":"0123456789"}}`,
			`{"jsonrpc":"2.0","method":"log","params":{"line":"0123456789"}}`,
		}, 0, &fakeTools{maxLog: 15}, errors.ResourceExhausted, toolcode.LimitOutputBytes},
		{"program error keeps its code", []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","data":{"code":"timeout"}}}`}, 0, nil, errors.Timeout, ""},
		{"malformed answer", []string{`{"jsonrpc":"2.0","id":1,"result":[]}`}, 0, nil, errors.InvalidArgument, ""},
		{"ready after another message", []string{
			`{"jsonrpc":"2.0","method":"log","params":{"line":"x"}}`,
			`{"jsonrpc":"2.0","method":"ready"}`,
		}, 0, nil, errors.InvalidArgument, ""},
		{"ready twice", []string{`{"jsonrpc":"2.0","method":"ready"}`, `{"jsonrpc":"2.0","method":"ready"}`}, 0, nil, errors.InvalidArgument, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := tc.tools
			if tools == nil {
				tools = &fakeTools{}
			}
			g := startHost(t, tools, tc.max)
			g.read()
			for _, line := range tc.lines {
				// The host may stop reading at a bad message: what it
				// does not read is not an error of the test.
				_, _ = io.WriteString(g.out, line+"\n")
			}
			res := g.result()
			require.Error(t, res.err)
			assert.Equal(t, tc.code, errors.CodeOf(res.err), "error: %v", res.err)
			if tc.limit != "" {
				assert.Equal(t, tc.limit, toolcode.LimitOf(res.err))
			}
		})
	}
}

// TestHostSkipsReady shows that a guest that announces its start, as the
// runner does, is served: the host skips the announcement.
func TestHostSkipsReady(t *testing.T) {
	g := startHost(t, &fakeTools{}, 0)
	g.read()
	g.write(`{"jsonrpc":"2.0","method":"ready"}`)
	g.write(`{"jsonrpc":"2.0","id":1,"result":{"value":2}}`)
	res := g.result()
	require.NoError(t, res.err)
	assert.JSONEq(t, `2`, string(res.value))
}

// TestAwaitReady reads the announcement and nothing after it.
func TestAwaitReady(t *testing.T) {
	r := strings.NewReader(`{"jsonrpc":"2.0","method":"ready"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"value":2}}` + "\n")
	require.NoError(t, gateway.AwaitReady(r))
	m, err := gateway.NewReader(r, 0).Read()
	require.NoError(t, err)
	assert.Equal(t, int64(1), m.ID, "the message after the announcement is left to read")

	for name, tc := range map[string]struct {
		in   string
		code errors.Code
	}{
		"end first":         {`{"jsonrpc":"2.0","met`, errors.Unavailable},
		"another message":   {`{"jsonrpc":"2.0","method":"log","params":{"line":"x"}}` + "\n", errors.InvalidArgument},
		"malformed":         {"not json\n", errors.InvalidArgument},
		"no line in bounds": {strings.Repeat("x", 1000), errors.InvalidArgument},
	} {
		t.Run(name, func(t *testing.T) {
			err := gateway.AwaitReady(strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Equal(t, tc.code, errors.CodeOf(err), "%v", err)
		})
	}
}

// TestServeAnnouncesReady shows the guest's announcement, sent before it
// reads its execution.
func TestServeAnnouncesReady(t *testing.T) {
	toGuest, fromHost := io.Pipe()
	toHost, fromGuest := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- gateway.Serve(context.Background(), toGuest, fromGuest, func(context.Context, gateway.Execution, toolcode.Tools) (json.RawMessage, error) {
			return json.RawMessage(`3`), nil
		}, gateway.GuestOptions{Ready: true})
		_ = fromGuest.Close()
	}()
	require.NoError(t, gateway.AwaitReady(toHost))
	v, err := gateway.Host(context.Background(), toHost, fromHost, gateway.Execution{Language: "x"}, &fakeTools{}, 0)
	require.NoError(t, err)
	assert.JSONEq(t, `3`, string(v))
	_ = fromHost.Close()
	require.NoError(t, <-done)
}

func TestReader(t *testing.T) {
	t.Run("skips blank lines", func(t *testing.T) {
		r := gateway.NewReader(strings.NewReader("\n  \n{\"jsonrpc\":\"2.0\",\"method\":\"log\"}\n"), 0)
		m, err := r.Read()
		require.NoError(t, err)
		assert.Equal(t, "log", m.Method)
		_, err = r.Read()
		assert.ErrorIs(t, err, io.EOF)
	})
	t.Run("cut short", func(t *testing.T) {
		_, err := gateway.NewReader(strings.NewReader(`{"jsonrpc":"2.0"`), 0).Read()
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	})
	t.Run("oversized without newline", func(t *testing.T) {
		_, err := gateway.NewReader(strings.NewReader(strings.Repeat("x", 1<<20)), 1024).Read()
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
	})
}

func TestDecodeShapes(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"execute","params":{}}`, true},
		{`{"jsonrpc":"2.0","method":"log","params":{"line":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":2,"result":null}`, true},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":-1,"method":"x"}`, false},
		{`{"jsonrpc":"2.0","method":"x","result":1}`, false},
		{`{"jsonrpc":"2.0"}`, false},
		{`{"jsonrpc":"2.0","id":2}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":1,"error":{"code":1,"message":"x"}}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":1,"params":{}}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":1} {}`, false},
		{`[]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			_, err := gateway.Decode([]byte(tc.line))
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "error: %v", err)
			}
		})
	}
}
