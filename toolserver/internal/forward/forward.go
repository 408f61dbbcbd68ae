package forward

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// Upstreams gives a [Forwarder] the sessions of the upstream MCP servers
// whose resources, resource templates, prompts and completions it
// forwards. The toolrun/mcpexec Manager implements it.
//
// Session returns the live session of the named server, connecting first
// when needed, within ctx. The session belongs to the implementation: the
// Server never closes it, and calls Session again for each request, so
// that a server that reconnected is reached on its new session. Session
// returns an error when the server is unknown or cannot be reached. It must
// be safe for concurrent use.
//
// An Upstreams that also has a method Redact(server, text string) string
// has it remove the secrets an upstream is given from the errors of its
// requests before they are passed on or logged, as the mcpexec Manager
// does.
//
// GetPrompt and ReadResource make those requests of the named server on
// behalf of the client of ctx ([mcpexec.WithClient]), relaying the
// server's requests for input when in is set: they return the result, or
// the requests with the state the next attempt needs (see
// [mcpexec.Manager.GetPrompt]).
type Upstreams interface {
	Session(ctx context.Context, server string) (*mcp.ClientSession, error)
	GetPrompt(ctx context.Context, server string, params *mcp.GetPromptParams, in *toolrun.Input) (*mcp.GetPromptResult, *toolrun.InputRequired, error)
	ReadResource(ctx context.Context, server string, params *mcp.ReadResourceParams, in *toolrun.Input) (*mcp.ReadResourceResult, *toolrun.InputRequired, error)
}

// States seals the state of a request that waits for its client's input,
// so that it comes back unchanged, for the same request of the same
// caller; the toolops Service implements it.
type States interface {
	SealState(ctx context.Context, request any, state string) (string, error)
	OpenState(ctx context.Context, request any, requestState string) (string, error)
}

// upstreamRedactor is the optional interface of an [Upstreams] that knows
// the secrets of its servers.
type upstreamRedactor interface {
	Redact(server, text string) string
}

// Upstream is an upstream MCP server whose resources, resource templates
// and prompts are served.
type Upstream struct {
	// Server is the name [Upstreams] knows the server by.
	Server string
	// Namespace is the namespace of the server's tools in the catalogue; it
	// prefixes the names of its prompts and resources as it does its
	// tools: the prompt "summarize" of namespace "docs" is served as
	// "docs.summarize". Empty means Server.
	Namespace string
	// KeepNames serves the server's prompts and resources under their own
	// names, and has the server expose the catalogue's tools of its
	// namespace directly under their own names too: the tool "docs:search"
	// is then the MCP tool "search", not "docs.search". Such a name must
	// not be taken by a meta-tool or another upstream; a clash of prompts
	// is reported to [Config].Clash.
	KeepNames bool
	// Deferred leaves the first listing of the upstream's resources,
	// resource templates and prompts to the first [Forwarder.Changed]
	// naming it, instead of [Forwarder.Start]: for an upstream still
	// connecting, whose owner reports when it is up, so that Start does
	// not wait for it.
	Deferred bool
}

// namespace returns the upstream's namespace.
func (u Upstream) namespace() string {
	if u.Namespace != "" {
		return u.Namespace
	}
	return u.Server
}

// name returns the name under which one of the upstream's prompts or
// resources is served.
func (u Upstream) name(n string) string {
	if u.KeepNames {
		return n
	}
	return u.namespace() + "." + n
}

// KeptNamespaces returns the namespaces of the upstreams that keep their
// names ([Upstream.KeepNames]), once each, in order.
func KeptNamespaces(ups []Upstream) []string {
	var out []string
	for _, u := range ups {
		if u.KeepNames && !slices.Contains(out, u.namespace()) {
			out = append(out, u.namespace())
		}
	}
	return out
}

// ListTimeout bounds the listing of one upstream's resources,
// resource templates and prompts.
const ListTimeout = 30 * time.Second

