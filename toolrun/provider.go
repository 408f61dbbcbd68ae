package toolrun

import (
	"context"
	"sync"

	"github.com/metatools-go/metatools/errors"
)

// Provider serves tools from a system of the caller's own (a plugin host,
// an internal RPC layer, another agent framework) through the
// [toolmodel.BackendProvider] kind, without writing a whole [Executor].
//
// CallTool runs the named tool (the backend's ToolName, or the tool's name)
// for call and follows the same contract as [Executor.Execute]: in
// particular, implementations must be safe for concurrent use, and return
// when ctx is done. A panic in CallTool (on the goroutine that calls it)
// fails the call with code [errors.Internal] and the panic value in the
// message, as an [Executor]'s panic does.
type Provider interface {
	CallTool(ctx context.Context, name string, call *Call) (Output, error)
}

// ProviderFunc adapts a function to the [Provider] interface.
type ProviderFunc func(ctx context.Context, name string, call *Call) (Output, error)

// CallTool calls f(ctx, name, call).
func (f ProviderFunc) CallTool(ctx context.Context, name string, call *Call) (Output, error) {
	return f(ctx, name, call)
}

// ProviderExecutor is the [Executor] of [toolmodel.BackendProvider]
// backends: it hands each call to the [Provider] registered under the
// backend's provider name. It is safe for concurrent use.
type ProviderExecutor struct {
	mu        sync.RWMutex
	providers map[string]Provider
}

var _ Executor = (*ProviderExecutor)(nil)

// NewProviderExecutor returns an executor without providers.
func NewProviderExecutor() *ProviderExecutor {
	return &ProviderExecutor{providers: map[string]Provider{}}
}

// Register makes p the provider of the given name, replacing any earlier
// one. Backends refer to it as ProviderBackend{Provider: name}.
func (e *ProviderExecutor) Register(name string, p Provider) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.providers[name] = p
}

// Execute implements [Executor]. A panic in the provider is the runner's
// to recover, as for any executor.
func (e *ProviderExecutor) Execute(ctx context.Context, call *Call) (Output, error) {
	b := call.Backend.Provider
	if b == nil {
		return Output{}, errors.Errorf(errors.InvalidArgument, "backend %s is not a provider backend", call.Backend.Identity())
	}
	e.mu.RLock()
	p, ok := e.providers[b.Provider]
	e.mu.RUnlock()
	if !ok {
		return Output{}, errors.Errorf(errors.NotFound, "no provider %q", b.Provider)
	}
	name := b.ToolName
	if name == "" {
		name = call.Tool.Name
	}
	return p.CallTool(ctx, name, call)
}
