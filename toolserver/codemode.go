package toolserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolops"
)

// ToolExecuteCode is the name of the code-mode meta-tool (see
// [WithCodeMode]).
const ToolExecuteCode = "execute_code"

// The _meta keys of a failed execute_code result, besides [MetaErrorKey]:
// the lines the program logged and the calls it made before it failed.
const (
	MetaLogsKey  = "dev.metatools/logs"
	MetaTraceKey = "dev.metatools/trace"
)

// MetaIsolationKey is the _meta key of an execute_code result, failed or
// not, that says how the program was confined (toolcode.Isolation: the
// backend, the security profile and what enforced each limit), when the
// engine reports it. It is for the client, not the model: it stays out of
// the content.
const MetaIsolationKey = "dev.metatools/isolation"

// CodeMode configures the execute_code meta-tool: an agent writes one
// program that calls many tools, and only what the program returns (and
// logs) enters its context. The zero value takes toolcode's defaults.
type CodeMode struct {
	// Timeout bounds a program whose request sets none; zero means
	// toolcode.DefaultTimeout. It never exceeds Limits.WallTime.
	Timeout time.Duration
	// Limits bound every program; zero fields take the values of
	// toolcode.DefaultLimits. A request may lower them, never raise them.
	Limits toolcode.Limits
	// Engines run the programs; nil means the built-in JavaScript and
	// TypeScript engines of toolcode/javascript.
	Engines []toolcode.Engine
	// Admission bounds the programs that run at once, and those that wait
	// for a place; zero fields take the values of [DefaultAdmission].
	Admission toolcode.Admission
}

// DefaultAdmission bounds the programs a server runs at once unless
// [CodeMode] says otherwise: a burst of execute_code requests waits, then
// fails with resource_exhausted, instead of starting a sandbox each.
var DefaultAdmission = toolcode.Admission{Running: 8, Queued: 64, Wait: toolcode.DefaultAdmissionWait}

// WithCodeMode adds the meta-tool execute_code, which runs a program
// (JavaScript or TypeScript) that calls the catalogue's tools through the
// server's runner: the runner's authorization policies, hooks, retries
// and masking apply to every call a program makes, as they do to
// run_tool. Code mode is off unless this option is given: a program may
// make many calls in one request, so a server whose tools are powerful
// should turn it on knowingly, with limits that suit them.
func WithCodeMode(cfg CodeMode) Option {
	return func(s *Server) { s.codeMode = &cfg }
}

// NewCodeExecutor returns the executor execute_code runs programs with:
// its programs call the operations ops, with cfg's engines, timeout and
// limits, and opts after them. The metatools command runs `exec` with it.
func NewCodeExecutor(ops *toolops.Service, cfg CodeMode, opts ...toolcode.Option) *toolcode.Executor {
	engines := cfg.Engines
	if engines == nil {
		engines = []toolcode.Engine{javascript.New(), javascript.NewTypeScript()}
	}
	admission := cfg.Admission
	admission.Running = cmp.Or(admission.Running, DefaultAdmission.Running)
	admission.Queued = cmp.Or(admission.Queued, DefaultAdmission.Queued)
	admission.Wait = cmp.Or(admission.Wait, DefaultAdmission.Wait)
	all := []toolcode.Option{toolcode.WithLimits(cfg.Limits), toolcode.WithAdmission(admission)}
	if cfg.Timeout > 0 {
		all = append(all, toolcode.WithTimeout(cfg.Timeout))
	}
	for _, e := range engines {
		all = append(all, toolcode.WithEngine(e))
	}
	return toolcode.New(ops, append(all, opts...)...)
}

// languageAliases are the short names people and models write for the
// languages of the built-in engines. Both the execute_code meta-tool and
// the metatools command read a language through [CodeLanguage], so that
// the one list serves both.
var languageAliases = []struct{ alias, language string }{
	{"js", javascript.LanguageJavaScript},
	{"ts", javascript.LanguageTypeScript},
}

// CodeLanguage returns the language of engines that name designates: a
// language an engine is registered for, or the short name of one ("js"
// for "javascript", "ts" for "typescript"); "" stays "", the executor's
// default. Any other name is an error of code [errors.InvalidArgument]
// that lists the accepted names ([CodeLanguages]).
func CodeLanguage(engines *toolcode.EngineRegistry, name string) (string, error) {
	languages := engines.Languages()
	if name == "" || slices.Contains(languages, name) {
		return name, nil
	}
	for _, a := range languageAliases {
		if a.alias == name && slices.Contains(languages, a.language) {
			return a.language, nil
		}
	}
	return "", errors.Errorf(errors.InvalidArgument, "unknown language %q (accepted: %s)", name, strings.Join(CodeLanguages(engines), ", "))
}

// CodeLanguages returns the names [CodeLanguage] accepts: the languages
// of engines, sorted, then the short names of those that have one.
func CodeLanguages(engines *toolcode.EngineRegistry) []string {
	languages := engines.Languages()
	names := slices.Clone(languages)
	for _, a := range languageAliases {
		if slices.Contains(languages, a.language) && !slices.Contains(names, a.alias) {
			names = append(names, a.alias)
		}
	}
	return names
}