// Forwarder serves the resources, resource templates and prompts of
// upstream MCP servers through a go-sdk server, which notifies clients of
// each change, and forwards resources/read, prompts/get,
// completion/complete and resource subscriptions (counted per URI: one
// upstream subscription for any number of clients) to the upstream that
// owns what they name.
//
// Prompts and resources are named as the upstream's tools are ("ns.name",
// see [Upstream]); resource URIs and URI templates are served as they are,
// since they identify the resource. When two upstreams offer the same
// prompt name, URI or URI template, the first configured serves it and
// the clash is logged. An upstream that does not offer resources or
// prompts (its capabilities lack them) contributes none of them, and the
// upstreams whose namespace the policy does not let a caller reach are
// not served at all.
type Forwarder struct {
	server   *mcp.Server // set by Start
	logger   *slog.Logger
	reached  func(ctx context.Context, namespace string) bool
	clash    func(msg string)
	trust    Trust
	sessions Upstreams
	states   States
	ups      []*upstreamState // in the configured order: the first wins a clash
	byServer map[string]*upstreamState

	ctx    context.Context // ends with Server.Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}

	// mu guards what follows and the lists of the upstream states. It is
	// never held across a request to an upstream.
	mu        sync.Mutex
	pending   map[string]bool // servers to list again
	prune     bool            // some subscriber may have gone
	recheck   bool            // the catalogue changed: what the policy lets through may have
	resources map[string]served
	templates map[string]served
	prompts   map[string]served
	warned    map[string]bool // clashes already logged

	// reconcileMu serializes reconciliations.
	reconcileMu sync.Mutex

	// subMu guards subs; it is held across the upstream's (un)subscribe,
	// so that a URI is subscribed upstream once.
	subMu sync.Mutex
	subs  map[string]*subscription // URI -> its subscribers
}

// upstreamState is what one upstream offers, as last listed.
type upstreamState struct {
	Upstream
	caps      *mcp.ServerCapabilities // nil until listed
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
}

// served is a resource, template or prompt the server serves: its owner,
// its name there (a prompt's, which requests name), and a key that
// changes when what is served changes.
type served struct {
	server string
	name   string
	key    string
}

// subscription is the sessions subscribed to one URI, which the server
// subscribed to upstream.
type subscription struct {
	server   string
	sessions map[*mcp.ServerSession]struct{}
	// on is the upstream session the subscription was made on: a
	// reconnected upstream has forgotten it.
	on *mcp.ClientSession
}

// Config configure a [Forwarder].
type Config struct {
	// Sessions reach the upstreams.
	Sessions Upstreams
	// States seals the state of the prompts and resources that wait for
	// their clients' input.
	States States
	// Upstreams are served in this order: the first wins a clash.
	Upstreams []Upstream
	// Reached reports whether the policy lets a caller reach a namespace;
	// the upstreams of the others are not served.
	Reached func(ctx context.Context, namespace string) bool
	// Clash is told of a prompt name two upstreams take when one of them
	// keeps its names, so that it has no other name to be served under.
	Clash func(msg string)
	// Logger reports the upstreams that cannot be listed and what they
	// offer that cannot be served.
	Logger *slog.Logger
	// Trust keeps of the upstreams' prompts and resource templates those
	// that may reach the clients.
	Trust Trust
}

// Trust keeps, of the lists of an upstream's prompts and resource
// templates, what may reach the model: each function returns, in order,
// the items of the list it is given that it admits; a nil one admits
// all.
type Trust struct {
	Prompts   func(server string, prompts []*mcp.Prompt) []*mcp.Prompt
	Templates func(server string, templates []*mcp.ResourceTemplate) []*mcp.ResourceTemplate
}

// New returns a forwarder of the upstreams cfg names; [Forwarder.Start]
// starts serving them.
func New(cfg Config) *Forwarder {
	ctx, cancel := context.WithCancel(context.Background())
	a := &Forwarder{
		logger: cfg.Logger, reached: cfg.Reached, clash: cfg.Clash, trust: cfg.Trust,
		sessions: cfg.Sessions, states: cfg.States, byServer: map[string]*upstreamState{},
		ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		pending: map[string]bool{}, resources: map[string]served{}, templates: map[string]served{},
		prompts: map[string]served{}, warned: map[string]bool{}, subs: map[string]*subscription{},
	}
	for _, u := range cfg.Upstreams {
		if _, dup := a.byServer[u.Server]; dup {
			a.logger.Warn("upstream configured twice: the first is kept", "server", u.Server)
			continue
		}
		st := &upstreamState{Upstream: u}
		a.ups = append(a.ups, st)
		a.byServer[u.Server] = st
	}
	return a
}

