package toolrun_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// labKind is the backend kind of demo:boom, served by an executor each
// test chooses.
const labKind toolmodel.BackendKind = "lab"

// boom panics with "<point> exploded" for the tools named boom, and only
// for them: the other calls of a batch run through the same extensions
// and must not notice.
func boom(toolID, point string) {
	if strings.HasSuffix(toolID, ":boom") {
		panic(point + " exploded")
	}
}

// labEcho echoes its arguments. A call with callbacks first gets two
// progress notifications and two chunks, sent from a goroutine of the
// executor's own, as an MCP session sends progress.
var labEcho = toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
	if call.OnProgress != nil || call.OnChunk != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 2 {
				if call.OnProgress != nil {
					call.OnProgress(toolrun.Progress{Progress: float64(i + 1), Total: 2})
				}
				if call.OnChunk != nil {
					call.OnChunk(i)
				}
			}
		}()
		<-done
	}
	return toolrun.Output{Structured: call.Args}, nil
})

// labFailure reports a tool failure, which the maskers are asked about.
var labFailure = toolrun.ExecutorFunc(func(context.Context, *toolrun.Call) (toolrun.Output, error) {
	return toolrun.Output{IsError: true, Structured: "the lab is closed"}, nil
})

// panicFixture is the fixture with demo:boom, a tool with an output
// schema served by exec (labEcho when nil) on a backend of kind lab.
func panicFixture(t *testing.T, exec toolrun.Executor) *fixture {
	t.Helper()
	f := newFixture(t)
	if exec == nil {
		exec = labEcho
	}
	f.registry.Register(labKind, exec)
	tool, err := toolmodel.DecodeTool([]byte(`{"name":"boom","namespace":"demo","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`))
	require.NoError(t, err)
	require.NoError(t, f.index.Register(context.Background(), toolindex.Registration{Tool: tool,
		Backend: toolmodel.ToolBackend{Kind: labKind, Config: map[string]string{"source": "bench"}}}))
	return f
}

// panicIndex is an index whose GetAll panics for the boom tools.
type panicIndex struct{ *toolindex.MemoryIndex }

func (x panicIndex) GetAll(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
	boom(id, "index")
	return x.MemoryIndex.GetAll(ctx, id)
}

// panicHook is an execution hook that panics before or after the call.
type panicHook struct{ before, after bool }

func (h panicHook) BeforeExecution(ctx context.Context, toolID string, _ map[string]any) (context.Context, error) {
	if h.before {
		boom(toolID, "before-execution hook")
	}
	return ctx, nil
}

func (h panicHook) AfterExecution(_ context.Context, toolID string, _ *toolrun.RunResult, _ error) error {
	if h.after {
		boom(toolID, "after-execution hook")
	}
	return nil
}

// panicValidator is the default validator, but for the input or the
// output of the boom tools.
type panicValidator struct {
	toolmodel.SchemaValidator
	input, output bool
}

func (v panicValidator) ValidateInput(tool *toolmodel.Tool, args any) error {
	if v.input {
		boom(tool.ID(), "input validator")
	}
	return v.SchemaValidator.ValidateInput(tool, args)
}

func (v panicValidator) ValidateOutput(tool *toolmodel.Tool, result any) error {
	if v.output {
		boom(tool.ID(), "output validator")
	}
	return v.SchemaValidator.ValidateOutput(tool, result)
}

// panicLimit is a concurrency policy that panics on acquiring or
// releasing a slot for the boom tools.
type panicLimit struct{ acquire, release bool }

func (l panicLimit) Acquire(_ context.Context, call *toolrun.Call) (func(), error) {
	if l.acquire {
		boom(call.ToolID(), "concurrency policy")
	}
	return func() {
		if l.release {
			boom(call.ToolID(), "release")
		}
	}, nil
}

// panicExecutor is an executor of its own type that panics.
type panicExecutor struct{}

func (panicExecutor) Execute(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
	boom(call.ToolID(), "executor")
	return toolrun.Output{}, nil
}

// secretsPanic is an extension whose list of secrets panics.
type secretsPanic struct{ toolrun.BaseExtension }

func (secretsPanic) Secrets(toolID string, _ any) []string {
	boom(toolID, "secret lister")
	return nil
}

// prePanic is an extension whose pre-call method panics.
type prePanic struct{ toolrun.BaseExtension }

func (prePanic) PreCall(_ context.Context, call *toolrun.Call) error {
	boom(call.ToolID(), "extension")
	return nil
}

