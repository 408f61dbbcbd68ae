package tooldocs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

const benchID = "github:create_issue"

func BenchmarkDescribe(b *testing.B) {
	ctx := context.Background()
	entries := loadEntries(b)
	owned := sampleStore(b)
	resolved := tooldocs.NewStore(tooldocs.WithResolver(newCatalog(entries[0].Tool)))
	require.NoError(b, resolved.Register(ctx, tooldocs.Entry{ToolID: benchID, Examples: entries[0].Examples, Notes: entries[0].Notes}))
	for _, store := range []struct {
		name string
		s    *tooldocs.Store
	}{{"registered", owned}, {"resolved", resolved}} {
		for _, level := range tooldocs.Levels() {
			b.Run(store.name+"/"+level.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := store.s.Describe(ctx, benchID, level); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDescribeScaling shows that describing a tool does not depend on
// how many tools the Store holds.
func BenchmarkDescribeScaling(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{100, 10_000} {
		s := tooldocs.NewStore()
		entries := make([]tooldocs.Entry, n)
		for i := range entries {
			tool := mustTool(b, searchToolJSON)
			tool.Name = fmt.Sprintf("search%d", i)
			entries[i] = tooldocs.Entry{Tool: tool}
		}
		require.NoError(b, s.RegisterMany(ctx, entries))
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Describe(ctx, "docs:search7", tooldocs.LevelSchema); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDescribeWithin(b *testing.B) {
	ctx := context.Background()
	s := sampleStore(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.DescribeWithin(ctx, benchID, 400); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegister(b *testing.B) {
	ctx := context.Background()
	entry := loadEntries(b)[0]
	s := tooldocs.NewStore()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Register(ctx, entry); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeriveSchemaInfo(b *testing.B) {
	entries := loadEntries(b)
	for _, e := range entries[:2] {
		schema, err := toolmodel.SchemaJSON(e.Tool.InputSchema)
		require.NoError(b, err)
		b.Run(e.Tool.ID(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(schema)))
			for b.Loop() {
				if _, err := tooldocs.DeriveSchemaInfo(json.RawMessage(schema)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMarkdown(b *testing.B) {
	s := sampleStore(b)
	for _, level := range tooldocs.Levels() {
		doc, err := s.Describe(context.Background(), benchID, level)
		require.NoError(b, err)
		b.Run(level.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = doc.Markdown()
			}
		})
	}
}

func BenchmarkEstimateTokens(b *testing.B) {
	s := sampleStore(b)
	for _, level := range tooldocs.Levels() {
		doc, err := s.Describe(context.Background(), benchID, level)
		require.NoError(b, err)
		text := doc.Markdown()
		b.Run(level.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_ = tooldocs.EstimateTokens(text)
			}
		})
	}
}

// BenchmarkTypeScript renders the declarations of the 527 livemcp tools,
// and of one of them, and reports what the declarations cost against the
// JSON the model would otherwise read: per tool, the bytes and estimated
// tokens of the declarations (ts-*), of the tools' schemas as compact JSON
// (schema-*), and of the tools as an MCP tools/list shows them: name,
// description and schemas (mcp-*).
func BenchmarkTypeScript(b *testing.B) {
	tools := loadLiveMCP(b)
	var schemaBytes, schemaTokens, mcpBytes, mcpTokens int
	for i := range tools {
		t := &tools[i]
		for _, s := range []any{t.InputSchema, t.OutputSchema} {
			if s == nil {
				continue
			}
			raw, err := toolmodel.SchemaJSON(s)
			require.NoError(b, err)
			schemaBytes += len(raw)
			schemaTokens += tooldocs.EstimateTokens(string(raw))
		}
		raw, err := json.Marshal(t.MCP())
		require.NoError(b, err)
		mcpBytes += len(raw)
		mcpTokens += tooldocs.EstimateTokens(string(raw))
	}
	for _, bc := range []struct {
		name  string
		tools []toolmodel.Tool
		opts  tooldocs.TypeScriptOptions
	}{
		{"tools=527", tools, tooldocs.TypeScriptOptions{}},
		{"tools=527/brief", tools, tooldocs.TypeScriptOptions{Brief: true}},
		{"tools=527/terse", tools, tooldocs.TypeScriptOptions{Brief: true, Terse: true}},
		{"tools=1", tools[1:2], tooldocs.TypeScriptOptions{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			out, err := tooldocs.TypeScript(bc.tools, bc.opts)
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tooldocs.TypeScript(bc.tools, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
			if len(bc.tools) == len(tools) {
				n := float64(len(tools))
				b.ReportMetric(float64(len(out))/n, "ts-bytes/tool")
				b.ReportMetric(float64(tooldocs.EstimateTokens(out))/n, "ts-tokens/tool")
				b.ReportMetric(float64(schemaBytes)/n, "schema-bytes/tool")
				b.ReportMetric(float64(schemaTokens)/n, "schema-tokens/tool")
				b.ReportMetric(float64(mcpBytes)/n, "mcp-bytes/tool")
				b.ReportMetric(float64(mcpTokens)/n, "mcp-tokens/tool")
			}
		})
	}
}
