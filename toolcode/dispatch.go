package toolcode

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
)

// Undefined stands for a program's undefined among the arguments given to
// [Dispatch]: an argument the program passed as undefined.
type Undefined struct{}

// Opaque stands, among the arguments given to [Dispatch], for a value
// JSON has no form for; it holds the value's type as the language names it
// ("function", "symbol", "bigint").
type Opaque string

// The functions a program may call through Dispatch, with their
// parameters as messages name them.
var signatures = map[string][]string{
	"run":        {"id", "args"},
	"search":     {"query", "limit"},
	"namespaces": {},
	"describe":   {"id", "level"},
	"examples":   {"id", "limit"},
	"chain":      {"steps"},
}

// Dispatch runs on tools a call a program made through an engine's
// bridge, after checking its arguments, so that every engine reads a
// program's calls the same way. fn is the function called: "run",
// "search", "namespaces", "describe", "examples" or "chain"; or empty for
// the function of a tool (tools.<namespace>.<name>(args) in JavaScript),
// which runs the tool whose ID is tool.
//
// args are the arguments, one per argument the program passed, each
// converted as the program's JSON.stringify and encoding/json would
// convert it, except that a top-level undefined is [Undefined], a number
// is a float64 even when it is not finite (NaN, ±Inf), and a function, a
// symbol or a BigInt is an [Opaque]. An engine may leave [Undefined] in
// place of the arguments past the second: no function takes more than
// two, and Dispatch only counts the others. Dispatch does not keep args
// (the values in it go on to tools), so an engine may pass a slice of its
// own storage.
//
// The functions and their arguments:
//
//   - tools.run(id, args?) and a tool's own function (args?): id is a
//     string; args is an object, and undefined or null stand for {};
//   - tools.search(query, limit?): query is a string;
//   - tools.namespaces();
//   - tools.describe(id, level?): level is a string, "summary", "schema"
//     or "full" (see [toolops.DescribeRequest]);
//   - tools.examples(id, limit?);
//   - tools.chain(steps): an array of {id, args?, usePrevious?,
//     previousKey?} (see [toolops.ChainStep]).
//
// A limit, when neither undefined nor null, is a whole number of at least
// 1; one past 2^31-1 is lowered to it. Without a limit, search returns
// the operations' default number of tools and examples every example.
// An argument missing or of the wrong type, or more arguments than the
// function takes, fail with code [errors.InvalidArgument] and a message
// naming the function, the argument and what it got; an error about a
// tool's arguments names the tool in its ToolID. Values out of the
// operations' range (a search limit above [toolops.MaxSearchResults], an
// unknown level, a chain of no step) get the operations' own errors, the
// same on every face. Lists come back empty, never nil. A panic of tools
// becomes an error of code [errors.Internal].
func Dispatch(ctx context.Context, tools Tools, fn, tool string, args []any) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, errors.Errorf(errors.Internal, "tools.%s panicked: %v", cmp.Or(fn, "run"), p)
		}
	}()
	if fn == "" {
		// The function of a tool: the hot path of a program.
		if len(args) > 1 {
			return nil, toolArgError(tool, "expected at most 1 argument (the arguments object), got %d", len(args))
		}
		a, err := toolArgs(tool, arg(args, 0))
		if err != nil {
			return nil, err
		}
		return tools.Run(ctx, tool, a)
	}
	params, ok := signatures[fn]
	if !ok {
		return nil, errors.Errorf(errors.InvalidArgument, "tools.%s is not a function of the tools", fn)
	}
	if len(args) > len(params) {
		return nil, arityError(fn, params, len(args))
	}
	switch fn {
	case "run":
		id, err := stringArg(fn, "the tool ID", arg(args, 0))
		if err != nil {
			return nil, err
		}
		a, err := toolArgs(id, arg(args, 1))
		if err != nil {
			return nil, err
		}
		return tools.Run(ctx, id, a)
	case "search":
		query, err := stringArg(fn, "the query", arg(args, 0))
		if err != nil {
			return nil, err
		}
		limit, err := limitArg(fn, arg(args, 1))
		if err != nil {
			return nil, err
		}
		found, err := tools.Search(ctx, toolops.SearchRequest{Query: query, Limit: limit})
		if err != nil {
			return nil, err
		}
		if found.Tools == nil {
			found.Tools = []toolindex.Summary{}
		}
		return found.Tools, nil
	case "namespaces":
		names, err := tools.Namespaces(ctx)
		if err == nil && names == nil {
			names = []string{}
		}
		return names, err
	case "describe":
		id, err := stringArg(fn, "the tool ID", arg(args, 0))
		if err != nil {
			return nil, err
		}
		level, err := levelArg(arg(args, 1))
		if err != nil {
			return nil, err
		}
		return tools.Describe(ctx, toolops.DescribeRequest{ID: id, Level: level})
	case "examples":
		id, err := stringArg(fn, "the tool ID", arg(args, 0))
		if err != nil {
			return nil, err
		}
		limit, err := limitArg(fn, arg(args, 1))
		if err != nil {
			return nil, err
		}
		examples, err := tools.Examples(ctx, toolops.ExamplesRequest{ID: id, Limit: limit})
		if err == nil && examples == nil {
			examples = []tooldocs.Example{}
		}
		return examples, err
	default: // chain
		steps, err := chainArg(arg(args, 0))
		if err != nil {
			return nil, err
		}
		return tools.Chain(ctx, steps)
	}
}

// arg is the i-th argument, Undefined when missing.
func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return Undefined{}
}

