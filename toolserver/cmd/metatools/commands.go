package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/config"
	"github.com/metatools-go/metatools/toolserver/internal/console"
	"github.com/metatools-go/metatools/toolserver/internal/cost"
	"github.com/metatools-go/metatools/toolserver/internal/spell"
	"github.com/metatools-go/metatools/toolserver/trust"
)

// configError is a configuration that cannot be used.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func isConfigError(err error) bool {
	var c configError
	return errors.As(err, &c)
}

// common are the flags every catalogue command takes.
type common struct {
	configPath string
	json       bool
}

// register registers --config and --json.
func (c *common) register(fs *flag.FlagSet) {
	c.registerConfig(fs)
	fs.BoolVar(&c.json, "json", false, "print JSON, for scripts")
}

// registerConfig registers --config alone, for commands with no JSON
// output.
func (c *common) registerConfig(fs *flag.FlagSet) {
	fs.StringVar(&c.configPath, "config", "", "configuration `file` (default: the built-in tools only)")
}

// flags returns the flag set of the named command, which becomes the
// command whose usage follows an error in the command line.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	e.cmd = fs
	return fs
}

// parse parses args with fs, letting flags and positional arguments mix
// ("describe ID --level full"), and returns the positional ones; after
// "--", every argument is positional. -h, -help and --help return a
// [helpRequest].
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{fs}
			}
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				return nil, unknownFlag(fs, name)
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// unknownFlag is the error of a flag fs does not define, with the flag
// it defines that was likely meant, when one is near.
func unknownFlag(fs *flag.FlagSet, name string) error {
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	hint := ""
	if s, ok := spell.Suggest(name, known); ok {
		hint = " (did you mean --" + s + "?)"
	}
	return usagef("%s: unknown flag --%s%s", fs.Name(), name, hint)
}

// loadConfig reads the configuration file, or returns the default one.
func loadConfig(path string) (*config.Config, error) {
	if path == "" {
		return &config.Config{}, nil
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, configError{err}
	}
	return cfg, nil
}

// session is an open catalogue with a server over it.
type session struct {
	cfg *config.Config
	cat *catalog.Catalog
	srv *toolserver.Server
	// calls are the recent calls of a server whose configuration turns
	// the web console on; nil otherwise.
	calls *console.Calls
}

func (s *session) Close() {
	s.srv.Close()
	_ = s.cat.Close()
}

// open builds the catalogue of the configuration, showing the upstreams'
// progress on stderr, and a server over it. For a one-shot command, the
// progress shows each upstream's first outcome alone, and the log leaves
// out the warnings about upstreams, which would say the same again.
func (e *env) open(ctx context.Context, c common, logLevel slog.Level, oneShot bool) (*session, error) {
	cfg, err := loadConfig(c.configPath)
	if err != nil {
		return nil, err
	}
	var handler slog.Handler = slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: logLevel})
	opts := []catalog.Option{}
	if len(cfg.MCPServers)+len(cfg.OpenAPI)+len(cfg.GRPC) > 0 {
		p := newProgress(e.stderr)
		if oneShot {
			p.firstOnly = map[string]bool{}
			handler = quietUpstreams{Handler: handler}
		}
		opts = append(opts, catalog.WithProgress(p.report))
	}
	logger := slog.New(handler)
	opts = append(opts, catalog.WithLogger(logger))
	if oneShot {
		// A one-shot command runs one program at most.
		opts = append(opts, catalog.WithoutSpareSandboxes())
	}
	if logLevel <= slog.LevelDebug {
		opts = append(opts, catalog.WithUpstreamStderr(e.stderr))
	}
	var calls *console.Calls
	if !oneShot && cfg.Server.HTTP.Console.Enabled {
		calls = console.NewCalls(console.DefaultCalls)
		opts = append(opts, catalog.WithEventPublisher(calls))
	}
	cat, err := catalog.Build(ctx, cfg, opts...)
	if err != nil {
		return nil, configError{err}
	}
	srv, err := cat.NewServer(toolserver.WithLogger(logger))
	if err != nil {
		_ = cat.Close()
		return nil, configError{err}
	}
	return &session{cfg: cfg, cat: cat, srv: srv, calls: calls}, nil
}

