// Command metatools serves a whole tool catalogue (upstream MCP servers,
// OpenAPI and gRPC services, built-in tools) to MCP clients behind a few
// meta-tools, and lets people at a terminal search, read and run the same
// tools.
//
// Usage:
//
//	metatools serve [--config FILE] [--http ADDR]   serve MCP (stdio by default)
//	metatools search [--config FILE] QUERY         find tools
//	metatools describe [--config FILE] ID          read a tool's documentation
//	metatools run [--config FILE] [--out DIR] ID [JSON|@FILE|-]
//	                                               run a tool
//	metatools tools [--config FILE]                list the catalogue
//	metatools exec [--config FILE] FILE|-          run a program calling tools (code mode)
//	metatools config validate FILE                 check a configuration file
//	metatools config import FILE                   print an MCP host's servers as a configuration
//	metatools config example                       print a commented configuration
//	metatools stats [--tools FILE]                 measure the context the meta-tools save
//	metatools version                              print the version (also --version)
//	metatools help [COMMAND]                       print the usage of metatools or of a command
//
// Without --config, the embedded default catalogue of built-in tools is
// served. search, describe, run, tools, exec, stats, config validate and version
// take --json for output meant for scripts. Every command and subcommand
// prints its own usage, flags and an example with -h or --help.
//
// A configuration file is a metatools YAML file, or the file an MCP host
// keeps its servers in (claude_desktop_config.json, Cursor's mcp.json, VS
// Code's .vscode/mcp.json), read as it is; `config import` turns the
// latter into the former, to add policies and limits to.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/internal/spell"
)

func main() {
	intr := watchInterrupts()
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, intr: intr}
	code := e.run(intr.stop, os.Args[1:])
	intr.release()
	os.Exit(code)
}

// interrupts follows SIGINT and SIGTERM. The first cancels stop, with a
// [stopSignal] as its cause. A second one ends the process at once, as
// people expect of a terminal program, unless a command asked to handle
// it (see catchSecond): then it cancels now, and a third ends the
// process.
type interrupts struct {
	stop, now context.Context
	// second is set while a command handles a second signal itself.
	second  atomic.Bool
	release func()
}

// watchInterrupts starts following SIGINT and SIGTERM.
func watchInterrupts() *interrupts {
	stop, cancelStop := context.WithCancelCause(context.Background())
	now, cancelNow := context.WithCancelCause(context.Background())
	i := &interrupts{stop: stop, now: now}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var once sync.Once
	i.release = func() {
		once.Do(func() { close(done) })
		cancelStop(nil)
		cancelNow(nil)
	}
	go func() {
		// Once no signal is caught any more, the next one has its default
		// effect: it ends the process.
		defer signal.Stop(signals)
		select {
		case sig := <-signals:
			if !i.second.Load() {
				signal.Stop(signals)
			}
			cancelStop(stopSignal{sig})
		case <-done:
			return
		}
		if !i.second.Load() {
			return
		}
		select {
		case sig := <-signals:
			cancelNow(stopSignal{sig})
		case <-done:
		}
	}()
	return i
}

// catchSecond makes a second signal cancel the context it returns rather
// than end the process: a server that stops gracefully then cuts its stop
// short. Without interrupts (a command run in-process by tests), the
// context is never cancelled.
func (i *interrupts) catchSecond() context.Context {
	if i == nil {
		return context.Background()
	}
	i.second.Store(true)
	return i.now
}

// stopSignal is the cause of the cancellation of the command's context
// when a signal asks the process to stop.
type stopSignal struct{ sig os.Signal }

func (s stopSignal) Error() string { return "stopped by " + s.name() }

// name is the signal's name as a user writes it (Go's own is
// "interrupt" or "terminated").
func (s stopSignal) name() string {
	switch s.sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.sig.String()
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed: a tool error, an unreachable upstream
	exitUsage   = 2 // the command line or the configuration is wrong
)

// usageError is an error in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// reportedError is a failure the command has already reported on its
// output (as JSON, for scripts): only its exit code is left to give.
type reportedError struct{ code int }

