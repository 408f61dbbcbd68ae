package quickjs_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/quickjs"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

// FuzzExecute runs arbitrary programs under tight limits, a 4 MiB heap
// included: no input makes the host panic, and none gets past a limit.
// Unlike the goja engine's, no built-in is left out: the heap cap bounds
// what one call allocates.
func FuzzExecute(f *testing.F) {
	progs := reflect.ValueOf(toolcodetest.JavaScriptPrograms)
	for i := range progs.NumField() {
		f.Add(progs.Field(i).String())
	}
	for _, s := range []string{"", "}", "})(); (function(){", "return", "`${", "/*", "await", "tools.run()", "tools.chain([{}])",
		"return tools", "console.log(tools)", "throw tools", "throw null", "return new Proxy({}, {get(){ throw 1 }})",
		`"x".repeat(1 << 28)`, "new Array(1e9).fill(1)", "return {toJSON(){ while(true){} }}"} {
		f.Add(s)
	}
	limits := toolcode.Limits{ToolCalls: 3, ChainSteps: 2, OutputBytes: 2000, Concurrency: 2, WallTime: 100 * time.Millisecond}
	fixture := toolcodetest.NewFixture(f)
	fixture.Gate.Release()
	x := toolcode.New(fixture.Ops, toolcode.WithEngine(quickjs.New(quickjs.WithMemoryLimit(4<<20))), toolcode.WithLimits(limits))
	allowed := []errors.Code{errors.InvalidArgument, errors.Execution, errors.Timeout, errors.ResourceExhausted,
		errors.NotFound, errors.Validation, errors.Unavailable}
	f.Fuzz(func(t *testing.T, code string) {
		start := time.Now()
		res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code})
		require.NotNil(t, res)
		assert.Less(t, time.Since(start), limits.WallTime+time.Second, "wall time escaped")
		assert.LessOrEqual(t, len(res.Trace), limits.ToolCalls, "tool calls escaped")
		logged := 0
		for _, l := range res.Logs {
			logged += len(l)
		}
		assert.LessOrEqual(t, logged, limits.OutputBytes, "logs escaped")
		if err != nil {
			assert.Contains(t, allowed, errors.CodeOf(err), err.Error())
			return
		}
		assert.True(t, json.Valid(res.Value), "value %q", res.Value)
	})
}
