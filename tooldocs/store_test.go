package tooldocs_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestDescribeLevels(t *testing.T) {
	s := sampleStore(t)
	ctx := t.Context()

	summary, err := s.Describe(ctx, "github:create_issue", tooldocs.LevelSummary)
	require.NoError(t, err)
	assert.Equal(t, tooldocs.Doc{
		Level:     tooldocs.LevelSummary,
		ID:        "github:create_issue",
		Namespace: "github",
		Name:      "create_issue",
		Title:     "Create issue",
		Summary:   "Create a new issue in a GitHub repository.",
		Tags:      []string{"github", "issues", "write"},
	}, summary)

	schema, err := s.Describe(ctx, "github:create_issue", tooldocs.LevelSchema)
	require.NoError(t, err)
	assert.Equal(t, tooldocs.LevelSchema, schema.Level)
	assert.Equal(t, summary.Summary, schema.Summary)
	require.NotNil(t, schema.Input)
	assert.Equal(t, []string{"owner", "repo", "title"}, schema.Input.Required)
	require.NotNil(t, schema.Output)
	assert.Equal(t, []string{"number", "url"}, schema.Output.Required)
	assert.True(t, json.Valid(schema.InputSchema))
	assert.True(t, json.Valid(schema.OutputSchema))
	assert.Empty(t, schema.Description)
	assert.Empty(t, schema.Examples)
	assert.Empty(t, schema.Source)

	full, err := s.Describe(ctx, "github:create_issue", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Equal(t, schema.Input, full.Input)
	assert.Contains(t, full.Description, "subscribers are notified")
	require.Len(t, full.Examples, 2)
	assert.Equal(t, "bug report", full.Examples[0].Name)
	assert.Equal(t, []any{"bug"}, full.Examples[0].Args["labels"])
	assert.Len(t, full.Notes, 2)
	assert.Equal(t, []tooldocs.ExternalRef{{Title: "REST API: issues", URL: "https://docs.github.com/en/rest/issues/issues#create-an-issue"}}, full.Refs)
	assert.Equal(t, &tooldocs.Annotations{Destructive: false, OpenWorld: true}, full.Annotations)
	assert.Equal(t, "2.1.0", full.Version)
	assert.Equal(t, "mcp:github", full.Source)
}

func TestDescribeTitleAndAnnotations(t *testing.T) {
	s := sampleStore(t)
	weather, err := s.Describe(t.Context(), "weather", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Empty(t, weather.Namespace)
	assert.Equal(t, "Current weather", weather.Title, "the annotations' title stands in for a missing title")
	assert.Equal(t, "Get the current weather for a city!", weather.Summary)
	assert.Equal(t, &tooldocs.Annotations{ReadOnly: true, Destructive: true, OpenWorld: true}, weather.Annotations,
		"undeclared hints take the MCP defaults")

	bare, err := s.Describe(t.Context(), "fs:read_file", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Nil(t, bare.Annotations)
	assert.Empty(t, bare.Summary)
	assert.Nil(t, bare.Output)
	assert.Nil(t, bare.OutputSchema)
}

func TestDescribeErrors(t *testing.T) {
	s := sampleStore(t)
	tests := []struct {
		name  string
		id    string
		level tooldocs.DetailLevel
		want  error
	}{
		{"unknown tool", "github:delete_repo", tooldocs.LevelSummary, errors.ErrNotFound},
		{"malformed ID", "github:bad id", tooldocs.LevelSummary, errors.ErrInvalidArgument},
		{"empty ID", "", tooldocs.LevelSummary, errors.ErrInvalidArgument},
		{"undefined level", "weather", tooldocs.DetailLevel(9), errors.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Describe(t.Context(), tt.id, tt.level)
			require.ErrorIs(t, err, tt.want)
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "tooldocs.Describe", e.Op)
			assert.Equal(t, tt.id, e.ToolID)
		})
	}
}

func TestRegisterRejectsBadEntries(t *testing.T) {
	search := mustTool(t, searchToolJSON)
	tests := []struct {
		name    string
		entry   tooldocs.Entry
		code    errors.Code
		message string
	}{
		{
			name:    "example args missing a required property",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: "no query", Args: map[string]any{"limit": 3}}}},
			code:    errors.Validation,
			message: `example "no query": args: /query: required property is missing`,
		},
		{
			name:    "example args of the wrong type",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: "ok", Args: map[string]any{"query": "x"}}, {Name: "typed", Args: map[string]any{"query": 5}}}},
			code:    errors.Validation,
			message: `example "typed": args:`,
		},
		{
			name:    "example args breaking a constraint",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: "zero", Args: map[string]any{"query": "x", "limit": 0}}}},
			code:    errors.Validation,
			message: `example "zero": args: /limit`,
		},
		{
			name:    "example result against the output schema",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: "bad result", Args: map[string]any{"query": "x"}, Result: map[string]any{"hits": "one"}}}},
			code:    errors.Validation,
			message: `example "bad result": result:`,
		},
		{
			name:    "example without a name",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: " ", Args: map[string]any{"query": "x"}}}},
			code:    errors.InvalidArgument,
			message: "examples[0]: name is empty",
		},
		{
			name:    "two examples with one name",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: "a", Args: map[string]any{"query": "x"}}, {Name: "a ", Args: map[string]any{"query": "y"}}}},
			code:    errors.InvalidArgument,
			message: `examples[1]: name "a" is used twice`,
		},
		{
			name:    "example args that do not marshal",
			entry:   tooldocs.Entry{Tool: search, Examples: []tooldocs.Example{{Name: "chan", Args: map[string]any{"query": make(chan int)}}}},
			code:    errors.InvalidArgument,
			message: `example "chan": args:`,
		},
		{
			name:    "reference without a URL",
			entry:   tooldocs.Entry{Tool: search, Refs: []tooldocs.ExternalRef{{Title: "Docs"}}},
			code:    errors.InvalidArgument,
			message: "refs[0]: URL is empty",
		},
		{
			name:    "relative reference",
			entry:   tooldocs.Entry{Tool: search, Refs: []tooldocs.ExternalRef{{URL: "https://ok.example"}, {URL: "/docs/search"}}},
			code:    errors.InvalidArgument,
			message: "refs[1]: URL \"/docs/search\": scheme must be http or https",
		},
		{
			name:    "reference with another scheme",
			entry:   tooldocs.Entry{Tool: search, Refs: []tooldocs.ExternalRef{{URL: "javascript:alert(1)"}}},
			code:    errors.InvalidArgument,
			message: "scheme must be http or https",
		},
		{
			name:    "reference without a host",
			entry:   tooldocs.Entry{Tool: search, Refs: []tooldocs.ExternalRef{{URL: "https:///path"}}},
			code:    errors.InvalidArgument,
			message: "no host",
		},
		{
			name:    "reference that does not parse",
			entry:   tooldocs.Entry{Tool: search, Refs: []tooldocs.ExternalRef{{URL: "https://exa mple.com/%zz"}}},
			code:    errors.InvalidArgument,
			message: "refs[0]",
		},
		{
			name:    "multi-line reference title",
			entry:   tooldocs.Entry{Tool: search, Refs: []tooldocs.ExternalRef{{Title: "a\nb", URL: "https://example.com"}}},
			code:    errors.InvalidArgument,
			message: "must be a single line",
		},
		{
			name:    "multi-line source",
			entry:   tooldocs.Entry{Tool: search, Source: "manual\nevil"},
			code:    errors.InvalidArgument,
			message: "source",
		},
		{
			name:    "ToolID that contradicts the tool",
			entry:   tooldocs.Entry{ToolID: "docs:find", Tool: search},
			code:    errors.InvalidArgument,
			message: `ToolID "docs:find" does not match the tool's ID "docs:search"`,
		},
		{
			name:    "invalid tool definition",
			entry:   tooldocs.Entry{Tool: &toolmodel.Tool{}},
			code:    errors.InvalidArgument,
			message: "invalid tool definition",
		},
		{
			name:    "malformed ToolID",
			entry:   tooldocs.Entry{ToolID: "docs:"},
			code:    errors.InvalidArgument,
			message: `tool ID "docs:"`,
		},
		{
			name:    "no tool and no resolver",
			entry:   tooldocs.Entry{ToolID: "docs:search"},
			code:    errors.InvalidArgument,
			message: "the entry has no Tool, and the store has no resolver",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tooldocs.NewStore()
			err := s.Register(t.Context(), tt.entry)
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err), "%v", err)
			assert.Contains(t, err.Error(), tt.message)
			assert.Contains(t, err.Error(), "tooldocs.Register")
			assert.Zero(t, s.Len(), "a rejected entry is not stored")
		})
	}
}