// ServerOptions sets the capabilities and handlers of the server that
// serves the upstreams. Every capability is declared whatever the upstreams offer at
// start-up, since an upstream may connect, or start offering resources,
// later; a request the owner cannot answer gets its error.
func (a *Forwarder) ServerOptions(opts *mcp.ServerOptions) {
	opts.Capabilities = &mcp.ServerCapabilities{
		Logging:   &mcp.LoggingCapabilities{}, // the SDK's default
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
		Prompts:   &mcp.PromptCapabilities{ListChanged: true},
	}
	opts.CompletionHandler = a.complete
	opts.SubscribeHandler = a.subscribe
	opts.UnsubscribeHandler = a.unsubscribe
}

// Start lists every upstream not deferred, serves what they offer through
// server, whose options [Forwarder.ServerOptions] set, and starts
// following their changes.
func (a *Forwarder) Start(server *mcp.Server) {
	a.server = server
	var wg sync.WaitGroup
	for _, u := range a.ups {
		if !u.Deferred {
			wg.Go(func() { a.list(u) })
		}
	}
	wg.Wait()
	a.reconcile()
	a.wg.Go(a.follow)
}

// Stop stops following the upstreams' changes.
func (a *Forwarder) Stop() {
	a.cancel()
	a.wg.Wait()
}

// Changed schedules a new listing of an upstream that reported a change
// of its resources, resource templates or prompts; clients are notified of
// what changes in what is served. A burst of reports costs one listing.
// Reports of unknown servers, or after Stop, are ignored. It does not
// block, so it may be called from the goroutine reading the upstream's
// messages.
func (a *Forwarder) Changed(server string) {
	a.mu.Lock()
	if _, ok := a.byServer[server]; ok {
		a.pending[server] = true
	}
	a.mu.Unlock()
	a.poke()
}

// CatalogueChanged has the upstreams served again as the policy lets
// them through: the tools of a namespace decide whether it is reached.
func (a *Forwarder) CatalogueChanged() {
	a.mu.Lock()
	a.recheck = true
	a.mu.Unlock()
	a.poke()
}

func (a *Forwarder) poke() {
	select {
	case a.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// follow lists again the upstreams that reported a change, and drops the
// subscriptions of clients that went away, until the server closes. A
// burst of reports costs one listing of each upstream.
func (a *Forwarder) follow() {
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-a.wake:
		}
		a.mu.Lock()
		pending, prune, recheck := a.pending, a.prune, a.recheck
		a.pending, a.prune, a.recheck = map[string]bool{}, false, false
		a.mu.Unlock()
		if len(pending) > 0 || recheck {
			var wg sync.WaitGroup
			for _, u := range a.ups {
				if pending[u.Server] {
					wg.Go(func() { a.list(u) })
				}
			}
			wg.Wait()
			if a.ctx.Err() != nil {
				return
			}
			a.reconcile()
		}
		if prune {
			a.pruneSubscriptions()
		}
	}
}

