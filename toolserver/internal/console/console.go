package console

import (
	"embed"
	"encoding/json"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/trust"
)

// Path is where the console is mounted: its pages at Path, its API under
// Path+"api/"; Path without its slash redirects to Path. Mount the
// console at both.
const Path = "/ui/"

// HeaderName is the header a request that changes something (a POST)
// must carry, with the value "1": a page of another site cannot send it
// without the console's consent (a CORS preflight the console never
// grants), which makes it the console's CSRF protection, with the check
// of Origin and Sec-Fetch-Site.
const HeaderName = "X-Metatools-Console"

// contentSecurityPolicy lets the pages load their script, style and data
// from the console alone: no inline script, no other site, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// maxBody bounds the body of a POST: a run's arguments, an approval.
const maxBody = 1 << 20

// maxFilterPages bounds the pages of the catalogue one search looks
// through when it keeps the tools of an upstream with several
// namespaces.
const maxFilterPages = 10

//go:embed assets
var assets embed.FS

// Options configure a [Console].
type Options struct {
	// Run lets the console's users run tools, through the operations'
	// Run (the runner and its policies). Off, a run is refused with 403.
	Run bool
	// Approve lets the console's users approve what the trust checks
	// quarantine, in the pin store at Pins. Off, the quarantine page
	// shows what is withheld but approving is refused with 403.
	Approve bool
	// Pins is the path of the pin store; empty, the console shows no
	// review.
	Pins string
	// Calls are the recent calls to show; nil shows none.
	Calls *Calls
	// Now returns the time the answers are made at; nil is time.Now.
	Now func() time.Time
}

// Console serves the web console: see the package documentation.
type Console struct {
	ops  *toolops.Service
	opts Options
	mux  *http.ServeMux
}

var _ http.Handler = (*Console)(nil)

// New returns the console of the operations ops.
func New(ops *toolops.Service, opts Options) *Console {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Console{ops: ops, opts: opts, mux: http.NewServeMux()}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	files := http.StripPrefix(strings.TrimSuffix(Path, "/"), http.FileServerFS(static))
	c.mux.Handle("GET "+strings.TrimSuffix(Path, "/"), http.RedirectHandler(Path, http.StatusSeeOther))
	for _, file := range []string{"{$}", "app.js", "app.css", "icon.svg"} {
		c.mux.Handle("GET "+Path+file, files)
	}
	c.mux.HandleFunc("GET "+Path+"api/upstreams", c.upstreams)
	c.mux.HandleFunc("GET "+Path+"api/namespaces", c.namespaces)
	c.mux.HandleFunc("GET "+Path+"api/search", c.search)
	c.mux.HandleFunc("GET "+Path+"api/tool", c.tool)
	c.mux.HandleFunc("POST "+Path+"api/run", c.run)
	c.mux.HandleFunc("GET "+Path+"api/calls", c.calls)
	c.mux.HandleFunc("GET "+Path+"api/quarantine", c.quarantine)
	c.mux.HandleFunc("POST "+Path+"api/approve", c.approve)
	c.mux.HandleFunc(Path+"api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errors.Errorf(errors.NotFound, "no API %s %s", r.Method, r.URL.Path))
	})
	return c
}

// ServeHTTP sets the security headers of every answer, refuses a POST
// that may come from another site, and serves the pages and the API.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	secure(h)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := sameOrigin(r); err != nil {
			writeError(w, err)
			return
		}
	}
	c.mux.ServeHTTP(w, r)
}

// secure sets the headers every answer of the console has: its content
// comes from the console alone and is never framed, sniffed, cached, nor
// referred to another site.
func secure(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// sameOrigin refuses a request that changes something unless it comes
// from a page of the console: Sec-Fetch-Site, when the browser sends it,
// says same-origin; Origin, when sent, is the console's own; the
// console's header is there; the body is JSON.
func sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return errors.Errorf(errors.PermissionDenied, "cross-site request refused (Sec-Fetch-Site: %s)", site)
	}
	if origin := r.Header.Get("Origin"); origin != "" && !ownOrigin(origin, r.Host) {
		return errors.Errorf(errors.PermissionDenied, "cross-site request refused (Origin: %.100s)", origin)
	}
	if r.Header.Get(HeaderName) != "1" {
		return errors.Errorf(errors.PermissionDenied, "a request that changes something must carry the header %s: 1", HeaderName)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errors.Errorf(errors.InvalidArgument, "the body must be JSON (Content-Type: application/json)")
	}
	return nil
}