var noPublisher = toolrun.EventPublisherFunc(func(context.Context, toolrun.Event) {})

// panicCase is a piece of the runner's users' code that panics for
// demo:boom (or lab:boom, which only a resolver knows).
type panicCase struct {
	name string
	// toolID is the tool called; demo:boom when empty.
	toolID string
	// opts are the runner's options, given the fixture.
	opts func(f *fixture) []toolrun.Option
	// exec serves demo:boom; labEcho when nil.
	exec toolrun.Executor
	// call are the options of the call of the tool.
	call toolrun.CallOptions
	// op is the stage of the error; value is the panic value.
	op    string
	value string
	// keepsResult is set for panics once the result is final.
	keepsResult bool
}

func options(opts ...toolrun.Option) func(*fixture) []toolrun.Option {
	return func(*fixture) []toolrun.Option { return opts }
}

func panicCases() []panicCase {
	return []panicCase{
		{name: "index", opts: func(f *fixture) []toolrun.Option {
			return []toolrun.Option{toolrun.WithIndex(panicIndex{f.index})}
		}, op: toolrun.OpResolve, value: "index exploded"},
		{name: "resolver", toolID: "lab:boom", opts: options(toolrun.WithResolver(toolrun.ResolverFunc(
			func(_ context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
				boom(id, "resolver")
				return toolmodel.Tool{}, nil, errors.Errorf(errors.NotFound, "no %s", id)
			}))), op: toolrun.OpResolve, value: "resolver exploded"},
		{name: "selector", opts: options(toolrun.WithSelector(toolrun.BackendSelectorFunc(
			func(ctx context.Context, tool *toolmodel.Tool, backends []toolmodel.ToolBackend, hints []toolrun.SelectHint) (toolmodel.ToolBackend, error) {
				boom(tool.ID(), "selector")
				return toolindex.DefaultSelector{}.Select(ctx, tool, backends, hints)
			}))), op: toolrun.OpSelectBackend, value: "selector exploded"},
		{name: "authorization policy", opts: options(toolrun.WithAuthorization(toolrun.AuthorizationFunc(
			func(_ context.Context, call *toolrun.Call) error { boom(call.ToolID(), "policy"); return nil }))),
			op: toolrun.OpAuthorize, value: "policy exploded"},
		{name: "before-execution hook", opts: options(toolrun.WithHook(panicHook{before: true})),
			op: toolrun.OpBeforeExec, value: "before-execution hook exploded"},
		{name: "pre-call hook", opts: options(toolrun.WithPreCall(toolrun.PreCallFunc(
			func(_ context.Context, call *toolrun.Call) error { boom(call.ToolID(), "pre-call hook"); return nil }))),
			op: toolrun.OpPreCall, value: "pre-call hook exploded"},
		{name: "extension", opts: options(toolrun.WithExtension(prePanic{})), op: toolrun.OpPreCall, value: "extension exploded"},
		{name: "input validator", opts: options(toolrun.WithValidator(panicValidator{SchemaValidator: toolmodel.NewValidator(), input: true})),
			op: toolrun.OpValidateInput, value: "input validator exploded"},
		{name: "masker of the start event", opts: options(toolrun.WithEventPublisher(noPublisher), toolrun.WithMasker(toolrun.ArgumentMaskerFunc(
			func(toolID string, args any) any { boom(toolID, "masker"); return args }))),
			op: toolrun.OpPublish, value: "masker exploded"},
		{name: "publisher of the start event", opts: options(toolrun.WithEventPublisher(toolrun.EventPublisherFunc(
			func(_ context.Context, e toolrun.Event) {
				if e.Kind == toolrun.EventStart {
					boom(e.ToolID, "publisher")
				}
			}))), op: toolrun.OpPublish, value: "publisher exploded"},
		{name: "executor", exec: panicExecutor{}, op: toolrun.OpExecute, value: "executor exploded"},
		{name: "executor func", exec: toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
			return toolrun.Output{Structured: call.Args["missing"].(string)}, nil // a runtime error
		}), op: toolrun.OpExecute, value: "interface conversion"},
		{name: "concurrency policy", opts: options(toolrun.WithConcurrencyPolicy(panicLimit{acquire: true})),
			op: toolrun.OpExecute, value: "concurrency policy exploded"},
		{name: "release of a concurrency slot", opts: options(toolrun.WithConcurrencyPolicy(panicLimit{release: true})),
			op: toolrun.OpExecute, value: "release exploded"},
		{name: "retry policy", exec: toolrun.ExecutorFunc(func(context.Context, *toolrun.Call) (toolrun.Output, error) {
			return toolrun.Output{}, toolrun.MarkNotSent(errors.Errorf(errors.Unavailable, "connection refused"))
		}), opts: options(toolrun.WithRetryPolicy(toolrun.RetryFunc(func(int, error) (time.Duration, bool) {
			panic("retry policy exploded")
		}))), op: toolrun.OpExecute, value: "retry policy exploded"},
		{name: "progress callback", call: toolrun.CallOptions{OnProgress: func(toolrun.Progress) { panic("progress callback exploded") }},
			op: toolrun.OpExecute, value: "progress callback exploded"},
		{name: "chunk callback", call: toolrun.CallOptions{OnChunk: func(any) { panic("chunk callback exploded") }},
			op: toolrun.OpExecute, value: "chunk callback exploded"},
		{name: "masker of a tool failure", exec: labFailure, opts: options(toolrun.WithMasker(toolrun.ArgumentMaskerFunc(
			func(toolID string, args any) any { boom(toolID, "masker"); return args }))),
			op: toolrun.OpExecute, value: "masker exploded"},
		{name: "secret lister", exec: labFailure, opts: options(toolrun.WithExtension(secretsPanic{})),
			op: toolrun.OpExecute, value: "secret lister exploded"},
		{name: "output validator", opts: options(toolrun.WithValidator(panicValidator{SchemaValidator: toolmodel.NewValidator(), output: true})),
			op: toolrun.OpValidateOutput, value: "output validator exploded"},
		{name: "post-call hook", opts: options(toolrun.WithPostCall(toolrun.PostCallFunc(
			func(_ context.Context, call *toolrun.Call, _ *toolrun.RunResult) error {
				boom(call.ToolID(), "post-call hook")
				return nil
			}))),
			op: toolrun.OpPostCall, value: "post-call hook exploded"},
		{name: "after-execution hook", opts: options(toolrun.WithHook(panicHook{after: true})),
			op: toolrun.OpAfterExec, value: "after-execution hook exploded", keepsResult: true},
		{name: "publisher of the result event", opts: options(toolrun.WithEventPublisher(toolrun.EventPublisherFunc(
			func(_ context.Context, e toolrun.Event) {
				if e.Kind == toolrun.EventResult {
					boom(e.ToolID, "publisher")
				}
			}))), op: toolrun.OpPublish, value: "publisher exploded", keepsResult: true},
	}
}

