package toolcode

import (
	"cmp"
	"fmt"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// Limits bound one execution. In an [Executor]'s configuration a zero field
// takes the default of [DefaultLimits]; in a request ([ExecuteParams]) a
// zero field keeps the executor's value, and a value above the executor's
// is lowered to it: a request may only tighten the limits, never loosen
// them. A negative value is invalid.
type Limits struct {
	// ToolCalls is the number of calls of the tools' functions a program
	// may make: each tool call, each step of a chain, each search,
	// description, list of examples and of namespaces counts as one.
	ToolCalls int `json:"toolCalls,omitempty" yaml:"toolCalls,omitempty"`
	// ChainSteps is the number of steps one chain may have.
	ChainSteps int `json:"chainSteps,omitempty" yaml:"chainSteps,omitempty"`
	// WallTime bounds the whole execution, tool calls included.
	WallTime time.Duration `json:"wallTime,omitempty" yaml:"wallTime,omitempty"`
	// OutputBytes bounds what the program produces: the JSON of its value
	// plus the bytes of its log lines.
	OutputBytes int `json:"outputBytes,omitempty" yaml:"outputBytes,omitempty"`
	// Concurrency is the number of tool calls that may run at once.
	Concurrency int `json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
}

// DefaultLimits are the limits of an [Executor] built without
// [WithLimits], and the values that fill the zero fields of the limits it
// is given.
var DefaultLimits = Limits{
	ToolCalls:   100,
	ChainSteps:  20,
	WallTime:    60 * time.Second,
	OutputBytes: 1 << 20,
	Concurrency: 8,
}

// Names of the limits, as they appear in error messages and in the
// "limit" member of an error's Meta.
const (
	LimitToolCalls   = "tool_calls"
	LimitChainSteps  = "chain_steps"
	LimitWallTime    = "wall_time"
	LimitOutputBytes = "output_bytes"
	LimitConcurrency = "concurrency"
	// LimitStack names an engine's bound on recursion.
	LimitStack = "stack"
	// LimitAllocation names an engine's bound on what one call of a
	// built-in function may allocate.
	LimitAllocation = "allocation"
	// LimitMemory names an engine's bound on the memory of a program.
	LimitMemory = "memory"
	// LimitMatchTime names an engine's bound on the time one match of a
	// regular expression may take.
	LimitMatchTime = "match_time"
)

// Validate reports a negative field, with code [errors.InvalidArgument].
func (l Limits) Validate() error {
	for _, f := range l.fields() {
		if f.value < 0 {
			e := errors.Errorf(errors.InvalidArgument, "limit %s is negative (%d)", f.name, f.value)
			e.Meta = map[string]string{"limit": f.name}
			return e
		}
	}
	return nil
}

type limitField struct {
	name  string
	value int64
}

func (l Limits) fields() []limitField {
	return []limitField{
		{LimitToolCalls, int64(l.ToolCalls)},
		{LimitChainSteps, int64(l.ChainSteps)},
		{LimitWallTime, int64(l.WallTime)},
		{LimitOutputBytes, int64(l.OutputBytes)},
		{LimitConcurrency, int64(l.Concurrency)},
	}
}

// withDefaults fills the zero fields from d.
func (l Limits) withDefaults(d Limits) Limits {
	l.ToolCalls = cmp.Or(l.ToolCalls, d.ToolCalls)
	l.ChainSteps = cmp.Or(l.ChainSteps, d.ChainSteps)
	l.WallTime = cmp.Or(l.WallTime, d.WallTime)
	l.OutputBytes = cmp.Or(l.OutputBytes, d.OutputBytes)
	l.Concurrency = cmp.Or(l.Concurrency, d.Concurrency)
	return l
}

// Lower returns l with each field of req that is positive and smaller put
// in its place: the limits of a request that may only tighten l.
func (l Limits) Lower(req Limits) Limits {
	l.ToolCalls = lowerInt(l.ToolCalls, req.ToolCalls)
	l.ChainSteps = lowerInt(l.ChainSteps, req.ChainSteps)
	l.WallTime = lowerInt(l.WallTime, req.WallTime)
	l.OutputBytes = lowerInt(l.OutputBytes, req.OutputBytes)
	l.Concurrency = lowerInt(l.Concurrency, req.Concurrency)
	return l
}

func lowerInt[T int | time.Duration](base, req T) T {
	if req > 0 && (base <= 0 || req < base) {
		return req
	}
	return base
}

// LimitError returns the error of a limit reached: code
// [errors.ResourceExhausted] ([errors.Timeout] for [LimitWallTime]), a
// message naming the limit and its value, and Meta["limit"] set to the
// limit's name, so that callers can tell which limit stopped a program.
func LimitError(limit string, value any) *errors.Error {
	code := errors.ResourceExhausted
	if limit == LimitWallTime {
		code = errors.Timeout
	}
	e := errors.Errorf(code, "%s limit reached (%v)", limit, value)
	e.Op = "toolcode.limit"
	e.Meta = map[string]string{"limit": limit, "value": fmt.Sprint(value)}
	return e
}

// LimitOf returns the name of the limit that err reports (see
// [LimitError]), or "" when err is not about a limit.
func LimitOf(err error) string {
	var e *errors.Error
	for err != nil {
		if !errors.As(err, &e) {
			return ""
		}
		if l := e.Meta["limit"]; l != "" {
			return l
		}
		err = e.Err
	}
	return ""
}
