package quickjs

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	qjs "modernc.org/quickjs"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// LanguageJavaScript is the language of the engine unless [WithLanguage]
// names another.
const LanguageJavaScript = "javascript"

// Defaults of an [Engine].
const (
	// DefaultMemoryLimit is the heap an execution may use (see
	// [WithMemoryLimit]).
	DefaultMemoryLimit = 64 << 20
	// DefaultMaxStackSize is the bound on the depth of JavaScript calls
	// (see [WithMaxStackSize]).
	DefaultMaxStackSize = 2048
	// minMemoryLimit is the smallest heap that holds the runtime, its
	// built-ins and the engine's globals with room to run a program.
	minMemoryLimit = 1 << 20
)

// evalAsync is QuickJS's JS_EVAL_FLAG_ASYNC: a global script may await at
// top level, and its evaluation returns a promise of {value: <the value of
// its last statement>}.
const evalAsync = 1 << 7

// Engine runs JavaScript on QuickJS with a hard cap on the memory of each
// execution. It is safe for concurrent use: each execution has a VM of its
// own.
type Engine struct {
	language string
	memory   int
	stack    int
}

var _ toolcode.Engine = (*Engine)(nil)

// Option configures an [Engine].
type Option func(*Engine)

// WithMemoryLimit caps the heap of each execution at bytes (default
// [DefaultMemoryLimit]; values under 1 MiB are raised to 1 MiB, which the
// runtime itself needs). An allocation past the cap fails, and a program
// that does not recover fails with code [errors.ResourceExhausted] and
// limit "memory" ([toolcode.LimitMemory]). bytes <= 0 keeps the default.
func WithMemoryLimit(bytes int) Option {
	return func(e *Engine) {
		if bytes > 0 {
			e.memory = max(bytes, minMemoryLimit)
		}
	}
}

// WithMaxStackSize bounds the depth of calls a program may reach (default
// [DefaultMaxStackSize]); deeper recursion fails with code
// [errors.ResourceExhausted] and limit "stack". n <= 0 keeps the default.
func WithMaxStackSize(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.stack = n
		}
	}
}

// WithLanguage sets the language the engine registers under (default
// "javascript"), so that it can sit in one [toolcode.EngineRegistry] next
// to the goja engine, as "quickjs" say.
func WithLanguage(name string) Option {
	return func(e *Engine) {
		if name != "" {
			e.language = name
		}
	}
}

// New returns the engine.
func New(opts ...Option) *Engine {
	e := &Engine{language: LanguageJavaScript, memory: DefaultMemoryLimit, stack: DefaultMaxStackSize}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Language implements [toolcode.Engine].
func (e *Engine) Language() string { return e.language }

// MemoryLimit returns the heap cap of each execution, in bytes.
func (e *Engine) MemoryLimit() int { return e.memory }

// Execute implements [toolcode.Engine].
func (e *Engine) Execute(ctx context.Context, prog toolcode.Program) (value json.RawMessage, err error) {
	if prog.Tools == nil {
		return nil, errors.Errorf(errors.InvalidArgument, "program has no tools")
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx)
	}
	r := &run{engine: e, prog: prog, limit: max(prog.Limits.Concurrency, 1), errs: map[int]error{}}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.results = make(chan finished, r.limit)
	defer r.close()
	defer func() {
		if p := recover(); p != nil {
			value, err = nil, errors.Errorf(errors.Internal, "quickjs engine: %v", p)
		}
	}()
	return r.execute()
}

// run is one execution: a VM and the loop that drives it. The VM is used
// only on the goroutine of Execute; tool calls run on goroutines of their
// own and hand their outcome back through results.
type run struct {
	engine *Engine
	prog   toolcode.Program
	ctx    context.Context
	cancel context.CancelFunc
	limit  int

	vm      *qjs.VM
	settle  qjs.Value
	watch   qjs.Value
	settled bool // settle and watch hold values to free

	nextID int
	errs   map[int]error // the Go error of each failed call, by call number
	queued []call
	// made are calls made before the loop could start them, to deliver
	// (see hostCall).
	made    []finished
	running int
	results chan finished
	wg      sync.WaitGroup

	done    bool
	outcome outcome
	// wrapped reports a program that runs as the body of a function
	// (wrapPrefix shifts its first line).
	wrapped bool
}

