// Command conformanceupstream is an MCP server that implements the tools,
// resources and prompts that the server scenarios of the official MCP
// conformance suite (@modelcontextprotocol/conformance) call by name.
//
// The conformance tests of metatools put it behind `metatools serve` as an
// upstream, so that a scenario that fails there measures what the gateway
// loses, not what the upstream lacks; run alone, it passes every scenario,
// which the same tests check.
//
//	conformanceupstream                         # MCP over stdio
//	conformanceupstream --http 127.0.0.1:8080   # streamable HTTP at /mcp
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolserver/internal/transport"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceupstream:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr string) error {
	server := newServer()
	if addr == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	// Clients of 2026-07-28 are served without sessions, the others with
	// them, as metatools serves both. The event store lets a client resume
	// a stream that test_reconnection closes in the middle of its call.
	getServer := func(*http.Request) *mcp.Server { return server }
	mux.Handle("/mcp", transport.ByRevision(
		mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}),
		mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})))
	fmt.Fprintf(os.Stderr, "serving MCP at http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

// pause is the delay between the notifications of the logging and
// progress tools: the scenarios ask for about 50 ms, so that a client
// receives them during the call rather than all at once.
const pause = 50 * time.Millisecond

// newServer returns the server with every tool, resource and prompt of the
// scenarios.
func newServer() *mcp.Server {
	subs := &subscriptions{uris: map[string]bool{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "conformance-upstream", Version: "1"}, &mcp.ServerOptions{
		Logger:             slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		CompletionHandler:  complete,
		SubscribeHandler:   subs.subscribe,
		UnsubscribeHandler: subs.unsubscribe,
		// No Capabilities: the go-sdk's defaults declare logging, which
		// logging-set-level and tools-call-with-logging use.
	})
	addTools(server)
	addInputTools(server)
	addStatelessTools(server)
	addResources(server)
	addPrompts(server)
	return server
}

// noArgs is the input schema of the tools without arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

func addTools(s *mcp.Server) {
	content := func(name, description string, c ...mcp.Content) {
		s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: c}, nil
			})
	}
	content("test_simple_text", "Returns a simple text response.",
		&mcp.TextContent{Text: "This is a simple text response for testing."})
	content("test_image_content", "Returns a one-pixel PNG image.",
		&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"})
	content("test_audio_content", "Returns a short silent WAV sound.",
		&mcp.AudioContent{Data: silence, MIMEType: "audio/wav"})
	content("test_embedded_resource", "Returns an embedded text resource.",
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}})
	content("test_multiple_content_types", "Returns text, an image and an embedded resource.",
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
		}})

	s.AddTool(&mcp.Tool{Name: "test_error_handling", Description: "Always fails, as a tool error.", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
				&mcp.TextContent{Text: "This tool intentionally returns an error for testing"},
			}}, nil
		})

	s.AddTool(&mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three info log messages while it runs.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := sleep(ctx, pause); err != nil {
						return nil, err
					}
				}

				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance-upstream", Data: msg}); err != nil {
					return nil, err
				}
			}
			return text("Tool with logging executed successfully"), nil
		})

	s.AddTool(&mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100 while it runs.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			for i, progress := range []float64{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, pause); err != nil {
						return nil, err
					}
				}
				if token == nil {
					continue
				}
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: progress, Total: 100,
				}); err != nil {
					return nil, err
				}
			}
			return text("Tool with progress executed successfully"), nil
		})

	s.AddTool(&mcp.Tool{Name: "test_sampling", Description: "Asks the client's model to answer a prompt.", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the model"}},"required":["prompt"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Prompt string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			// Deprecated in a newer protocol, sampling is what tools-call-sampling checks.
			question := &mcp.SamplingMessage{Role: "user", Content: &mcp.TextContent{Text: args.Prompt}}
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{question},
				MaxTokens: 100,
			})
			if err != nil {
				return toolError("sampling: %v", err), nil
			}
			answer := ""
			if t, ok := res.Content.(*mcp.TextContent); ok {
				answer = t.Text
			}
			return text("LLM response: " + answer), nil
		})

	elicit := func(name, description string, inputSchema json.RawMessage, message func(json.RawMessage) (string, error), schema map[string]any) {
		s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: inputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				msg, err := message(req.Params.Arguments)
				if err != nil {
					return nil, err
				}
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: schema})
				if err != nil {
					return toolError("elicitation: %v", err), nil
				}
				answer, _ := json.Marshal(res.Content)
				return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, answer)), nil
			})
	}
	fixed := func(msg string) func(json.RawMessage) (string, error) {
		return func(json.RawMessage) (string, error) { return msg, nil }
	}
	elicit("test_elicitation", "Asks the user for a user name and an e-mail address.", json.RawMessage(
		`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`),
		func(raw json.RawMessage) (string, error) {
			var args struct{ Message string }
			err := json.Unmarshal(raw, &args)
			return args.Message, err
		},
		object(map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		}, "username", "email"))
	elicit("test_elicitation_sep1034_defaults", "Asks the user for fields that all have defaults.", noArgs,
		fixed("Please review your information"),
		object(map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		}))
	choices := func(key string, pairs ...string) []map[string]string {
		var out []map[string]string
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, map[string]string{"const": pairs[i], key: pairs[i+1]})
		}
		return out
	}
	elicit("test_elicitation_sep1330_enums", "Asks the user to choose among every kind of enumeration.", noArgs,
		fixed("Please choose your options"),
		object(map[string]any{
			"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
			"titledSingle": map[string]any{"type": "string", "oneOf": choices("title",
				"value1", "First Option", "value2", "Second Option", "value3", "Third Option")},
			"legacyEnum": map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
				"enumNames": []string{"Option One", "Option Two", "Option Three"}},
			"untitledMulti": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
			"titledMulti": map[string]any{"type": "array", "items": map[string]any{"anyOf": choices("title",
				"value1", "First Choice", "value2", "Second Choice", "value3", "Third Choice")}},
		}))

	s.AddTool(&mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Takes arguments described with JSON Schema 2020-12 keywords.", InputSchema: json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
		"additionalProperties": false
	}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("Received " + string(req.Params.Arguments)), nil
	})

	s.AddTool(&mcp.Tool{Name: "test_reconnection", Description: "Closes its SSE stream before it answers, so that the client resumes it.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Over streamable HTTP, the stream closes with a retry hint and the
			// answer waits for the client's reconnection; over stdio there is
			// no stream to close.
			if req.Extra != nil && req.Extra.CloseSSEStream != nil {
				req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 100 * time.Millisecond})
				if err := sleep(ctx, 4*pause); err != nil {
					return nil, err
				}
			}
			return text("Reconnection test completed successfully"), nil
		})
}

