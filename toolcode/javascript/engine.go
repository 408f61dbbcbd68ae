package javascript

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/go-sourcemap/sourcemap"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// Languages of the engines of this package.
const (
	LanguageJavaScript = "javascript"
	LanguageTypeScript = "typescript"
)

// DefaultMaxCallStackSize is the default bound on the depth of JavaScript
// calls (see [WithMaxCallStackSize]).
const DefaultMaxCallStackSize = 2048

// Engine runs JavaScript (or TypeScript, see [NewTypeScript]) on goja.
// It is safe for concurrent use: each execution has a runtime of its own.
type Engine struct {
	language   string
	maxStack   int
	maxBuiltin int
	memLimit   int64
	// transform turns the source into the JavaScript that runs and maps
	// positions back; nil for JavaScript.
	transform func(code string) (js string, m *sourcemap.Consumer, err error)
	// cache keeps compiled programs; nil keeps none.
	cache *programCache
	// spares are runtimes made ahead of the executions that take them.
	spares spares
}

var _ toolcode.Preparer = (*Engine)(nil)

// Option configures an [Engine].
type Option func(*Engine)

// WithMaxCallStackSize bounds the depth of calls a program may reach
// (default [DefaultMaxCallStackSize]); deeper recursion fails with code
// [errors.ResourceExhausted]. It keeps runaway recursion from exhausting
// memory: goja's own default is unbounded.
func WithMaxCallStackSize(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.maxStack = n
		}
	}
}

// New returns the JavaScript engine (language "javascript").
func New(opts ...Option) *Engine {
	e := &Engine{
		language: LanguageJavaScript, maxStack: DefaultMaxCallStackSize, maxBuiltin: DefaultMaxBuiltinSize,
		memLimit: DefaultMemoryLimit,
		cache:    newProgramCache(DefaultProgramCacheEntries, DefaultProgramCacheBytes),
		spares:   spares{ready: make(chan *run, DefaultSpareRuntimes)},
	}
	for _, o := range opts {
		o(e)
	}
	e.spares.make = e.newRun
	return e
}

// Language implements [toolcode.Engine].
func (e *Engine) Language() string { return e.language }

// Execute implements [toolcode.Engine].
func (e *Engine) Execute(ctx context.Context, prog toolcode.Program) (value json.RawMessage, err error) {
	if prog.Tools == nil {
		return nil, errors.Errorf(errors.InvalidArgument, "program has no tools")
	}
	c, err := e.compile(prog.Code)
	if err != nil {
		return nil, err
	}
	r, err := e.spares.take()
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "javascript engine: prepare a runtime: %v", err)
	}
	defer r.close()
	return r.execute(ctx, prog, c)
}

// run is one execution: a runtime and the loop that owns it. It is made
// ahead of its program (see [spares]); execute gives it the program.
// Everything but the tool calls' goroutines runs on the goroutine of
// execute.
type run struct {
	ctx        context.Context
	vm         *goja.Runtime
	prog       toolcode.Program
	pos        *positionMap
	limit      int   // concurrent calls
	stack      int   // the call-depth bound
	maxBuiltin int   // the bound of guarded built-ins
	memLimit   int64 // the bound of the heap's growth

	// halted is the limit that stopped the execution (memory), set before
	// the runtime is interrupted.
	halted atomic.Pointer[errors.Error]
	// nativeDepth counts the guards under way that call back into the
	// program (see [run.enterNative]).
	nativeDepth int
	// haltCh is closed with halted set.
	haltCh chan struct{}
	// viewCheck is the runtime's ArrayBuffer.isView.
	viewCheck goja.Callable

	// The calls that run on goroutines of their own, and what they need,
	// made when the first starts: a program that awaits its calls one by
	// one runs them all on the loop and needs none of it.
	callCtx context.Context // ctx, canceled when the execution ends
	cancel  context.CancelFunc
	jobs    chan func() error
	stopped chan struct{}
	wg      sync.WaitGroup

	running int    // calls under way (loop goroutine only)
	queued  []call // calls waiting for a slot (loop goroutine only)
	goErrs  map[*goja.Object]error

	namespaces  map[string]goja.Value // the objects of tools.<namespace>
	logFn       goja.Value            // console.log, once made
	toPrimitive goja.Value            // Symbol.toPrimitive of the tools' objects, once made
	fnTarget    *goja.Object          // the target of every function of the tools
	jsonFns     map[string]goja.Callable
	errorCtor   goja.Value
	// objectProto is the runtime's Object.prototype, looked up when a
	// value is first shown (see show.go).
	objectProto *goja.Object
}