// call is a call of a function of the tools the program made: the
// function (empty for a tool's own, which runs tool), the number of its
// arguments, and the first two as they crossed from the prelude, with
// their kinds (see mt$kind).
type call struct {
	n        int
	fn, tool string
	count    int
	kinds    string
	a0, a1   any
}

// finished is a call's outcome.
type finished struct {
	n   int
	out any
	err error
}

// outcome is how the program's promise ended, as the prelude reports it.
type outcome struct {
	kind              string // "value", "throw" or "notjson"
	text, name, stack string
	callID            int
}

// close frees the VM and waits for the calls still under way, which the
// cancelled context ends.
func (r *run) close() {
	r.cancel()
	r.wg.Wait()
	if r.vm != nil {
		if r.settled {
			r.settle.Free()
			r.watch.Free()
		}
		_ = r.vm.Close()
	}
}

func (r *run) execute() (json.RawMessage, error) {
	vm, err := qjs.NewVM()
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "quickjs: new VM: %v", err)
	}
	r.vm = vm
	vm.SetMemoryLimit(uintptr(r.engine.memory))
	vm.SetMaxStackSize(uintptr(r.engine.stack))
	// Interrupt is lost when it lands between two calls into the VM (each
	// call clears it), so it is repeated until the execution returns; the
	// VM is closed only once the interrupter is gone.
	finishedCh, gone := make(chan struct{}), make(chan struct{})
	stop := context.AfterFunc(r.ctx, func() {
		defer close(gone)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			vm.Interrupt()
			select {
			case <-finishedCh:
				return
			case <-tick.C:
			}
		}
	})
	defer func() {
		close(finishedCh)
		if !stop() {
			<-gone
		}
	}()

	if err := r.install(); err != nil {
		return nil, err
	}
	promise, script, err := r.evalProgram()
	if err != nil {
		return nil, err
	}
	r.wrapped = !script
	_, err = r.watch.Call(qjs.UndefinedValue, promise, script)
	promise.Free()
	if err != nil {
		return nil, r.vmError(err)
	}
	return r.loop()
}

// install registers the host functions and evaluates the prelude.
func (r *run) install() error {
	vm := r.vm
	for name, fn := range map[string]qjs.HostFunc{"__mt_call": r.hostCall, "__mt_log": r.hostLog, "__mt_done": r.hostDone} {
		if err := vm.RegisterHostFunc(name, guard(fn)); err != nil {
			return errors.Errorf(errors.Internal, "quickjs: register %s: %v", name, err)
		}
	}
	bytecode, err := preludeBytecode()
	if err != nil {
		return err
	}
	fns, err := vm.EvalBytecodeValue(bytecode)
	if err != nil {
		return r.vmError(err)
	}
	defer fns.Free()
	for i, dst := range []*qjs.Value{&r.settle, &r.watch} {
		atom, err := vm.NewAtom(strconv.Itoa(i))
		if err != nil {
			return r.vmError(err)
		}
		v, err := fns.GetPropertyValue(atom)
		if err != nil {
			return r.vmError(err)
		}
		*dst = v
	}
	r.settled = true
	return nil
}

// preludeBytecode is the prelude compiled once per process: parsing it
// costs several times as much as creating a VM, running its bytecode a
// fraction of that.
var preludeBytecode = sync.OnceValues(func() ([]byte, error) {
	vm, err := qjs.NewVM()
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "quickjs: new VM: %v", err)
	}
	defer func() { _ = vm.Close() }()
	b, err := vm.Compile(preludeSource(), qjs.EvalGlobal)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "quickjs: compile the prelude: %v", err)
	}
	return b, nil
})

// guard keeps a host function from panicking into the VM, which would
// leave the VM unusable.
func guard(fn qjs.HostFunc) qjs.HostFunc {
	return func(args []any) (out any, err error) {
		defer func() {
			if p := recover(); p != nil {
				out, err = nil, fmt.Errorf("host function panicked: %v", p)
			}
		}()
		return fn(args)
	}
}

