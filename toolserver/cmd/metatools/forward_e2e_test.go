package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forwardingClient is a client of metatools that answers sampling and
// elicitation, and records what it was asked and told.
type forwardingClient struct {
	samples chan string
	elicits chan string
	logs    chan *mcp.LoggingMessageParams
	opts    *mcp.ClientOptions
}

func newForwardingClient() *forwardingClient {
	f := &forwardingClient{samples: make(chan string, 10), elicits: make(chan string, 10), logs: make(chan *mcp.LoggingMessageParams, 100)}
	f.opts = &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			f.samples <- req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Model: "e2e-model", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by the e2e client"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			f.elicits <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { f.logs <- req.Params },
	}
	return f
}

// teeConfig writes a configuration with server-everything over stdio as
// an upstream, whose standard input is copied to the returned file, so
// that a test sees every message metatools sends it.
func teeConfig(t *testing.T) (config, wire string) {
	t.Helper()
	dir := t.TempDir()
	wire = filepath.Join(dir, "wire.log")
	server := everythingServer(t)
	config = filepath.Join(dir, "metatools.yaml")
	script := fmt.Sprintf("tee -a %q | exec node %q stdio", wire, server)
	cfg := fmt.Sprintf("mcpServers:\n  - name: everything\n    command: sh\n    args: [-c, %q]\n", script)
	require.NoError(t, os.WriteFile(config, []byte(cfg), 0o600))
	return config, wire
}

// connectForwarding connects f to metatools over stdio or HTTP, at the
// protocol version where servers send their own requests to clients.
func connectForwarding(t *testing.T, f *forwardingClient, transport, config string) *mcp.ClientSession {
	t.Helper()
	var cs *mcp.ClientSession
	switch transport {
	case "stdio":
		cs = connectLegacy(t, f.opts, "--config", config)
	case "http":
		endpoint := serveHTTP(t, nil, "--config", config)
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e-forwarding", Version: "1"}, f.opts)
		var err error
		cs, err = client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
	}
	require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}))
	waitForUpstreams(t, cs)
	return cs
}

func TestUpstreamRequestsReachTheClient(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			config, wire := teeConfig(t)
			f := newForwardingClient()
			cs := connectForwarding(t, f, transport, config)

			res, _ := callTool(t, cs, "run_tool", map[string]any{"id": "everything:trigger-sampling-request",
				"args": map[string]any{"prompt": "what is a gateway?"}})
			require.False(t, res.IsError, resultText(res))
			assert.Contains(t, resultText(res), "sampled by the e2e client", "the client's answer reached the upstream")
			assert.Contains(t, <-f.samples, "what is a gateway?")

			res, _ = callTool(t, cs, "run_tool", map[string]any{"id": "everything:trigger-elicitation-request"})
			require.False(t, res.IsError, resultText(res))
			assert.Contains(t, resultText(res), "Ada Lovelace", "the user's input reached the upstream")
			assert.Contains(t, <-f.elicits, "Please provide inputs")

			res, _ = callTool(t, cs, "run_tool", map[string]any{"id": "everything:toggle-simulated-logging"})
			require.False(t, res.IsError, resultText(res))
			log := <-f.logs
			assert.True(t, strings.HasPrefix(log.Logger, "everything"), "the log names its upstream: %q", log.Logger)
			assert.NotEmpty(t, log.Data)

			// A cancelled call is cancelled upstream.
			ctx, cancel := context.WithCancel(t.Context())
			params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{
				"id": "everything:trigger-long-running-operation", "args": map[string]any{"duration": 60, "steps": 60}}}
			params.SetProgressToken("cancel-me")
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, params)
				done <- err
			}()
			waitForWire(t, wire, `"name":"trigger-long-running-operation"`)
			cancel()
			require.Error(t, <-done)
			waitForWire(t, wire, `"method":"notifications/cancelled"`)
		})
	}
}

// waitForWire waits until the upstream has received a message holding
// text.
func waitForWire(t *testing.T, wire, text string) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		raw, err := os.ReadFile(wire)
		require.NoError(c, err)
		assert.Contains(c, string(raw), text)
	}, 30*time.Second, 20*time.Millisecond, "the upstream received %s", text)
}