// newRun makes a runtime ready for any program: the stack bound set, the
// tools and console installed, and the built-ins every program needs
// built.
func (e *Engine) newRun() (*run, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(e.maxStack)
	r := &run{vm: vm, stack: e.maxStack, maxBuiltin: e.maxBuiltin, memLimit: e.memLimit, haltCh: make(chan struct{})}
	if err := r.install(); err != nil {
		return nil, err
	}
	if err := r.guardBuiltins(); err != nil {
		return nil, err
	}
	target, err := vm.RunProgram(warmUp)
	if err != nil {
		return nil, err
	}
	fn, ok := target.(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("the warm-up program returned %v, not a function", target)
	}
	r.fnTarget = fn
	return r, nil
}

// warmUp is what a runtime runs before its program. A call of an async
// function (every program is one) builds the Promise machinery, a third
// of what goja builds on first use for any program. Its value is the
// target of the tools' functions: an arrow function, callable, with no
// property a proxy must report as it is, and made without the lookup of
// Go code by which goja names a native function.
var warmUp = goja.MustCompile("warmup.js", "(async function () {})(); (() => {})", false)

// halt stops the execution for the limit err: the runtime is
// interrupted, and the loop stops waiting for calls.
func (r *run) halt(err *errors.Error) {
	if r.halted.CompareAndSwap(nil, err) {
		close(r.haltCh)
		r.vm.Interrupt(err)
	}
}

// close stops the calls under way and waits for their goroutines.
func (r *run) close() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	close(r.stopped)
	r.wg.Wait()
}

func (r *run) execute(ctx context.Context, prog toolcode.Program, c *compiled) (value json.RawMessage, err error) {
	r.ctx, r.prog, r.pos = ctx, prog, c.pos
	r.limit = max(prog.Limits.Concurrency, 1)
	defer func() {
		if p := recover(); p != nil {
			value, err = nil, errors.Errorf(errors.Internal, "javascript engine: %v", p)
		}
	}()
	stop := context.AfterFunc(r.ctx, func() { r.vm.Interrupt(r.ctx) })
	defer stop()
	defer r.watchMemory()()

	v, err := r.vm.RunProgram(c.prog)
	if err != nil {
		return nil, r.thrown(err)
	}
	promise, ok := v.Export().(*goja.Promise)
	if !ok {
		return nil, errors.Errorf(errors.InvalidArgument, "the program closes the async function that wraps it (unbalanced braces)")
	}
	for promise.State() == goja.PromiseStatePending {
		inline, err := r.step()
		if err != nil {
			return nil, r.thrown(err)
		}
		if inline {
			if h := r.halted.Load(); h != nil {
				return nil, h
			}
			if r.ctx.Err() != nil {
				return nil, r.ctxError()
			}
			continue
		}
		if r.running == 0 {
			return nil, errors.Errorf(errors.Execution, "the program awaits a promise that nothing settles")
		}
		select {
		case job := <-r.jobs:
			if err := job(); err != nil {
				return nil, r.thrown(err)
			}
		case <-r.ctx.Done():
			return nil, r.ctxError()
		case <-r.haltCh:
			return nil, r.halted.Load()
		}
	}
	if promise.State() == goja.PromiseStateRejected {
		return nil, r.rejected(promise.Result())
	}
	return r.output(promise.Result())
}

