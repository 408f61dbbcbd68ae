package toolserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolserver/internal/forward"
)

// Upstreams gives a [Server] the sessions of the upstream MCP servers whose
// resources, resource templates, prompts and completions it serves
// ([WithUpstreams]); the toolrun/mcpexec Manager implements it. Session
// returns the live session of the named server, connecting first when
// needed; the Server never closes it, and asks again for each request.
// GetPrompt and ReadResource make those requests on behalf of the client
// in the context, relaying the upstream's requests for input. An
// Upstreams that also has a method Redact(server, text string) string has
// it remove the secrets an upstream is given from the errors of its
// requests before they are passed on or logged.
type Upstreams = forward.Upstreams

// Upstream is an upstream MCP server of [WithUpstreams]: the name
// [Upstreams] knows it by, the namespace of its tools in the catalogue
// (which prefixes its prompts and resources too: "docs.summarize"),
// whether it keeps its names (its tools are then passed through, and its
// prompts and resources served, under their own names; a clash with
// another name found while [New] builds the server fails New) and whether
// its first listing waits for its first [Server.UpstreamChanged].
type Upstream = forward.Upstream

// UpstreamListTimeout bounds the listing of one upstream's resources,
// resource templates and prompts.
const UpstreamListTimeout = forward.ListTimeout

// WithUpstreams makes the server serve the resources, resource templates
// and prompts of upstream MCP servers, reached through sessions, and
// answer resources/read, prompts/get, completion/complete and resource
// subscriptions by forwarding them to the upstream that owns the resource,
// template or prompt.
//
// Prompts and resources are named as the upstream's tools are ("ns.name",
// see [Upstream]); resource URIs and URI templates are served as they are,
// since they identify the resource. When two upstreams offer the same
// prompt name, URI or URI template, the first in the given order serves
// it and the clash is logged. An upstream that does not offer resources or
// prompts (its capabilities lack them) contributes none of them, and one
// whose namespace the policy hides is hidden whole.
//
// [New] lists every upstream before it returns, except those marked
// Deferred; an upstream that cannot be reached then is logged and listed
// again when it reports a change. Reports of upstreams reach the server
// through [Server.UpstreamChanged] and [Server.UpstreamResourceUpdated],
// which the caller wires to its session manager (the catalog package
// does).
func WithUpstreams(sessions Upstreams, upstreams ...Upstream) Option {
	return func(s *Server) {
		s.upstreamSessions = sessions
		s.upstreams = append(s.upstreams, upstreams...)
	}
}

// UpstreamTrust says which of an upstream's prompts and resource
// templates a server forwards to its clients ([WithUpstreamTrust]):
// descriptions reach the model, so a catalogue that withholds an
// upstream's tools it does not trust (package trust) withholds those too.
// It is given the upstream's name (as [Upstreams] knows it) and each list
// that succeeded, and returns what it admits, in order. A nil function
// admits everything.
type UpstreamTrust = forward.Trust

// WithUpstreamTrust makes the server forward, of its upstreams' prompts
// and resource templates ([WithUpstreams]), only those t admits.
func WithUpstreamTrust(t UpstreamTrust) Option {
	return func(s *Server) { s.upstreamTrust = t }
}

// UpstreamChanged tells the server that an upstream of [WithUpstreams]
// reported a change of its resources, resource templates or prompts
// (notifications/resources/list_changed, notifications/prompts/list_changed).
// The server lists them again in the background and updates what it
// serves; clients are notified. A burst of reports costs one listing.
// Reports of unknown servers, or after [Server.Close], are ignored. It
// does not block, so it may be called from the goroutine reading the
// upstream's messages.
func (s *Server) UpstreamChanged(server string) {
	if s.forward != nil {
		s.forward.Changed(server)
	}
}

// UpstreamResourceUpdated tells the server that an upstream reported a
// change of a resource the server subscribed to on behalf of its clients
// (notifications/resources/updated); the clients subscribed to it are
// notified. It may be called from the goroutine reading the upstream's
// messages.
func (s *Server) UpstreamResourceUpdated(server string, params *mcp.ResourceUpdatedNotificationParams) {
	if s.forward != nil && params != nil {
		s.forward.ResourceUpdated(server, params)
	}
}
