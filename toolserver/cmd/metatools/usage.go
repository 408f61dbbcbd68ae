package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandDoc is what `metatools COMMAND -h` says of a command besides its
// flags, which come from the command's own flag set so that they cannot
// drift from what it accepts.
type commandDoc struct {
	// args is the synopsis of the positional arguments.
	args string
	// summary says what the command does, in a sentence or two.
	summary string
	// example is one command line that works as it is.
	example string
}

// commandDocs documents every command and subcommand, by the name of its
// flag set.
var commandDocs = map[string]commandDoc{
	"serve": {
		summary: "Serve the catalogue to MCP clients behind the meta-tools: over stdio by default, or\n" +
			"streamable HTTP at /mcp with --http. A port alone (:8080) listens on 127.0.0.1 only;\n" +
			"naming a host (0.0.0.0:8080) needs bearer tokens (--token-file, METATOOLS_TOKEN or\n" +
			"the configuration) or --insecure-no-auth. /healthz and /readyz answer probes; the web\n" +
			"console, when server.http.console.enabled, is at /ui behind the same tokens. Ctrl-C\n" +
			"(SIGINT) or SIGTERM stops it cleanly: over HTTP, /readyz turns 503 and serving goes on\n" +
			"for the drain delay (the default one only once something has asked /readyz), then\n" +
			"running calls finish (server.shutdownTimeout). A second Ctrl-C or SIGTERM stops at once,\n" +
			"cutting the calls still running.",
		example: "metatools serve --config metatools.yaml --http :8080",
	},
	"search": {
		args:    "QUERY...",
		summary: "Find tools for a task, best match first.",
		example: "metatools search --limit 5 convert a time zone",
	},
	"describe": {
		args:    "ID",
		summary: "Print a tool's documentation, as Markdown or (--json) as the describe_tool meta-tool returns it.",
		example: "metatools describe time:convert --level schema",
	},
	"run": {
		args: "ID [JSON | @FILE | -]",
		summary: "Run a tool with its arguments: a JSON object, @FILE to read one from a file, or - to read\n" +
			"one from standard input. Text is printed as it is; images, audio and other binary\n" +
			"content are shown as one line each ([image image/png, 12.3 KiB]) and saved to files\n" +
			"with --out. A tool's failure exits 1.",
		example: `metatools run math:eval '{"expression": "2^10 + sqrt(16)"}'`,
	},
	"exec": {
		args: "FILE | -",
		summary: "Run a JavaScript or TypeScript program that calls the catalogue's tools (code mode), as the\n" +
			"execute_code meta-tool does, within codeMode's limits (codeMode.enabled need not be set).\n" +
			"The program calls await tools.<namespace>.<name>(args), tools.search(query), tools.run(id, args);\n" +
			"its value is printed on stdout, its console.log lines on stderr. A failed program exits 1.\n" +
			"--profile standard runs it in a sandboxed process of toolruntime-runner, hardened in WebAssembly.",
		example: `metatools exec --profile standard --trace - <<< 'return await tools.math.eval({expression: "6*7"})'`,
	},
	"tools": {
		summary: "List every tool of the catalogue, or of one namespace. Subcommands:\n" +
			"  review          list the upstream tools, prompts and templates withheld until approved\n" +
			"  approve ID...   approve them (--upstream NAME: all of an upstream's)",
		example: "metatools tools --namespace time",
	},
	"tools review": {
		summary: "List what the upstreams offer that waits for an operator's approval before the model sees\n" +
			"it (a tool changed since it was approved, a new one under trust: review, one whose\n" +
			"description or schema holds a dangerous finding): why, the findings, and what changed.",
		example: "metatools tools review --config metatools.yaml",
	},
	"tools approve": {
		args: "ID...",
		summary: "Approve what tools review lists, by ID or for a whole upstream: it is pinned as approved,\n" +
			"and a running metatools serves it within seconds.",
		example: "metatools tools approve --config metatools.yaml --upstream github",
	},
	"config": {
		args: "SUBCOMMAND",
		summary: "Work with configuration files. Subcommands:\n" +
			"  validate FILE   check a configuration file\n" +
			"  import FILE     print an MCP host's servers (claude_desktop_config.json, mcp.json) as metatools YAML\n" +
			"  example         print a commented configuration\n" +
			`Run "metatools config SUBCOMMAND -h" for a subcommand's flags.`,
		example: "metatools config validate metatools.yaml",
	},
	"config validate": {
		args: "FILE",
		summary: "Check a configuration file (metatools YAML, or an MCP host's JSON) without starting anything.\n" +
			"An invalid file exits 2.",
		example: "metatools config validate --json metatools.yaml",
	},
	"config import": {
		args:    "FILE",
		summary: "Print the servers of an MCP host's configuration file as a metatools configuration, to add policies and limits to.",
		example: "metatools config import ~/.config/Claude/claude_desktop_config.json > metatools.yaml",
	},
	"config example": {
		summary: "Print a commented configuration that names every setting.",
		example: "metatools config example > metatools.yaml",
	},
	"stats": {
		summary: "Measure the context the meta-tools save: the bytes and tokens of a classic tools/list\n" +
			"against search_tools and describe_tool, for the configured catalogue or a JSON Lines file of tools.",
		example: "metatools stats --tools tools.jsonl --query 'create an issue'",
	},
	"version": {
		summary: "Print the version of metatools: the module version it was built at, else the revision of its source, else devel.",
		example: "metatools version --json",
	},
}

// synopsis returns the one-line synopsis of the command fs parses.
func synopsis(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("metatools " + fs.Name())
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		b.WriteString(" [flags]")
	}
	if args := commandDocs[fs.Name()].args; args != "" {
		b.WriteString(" " + args)
	}
	return b.String()
}

// printUsage writes the whole usage of the command fs parses: synopsis,
// what it does, its flags with their defaults, and an example.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	doc := commandDocs[fs.Name()]
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", synopsis(fs), doc.summary)
	var flags strings.Builder
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", flags.String())
	}
	if doc.example != "" {
		fmt.Fprintf(w, "\nExample:\n  %s\n", doc.example)
	}
}

// printShortUsage writes the synopsis of the command fs parses and where
// to read more, after an error in its command line.
func printShortUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\nRun \"metatools %s -h\" for more.\n", synopsis(fs), fs.Name())
}

// helpRequest is the error parse returns when the command line asks for
// a command's help: [env.exit] prints that help and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h helpRequest) Error() string { return h.fs.Name() + ": help requested" }
