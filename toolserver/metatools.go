package toolserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// The names of the meta-tools.
const (
	ToolSearch     = "search_tools"
	ToolNamespaces = "list_namespaces"
	ToolDescribe   = "describe_tool"
	ToolExamples   = "list_tool_examples"
	ToolRun        = "run_tool"
	ToolRunChain   = "run_chain"
)

// MetaErrorKey is the _meta key of a tool error result that carries the
// error in the wire form of the errors module ([errors.WireError]: a
// JSON-RPC code and message, and in its data the taxonomy code, op, tool,
// backend, retryability and cause), for clients that branch on it. A Go
// client recovers the *errors.Error with [errors.FromWire].
const MetaErrorKey = "dev.metatools/error"

type searchInput struct {
	Query     string `json:"query" jsonschema:"what you need a tool for, in a few words (empty lists the catalogue)"`
	Namespace string `json:"namespace,omitempty" jsonschema:"only tools of this namespace (see list_namespaces)"`
	Limit     int    `json:"limit,omitempty"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of a previous answer, for more results"`
}

// toolSummary is what search_tools says of a tool: enough to choose, no
// more.
type toolSummary struct {
	ID          string   `json:"id"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

type searchOutput struct {
	Tools      []toolSummary `json:"tools"`
	NextCursor string        `json:"nextCursor,omitempty"`
	// Note says which tools the search could not see (toolops.SearchResult).
	Note string `json:"note,omitempty"`
	// TypeScript declares the tools found, for execute_code; only with
	// code mode.
	TypeScript string `json:"typescript,omitempty"`
}

type namespacesInput struct{}

type namespacesOutput struct {
	Namespaces []string           `json:"namespaces"`
	Upstreams  []toolops.Upstream `json:"upstreams,omitempty"`
}

type describeInput struct {
	ID    string `json:"id" jsonschema:"the tool's ID, as search_tools gives it"`
	Level string `json:"level,omitempty" jsonschema:"summary, schema (default: parameters) or full (adds examples and notes)"`
	// Format is offered when code mode is on.
	Format string `json:"format,omitempty" jsonschema:"markdown (default) or typescript (the tool's declaration, for execute_code)"`
}

// describeTS is describe_tool's answer in format typescript.
type describeTS struct {
	ID         string `json:"id"`
	Level      string `json:"level"`
	TypeScript string `json:"typescript"`
}

type examplesInput struct {
	ID    string `json:"id" jsonschema:"the tool's ID"`
	Limit int    `json:"limit,omitempty" jsonschema:"most examples to return (default: all)"`
}

type examplesOutput struct {
	Examples []tooldocs.Example `json:"examples"`
}

type runInput struct {
	ID      string         `json:"id" jsonschema:"the tool's ID"`
	Args    map[string]any `json:"args,omitempty" jsonschema:"the tool's arguments, following its input schema (see describe_tool)"`
	Backend string         `json:"backend,omitempty" jsonschema:"preferred backend identity, such as mcp:github (optional)"`
}

type runOutput struct {
	ID       string `json:"id"`
	Backend  string `json:"backend"`
	Result   any    `json:"result" jsonschema:"the tool's result"`
	Attempts int    `json:"attempts"`
	Millis   int64  `json:"durationMs"`
}

type chainStepInput struct {
	ID          string         `json:"id" jsonschema:"the tool's ID"`
	Args        map[string]any `json:"args,omitempty" jsonschema:"the step's arguments, where {\"$previous\": POINTER} takes part of the previous result"`
	UsePrevious bool           `json:"usePrevious,omitempty" jsonschema:"pass the previous step's result as an argument"`
	PreviousKey string         `json:"previousKey,omitempty" jsonschema:"the argument receiving the previous result (default previous)"`
}

type chainInput struct {
	Steps           []chainStepInput `json:"steps" jsonschema:"the calls to make, in order"`
	ContinueOnError bool             `json:"continueOnError,omitempty" jsonschema:"run every step even after one fails"`
}

type stepOutput struct {
	Step   int        `json:"step"`
	ID     string     `json:"id"`
	Result any        `json:"result,omitempty" jsonschema:"the step's result"`
	Error  *errorInfo `json:"error,omitempty"`
}

type chainOutput struct {
	Steps []stepOutput `json:"steps"`
}

// errorInfo is an error as a client sees it.
type errorInfo struct {
	Code      errors.Code `json:"code"`
	Message   string      `json:"message"`
	Retryable bool        `json:"retryable,omitempty"`
}

func errorInfoOf(err error) *errorInfo {
	return &errorInfo{Code: errors.CodeOf(err), Message: err.Error(), Retryable: errors.IsRetryable(err)}
}

func (s *Server) addMetaTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	searchDescription := "Find tools for a task. Returns tool IDs with one-line descriptions, best match first. " +
		"Then read a tool's parameters with describe_tool and run it with run_tool."
	if s.codeMode != nil {
		searchDescription += " Also gives the tools' TypeScript declarations, to call them in execute_code."
	}
	addMetaTool[searchInput, searchOutput](s, &mcp.Tool{Name: ToolSearch, Title: "Search tools", Annotations: readOnly,
		Description: searchDescription},
		func(in, out *jsonschema.Schema) {
			in.Properties["limit"].Description = fmt.Sprintf("how many tools to return (default %d)", s.ops.Limits().SearchResults)
			in.Properties["limit"].Minimum = new(float64)
			in.Properties["limit"].Maximum = jsonschema.Ptr(float64(toolops.MaxSearchResults))
			if s.codeMode == nil {
				// Without code mode no answer carries declarations.
				delete(out.Properties, "typescript")
			}
		}, s.search)
	addMetaTool[namespacesInput, namespacesOutput](s, &mcp.Tool{Name: ToolNamespaces, Title: "List namespaces", Annotations: readOnly,
		Description: "List the namespaces of the catalogue (typically one per server or API), to narrow a search, " +
			"and the state of each upstream: connecting (its tools are still to come), up, or failed (why, and when it is retried)."},
		nil, s.namespaces)
	addMetaTool[describeInput, map[string]any](s, &mcp.Tool{Name: ToolDescribe, Title: "Describe a tool", Annotations: readOnly,
		Description: "Read a tool's documentation: level summary (one line), schema (default: parameters and their types) " +
			"or full (adds the full description, examples and notes)."},
		func(in, out *jsonschema.Schema) {
			levels := []any{"summary", "schema", "full"}
			in.Properties["level"].Enum = levels
			if s.codeMode == nil {
				// Without code mode a declaration serves no purpose: its
				// schema would only cost context.
				delete(in.Properties, "format")
			} else {
				in.Properties["format"].Enum = []any{"markdown", "typescript"}
			}
			// The document is a tooldocs.Doc, whose schema digests nest
			// recursively: the schema declares its identifying members.
			out.Properties = map[string]*jsonschema.Schema{"id": {Type: "string"}, "level": {Enum: levels}}
			if s.codeMode != nil {
				out.Properties["typescript"] = &jsonschema.Schema{Type: "string"}
			}
			out.Required = []string{"id", "level"}
		}, s.describe)
	addMetaTool[examplesInput, examplesOutput](s, &mcp.Tool{Name: ToolExamples, Title: "List tool examples", Annotations: readOnly,
		Description: "List sample calls of a tool: names, descriptions and arguments."},
		func(in, _ *jsonschema.Schema) { in.Properties["limit"].Minimum = new(float64) }, s.examples)
	addMetaTool[runInput, runOutput](s, &mcp.Tool{Name: ToolRun, Title: "Run a tool",
		Description: "Run a tool of the catalogue by ID with arguments that follow its input schema. " +
			"Progress is reported when the request carries a progress token."},
		nil, s.run)
	addMetaTool[chainInput, chainOutput](s, &mcp.Tool{Name: ToolRunChain, Title: "Run tools in sequence",
		Description: "Run several tools one after the other. A step argument {\"$previous\": \"/text\"} takes the member text " +
			"of the previous step's result (a JSON pointer; \"\" for all of it); a step with usePrevious receives the whole result " +
			fmt.Sprintf("under previousKey. Stops at the first failure unless continueOnError is set. At most %d steps.", s.ops.Limits().ChainSteps)},
		nil, s.runChain)
}

// addMetaTool registers a meta-tool whose input and output schemas are
// derived from In and Out, then adjusted by adjust. The arguments are
// decoded once and validated once against the input schema (see
// metaArgs); arguments that do not fit it, like any failure of the
// meta-tool, are a tool error result whose message says what to correct,
// so that the model can call again, as the go-sdk answers for its typed
// tools.
func addMetaTool[In, Out any](s *Server, tool *mcp.Tool, adjust func(in, out *jsonschema.Schema),
	handle func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, error)) {
	// The types are this package's own: deriving their schemas cannot
	// fail, as the tests that build every server show.
	in, _ := jsonschema.For[In](nil)
	out, _ := jsonschema.For[Out](nil)
	// Results may carry any JSON: derived schemas forbid unknown members,
	// which would reject a tool result's own members.
	out.AdditionalProperties = nil
	if adjust != nil {
		adjust(in, out)
	}
	inRaw, _ := json.Marshal(in)
	outRaw, _ := json.Marshal(out)
	tool.InputSchema, tool.OutputSchema = json.RawMessage(inRaw), json.RawMessage(outRaw)
	s.metaTools[tool.Name] = true
	// The validator compiles the schema on first use and keeps it, keyed
	// by this pointer: in is not changed from here on.
	args := metaArgs{tool: tool.Name, schema: in, validator: s.validator}

	s.mcp.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		input, err := decodeMetaArgs[In](args, req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		res, err := handle(ctx, req, input)
		if err != nil || res == nil {
			return res, err
		}
		return s.boundAnswer(tool.Name, res), nil
	})
}

// boundAnswer returns res, or a tool error in its place when res is
// larger than the answer limit of the operations: the size is that of its
// structured content as JSON plus its text contents, what the client has
// to read.
func (s *Server) boundAnswer(tool string, res *mcp.CallToolResult) *mcp.CallToolResult {
	limit := s.ops.Limits().AnswerBytes
	size := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			size += len(tc.Text)
		}
	}
	if size <= limit && res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err == nil {
			size += len(raw)
		}
	}
	if err := s.ops.CheckAnswer(tool, size); err != nil {
		return toolError(err)
	}
	return res
}

// result returns a successful result: out as structured content, and text
// for clients that show only text.
func result(out any, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError returns a tool error result: the failure is for the model to
// read and act on, not a protocol error. Its code is in the text, and the
// whole error, in the wire form of the errors module, is in the result's
// _meta under [MetaErrorKey].
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("[%s] %s", errors.CodeOf(err), err.Error())}},
		Meta:    mcp.Meta{MetaErrorKey: errors.ToWire(err)},
	}
}

func compactJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, error) {
	found, err := s.ops.Search(ctx, toolops.SearchRequest{Query: in.Query, Namespace: in.Namespace, Cursor: in.Cursor, Limit: in.Limit})
	if err != nil {
		return toolError(err), nil
	}
	out := searchOutput{Tools: make([]toolSummary, len(found.Tools)), NextCursor: found.NextCursor, Note: found.Note}
	for i, item := range found.Tools {
		out.Tools[i] = toolSummary{ID: item.ID, Title: item.Title, Description: item.Description, Tags: item.Tags}
	}
	if s.codeMode != nil && len(found.Tools) > 0 {
		out.TypeScript = s.searchDeclarations(ctx, out.Tools)
	}
	return result(out, searchText(out)), nil
}

// searchDeclarations returns the TypeScript declarations of the tools a
// search found, or "" when they cannot be rendered: the search answers
// all the same, and describe_tool gives each tool's declaration. They are
// terse (first sentences, no constraint tags), about 60% of the full
// size, since they declare every hit while the agent calls a few:
// describe_tool's format typescript gives a tool's full declaration.
func (s *Server) searchDeclarations(ctx context.Context, found []toolSummary) string {
	ids := make([]string, len(found))
	for i, t := range found {
		ids[i] = t.ID
	}
	decl, err := s.ops.Declare(ctx, toolops.DeclareRequest{IDs: ids, Options: tooldocs.TypeScriptOptions{Brief: true, Terse: true}})
	if err != nil {
		s.logger.Warn("search results not declared", "tools", ids, "error", err)
		return ""
	}
	return decl
}

// searchText is the text form of a search answer. With declarations, the
// IDs come first, best first, then the declarations, which hold each
// tool's description: nothing is said twice.
func searchText(out searchOutput) string {
	var text strings.Builder
	if out.TypeScript != "" {
		text.WriteString("Found, best first:")
		for i, t := range out.Tools {
			if i > 0 {
				text.WriteByte(',')
			}
			text.WriteString(" " + t.ID)
		}
		text.WriteString("\n")
		text.WriteString(out.TypeScript)
	} else {
		for _, t := range out.Tools {
			fmt.Fprintf(&text, "%s — %s\n", t.ID, t.Description)
		}
	}
	if len(out.Tools) == 0 {
		text.WriteString("No tool matches. Try other words, or list_namespaces.\n")
	}
	if out.NextCursor != "" {
		fmt.Fprintf(&text, "More: cursor %q\n", out.NextCursor)
	}
	if out.Note != "" {
		text.WriteString(out.Note + "\n")
	}
	return text.String()
}

func (s *Server) namespaces(ctx context.Context, _ *mcp.CallToolRequest, _ namespacesInput) (*mcp.CallToolResult, error) {
	names, err := s.ops.Namespaces(ctx)
	if err != nil {
		return toolError(err), nil
	}
	out, text := namespacesOutput{Namespaces: names}, strings.Join(names, "\n")
	if ups := s.ops.Upstreams(ctx); ups != nil {
		out.Upstreams = ups
		text += "\n\n" + toolops.StatusText(ups, time.Now())
	}
	return result(out, text), nil
}

func (s *Server) describe(ctx context.Context, _ *mcp.CallToolRequest, in describeInput) (*mcp.CallToolResult, error) {
	doc, err := s.ops.Describe(ctx, toolops.DescribeRequest{ID: in.ID, Level: in.Level})
	if err != nil {
		return toolError(err), nil
	}
	if in.Format == "typescript" {
		decl, err := s.ops.Declare(ctx, toolops.DeclareRequest{IDs: []string{in.ID}})
		if err != nil {
			return toolError(err), nil
		}
		return result(describeTS{ID: in.ID, Level: doc.Level.String(), TypeScript: decl}, decl), nil
	}
	return result(doc, doc.Markdown()), nil
}

func (s *Server) examples(ctx context.Context, _ *mcp.CallToolRequest, in examplesInput) (*mcp.CallToolResult, error) {
	examples, err := s.ops.Examples(ctx, toolops.ExamplesRequest{ID: in.ID, Limit: in.Limit})
	if err != nil {
		return toolError(err), nil
	}
	return result(examplesOutput{Examples: examples}, compactJSON(examples)), nil
}

func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, in runInput) (*mcp.CallToolResult, error) {
	res, instead, err := s.runCatalogueTool(ctx, req, toolops.RunRequest{ID: in.ID, Args: in.Args, Backend: in.Backend})
	if instead != nil || err != nil {
		return instead, err
	}
	out := runOutput{
		ID: in.ID, Backend: res.Backend.Identity(), Result: res.Structured,
		Attempts: res.Attempts, Millis: res.Duration.Milliseconds(),
	}
	return withContent(result(out, resultText(res)), res), nil
}

// runCatalogueTool runs a catalogue tool, forwarding progress to the
// client when it asked for it. When the run fails, the tool reports a
// failure or needs the client's input, it returns the result to send
// instead: a tool error, or an input_required result (to a client of
// protocol 2026-07-28 or later, which retries with its answers); an
// error about the client's input is a JSON-RPC error ([inputError]).
func (s *Server) runCatalogueTool(ctx context.Context, req *mcp.CallToolRequest, run toolops.RunRequest) (*toolrun.RunResult, *mcp.CallToolResult, error) {
	if tok := req.Params.GetProgressToken(); tok != nil {
		run.OnProgress = func(p toolrun.Progress) {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: tok, Progress: p.Progress, Total: p.Total, Message: p.Message,
			})
			if err != nil {
				s.logger.Debug("progress not forwarded", "tool", run.ID, "error", err)
			}
		}
	}
	run.Input = clientInput(req)
	res, err := s.ops.Run(onBehalfOf(ctx, req), run)
	if rpcErr := inputError(run.Input != nil, err); rpcErr != nil {
		return nil, nil, rpcErr
	}
	switch {
	case err != nil:
		return nil, toolError(err), nil
	case res.InputRequired != nil:
		return nil, inputRequired(res.InputRequired), nil
	case res.ToolError != nil:
		return nil, withContent(toolError(res.ToolError), res), nil
	}
	return res, nil, nil
}

// inputError returns the JSON-RPC error that a request that relays its
// tools' requests for input fails with, rather than with a tool error,
// when err is one: a retry's requestState that the service refuses is an
// error of invalid parameters, and a tool that needs a capability the
// client did not declare (when the client answers input) is MCP's error
// for it (-32021), which says which, for the client to declare it.
func inputError(answers bool, err error) error {
	var missing *jsonrpc.Error
	switch {
	case errors.Is(err, toolops.ErrRequestState):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	case answers && errors.As(err, &missing) && missing.Code == mcp.CodeMissingRequiredClientCapabilities:
		return missing
	}
	return nil
}

// inputRequired is the result of a request that waits for its client's
// input: the requests, and the state the client returns with its
// answers.
func inputRequired(asked *toolrun.InputRequired) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: asked.Requests, RequestState: asked.State}
}

// clientInput returns what a client that answers its tools' requests for
// input gave with its request (protocol 2026-07-28 on): nothing on a
// first attempt, its answers and the requestState on a retry. It is nil
// for a client that answers requests of the server during the call.
func clientInput(req *mcp.CallToolRequest) *toolops.Input {
	if !answersInput(req) {
		return nil
	}
	return &toolops.Input{Responses: req.Params.InputResponses, State: req.Params.RequestState}
}

// answersInput reports whether the client of a request answers a tool's
// requests for input in a retry (protocol 2026-07-28 on), rather than by
// answering requests of the server during the call.
func answersInput(req *mcp.CallToolRequest) bool {
	return req.Session != nil && mcpexec.RetriesForInput(req.Session)
}

// onBehalfOf returns ctx carrying the client of a request, so that an
// upstream MCP server's requests to its client (sampling, elicitation)
// and its log messages during the call reach that client.
func onBehalfOf(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Session == nil {
		return ctx
	}
	ctx = mcpexec.WithClient(ctx, req.Session)
	if level, ok := req.Params.GetMeta()[mcp.MetaKeyLogLevel].(string); ok {
		// A client of 2026-07-28 asks for log messages request by
		// request: the upstreams are asked for them the same way.
		ctx = mcpexec.WithLogLevel(ctx, mcp.LoggingLevel(level))
	}
	return ctx
}

// resultText is the text form of a result: a string as it is, anything
// else as compact JSON.
func resultText(res *toolrun.RunResult) string {
	if text, ok := res.Structured.(string); ok {
		return text
	}
	return compactJSON(res.Structured)
}

// withContent appends to out the contents of res that are not text
// (images, audio, resources), which pass on as they are.
func withContent(out *mcp.CallToolResult, res *toolrun.RunResult) *mcp.CallToolResult {
	out.Content = append(out.Content, nonText(res.Content)...)
	return out
}

// nonText returns the contents that are not text (images, audio,
// resources), which a result passes on as they are.
func nonText(content []mcp.Content) []mcp.Content {
	var out []mcp.Content
	for _, c := range content {
		if _, isText := c.(*mcp.TextContent); !isText {
			out = append(out, c)
		}
	}
	return out
}

func (s *Server) runChain(ctx context.Context, req *mcp.CallToolRequest, in chainInput) (*mcp.CallToolResult, error) {
	steps := make([]toolops.ChainStep, len(in.Steps))
	for i, st := range in.Steps {
		steps[i] = toolops.ChainStep{ID: st.ID, Args: st.Args, UsePrevious: st.UsePrevious, PreviousKey: st.PreviousKey}
	}
	chain := toolops.ChainRequest{Steps: steps, ContinueOnError: in.ContinueOnError, Input: clientInput(req)}
	results, err := s.ops.Chain(onBehalfOf(ctx, req), chain)
	if rpcErr := inputError(chain.Input != nil, err); rpcErr != nil {
		return nil, rpcErr
	}
	if err != nil && results == nil {
		return toolError(err), nil
	}
	if last := results[len(results)-1].Result; last != nil && last.InputRequired != nil {
		return inputRequired(last.InputRequired), nil
	}
	out := chainOutput{Steps: make([]stepOutput, len(results))}
	for i, r := range results {
		out.Steps[i] = stepOutput{Step: r.Step, ID: r.ToolID}
		switch {
		case r.Err != nil:
			out.Steps[i].Error = errorInfoOf(r.Err)
		case r.Result.ToolError != nil:
			out.Steps[i].Error = errorInfoOf(r.Result.ToolError)
		default:
			out.Steps[i].Result = r.Result.Structured
		}
	}
	res := result(out, compactJSON(out))
	if err != nil {
		res.IsError = true
		res.Meta = mcp.Meta{MetaErrorKey: errors.ToWire(err)}
	}
	return res, nil
}
