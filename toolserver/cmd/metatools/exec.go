package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolserver"
)

// execOutput is what `exec --json` prints.
type execOutput struct {
	// Value is the program's value; absent when it failed.
	Value json.RawMessage `json:"value,omitempty"`
	// Logs are the lines it logged.
	Logs []string `json:"logs,omitempty"`
	// Trace lists its tool calls.
	Trace []toolcode.TraceEntry `json:"trace,omitempty"`
	// Error is its failure.
	Error *runError `json:"error,omitempty"`
	// DurationMs is the time it took, in milliseconds.
	DurationMs int64 `json:"durationMs"`
	// Isolation says how the program was confined.
	Isolation *toolcode.Isolation `json:"isolation,omitempty"`
}

func (e *env) exec(ctx context.Context, args []string) error {
	fs := e.flags("exec")
	var c common
	c.register(fs)
	language := fs.String("language", "", "`language` of the program: javascript (js) or typescript (ts) (default: typescript for a .ts, .mts or .cts file, else javascript)")
	timeout := fs.Duration("timeout", 0, "bound on the program (0: codeMode.timeout, by default 30s)")
	trace := fs.Bool("trace", false, "print the program's tool calls, and what enforced its limits, on stderr")
	profile := fs.String("profile", "", "security `profile` to run the program under: dev, standard or hardened (default: codeMode.profile, else standard where its runner is found, else dev)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("exec needs one program: a FILE, or - to read it from standard input")
	}
	if *timeout < 0 {
		return usagef("--timeout must not be negative")
	}
	if *profile != "" {
		if _, err := toolruntime.ParseProfile(*profile); err != nil {
			return usagef("--profile: %s", plainText(err))
		}
	}
	var code []byte
	if rest[0] == "-" {
		code, err = io.ReadAll(e.stdin)
	} else {
		code, err = os.ReadFile(rest[0])
	}
	if err != nil {
		return usagef("read the program: %v", err)
	}
	lang := *language
	if lang == "" {
		lang = "javascript"
		if ext := filepath.Ext(rest[0]); ext == ".ts" || ext == ".mts" || ext == ".cts" {
			lang = "typescript"
		}
	}
	s, err := e.openReady(ctx, c, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer s.Close()
	x, err := s.cat.NewCodeExecutor(*profile)
	if err != nil {
		return configError{err}
	}
	if lang, err = toolserver.CodeLanguage(x.Engines(), lang); err != nil {
		return usagef("--language: %s", plainText(err))
	}
	res, runErr := x.Execute(ctx, toolcode.ExecuteParams{Language: lang, Code: string(code), Timeout: *timeout})
	if c.json {
		out := execOutput{Value: res.Value, Logs: res.Logs, Trace: res.Trace, DurationMs: res.Duration.Milliseconds(), Isolation: res.Isolation}
		if runErr != nil {
			out.Error = &runError{Code: errors.CodeOf(runErr), Message: runErr.Error()}
		}
		if err := e.printJSON(out); err != nil {
			return err
		}
		if runErr != nil {
			return reportedError{exitFailure}
		}
		return nil
	}
	for _, line := range res.Logs {
		fmt.Fprintln(e.stderr, line)
	}
	if *trace {
		e.printTrace(res.Trace)
		e.printIsolation(res.Isolation)
	}
	if runErr != nil {
		return runErr
	}
	var value any
	if err := json.Unmarshal(res.Value, &value); err != nil {
		return err
	}
	return e.printValue(value)
}

// printIsolation shows on stderr what confined a program and what
// enforced each of its limits.
func (e *env) printIsolation(iso *toolcode.Isolation) {
	if iso == nil {
		return
	}
	fmt.Fprintf(e.stderr, "  ran on %s, profile %s:\n", iso.Backend, iso.Profile)
	for _, row := range iso.Enforced {
		value, by := "", "not enforced"
		if row.Value != "" {
			value = " " + row.Value
		}
		if row.Enforced() {
			by = "by " + row.By
		}
		fmt.Fprintf(e.stderr, "    %s%s: %s\n", row.Name, value, by)
	}
}

// printTrace shows a program's tool calls on stderr, one line each.
func (e *env) printTrace(trace []toolcode.TraceEntry) {
	for _, t := range trace {
		outcome := "ok"
		if !t.OK {
			outcome = "error " + string(t.ErrorCode)
		}
		var backend string
		if t.Backend != "" {
			backend = " on " + t.Backend
		}
		fmt.Fprintf(e.stderr, "  call %s%s: %s, %v\n", t.ToolID, backend, outcome, t.Duration.Round(time.Microsecond))
		if t.Error != "" && !strings.Contains(outcome, t.Error) {
			fmt.Fprintf(e.stderr, "    %s\n", t.Error)
		}
	}
}