// inputReport is what testdata/input/client.mjs prints.
type inputReport struct {
	ProtocolVersion string `json:"protocolVersion"`
	Results         []struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"results"`
	Asked []map[string]string `json:"asked"`
}

// inputCalls run server-everything's tools that ask the client for a
// sampling and an elicitation.
const inputCalls = `[{"tool":"everything:trigger-sampling-request","args":{"prompt":"what is a gateway?"}},` +
	`{"tool":"everything:trigger-elicitation-request"}]`

// runInputClient runs requests (see testdata/input/client.mjs) with
// testdata/input/client.mjs: the TypeScript SDK named by sdk, over
// transport, against target (the metatools binary, given cfg, or an
// endpoint), and returns its report, which has a result for each request.
func runInputClient(t *testing.T, sdk, transport, target, cfg, requests string) inputReport {
	t.Helper()
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	cmd := exec.Command("node", filepath.Join("testdata", "input", "client.mjs"), modules, sdk, transport, target, cfg, requests)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err)
	var r inputReport
	require.NoError(t, json.Unmarshal(out, &r), string(out))
	var asked []any
	require.NoError(t, json.Unmarshal([]byte(requests), &asked))
	require.Len(t, r.Results, len(asked))
	return r
}

// TestUpstreamInputReachesEveryClient runs server-everything's tools
// that ask for sampling and elicitation (by requests of their own, as a
// server of 2025-11-25) through run_tool, for the official TypeScript
// SDK clients over stdio and streamable HTTP: v1, which the server asks
// by requests during the call, and v2 pinned to 2026-07-28, which gets
// the requests in input_required results and answers them in retries.
// Each client's answers reach the upstream.
func TestUpstreamInputReachesEveryClient(t *testing.T) {
	forEveryInputClient(t, everythingConfig(t), inputCalls, func(t *testing.T, sdk string, r inputReport) {
		if sdk != "v1" {
			assert.Equal(t, "2026-07-28", r.ProtocolVersion)
		}
		for _, res := range r.Results {
			assert.False(t, res.IsError, res.Text)
		}
		assert.Contains(t, r.Results[0].Text, "sampled by the e2e client", "the client's sampling reached the upstream")
		assert.Contains(t, r.Results[1].Text, "Ada Lovelace", "the user's input reached the upstream")
		assert.Equal(t, []map[string]string{{"sampling": "Resource trigger-sampling-request context: what is a gateway?"}, {"elicitation": "Please provide inputs for the following fields:"}}, r.Asked)
	})
}

// chainAndProgramCalls run server-everything's tools that ask the
// client for an elicitation and a sampling, as the two steps of a
// run_chain, then from an execute_code program.
const chainAndProgramCalls = `[{"metatool":"run_chain","args":{"steps":[{"id":"everything:trigger-elicitation-request"},` +
	`{"id":"everything:trigger-sampling-request","args":{"prompt":"what is a gateway?"}}]}},` +
	`{"metatool":"execute_code","args":{"code":"const who = await tools.run('everything:trigger-elicitation-request', {});\n` +
	`const said = await tools.run('everything:trigger-sampling-request', {prompt: 'what is a gateway?'});\nreturn {who, said};"}}]`

// TestUpstreamInputReachesChainsAndPrograms runs server-everything's
// tools that ask for an elicitation and a sampling as the two steps of
// one run_chain, and from one execute_code program, for the official
// TypeScript SDK clients over stdio and streamable HTTP: v1 is asked by
// requests of the server during the call; v2 pinned to 2026-07-28 gets
// each request in an input_required result, and its retries go on from
// the step or the call that waited. Each request reaches the client
// once, and each answer reaches the upstream.
func TestUpstreamInputReachesChainsAndPrograms(t *testing.T) {
	check := func(t *testing.T, _ string, r inputReport) {
		for _, res := range r.Results {
			require.False(t, res.IsError, res.Text)
			assert.Contains(t, res.Text, "Ada Lovelace", "the user's input reached the upstream")
			assert.Contains(t, res.Text, "sampled by the e2e client", "the client's sampling reached the upstream")
		}
		once := []map[string]string{
			{"elicitation": "Please provide inputs for the following fields:"},
			{"sampling": "Resource trigger-sampling-request context: what is a gateway?"},
		}
		assert.Equal(t, slices.Repeat(once, len(r.Results)), r.Asked, "each request reached the client once, in order")
	}
	forEveryInputClient(t, codeModeConfig(t), chainAndProgramCalls, check)
	// The program of every security profile reaches its tools through the
	// same operations: in the server's process, in a sandboxed child
	// process, in WebAssembly.
	program := "[" + chainAndProgramCalls[strings.Index(chainAndProgramCalls, `{"metatool":"execute_code"`):]
	for _, profile := range []string{"dev", "standard", "hardened"} {
		t.Run("v2-2026-07-28/http/"+profile, func(t *testing.T) {
			cfg := writeFile(t, "metatools.yaml", fmt.Sprintf("codeMode:\n  enabled: true\n  profile: %s\nmcpServers:\n  - name: everything\n    command: node\n    args: [%q, stdio]\n", profile, everythingServer(t)))
			check(t, "", runInputClient(t, "v2-2026-07-28", "http", serveHTTP(t, nil, "--config", cfg), "", program))
		})
	}
}

// forEveryInputClient runs requests with runInputClient for the
// TypeScript SDK v1 and v2 (pinned to 2026-07-28) clients, over stdio
// and streamable HTTP, against metatools serving config, and checks each
// report.
func forEveryInputClient(t *testing.T, config, requests string, check func(t *testing.T, sdk string, r inputReport)) {
	for _, sdk := range []string{"v1", "v2-2026-07-28"} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(sdk+"/"+transport, func(t *testing.T) {
				target, cfg := metatoolsBinary(t), config
				if transport == "http" {
					target, cfg = serveHTTP(t, nil, "--config", config), ""
				}
				check(t, sdk, runInputClient(t, sdk, transport, target, cfg, requests))
			})
		}
	}
}

// TestUpstreamPromptInputReachesEveryClient gets a prompt of an upstream
// of protocol 2026-07-28 that asks the client for the prompt's context
// first, through metatools, for the official TypeScript SDK clients over
// stdio and streamable HTTP: v2 pinned to 2026-07-28 gets the upstream's
// request in an input_required result and answers it in a retry, which
// carries the state metatools sealed; v1 is asked by a request of the
// server during prompts/get. Each client's answer reaches the upstream.
func TestUpstreamPromptInputReachesEveryClient(t *testing.T) {
	config := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(config, []byte(upstreamConfig(conformanceUpstream(t))), 0o600))
	const getPrompt = `[{"prompt":"test_input_required_result_prompt"}]`
	forEveryInputClient(t, config, getPrompt, func(t *testing.T, _ string, r inputReport) {
		require.False(t, r.Results[0].IsError, r.Results[0].Text)
		assert.Equal(t, "Answer within this context: an operator's gateway", r.Results[0].Text, "the client's answer reached the upstream")
		assert.Equal(t, []map[string]string{{"elicitation": "What context should the prompt use?"}}, r.Asked)
	})
}