// TestPanicFailsItsCall makes each piece of code the runner is given
// panic for one tool, and checks that the call of that tool fails with
// code internal, naming the stage, the tool and the panic value, whether
// it runs alone, in a batch or as a stream; and that the other calls of a
// batch succeed.
func TestPanicFailsItsCall(t *testing.T) {
	args := map[string]any{"text": "hi"}
	paths := []struct {
		name string
		run  func(t *testing.T, r *toolrun.Runner, tc panicCase) (*toolrun.RunResult, error)
	}{
		{name: "Run", run: func(_ *testing.T, r *toolrun.Runner, tc panicCase) (*toolrun.RunResult, error) {
			return r.Run(context.Background(), tc.toolID, args, tc.call)
		}},
		{name: "RunBatch", run: func(t *testing.T, r *toolrun.Runner, tc panicCase) (*toolrun.RunResult, error) {
			results, err := r.RunBatch(context.Background(), []toolrun.BatchCall{
				{ToolID: "demo:echo", Args: map[string]any{"text": "first"}},
				{ToolID: tc.toolID, Args: args, Options: tc.call},
				{ToolID: "demo:echo", Args: map[string]any{"text": "last"}},
			})
			require.NoError(t, err, "the batch as a whole goes on")
			require.Len(t, results, 3)
			for i, text := range map[int]string{0: "first", 2: "last"} {
				require.NoError(t, results[i].Err, "call %d runs as if nothing happened", i)
				assert.Equal(t, map[string]any{"text": text}, results[i].Result.Structured)
			}
			return results[1].Result, results[1].Err
		}},
		{name: "RunStream", run: func(t *testing.T, r *toolrun.Runner, tc panicCase) (*toolrun.RunResult, error) {
			var last toolrun.StreamEvent
			for ev := range r.RunStream(context.Background(), tc.toolID, args, tc.call) {
				last = ev
			}
			require.Equal(t, toolrun.StreamDone, last.Kind)
			return last.Result, last.Err
		}},
	}
	for _, tc := range panicCases() {
		if tc.toolID == "" {
			tc.toolID = "demo:boom"
		}
		for _, p := range paths {
			t.Run(tc.name+"/"+p.name, func(t *testing.T) {
				f := panicFixture(t, tc.exec)
				var opts []toolrun.Option
				if tc.opts != nil {
					opts = tc.opts(f)
				}
				res, err := p.run(t, f.runner(opts...), tc)
				require.Error(t, err)
				assert.Equal(t, errors.Internal, errors.CodeOf(err), "error: %v", err)
				assert.False(t, errors.IsRetryable(err))
				assert.Equal(t, tc.op, opOf(err))
				assert.Contains(t, err.Error(), `tool "`+tc.toolID+`"`)
				assert.Contains(t, err.Error(), "panic: "+tc.value)
				if tc.keepsResult {
					require.NotNil(t, res, "a panic once the result is final does not take it away")
					assert.Equal(t, args, res.Structured)
					assert.Equal(t, 1, res.Attempts)
				} else {
					assert.Nil(t, res)
				}
			})
		}
	}
}

