package catalog

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
	"github.com/metatools-go/metatools/toolruntime/process"
	"github.com/metatools-go/metatools/toolruntime/wasm"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/config"
)

// runnerName is the runner binary of the standard profile, looked for
// next to the running executable and then on the PATH.
const runnerName = "toolruntime-runner"

// spares is how many sandboxes a code engine makes ahead of the programs
// it runs, so that a program does not wait for its own.
type spares struct {
	// runtimes are JavaScript runtimes, made by the engines of the dev
	// profile.
	runtimes int
	// instances are instances of the runner's WebAssembly module, started
	// by the hardened profile.
	instances int
	// processes are runner processes, started in their sandboxes by the
	// standard profile.
	processes int
}

var (
	// servingSpares are the engines' defaults, for a server that runs
	// program after program.
	servingSpares = spares{runtimes: javascript.DefaultSpareRuntimes, instances: wasm.DefaultSpares, processes: process.DefaultSpares}
	// oneShotSpares make none: a process that runs one program and exits
	// would make a spare for nothing (a WebAssembly instance holds tens of
	// MiB).
	oneShotSpares = spares{}
)

// newBackend returns the backend of a profile; tests replace it to see
// what a catalogue asks for.
var newBackend = sandboxBackend

// WithoutSpareSandboxes makes the engines of code mode keep no sandbox
// ready ahead of the programs: for a process that runs one program and
// exits, such as `metatools exec`. By default they keep their defaults
// ready, as a server that runs program after program wants.
func WithoutSpareSandboxes() Option { return func(o *options) { o.spares = oneShotSpares } }

// CodeMode returns the code mode of the configuration (codeMode), its
// programs run under the security profile named (the configuration's
// when empty; see [config.CodeMode.Profile] for the default), within the
// sandbox's limits. A profile this machine cannot enforce is an error
// naming what is missing. NewServer gives the configured server the one
// Build made.
func (c *Catalog) CodeMode(profile string) (toolserver.CodeMode, error) {
	if c.codeMode != nil && (profile == "" || profile == c.codeModeProfile) {
		return *c.codeMode, nil
	}
	cm, _, _, err := c.codeModeOf(profile)
	return cm, err
}

// NewCodeExecutor returns an executor of programs under the security
// profile named (see [Catalog.CodeMode]), over the catalogue's
// operations, with the configuration's timeout and limits and the
// catalogue's telemetry: code mode's engine for a program run outside a
// server.
func (c *Catalog) NewCodeExecutor(profile string) (*toolcode.Executor, error) {
	cm, err := c.CodeMode(profile)
	if err != nil {
		return nil, err
	}
	return toolserver.NewCodeExecutor(c.Ops, cm,
		toolcode.WithTracerProvider(c.telemetry.tracerProvider()), toolcode.WithMeterProvider(c.telemetry.meterProvider())), nil
}

// codeModeOf returns the configuration's code mode under a security
// profile (the configuration's when empty), the profile it runs under and
// its runtime, which the catalogue keeps until Close.
func (c *Catalog) codeModeOf(profile string) (toolserver.CodeMode, toolruntime.SecurityProfile, *toolruntime.Runtime, error) {
	cm := c.cfg.CodeMode
	p, backend, err := profileBackend(cmp.Or(profile, cm.Profile), cm.Sandbox, c.spares, c.logger)
	if err != nil {
		return toolserver.CodeMode{}, "", nil, err
	}
	rt, err := toolruntime.New(toolruntime.WithBackend(p, backend), toolruntime.WithLimits(cm.Sandbox.Limits))
	if err != nil {
		if closer, ok := backend.(toolruntime.Closer); ok {
			_ = closer.Close(context.Background())
		}
		return toolserver.CodeMode{}, "", nil, fmt.Errorf("codeMode profile %s: %w", p, err)
	}
	c.sandboxesMu.Lock()
	c.sandboxes = append(c.sandboxes, rt)
	c.sandboxesMu.Unlock()
	var engines []toolcode.Engine
	for _, lang := range []string{"javascript", "typescript"} {
		e, err := rt.Engine(p, lang)
		if err != nil {
			return toolserver.CodeMode{}, "", nil, err
		}
		engines = append(engines, e)
	}
	return toolserver.CodeMode{
		Timeout:   time.Duration(cm.Timeout),
		Limits:    cm.Limits,
		Admission: cm.Admission,
		Engines:   engines,
	}, p, rt, nil
}

// sandboxCloseTimeout bounds how long Close waits for code mode's
// sandboxes to be removed.
const sandboxCloseTimeout = 10 * time.Second

// warm starts rt's sandboxes ahead in the background (see
// [toolruntime.Runtime.Warm]): the catalogue is ready once they are, so
// that the first program after the server starts finds one. A failure is
// logged: the programs then start their own.
func (c *Catalog) warm(rt *toolruntime.Runtime) {
	c.warmed = make(chan struct{})
	c.wg.Go(func() {
		defer close(c.warmed)
		if err := rt.Warm(c.ctx); err != nil && c.ctx.Err() == nil {
			c.logger.Warn("code mode: the sandboxes kept ready did not start; each program starts its own", "error", err.Error())
		}
	})
}

