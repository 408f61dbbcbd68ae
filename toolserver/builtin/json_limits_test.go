package builtin_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver/builtin"
)

// measure runs a json:query call and returns its tool error message, how
// long it took and how many bytes it allocated.
func measure(t *testing.T, h *harness, args map[string]any) (msg string, elapsed time.Duration, allocated uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := h.runner.Run(context.Background(), "json:query", args)
	elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Error(t, res.Err(), "result: %#v", res.Structured)
	return res.ToolError.Err.Error(), elapsed, after.TotalAlloc - before.TotalAlloc
}

// TestJSONQueryBoundsExplosiveOperations runs programs that build huge
// values in a single step, which the time limit cannot stop: each must
// fail at once with an error naming the limit, having allocated little.
func TestJSONQueryBoundsExplosiveOperations(t *testing.T) {
	h := newHarness(t, builtin.WithQueryTimeout(time.Minute))
	tests := []struct {
		name, query, want string
	}{
		{"string repetition", `"x" * 1000000000`, "the string would be 1000000000 bytes long, the limit is"},
		{"repetition, number first", `1000000000 * "x"`, "the string would be 1000000000 bytes long"},
		{"string doubling", `reduce range(40) as $i ("x"; . + .)`, "the string would be"},
		{"tojson of a shared structure", `reduce range(60) as $i ([0]; [., .]) | tojson`, "the limit is"},
		{"comparison of a shared structure", `reduce range(60) as $i ([0]; [., .]) | . == .`, "the limit is"},
		{"interpolation of a shared structure", `reduce range(60) as $i ([0]; [., .]) | "\(.)"`, "the limit is"},
		{"a far array index", `[] | .[400000000] = 1`, "array index 400000000 is beyond the limit"},
		{"a far index by setpath", `null | setpath([400000000]; 1)`, "array index 400000000 is beyond the limit"},
		{"join with a long separator", `[range(10000) | ""] | join("x" * 1000000)`, "the string would be"},
		{"big integer squaring", `reduce range(40) as $i (12345678901234567890; . * .)`, "bits, the limit is"},
		{"a long number from text", `"1" * 200000 | tonumber`, "digits, the limit is"},
		{"split into characters", `"x" * 5000000 | split("")`, "more than 1048576 elements"},
		{"explode", `"x" * 5000000 | explode`, "more than 1048576 elements"},
		{"global regular expression", `"x" * 5000000 | [match(""; "g")] | length`, "matches, the limit is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, elapsed, allocated := measure(t, h, map[string]any{"query": tt.query})
			t.Logf("%s: %s, %d MB allocated: %s", tt.query, elapsed.Round(time.Millisecond), allocated>>20, msg)
			assert.Contains(t, msg, tt.want)
			// Before the checks, the first case took over 27 s and
			// allocated 1.9 GB; the bound on time is loose for slow
			// machines and the race detector.
			assert.Less(t, elapsed, 15*time.Second, "the error comes at once")
			assert.Less(t, allocated, uint64(256<<20), "little memory is allocated")
		})
	}
}

func TestJSONQueryTruncatesAResultTooLargeToEncode(t *testing.T) {
	h := newHarness(t)
	out := h.run(t, "json:query", map[string]any{"query": `1, reduce range(60) as $i ([0]; [., .])`})
	assert.Equal(t, []any{1.0}, out["results"])
	assert.Equal(t, true, out["truncated"])
}