// counter is an extension that records what the runner tells the
// after-execution hooks and the publishers.
type counter struct {
	toolrun.BaseExtension
	mu      sync.Mutex
	results []*toolrun.RunResult
	errs    []error
	events  []toolrun.Event
}

func (c *counter) AfterExecution(_ context.Context, _ string, result *toolrun.RunResult, err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results, c.errs = append(c.results, result), append(c.errs, err)
	return nil
}

func (c *counter) Publish(_ context.Context, e toolrun.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
}

func TestPanicOnceTheToolRanIsReportedAsSuch(t *testing.T) {
	tests := []struct {
		name string
		// hook panics for demo:boom; it comes before the counter.
		hook        toolrun.Option
		op          string
		keepsResult bool
	}{
		{name: "output validator", hook: toolrun.WithValidator(panicValidator{SchemaValidator: toolmodel.NewValidator(), output: true}),
			op: toolrun.OpValidateOutput},
		{name: "post-call hook", hook: toolrun.WithPostCall(toolrun.PostCallFunc(func(_ context.Context, call *toolrun.Call, res *toolrun.RunResult) error {
			res.Structured = "half rewritten"
			boom(call.ToolID(), "post-call hook")
			return nil
		})), op: toolrun.OpPostCall},
		{name: "after-execution hook", hook: toolrun.WithHook(panicHook{after: true}), op: toolrun.OpAfterExec, keepsResult: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var executions atomic.Int32
			f := panicFixture(t, toolrun.ExecutorFunc(func(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
				executions.Add(1)
				return labEcho(ctx, call)
			}))
			seen := &counter{}
			r := f.runner(tt.hook, toolrun.WithExtension(seen))
			results, err := r.RunBatch(context.Background(), []toolrun.BatchCall{{ToolID: "demo:boom", Args: map[string]any{"n": 1.0}}},
				toolrun.WithBatchMode(toolrun.BatchRetry), toolrun.WithRetryRounds(2))
			require.NoError(t, err)
			require.Len(t, results, 1)
			callErr := results[0].Err
			require.Error(t, callErr)
			assert.Equal(t, tt.op, opOf(callErr), "the stage says that the tool ran")
			assert.Equal(t, int32(1), executions.Load(), "a tool that ran, and is not idempotent, does not run again")

			require.Len(t, seen.errs, 1, "the later after-execution hooks are called")
			require.ErrorIs(t, callErr, seen.errs[0], "they see the panic")
			require.Len(t, seen.events, 2)
			ev := seen.events[1]
			assert.Equal(t, toolrun.EventResult, ev.Kind)
			assert.Equal(t, errors.Internal, errors.CodeOf(ev.Err), "the result event reports the failure")
			assert.Equal(t, 1, ev.Attempts)
			if tt.keepsResult {
				require.NotNil(t, results[0].Result)
				assert.Equal(t, map[string]any{"n": 1.0}, results[0].Result.Structured)
				assert.Same(t, results[0].Result, seen.results[0], "the later hooks see the result too")
			} else {
				assert.Nil(t, results[0].Result, "a result the hooks did not finish is withheld")
				assert.Nil(t, seen.results[0])
			}
		})
	}
}