// list lists what an upstream offers. A list that fails keeps what was
// listed before, and is logged.
func (a *Forwarder) list(u *upstreamState) {
	ctx, cancel := context.WithTimeout(a.ctx, ListTimeout)
	defer cancel()
	log := a.logger.With("server", u.Server)
	sess, err := a.sessions.Session(ctx, u.Server)
	if err != nil {
		if a.ctx.Err() == nil {
			log.Warn("upstream: cannot list its resources and prompts", "error", err)
		}
		return
	}
	caps := &mcp.ServerCapabilities{}
	if init := sess.InitializeResult(); init != nil && init.Capabilities != nil {
		caps = init.Capabilities
	}
	a.resubscribe(ctx, u.Server, sess)
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	var prompts []*mcp.Prompt
	var resErr, tmplErr, promptErr error
	if caps.Resources != nil {
		resources, resErr = collect(sess.Resources(ctx, nil))
		templates, tmplErr = collect(sess.ResourceTemplates(ctx, nil))
		if tmplErr == nil && a.trust.Templates != nil {
			templates = a.trust.Templates(u.Server, templates)
		}
	}
	if caps.Prompts != nil {
		prompts, promptErr = collect(sess.Prompts(ctx, nil))
		if promptErr == nil && a.trust.Prompts != nil {
			prompts = a.trust.Prompts(u.Server, prompts)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	u.caps = caps
	keep := func(what string, err error) bool {
		if err != nil && a.ctx.Err() == nil {
			log.Warn("upstream: cannot list its "+what, "error", a.redact(u.Server, err.Error()))
		}
		return err != nil
	}
	if !keep("resources", resErr) {
		u.resources = resources
	}
	if !keep("resource templates", tmplErr) {
		u.templates = templates
	}
	if !keep("prompts", promptErr) {
		u.prompts = prompts
	}
}

// collect gathers the items of a paginated list.
func collect[T any](seq func(yield func(T, error) bool)) ([]T, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// reconcile serves what the upstreams offer, as last listed: it adds what
// is new or changed and removes what is gone, so that clients are notified
// of real changes only. The resources, templates and prompts of an
// upstream whose namespace the policy does not let a caller reach
// ([Config].Reached) are not served: a denied upstream
// is hidden whole, not its tools alone.
func (a *Forwarder) reconcile() {
	a.reconcileMu.Lock()
	defer a.reconcileMu.Unlock()
	reached := make(map[*upstreamState]bool, len(a.ups))
	for _, u := range a.ups {
		reached[u] = a.reached(a.ctx, u.namespace())
	}

	a.mu.Lock()
	var ups []*upstreamState
	for _, u := range a.ups {
		if reached[u] {
			ups = append(ups, u)
		}
	}
	resources := gather(a, ups, offered[mcp.Resource]{what: "resource",
		list:  func(u *upstreamState) []*mcp.Resource { return u.resources },
		key:   func(_ *upstreamState, r *mcp.Resource) string { return r.URI },
		check: func(r *mcp.Resource) error { return checkURI(r.URI) },
		name:  func(r *mcp.Resource) *string { return &r.Name },
	})
	templates := gather(a, ups, offered[mcp.ResourceTemplate]{what: "resource template",
		list: func(u *upstreamState) []*mcp.ResourceTemplate { return u.templates },
		key:  func(_ *upstreamState, t *mcp.ResourceTemplate) string { return t.URITemplate },
		check: func(t *mcp.ResourceTemplate) error {
			if _, err := uritemplate.New(t.URITemplate); err != nil {
				return err
			}
			return checkURI(t.URITemplate)
		},
		name: func(t *mcp.ResourceTemplate) *string { return &t.Name },
	})
	prompts := gather(a, ups, offered[mcp.Prompt]{what: "prompt",
		list: func(u *upstreamState) []*mcp.Prompt { return u.prompts },
		key:  func(u *upstreamState, p *mcp.Prompt) string { return u.name(p.Name) },
		name: func(p *mcp.Prompt) *string { return &p.Name },
		clash: func(u, prev *upstreamState, name string) {
			// A prompt of an upstream that keeps its names has no other
			// name to be served under.
			if u.KeepNames || prev.KeepNames {
				a.clash(fmt.Sprintf("prompt %q of upstream %q clashes with the prompt of upstream %q", name, u.Server, prev.Server))
			}
		},
	})
	changedResources, removeResources := reconcile(a.resources, resources)
	changedTemplates, removeTemplates := reconcile(a.templates, templates)
	changedPrompts, removePrompts := reconcile(a.prompts, prompts)
	a.mu.Unlock()

	// The go-sdk server debounces the notifications of these changes.
	if len(removeResources) > 0 {
		a.server.RemoveResources(removeResources...)
	}
	if len(removeTemplates) > 0 {
		a.server.RemoveResourceTemplates(removeTemplates...)
	}
	if len(removePrompts) > 0 {
		a.server.RemovePrompts(removePrompts...)
	}
	for _, o := range changedResources {
		a.server.AddResource(o.item, a.read(o.owner.Server))
	}
	for _, o := range changedTemplates {
		a.server.AddResourceTemplate(o.item, a.read(o.owner.Server))
	}
	for _, o := range changedPrompts {
		a.server.AddPrompt(o.item, a.getPrompt(o.owner.Server, o.original))
	}
}

// warnOnce logs a problem of the upstreams' lists the first time it is
// seen, since every listing finds it again. a.mu is held.
func (a *Forwarder) warnOnce(msg string, args ...any) {
	key := msg + fmt.Sprint(args...)
	if !a.warned[key] {
		a.warned[key] = true
		a.logger.Warn(msg, args...)
	}
}

// itemKey identifies what is served of an item: its owner and its
// definition.
func itemKey(server string, item any) string {
	raw, err := json.Marshal(item)
	if err != nil {
		// The items were decoded from JSON: they encode again.
		return server + fmt.Sprint(item)
	}
	return server + "\x00" + string(raw)
}

// checkURI checks what the go-sdk server requires of a resource URI: an
// absolute URI.
func checkURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return err
	}
	if u.Scheme == "" {
		return fmt.Errorf("URI %q is not absolute", uri)
	}
	return nil
}

// read forwards resources/read to an upstream, relaying its requests for
// input.
func (a *Forwarder) read(server string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		key := relayedRequest{Method: "resources/read", Server: server, Name: req.Params.URI}
		in, err := a.input(ctx, req.Session, key, req.Params.InputResponses, req.Params.RequestState)
		if err != nil {
			return nil, err
		}
		params := &mcp.ReadResourceParams{URI: req.Params.URI}
		res, asked, err := a.sessions.ReadResource(mcpexec.WithClient(ctx, req.Session), server, params, in)
		if err != nil {
			return nil, a.upstreamError(server, err)
		}
		if asked != nil {
			state, err := a.seal(ctx, key, asked)
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{InputRequests: asked.Requests, RequestState: state}, nil
		}
		return res, nil
	}
}