// call is a call of a function of the tools the program made, waiting to
// start: the function (empty for a tool's own, which runs tool), the
// number of arguments and the first two, already converted from the
// program's values (see toolcode.Dispatch). They are held in place rather
// than in a slice, so that queuing a call allocates nothing of its own.
type call struct {
	fn, tool        string
	n               int
	argv            [2]any
	resolve, reject func(any) error
}

// hostCall queues a call of the Tools and returns a promise that the loop
// settles when the call ends. The loop starts queued calls once the
// program yields.
//
// A program that calls in a loop without yielding would queue without
// bound: once more calls wait than the program may make, the waiting
// calls are made here, in order, so that the Tools refuse those past the
// budget and end the execution (toolcode.Tools).
func (r *run) hostCall(c call) goja.Value {
	promise, resolve, reject := r.vm.NewPromise()
	c.resolve, c.reject = resolve, reject
	r.queued = append(r.queued, c)
	if len(r.queued) > r.prog.Limits.ToolCalls {
		for len(r.queued) > 0 && r.ctx.Err() == nil {
			c := r.pop()
			out, err := r.dispatch(r.ctx, c)
			if r.settle(c, out, err) != nil {
				// The runtime is being interrupted: the execution ends.
				break
			}
		}
	}
	return r.vm.ToValue(promise)
}

// settle resolves or rejects a call's promise with its outcome; it runs
// on the loop, and returns only the runtime's uncatchable errors.
func (r *run) settle(c call, out any, err error) error {
	if err != nil {
		return c.reject(r.jsError(err))
	}
	v, cerr := r.toJS(out)
	if cerr != nil {
		var ex *goja.Exception
		if !errors.As(cerr, &ex) && r.ctx.Err() != nil {
			return cerr
		}
		return c.reject(r.jsError(errors.Errorf(errors.Internal, "tools.%s: encode the result: %v", cmp.Or(c.fn, "run"), cerr)))
	}
	return c.resolve(v)
}

// pop removes the oldest queued call.
func (r *run) pop() call {
	c := r.queued[0]
	r.queued[0] = call{}
	if len(r.queued) == 1 {
		// Emptied: the next call reuses the array rather than allocating
		// one, so that a program awaiting its calls one by one queues
		// them without allocating.
		r.queued = r.queued[:0]
	} else {
		r.queued = r.queued[1:]
	}
	return c
}

// step makes progress on the calls: a lone call runs right here, on the
// loop, which has nothing else to do (a program awaiting its calls one by
// one then costs no goroutine hand-off); several start on goroutines of
// their own, at most the concurrency limit at once.
func (r *run) step() (ranInline bool, err error) {
	if r.running == 0 && len(r.queued) == 1 {
		c := r.pop()
		out, derr := r.dispatch(r.ctx, c)
		return true, r.settle(c, out, derr)
	}
	if r.cancel == nil && len(r.queued) > 0 {
		r.callCtx, r.cancel = context.WithCancel(r.ctx)
		r.jobs, r.stopped = make(chan func() error), make(chan struct{})
	}
	for len(r.queued) > 0 && r.running < r.limit {
		c := r.pop()
		r.running++
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			out, derr := r.dispatch(r.callCtx, c)
			r.post(func() error {
				r.running--
				return r.settle(c, out, derr)
			})
		}()
	}
	return false, nil
}

// post hands a job to the loop, unless the execution is over.
func (r *run) post(job func() error) {
	select {
	case r.jobs <- job:
	case <-r.stopped:
	}
}

// dispatch runs one call on the Tools and returns its result.
func (r *run) dispatch(ctx context.Context, c call) (any, error) {
	args := c.argv[:min(c.n, len(c.argv))]
	if c.n > len(c.argv) {
		// Too many arguments: Dispatch only counts those past the second.
		args = make([]any, c.n)
		copy(args, c.argv[:])
		for i := len(c.argv); i < c.n; i++ {
			args[i] = toolcode.Undefined{}
		}
	}
	return toolcode.Dispatch(ctx, r.prog.Tools, c.fn, c.tool, args)
}

