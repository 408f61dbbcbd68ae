package toolserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// catalogue is a small catalogue behind a toolserver.Server.
type catalogue struct {
	t        testing.TB
	index    *toolindex.MemoryIndex
	docs     *tooldocs.Store
	local    *toolrun.LocalExecutor
	registry *toolrun.ExecutorRegistry
	runner   *toolrun.Runner
	// opsOptions configure the operations of the servers built over it.
	opsOptions []toolops.Option
	logs       *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newCatalogue(t testing.TB) *catalogue {
	t.Helper()
	c := &catalogue{t: t, index: toolindex.New(), local: toolrun.NewLocalExecutor(), logs: &syncBuffer{}}
	c.docs = tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(c.index)))
	provider := toolrun.NewProviderExecutor()
	provider.Register("jobs", toolrun.ProviderFunc(func(_ context.Context, _ string, call *toolrun.Call) (toolrun.Output, error) {
		for i := 1; i <= 3; i++ {
			if call.OnProgress != nil {
				call.OnProgress(toolrun.Progress{Progress: float64(i), Total: 3, Message: "step"})
			}
		}
		return toolrun.Output{Structured: map[string]any{"done": true}}, nil
	}))
	c.registry = toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
		toolmodel.BackendLocal: c.local, toolmodel.BackendProvider: provider,
	})
	c.runner = toolrun.New(c.registry, toolrun.WithIndex(c.index))

	c.add(t, `{"name":"create_issue","namespace":"github","title":"Create an issue",
		"description":"Create a new issue in a GitHub repository. Needs a title.",
		"inputSchema":{"type":"object","properties":{"title":{"type":"string","description":"issue title"},"body":{"type":"string"}},"required":["title"]},
		"tags":["issues"]}`, func(_ context.Context, args map[string]any) (any, error) {
		return map[string]any{"number": 7.0, "title": args["title"]}, nil
	})
	c.add(t, `{"name":"search_code","namespace":"github","description":"Search code in repositories.",
		"inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`, func(_ context.Context, args map[string]any) (any, error) {
		return []any{"main.go"}, nil
	})
	c.add(t, `{"name":"read_file","namespace":"fs","description":"Read a file from disk.",
		"inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`,
		func(context.Context, map[string]any) (any, error) {
			return nil, errors.New("permission denied by the OS")
		})
	c.add(t, `{"name":"upper","namespace":"text","description":"Upper-case a text.",
		"inputSchema":{"type":"object","properties":{"text":{"type":"string"},"previous":{}}}}`,
		func(_ context.Context, args map[string]any) (any, error) {
			if prev, ok := args["previous"].(map[string]any); ok {
				return fmt.Sprint("ISSUE ", prev["title"]), nil
			}
			return args["text"], nil
		})
	long, err := toolmodel.DecodeTool([]byte(`{"name":"long_job","namespace":"jobs","description":"A job that reports progress.","inputSchema":{"type":"object"}}`))
	require.NoError(t, err)
	require.NoError(t, c.index.Register(context.Background(), toolindex.Registration{Tool: long,
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "jobs"}}}))
	require.NoError(t, c.docs.Register(context.Background(), tooldocs.Entry{ToolID: "github:create_issue",
		Examples: []tooldocs.Example{{Name: "bug", Description: "File a bug.", Args: map[string]any{"title": "Crash on start"}}},
		Notes:    []string{"Rate limited to 30 calls a minute."}}))
	return c
}

func (c *catalogue) add(t testing.TB, toolJSON string, fn toolrun.LocalFunc) {
	t.Helper()
	tool, err := toolmodel.DecodeTool([]byte(toolJSON))
	require.NoError(t, err)
	c.local.Register(tool.ID(), fn)
	require.NoError(t, c.index.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}))
}

// ops returns the operations over the catalogue, with c.opsOptions.
func (c *catalogue) ops() *toolops.Service {
	ops, err := toolops.New(c.index, c.docs, c.runner, c.opsOptions...)
	require.NoError(c.t, err)
	return ops
}

