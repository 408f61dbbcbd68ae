package toolruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// Runtime routes each execution to the backend of its [SecurityProfile].
// It is safe for concurrent use.
type Runtime struct {
	backends map[SecurityProfile]Backend
	limits   Limits
}

// Option configures a [Runtime].
type Option func(*Runtime) error

// WithBackend serves profile p with backend b. [New] fails when b does not
// enforce everything p requires ([SecurityProfile.Requires]).
func WithBackend(p SecurityProfile, b Backend) Option {
	return func(r *Runtime) error {
		if _, err := ParseProfile(string(p)); err != nil {
			return err
		}
		if b == nil {
			return errors.Errorf(errors.InvalidArgument, "profile %s: nil backend", p)
		}
		if _, ok := r.backends[p]; ok {
			return errors.Errorf(errors.Conflict, "profile %s has a backend already", p)
		}
		r.backends[p] = b
		return nil
	}
}

// WithLimits sets the sandbox's limits; zero fields take the values of
// [DefaultLimits].
func WithLimits(l Limits) Option {
	return func(r *Runtime) error {
		if err := l.Validate(); err != nil {
			return err
		}
		r.limits = l.withDefaults(DefaultLimits)
		return nil
	}
}

// New returns a runtime with the given backends. It refuses, with code
// [errors.Unsupported], a backend that cannot enforce on this machine what
// its profile requires, naming what is missing: a profile is never served
// by weaker isolation than it names.
func New(opts ...Option) (*Runtime, error) {
	r := &Runtime{backends: map[SecurityProfile]Backend{}, limits: DefaultLimits}
	for _, o := range opts {
		if err := o(r); err != nil {
			return nil, errors.WithOp("toolruntime.New", err)
		}
	}
	for _, p := range Profiles() {
		if b, ok := r.backends[p]; ok {
			// The gateway's rows hold whatever the program's limits.
			claims := append(gatewayLimits(toolcode.DefaultLimits), b.Enforces(r.limits)...)
			if err := check(p, b, claims); err != nil {
				return nil, errors.WithOp("toolruntime.New", err)
			}
		}
	}
	return r, nil
}

// check refuses a backend that does not enforce what profile p requires.
func check(p SecurityProfile, b Backend, enforced LimitsEnforced) error {
	missing := enforced.Missing(p.Requires())
	if len(missing) == 0 {
		return nil
	}
	return errors.Errorf(errors.Unsupported, "backend %s cannot serve profile %s: it does not enforce %s on this machine",
		b.Name(), p, strings.Join(missing, ", "))
}

// Limits returns the sandbox's limits.
func (r *Runtime) Limits() Limits { return r.limits }

// Backend returns the backend of profile p, or an error of code
// [errors.Unsupported] when p has none.
func (r *Runtime) Backend(p SecurityProfile) (Backend, error) {
	b, ok := r.backends[p]
	if !ok {
		return nil, errors.Errorf(errors.Unsupported, "no backend serves security profile %q", p)
	}
	return b, nil
}

// Warm starts, with the runtime's limits, the sandboxes of every backend
// that starts them ahead ([Warmer]), and returns once they are ready: the
// first program of each profile then finds one. It returns the errors of
// the backends that failed, joined.
func (r *Runtime) Warm(ctx context.Context) error {
	var errs []error
	for _, p := range r.profiles() {
		if w, ok := r.backends[p].(Warmer); ok {
			if err := w.Warm(ctx, r.limits); err != nil {
				errs = append(errs, fmt.Errorf("profile %s: %w", p, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Close closes every backend that works in the background ([Closer]) and
// waits for them, or until ctx ends.
func (r *Runtime) Close(ctx context.Context) error {
	var errs []error
	for _, p := range r.profiles() {
		if c, ok := r.backends[p].(Closer); ok {
			if err := c.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("profile %s: %w", p, err))
			}
		}
	}
	return errors.Join(errs...)
}

// profiles returns the profiles that have a backend, in a fixed order.
func (r *Runtime) profiles() []SecurityProfile {
	ps := make([]SecurityProfile, 0, len(r.backends))
	for p := range r.backends {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Engine returns a [toolcode.Engine] of language that runs every program
// under profile p: register it with a [toolcode.Executor] (toolcode.WithEngine)
// and every execution in that language runs behind p's boundary, its
// result's Isolation saying what enforced each limit.
func (r *Runtime) Engine(p SecurityProfile, language string) (toolcode.Engine, error) {
	b, err := r.Backend(p)
	if err != nil {
		return nil, err
	}
	if language == "" {
		return nil, errors.Errorf(errors.InvalidArgument, "engine: empty language")
	}
	return &engine{runtime: r, profile: p, backend: b, language: language}, nil
}

// engine runs one language under one profile.
type engine struct {
	runtime  *Runtime
	profile  SecurityProfile
	backend  Backend
	language string
}

func (e *engine) Language() string { return e.language }

func (e *engine) Execute(ctx context.Context, prog toolcode.Program) (json.RawMessage, error) {
	res, err := e.backend.Run(ctx, Request{
		Language: e.language,
		Code:     prog.Code,
		Tools:    prog.Tools,
		Program:  prog.Limits,
		Limits:   e.runtime.limits,
	})
	enforced := append(gatewayLimits(prog.Limits), res.Enforced...).sorted()
	if prog.Report != nil {
		prog.Report(toolcode.Isolation{Backend: e.backend.Name(), Profile: string(e.profile), Enforced: enforced, Startup: res.Startup})
	}
	if err != nil {
		// The error is the program's or the backend's, with its own
		// operation: the same error the program gets in any profile.
		return nil, err
	}
	if missing := enforced.Missing(e.profile.Requires()); len(missing) > 0 {
		return nil, errors.Errorf(errors.Internal, "backend %s ran a program without enforcing %s, which profile %s requires",
			e.backend.Name(), strings.Join(missing, ", "), e.profile)
	}
	return res.Value, nil
}