// closeSandboxes closes the runtimes of code mode, waiting until their
// sandboxes are gone.
func (c *Catalog) closeSandboxes() error {
	c.sandboxesMu.Lock()
	rts := c.sandboxes
	c.sandboxes = nil
	c.sandboxesMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), sandboxCloseTimeout)
	defer cancel()
	var errs []error
	for _, rt := range rts {
		errs = append(errs, rt.Close(ctx))
	}
	return errors.Join(errs...)
}

// profileBackend returns the profile named and its backend, keeping sp
// sandboxes ready. When none is named, programs run under standard where
// this machine can start its sandbox (or where a runner is configured),
// and else under dev, said in a warning: dev shares the server's process
// and bounds a program's memory only approximately.
func profileBackend(name string, sb config.Sandbox, sp spares, logger *slog.Logger) (toolruntime.SecurityProfile, toolruntime.Backend, error) {
	if name == "" && sb.Runner == "" {
		b, err := newBackend(toolruntime.Standard, sb, sp)
		if err == nil {
			return toolruntime.Standard, b, nil
		}
		logger.Warn("code mode runs programs in the server's process (profile dev): the standard profile's sandbox cannot start here; "+
			"dev bounds a program's memory only approximately and shares the server's CPU, files and network. "+
			"Set codeMode.profile to dev to choose it, or make the sandbox available",
			"reason", err.Error())
		name = string(toolruntime.Dev)
	}
	p, err := toolruntime.ParseProfile(cmp.Or(name, string(toolruntime.Standard)))
	if err != nil {
		return "", nil, err
	}
	b, err := newBackend(p, sb, sp)
	if err != nil {
		return "", nil, fmt.Errorf("codeMode profile %s: %w", p, err)
	}
	return p, b, nil
}

// sandboxBackend returns the backend of profile p, keeping sp sandboxes
// ready.
func sandboxBackend(p toolruntime.SecurityProfile, sb config.Sandbox, sp spares) (toolruntime.Backend, error) {
	file, _ := sandboxFileOf(p, sb)
	switch p {
	case toolruntime.Standard:
		runner, err := file.locate()
		if err != nil {
			return nil, err
		}
		opts := []process.Option{process.WithSpares(sp.processes)}
		switch sb.Bubblewrap {
		case "require":
			opts = append(opts, process.RequireBubblewrap())
		case "off":
			opts = append(opts, process.WithoutBubblewrap())
		}
		return process.New(runner, opts...)
	case toolruntime.Hardened:
		module, err := file.locate()
		if err != nil {
			return nil, err
		}
		// Compiling the module takes a minute or more; the machine code
		// is kept in the user's cache for the next start.
		opts := []wasm.Option{wasm.WithSpares(sp.instances)}
		if cache, err := os.UserCacheDir(); err == nil {
			opts = append(opts, wasm.WithCacheDir(filepath.Join(cache, "metatools", "wazero")))
		}
		return wasm.NewFromFile(module, opts...)
	default:
		spare := javascript.WithSpareRuntimes(sp.runtimes)
		return inprocess.New(javascript.New(spare), javascript.NewTypeScript(spare))
	}
}

// sandboxFile is where a profile that runs programs out of process finds
// the file it runs them with: the path configured as
// codeMode.sandbox.<setting>, else name next to the running executable
// or on the PATH, which `make <target>` builds.
type sandboxFile struct {
	configured, name, setting, target string
}

// sandboxFileOf returns the sandbox file of profile p: the runner
// (standard) or the runner compiled to WebAssembly (hardened); ok is
// false for dev, which runs programs in process.
func sandboxFileOf(p toolruntime.SecurityProfile, sb config.Sandbox) (f sandboxFile, ok bool) {
	switch p {
	case toolruntime.Standard:
		return sandboxFile{sb.Runner, runnerName, "runner", "runner"}, true
	case toolruntime.Hardened:
		return sandboxFile{sb.WasmModule, runnerName + ".wasm", "wasmModule", "runner-wasm"}, true
	}
	return sandboxFile{}, false
}

// CheckSandboxFile refuses, as Build does, a configuration whose code
// mode names a file for its profile's sandbox that is not there. A file
// it does not name is looked for on the machine when Build runs, which
// is not the configuration's to answer for.
func CheckSandboxFile(cm config.CodeMode) error {
	f, ok := sandboxFileOf(toolruntime.SecurityProfile(cmp.Or(cm.Profile, string(toolruntime.Standard))), cm.Sandbox)
	if !cm.Enabled || !ok || f.configured == "" {
		return nil
	}
	_, err := f.locate()
	return err
}

// locate returns the configured file, or else the file named next to the
// running executable, or else on the PATH; the error says how to get
// one.
func (f sandboxFile) locate() (string, error) {
	if f.configured != "" {
		if _, err := os.Stat(f.configured); err != nil {
			return "", fmt.Errorf("codeMode.sandbox.%s: %w", f.setting, err)
		}
		return f.configured, nil
	}
	if self, err := os.Executable(); err == nil {
		next := filepath.Join(filepath.Dir(self), f.name)
		if _, err := os.Stat(next); err == nil {
			return next, nil
		}
	}
	if path, err := exec.LookPath(f.name); err == nil {
		return path, nil
	}
	return "", fmt.Errorf("%s is neither next to the metatools executable nor on the PATH: build it with `make %s`, or set codeMode.sandbox.%s", f.name, f.target, f.setting)
}
