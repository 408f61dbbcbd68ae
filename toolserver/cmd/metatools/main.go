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
	"syscall"

	"github.com/metatools-go/metatools/errors"
)

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// signalContext returns a context cancelled, with a [stopSignal] as its
// cause, by the first SIGINT or SIGTERM. Only the first is caught: a
// second Ctrl-C during a graceful stop ends the process at once, as
// people expect of a terminal program.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-signals:
			signal.Stop(signals)
			cancel(stopSignal{sig})
		case <-ctx.Done():
			signal.Stop(signals)
		}
	}()
	return ctx, func() { cancel(nil) }
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
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if slices.Contains(helpWords, args[0]) {
		rest := args[1:]
		if len(rest) == 0 || slices.Contains(helpWords, rest[0]) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		// "help config validate" is "config validate -h".
		return run(ctx, append(rest[:len(rest):len(rest)], "-h"), stdin, stdout, stderr)
	}
	env := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		err = env.serve(ctx, rest)
	case "search":
		err = env.search(ctx, rest)
	case "describe":
		err = env.describe(ctx, rest)
	case "run":
		err = env.runTool(ctx, rest)
	case "tools":
		err = env.tools(ctx, rest)
	case "exec":
		err = env.exec(ctx, rest)
	case "config":
		err = env.config(rest)
	case "stats":
		err = env.stats(ctx, rest)
	case "version", "--version", "-version", "-v":
		err = env.version(rest)
	default:
		err = usagef("unknown command %q", cmd)
	}
	return env.exit(err)
}

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// cmd is the flag set of the command running, once it has one: its
	// usage follows an error in its command line.
	cmd *flag.FlagSet
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
	default:
		fmt.Fprintf(e.stderr, "metatools: %v\n", err)
		if isConfigError(err) {
			return exitUsage
		}
		return exitFailure
	}
}