// openReady is open for the commands that need the tools: it waits until
// every upstream has been up or failed once, which each connection
// attempt's timeout bounds. serve does not wait: it answers at once, and
// tools arrive as their upstreams connect.
func (e *env) openReady(ctx context.Context, c common, logLevel slog.Level) (*session, error) {
	s, err := e.open(ctx, c, logLevel, true)
	if err != nil {
		return nil, err
	}
	if err := s.cat.Wait(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// progress shows upstreams connecting, one line per step.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	// firstOnly, when not nil, holds the upstreams whose first outcome
	// has been shown: their later attempts are not.
	firstOnly map[string]bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

func (p *progress) report(u toolops.Upstream, done bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.firstOnly != nil {
		key := u.Kind + " " + u.Name
		if p.firstOnly[key] {
			return
		}
		p.firstOnly[key] = done
	}
	mark := func(ok bool) string {
		switch {
		case !p.terminal:
			return map[bool]string{true: "ok", false: "FAILED"}[ok]
		case ok:
			return "\u2713"
		}
		return "\u2717"
	}
	switch {
	case !done:
		fmt.Fprintf(p.w, "  connecting %s %s...\n", u.Kind, u.Name)
	case u.Error != "":
		fmt.Fprintf(p.w, "  %s %s %s: %s (skipped)\n", mark(false), u.Kind, u.Name, plainWords(u.Error))
	default:
		fmt.Fprintf(p.w, "  %s %s %s: %d tools in %s\n", mark(true), u.Kind, u.Name, u.Tools, u.Duration.Round(time.Millisecond))
		for _, skipped := range u.Skipped {
			fmt.Fprintf(p.w, "    tool %s skipped\n", skipped)
		}
	}
}

// quietUpstreams leaves out the warnings about upstreams (records below
// level Error that name a server), for a one-shot command: its progress
// lines report each upstream's outcome once, and these warnings would
// report its failures, retries and skipped tools again.
type quietUpstreams struct {
	slog.Handler
	// named says that the handler's own attributes name a server.
	named bool
}

func (h quietUpstreams) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		return h.Handler.Handle(ctx, r)
	}
	named := h.named
	r.Attrs(func(a slog.Attr) bool {
		named = named || a.Key == "server"
		return !named
	})
	if named {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietUpstreams) WithAttrs(attrs []slog.Attr) slog.Handler {
	named := h.named || slices.ContainsFunc(attrs, func(a slog.Attr) bool { return a.Key == "server" })
	return quietUpstreams{h.Handler.WithAttrs(attrs), named}
}

func (h quietUpstreams) WithGroup(name string) slog.Handler {
	return quietUpstreams{h.Handler.WithGroup(name), h.named}
}

func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (e *env) serve(ctx context.Context, args []string) error {
	fs := e.flags("serve")
	var c common
	c.registerConfig(fs)
	addr := fs.String("http", "", "serve streamable HTTP on `addr` at /mcp instead of stdio; a port alone (:8080) listens on 127.0.0.1 only, name a host (0.0.0.0:8080) to listen beyond")
	stateless := fs.Bool("stateless", false, "serve HTTP without sessions, for replicas behind a load balancer")
	var tokens stringList
	fs.Var(&tokens, "token", "bearer `token` HTTP clients must present (repeatable); other users of the machine can read it in the process list: prefer --token-file or METATOOLS_TOKEN")
	tokenFile := fs.String("token-file", "", "read the bearer tokens HTTP clients must present from `file`, one a line: the token, or a name and the token")
	insecure := fs.Bool("insecure-no-auth", false, "serve HTTP beyond the loopback interface without authentication, to anyone who can reach it")
	var level slog.Level
	fs.TextVar(&level, "log-level", slog.LevelInfo, "log at `level` and above: debug, info, warn or error; debug also streams the upstreams' standard error")
	drain := fs.Duration("drain-delay", defaultDrainDelay, "once told to stop, answer 503 on "+readyzPath+" but serve HTTP on for `duration` before no longer accepting (overrides server.http.drainDelay; 0: at once); "+
		"the default one applies only once something has asked "+readyzPath)
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("serve takes no arguments, got %q", rest)
	}
	var drainFlag *time.Duration
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "drain-delay" {
			drainFlag = drain
		}
	})
	if drainFlag != nil && *drainFlag < 0 {
		return usagef("--drain-delay must not be negative, got %s", *drainFlag)
	}
	if err := config.CheckListenAddr(*addr); err != nil {
		return usagef("--http: %v", err)
	}
	s, err := e.open(ctx, c, level, false)
	if err != nil {
		return err
	}
	defer s.Close()
	cfg, srv := s.cfg, s.srv
	if h := s.cat.MetricsHandler(); h != nil {
		stop, err := e.serveMetrics(cfg.Telemetry, h)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *addr == "" {
		*addr = cfg.Server.HTTP.Addr
	}
	if *addr == "" {
		return e.stopped(ctx, srv.ServeStdio(ctx))
	}
	opts := s.cat.HTTPOptions()
	opts.Stateless = opts.Stateless || *stateless
	if opts.BearerTokens, err = httpTokens(tokens, *tokenFile, opts.BearerTokens); err != nil {
		return err
	}
	var ui http.Handler
	if s.calls != nil {
		if ui, err = s.console(); err != nil {
			return err
		}
	}
	return e.stopped(ctx, e.serveHTTP(ctx, httpServe{
		addr: *addr, opts: opts, handler: srv.HTTPHandler(opts), insecure: *insecure, ready: s.cat.Ready(),
		console: ui, authenticate: func(h http.Handler) http.Handler { return srv.Authenticate(opts, h) },
		drainDelay: drainDelay(cfg, drainFlag), drainSet: drainFlag != nil || cfg.Server.HTTP.DrainDelay != nil,
		shutdownTimeout: shutdownTimeout(cfg), now: e.intr.catchSecond(),
	}))
}