func (e reportedError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

const usage = `metatools: one MCP server for all your tools.

Usage:
  metatools serve [--config FILE] [--http ADDR] [--stateless] [--token-file FILE]
                  [--insecure-no-auth] [--drain-delay D] [--log-level L]
  metatools search [--config FILE] [--namespace NS] [--limit N] QUERY...
  metatools describe [--config FILE] [--level summary|schema|full] ID
  metatools run [--config FILE] [--backend ID] [--timeout D] [--out DIR] ID [JSON | @FILE | -]
  metatools tools [--config FILE] [--namespace NS]
  metatools tools review [--config FILE]
  metatools tools approve [--config FILE] [--upstream NAME] [ID...]
  metatools exec [--config FILE] [--language L] [--timeout D] [--profile P] [--trace] FILE | -
  metatools config validate FILE
  metatools config import FILE
  metatools config example
  metatools stats [--tools FILE.jsonl] [--query Q] [--limit N]
  metatools version
  metatools help [COMMAND]

search, describe, run, tools, exec, stats, config validate and version take --json
for output meant for scripts. Without --config, the built-in tools are
served. A configuration FILE may also be an MCP host's
(claude_desktop_config.json, mcp.json), read as it is; "config import" prints
it as metatools YAML. Run "metatools COMMAND -h" for a command's flags and an
example; "metatools --version" prints the version.

A mistyped command, flag, tool ID or namespace gets a suggestion when a known one
is near. Ctrl-C stops serve; a second Ctrl-C stops it at once.

serve --http :8080 listens on 127.0.0.1 only; name a host (0.0.0.0:8080) to
listen beyond it, which needs bearer tokens: from --token-file, the
METATOOLS_TOKEN variable or the configuration (--token works too, but other
users of the machine can read it in the process list), or --insecure-no-auth.
`

// helpWords ask for help, as a command or as the first word after one:
// "help help" is the usage, not "help -h" once more.
var helpWords = []string{"help", "-h", "-help", "--help"}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&env{stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx, args)
}

// run runs the command line args with e and returns the exit code.
func (e *env) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	if slices.Contains(helpWords, args[0]) {
		rest := args[1:]
		if len(rest) == 0 || slices.Contains(helpWords, rest[0]) {
			fmt.Fprint(e.stdout, usage)
			return exitOK
		}
		// "help config validate" is "config validate -h".
		return e.run(ctx, append(rest[:len(rest):len(rest)], "-h"))
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		err = e.serve(ctx, rest)
	case "search":
		err = e.search(ctx, rest)
	case "describe":
		err = e.describe(ctx, rest)
	case "run":
		err = e.runTool(ctx, rest)
	case "tools":
		err = e.tools(ctx, rest)
	case "exec":
		err = e.exec(ctx, rest)
	case "config":
		err = e.config(rest)
	case "stats":
		err = e.stats(ctx, rest)
	case "version", "--version", "-version", "-v":
		err = e.version(rest)
	default:
		err = usagef("unknown command %q%s", cmd, didYouMean(cmd, commands))
	}
	return e.exit(err)
}

// commands are the command names run knows, for the hint that follows an
// unknown one.
var commands = []string{"serve", "search", "describe", "run", "tools", "exec", "config", "stats", "version", "help"}

// didYouMean returns " (did you mean "X"?)" when a word of known is near
// enough to word to be what was meant, else "".
func didYouMean(word string, known []string) string {
	if s, ok := spell.Suggest(word, known); ok {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// cmd is the flag set of the command running, once it has one: its
	// usage follows an error in its command line.
	cmd *flag.FlagSet
	// intr follows the process's signals; nil when the command runs
	// in-process, as in tests.
	intr *interrupts
}

// exit reports err and returns the exit code it calls for.
func (e *env) exit(err error) int {
	var help helpRequest
	var reported reportedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &help):
		printUsage(e.stdout, help.fs)
		return exitOK
	case errors.As(err, &reported):
		return reported.code
	case isUsage(err) && e.cmd != nil:
		fmt.Fprintf(e.stderr, "metatools: %v\n", err)
		printShortUsage(e.stderr, e.cmd)
		return exitUsage
	case isUsage(err):
		fmt.Fprintf(e.stderr, "metatools: %v\n\n%s", err, usage)
		return exitUsage
	case isConfigError(err):
		// A configuration's problems are worded already, one a line.
		fmt.Fprintf(e.stderr, "metatools: %s\n", plainText(err))
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "metatools: %s\n", errorText(err))
		return exitFailure
	}
}