func TestRegisterNormalizes(t *testing.T) {
	type args struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	var asMap map[string]any
	raw, err := json.Marshal(args{Query: "go", Limit: 2})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &asMap))

	s := tooldocs.NewStore()
	require.NoError(t, s.Register(t.Context(), tooldocs.Entry{
		Tool: mustTool(t, searchToolJSON),
		Examples: []tooldocs.Example{
			{Name: "  typed  ", Description: " Typed values. ", Args: map[string]any{"query": "go", "limit": 2}, Result: struct {
				Hits []string `json:"hits"`
			}{Hits: []string{"a"}}},
		},
		Notes:  []string{"  keep me ", "", "\n\t"},
		Refs:   []tooldocs.ExternalRef{{Title: " Guide ", URL: " https://example.com/guide "}},
		Source: "  manual ",
	}))
	got, err := s.Get("docs:search")
	require.NoError(t, err)
	assert.Equal(t, "docs:search", got.ToolID)
	require.NotNil(t, got.Tool)
	require.Len(t, got.Examples, 1)
	assert.Equal(t, tooldocs.Example{
		Name: "typed", Description: "Typed values.",
		Args:   map[string]any{"query": "go", "limit": float64(2)},
		Result: map[string]any{"hits": []any{"a"}},
	}, got.Examples[0])
	assert.Equal(t, asMap, got.Examples[0].Args)
	assert.Equal(t, []string{"keep me"}, got.Notes)
	assert.Equal(t, []tooldocs.ExternalRef{{Title: "Guide", URL: "https://example.com/guide"}}, got.Refs)
	assert.Equal(t, "manual", got.Source)
}

