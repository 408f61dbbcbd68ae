package toolcodetest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// Fixture is a small real catalogue for tests: a toolindex.MemoryIndex,
// a tooldocs.Store and a toolrun.Runner running local Go functions, and
// the operations over them (Ops) that an executor gives programs.
//
// Its tools:
//
//   - math:add {a, b} → {sum}
//   - text:upper {s} → {s} (upper case)
//   - util:echo {…} → the arguments
//   - util:fail {message} → a tool failure with that message
//   - util:gate {} → waits for Gate.Release (or the call's end) and
//     records how many gate calls were under way at once
//   - my-ns:do-thing {} → {done: true} (names that are not identifiers)
//   - plain {} → {plain: true} (a tool without namespace)
type Fixture struct {
	Index  *toolindex.MemoryIndex
	Docs   *tooldocs.Store
	Runner *toolrun.Runner
	Ops    *toolops.Service
	Gate   *Gate

	mu       sync.Mutex
	metadata []map[string]string
}

// Gate observes the concurrency of the util:gate tool.
type Gate struct {
	mu       sync.Mutex
	inflight int
	maxSeen  int
	calls    int
	release  chan struct{}
	once     sync.Once
	// changed is signalled (without blocking) whenever inflight changes.
	changed chan struct{}
}

// WaitInFlight waits until at least n gate calls are under way at once,
// or until ctx ends, with ctx's error.
func (g *Gate) WaitInFlight(ctx context.Context, n int) error {
	for {
		if g.InFlight() >= n {
			return nil
		}
		select {
		case <-g.changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (g *Gate) signal() {
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// Release lets every waiting and future gate call finish.
func (g *Gate) Release() { g.once.Do(func() { close(g.release) }) }

// InFlight returns how many gate calls are under way.
func (g *Gate) InFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inflight
}

// Max returns the most gate calls seen under way at once.
func (g *Gate) Max() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.maxSeen
}

// Calls returns the number of gate calls that started.
func (g *Gate) Calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// Metadata returns the metadata of every call the runner's pre-call hook
// saw, in order.
func (f *Fixture) Metadata() []map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]string(nil), f.metadata...)
}

func tool(t testing.TB, js string) toolmodel.Tool {
	t.Helper()
	tl, err := toolmodel.DecodeTool([]byte(js))
	require.NoError(t, err)
	return tl
}

// NewFixture builds the fixture's catalogue. Extra runner options are
// appended to the fixture's own.
func NewFixture(t testing.TB, opts ...toolrun.Option) *Fixture {
	t.Helper()
	f := &Fixture{Index: toolindex.New(), Gate: &Gate{release: make(chan struct{}), changed: make(chan struct{}, 1)}}
	local := toolrun.NewLocalExecutor()
	ctx := context.Background()
	add := func(def string, name string, fn toolrun.LocalFunc) {
		tl := tool(t, def)
		local.Register(name, fn)
		require.NoError(t, f.Index.Register(ctx, toolindex.Registration{Tool: tl, Backend: toolrun.LocalBackendFor(name)}))
	}
	obj := `"inputSchema":{"type":"object"}`
	add(`{"namespace":"math","name":"add","description":"Add two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}`, "add",
		func(_ context.Context, args map[string]any) (any, error) {
			a, _ := args["a"].(float64)
			b, _ := args["b"].(float64)
			return map[string]any{"sum": a + b}, nil
		})
	add(`{"namespace":"text","name":"upper","description":"Upper-case a string.","inputSchema":{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}}`, "upper",
		func(_ context.Context, args map[string]any) (any, error) {
			s, _ := args["s"].(string)
			out := []rune(s)
			for i, r := range out {
				if r >= 'a' && r <= 'z' {
					out[i] = r - 'a' + 'A'
				}
			}
			return map[string]any{"s": string(out)}, nil
		})
	add(`{"namespace":"util","name":"echo","description":"Return the arguments.",`+obj+`}`, "echo",
		func(_ context.Context, args map[string]any) (any, error) { return args, nil })
	add(`{"namespace":"util","name":"fail","description":"Fail with a message.",`+obj+`}`, "fail",
		func(_ context.Context, args map[string]any) (any, error) {
			msg, _ := args["message"].(string)
			return nil, errors.Errorf(errors.Unavailable, "%s", msg)
		})
	add(`{"namespace":"util","name":"gate","description":"Wait at the gate.",`+obj+`}`, "gate",
		func(ctx context.Context, _ map[string]any) (any, error) {
			g := f.Gate
			g.mu.Lock()
			g.inflight++
			g.calls++
			g.maxSeen = max(g.maxSeen, g.inflight)
			g.mu.Unlock()
			g.signal()
			defer func() {
				g.mu.Lock()
				g.inflight--
				g.mu.Unlock()
				g.signal()
			}()
			select {
			case <-g.release:
				return map[string]any{"passed": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	add(`{"namespace":"my-ns","name":"do-thing","description":"Do the thing.",`+obj+`}`, "do-thing",
		func(context.Context, map[string]any) (any, error) { return map[string]any{"done": true}, nil })
	add(`{"name":"plain","description":"A tool without namespace.",`+obj+`}`, "plain",
		func(context.Context, map[string]any) (any, error) { return map[string]any{"plain": true}, nil })

	record := toolrun.PreCallFunc(func(_ context.Context, call *toolrun.Call) error {
		f.mu.Lock()
		f.metadata = append(f.metadata, call.Metadata)
		f.mu.Unlock()
		return nil
	})
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local})
	f.Runner = toolrun.New(reg, append([]toolrun.Option{toolrun.WithIndex(f.Index), toolrun.WithPreCall(record)}, opts...)...)
	f.Docs = tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(f.Index)))
	require.NoError(t, f.Docs.Register(ctx, tooldocs.Entry{
		ToolID:   "math:add",
		Examples: []tooldocs.Example{{Name: "small", Args: map[string]any{"a": 1, "b": 2}, Result: map[string]any{"sum": 3}}},
		Source:   tooldocs.SourceManual,
	}))
	var err error
	f.Ops, err = toolops.New(f.Index, f.Docs, f.Runner)
	require.NoError(t, err)
	return f
}