// console returns the web console of the session, which its
// configuration turns on, behind no authentication yet.
func (s *session) console() (http.Handler, error) {
	opts := s.cfg.Server.HTTP.Console
	pins, err := s.cfg.TrustStore()
	if err != nil && opts.Approve {
		return nil, configError{fmt.Errorf("server.http.console.approve: %w", err)}
	}
	return console.New(s.cat.Ops, console.Options{Run: opts.Run, Approve: opts.Approve, Pins: pins, Calls: s.calls}), nil
}

// stopped returns the error a server that returned err ends with: none
// when a signal stopped it (a stop asked for is a success, which lets
// `make run` or a service manager see a clean exit), after saying so.
func (e *env) stopped(ctx context.Context, err error) error {
	var sig stopSignal
	if !errors.As(context.Cause(ctx), &sig) {
		return err
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	fmt.Fprintf(e.stderr, "metatools: %s received, stopped\n", sig.name())
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func (e *env) search(ctx context.Context, args []string) error {
	fs := e.flags("search")
	var c common
	c.register(fs)
	namespace := fs.String("namespace", "", "only tools of this `namespace`")
	limit := fs.Int("limit", 0, fmt.Sprintf("most results, 1 to %d (default: search.limit of the configuration, or %d)", toolops.MaxSearchResults, toolops.DefaultLimits.SearchResults))
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("search needs a query")
	}
	s, err := e.openReady(ctx, c, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer s.Close()
	page, err := s.cat.Ops.Search(ctx, toolops.SearchRequest{Query: strings.Join(rest, " "), Namespace: *namespace, Limit: *limit})
	if err != nil {
		return s.namespaceHint(ctx, *namespace, err)
	}
	found := page.Tools
	if c.json {
		return e.printJSON(found)
	}
	if len(found) == 0 {
		fmt.Fprintln(e.stdout, `No tool matches. Try other words, or "metatools tools" to list them all.`)
	}
	for i, t := range found {
		fmt.Fprintf(e.stdout, "%2d. %s\n    %s\n", i+1, t.ID, t.Description)
	}
	if page.Note != "" {
		fmt.Fprintln(e.stdout, page.Note)
	}
	return nil
}

// checkToolID refuses, as a usage error, an argument that cannot be a
// tool's ID ("math:", ":eval"), before the catalogue is loaded.
func checkToolID(id string) error {
	if _, _, err := toolmodel.ParseToolID(id); err != nil {
		return usagef("%s", plainText(err))
	}
	return nil
}

func (e *env) describe(ctx context.Context, args []string) error {
	fs := e.flags("describe")
	var c common
	c.register(fs)
	levelName := fs.String("level", "", "detail `level`: summary, schema or full (default schema)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("describe needs one tool ID")
	}
	if err := checkToolID(rest[0]); err != nil {
		return err
	}
	if _, err := toolops.ParseLevel(*levelName); err != nil {
		return usagef("--level: %s", plainText(err))
	}
	s, err := e.openReady(ctx, c, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer s.Close()
	doc, err := s.cat.Ops.Describe(ctx, toolops.DescribeRequest{ID: rest[0], Level: *levelName})
	if err != nil {
		return s.unknownTool(ctx, rest[0], err)
	}
	if c.json {
		return e.printJSON(doc)
	}
	fmt.Fprint(e.stdout, doc.Markdown())
	return nil
}

func (e *env) runTool(ctx context.Context, args []string) error {
	fs := e.flags("run")
	var c common
	c.register(fs)
	backend := fs.String("backend", "", "run on the backend of this `identity`, such as mcp:github: one of the tool's backends (an error names them)")
	timeout := fs.Duration("timeout", 0, "bound on the call (0: limits.timeout, by default 60s)")
	out := fs.String("out", "", "save images, audio and binary resources the tool returns to files in `dir` (created if missing), named after the tool: NAME-1.png, ...")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return usagef("run needs a tool ID and, optionally, its arguments as JSON, @FILE or - (standard input)")
	}
	if err := checkToolID(rest[0]); err != nil {
		return err
	}
	var arguments map[string]any
	if len(rest) == 2 {
		if arguments, err = e.readArguments(rest[1]); err != nil {
			return err
		}
	}
	s, err := e.openReady(ctx, c, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.checkBackend(ctx, rest[0], *backend); err != nil {
		return err
	}
	run := toolops.RunRequest{ID: rest[0], Args: arguments, Backend: *backend, Timeout: *timeout}
	if !c.json {
		run.OnProgress = func(p toolrun.Progress) {
			fmt.Fprintf(e.stderr, "  progress %g/%g %s\n", p.Progress, p.Total, p.Message)
		}
	}
	res, err := s.cat.Ops.Run(ctx, run)
	if err != nil && c.json {
		// A call that failed before the tool answered (an unknown tool,
		// invalid arguments, a policy, the timeout) is reported in the
		// same JSON as a tool's failure, and nothing goes to stderr.
		shown := runOutput{ID: rest[0], Error: &runError{Code: errors.CodeOf(err), Message: err.Error()}}
		if res != nil {
			shown.Backend, shown.DurationMs = res.Backend.Identity(), res.Duration.Milliseconds()
		}
		if err := e.printJSON(shown); err != nil {
			return err
		}
		return reportedError{exitFailure}
	}
	if err != nil {
		return s.unknownTool(ctx, rest[0], err)
	}
	// With --json, content is printed whole and only saved; without, it
	// is shown.
	printer := &contentPrinter{w: e.stdout, dir: *out, base: fileBase(rest[0])}
	if c.json {
		printer.w = io.Discard
	}
	if c.json {
		if err := printer.print(res.Content); err != nil {
			return err
		}
		shown := runOutput{ID: rest[0], Backend: res.Backend.Identity(), Result: res.Structured, Content: res.Content,
			Files: printer.saved, DurationMs: res.Duration.Milliseconds()}
		if res.ToolError != nil {
			shown.Error = &runError{Code: res.ToolError.Code, Message: res.ToolError.Error()}
		}
		if err := e.printJSON(shown); err != nil {
			return err
		}
	} else if res.ToolError == nil {
		if err := e.printResult(res, printer); err != nil {
			return err
		}
	}
	return res.Err()
}

// runOutput is what `run --json` prints.
type runOutput struct {
	// ID is the tool that ran.
	ID string `json:"id"`
	// Backend is the identity of the backend that ran it.
	Backend string `json:"backend"`
	// Result is the result as a JSON value: the structured result, else
	// the text parsed as JSON, else the text.
	Result any `json:"result"`
	// Content is the tool's MCP content whole, binary data in base64, as
	// MCP puts it on the wire; absent for tools that give none.
	Content []mcp.Content `json:"content,omitempty"`
	// Files are the files --out saved binary content to, in order.
	Files []string `json:"files,omitempty"`
	// Error is the tool's failure.
	Error *runError `json:"error,omitempty"`
	// DurationMs is the time the run took, in milliseconds.
	DurationMs int64 `json:"durationMs"`
}

// runError is a tool's failure in [runOutput].
type runError struct {
	Code    errors.Code `json:"code"`
	Message string      `json:"message"`
}

// printResult shows a result for a person: a result of text alone as its
// text (or its JSON, indented), anything else item by item.
func (e *env) printResult(res *toolrun.RunResult, printer *contentPrinter) error {
	only, hasText := textOnly(res.Content)
	if !only {
		if !hasText && res.Structured != nil {
			if err := e.printValue(res.Structured); err != nil {
				return err
			}
		}
		return printer.print(res.Content)
	}
	return e.printValue(res.Structured)
}

// printValue prints a string as it is and any other value as indented
// JSON.
func (e *env) printValue(v any) error {
	if text, ok := v.(string); ok {
		fmt.Fprintln(e.stdout, text)
		return nil
	}
	return e.printJSON(v)
}

// readArguments reads a call's arguments: JSON, @FILE, or - for standard
// input.
func (e *env) readArguments(spec string) (map[string]any, error) {
	var data []byte
	var err error
	switch {
	case spec == "-":
		data, err = io.ReadAll(bufio.NewReader(e.stdin))
	case strings.HasPrefix(spec, "@"):
		data, err = os.ReadFile(spec[1:])
	default:
		data = []byte(spec)
	}
	if err != nil {
		return nil, usagef("read arguments: %v", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, usagef("the arguments are not JSON: %v", err)
	}
	switch args := v.(type) {
	case map[string]any:
		return args, nil
	case nil:
		return nil, nil
	default:
		return nil, usagef("the arguments must be a JSON object {...}, not %.40q", bytes.TrimSpace(data))
	}
}

func (e *env) tools(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "review":
			return e.toolsReview(args[1:])
		case "approve":
			return e.toolsApprove(args[1:])
		}
	}
	fs := e.flags("tools")
	var c common
	c.register(fs)
	namespace := fs.String("namespace", "", "only tools of this `namespace`")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("tools takes no arguments, got %q", rest)
	}
	s, err := e.openReady(ctx, c, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer s.Close()
	var all []toolindex.Summary
	req := toolops.SearchRequest{Namespace: *namespace, Limit: toolops.MaxSearchResults}
	for {
		page, err := s.cat.Ops.Search(ctx, req)
		if err != nil {
			return s.namespaceHint(ctx, *namespace, err)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		req.Cursor = page.NextCursor
	}
	if c.json {
		return e.printJSON(all)
	}
	width := 0
	for _, t := range all {
		width = max(width, len(t.ID))
	}
	for _, t := range all {
		fmt.Fprintf(e.stdout, "%-*s  %s\n", width, t.ID, t.Description)
	}
	fmt.Fprintf(e.stdout, "\n%d tools\n", len(all))
	return nil
}

// pinsPath returns the path of the pin store of the configuration at
// path.
func pinsPath(path string) (string, error) {
	cfg, err := loadConfig(path)
	if err != nil {
		return "", err
	}
	pins, err := cfg.TrustStore()
	if err != nil {
		return "", configError{err}
	}
	return pins, nil
}

// toolsReview lists the upstream tools, prompts and resource templates
// that wait for an operator's approval: why, what the scanner found, and
// what changed since the version approved.
func (e *env) toolsReview(args []string) error {
	fs := e.flags("tools review")
	var c common
	c.register(fs)
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("tools review takes no arguments, got %q", rest)
	}
	pins, err := pinsPath(c.configPath)
	if err != nil {
		return err
	}
	pending, err := catalog.Review(pins)
	if err != nil {
		return err
	}
	if c.json {
		return e.printJSON(pending)
	}
	for _, r := range pending {
		p := r.Pending
		fmt.Fprintf(e.stdout, "%s  (%s of %s, fingerprint %s, waiting since %s)\n  why: %s\n", r.ID, r.Kind, r.Upstream,
			p.Fingerprint, p.At.Format(time.RFC3339), p.Reason)
		for _, f := range p.Findings {
			fmt.Fprintf(e.stdout, "  found: %s\n", f.String())
		}
		if changes := r.Diff(); r.Approved != nil && len(changes) > 0 {
			fmt.Fprintf(e.stdout, "  changed since approved:\n%s", indent(trust.FormatChanges(changes), "    "))
		}
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintf(e.stdout, "%d waiting; metatools tools approve ID... (or --upstream NAME) admits them\n", len(pending))
	return nil
}

// toolsApprove approves what waits: the items named, or all of an
// upstream's.
func (e *env) toolsApprove(args []string) error {
	fs := e.flags("tools approve")
	var c common
	c.register(fs)
	upstream := fs.String("upstream", "", "approve everything upstream `NAME` has waiting")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	if (len(ids) == 0) == (*upstream == "") {
		return usagef("tools approve takes the IDs tools review shows, or --upstream NAME")
	}
	pins, err := pinsPath(c.configPath)
	if err != nil {
		return err
	}
	approved, err := catalog.Approve(pins, ids, *upstream)
	if err != nil {
		return err
	}
	if c.json {
		return e.printJSON(approved)
	}
	for _, r := range approved {
		fmt.Fprintf(e.stdout, "approved %s (fingerprint %s)\n", r.ID, r.Approved.Fingerprint)
	}
	fmt.Fprintf(e.stdout, "%d approved: a running metatools admits them within %s\n", len(approved), catalog.TrustPoll)
	return nil
}

// indent prefixes each line of text with prefix.
func indent(text, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		b.WriteString(prefix + line)
	}
	return b.String()
}

func (e *env) config(args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs := e.flags("config")
		if _, err := parse(fs, args); err != nil {
			return err
		}
		return usagef("config needs a subcommand: validate FILE, import FILE, or example")
	}
	switch args[0] {
	case "example":
		return e.configExample(args[1:])
	case "import":
		return e.configImport(args[1:])
	case "validate":
		return e.configValidate(args[1:])
	}
	e.flags("config")
	return usagef("unknown config subcommand %q%s", args[0], didYouMean(args[0], []string{"validate", "import", "example"}))
}

func (e *env) configExample(args []string) error {
	fs := e.flags("config example")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("config example takes no arguments, got %q", rest)
	}
	fmt.Fprint(e.stdout, config.Example)
	return nil
}