// evalProgram starts the program. It is first evaluated as an async
// script, where the value of the last statement is the result; a program
// that returns at top level is not a valid script, and is evaluated again
// as the body of an async function (nothing of the first attempt ran: a
// syntax error stops it before it starts). script reports which form runs.
func (r *run) evalProgram() (promise qjs.Value, script bool, err error) {
	code := r.prog.Code
	v, err := r.vm.EvalValue(code, qjs.EvalGlobal|evalAsync)
	if err == nil {
		return v, true, nil
	}
	var qe *qjs.Error
	if !errors.As(err, &qe) || qe.Name != "SyntaxError" || !strings.Contains(qe.Message, "return not in a function") {
		return qjs.Value{}, false, r.compileError(err, 0)
	}
	v, err = r.vm.EvalValue(wrapPrefix+code+wrapSuffix, qjs.EvalGlobal)
	if err != nil {
		return qjs.Value{}, false, r.compileError(err, len(wrapPrefix))
	}
	return v, false, nil
}

// wrapPrefix and wrapSuffix make a program that returns at top level the
// body of an async function called at once. The prefix shares the
// program's first line, so only that line's columns shift.
const (
	wrapPrefix = "(async function () {"
	wrapSuffix = "\n})()"
)

// loop runs the program's jobs and its calls until its promise settles.
func (r *run) loop() (json.RawMessage, error) {
	for {
		if err := r.drain(); err != nil {
			return nil, err
		}
		if r.done {
			return r.result()
		}
		if len(r.made) > 0 {
			f := r.made[0]
			r.made = r.made[1:]
			if err := r.deliver(f); err != nil {
				return nil, err
			}
			continue
		}
		if r.running == 0 && len(r.queued) == 1 {
			// A lone call runs right here: a program awaiting its calls
			// one by one costs no goroutine hand-off.
			c := r.pop()
			out, err := r.dispatch(c)
			if err := r.deliver(finished{n: c.n, out: out, err: err}); err != nil {
				return nil, err
			}
			continue
		}
		for len(r.queued) > 0 && r.running < r.limit {
			c := r.pop()
			r.running++
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				out, err := r.dispatch(c)
				// results holds one slot per running call: never blocks.
				r.results <- finished{n: c.n, out: out, err: err}
			}()
		}
		if r.running == 0 {
			if r.heapFull() {
				// The program's end could not even be reported.
				return nil, r.memoryError()
			}
			return nil, errors.Errorf(errors.Execution, "the program awaits a promise that nothing settles")
		}
		select {
		case f := <-r.results:
			r.running--
			if err := r.deliver(f); err != nil {
				return nil, err
			}
		case <-r.ctx.Done():
			return nil, ctxError(r.ctx)
		}
	}
}