// getPrompt forwards prompts/get to an upstream, under the prompt's name
// there, relaying its requests for input.
func (a *Forwarder) getPrompt(server, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		key := relayedRequest{Method: "prompts/get", Server: server, Name: name, Arguments: req.Params.Arguments}
		in, err := a.input(ctx, req.Session, key, req.Params.InputResponses, req.Params.RequestState)
		if err != nil {
			return nil, err
		}
		params := &mcp.GetPromptParams{Name: name, Arguments: req.Params.Arguments}
		res, asked, err := a.sessions.GetPrompt(mcpexec.WithClient(ctx, req.Session), server, params, in)
		if err != nil {
			return nil, a.upstreamError(server, err)
		}
		if asked != nil {
			state, err := a.seal(ctx, key, asked)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{InputRequests: asked.Requests, RequestState: state}, nil
		}
		return res, nil
	}
}

// relayedRequest identifies a request whose upstream asks for input, for
// its state: the method, the upstream, the prompt or resource, and the
// prompt's arguments.
type relayedRequest struct {
	Method    string            `json:"method"`
	Server    string            `json:"server"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// input returns what a request of a client that answers an upstream's
// requests for input by asking again (protocol 2026-07-28 on) carries:
// its answers and the upstream's state, opened from the requestState the
// client returned. A state the client changed, or one of another request,
// is an error of invalid parameters. For any other client it returns nil:
// the upstream asks such a client during the request, on a session of its
// own, or cannot ask it anything.
func (a *Forwarder) input(ctx context.Context, client *mcp.ServerSession, key relayedRequest, responses mcp.InputResponseMap, requestState string) (*toolrun.Input, error) {
	if !mcpexec.RetriesForInput(client) {
		return nil, nil
	}
	in := &toolrun.Input{Responses: responses}
	if requestState != "" {
		state, err := a.states.OpenState(ctx, key, requestState)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		in.State = state
	}
	return in, nil
}

// seal returns the requestState a client returns with its answers to an
// upstream's requests for input.
func (a *Forwarder) seal(ctx context.Context, key relayedRequest, asked *toolrun.InputRequired) (string, error) {
	state, err := a.states.SealState(ctx, key, asked.State)
	if err != nil {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return state, nil
}

// complete forwards completion/complete to the upstream that owns the
// referenced prompt or resource template (or resource).
func (a *Forwarder) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref := *req.Params.Ref
	var server string
	a.mu.Lock()
	switch ref.Type {
	case "ref/prompt":
		if route, ok := a.prompts[ref.Name]; ok {
			server, ref.Name = route.server, route.name
		}
	case "ref/resource":
		server = a.ownerLocked(ref.URI)
	}
	var caps *mcp.ServerCapabilities
	if st := a.byServer[server]; st != nil {
		caps = st.caps
	}
	a.mu.Unlock()
	if server == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no %s %q to complete", strings.TrimPrefix(ref.Type, "ref/"), ref.Name+ref.URI)}
	}
	if caps != nil && caps.Completions == nil {
		// The owner offers no completions: there are none to suggest.
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	sess, err := a.sessions.Session(ctx, server)
	if err != nil {
		return nil, a.upstreamError(server, err)
	}
	res, err := sess.Complete(ctx, &mcp.CompleteParams{Argument: req.Params.Argument, Context: req.Params.Context, Ref: &ref})
	if err != nil {
		return nil, a.upstreamError(server, err)
	}
	return res, nil
}

// ownerLocked returns the upstream serving a resource URI, or a URI
// template, or the template a URI matches; "" if none. a.mu is held.
func (a *Forwarder) ownerLocked(uri string) string {
	if sv, ok := a.resources[uri]; ok {
		return sv.server
	}
	if sv, ok := a.templates[uri]; ok {
		return sv.server
	}
	// The first configured upstream whose template matches, as for a
	// clash of URIs.
	for _, u := range a.ups {
		for _, t := range u.templates {
			sv, ok := a.templates[t.URITemplate]
			if !ok || sv.server != u.Server {
				continue
			}
			if tmpl, err := uritemplate.New(t.URITemplate); err == nil && tmpl.Regexp().MatchString(uri) {
				return u.Server
			}
		}
	}
	return ""
}

// subscribe subscribes a client to a resource: the server subscribes to
// it upstream for its first subscriber.
func (a *Forwarder) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	a.mu.Lock()
	server := a.ownerLocked(uri)
	var caps *mcp.ServerCapabilities
	if st := a.byServer[server]; st != nil {
		caps = st.caps
	}
	a.mu.Unlock()
	if server == "" {
		return mcp.ResourceNotFoundError(uri)
	}
	a.subMu.Lock()
	defer a.subMu.Unlock()
	sub := a.subs[uri]
	if sub == nil {
		if caps == nil || caps.Resources == nil || !caps.Resources.Subscribe {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("the server of %s offers no subscriptions", uri)}
		}
		sess, err := a.sessions.Session(ctx, server)
		if err != nil {
			return a.upstreamError(server, err)
		}
		if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			return a.upstreamError(server, err)
		}
		sub = &subscription{server: server, sessions: map[*mcp.ServerSession]struct{}{}, on: sess}
		a.subs[uri] = sub
	}
	sub.sessions[req.Session] = struct{}{}
	return nil
}

// resubscribe subscribes again, on sess, to the resources of server that
// were subscribed to on an earlier session of it, which ended: the
// subscriptions of the clients survive the upstream's reconnection. A
// failure is logged; the next listing tries again.
func (a *Forwarder) resubscribe(ctx context.Context, server string, sess *mcp.ClientSession) {
	a.subMu.Lock()
	defer a.subMu.Unlock()
	for uri, sub := range a.subs {
		if sub.server != server || sub.on == sess {
			continue
		}
		if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			a.logger.Warn("upstream: subscribe again after reconnecting", "server", server, "uri", uri, "error", a.redact(server, err.Error()))
			continue
		}
		sub.on = sess
	}
}

// unsubscribe unsubscribes a client from a resource, and the server
// upstream once no client is subscribed.
func (a *Forwarder) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	a.subMu.Lock()
	defer a.subMu.Unlock()
	uri := req.Params.URI
	sub := a.subs[uri]
	if sub == nil {
		return nil
	}
	delete(sub.sessions, req.Session)
	if len(sub.sessions) == 0 {
		delete(a.subs, uri)
		a.unsubscribeUpstream(ctx, sub.server, uri)
	}
	return nil
}

// unsubscribeUpstream ends the server's subscription upstream; a failure
// only costs notifications nobody receives, and is logged.
func (a *Forwarder) unsubscribeUpstream(ctx context.Context, server, uri string) {
	sess, err := a.sessions.Session(ctx, server)
	if err == nil {
		err = sess.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
	if err != nil {
		a.logger.Warn("upstream: unsubscribe", "server", server, "uri", uri, "error", a.redact(server, err.Error()))
	}
}

// ResourceUpdated relays an upstream's notification that a resource
// changed to the clients subscribed to it, and has subscriptions whose
// clients are gone dropped. It may be called from the goroutine reading
// the upstream's messages.
func (a *Forwarder) ResourceUpdated(server string, params *mcp.ResourceUpdatedNotificationParams) {
	if err := a.server.ResourceUpdated(a.ctx, params); err != nil {
		a.logger.Debug("resource update not relayed", "server", server, "uri", params.URI, "error", err)
	}
	// The go-sdk server forgets the subscriptions of a client that
	// disconnects without telling the handlers; they are dropped here,
	// apart from the caller, which may be reading the upstream's messages.
	a.mu.Lock()
	a.prune = true
	a.mu.Unlock()
	a.poke()
}

// pruneSubscriptions drops the subscribers that are no longer connected,
// and the upstream subscriptions left without subscribers.
func (a *Forwarder) pruneSubscriptions() {
	live := map[*mcp.ServerSession]bool{}
	for ss := range a.server.Sessions() {
		live[ss] = true
	}
	a.subMu.Lock()
	defer a.subMu.Unlock()
	for uri, sub := range a.subs {
		for ss := range sub.sessions {
			if !live[ss] {
				delete(sub.sessions, ss)
			}
		}
		if len(sub.sessions) == 0 {
			delete(a.subs, uri)
			ctx, cancel := context.WithTimeout(a.ctx, ListTimeout)
			a.unsubscribeUpstream(ctx, sub.server, uri)
			cancel()
		}
	}
}

// upstreamError returns the error of a request an upstream failed: its
// own JSON-RPC error (a resource not found stays one), anything else with
// the code of its kind ([errors.ToWire]) naming the upstream; either
// without the secrets the upstream is given. Data that is no longer JSON once redacted is left
// out.
func (a *Forwarder) upstreamError(server string, err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		w := *wire
		w.Message = a.redact(server, w.Message)
		if len(w.Data) > 0 {
			w.Data = json.RawMessage(a.redact(server, string(w.Data)))
			if !json.Valid(w.Data) {
				w.Data = nil
			}
		}
		return &w
	}
	return &jsonrpc.Error{Code: errors.ToWire(err).Code, Message: a.redact(server, fmt.Sprintf("upstream %q: %v", server, err))}
}

// redact returns text without the secrets the server is given, when the
// Upstreams knows them.
func (a *Forwarder) redact(server, text string) string {
	if r, ok := a.sessions.(upstreamRedactor); ok {
		return r.Redact(server, text)
	}
	return text
}

// offered says how an upstream offers one kind of item (resources,
// templates, prompts), for gather.
type offered[T any] struct {
	what string
	// list returns an upstream's items, as last listed.
	list func(u *upstreamState) []*T
	// key returns the key an item is served under (its URI, or its name
	// as served).
	key func(u *upstreamState, item *T) string
	// check refuses an item that cannot be served (nil: all can).
	check func(item *T) error
	// name points at an item's name, which gather sets to the name the
	// upstream serves it under.
	name func(item *T) *string
	// clash is told of a key an earlier upstream serves already (nil:
	// only a warning).
	clash func(u, prev *upstreamState, key string)
}

// offer is an item to serve: its key, its owner, its name there and the
// copy served.
type offer[T any] struct {
	key, original string
	owner         *upstreamState
	item          *T
}

// gather returns the items of one kind the upstreams ups offer, in order,
// an earlier upstream winning a key, each a copy named as its upstream
// serves it; an item that cannot be served, or whose key is taken, is
// left out with a warning (given once). a.mu is held.
func gather[T any](a *Forwarder, ups []*upstreamState, o offered[T]) []offer[T] {
	var out []offer[T]
	owners := map[string]*upstreamState{}
	for _, u := range ups {
		for _, item := range o.list(u) {
			key := o.key(u, item)
			if o.check != nil {
				if err := o.check(item); err != nil {
					a.warnOnce("upstream: "+o.what+" skipped", "server", u.Server, "key", key, "error", err)
					continue
				}
			}
			if prev, taken := owners[key]; taken {
				if o.clash != nil {
					o.clash(u, prev, key)
				}
				a.warnOnce("upstream: "+o.what+" served by an earlier upstream", "key", key, "server", u.Server, "by", prev.Server)
				continue
			}
			owners[key] = u
			c := *item
			original := *o.name(&c)
			*o.name(&c) = u.name(original)
			out = append(out, offer[T]{key: key, original: original, owner: u, item: &c})
		}
	}
	return out
}

// reconcile makes current, what the server serves, the offers next: it
// returns the offers new or changed, in order, and the keys of the items
// to remove.
func reconcile[T any](current map[string]served, next []offer[T]) (changed []offer[T], removed []string) {
	keys := make(map[string]bool, len(next))
	for _, o := range next {
		keys[o.key] = true
		sv := served{server: o.owner.Server, name: o.original, key: itemKey(o.owner.Server, o.item)}
		if prev, ok := current[o.key]; !ok || prev != sv {
			current[o.key] = sv
			changed = append(changed, o)
		}
	}
	for k := range current {
		if !keys[k] {
			delete(current, k)
			removed = append(removed, k)
		}
	}
	return changed, removed
}