func (e *env) configImport(args []string) error {
	fs := e.flags("config import")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("config import needs one file: an MCP host's configuration, such as claude_desktop_config.json")
	}
	data, err := os.ReadFile(rest[0])
	if err != nil {
		return configError{errors.Errorf(errors.InvalidArgument, "read config: %w", err)}
	}
	if !config.IsHostConfig(data) {
		return configError{errors.Errorf(errors.InvalidArgument,
			"%s: not the configuration file of an MCP host (a JSON object with an \"mcpServers\" or \"servers\" object)", rest[0])}
	}
	out, err := config.ImportHostConfig(data)
	if err != nil {
		return configError{config.InFile(err, rest[0])}
	}
	_, err = e.stdout.Write(out)
	return err
}

// validation is what `config validate --json` prints: Valid, and either
// what the file configures or the reason it is invalid.
type validation struct {
	File  string `json:"file"`
	Valid bool   `json:"valid"`
	// Error is the reason the file is invalid, as the command without
	// --json prints it.
	Error string `json:"error,omitempty"`
	// Problems are the problems of an invalid file, each at its line.
	Problems    []config.Problem `json:"problems,omitempty"`
	MCPServers  *int             `json:"mcpServers,omitempty"`
	OpenAPI     *int             `json:"openapi,omitempty"`
	GRPC        *int             `json:"grpc,omitempty"`
	BuiltinTool *bool            `json:"builtin,omitempty"`
}

