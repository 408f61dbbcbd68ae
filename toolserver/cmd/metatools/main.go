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
//	metatools run [--config FILE] ID [JSON|@FILE|-] run a tool
//	metatools tools [--config FILE]                list the catalogue
//	metatools config validate FILE                 check a configuration file
//	metatools config import FILE                   print an MCP host's servers as a configuration
//	metatools config example                       print a commented configuration
//	metatools stats [--tools FILE]                 measure the context the meta-tools save
//
// Without --config, the embedded default catalogue of built-in tools is
// served. Every command takes --json for output meant for scripts.
//
// A configuration file is a metatools YAML file, or the file an MCP host
// keeps its servers in (claude_desktop_config.json, Cursor's mcp.json, VS
// Code's .vscode/mcp.json), read as it is; `config import` turns the
// latter into the former, to add policies and limits to.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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

const usage = `metatools: one MCP server for all your tools.

Usage:
  metatools serve [--config FILE] [--http ADDR] [--stateless] [--token-file FILE]
                  [--insecure-no-auth]
  metatools search [--config FILE] [--namespace NS] [--limit N] QUERY...
  metatools describe [--config FILE] [--level summary|schema|full] ID
  metatools run [--config FILE] [--backend ID] ID [JSON | @FILE | -]
  metatools tools [--config FILE] [--namespace NS]
  metatools config validate FILE
  metatools config import FILE
  metatools config example
  metatools stats [--tools FILE.jsonl] [--query Q]

Every command takes --json for output meant for scripts. Without --config,
the built-in tools are served. A configuration FILE may also be an MCP host's
(claude_desktop_config.json, mcp.json), read as it is; "config import" prints
it as metatools YAML. Run "metatools COMMAND -h" for a command's flags.

serve --http :8080 listens on 127.0.0.1 only; name a host (0.0.0.0:8080) to
listen beyond it, which needs bearer tokens: from --token-file, the
METATOOLS_TOKEN variable or the configuration (--token works too, but other
users of the machine can read it in the process list), or --insecure-no-auth.
`

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
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
	case "config":
		err = env.config(rest)
	case "stats":
		err = env.stats(ctx, rest)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = usagef("unknown command %q", cmd)
	}
	return env.exit(err)
}

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// exit reports err and returns the exit code it calls for.
func (e *env) exit(err error) int {
	switch {
	case err == nil:
		return exitOK
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