// absent reports an optional argument not given: undefined or null.
func absent(v any) bool {
	switch v.(type) {
	case nil, Undefined:
		return true
	}
	return false
}

// typeName names the type of an argument as a program would: "undefined",
// "null", "boolean", "number", "string", "array", "object", or what an
// Opaque says.
func typeName(v any) string {
	switch x := v.(type) {
	case Undefined:
		return "undefined"
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case Opaque:
		return string(x)
	}
	return fmt.Sprintf("%T", v)
}

// shown is an argument as a message shows what it got: a number or a
// string by its value (a string quoted, and cut when long), anything else
// by its type.
func shown(v any) string {
	switch x := v.(type) {
	case float64:
		return formatNumber(x)
	case string:
		if len(x) > 40 {
			return strconv.Quote(toolmodel.CutUTF8(x, 40)) + "…"
		}
		return strconv.Quote(x)
	}
	return typeName(v)
}

// formatNumber writes a number as JavaScript's String(n) does.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	b, _ := appendFloat(nil, f)
	return string(b)
}

func arityError(fn string, params []string, got int) error {
	if len(params) == 0 {
		return errors.Errorf(errors.InvalidArgument, "tools.%s: expected no arguments, got %d", fn, got)
	}
	unit := "arguments"
	if len(params) == 1 {
		unit = "argument"
	}
	return errors.Errorf(errors.InvalidArgument, "tools.%s: expected at most %d %s (%s), got %d", fn, len(params), unit, strings.Join(params, ", "), got)
}

// toolArgError is an error about the arguments of the tool id.
func toolArgError(id, format string, args ...any) error {
	e := errors.Errorf(errors.InvalidArgument, format, args...)
	e.ToolID = id
	return e
}

// stringArg reads a required string.
func stringArg(fn, what string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case Undefined:
		return "", errors.Errorf(errors.InvalidArgument, "tools.%s: missing %s (a string)", fn, what)
	}
	return "", errors.Errorf(errors.InvalidArgument, "tools.%s: %s must be a string, not %s", fn, what, typeName(v))
}

// toolArgs reads the arguments of a call of the tool id: an object, or
// nothing.
func toolArgs(id string, v any) (map[string]any, error) {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return map[string]any{}, nil
		}
		return x, nil
	case nil, Undefined:
		return map[string]any{}, nil
	}
	return nil, toolArgError(id, "the arguments must be an object, not %s", typeName(v))
}

// limitArg reads an optional limit: 0 when absent, else a whole number of
// at least 1, lowered to 2^31-1.
func limitArg(fn string, v any) (int, error) {
	if absent(v) {
		return 0, nil
	}
	f, ok := v.(float64)
	if i, isInt := v.(int); isInt {
		f, ok = float64(i), true
	}
	if !ok {
		return 0, errors.Errorf(errors.InvalidArgument, "tools.%s: the limit must be a number, not %s", fn, typeName(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < 1 {
		return 0, errors.Errorf(errors.InvalidArgument, "tools.%s: the limit must be a whole number of at least 1, not %s", fn, formatNumber(f))
	}
	return int(min(f, math.MaxInt32)), nil
}

// levelArg reads the optional detail level of describe: a string, which
// the operation checks, or "" for its default.
func levelArg(v any) (string, error) {
	if absent(v) {
		return "", nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", errors.Errorf(errors.InvalidArgument, `tools.describe: the detail level must be "summary", "schema" or "full", not %s`, shown(v))
}

// chainArg reads the steps of a chain.
func chainArg(v any) ([]toolops.ChainStep, error) {
	const shape = "{id, args, usePrevious, previousKey}"
	stepFields := []string{"id", "args", "usePrevious", "previousKey"}
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case Undefined, nil:
		return nil, errors.Errorf(errors.InvalidArgument, "tools.chain: missing the steps (an array of %s)", shape)
	default:
		return nil, errors.Errorf(errors.InvalidArgument, "tools.chain: the steps must be an array of %s, not %s", shape, typeName(v))
	}
	steps := make([]toolops.ChainStep, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.chain: step %d must be an object %s, not %s", i, shape, typeName(item))
		}
		bad := func(format string, args ...any) error {
			return errors.Errorf(errors.InvalidArgument, "tools.chain: step %d: %s", i, fmt.Sprintf(format, args...))
		}
		// The fields are checked in a fixed order, so that a step with
		// several faults always gets the same message.
		for _, key := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(stepFields, key) {
				return nil, bad("unknown field %q (a step is %s)", key, shape)
			}
		}
		s := &steps[i]
		switch id := m["id"].(type) {
		case string:
			s.ID = id
		case nil:
			if _, ok := m["id"]; !ok {
				return nil, bad("missing id")
			}
			return nil, bad("id must be a string, not null")
		default:
			return nil, bad("id must be a string, not %s", typeName(id))
		}
		switch args := m["args"].(type) {
		case map[string]any:
			s.Args = args
		case nil:
		default:
			return nil, bad("args must be an object, not %s", typeName(args))
		}
		switch use := m["usePrevious"].(type) {
		case bool:
			s.UsePrevious = use
		case nil:
		default:
			return nil, bad("usePrevious must be a boolean, not %s", typeName(use))
		}
		switch key := m["previousKey"].(type) {
		case string:
			s.PreviousKey = key
		case nil:
		default:
			return nil, bad("previousKey must be a string, not %s", typeName(key))
		}
	}
	return steps, nil
}