func (e *env) configValidate(args []string) error {
	fs := e.flags("config validate")
	asJSON := fs.Bool("json", false, `print JSON, for scripts: {"file":..,"valid":true,"mcpServers":N,"openapi":N,"grpc":N,"builtin":BOOL} or {"file":..,"valid":false,"error":"..","problems":[{"line":N,"column":N,"path":"..","message":".."}]}`)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("config validate needs one file")
	}
	path := rest[0]
	cfg, err := config.Load(path)
	if err == nil {
		if serr := catalog.CheckSandboxFile(cfg.CodeMode); serr != nil {
			err = fmt.Errorf("%s: %w", path, serr)
		}
	}
	if *asJSON {
		v := validation{File: path, Valid: err == nil}
		if err != nil {
			v.Error = err.Error()
			var cerr *config.Error
			if errors.As(err, &cerr) {
				v.Problems = cerr.Problems
			}
		} else {
			mcp, openapi, grpc, builtin := len(cfg.MCPServers), len(cfg.OpenAPI), len(cfg.GRPC), !cfg.Builtin.Disabled
			v.MCPServers, v.OpenAPI, v.GRPC, v.BuiltinTool = &mcp, &openapi, &grpc, &builtin
		}
		if perr := e.printJSON(v); perr != nil {
			return perr
		}
		if err != nil {
			return reportedError{exitUsage}
		}
		return nil
	}
	if err != nil {
		return configError{err}
	}
	fmt.Fprintf(e.stdout, "%s: valid (%d MCP servers, %d OpenAPI documents, %d gRPC services, built-in tools %s)\n",
		path, len(cfg.MCPServers), len(cfg.OpenAPI), len(cfg.GRPC), map[bool]string{true: "off", false: "on"}[cfg.Builtin.Disabled])
	return nil
}