func TestChainStepWhoseAfterHookPanickedPassesNothingOn(t *testing.T) {
	f := panicFixture(t, nil)
	r := f.runner(toolrun.WithHook(panicHook{after: true}))
	results, err := r.RunChain(context.Background(), []toolrun.ChainStep{
		{ToolID: "demo:boom", Args: map[string]any{"text": "hi"}},
		{ToolID: "demo:echo", UsePrevious: true},
	}, toolrun.ContinueOnError())
	require.Error(t, err)
	require.Len(t, results, 2)
	require.NotNil(t, results[0].Result, "the step's result came back")
	assert.Equal(t, errors.Internal, errors.CodeOf(results[0].Err))
	require.Error(t, results[1].Err)
	assert.Contains(t, results[1].Err.Error(), "asks for the previous result, but there is none")
}

func TestPanickingPublisherKeepsNoOtherFromTheEvents(t *testing.T) {
	var executions atomic.Int32
	f := panicFixture(t, toolrun.ExecutorFunc(func(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
		executions.Add(1)
		return labEcho(ctx, call)
	}))
	seen := &counter{}
	startPanics := toolrun.EventPublisherFunc(func(_ context.Context, e toolrun.Event) {
		if e.Kind == toolrun.EventStart {
			boom(e.ToolID, "publisher")
		}
	})
	res, err := f.runner(toolrun.WithEventPublisher(startPanics), toolrun.WithExtension(seen)).Run(context.Background(), "demo:boom", nil)
	assert.Nil(t, res)
	require.Error(t, err)
	assert.Equal(t, toolrun.OpPublish, opOf(err))
	assert.Zero(t, executions.Load(), "a call whose start event failed does not run")
	require.Len(t, seen.events, 2, "the other publisher gets the start event, and the result event")
	assert.Equal(t, toolrun.EventResult, seen.events[1].Kind)
	require.ErrorIs(t, err, seen.events[1].Err)
	assert.Zero(t, seen.events[1].Attempts)
}

func TestPanickingCallbackIsNotCalledAgain(t *testing.T) {
	f := panicFixture(t, nil)
	var calls atomic.Int32
	_, err := f.runner().Run(context.Background(), "demo:boom", nil, toolrun.CallOptions{OnProgress: func(toolrun.Progress) {
		calls.Add(1)
		panic("progress callback exploded")
	}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "panic: progress callback exploded")
	assert.Equal(t, int32(1), calls.Load(), "labEcho reports progress twice; the callback sees the first only")
}

func TestMaskerPanicWithholdsTheErrorItWasToRedact(t *testing.T) {
	f := panicFixture(t, nil)
	r := f.runner(
		toolrun.WithPreCall(toolrun.PreCallFunc(func(_ context.Context, call *toolrun.Call) error {
			return errors.Errorf(errors.Unauthenticated, "token %v refused", call.Args["token"])
		})),
		toolrun.WithMasker(toolrun.ArgumentMaskerFunc(func(toolID string, args any) any { boom(toolID, "masker"); return args })),
	)
	_, err := r.Run(context.Background(), "demo:boom", map[string]any{"token": "s3cr3t-t0ken"})
	require.Error(t, err)
	assert.Equal(t, errors.Internal, errors.CodeOf(err))
	assert.Equal(t, toolrun.OpPreCall, opOf(err))
	assert.Contains(t, err.Error(), "panic: masker exploded")
	assert.NotContains(t, err.Error(), "s3cr3t", "an error the maskers cannot redact is not shown")
}

func TestAuthorizeTurnsPanicsIntoErrors(t *testing.T) {
	tests := []struct {
		name string
		opt  toolrun.Option
		op   string
	}{
		{name: "policy", opt: toolrun.WithAuthorization(toolrun.AuthorizationFunc(func(_ context.Context, call *toolrun.Call) error {
			boom(call.ToolID(), "policy")
			return nil
		})), op: toolrun.OpAuthorize},
		{name: "selector", opt: toolrun.WithSelector(toolrun.BackendSelectorFunc(
			func(_ context.Context, tool *toolmodel.Tool, _ []toolmodel.ToolBackend, _ []toolrun.SelectHint) (toolmodel.ToolBackend, error) {
				boom(tool.ID(), "selector")
				return toolmodel.ToolBackend{}, nil
			})), op: toolrun.OpSelectBackend},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := panicFixture(t, nil)
			err := f.runner(tt.opt).Authorize(context.Background(), "demo:boom")
			require.Error(t, err)
			assert.Equal(t, errors.Internal, errors.CodeOf(err))
			assert.Equal(t, tt.op, opOf(err))
			assert.Contains(t, err.Error(), `tool "demo:boom"`)
			assert.Contains(t, err.Error(), "panic: "+tt.name+" exploded")
		})
	}
}
