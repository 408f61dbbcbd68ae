package javascript

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
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
	language string
	maxStack int
	// transform turns the source into the JavaScript that runs and maps
	// positions back; nil for JavaScript.
	transform func(code string) (js string, m *positionMap, err error)
}

var _ toolcode.Engine = (*Engine)(nil)

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
	e := &Engine{language: LanguageJavaScript, maxStack: DefaultMaxCallStackSize}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Language implements [toolcode.Engine].
func (e *Engine) Language() string { return e.language }

// Execute implements [toolcode.Engine].
func (e *Engine) Execute(ctx context.Context, prog toolcode.Program) (value json.RawMessage, err error) {
	if prog.Tools == nil {
		return nil, errors.Errorf(errors.InvalidArgument, "program has no tools")
	}
	src := wrapPrefix + prog.Code + wrapSuffix
	var pos *positionMap
	if e.transform != nil {
		src, pos, err = e.transform(prog.Code)
		if err != nil {
			return nil, err
		}
	}
	src, insLine, insCol := returnLast(src)
	if insLine > 0 {
		if pos == nil {
			pos = &positionMap{}
		}
		pos.insLine, pos.insCol = insLine, insCol
	}
	compiled, err := goja.Compile(programName, src, false)
	if err != nil {
		return nil, syntaxError(err, pos)
	}
	r := newRun(ctx, e, prog, pos)
	defer r.close()
	return r.execute(compiled)
}

// run is one execution: a runtime and the loop that owns it. Everything
// but the tool calls' goroutines runs on the goroutine of execute.
type run struct {
	ctx    context.Context
	cancel context.CancelFunc
	vm     *goja.Runtime
	prog   toolcode.Program
	pos    *positionMap
	limit  int // concurrent calls
	stack  int // the call-depth bound

	jobs    chan func() error
	stopped chan struct{}
	wg      sync.WaitGroup

	running int    // calls under way (loop goroutine only)
	queued  []call // calls waiting for a slot (loop goroutine only)
	goErrs  map[*goja.Object]error
	mkerr   goja.Callable
	parse   goja.Callable
	strfy   goja.Callable
}

func newRun(ctx context.Context, e *Engine, prog toolcode.Program, pos *positionMap) *run {
	ctx, cancel := context.WithCancel(ctx)
	vm := goja.New()
	vm.SetMaxCallStackSize(e.maxStack)
	limit := prog.Limits.Concurrency
	if limit <= 0 {
		limit = 1
	}
	return &run{
		ctx: ctx, cancel: cancel, vm: vm, prog: prog, pos: pos, limit: limit, stack: e.maxStack,
		jobs: make(chan func() error), stopped: make(chan struct{}),
		goErrs: map[*goja.Object]error{},
	}
}

// close stops the calls under way and waits for their goroutines.
func (r *run) close() {
	r.cancel()
	close(r.stopped)
	r.wg.Wait()
}

func (r *run) execute(compiled *goja.Program) (value json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			value, err = nil, errors.Errorf(errors.Internal, "javascript engine: %v", p)
		}
	}()
	stop := context.AfterFunc(r.ctx, func() { r.vm.Interrupt(r.ctx) })
	defer stop()

	if err := r.install(); err != nil {
		return nil, r.uncatchable(err)
	}
	v, err := r.vm.RunProgram(compiled)
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
		}
	}
	if promise.State() == goja.PromiseStateRejected {
		return nil, r.rejected(promise.Result())
	}
	return r.output(promise.Result())
}

// install defines the globals tools and console.
func (r *run) install() error {
	fnv, err := r.vm.RunProgram(prelude)
	if err != nil {
		return err
	}
	fn, _ := goja.AssertFunction(fnv)
	host := r.vm.NewObject()
	if err := host.Set("call", r.hostCall); err != nil {
		return err
	}
	if err := host.Set("log", r.hostLog); err != nil {
		return err
	}
	envv, err := fn(goja.Undefined(), host)
	if err != nil {
		return err
	}
	env := envv.ToObject(r.vm)
	r.mkerr, _ = goja.AssertFunction(env.Get("mkerr"))
	r.parse, _ = goja.AssertFunction(env.Get("parse"))
	r.strfy, _ = goja.AssertFunction(env.Get("stringify"))
	if err := r.vm.Set("tools", env.Get("tools")); err != nil {
		return err
	}
	return r.vm.Set("console", env.Get("console"))
}

// hostLog is console.log's end: it throws when the output limit is reached.
func (r *run) hostLog(line string) {
	if err := r.prog.Tools.Log(r.ctx, line); err != nil {
		panic(r.jsError(err))
	}
}

// call is a tool call the program made, waiting to start.
type call struct {
	op, payload     string
	resolve, reject func(any) error
}

// hostCall queues a call of the Tools and returns a promise that the loop
// settles when the call ends. The loop starts queued calls once the
// program yields.
func (r *run) hostCall(op, payload string) goja.Value {
	promise, resolve, reject := r.vm.NewPromise()
	r.queued = append(r.queued, call{op: op, payload: payload, resolve: resolve, reject: reject})
	return r.vm.ToValue(promise)
}

// settle resolves or rejects a call's promise with its outcome; it runs
// on the loop, and returns only the runtime's uncatchable errors.
func (r *run) settle(c call, out []byte, err error) error {
	if err != nil {
		return c.reject(r.jsError(err))
	}
	v, perr := r.parse(goja.Undefined(), r.vm.ToValue(string(out)))
	if perr != nil {
		return c.reject(r.jsError(errors.Errorf(errors.Internal, "decode the result of %s: %v", c.op, perr)))
	}
	return c.resolve(v)
}

