package toolrun_test

import (
	"context"
	"testing"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// benchTool is a realistic tool: ten properties, a nested object, enums
// and patterns.
const benchTool = `{"name":"create_issue","namespace":"github","inputSchema":{
  "type":"object",
  "properties":{
    "owner":{"type":"string","pattern":"^[A-Za-z0-9-]+$"},
    "repo":{"type":"string"},
    "title":{"type":"string","minLength":1},
    "body":{"type":"string"},
    "labels":{"type":"array","items":{"type":"string"}},
    "priority":{"enum":["low","medium","high"]},
    "milestone":{"type":"integer","minimum":1},
    "draft":{"type":"boolean"},
    "assignee":{"type":"string"},
    "meta":{"type":"object","properties":{"source":{"enum":["web","cli"]}}}
  },
  "required":["owner","repo","title"]}}`

func benchArgs() map[string]any {
	return map[string]any{"owner": "metatools-go", "repo": "metatools", "title": "Crash", "labels": []any{"bug"},
		"priority": "high", "milestone": 2.0, "meta": map[string]any{"source": "cli"}}
}

func createIssue(_ context.Context, args map[string]any) (any, error) {
	return map[string]any{"number": 42.0, "title": args["title"]}, nil
}

// BenchmarkRun/local runs a local tool through the whole pipeline;
// BenchmarkDirect/local calls the same function after the same cached
// validation. Their ratio is the runner's overhead.
func BenchmarkRun(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		tool, err := toolmodel.DecodeTool([]byte(benchTool))
		if err != nil {
			b.Fatal(err)
		}
		local := toolrun.NewLocalExecutor()
		local.Register("create_issue", createIssue)
		idx := toolindex.New()
		if err := idx.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("create_issue")}); err != nil {
			b.Fatal(err)
		}
		r := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), toolrun.WithIndex(idx))
		args := benchArgs()
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Run(ctx, "github:create_issue", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDirect(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		tool, err := toolmodel.DecodeTool([]byte(benchTool))
		if err != nil {
			b.Fatal(err)
		}
		v := toolmodel.NewValidator()
		args := benchArgs()
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if err := v.ValidateInput(&tool, args); err != nil {
				b.Fatal(err)
			}
			if _, err := createIssue(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
