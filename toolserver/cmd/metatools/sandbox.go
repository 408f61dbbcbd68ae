package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
	"github.com/metatools-go/metatools/toolruntime/process"
	"github.com/metatools-go/metatools/toolruntime/wasm"
	"github.com/metatools-go/metatools/toolserver/config"
)

// runnerName is the runner binary of the standard profile, looked for
// next to the metatools executable and then on the PATH.
const runnerName = "toolruntime-runner"

// codeEngines returns the engines of code mode: JavaScript and TypeScript,
// run under the security profile named (the configuration's when empty,
// dev when neither names one), within the sandbox's limits. A profile
// this machine cannot enforce is an error naming what is missing.
func codeEngines(cm config.CodeMode, profile string) ([]toolcode.Engine, error) {
	if profile == "" {
		profile = cm.Profile
	}
	if profile == "" {
		profile = string(toolruntime.Dev)
	}
	p, err := toolruntime.ParseProfile(profile)
	if err != nil {
		return nil, err
	}
	backend, err := sandboxBackend(p, cm.Sandbox)
	if err != nil {
		return nil, configError{fmt.Errorf("codeMode profile %s: %w", p, err)}
	}
	rt, err := toolruntime.New(toolruntime.WithBackend(p, backend), toolruntime.WithLimits(toolruntime.Limits{
		CPUTime: time.Duration(cm.Sandbox.CPUTime), Memory: cm.Sandbox.Memory,
		Processes: cm.Sandbox.Processes, FileSize: cm.Sandbox.FileSize,
	}))
	if err != nil {
		return nil, configError{fmt.Errorf("codeMode profile %s: %w", p, err)}
	}
	var engines []toolcode.Engine
	for _, lang := range []string{"javascript", "typescript"} {
		e, err := rt.Engine(p, lang)
		if err != nil {
			return nil, err
		}
		engines = append(engines, e)
	}
	return engines, nil
}

// sandboxBackend returns the backend of profile p.
func sandboxBackend(p toolruntime.SecurityProfile, sb config.Sandbox) (toolruntime.Backend, error) {
	switch p {
	case toolruntime.Standard:
		runner, err := locate(sb.Runner, runnerName)
		if err != nil {
			return nil, err
		}
		var opts []process.Option
		switch sb.Bubblewrap {
		case "require":
			opts = append(opts, process.RequireBubblewrap())
		case "off":
			opts = append(opts, process.WithoutBubblewrap())
		}
		return process.New(runner, opts...)
	case toolruntime.Hardened:
		module, err := locate(sb.WasmModule, runnerName+".wasm")
		if err != nil {
			return nil, err
		}
		// Compiling the module takes a minute or more; the machine code
		// is kept in the user's cache for the next start.
		var opts []wasm.Option
		if cache, err := os.UserCacheDir(); err == nil {
			opts = append(opts, wasm.WithCacheDir(filepath.Join(cache, "metatools", "wazero")))
		}
		return wasm.NewFromFile(module, opts...)
	default:
		return inprocess.New(javascript.New(), javascript.NewTypeScript())
	}
}

// locate returns the file configured, or else name next to the metatools
// executable, or else name on the PATH.
func locate(configured, name string) (string, error) {
	if configured != "" {
		if _, err := os.Stat(configured); err != nil {
			return "", err
		}
		return configured, nil
	}
	if self, err := os.Executable(); err == nil {
		next := filepath.Join(filepath.Dir(self), name)
		if _, err := os.Stat(next); err == nil {
			return next, nil
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	return "", fmt.Errorf("%s is neither next to the metatools executable nor on the PATH: build it with `make runner`, or set codeMode.sandbox", name)
}