func TestExampleWithoutArgs(t *testing.T) {
	s := tooldocs.NewStore()
	require.NoError(t, s.Register(t.Context(), tooldocs.Entry{
		Tool:     mustTool(t, `{"name":"ping","inputSchema":{"type":"object"}}`),
		Examples: []tooldocs.Example{{Name: "plain"}},
	}))
	examples, err := s.Examples(t.Context(), "ping", 0)
	require.NoError(t, err)
	assert.Equal(t, []tooldocs.Example{{Name: "plain"}}, examples)
}

func TestRegisterReplacesTheEntryOfAnID(t *testing.T) {
	s := sampleStore(t)
	tool := mustTool(t, searchToolJSON)
	require.NoError(t, s.Register(t.Context(), tooldocs.Entry{Tool: tool, Notes: []string{"first"}, Source: "a"}))
	require.NoError(t, s.Register(t.Context(), tooldocs.Entry{Tool: tool, Notes: []string{"second"}, Source: "b"}))
	doc, err := s.Describe(t.Context(), "docs:search", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Equal(t, []string{"second"}, doc.Notes)
	assert.Equal(t, "b", doc.Source)
	assert.Equal(t, 5, s.Len())
}

func TestRegisterManyIsAtomic(t *testing.T) {
	s := sampleStore(t)
	before := s.List(tooldocs.ListFilter{})
	good := tooldocs.Entry{Tool: mustTool(t, searchToolJSON)}
	bad := tooldocs.Entry{Tool: mustTool(t, `{"name":"other","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`),
		Examples: []tooldocs.Example{{Name: "string n", Args: map[string]any{"n": "one"}}}}

	err := s.RegisterMany(t.Context(), []tooldocs.Entry{good, bad})
	require.ErrorIs(t, err, errors.ErrValidation)
	assert.Contains(t, err.Error(), `tooldocs.RegisterMany: tool "other": entries[1]: example "string n"`)
	assert.Equal(t, before, s.List(tooldocs.ListFilter{}), "nothing of a failed batch is stored")

	err = s.RegisterMany(t.Context(), []tooldocs.Entry{good, {ToolID: "docs:search", Tool: good.Tool}})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "entries[1]: documents the same tool as entries[0]")
	assert.Equal(t, before, s.List(tooldocs.ListFilter{}))

	require.NoError(t, s.RegisterMany(t.Context(), []tooldocs.Entry{good}))
	assert.Contains(t, s.List(tooldocs.ListFilter{}), "docs:search")
	require.NoError(t, s.RegisterMany(t.Context(), nil))
}

