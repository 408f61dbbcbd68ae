package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The diagnostic tools of the server-stateless scenario (protocol
// 2026-07-28): one that needs a capability the client may not have
// declared, one that asks for input in its result, one that logs, and two
// that change the lists of tools and prompts, for subscriptions/listen.

func addStatelessTools(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling: refused for a client that did not declare it.", InputSchema: noArgs},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
				data, err := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
				if err != nil {
					return nil, err
				}
				return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "the tool needs the client's sampling capability", Data: data}
			}
			return askFor(mcp.InputRequestMap{"answer": askModel("Say hello", 20)}, ""), nil
		})
	s.AddTool(&mcp.Tool{Name: "test_streaming_elicitation", Description: "Asks the client for its name in its result.", InputSchema: noArgs},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if name, ok := accepted(req.Params.InputResponses, "name", "name"); ok {
				return text(fmt.Sprintf("hello %v", name)), nil
			}
			return askFor(mcp.InputRequestMap{"name": askName("What is your name?", "name")}, ""), nil
		})
	s.AddTool(&mcp.Tool{Name: "test_logging_tool", Description: "Logs three messages, which reach a client that asked for a log level only.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 3 {
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "test_logging_tool", Data: fmt.Sprintf("message %d", i+1)}); err != nil {
					return nil, err
				}
			}
			return text("logged three messages"), nil
		})
	var changes atomic.Int64
	s.AddTool(&mcp.Tool{Name: "test_trigger_tool_change", Description: "Adds a tool, which changes the list of tools.", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := fmt.Sprintf("test_added_tool_%d", changes.Add(1))
			s.AddTool(&mcp.Tool{Name: name, Description: "A tool added by test_trigger_tool_change.", InputSchema: noArgs},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text(name), nil })
			return text("added " + name), nil
		})
	s.AddTool(&mcp.Tool{Name: "test_trigger_prompt_change", Description: "Adds a prompt, which changes the list of prompts.", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := fmt.Sprintf("test_added_prompt_%d", changes.Add(1))
			s.AddPrompt(&mcp.Prompt{Name: name, Description: "A prompt added by test_trigger_prompt_change."},
				func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name}}}}, nil
				})
			return text("added " + name), nil
		})
}
