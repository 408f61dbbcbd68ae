// Command testserver is an MCP server over standard input and output for
// the tests of mcpexec: the tools of package testtools, plus tools that
// only make sense in a process of their own.
//
//   - crash, annotated destructive and not idempotent, exits the process
//     at once, with status 3, after appending a line to the file named by
//     the environment variable MCPEXEC_TEST_CRASH_LOG, when it is set, so
//     that a test counts its executions across processes;
//   - hang never returns, even when canceled, so the process does not
//     exit when its input is closed;
//   - pid returns {"pid": the process ID};
//   - env returns {"value": the variable named by {"name": ...}, "dir":
//     the working directory}.
//
// The crash tool also writes "testserver: crashing on request" to
// standard error before it exits, and the environ tool returns
// {"environ": the whole environment, as NAME=value strings}.
//
// With -ignore-stdin-close, the process also stays alive after its input
// is closed, and ignores SIGTERM. With -fail MESSAGE, it writes a few
// lines ending with MESSAGE to standard error and exits with status 1
// without answering. With -mute, it reads its input and never answers.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolrun/mcpexec/internal/testtools"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

func main() {
	ignoreClose := flag.Bool("ignore-stdin-close", false, "stay alive after standard input is closed, ignoring SIGTERM")
	fail := flag.String("fail", "", "write this to standard error, and exit with status 1")
	mute := flag.Bool("mute", false, "read standard input, never answer")
	flag.Parse()
	if *fail != "" {
		// Colours and a carriage return, as programs write for terminals.
		fmt.Fprint(os.Stderr, "starting\r\n\x1b[31mconfig:\x1b[0m loaded\n"+*fail)
		os.Exit(1)
	}
	if *mute {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	if *ignoreClose {
		signal.Ignore(syscall.SIGTERM)
	}

	s := testtools.NewServer(testtools.Config{})
	destructive := true
	crash := &mcp.Tool{Name: "crash", InputSchema: objectSchema, Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}}
	s.AddTool(crash, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if path := os.Getenv("MCPEXEC_TEST_CRASH_LOG"); path != "" {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err == nil {
				_, _ = f.WriteString("crash\n")
				_ = f.Close()
			}
		}
		fmt.Fprintln(os.Stderr, "testserver: crashing on request")
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A timer keeps the runtime from taking the process for
		// deadlocked.
		for {
			time.Sleep(time.Hour)
		}
	})
	s.AddTool(&mcp.Tool{Name: "environ", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return testtools.Structured(map[string]any{"environ": os.Environ()})
	})
	s.AddTool(&mcp.Tool{Name: "pid", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return testtools.Structured(map[string]any{"pid": os.Getpid()})
	})
	s.AddTool(&mcp.Tool{Name: "env", InputSchema: objectSchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		dir, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		return testtools.Structured(map[string]any{"value": os.Getenv(in.Name), "dir": dir})
	})

	// reject fails, as a tool whose upstream refuses its key does, quoting
	// the value of the variable named in the text and the structured
	// content of its error result.
	s.AddTool(&mcp.Tool{Name: "reject", InputSchema: objectSchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		msg := "key " + os.Getenv(in.Name) + " rejected"
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}},
			StructuredContent: map[string]any{"error": msg}}, nil
	})

	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
	for *ignoreClose {
		time.Sleep(time.Hour)
	}
}