func TestRemoveListAndSources(t *testing.T) {
	s := sampleStore(t)
	assert.Equal(t, []string{"fs:read_file", "github:create_issue", "petstore:addPet", "weather"}, s.List(tooldocs.ListFilter{}))
	assert.Equal(t, []string{"github:create_issue"}, s.List(tooldocs.ListFilter{Namespace: "github"}))
	assert.Equal(t, []string{"weather"}, s.List(tooldocs.ListFilter{Source: tooldocs.SourceManual}))
	assert.Equal(t, []string{"fs:read_file"}, s.List(tooldocs.ListFilter{Namespace: "fs", Source: ""}))
	assert.Empty(t, s.List(tooldocs.ListFilter{Namespace: "weather"}), "a name is not a namespace")
	assert.Empty(t, s.List(tooldocs.ListFilter{Namespace: "github", Source: "manual"}))

	require.NoError(t, s.Remove("weather"))
	err := s.Remove("weather")
	require.ErrorIs(t, err, errors.ErrNotFound)
	assert.Contains(t, err.Error(), "tooldocs.Remove")
	_, err = s.Describe(t.Context(), "weather", tooldocs.LevelSummary)
	require.ErrorIs(t, err, errors.ErrNotFound)
	_, err = s.Get("weather")
	require.ErrorIs(t, err, errors.ErrNotFound)

	assert.Equal(t, 1, s.RemoveSource("openapi:petstore.yaml"))
	assert.Zero(t, s.RemoveSource("openapi:petstore.yaml"))
	assert.Equal(t, []string{"fs:read_file", "github:create_issue"}, s.List(tooldocs.ListFilter{}))
	assert.Equal(t, 1, s.RemoveSource(""), "entries without a source are one source")
	assert.Equal(t, 1, s.Len())
}

func TestResolvedTools(t *testing.T) {
	search := mustTool(t, searchToolJSON)
	cat := newCatalog(search, mustTool(t, `{"name":"ping","inputSchema":{"type":"object"}}`))
	s := tooldocs.NewStore(tooldocs.WithResolver(cat))
	ctx := t.Context()

	t.Run("a tool without an entry is described from the resolver", func(t *testing.T) {
		doc, err := s.Describe(ctx, "ping", tooldocs.LevelFull)
		require.NoError(t, err)
		assert.Equal(t, "ping", doc.ID)
		assert.Empty(t, doc.Examples)
		assert.Empty(t, doc.Source)
		examples, err := s.Examples(ctx, "ping", 0)
		require.NoError(t, err)
		assert.Empty(t, examples)
	})

	t.Run("an entry by ID is validated against the resolved definition", func(t *testing.T) {
		err := s.Register(ctx, tooldocs.Entry{ToolID: "docs:search", Examples: []tooldocs.Example{{Name: "bad", Args: map[string]any{}}}})
		require.ErrorIs(t, err, errors.ErrValidation)
		require.NoError(t, s.Register(ctx, tooldocs.Entry{
			ToolID:   "docs:search",
			Examples: []tooldocs.Example{{Name: "go", Args: map[string]any{"query": "goroutines"}}},
			Notes:    []string{"Index rebuilt nightly."},
			Source:   tooldocs.SourceManual,
		}))
		got, err := s.Get("docs:search")
		require.NoError(t, err)
		assert.Nil(t, got.Tool, "the store does not keep a resolved definition")
	})

	t.Run("reads merge the entry with the current definition", func(t *testing.T) {
		updated := mustTool(t, searchToolJSON)
		updated.Description = "Search the documentation, now with fuzzy matching."
		cat.put(updated)
		doc, err := s.Describe(ctx, "docs:search", tooldocs.LevelFull)
		require.NoError(t, err)
		assert.Equal(t, "Search the documentation, now with fuzzy matching.", doc.Summary)
		assert.Equal(t, []string{"Index rebuilt nightly."}, doc.Notes)
		require.Len(t, doc.Examples, 1)
		assert.Equal(t, "manual", doc.Source)
	})

	t.Run("an unknown tool is not found", func(t *testing.T) {
		_, err := s.Describe(ctx, "docs:nope", tooldocs.LevelSummary)
		require.ErrorIs(t, err, errors.ErrNotFound)
		err = s.Register(ctx, tooldocs.Entry{ToolID: "docs:nope"})
		require.ErrorIs(t, err, errors.ErrNotFound)
		_, err = s.Examples(ctx, "docs:nope", 1)
		require.ErrorIs(t, err, errors.ErrNotFound)
	})

	t.Run("the context reaches the resolver", func(t *testing.T) {
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := s.Describe(canceled, "docs:search", tooldocs.LevelSummary)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, errors.Canceled, errors.CodeOf(err))
	})
}