// ownOrigin reports whether origin is the web origin of the console at
// host: over HTTP or HTTPS (a proxy may end TLS in front of it), with
// nothing but the scheme and the host.
func ownOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, host) &&
		u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.Opaque == ""
}

// errorBody is the body of an error answer.
type errorBody struct {
	Error struct {
		Code    errors.Code `json:"code"`
		Message string      `json:"message"`
	} `json:"error"`
}

// writeError answers err, with the HTTP status of its code.
func writeError(w http.ResponseWriter, err error) {
	var body errorBody
	body.Error.Code = errors.CodeOf(err)
	body.Error.Message = err.Error()
	writeJSON(w, body.Error.Code.HTTPStatus(), body)
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// readJSON decodes the body of r into v: one JSON value of at most
// maxBody bytes, with no unknown field.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.Errorf(errors.InvalidArgument, "the body is not the JSON expected: %v", err)
	}
	if dec.More() {
		return errors.Errorf(errors.InvalidArgument, "the body holds more than one JSON value")
	}
	return nil
}

// upstreamView is an upstream as the console shows it.
type upstreamView struct {
	toolops.Upstream
	// Namespaces are the upstream's namespaces, which its filter keeps.
	Namespaces []string `json:"namespaces,omitempty"`
	// DurationMs is how long its last connection attempt took.
	DurationMs int64 `json:"durationMs"`
}

// upstreamsAnswer is the answer of GET api/upstreams.
type upstreamsAnswer struct {
	Now       time.Time      `json:"now"`
	Upstreams []upstreamView `json:"upstreams"`
	// Status is the upstreams' state in words, as the operations tell it.
	Status string `json:"status"`
}