func (c *catalogue) server(opts ...toolserver.Option) *toolserver.Server {
	s, err := c.newServer(opts...)
	require.NoError(c.t, err)
	return s
}

// newServer builds a server over the catalogue, logging to c.logs.
func (c *catalogue) newServer(opts ...toolserver.Option) (*toolserver.Server, error) {
	logger := slog.New(slog.NewTextHandler(c.logs, nil))
	return toolserver.New(c.ops(), append([]toolserver.Option{toolserver.WithLogger(logger)}, opts...)...)
}

// connect returns a client session to s over an in-memory transport.
func connect(t testing.TB, s *toolserver.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCPServer().Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

func structured(t *testing.T, res *mcp.CallToolResult, into any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, into))
}

func text(res *mcp.CallToolResult) string {
	var b bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMetaToolsAreListed(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
		assert.NotNil(t, tool.InputSchema, tool.Name)
		assert.NotNil(t, tool.OutputSchema, tool.Name)
	}
	assert.ElementsMatch(t, []string{"search_tools", "list_namespaces", "describe_tool", "list_tool_examples", "run_tool", "run_chain"}, names)
	assert.Equal(t, toolserver.DefaultInstructions, cs.InitializeResult().Instructions)
}

// TestNoUpstreamsEmptyPrompts checks that a server without upstreams
// declares the prompts and resources it answers with empty lists, so that
// what it declares and what it answers agree.
func TestNoUpstreamsEmptyPrompts(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	caps := cs.InitializeResult().Capabilities
	require.NotNil(t, caps.Prompts)
	require.NotNil(t, caps.Resources)
	assert.False(t, caps.Prompts.ListChanged, "nothing changes them")
	assert.False(t, caps.Resources.ListChanged || caps.Resources.Subscribe)
	assert.Nil(t, caps.Completions, "there is nothing to complete")
	ctx := context.Background()
	prompts, err := cs.ListPrompts(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, prompts.Prompts)
	resources, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, resources.Resources)
}

// TestMetaToolSchemasAreObjects checks that no schema of a meta-tool,
// at any depth, is a bare true: valid JSON Schema, but clients that
// convert schemas for their models expect objects (the Inspector reports
// it as a portability error). additionalProperties may be true or
// false, as those clients expect.
func TestMetaToolSchemasAreObjects(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	// bare collects the paths of the subschemas of schema that are true.
	var bare func(path string, schema any) []string
	bare = func(path string, schema any) []string {
		if schema == true {
			return []string{path}
		}
		obj, _ := schema.(map[string]any)
		var out []string
		for key, sub := range obj {
			switch key {
			case "items", "not", "contains", "propertyNames":
				out = append(out, bare(path+"/"+key, sub)...)
			case "properties", "$defs", "definitions", "patternProperties":
				members, _ := sub.(map[string]any)
				for name, m := range members {
					out = append(out, bare(path+"/"+key+"/"+name, m)...)
				}
			case "anyOf", "oneOf", "allOf", "prefixItems":
				list, _ := sub.([]any)
				for i, m := range list {
					out = append(out, bare(fmt.Sprintf("%s/%s/%d", path, key, i), m)...)
				}
			}
		}
		return out
	}
	for _, tool := range res.Tools {
		for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			raw, err := json.Marshal(schema)
			require.NoError(t, err)
			var decoded any
			require.NoError(t, json.Unmarshal(raw, &decoded))
			assert.Empty(t, bare("", decoded), "%s: %s schema", tool.Name, kind)
		}
	}
}

