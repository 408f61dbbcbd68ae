package builtin_test

import (
	"context"
	"encoding/json"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver/builtin"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func ids(tools []builtin.Tool) []string {
	out := make([]string, len(tools))
	for i := range tools {
		out[i] = tools[i].ID()
	}
	return out
}

var localIDs = []string{
	"json:query", "math:eval",
	"text:case", "text:decode", "text:encode", "text:hash", "text:replace", "text:stats",
	"time:add", "time:convert", "time:diff", "time:now",
}

func TestToolsListsTheCatalogueInIDOrder(t *testing.T) {
	tests := []struct {
		name string
		opts []builtin.Option
		want []string
	}{
		{"without allow-list there is no http:fetch", nil, localIDs},
		{"an allow-list adds http:fetch", []builtin.Option{builtin.WithHTTPAllowList("api.example.com")}, append([]string{"http:fetch"}, localIDs...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := builtin.Tools(tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(tools))
		})
	}
}

// describedProperties checks that every property of an object schema, at
// any depth, has a description.
func describedProperties(t *testing.T, where string, schema map[string]any) {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		prop, ok := p.(map[string]any)
		require.True(t, ok, "%s.%s is not an object schema", where, name)
		assert.NotEmpty(t, prop["description"], "%s.%s has no description", where, name)
		describedProperties(t, where+"."+name, prop)
	}
}

func TestEveryToolIsFullyDescribed(t *testing.T) {
	tools, err := builtin.Tools(builtin.WithHTTPAllowList("api.example.com"))
	require.NoError(t, err)
	for _, tool := range tools {
		t.Run(tool.ID(), func(t *testing.T) {
			def := tool.Definition
			require.NoError(t, def.Validate())
			assert.NotEmpty(t, def.Title)
			assert.Greater(t, len(def.Description), 80, "the description is too short to guide a model")
			assert.Equal(t, toolmodel.NormalizeTags(def.Tags), def.Tags)
			assert.NotEmpty(t, def.Tags)
			require.NotNil(t, def.Annotations)
			assert.True(t, def.Annotations.ReadOnlyHint)
			assert.True(t, def.Annotations.IdempotentHint)
			require.NotNil(t, def.Annotations.DestructiveHint)
			assert.False(t, *def.Annotations.DestructiveHint)
			require.NotNil(t, def.Annotations.OpenWorldHint)
			assert.Equal(t, tool.ID() == "http:fetch", *def.Annotations.OpenWorldHint)

			for name, schema := range map[string]any{"inputSchema": def.InputSchema, "outputSchema": def.OutputSchema} {
				raw, err := toolmodel.SchemaJSON(schema)
				require.NoError(t, err, name)
				var obj map[string]any
				require.NoError(t, json.Unmarshal(raw, &obj), name)
				assert.Equal(t, "object", obj["type"], name)
				describedProperties(t, name, obj)
			}

			require.NotEmpty(t, tool.Examples)
			seen := map[string]bool{}
			for _, ex := range tool.Examples {
				assert.False(t, seen[ex.Name], "example %q is listed twice", ex.Name)
				seen[ex.Name] = true
				assert.NotEmpty(t, ex.Description, ex.Name)
			}
			assert.NotNil(t, tool.Func)
			backend := tool.Backend()
			assert.Equal(t, "local:builtin."+tool.ID(), backend.Identity())
		})
	}
}

// exampleServer serves the http:fetch examples: example.com over TLS,
// reached on loopback through the client's dialer.
func exampleServer(t *testing.T) *http.Client {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == "application/json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"hello":"world"}`))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<h1>Example Domain</h1>"))
	}))
	client := srv.Client()
	transport := client.Transport.(*http.Transport).Clone()
	transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}
	client.Transport = transport
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		srv.Close()
	})
	return client
}

func TestEveryExampleRuns(t *testing.T) {
	// The example server is on loopback, under the name example.com.
	h := newHarness(t, builtin.WithHTTPAllowList("internal:example.com"), builtin.WithHTTPClient(exampleServer(t)))
	require.Contains(t, ids(h.tools), "http:fetch")
	for _, tool := range h.tools {
		for _, ex := range tool.Examples {
			t.Run(tool.ID()+"/"+ex.Name, func(t *testing.T) {
				out := h.run(t, tool.ID(), ex.Args)
				assert.NotEmpty(t, out)
			})
		}
	}
}

