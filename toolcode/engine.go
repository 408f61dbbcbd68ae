package toolcode

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/metatools-go/metatools/errors"
)

// Engine runs programs written in one language.
//
// Execute runs prog.Code and returns the value the program returns, as
// JSON ("null" when it returns nothing). The program reaches tools only
// through prog.Tools, which counts, bounds and traces every call: an engine
// never calls a runner itself. The engine enforces what only it can:
//
//   - it stops the program when ctx is done (the [Executor] gives ctx a
//     deadline of prog.Limits.WallTime), including a program busy in a
//     loop that calls nothing, and then returns an error of code
//     [errors.Timeout] (deadline) or [errors.Canceled];
//   - it bounds recursion, failing with code [errors.ResourceExhausted];
//   - it runs at most prog.Limits.Concurrency tool calls at once (Tools
//     enforces that too, so an engine may simply start every call).
//
// Errors: a program that does not compile fails with code
// [errors.InvalidArgument] and a message giving the line and column; an
// exception the program does not catch fails with code [errors.Execution],
// a message "uncaught <value>" and its line when the value carries one (an
// Error's stack); an uncaught error that came from Tools is returned as it
// is, keeping its code (a tool's failure, a limit reached). Execute must
// not panic on any input; the [Executor] recovers panics anyway.
//
// A thrown value is shown as a user reads it: a string as it is; an
// error (an object with a string message, not a plain object or an array)
// as "<name>: <message>"; any other object or array as JSON, with a
// circular reference written "[Circular]"; a function as "[Function:
// <name>]"; a symbol as "Symbol(<description>)"; anything else as String
// gives it. The text is at most [MaxShownLength] characters, and showing a
// value never runs longer than the program's wall time, whatever its
// getters do. The JavaScript engines of this repository show values that
// way, and the conformance suite of toolcode/toolcodetest holds them to
// it.
//
// An Engine is safe for concurrent use: each Execute is independent. It
// must return once ctx is done, promptly: the [Executor] stops waiting for
// it shortly after the deadline and reports a timeout in any case.
type Engine interface {
	// Language names the language the engine runs, in lower case
	// ("javascript").
	Language() string
	// Execute runs one program; see [Engine].
	Execute(ctx context.Context, prog Program) (json.RawMessage, error)
}

// Preparer is an [Engine] that can do ahead of an execution the work every
// execution starts with (a runtime built, its built-ins made). A host
// that starts an engine before its program is known, such as a sandbox's
// runner waiting in a pool, calls Prepare first, so that the program does
// not wait for that work. What Prepare makes has run no program: it holds
// nothing of any execution.
type Preparer interface {
	Engine
	// Prepare does the work ahead and returns once it is done, or with
	// ctx's error when ctx ends first.
	Prepare(ctx context.Context) error
}

// MaxShownLength bounds the text by which an engine shows a value that
// has no JSON of its own: a value a program threw and did not catch, or a
// value it logged. Longer text is cut to this many characters (UTF-16 code
// units, as JavaScript counts them) and ends with "…".
const MaxShownLength = 1000

// Program is what an [Engine] runs: the code, the tools it may call, and
// the limits that apply. It is built by the [Executor].
type Program struct {
	// Code is the program's source.
	Code string
	// Tools is the program's environment; its Log method is the sink for
	// what the program prints.
	Tools Tools
	// Limits are the limits in force, after the request lowered the
	// executor's; every field is positive.
	Limits Limits
	// Report, called by an engine that confines the program, records how
	// it did (see [Isolation]). It is never nil; an engine calls it at
	// most once, before Execute returns.
	Report func(Isolation)
}

// EngineRegistry maps languages to engines. It is safe for concurrent use.
type EngineRegistry struct {
	mu      sync.RWMutex
	engines map[string]Engine
}

// NewEngineRegistry returns a registry holding the given engines.
func NewEngineRegistry(engines ...Engine) (*EngineRegistry, error) {
	r := &EngineRegistry{engines: map[string]Engine{}}
	for _, e := range engines {
		if err := r.Register(e); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds an engine under its language. A nil engine, an empty
// language or a language already registered fails with code
// [errors.InvalidArgument] or [errors.Conflict].
func (r *EngineRegistry) Register(e Engine) error {
	if e == nil {
		return errors.Errorf(errors.InvalidArgument, "register engine: nil engine")
	}
	lang := e.Language()
	if lang == "" {
		return errors.Errorf(errors.InvalidArgument, "register engine: empty language")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.engines == nil {
		r.engines = map[string]Engine{}
	}
	if _, ok := r.engines[lang]; ok {
		return errors.Errorf(errors.Conflict, "register engine: language %q is already registered", lang)
	}
	r.engines[lang] = e
	return nil
}

// Get returns the engine of a language, or an error of code
// [errors.InvalidArgument] naming the languages available.
func (r *EngineRegistry) Get(language string) (Engine, error) {
	r.mu.RLock()
	e, ok := r.engines[language]
	r.mu.RUnlock()
	if !ok {
		return nil, errors.Errorf(errors.InvalidArgument, "unknown language %q (available: %v)", language, r.Languages())
	}
	return e, nil
}

// Languages returns the registered languages, sorted.
func (r *EngineRegistry) Languages() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.engines))
	for lang := range r.engines {
		out = append(out, lang)
	}
	slices.Sort(out)
	return out
}