// jsError returns a JavaScript Error for err, with its code (and tool), and
// remembers err so that, if the program does not catch it, the execution
// fails with err itself.
func (r *run) jsError(err error) goja.Value {
	var toolID string
	var e *errors.Error
	if errors.As(err, &e) {
		toolID = e.ToolID
	}
	v, jerr := r.newError(err.Error(), string(errors.CodeOf(err)), toolID)
	if jerr != nil {
		return r.vm.ToValue(err.Error())
	}
	r.remember(v, err)
	return v
}

// remember makes err the execution's error if the program does not catch
// v.
func (r *run) remember(v goja.Value, err error) {
	if obj, ok := v.(*goja.Object); ok {
		if r.goErrs == nil {
			r.goErrs = map[*goja.Object]error{}
		}
		r.goErrs[obj] = err
	}
}

// throwError returns an error of the runtime's constructor ctor (the
// program's own if it replaced it, Error if that is no constructor), with
// err's code, to throw in the program; uncaught, the execution fails with
// err.
func (r *run) throwError(ctor, msg string, err error) goja.Value {
	c, ok := r.vm.Get(ctor).(*goja.Object)
	if _, isFn := goja.AssertConstructor(c); !ok || !isFn {
		return r.jsError(err)
	}
	obj, nerr := r.vm.New(c, r.vm.ToValue(msg))
	if nerr != nil {
		return r.jsError(err)
	}
	if serr := obj.Set("code", string(errors.CodeOf(err))); serr != nil {
		return r.jsError(err)
	}
	r.remember(obj, err)
	return obj
}

// output renders the program's value as JSON: a number, boolean or null
// directly, anything else with JSON.stringify.
func (r *run) output(v goja.Value) (json.RawMessage, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return json.RawMessage("null"), nil
	}
	if _, isObj := v.(*goja.Object); !isObj && !goja.IsString(v) {
		switch x := v.Export().(type) {
		case bool:
			return json.RawMessage(strconv.FormatBool(x)), nil
		case int64:
			return json.RawMessage(strconv.FormatInt(x, 10)), nil
		}
	}
	s, ok, err := r.stringify(v)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, r.ctxError()
		}
		if h := r.halted.Load(); h != nil {
			return nil, h
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			if obj, ok := ex.Value().(*goja.Object); ok && r.goErrs[obj] != nil && toolcode.LimitOf(r.goErrs[obj]) != "" {
				// A guard's limit, reached while converting the value.
				return nil, r.goErrs[obj]
			}
			return nil, errors.Errorf(errors.Execution, "the returned value is not JSON: %s", r.shownValue(ex.Value()))
		}
		if errors.CodeOf(err) == errors.Execution {
			return nil, err
		}
		return nil, r.thrown(err)
	}
	if !ok {
		return json.RawMessage("null"), nil
	}
	// A program may have replaced JSON.stringify: what leaves the engine
	// is JSON all the same.
	if !json.Valid([]byte(s)) {
		return nil, errors.Errorf(errors.Execution, "the returned value is not JSON: JSON.stringify returned %.40q", s)
	}
	return json.RawMessage(s), nil
}

// newError makes an Error of the runtime, with the code and tool of a
// failed call.
func (r *run) newError(msg, code, toolID string) (goja.Value, error) {
	if r.errorCtor == nil {
		// Looked up at the first failure: a program that replaced the
		// global Error gets its own errors, as a throw of its own would.
		r.errorCtor = r.vm.Get("Error")
	}
	ctor, ok := r.errorCtor.(*goja.Object)
	if !ok {
		return nil, errors.Errorf(errors.Internal, "no Error constructor")
	}
	obj, err := r.vm.New(ctor, r.vm.ToValue(msg))
	if err != nil {
		return nil, err
	}
	if err := obj.Set("code", code); err != nil {
		return nil, err
	}
	if toolID != "" {
		if err := obj.Set("toolId", toolID); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// thrown classifies an error out of the runtime: uncatchable ones (the
// interrupt, the stack bound) and exceptions.
func (r *run) thrown(err error) error {
	if h := r.halted.Load(); h != nil {
		return h
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return r.rejected(ex.Value())
	}
	return r.uncatchable(err)
}

func (r *run) uncatchable(err error) error {
	if h := r.halted.Load(); h != nil {
		return h
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.stack))
	}
	var intr *goja.InterruptedError
	if errors.As(err, &intr) || r.ctx.Err() != nil {
		return r.ctxError()
	}
	return errors.Errorf(errors.Internal, "javascript engine: %v", err)
}

