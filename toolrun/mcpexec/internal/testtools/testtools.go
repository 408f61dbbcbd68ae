// Package testtools builds the MCP server that the tests of mcpexec run
// against, both in their own process and as a separate program (see the
// testserver command next to it).
package testtools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
)

// objectSchema accepts any JSON object.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// Tool names of the server.
const (
	// Echo returns its arguments as its structured result, and as JSON
	// text.
	Echo = "echo"
	// Fail fails as a tool: isError, with the text "boom".
	Fail = "fail"
	// Block returns only when its request is canceled, or the server's
	// Config.Release is closed.
	Block = "block"
	// Progress sends {"steps": n} progress notifications ("step i of n"),
	// then pings the client, so that the client has handled them before
	// the result arrives, and returns the text "done"; with
	// {"unordered": true} it does not ping, as most servers do not.
	Progress = "progress"
	// Denied answers with a JSON-RPC error of code permission_denied.
	Denied = "denied"
)

// Config configures a server.
type Config struct {
	// Options are the server's options.
	Options *mcp.ServerOptions
	// Release, when closed, ends the calls of Block: a stateless HTTP
	// server does not cancel them when the client gives up, and a
	// stateful one waits for them when its session is deleted.
	Release <-chan struct{}
}

// NewServer returns a server offering the tools above.
func NewServer(cfg Config) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testtools", Version: "v1"}, cfg.Options)
	s.AddTool(&mcp.Tool{Name: Echo, Description: "Return the arguments.", InputSchema: objectSchema}, echo)
	s.AddTool(&mcp.Tool{Name: Fail, Description: "Fail as a tool.", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: Block, Description: "Wait for cancellation.", InputSchema: objectSchema}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-cfg.Release:
			return nil, errors.New("released")
		}
	})
	s.AddTool(&mcp.Tool{Name: Progress, Description: "Report progress.", InputSchema: objectSchema}, progress)
	s.AddTool(&mcp.Tool{Name: Denied, Description: "Refuse with a protocol error.", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w := errors.ToWire(errors.Errorf(errors.PermissionDenied, "no access to the vault"))
		return nil, &jsonrpc.Error{Code: w.Code, Message: w.Message, Data: w.Data}
	})
	return s
}

// Structured returns a result whose structured content is v, also given
// as JSON text.
func Structured(v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}, nil
}

func echo(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	return &mcp.CallToolResult{StructuredContent: args, Content: []mcp.Content{&mcp.TextContent{Text: string(args)}}}, nil
}

func progress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Steps int `json:"steps"`
		// Unordered leaves out the ping that makes the client handle the
		// notifications before the result, as most servers do.
		Unordered bool `json:"unordered"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	token := req.Params.GetProgressToken()
	if token != nil {
		for i := 1; i <= in.Steps; i++ {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d of %d", i, in.Steps),
			})
			if err != nil {
				return nil, err
			}
		}
		// The client handles its messages in order: once it has answered
		// the ping, it has handled the notifications.
		if !in.Unordered {
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, err
			}
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
}