func (c *Console) upstreams(w http.ResponseWriter, r *http.Request) {
	ups := c.ops.Upstreams(r.Context())
	now := c.opts.Now()
	out := upstreamsAnswer{Now: now, Upstreams: make([]upstreamView, 0, len(ups)), Status: toolops.StatusText(ups, now)}
	for _, u := range ups {
		out.Upstreams = append(out.Upstreams, upstreamView{Upstream: u, Namespaces: u.Namespaces, DurationMs: u.Duration.Milliseconds()})
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *Console) namespaces(w http.ResponseWriter, r *http.Request) {
	ns, err := c.ops.Namespaces(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespaces": ns})
}

// search answers GET api/search?q=&namespace=&upstream=&cursor=&limit=
// with the operations' search: the upstream filter keeps the tools of
// the upstream's namespaces.
func (c *Console) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := toolops.SearchRequest{Query: q.Get("q"), Namespace: q.Get("namespace"), Cursor: q.Get("cursor")}
	if l := q.Get("limit"); l != "" {
		var err error
		if req.Limit, err = parseLimit(l); err != nil {
			writeError(w, err)
			return
		}
	}
	if !toolserver.MayCall(r.Context(), toolserver.ToolSearch) {
		writeError(w, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s", toolserver.ToolSearch))
		return
	}
	var keep []string // the namespaces the upstream filter keeps; nil keeps all
	if name := q.Get("upstream"); name != "" {
		ups := c.ops.Upstreams(r.Context())
		i := slices.IndexFunc(ups, func(u toolops.Upstream) bool { return u.Name == name })
		if i < 0 {
			writeError(w, errors.Errorf(errors.NotFound, "no upstream %q", name))
			return
		}
		keep = ups[i].Namespaces
		switch {
		case req.Namespace != "" && !slices.Contains(keep, req.Namespace):
			writeJSON(w, http.StatusOK, toolops.SearchResult{Tools: []toolindex.Summary{}})
			return
		case req.Namespace != "":
			keep = nil
		case len(keep) == 0:
			writeJSON(w, http.StatusOK, toolops.SearchResult{Tools: []toolindex.Summary{}})
			return
		case len(keep) == 1:
			req.Namespace, keep = keep[0], nil
		}
	}
	res, err := c.ops.Search(r.Context(), req)
	if err != nil {
		writeError(w, err)
		return
	}
	if keep != nil {
		res = c.filter(r, req, res, keep)
	}
	if res.Tools == nil {
		res.Tools = []toolindex.Summary{}
	}
	writeJSON(w, http.StatusOK, res)
}

// filter keeps the tools of res in the namespaces keep, reading the
// following pages, at most maxFilterPages in all, until it holds as many
// as a page does: the order stays the search's.
func (c *Console) filter(r *http.Request, req toolops.SearchRequest, res toolops.SearchResult, keep []string) toolops.SearchResult {
	want := len(res.Tools)
	out := toolops.SearchResult{Tools: []toolindex.Summary{}}
	for page := 1; ; page++ {
		for _, t := range res.Tools {
			if slices.Contains(keep, t.Namespace) {
				out.Tools = append(out.Tools, t)
			}
		}
		out.NextCursor, out.Note = res.NextCursor, res.Note
		if res.NextCursor == "" || len(out.Tools) >= want || page == maxFilterPages {
			return out
		}
		req.Cursor = res.NextCursor
		next, err := c.ops.Search(r.Context(), req)
		if err != nil {
			return out
		}
		res = next
	}
}

// parseLimit reads a limit parameter.
func parseLimit(s string) (int, error) {
	n := 0
	for _, ch := range s {
		if ch < '0' || ch > '9' || n > toolops.MaxSearchResults {
			return 0, errors.Errorf(errors.InvalidArgument, "limit %.20q is not a number from 1 to %d", s, toolops.MaxSearchResults)
		}
		n = n*10 + int(ch-'0')
	}
	return n, nil
}

// toolAnswer is the answer of GET api/tool?id=.
type toolAnswer struct {
	// Doc is the tool's documentation at the full level.
	Doc any `json:"doc"`
	// Examples are its example calls.
	Examples any `json:"examples"`
	// Declaration is its TypeScript declaration, as code mode's programs
	// call it.
	Declaration string `json:"declaration"`
	// Run says whether the console may run it.
	Run bool `json:"run"`
}

func (c *Console) tool(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		writeError(w, errors.Errorf(errors.InvalidArgument, "name the tool: ?id=namespace:name"))
		return
	}
	if !toolserver.MayCall(r.Context(), toolserver.ToolDescribe) {
		writeError(w, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s", toolserver.ToolDescribe))
		return
	}
	ctx := r.Context()
	doc, err := c.ops.Describe(ctx, toolops.DescribeRequest{ID: id, Level: "full"})
	if err != nil {
		writeError(w, err)
		return
	}
	examples, err := c.ops.Examples(ctx, toolops.ExamplesRequest{ID: id})
	if err != nil {
		writeError(w, err)
		return
	}
	decl, err := c.ops.Declare(ctx, toolops.DeclareRequest{IDs: []string{id}})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, toolAnswer{Doc: doc, Examples: examples, Declaration: decl, Run: c.mayRun(r)})
}

// mayRun reports whether the console may run tools for r.
func (c *Console) mayRun(r *http.Request) bool {
	return c.opts.Run && toolserver.MayCall(r.Context(), toolserver.ToolRun)
}

// runRequest is the body of POST api/run.
type runRequest struct {
	ID   string         `json:"id"`
	Args map[string]any `json:"args"`
}

// runAnswer is the answer of a run: the tool's result, or its failure.
type runAnswer struct {
	Structured any    `json:"structured,omitempty"`
	Content    any    `json:"content,omitempty"`
	ToolError  string `json:"toolError,omitempty"`
	DurationMs int64  `json:"durationMs"`
	Attempts   int    `json:"attempts"`
}

func (c *Console) run(w http.ResponseWriter, r *http.Request) {
	if !c.opts.Run {
		writeError(w, errors.Errorf(errors.PermissionDenied, "running tools from the console is off (server.http.console.run)"))
		return
	}
	if !c.mayRun(r) {
		writeError(w, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s", toolserver.ToolRun))
		return
	}
	var req runRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if req.ID == "" {
		writeError(w, errors.Errorf(errors.InvalidArgument, "name the tool to run: {\"id\": ..., \"args\": {...}}"))
		return
	}
	res, err := c.ops.Run(r.Context(), toolops.RunRequest{ID: req.ID, Args: req.Args})
	if err != nil {
		writeError(w, err)
		return
	}
	out := runAnswer{Structured: res.Structured, DurationMs: res.Duration.Milliseconds(), Attempts: res.Attempts}
	if len(res.Content) > 0 {
		out.Content = res.Content
	}
	if res.ToolError != nil {
		out.ToolError = res.ToolError.Error()
	}
	writeJSON(w, http.StatusOK, out)
}

// calls answers the recent calls of the tools offered to the caller, the
// latest first: the calls of a tool the caller may not see are left out.
func (c *Console) calls(w http.ResponseWriter, r *http.Request) {
	out := []toolrun.AuditRecord{}
	if c.opts.Calls != nil {
		seen := map[string]bool{}
		for _, rec := range c.opts.Calls.Recent() {
			offered, ok := seen[rec.Tool]
			if !ok {
				_, err := c.ops.Describe(r.Context(), toolops.DescribeRequest{ID: rec.Tool, Level: "summary"})
				offered = err == nil
				seen[rec.Tool] = offered
			}
			if offered {
				out = append(out, rec)
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"calls": out})
}

// reviewItem is an item waiting for approval, as the console shows it.
type reviewItem struct {
	ID       string          `json:"id"`
	Upstream string          `json:"upstream"`
	Kind     trust.Kind      `json:"kind"`
	Name     string          `json:"name"`
	Reason   string          `json:"reason"`
	Since    time.Time       `json:"since"`
	Findings []string        `json:"findings,omitempty"`
	Diff     string          `json:"diff"`
	Changed  bool            `json:"changed"`
	Pending  json.RawMessage `json:"pending"`
}

// quarantineAnswer is the answer of GET api/quarantine.
type quarantineAnswer struct {
	Approve bool         `json:"approve"`
	Items   []reviewItem `json:"items"`
}

// quarantine answers what waits for approval that the caller may know
// of: the tools its policies would let it call among those the
// operations say are quarantined, and the prompts and resource templates
// of the upstreams it is told of.
func (c *Console) quarantine(w http.ResponseWriter, r *http.Request) {
	out := quarantineAnswer{Approve: c.opts.Approve && c.opts.Pins != "", Items: []reviewItem{}}
	if c.opts.Pins == "" {
		writeJSON(w, http.StatusOK, out)
		return
	}
	records, err := catalog.Review(c.opts.Pins)
	if err != nil {
		writeError(w, err)
		return
	}
	visible := c.visible(r)
	for _, rec := range records {
		if !visible(rec) {
			continue
		}
		p := rec.Pending
		item := reviewItem{ID: rec.ID, Upstream: rec.Upstream, Kind: rec.Kind, Name: rec.Name, Reason: p.Reason, Since: p.At,
			Diff: trust.FormatChanges(rec.Diff()), Changed: rec.Approved != nil}
		for _, f := range p.Findings {
			item.Findings = append(item.Findings, f.String())
		}
		item.Pending, _ = json.Marshal(p.Item)
		out.Items = append(out.Items, item)
	}
	writeJSON(w, http.StatusOK, out)
}

// visible returns whether the caller of r may know of a pending record.
func (c *Console) visible(r *http.Request) func(trust.Record) bool {
	upstreams := map[string]bool{}
	tools := map[string]bool{}
	for _, u := range c.ops.Upstreams(r.Context()) {
		upstreams[u.Name] = true
		for _, q := range u.Quarantined {
			tools[u.Name+"\x00"+q.ID] = true
		}
	}
	return func(rec trust.Record) bool {
		if rec.Kind == trust.KindTool {
			return tools[rec.Upstream+"\x00"+rec.Pending.Item.ExposedName()]
		}
		return upstreams[rec.Upstream]
	}
}

// approveRequest is the body of POST api/approve.
type approveRequest struct {
	IDs []string `json:"ids"`
}

// approve approves the items named, all or none, as `metatools tools
// approve` does; each must be one the caller may see.
func (c *Console) approve(w http.ResponseWriter, r *http.Request) {
	if !c.opts.Approve || c.opts.Pins == "" {
		writeError(w, errors.Errorf(errors.PermissionDenied, "approving from the console is off (server.http.console.approve)"))
		return
	}
	if !toolserver.MayCall(r.Context(), "*") {
		writeError(w, errors.Errorf(errors.PermissionDenied, "approving needs a token whose scopes allow every tool"))
		return
	}
	var req approveRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if len(req.IDs) == 0 {
		writeError(w, errors.Errorf(errors.InvalidArgument, "name the items to approve: {\"ids\": [...]}"))
		return
	}
	records, err := catalog.Review(c.opts.Pins)
	if err != nil {
		writeError(w, err)
		return
	}
	visible := c.visible(r)
	for _, id := range req.IDs {
		i := slices.IndexFunc(records, func(rec trust.Record) bool { return rec.ID == id })
		if i < 0 || !visible(records[i]) {
			writeError(w, errors.Errorf(errors.NotFound, "approve %q: nothing by that ID waits for review", id))
			return
		}
	}
	approved, err := catalog.Approve(c.opts.Pins, req.IDs, "")
	if err != nil {
		writeError(w, err)
		return
	}
	ids := make([]string, 0, len(approved))
	for _, rec := range approved {
		ids = append(ids, rec.ID)
	}
	writeJSON(w, http.StatusOK, map[string]any{"approved": ids, "admittedWithin": catalog.TrustPoll.String()})
}