func TestResolverErrors(t *testing.T) {
	t.Run("codes and retryability are kept", func(t *testing.T) {
		down := tooldocs.ToolResolverFunc(func(context.Context, string) (toolmodel.Tool, error) {
			return toolmodel.Tool{}, errors.Errorf(errors.Unavailable, "index is restarting")
		})
		s := tooldocs.NewStore(tooldocs.WithResolver(down))
		_, err := s.Describe(t.Context(), "a:b", tooldocs.LevelSummary)
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.True(t, errors.IsRetryable(err))
		assert.Contains(t, err.Error(), "index is restarting")
	})
	t.Run("a definition of another tool is an internal error", func(t *testing.T) {
		wrong := tooldocs.ToolResolverFunc(func(context.Context, string) (toolmodel.Tool, error) {
			return *mustTool(t, searchToolJSON), nil
		})
		s := tooldocs.NewStore(tooldocs.WithResolver(wrong))
		_, err := s.Describe(t.Context(), "docs:other", tooldocs.LevelSummary)
		require.ErrorIs(t, err, errors.ErrInternal)
		assert.Contains(t, err.Error(), `resolver returned tool "docs:search"`)
	})
	t.Run("a resolved schema that does not decode fails the schema level only", func(t *testing.T) {
		broken := mustTool(t, `{"name":"broken","description":"Has a bad schema.","inputSchema":{"type":"object","properties":{"a":{"type":7}}}}`)
		s := tooldocs.NewStore(tooldocs.WithResolver(newCatalog(broken)))
		doc, err := s.Describe(t.Context(), "broken", tooldocs.LevelSummary)
		require.NoError(t, err)
		assert.Equal(t, "Has a bad schema.", doc.Summary)
		_, err = s.Describe(t.Context(), "broken", tooldocs.LevelSchema)
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "input schema")
	})
}

func TestIndexResolver(t *testing.T) {
	ctx := t.Context()
	idx := toolindex.New()
	var _ tooldocs.IndexReader = toolindex.Index(idx)
	require.NoError(t, idx.Register(ctx, toolindex.Registration{
		Tool:    *mustTool(t, searchToolJSON),
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "search"}},
	}))
	s := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
	require.NoError(t, s.Register(ctx, tooldocs.Entry{
		ToolID:   "docs:search",
		Examples: []tooldocs.Example{{Name: "basic", Args: map[string]any{"query": "context"}}},
	}))
	doc, err := s.Describe(ctx, "docs:search", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Equal(t, "Search the documentation.", doc.Summary)
	assert.Len(t, doc.Examples, 1)

	_, err = s.Describe(ctx, "docs:missing", tooldocs.LevelSummary)
	require.ErrorIs(t, err, errors.ErrNotFound)
}