func TestCatalogueGolden(t *testing.T) {
	tools, err := builtin.Tools(builtin.WithHTTPAllowList("api.example.com", "*.example.org"))
	require.NoError(t, err)
	type entry struct {
		Definition toolmodel.Tool    `json:"definition"`
		Examples   []builtin.Example `json:"examples"`
	}
	entries := make([]entry, len(tools))
	for i, tool := range tools {
		entries[i] = entry{tool.Definition, tool.Examples}
	}
	got, err := json.MarshalIndent(entries, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", "catalogue.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create the golden file")
	assert.Equal(t, string(want), string(got))
}

func TestRegister(t *testing.T) {
	ctx := context.Background()
	tools, err := builtin.Tools()
	require.NoError(t, err)

	t.Run("registers every tool with its own local backend", func(t *testing.T) {
		idx := toolindex.New()
		require.NoError(t, builtin.Register(ctx, idx, toolrun.NewLocalExecutor(), tools))
		page, err := idx.List(ctx, toolindex.ListRequest{Limit: toolindex.MaxPageSize})
		require.NoError(t, err)
		assert.Len(t, page.Items, len(tools))
		_, backends, err := idx.GetAll(ctx, "math:eval")
		require.NoError(t, err)
		require.Len(t, backends, 1)
		assert.Equal(t, "local:builtin.math:eval", backends[0].Identity())
	})

	t.Run("registering again changes nothing", func(t *testing.T) {
		idx := toolindex.New()
		local := toolrun.NewLocalExecutor()
		require.NoError(t, builtin.Register(ctx, idx, local, tools))
		version := idx.Version()
		require.NoError(t, builtin.Register(ctx, idx, local, tools))
		assert.Equal(t, version, idx.Version())
	})

	t.Run("a conflict leaves the index unchanged", func(t *testing.T) {
		idx := toolindex.New()
		other, err := toolmodel.DecodeTool([]byte(`{"namespace":"math","name":"eval","description":"another","inputSchema":{"type":"object"}}`))
		require.NoError(t, err)
		require.NoError(t, idx.Register(ctx, toolindex.Registration{Tool: other, Backend: toolrun.LocalBackendFor("other")}))
		err = builtin.Register(ctx, idx, toolrun.NewLocalExecutor(), tools)
		require.ErrorIs(t, err, errors.ErrConflict)
		_, _, err = idx.GetAll(ctx, "time:now")
		require.ErrorIs(t, err, errors.ErrNotFound)
	})

	bad := []struct {
		name  string
		tools []builtin.Tool
		want  string
	}{
		{"a tool without function", []builtin.Tool{{Definition: tools[0].Definition}}, "has no function"},
		{"a tool listed twice", []builtin.Tool{tools[0], tools[0]}, "listed twice"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			idx := toolindex.New()
			err := builtin.Register(ctx, idx, toolrun.NewLocalExecutor(), tt.tools)
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.want)
			assert.Zero(t, idx.Version())
		})
	}
}

func TestToolsRefusesInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  builtin.Option
		want string
	}{
		{"nil clock", builtin.WithClock(nil), "clock is nil"},
		{"nil client", builtin.WithHTTPClient(nil), "HTTP client is nil"},
		{"zero body cap", builtin.WithHTTPMaxBytes(0), "body cap"},
		{"negative HTTP timeout", builtin.WithHTTPTimeout(-time.Second), "HTTP timeout"},
		{"zero query timeout", builtin.WithQueryTimeout(0), "query timeout"},
		{"URL in allow-list", builtin.WithHTTPAllowList("https://example.com"), `"https://example.com" is a URL`},
		{"bare wildcard", builtin.WithHTTPAllowList("*"), `"*" is not a host name`},
		{"inner wildcard", builtin.WithHTTPAllowList("api.*.example.com"), "is not a host name"},
		{"empty host", builtin.WithHTTPAllowList(""), `"" is not a host name`},
		{"bad port", builtin.WithHTTPAllowList("example.com:http"), `"example.com:http" has port "http"`},
		{"metadata address", builtin.WithHTTPAllowList("169.254.169.254"), "write internal:169.254.169.254 to allow it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := builtin.Tools(tt.opt)
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