// drain runs the VM's pending jobs (promise reactions, resumed awaits)
// until there are none.
func (r *run) drain() error {
	for {
		if r.ctx.Err() != nil {
			return ctxError(r.ctx)
		}
		n, err := r.vm.ExecutePendingJobs()
		if err != nil {
			return r.vmError(err)
		}
		if n == 0 {
			return nil
		}
	}
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

// deliver settles a call's promise with its outcome.
func (r *run) deliver(f finished) error {
	if r.ctx.Err() != nil {
		return ctxError(r.ctx)
	}
	var err error
	if f.err != nil {
		r.errs[f.n] = f.err
		var toolID string
		var e *errors.Error
		if errors.As(f.err, &e) {
			toolID = e.ToolID
		}
		_, err = r.settle.Call(qjs.UndefinedValue, f.n, false, f.err.Error(), string(errors.CodeOf(f.err)), toolID)
	} else {
		b, merr := json.Marshal(f.out)
		if merr != nil {
			return r.deliver(finished{n: f.n, err: errors.Errorf(errors.Internal, "encode the result: %v", merr)})
		}
		_, err = r.settle.Call(qjs.UndefinedValue, f.n, true, string(b), "", "")
	}
	if err != nil {
		return r.vmError(err)
	}
	return nil
}

// hostCall is __mt_call(fn, tool, kinds, a0, a1, count): it queues a
// call and returns its number, which the prelude keys the call's promise
// by. kinds has a letter for each argument given (see mt$kind); count,
// the number of arguments the program passed, is given only when it is
// more than two. __mt_call("#walker") returns instead the source of the
// function that shows an object as JSON, which the prelude evaluates when
// it first needs it: a host function of its own would cost every
// execution its registration.
func (r *run) hostCall(args []any) (any, error) {
	fn, _ := argAt(args, 0).(string)
	if fn == "#walker" {
		return walkerSource(), nil
	}
	tool, _ := argAt(args, 1).(string)
	kinds, _ := argAt(args, 2).(string)
	count := len(kinds)
	if len(args) > 5 {
		count = intOf(args[5])
	}
	r.nextID++
	r.queued = append(r.queued, call{
		n: r.nextID, fn: fn, tool: tool, count: count, kinds: kinds,
		a0: argAt(args, 3), a1: argAt(args, 4),
	})
	if len(r.queued) > r.prog.Limits.ToolCalls {
		// A program calling in a loop without yielding would queue without
		// bound: once more calls wait than it may make, they are made now,
		// in order, so that the Tools refuse those past the budget and end
		// the execution (toolcode.Tools); the loop delivers their outcomes.
		for len(r.queued) > 0 && r.ctx.Err() == nil {
			c := r.pop()
			out, err := r.dispatch(c)
			r.made = append(r.made, finished{n: c.n, out: out, err: err})
		}
	}
	return r.nextID, nil
}

// hostLog is __mt_log(line): 0, or the number under which the error of a
// refused line is kept, when the output limit is reached.
func (r *run) hostLog(args []any) (any, error) {
	line, _ := argAt(args, 0).(string)
	if err := r.prog.Tools.Log(r.ctx, validUTF8(line)); err != nil {
		r.nextID++
		r.errs[r.nextID] = err
		return r.nextID, nil
	}
	return 0, nil
}

// hostDone is __mt_done(kind, text, name, stack, callID): how the
// program's promise ended.
func (r *run) hostDone(args []any) (any, error) {
	r.done = true
	r.outcome.kind, _ = argAt(args, 0).(string)
	r.outcome.text, _ = argAt(args, 1).(string)
	r.outcome.text = validUTF8(r.outcome.text)
	r.outcome.name, _ = argAt(args, 2).(string)
	r.outcome.stack, _ = argAt(args, 3).(string)
	r.outcome.callID = intOf(argAt(args, 4))
	return nil, nil
}

func argAt(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

func intOf(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	}
	return 0
}

// result turns the program's outcome into the execution's.
func (r *run) result() (json.RawMessage, error) {
	o := r.outcome
	switch o.kind {
	case "value":
		if !json.Valid([]byte(o.text)) {
			return nil, errors.Errorf(errors.Execution, "the returned value is not JSON: %.40q", o.text)
		}
		return json.RawMessage(o.text), nil
	case "notjson":
		if err := r.limitOf(o.name, o.text); err != nil {
			return nil, err
		}
		return nil, errors.Errorf(errors.Execution, "the returned value is not JSON: %s", o.text)
	}
	if err, ok := r.errs[o.callID]; ok {
		return nil, err
	}
	if err := r.limitOf(o.name, o.text); err != nil {
		return nil, err
	}
	if o.text == "null" && o.name == "" && o.stack == "" {
		// QuickJS throws null when it has no memory left for the
		// "out of memory" error itself.
		return nil, r.memoryError()
	}
	return nil, r.uncaught(o.text, o.stack)
}

// limitOf returns the limit error of an exception the runtime raised on
// reaching a bound, or nil.
func (r *run) limitOf(name, text string) error {
	if name != "InternalError" && name != "RangeError" {
		return nil
	}
	switch {
	case strings.Contains(text, "out of memory"):
		return r.memoryError()
	case strings.Contains(text, "stack overflow"), strings.Contains(text, "call stack size"):
		return toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.engine.stack))
	}
	return nil
}

// heapFull reports that the VM cannot allocate 64 KiB more: the program
// left its heap at the cap.
func (r *run) heapFull() bool {
	if r.ctx.Err() != nil {
		return false
	}
	_, err := r.vm.Eval(`new Array(16384).fill(0).length`, qjs.EvalGlobal)
	return err != nil && r.ctx.Err() == nil
}

func (r *run) memoryError() error {
	return toolcode.LimitError(toolcode.LimitMemory, fmt.Sprintf("%d bytes", r.engine.memory))
}

// vmError classifies an error out of the VM itself: the execution's end
// (the interrupt), a bound reached, or an exception.
func (r *run) vmError(err error) error {
	if r.ctx.Err() != nil {
		return ctxError(r.ctx)
	}
	var qe *qjs.Error
	if errors.As(err, &qe) {
		text := qe.Name + ": " + qe.Message
		if qe.Name == "" {
			text = qe.Error()
		}
		if lerr := r.limitOf(qe.Name, text); lerr != nil {
			return lerr
		}
		if qe.Name == "" && qe.Message == "" && strings.TrimSpace(qe.Error()) == "null" {
			return r.memoryError()
		}
		if qe.Name == "InternalError" && strings.Contains(qe.Message, "interrupted") {
			return ctxError(r.ctx)
		}
		return r.uncaught(text, qe.Stack)
	}
	return errors.Errorf(errors.Internal, "quickjs engine: %v", err)
}