// pop removes the oldest queued call.
func (r *run) pop() call {
	c := r.queued[0]
	r.queued[0] = call{}
	r.queued = r.queued[1:]
	return c
}

// step makes progress on the calls: a lone call runs right here, on the
// loop, which has nothing else to do (a program awaiting its calls one by
// one then costs no goroutine hand-off); several start on goroutines of
// their own, at most the concurrency limit at once.
func (r *run) step() (ranInline bool, err error) {
	if r.running == 0 && len(r.queued) == 1 {
		c := r.pop()
		out, derr := r.dispatch(c.op, c.payload)
		return true, r.settle(c, out, derr)
	}
	for len(r.queued) > 0 && r.running < r.limit {
		c := r.pop()
		r.running++
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			out, derr := r.dispatch(c.op, c.payload)
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

// dispatch runs one operation of the Tools; payload and result are JSON.
func (r *run) dispatch(op, payload string) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, errors.Errorf(errors.Internal, "tools.%s panicked: %v", op, p)
		}
	}()
	ctx, tools := r.ctx, r.prog.Tools
	var result any
	switch op {
	case "run":
		var a struct {
			ID   string
			Args json.RawMessage
		}
		if err := decodePair(payload, &a.ID, &a.Args); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.run: %v", err)
		}
		var args map[string]any
		if err := json.Unmarshal(a.Args, &args); err != nil || args == nil && string(a.Args) != "null" {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.run(%q): the arguments must be an object", a.ID)
		}
		if args == nil {
			args = map[string]any{}
		}
		result, err = tools.Run(ctx, a.ID, args)
	case "search":
		var q string
		var limit int
		if err := decodePair(payload, &q, &limit); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.search: %v", err)
		}
		result, err = tools.Search(ctx, q, limit)
	case "namespaces":
		result, err = tools.Namespaces(ctx)
	case "describe":
		var id, level string
		if err := decodePair(payload, &id, &level); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.describe: %v", err)
		}
		lvl, perr := tooldocs.ParseDetailLevel(level)
		if perr != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.describe(%q): %v", id, perr)
		}
		result, err = tools.Describe(ctx, id, lvl)
	case "examples":
		var id string
		var limit int
		if err := decodePair(payload, &id, &limit); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.examples: %v", err)
		}
		result, err = tools.Examples(ctx, id, limit)
	case "chain":
		var steps []toolcode.ChainStep
		if err := json.Unmarshal([]byte(payload), &steps); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.chain: the steps must be an array of {toolId, args, usePrevious, previousKey}: %v", err)
		}
		result, err = tools.Chain(ctx, steps)
	default:
		return nil, errors.Errorf(errors.InvalidArgument, "unknown operation %q", op)
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "tools.%s: encode the result: %v", op, err)
	}
	return b, nil
}

// decodePair decodes a JSON array of two values.
func decodePair(payload string, a, b any) error {
	var pair []json.RawMessage
	if err := json.Unmarshal([]byte(payload), &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("malformed call")
	}
	if err := json.Unmarshal(pair[0], a); err != nil {
		return fmt.Errorf("first argument: %w", err)
	}
	if err := json.Unmarshal(pair[1], b); err != nil {
		return fmt.Errorf("second argument: %w", err)
	}
	return nil
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
	v, jerr := r.mkerr(goja.Undefined(), r.vm.ToValue(err.Error()), r.vm.ToValue(string(errors.CodeOf(err))), r.vm.ToValue(toolID))
	if jerr != nil {
		return r.vm.ToValue(err.Error())
	}
	if obj, ok := v.(*goja.Object); ok {
		r.goErrs[obj] = err
	}
	return v
}

// output renders the program's value as JSON.
func (r *run) output(v goja.Value) (json.RawMessage, error) {
	if v == nil || goja.IsUndefined(v) {
		return json.RawMessage("null"), nil
	}
	s, err := r.strfy(goja.Undefined(), v)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, r.ctxError()
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return nil, errors.Errorf(errors.Execution, "the returned value is not JSON: %s", ex.Value().String())
		}
		return nil, r.thrown(err)
	}
	if goja.IsUndefined(s) {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(s.String()), nil
}

// thrown classifies an error out of the runtime: uncatchable ones (the
// interrupt, the stack bound) and exceptions.
func (r *run) thrown(err error) error {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return r.rejected(ex.Value())
	}
	return r.uncatchable(err)
}

func (r *run) uncatchable(err error) error {
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

// rejected turns a value the program threw and did not catch into an error.
func (r *run) rejected(v goja.Value) error {
	if obj, ok := v.(*goja.Object); ok {
		if err, ok := r.goErrs[obj]; ok {
			return err
		}
	}
	msg := "undefined"
	if v != nil {
		msg = safeString(v)
	}
	line, col := 0, 0
	if obj, ok := v.(*goja.Object); ok {
		if stack := obj.Get("stack"); stack != nil && !goja.IsUndefined(stack) {
			line, col = firstPosition(safeString(stack))
		}
	}
	if line > 0 {
		line, col = r.pos.original(line, col)
		e := errors.Errorf(errors.Execution, "uncaught %s (line %d, column %d)", msg, line, col)
		e.Meta = map[string]string{"line": strconv.Itoa(line), "column": strconv.Itoa(col)}
		return e
	}
	return errors.Errorf(errors.Execution, "uncaught %s", msg)
}

func safeString(v goja.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = "(value that cannot be shown)"
		}
	}()
	return v.String()
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
	line, col = pos.original(line, col)
	msg = strings.TrimSpace(msg)
	e := errors.Errorf(errors.InvalidArgument, "syntax error at line %d, column %d: %s", line, col, msg)
	e.Op = "compile"
	e.Meta = map[string]string{"line": strconv.Itoa(line), "column": strconv.Itoa(col)}
	return e
}