func TestSearchTools(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	res := call(t, cs, "search_tools", map[string]any{"query": "open an issue on github"})
	require.False(t, res.IsError, text(res))
	var out struct {
		Tools []struct {
			ID, Title, Description string
		}
		NextCursor string
	}
	structured(t, res, &out)
	require.NotEmpty(t, out.Tools)
	assert.Equal(t, "github:create_issue", out.Tools[0].ID)
	assert.Equal(t, "Create an issue", out.Tools[0].Title)
	assert.Contains(t, text(res), "github:create_issue — Create a new issue")

	// An empty query lists the catalogue, page by page.
	res = call(t, cs, "search_tools", map[string]any{"query": "", "limit": 2})
	structured(t, res, &out)
	assert.Equal(t, []string{"fs:read_file", "github:create_issue"}, []string{out.Tools[0].ID, out.Tools[1].ID})
	require.NotEmpty(t, out.NextCursor)
	res = call(t, cs, "search_tools", map[string]any{"query": "", "limit": 2, "cursor": out.NextCursor})
	structured(t, res, &out)
	assert.Equal(t, "github:search_code", out.Tools[0].ID)

	res = call(t, cs, "search_tools", map[string]any{"query": "file", "namespace": "github"})
	structured(t, res, &out)
	for _, tool := range out.Tools {
		assert.Contains(t, tool.ID, "github:")
	}

	res = call(t, cs, "search_tools", map[string]any{"query": "x", "cursor": "garbage"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "[invalid_argument]")
}

// metaError returns the error a failed result carries in its _meta, as
// a Go client of the server reads it.
func metaError(t *testing.T, res *mcp.CallToolResult) *errors.Error {
	t.Helper()
	require.True(t, res.IsError, "a failed result")
	raw, err := json.Marshal(res.Meta[toolserver.MetaErrorKey])
	require.NoError(t, err)
	var wire errors.WireError
	require.NoError(t, json.Unmarshal(raw, &wire), "_meta holds the error's wire form: %s", raw)
	e := errors.FromWire(&wire)
	require.NotNil(t, e, "_meta holds the error: %s", raw)
	return e
}

func TestBadMetaToolArgumentsAreToolErrors(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	tests := []struct {
		name string
		tool string
		args any
		want string
	}{
		{"missing id", "run_tool", map[string]any{"args": map[string]any{}}, "invalid arguments: /id: required property is missing; call run_tool again with arguments that follow its input schema"},
		{"ill-typed id", "describe_tool", map[string]any{"id": 5}, "/id: type: 5 has type \"integer\", want \"string\""},
		{"args not an object", "run_tool", map[string]any{"id": "x", "args": "no"}, "/args: type"},
		{"steps not a list", "run_chain", map[string]any{"steps": map[string]any{}}, "/steps: type"},
		{"unknown member", "search_tools", map[string]any{"query": "x", "colour": "red"}, "/colour: property is not allowed"},
		{"limit too large", "search_tools", map[string]any{"query": "x", "limit": 1000}, "/limit: maximum"},
		{"limit not an integer", "search_tools", map[string]any{"query": "x", "limit": 1.5}, "/limit: type"},
		{"bad level", "describe_tool", map[string]any{"id": "x", "level": "everything"}, "/level: enum"},
		{"arguments not an object", "list_namespaces", []any{1, 2}, "type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			require.NoError(t, err, "bad arguments are not a protocol error")
			require.True(t, res.IsError)
			assert.Contains(t, text(res), "[invalid_argument] "+tt.tool+": invalid arguments: ")
			assert.Contains(t, text(res), tt.want)
			e := metaError(t, res)
			assert.Equal(t, errors.InvalidArgument, e.Code)
			assert.Equal(t, tt.tool, e.Op)
			assert.False(t, e.Retryable)
		})
	}
}