// object is an object schema with the given properties.
func object(props map[string]any, required ...string) map[string]any {
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

func addResources(s *mcp.Server) {
	static := func(uri, name, description, mime string, contents *mcp.ResourceContents) {
		s.AddResource(&mcp.Resource{URI: uri, Name: name, Description: description, MIMEType: mime},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents}}, nil
			})
	}
	static("test://static-text", "static-text", "A static text resource.", "text/plain",
		&mcp.ResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."})
	static("test://static-binary", "static-binary", "A static binary resource: a one-pixel PNG image.", "image/png",
		&mcp.ResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: redPixel})
	static("test://watched-resource", "watched-resource", "A resource clients may subscribe to.", "text/plain",
		&mcp.ResourceContents{URI: "test://watched-resource", MIMEType: "text/plain", Text: "Watched resource content."})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "test://template/{id}/data", Name: "template-data",
		Description: "Data for an ID, read through a template.", MIMEType: "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
		data, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
	})
}

func addPrompts(s *mcp.Server) {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{
			Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]),
		})}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
			}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt that holds an image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				user(&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"}),
				user(&mcp.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}

// completions are the values offered for prompt arguments, by prefix.
var completions = []string{"paris", "park", "party", "test", "testing", "tester"}

func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	values := []string{}
	for _, v := range completions {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// subscriptions are the resource URIs clients subscribed to. Nothing ever
// changes here, so no update is ever sent; the set only answers the
// requests.
type subscriptions struct {
	mu   sync.Mutex
	uris map[string]bool
}

func (s *subscriptions) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uris[req.Params.URI] = true
	return nil
}

func (s *subscriptions) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.uris, req.Params.URI)
	return nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolError(format string, args ...any) *mcp.CallToolResult {
	res := text(fmt.Sprintf(format, args...))
	res.IsError = true
	return res
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// redPixel is a PNG image of one red pixel, encoded at start-up.
var redPixel = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return buf.Bytes()
}()

// silence is a WAV file of 100 ms of 8 kHz, 8-bit mono silence.
var silence = func() []byte {
	const rate, samples = 8000, 800
	var buf bytes.Buffer
	w := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	buf.WriteString("RIFF")
	w(uint32(36 + samples))
	buf.WriteString("WAVEfmt ")
	w(uint32(16))   // fmt chunk size
	w(uint16(1))    // PCM
	w(uint16(1))    // mono
	w(uint32(rate)) // sample rate
	w(uint32(rate)) // byte rate
	w(uint16(1))    // block align
	w(uint16(8))    // bits per sample
	buf.WriteString("data")
	w(uint32(samples))
	buf.Write(bytes.Repeat([]byte{128}, samples)) // 8-bit PCM is unsigned: 128 is silence
	return buf.Bytes()
}()
