package toolrun

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// LocalFunc is a Go function serving a tool. It receives the call's
// arguments, which it must not keep or modify, and returns a JSON value
// (or any value that marshals to JSON) as the result. An error it returns
// is the tool's failure, reported as a result with IsError set, unless it
// is an *errors.Error of another code than [errors.Execution] or the
// context's error: those fail the run. A panic fails the run too, with
// code [errors.Internal] and the panic value in the message, as an
// [Executor]'s panic does; it does not reach the caller's goroutine.
//
// A function must honour ctx, and return soon after it is done: the
// call's timeout ([CallOptions.Timeout], else the runner's) and the
// caller's cancellation reach it only through ctx. The function runs on
// the caller's goroutine, so one that ignores ctx holds its call until it
// returns.
type LocalFunc func(ctx context.Context, args map[string]any) (any, error)

// LocalExecutor is the [Executor] of [toolmodel.BackendLocal] backends: it
// calls Go functions registered by name. It is safe for concurrent use.
type LocalExecutor struct {
	mu    sync.RWMutex
	funcs map[string]LocalFunc
}

var _ Executor = (*LocalExecutor)(nil)

// NewLocalExecutor returns an executor without functions.
func NewLocalExecutor() *LocalExecutor {
	return &LocalExecutor{funcs: map[string]LocalFunc{}}
}

// Register makes fn the function of the given name, replacing any
// earlier one; a nil fn removes it. Backends refer to it as
// LocalBackend{Name: name}.
func (e *LocalExecutor) Register(name string, fn LocalFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if fn == nil {
		delete(e.funcs, name)
		return
	}
	e.funcs[name] = fn
}

// LocalBackendFor returns the backend that runs the function of the given name.
func LocalBackendFor(name string) toolmodel.ToolBackend {
	return toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: name}}
}

// Execute implements [Executor]. The function runs on the caller's
// goroutine: handing it to another would cost a call more than the rest
// of the runner's pipeline. A panic of the function is the runner's to
// recover, as for any executor.
func (e *LocalExecutor) Execute(ctx context.Context, call *Call) (Output, error) {
	if call.Backend.Local == nil {
		return Output{}, errors.Errorf(errors.InvalidArgument, "backend %s is not a local backend", call.Backend.Identity())
	}
	e.mu.RLock()
	fn, ok := e.funcs[call.Backend.Local.Name]
	e.mu.RUnlock()
	if !ok {
		return Output{}, errors.Errorf(errors.NotFound, "no local function %q", call.Backend.Local.Name)
	}
	if err := errors.FromContext(ctx, OpExecute, nil); err != nil {
		return Output{}, err
	}
	value, err := fn(ctx, call.Args)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return Output{}, errors.FromContext(ctx, OpExecute, nil)
		}
		var e *errors.Error
		if errors.As(err, &e) && e.Code != errors.Execution {
			return Output{}, err
		}
		return Output{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	return Output{Structured: jsonValue(value)}, nil
}

// NewLocalTool returns a tool whose input schema is derived from the Go
// type In (with jsonschema-go's For: field names from json tags, required
// fields are those without omitempty or omitzero, descriptions from
// jsonschema tags), and the LocalFunc that decodes a call's arguments into
// an In and calls fn. When Out is a struct, the tool also gets an output
// schema. Register the function under the tool's name:
//
//	tool, fn, err := toolrun.NewLocalTool("add", "Add two numbers.", add)
//	local.Register(tool.Name, fn)
//	idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.Name)})
func NewLocalTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) (toolmodel.Tool, LocalFunc, error) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return toolmodel.Tool{}, nil, errors.Errorf(errors.InvalidArgument, "input schema of %s: %w", name, err)
	}
	tool := toolmodel.Tool{Tool: mcp.Tool{Name: name, Description: description, InputSchema: in}}
	if out, err := jsonschema.For[Out](nil); err == nil && out.Type == "object" {
		tool.OutputSchema = out
	}
	// Round-trip through JSON so that the tool is plain data, like any
	// other tool definition.
	if tool, err = toolmodel.FromMCP(tool.MCP(), ""); err != nil {
		return toolmodel.Tool{}, nil, err
	}
	local := func(ctx context.Context, args map[string]any) (any, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "encode arguments: %w", err)
		}
		var input In
		if err := json.Unmarshal(raw, &input); err != nil {
			return nil, errors.Errorf(errors.Validation, "arguments of %s: %w", name, err)
		}
		out, err := fn(ctx, input)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return tool, local, nil
}