func (e *env) version(args []string) error {
	fs := e.flags("version")
	asJSON := fs.Bool("json", false, `print JSON, for scripts: {"version":..,"go":..}`)
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("version takes no arguments, got %q", rest)
	}
	if *asJSON {
		return e.printJSON(map[string]string{"version": version(), "go": runtime.Version()})
	}
	fmt.Fprintf(e.stdout, "metatools %s (%s)\n", version(), runtime.Version())
	return nil
}

func (e *env) stats(ctx context.Context, args []string) error {
	fs := e.flags("stats")
	var c common
	c.register(fs)
	toolsFile := fs.String("tools", "", "catalogue as a JSON Lines `file` of tools (default: the configured catalogue)")
	query := fs.String("query", "search the web", "the search_tools query to measure")
	limit := fs.Int("limit", toolops.DefaultLimits.SearchResults, fmt.Sprintf("search_tools results (1 to %d)", toolops.MaxSearchResults))
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("stats takes no arguments, got %q", rest)
	}
	if *limit < 1 || *limit > toolops.MaxSearchResults {
		return usagef("--limit must be 1 to %d, got %d", toolops.MaxSearchResults, *limit)
	}
	var tools []toolmodel.Tool
	if *toolsFile != "" {
		var err error
		if tools, err = readTools(*toolsFile); err != nil {
			return err
		}
	} else {
		s, err := e.openReady(ctx, c, slog.LevelWarn)
		if err != nil {
			return err
		}
		defer s.Close()
		cat := s.cat
		if tools, err = allTools(ctx, cat.Index); err != nil {
			return err
		}
	}
	measured, err := cost.Measure(ctx, tools, *query, *limit)
	if err != nil {
		return err
	}
	if c.json {
		return e.printJSON(measured)
	}
	row := func(name string, k cost.Cost) {
		fmt.Fprintf(e.stdout, "  %-34s %9d bytes  ~%7d tokens\n", name, k.Bytes, k.Tokens)
	}
	fmt.Fprintf(e.stdout, "Catalogue of %d tools\n", measured.Tools)
	row("classic tools/list", measured.Classic)
	row("meta-tools tools/list", measured.MetaList)
	row(fmt.Sprintf("search_tools (%d results)", *limit), measured.Search)
	row("describe_tool (schema level)", measured.Describe)
	row("meta-tool path in all", measured.Meta)
	fmt.Fprintf(e.stdout, "The meta-tool path costs %.1f%% of the classic listing.\n", 100*measured.Ratio)
	return nil
}