func TestReadsReturnCopies(t *testing.T) {
	s := sampleStore(t)
	ctx := t.Context()
	const id = "github:create_issue"
	want, err := s.Describe(ctx, id, tooldocs.LevelFull)
	require.NoError(t, err)

	got, err := s.Describe(ctx, id, tooldocs.LevelFull)
	require.NoError(t, err)
	got.Tags[0] = "changed"
	got.InputSchema[0] = '['
	got.OutputSchema[0] = '['
	got.Input.Params[0].Name = "changed"
	got.Input.Params[4].Items.Types[0] = "changed"
	got.Output.Required[0] = "changed"
	got.Examples[0].Args["owner"] = "changed"
	got.Examples[0].Args["labels"].([]any)[0] = "changed"
	got.Examples[0].Result.(map[string]any)["number"] = 0
	got.Notes[0] = "changed"
	got.Refs[0].URL = "changed"
	got.Annotations.ReadOnly = true

	examples, err := s.Examples(ctx, id, 0)
	require.NoError(t, err)
	examples[1].Args["title"] = "changed"

	entry, err := s.Get(id)
	require.NoError(t, err)
	entry.Tool.Tags[0] = "changed"
	entry.Tool.Name = "changed"
	entry.Examples[0].Args["repo"] = "changed"
	entry.Notes[0] = "changed"

	again, err := s.Describe(ctx, id, tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Equal(t, want, again)
	assert.Equal(t, want.Clone(), again)
}

func TestRegisterKeepsCopies(t *testing.T) {
	s := tooldocs.NewStore()
	tool := mustTool(t, searchToolJSON)
	args := map[string]any{"query": "go", "filters": map[string]any{"lang": []any{"en"}}}
	schemaArgs := map[string]any{"query": "x"}
	tool.InputSchema = map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}
	entry := tooldocs.Entry{
		Tool:     tool,
		Examples: []tooldocs.Example{{Name: "a", Args: args}, {Name: "b", Args: schemaArgs}},
		Notes:    []string{"note"},
	}
	require.NoError(t, s.Register(t.Context(), entry))
	before, err := s.Describe(t.Context(), "docs:search", tooldocs.LevelFull)
	require.NoError(t, err)

	args["filters"].(map[string]any)["lang"].([]any)[0] = "fr"
	tool.Tags[0] = "changed"
	tool.InputSchema.(map[string]any)["properties"] = map[string]any{}
	entry.Notes[0] = "changed"
	entry.Examples[1].Name = "changed"

	after, err := s.Describe(t.Context(), "docs:search", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

func TestExamplesLimit(t *testing.T) {
	s := sampleStore(t)
	tests := []struct {
		limit int
		want  []string
	}{
		{0, []string{"bug report", "minimal"}},
		{-1, []string{"bug report", "minimal"}},
		{1, []string{"bug report"}},
		{5, []string{"bug report", "minimal"}},
	}
	for _, tt := range tests {
		examples, err := s.Examples(t.Context(), "github:create_issue", tt.limit)
		require.NoError(t, err)
		names := make([]string, 0, len(examples))
		for _, ex := range examples {
			names = append(names, ex.Name)
		}
		assert.Equal(t, tt.want, names, "limit %d", tt.limit)
	}
	examples, err := s.Examples(t.Context(), "fs:read_file", 0)
	require.NoError(t, err)
	assert.Empty(t, examples)
	_, err = s.Examples(t.Context(), "bad id", 0)
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func TestCostsAndDescribeWithin(t *testing.T) {
	s := sampleStore(t)
	ctx := t.Context()
	const id = "github:create_issue"
	costs, err := s.Costs(ctx, id)
	require.NoError(t, err)
	assert.Less(t, costs.Summary, costs.Schema)
	assert.Less(t, costs.Schema, costs.Full)
	for _, level := range tooldocs.Levels() {
		doc, err := s.Describe(ctx, id, level)
		require.NoError(t, err)
		assert.Equal(t, tooldocs.EstimateTokens(doc.Markdown()), costs.At(level), "level %s", level)
	}
	assert.Zero(t, costs.At(tooldocs.DetailLevel(5)))

	tests := []struct {
		budget int
		want   tooldocs.DetailLevel
	}{
		{costs.Full + 100, tooldocs.LevelFull},
		{costs.Full, tooldocs.LevelFull},
		{costs.Full - 1, tooldocs.LevelSchema},
		{costs.Schema, tooldocs.LevelSchema},
		{costs.Schema - 1, tooldocs.LevelSummary},
		{costs.Summary, tooldocs.LevelSummary},
	}
	for _, tt := range tests {
		doc, err := s.DescribeWithin(ctx, id, tt.budget)
		require.NoError(t, err)
		assert.Equal(t, tt.want, doc.Level, "budget %d", tt.budget)
		want, err := s.Describe(ctx, id, tt.want)
		require.NoError(t, err)
		assert.Equal(t, want, doc)
	}

	_, err = s.DescribeWithin(ctx, id, costs.Summary-1)
	require.ErrorIs(t, err, errors.ErrResourceExhausted)
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, map[string]string{"tokens": itoa(costs.Summary)}, e.Meta)

	_, err = s.Costs(ctx, "nope")
	require.ErrorIs(t, err, errors.ErrNotFound)
	_, err = s.DescribeWithin(ctx, "nope", 100)
	require.ErrorIs(t, err, errors.ErrNotFound)
}

func TestCostsOfResolvedTools(t *testing.T) {
	search := mustTool(t, searchToolJSON)
	cat := newCatalog(search)
	resolved := tooldocs.NewStore(tooldocs.WithResolver(cat))
	owned := tooldocs.NewStore()
	require.NoError(t, owned.Register(t.Context(), tooldocs.Entry{Tool: search}))

	want, err := owned.Costs(t.Context(), "docs:search")
	require.NoError(t, err)
	got, err := resolved.Costs(t.Context(), "docs:search")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	doc, err := resolved.DescribeWithin(t.Context(), "docs:search", got.Schema)
	require.NoError(t, err)
	assert.Equal(t, tooldocs.LevelSchema, doc.Level)
}

func TestOptions(t *testing.T) {
	t.Run("token estimator", func(t *testing.T) {
		bytes := tooldocs.TokenEstimatorFunc(func(s string) int { return len(s) })
		s := sampleStore(t, tooldocs.WithTokenEstimator(bytes))
		costs, err := s.Costs(t.Context(), "weather")
		require.NoError(t, err)
		doc, err := s.Describe(t.Context(), "weather", tooldocs.LevelFull)
		require.NoError(t, err)
		assert.Len(t, doc.Markdown(), costs.Full)
	})
	t.Run("summary length", func(t *testing.T) {
		s := sampleStore(t, tooldocs.WithSummaryLength(20))
		doc, err := s.Describe(t.Context(), "github:create_issue", tooldocs.LevelSummary)
		require.NoError(t, err)
		assert.Equal(t, "Create a new issue…", doc.Summary)

		unlimited := sampleStore(t, tooldocs.WithSummaryLength(0))
		doc, err = unlimited.Describe(t.Context(), "github:create_issue", tooldocs.LevelSummary)
		require.NoError(t, err)
		assert.Equal(t, "Create a new issue in a GitHub repository.", doc.Summary)
	})
	t.Run("validator", func(t *testing.T) {
		refuse := refusingValidator{toolmodel.NewValidator()}
		s := tooldocs.NewStore(tooldocs.WithValidator(refuse), nil)
		err := s.Register(t.Context(), tooldocs.Entry{Tool: mustTool(t, searchToolJSON), Examples: []tooldocs.Example{{Name: "fine", Args: map[string]any{"query": "x"}}}})
		require.ErrorIs(t, err, errors.ErrPermissionDenied)
		assert.Contains(t, err.Error(), `example "fine": args: examples are closed`)
	})
}

// refusingValidator refuses every input, with a code of its own.
type refusingValidator struct{ *toolmodel.Validator }

func (refusingValidator) ValidateInput(*toolmodel.Tool, any) error {
	e := errors.Errorf(errors.PermissionDenied, "examples are closed")
	e.Op = "validate_input"
	return e
}