type executeInput struct {
	Code     string `json:"code" jsonschema:"the program"`
	Language string `json:"language,omitempty" jsonschema:"javascript (default) or typescript"`
	Timeout  string `json:"timeout,omitempty" jsonschema:"bound on the program, such as 10s"`
}

// traceItem is one tool call of a program, as execute_code reports it:
// compact, since the agent reads it.
type traceItem struct {
	Tool   string      `json:"tool"`
	OK     bool        `json:"ok"`
	Error  errors.Code `json:"error,omitempty"`
	Millis int64       `json:"ms"`
}

type executeOutput struct {
	Value json.RawMessage `json:"value"`
	Logs  []string        `json:"logs,omitempty"`
	Trace []traceItem     `json:"trace,omitempty"`
}

// executeDescription tells the model how to write a program. It is in
// every tools/list answer, so every word counts.
const executeDescription = "Run a JavaScript or TypeScript program that calls catalogue tools, and get only what it returns. " +
	"First find the tools with search_tools: its answer declares them in TypeScript. " +
	"Then write an async function body calling them as declared, `await tools.<namespace>.<name>(args)` " +
	"(tools.run(id, args) for any ID; tools.search(query, limit) and tools.describe(id) also work), " +
	"Promise.all for concurrent calls, console.log to log; return a JSON value. " +
	"Answers the value, the logs and a trace of the calls."

func (s *Server) addCodeMode() {
	if s.codeMode == nil {
		return
	}
	s.code = NewCodeExecutor(s.ops, *s.codeMode,
		toolcode.WithTracerProvider(s.telemetry.TracerProvider), toolcode.WithMeterProvider(s.telemetry.MeterProvider))
	var languages []any
	for _, l := range CodeLanguages(s.code.Engines()) {
		languages = append(languages, l)
	}
	addMetaTool[executeInput, executeOutput](s, &mcp.Tool{Name: ToolExecuteCode, Title: "Run a program calling tools",
		Description: executeDescription},
		func(in, out *jsonschema.Schema) {
			in.Properties["language"].Enum = languages
			// Any JSON; a schema of true is refused by some clients.
			out.Properties["value"] = &jsonschema.Schema{Description: "what the program returned"}
		}, s.executeCode)
}

func (s *Server) executeCode(ctx context.Context, req *mcp.CallToolRequest, in executeInput) (*mcp.CallToolResult, error) {
	language, err := CodeLanguage(s.code.Engines(), in.Language)
	if err != nil {
		return toolError(errors.WithOp(ToolExecuteCode, err)), nil
	}
	p := toolcode.ExecuteParams{Code: in.Code, Language: language}
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil || d <= 0 {
			e := errors.Errorf(errors.InvalidArgument, "timeout %q is not a positive duration such as 10s", in.Timeout)
			e.Op = ToolExecuteCode
			return toolError(e), nil
		}
		p.Timeout = d
	}
	p.Input = clientInput(req)
	res, err := s.code.Execute(onBehalfOf(ctx, req), p)
	if rpcErr := inputError(p.Input != nil, err); rpcErr != nil {
		return nil, rpcErr
	}
	if res.InputRequired != nil {
		return inputRequired(res.InputRequired), nil
	}
	out := executeOutput{Value: res.Value, Logs: res.Logs, Trace: compactTrace(res.Trace)}
	if err != nil {
		failed := toolError(err)
		out.Value = nil
		failed.StructuredContent = nil
		if len(out.Logs) > 0 || len(out.Trace) > 0 {
			// The logs and the trace tell how far the program got.
			failed.Content = append(failed.Content, &mcp.TextContent{Text: compactJSON(out)})
		}
		failed.Meta[MetaLogsKey] = out.Logs
		failed.Meta[MetaTraceKey] = out.Trace
		if res.Isolation != nil {
			failed.Meta[MetaIsolationKey] = res.Isolation
		}
		return failed, nil
	}
	ok := result(out, executeText(out))
	if res.Isolation != nil {
		ok.Meta = mcp.Meta{MetaIsolationKey: res.Isolation}
	}
	return ok, nil
}

// compactTrace keeps of each call what the agent needs: which tool, how it
// ended, how long it took.
func compactTrace(trace []toolcode.TraceEntry) []traceItem {
	if len(trace) == 0 {
		return nil
	}
	out := make([]traceItem, len(trace))
	for i, t := range trace {
		out[i] = traceItem{Tool: t.ToolID, OK: t.OK, Error: t.ErrorCode, Millis: t.Duration.Milliseconds()}
	}
	return out
}

// executeText is the text form of a program's outcome: the value, then
// the logs, then one line of calls.
func executeText(out executeOutput) string {
	var b strings.Builder
	b.Write(out.Value)
	for _, l := range out.Logs {
		b.WriteString("\nlog: ")
		b.WriteString(l)
	}
	if len(out.Trace) > 0 {
		failed := 0
		for _, t := range out.Trace {
			if !t.OK {
				failed++
			}
		}
		fmt.Fprintf(&b, "\n%d tool calls, %d failed", len(out.Trace), failed)
	}
	return b.String()
}