// readTools reads tools from a JSON Lines file; it fails on the first
// line that is not a valid tool, naming it.
func readTools(path string) ([]toolmodel.Tool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("%v", err)
	}
	defer f.Close()
	var tools []toolmodel.Tool
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		t, err := toolmodel.DecodeTool(sc.Bytes())
		if err != nil {
			return nil, usagef("%s:%d: %s", path, line, plainText(err))
		}
		tools = append(tools, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tools, nil
}

// listAll lists the whole catalogue, or one namespace of it.
func listAll(ctx context.Context, idx toolindex.Index, namespace string) ([]toolindex.Summary, error) {
	var all []toolindex.Summary
	req := toolindex.ListRequest{Namespace: namespace, Limit: toolindex.MaxPageSize}
	for {
		page, err := idx.List(ctx, req)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextCursor == "" {
			return all, nil
		}
		req.Cursor = page.NextCursor
	}
}

// allTools returns the definitions of every tool of the catalogue.
func allTools(ctx context.Context, idx toolindex.Index) ([]toolmodel.Tool, error) {
	summaries, err := listAll(ctx, idx, "")
	if err != nil {
		return nil, err
	}
	tools := make([]toolmodel.Tool, len(summaries))
	for i, s := range summaries {
		if tools[i], _, err = idx.GetAll(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	return tools, nil
}
