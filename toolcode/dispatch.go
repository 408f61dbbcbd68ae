package toolcode

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
)

// Dispatch runs on tools one operation a program asked for through an
// engine's bridge, given as the program wrote it: op is the operation
// ("run", "search", "namespaces", "describe", "examples", "chain"), id the
// tool ID or the query it names, and arg its other argument as decoded from
// JSON (a run's arguments object, a limit, a detail level, a chain's
// steps). An argument of the wrong shape fails with code
// [errors.InvalidArgument] saying what was expected; a panic of tools
// becomes an error of code [errors.Internal]. Engines share it so that
// every language reads a program's calls the same way.
func Dispatch(ctx context.Context, tools Tools, op, id string, arg any) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, errors.Errorf(errors.Internal, "tools.%s panicked: %v", op, p)
		}
	}()
	switch op {
	case "run":
		args, ok := arg.(map[string]any)
		if arg == nil {
			args, ok = map[string]any{}, true
		}
		if !ok {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.run(%q): the arguments must be an object", id)
		}
		return tools.Run(ctx, id, args)
	case "search":
		limit, err := limitArg(arg)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.search: the limit %v", err)
		}
		return tools.Search(ctx, id, limit)
	case "namespaces":
		return tools.Namespaces(ctx)
	case "describe":
		level, _ := arg.(string)
		lvl, err := tooldocs.ParseDetailLevel(level)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.describe(%q): %v", id, err)
		}
		return tools.Describe(ctx, id, lvl)
	case "examples":
		limit, err := limitArg(arg)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.examples: the limit %v", err)
		}
		return tools.Examples(ctx, id, limit)
	case "chain":
		var steps []ChainStep
		b, err := json.Marshal(arg)
		if err == nil {
			err = json.Unmarshal(b, &steps)
		}
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "tools.chain: the steps must be an array of {toolId, args, usePrevious, previousKey}: %v", err)
		}
		return tools.Chain(ctx, steps)
	}
	return nil, errors.Errorf(errors.InvalidArgument, "unknown operation %q", op)
}

// limitArg reads a limit as encoding/json would decode it into an int:
// null (or nothing) is 0, and anything but a whole number is an error.
func limitArg(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt32 && x <= math.MaxInt32 {
			return int(x), nil
		}
		return 0, fmt.Errorf("%v is not a whole number", x)
	}
	return 0, fmt.Errorf("must be a number")
}