// ctxError is the error of an execution stopped by its context: the
// cause the executor gave it (the wall-time limit) or the context's own.
func (r *run) ctxError() error {
	if cause := context.Cause(r.ctx); cause != nil && errors.CodeOf(cause) != errors.Canceled && errors.CodeOf(cause) != errors.Internal {
		return cause
	}
	return errors.FromContext(r.ctx, "javascript.Execute", nil)
}

// rejected turns a value the program threw and did not catch into an
// error, at the line of the value's stack when it has one (an Error).
func (r *run) rejected(v goja.Value) error {
	obj, isObj := v.(*goja.Object)
	if isObj {
		if err, ok := r.goErrs[obj]; ok {
			return err
		}
	}
	msg := r.shownValue(v)
	line, col := 0, 0
	if isObj {
		line, col = firstPosition(r.stackOf(obj))
	}
	if line > 0 {
		line, col, _ = r.pos.original(line, col)
		e := errors.Errorf(errors.Execution, "uncaught %s (line %d, column %d)", msg, line, col)
		e.Meta = map[string]string{"line": strconv.Itoa(line), "column": strconv.Itoa(col)}
		return e
	}
	return errors.Errorf(errors.Execution, "uncaught %s", msg)
}

// stackOf is the stack an object carries, or "": a getter of its own, or
// a proxy's trap, may throw.
func (r *run) stackOf(obj *goja.Object) (stack string) {
	defer func() {
		if recover() != nil {
			stack = ""
		}
	}()
	if ex := r.vm.Try(func() {
		if s := obj.Get("stack"); s != nil && goja.IsString(s) {
			stack = s.String()
		}
	}); ex != nil {
		return ""
	}
	return stack
}

var stackPosition = regexp.MustCompile(regexp.QuoteMeta(programName) + `:(\d+):(\d+)`)

// firstPosition finds the program's innermost position in a stack trace.
func firstPosition(stack string) (line, col int) {
	m := stackPosition.FindStringSubmatch(stack)
	if m == nil {
		return 0, 0
	}
	line, _ = strconv.Atoi(m[1])
	col, _ = strconv.Atoi(m[2])
	return line, col
}

var parserPosition = regexp.MustCompile(`Line (\d+):(\d+) (.*)`)

// syntaxError reports a program that does not compile, at its position.
func syntaxError(err error, pos *positionMap) error {
	line, col, msg := 0, 0, err.Error()
	var list parser.ErrorList
	var one *parser.Error
	var se *goja.CompilerSyntaxError
	var re *goja.CompilerReferenceError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		line, col, msg = list[0].Position.Line, list[0].Position.Column, list[0].Message
	case errors.As(err, &one):
		line, col, msg = one.Position.Line, one.Position.Column, one.Message
	case errors.As(err, &se) && se.File != nil:
		p := se.File.Position(se.Offset)
		line, col, msg = p.Line, p.Column, se.Message
	case errors.As(err, &re) && re.File != nil:
		p := re.File.Position(re.Offset)
		line, col, msg = p.Line, p.Column, re.Message
	}
	if m := parserPosition.FindStringSubmatch(msg); m != nil {
		// goja folds the parser's errors into a message: "program.js:
		// Line 2:7 Unexpected token = (and 2 more errors)".
		line, _ = strconv.Atoi(m[1])
		col, _ = strconv.Atoi(m[2])
		msg = m[3]
	}
	return pos.syntaxError(line, col, msg)
}
