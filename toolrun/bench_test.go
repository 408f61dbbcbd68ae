package toolrun_test

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

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
// validation. Their ratio is the runner's overhead. The other cases add
// what costs extra: a pre-call hook (the arguments are deep-copied for
// hooks), a masker, and a function returning Go types (slices, ints and a
// struct) that are turned into JSON values; or take away the validation
// (dispatch), which leaves the pipeline's own cost.
// discardSpans is an exporter that drops the spans it gets.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

func BenchmarkRun(b *testing.B) {
	noop := toolrun.PreCallFunc(func(context.Context, *toolrun.Call) error { return nil })
	goTypes := func(_ context.Context, args map[string]any) (any, error) {
		return issue{Number: 42, Title: args["title"].(string), Labels: []string{"bug"}}, nil
	}
	cases := []struct {
		name string
		fn   toolrun.LocalFunc
		opts []toolrun.Option
		call toolrun.CallOptions
	}{
		{"local", createIssue, nil, toolrun.CallOptions{}},
		{"local/hook", createIssue, []toolrun.Option{toolrun.WithPreCall(noop)}, toolrun.CallOptions{}},
		{"local/hook+masker", createIssue, []toolrun.Option{toolrun.WithPreCall(noop), toolrun.WithMasker(toolrun.SecretMasker{})}, toolrun.CallOptions{}},
		{"local/go-types", goTypes, nil, toolrun.CallOptions{}},
		{"dispatch", createIssue, nil, toolrun.CallOptions{SkipValidation: true}},
		// Telemetry on: every call sampled, its span batched for an
		// exporter that drops it, its duration in a histogram.
		{"local/telemetry", createIssue, []toolrun.Option{
			toolrun.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))),
			toolrun.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))),
		}, toolrun.CallOptions{}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tool, err := toolmodel.DecodeTool([]byte(benchTool))
			if err != nil {
				b.Fatal(err)
			}
			local := toolrun.NewLocalExecutor()
			local.Register("create_issue", c.fn)
			idx := toolindex.New()
			if err := idx.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("create_issue")}); err != nil {
				b.Fatal(err)
			}
			opts := append([]toolrun.Option{toolrun.WithIndex(idx)}, c.opts...)
			r := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), opts...)
			args := benchArgs()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Run(ctx, "github:create_issue", args, c.call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// issue is a result in Go types, as a function written for Go returns it.
type issue struct {
	Number int      `json:"number"`
	Title  string   `json:"title"`
	Labels []string `json:"labels"`
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