func TestDescribeTool(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	levels := map[string][]string{
		"summary": {"github:create_issue", "Create a new issue in a GitHub repository."},
		"schema":  {"title", "issue title"},
		"full":    {"Rate limited to 30 calls a minute.", "Crash on start"},
	}
	for level, wants := range levels {
		t.Run(level, func(t *testing.T) {
			res := call(t, cs, "describe_tool", map[string]any{"id": "github:create_issue", "level": level})
			require.False(t, res.IsError, text(res))
			for _, want := range wants {
				assert.Contains(t, text(res), want)
			}
			var doc tooldocs.Doc
			structured(t, res, &doc)
			assert.Equal(t, "github:create_issue", doc.ID)
			assert.Equal(t, level, doc.Level.String())
		})
	}
	res := call(t, cs, "describe_tool", map[string]any{"id": "github:nope"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "[not_found]")

	res = call(t, cs, "list_tool_examples", map[string]any{"id": "github:create_issue"})
	var ex struct{ Examples []tooldocs.Example }
	structured(t, res, &ex)
	require.Len(t, ex.Examples, 1)
	assert.Equal(t, "bug", ex.Examples[0].Name)

	res = call(t, cs, "list_namespaces", map[string]any{})
	var ns struct{ Namespaces []string }
	structured(t, res, &ns)
	assert.Equal(t, []string{"fs", "github", "jobs", "text"}, ns.Namespaces)
}

func TestRunTool(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	res := call(t, cs, "run_tool", map[string]any{"id": "github:create_issue", "args": map[string]any{"title": "Crash"}})
	require.False(t, res.IsError, text(res))
	var out struct {
		ID, Backend string
		Result      map[string]any
		Attempts    int
	}
	structured(t, res, &out)
	assert.Equal(t, "github:create_issue", out.ID)
	assert.Equal(t, "local:github:create_issue", out.Backend)
	assert.Equal(t, map[string]any{"number": 7.0, "title": "Crash"}, out.Result)
	assert.Equal(t, 1, out.Attempts)
	assert.JSONEq(t, `{"number":7,"title":"Crash"}`, text(res))

	tests := []struct {
		name string
		args map[string]any
		code errors.Code
		op   string
		want string
	}{
		{"tool failure", map[string]any{"id": "fs:read_file", "args": map[string]any{"path": "/etc/shadow"}}, errors.Execution, toolrun.OpExecute, "permission denied by the OS"},
		{"arguments refused by the tool's schema", map[string]any{"id": "github:create_issue", "args": map[string]any{}}, errors.Validation, toolrun.OpValidateInput, "/title: required property is missing"},
		{"unknown tool", map[string]any{"id": "github:nope"}, errors.NotFound, toolops.OpRun, "no tool with this ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "run_tool", tt.args)
			require.True(t, res.IsError)
			assert.Contains(t, text(res), "["+string(tt.code)+"]")
			assert.Contains(t, text(res), tt.want)
			e := metaError(t, res)
			assert.Equal(t, tt.code, e.Code, "the code is in _meta")
			assert.Equal(t, tt.op, e.Op, "the stage is in _meta")
		})
	}
}

func TestRunToolForwardsProgress(t *testing.T) {
	seen := make(chan *mcp.ProgressNotificationParams, 3)
	cs := connect(t, newCatalogue(t).server(), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			seen <- req.Params
		},
	})
	params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"id": "jobs:long_job"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError, text(res))
	// The client handles notifications concurrently with the response, so
	// they may be seen after it, and in any order.
	var progress []float64
	for range 3 {
		p := <-seen
		assert.Equal(t, "tok-1", p.ProgressToken)
		assert.InDelta(t, 3.0, p.Total, 0)
		progress = append(progress, p.Progress)
	}
	assert.ElementsMatch(t, []float64{1, 2, 3}, progress)
}

func TestRunChain(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	res := call(t, cs, "run_chain", map[string]any{"steps": []any{
		map[string]any{"id": "github:create_issue", "args": map[string]any{"title": "Crash"}},
		map[string]any{"id": "text:upper", "usePrevious": true},
	}})
	require.False(t, res.IsError, text(res))
	var out struct {
		Steps []struct {
			Step   int
			ID     string
			Result any
			Error  *struct{ Code, Message string }
		}
	}
	structured(t, res, &out)
	require.Len(t, out.Steps, 2)
	assert.Equal(t, "ISSUE Crash", out.Steps[1].Result)

	res = call(t, cs, "run_chain", map[string]any{"steps": []any{
		map[string]any{"id": "fs:read_file", "args": map[string]any{"path": "x"}},
		map[string]any{"id": "text:upper"},
	}})
	assert.True(t, res.IsError)
	structured(t, res, &out)
	require.Len(t, out.Steps, 1, "the chain stopped at the failure")
	require.NotNil(t, out.Steps[0].Error)
	assert.Equal(t, "execution", out.Steps[0].Error.Code)
}

