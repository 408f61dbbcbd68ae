package toolruntimetest

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
)

// BenchExecutions times one execution of code per iteration of b, each
// after warm (untimed; nil for none) readied the backend, and reports,
// beside the mean, the median and the 90th percentile of the executions
// ("p50-ns", "p90-ns"): a backend's start-up is a latency, whose mean a
// few slow starts on a busy machine would hide.
func BenchExecutions(b *testing.B, x *toolcode.Executor, code string, warm func()) {
	b.Helper()
	ctx := context.Background()
	var took []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if warm != nil {
			b.StopTimer()
			warm()
			b.StartTimer()
		}
		start := time.Now()
		_, err := x.Execute(ctx, toolcode.ExecuteParams{Language: "javascript", Code: code})
		took = append(took, time.Since(start))
		require.NoError(b, err)
	}
	reportPercentiles(b, took, "")
}

// ToolCalls is how many more calls the second program of
// [BenchToolCalls] makes than its first.
const ToolCalls = 50

// BenchToolCalls measures one tool call from a program: each iteration
// runs a program making one call and one making ToolCalls+1, each after
// warm (untimed; nil for none), and reports what the extra calls cost
// each ("ns/call", its median "p50-ns/call"): the start-up and the
// program's own work are the same in both and cancel out.
func BenchToolCalls(b *testing.B, x *toolcode.Executor, warm func()) {
	b.Helper()
	ctx := context.Background()
	program := func(calls int) func() time.Duration {
		code := "let s = 0; for (let i = 0; i < " + strconv.Itoa(calls) + "; i++) { s += (await tools.math.add({a: i, b: 1})).sum } return s"
		return func() time.Duration {
			if warm != nil {
				warm()
			}
			start := time.Now()
			_, err := x.Execute(ctx, toolcode.ExecuteParams{Language: "javascript", Code: code, Limits: toolcode.Limits{ToolCalls: calls}})
			took := time.Since(start)
			require.NoError(b, err)
			return took
		}
	}
	one, many := program(1), program(ToolCalls+1)
	var perCall []time.Duration
	for b.Loop() { // ns/op is the whole iteration: both programs and their warm-ups
		perCall = append(perCall, (many()-one())/ToolCalls)
	}
	var sum time.Duration
	for _, d := range perCall {
		sum += d
	}
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(perCall)), "ns/call")
	reportPercentiles(b, perCall, "/call")
}

// reportPercentiles reports the median and the 90th percentile of took.
func reportPercentiles(b *testing.B, took []time.Duration, unit string) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns"+unit)
	b.ReportMetric(float64(took[len(took)*9/10].Nanoseconds()), "p90-ns"+unit)
}
