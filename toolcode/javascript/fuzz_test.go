package javascript_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

// bulkAllocators are the built-ins that allocate a size the program gives
// in one uninterruptible call. goja has no memory cap (see the package
// documentation), so inputs using them are outside what the engine
// promises and would only measure the fuzzing machine's memory.
var bulkAllocators = []string{"repeat", "padStart", "padEnd", "Array", "fill", "from", "alloc", "Buffer", "join"}

// FuzzExecute runs arbitrary programs under tight limits: no input makes
// the host panic, and none gets past a limit.
func FuzzExecute(f *testing.F) {
	progs := reflect.ValueOf(toolcodetest.JavaScriptPrograms)
	for i := range progs.NumField() {
		f.Add(progs.Field(i).String())
	}
	for _, s := range []string{"", "}", "})(); (function(){", "return", "`${", "/*", "await", "tools.run()", "tools.chain([{}])",
		"return tools", "console.log(tools)", "throw tools", "return new Proxy({}, {get(){ throw 1 }})", "debugger;",
		"return {toJSON(){ while(true){} }}", "const a=[]; for(let i=0;i<1e6;i++) a.push(i); return a.length"} {
		f.Add(s)
	}
	limits := toolcode.Limits{ToolCalls: 3, ChainSteps: 2, OutputBytes: 2000, Concurrency: 2, WallTime: 100 * time.Millisecond}
	fixture := toolcodetest.NewFixture(f)
	fixture.Gate.Release()
	x := toolcode.New(fixture.Ops, toolcode.WithEngine(newJS()), toolcode.WithLimits(limits))
	allowed := []errors.Code{errors.InvalidArgument, errors.Execution, errors.Timeout, errors.ResourceExhausted,
		errors.NotFound, errors.Validation, errors.Unavailable}
	f.Fuzz(func(t *testing.T, code string) {
		for _, a := range bulkAllocators {
			if strings.Contains(code, a) {
				return
			}
		}
		start := time.Now()
		res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code})
		elapsed := time.Since(start)
		require.NotNil(t, res)
		assert.Less(t, elapsed, limits.WallTime+time.Second, "wall time escaped")
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
		assert.LessOrEqual(t, len(res.Value)+logged, limits.OutputBytes, "output escaped")
	})
}