// compileError reports a program that does not compile, at its position;
// shift is the length of the wrapper on the first line.
func (r *run) compileError(err error, shift int) error {
	var qe *qjs.Error
	if !errors.As(err, &qe) || qe.Name != "SyntaxError" {
		return r.vmError(err)
	}
	line, col := qe.LineNumber, qe.ColumnNumber
	if line == 1 {
		col = max(col-shift, 1)
	}
	e := errors.Errorf(errors.InvalidArgument, "syntax error at line %d, column %d: %s", line, col, qe.Message)
	e.Op = "compile"
	e.Meta = map[string]string{"line": strconv.Itoa(line), "column": strconv.Itoa(col)}
	return e
}

// stackFrame is one frame of a QuickJS stack trace: "at name (<eval>:L:C)"
// or "at <eval>:L:C".
var stackFrame = regexp.MustCompile(`at (?:(\S+) \()?<eval>:(\d+):(\d+)`)

// uncaught is the error of an exception the program did not catch, at the
// program's innermost line in its stack (frames of the prelude skipped),
// and the column in the program's own first line when it runs wrapped.
func (r *run) uncaught(msg, stack string) error {
	for _, m := range stackFrame.FindAllStringSubmatch(stack, -1) {
		if strings.HasPrefix(m[1], "mt$") {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		if line == 1 && r.wrapped {
			col = max(col-len(wrapPrefix), 1)
		}
		e := errors.Errorf(errors.Execution, "uncaught %s (line %d, column %d)", msg, line, col)
		e.Meta = map[string]string{"line": m[2], "column": strconv.Itoa(col)}
		return e
	}
	return errors.Errorf(errors.Execution, "uncaught %s", msg)
}

// ctxError is the error of an execution stopped by its context: the cause
// the executor gave it (the wall-time limit, a limit of the Tools) or the
// context's own.
func ctxError(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil && errors.CodeOf(cause) != errors.Canceled && errors.CodeOf(cause) != errors.Internal {
		return cause
	}
	return errors.FromContext(ctx, "quickjs.Execute", nil)
}

// dispatch runs one call on the Tools.
func (r *run) dispatch(c call) (any, error) {
	var argv [2]any
	args := argv[:min(max(c.count, 0), len(argv))]
	if c.count > len(argv) {
		// Too many arguments: Dispatch only counts those past the second.
		args = make([]any, c.count)
		for i := range args {
			args[i] = toolcode.Undefined{}
		}
	}
	for i := range min(len(args), len(argv)) {
		v, kind := c.a0, byte('v')
		if i == 1 {
			v = c.a1
		}
		if i < len(c.kinds) {
			kind = c.kinds[i]
		}
		a, err := crossed(kind, v)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.%s: %v", cmp.Or(c.fn, "run"), err)
		}
		args[i] = a
	}
	return toolcode.Dispatch(r.ctx, r.prog.Tools, c.fn, c.tool, args)
}

// crossed converts an argument as the prelude passed it (see mt$kind) to
// what toolcode.Dispatch takes.
func crossed(kind byte, v any) (any, error) {
	switch kind {
	case 'j':
		s, _ := v.(string)
		var out any
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("an argument is not JSON: %w", err)
		}
		return out, nil
	case 'o':
		s, _ := v.(string)
		return toolcode.Opaque(s), nil
	}
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case float64:
		if x == 0 {
			return 0.0, nil // -0 is 0, as String writes it
		}
		return x, nil
	case string:
		return validUTF8(x), nil
	case bool, nil:
		return x, nil
	}
	return toolcode.Undefined{}, nil // qjs.Undefined
}

// validUTF8 returns s with what is not UTF-8 replaced by U+FFFD. QuickJS
// hands a string holding a lone surrogate over encoded as if it were a
// character (three bytes that are not UTF-8): each such surrogate becomes
// one U+FFFD, as in the goja engine, whose strings decode them so.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		b.WriteRune(utf8.RuneError)
		if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
			i += 3 // an encoded surrogate
		} else {
			i++
		}
	}
	return b.String()
}