func TestCatalogueChangesShowAtOnce(t *testing.T) {
	c := newCatalogue(t)
	s := c.server()
	defer s.Close()
	cs := connect(t, s, nil)
	c.add(t, `{"name":"forecast","namespace":"weather","description":"Weather forecast for a city.","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) { return "sunny", nil })
	res := call(t, cs, "search_tools", map[string]any{"query": "weather forecast"})
	var out struct{ Tools []struct{ ID string } }
	structured(t, res, &out)
	require.NotEmpty(t, out.Tools)
	assert.Equal(t, "weather:forecast", out.Tools[0].ID)
	assert.Contains(t, c.logs.String(), `msg="catalogue changed" kind=registered tool=weather:forecast`)
}

func TestPassthrough(t *testing.T) {
	c := newCatalogue(t)
	changed := make(chan struct{}, 10)
	cs := connect(t, c.server(toolserver.WithPassthrough("github:*")), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	names := func() []string {
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	assert.Subset(t, names(), []string{"github.create_issue", "github.search_code"})
	assert.NotContains(t, names(), "fs.read_file")

	res := call(t, cs, "github.create_issue", map[string]any{"title": "Direct"})
	require.False(t, res.IsError, text(res))
	assert.JSONEq(t, `{"number":7,"title":"Direct"}`, text(res))

	c.add(t, `{"name":"list_prs","namespace":"github","description":"List pull requests.","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) { return []any{}, nil })
	<-changed
	assert.Contains(t, names(), "github.list_prs")

	_, err := c.index.UnregisterBackend(context.Background(), "local:github:list_prs")
	require.NoError(t, err)
	<-changed
	assert.NotContains(t, names(), "github.list_prs")
}

func TestHTTPBearerAuthAndStateless(t *testing.T) {
	c := newCatalogue(t)
	for _, stateless := range []bool{false, true} {
		srv := httptest.NewServer(c.server().HTTPHandler(toolserver.HTTPOptions{BearerTokens: []toolserver.BearerToken{{Token: "s3cret"}}, Stateless: stateless}))
		t.Cleanup(srv.Close)

		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		_, err = client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: bearerClient("wrong")}, nil)
		require.Error(t, err, "a wrong token is refused")

		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: bearerClient("s3cret")}, nil)
		require.NoError(t, err)
		res := call(t, cs, "run_tool", map[string]any{"id": "github:create_issue", "args": map[string]any{"title": "Over HTTP"}})
		assert.Contains(t, text(res), "Over HTTP", "stateless=%v", stateless)
		require.NoError(t, cs.Close())
	}
}

// TestCallersAreKnownByTheirTokensName shows that the requests of a named
// static token reach the tools with its subject in the caller's metadata
// ("token:" and the name), and those of an unnamed one with none, with
// sessions and without, in either protocol generation.
func TestCallersAreKnownByTheirTokensName(t *testing.T) {
	c := newCatalogue(t)
	c.add(t, `{"name":"whoami","namespace":"auth","description":"Say who asks.","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, _ map[string]any) (any, error) {
			return "subject=" + toolops.CallerFrom(ctx).Metadata[toolserver.MetadataSubject], nil
		})
	tokens := []toolserver.BearerToken{{Name: "ci", Token: "ci-secret"}, {Token: "plain-secret"}}
	for _, stateless := range []bool{false, true} {
		srv := httptest.NewServer(c.server().HTTPHandler(toolserver.HTTPOptions{BearerTokens: tokens, Stateless: stateless}))
		t.Cleanup(srv.Close)
		for token, want := range map[string]string{"ci-secret": "subject=token:ci", "plain-secret": "subject="} {
			for _, revision := range []string{"2025-11-25", "2026-07-28"} {
				client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
				cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: bearerClient(token)},
					&mcp.ClientSessionOptions{ProtocolVersion: revision})
				require.NoError(t, err)
				res := call(t, cs, "run_tool", map[string]any{"id": "auth:whoami"})
				assert.Contains(t, text(res), want, "stateless=%v, %s", stateless, revision)
				require.NoError(t, cs.Close())
			}
		}
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}

func bearerClient(token string) *http.Client { return &http.Client{Transport: bearerTransport{token}} }
