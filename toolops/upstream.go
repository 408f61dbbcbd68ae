package toolops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// The states of an [Upstream].
const (
	// UpstreamConnecting: a connection attempt is under way; the
	// upstream's tools are not in the catalogue yet, or are those of an
	// earlier listing.
	UpstreamConnecting = "connecting"
	// UpstreamUp: the upstream connected and its tools are in the
	// catalogue. The state turns up just after the tools come: a search
	// may find them a moment before.
	UpstreamUp = "up"
	// UpstreamFailed: the last connection attempt failed; it is tried
	// again at NextRetry, unless that is zero.
	UpstreamFailed = "failed"
)

// Upstream is the state of one source of tools (an MCP server, an
// OpenAPI document, a gRPC service, the built-in tools), which lets a
// caller tell a tool that is not there yet from one that will not come.
type Upstream struct {
	// Name is the upstream's name in the configuration.
	Name string `json:"name"`
	// Kind is "builtin", "mcp", "openapi" or "grpc".
	Kind string `json:"kind"`
	// State is [UpstreamConnecting], [UpstreamUp] or [UpstreamFailed].
	State string `json:"state"`
	// Tools is the number of tools the upstream brought, when up.
	Tools int `json:"tools"`
	// Error is why the upstream failed, or, while it connects again, why
	// the previous attempt failed; ErrorCode is that failure's code.
	Error     string      `json:"error,omitempty"`
	ErrorCode errors.Code `json:"errorCode,omitempty"`
	// Attempts is the number of connection attempts made so far,
	// counting the one under way.
	Attempts int `json:"attempts,omitempty"`
	// NextRetry is when a failed upstream is tried again; zero when it is
	// not.
	NextRetry time.Time `json:"nextRetry,omitzero"`
	// Since is when the upstream entered its state.
	Since time.Time `json:"since,omitzero"`
	// Duration is how long the last connection attempt took: for a
	// person watching start-up, not for an agent, to which it is not
	// sent.
	Duration time.Duration `json:"-"`
	// Namespaces are the namespaces of the upstream's tools; the
	// operations report an upstream only to a caller offered one of them.
	Namespaces []string `json:"-"`
	// Skipped lists the tools the upstream offers that were left out,
	// each as its name and the reason ("\"bad name\": ..."): a tool whose
	// name or schema no catalogue tool can have. The other tools are
	// served.
	Skipped []string `json:"skipped,omitempty"`
	// Quarantined are the upstream's tools the catalogue withholds from
	// every caller until an operator approves them (a tool changed since
	// it was approved, one with a dangerous description, ...). A caller
	// is told only of those the policies would let it call.
	Quarantined []Quarantined `json:"quarantined,omitempty"`
}

// Quarantined is a tool of an upstream that the catalogue withholds.
type Quarantined struct {
	// ID is the tool's ID, as it would be served.
	ID string `json:"id"`
	// Reason says why it is withheld.
	Reason string `json:"reason"`
	// Tool and Backend are the tool as the upstream lists it: the
	// policies are asked about them before a caller is told of it.
	Tool    toolmodel.Tool        `json:"-"`
	Backend toolmodel.ToolBackend `json:"-"`
}

// Upstreams returns the state of the sources of the catalogue's tools,
// as [WithUpstreams] gives it (nil without it), that the caller of ctx is
// offered: an upstream none of whose namespaces holds an offered tool is
// left out, its failure and its stderr with it, and so is one whose tools
// are not there (it is down, or connecting) when the policies refuse its
// namespaces as a whole ([toolrun.Runner.AuthorizeNamespace]). An
// upstream that names no namespace is reported. Its quarantined tools
// are those the policies would let the caller call
// ([toolrun.Runner.AuthorizeTool]).
func (s *Service) Upstreams(ctx context.Context) []Upstream {
	if s.upstreams == nil {
		return nil
	}
	all := s.upstreams()
	out := make([]Upstream, 0, len(all))
	for _, u := range all {
		if !s.upstreamOffered(ctx, u) {
			continue
		}
		if len(u.Quarantined) > 0 {
			u.Quarantined = slices.DeleteFunc(slices.Clone(u.Quarantined), func(q Quarantined) bool {
				return s.runner.AuthorizeTool(ctx, q.Tool, q.Backend, callOptions(ctx)) != nil
			})
		}
		out = append(out, u)
	}
	return out
}

// upstreamOffered reports whether the caller of ctx may know of u.
func (s *Service) upstreamOffered(ctx context.Context, u Upstream) bool {
	if len(u.Namespaces) == 0 {
		return true
	}
	return slices.ContainsFunc(u.Namespaces, func(ns string) bool { return s.NamespaceReached(ctx, ns) })
}

// NamespaceReached reports whether the caller of ctx may reach the
// namespace ns: it holds a tool offered to the caller, or it holds none
// yet (its upstream is down, or connecting) and the policies do not
// refuse it as a whole ([toolrun.Runner.AuthorizeNamespace]). What an
// upstream serves besides tools (its resources, prompts and completions)
// reaches a caller that reaches its namespace.
func (s *Service) NamespaceReached(ctx context.Context, ns string) bool {
	offered, some, err := s.namespaceState(ctx, ns)
	switch {
	case err != nil:
		// The index cannot say: the policies decide alone.
		return s.runner.AuthorizeNamespace(ctx, ns, callOptions(ctx)) == nil
	case offered:
		return true
	}
	return !some && s.runner.AuthorizeNamespace(ctx, ns, callOptions(ctx)) == nil
}

// StatusText describes upstreams, one line each, as of now.
func StatusText(ups []Upstream, now time.Time) string {
	var b strings.Builder
	b.WriteString("Upstreams:\n")
	for _, u := range ups {
		fmt.Fprintf(&b, "- %s (%s): %s", u.Name, u.Kind, u.State)
		switch u.State {
		case UpstreamUp:
			fmt.Fprintf(&b, ", %d tools", u.Tools)
		case UpstreamConnecting:
			if u.Attempts > 1 {
				fmt.Fprintf(&b, " (attempt %d)", u.Attempts)
			}
		}
		if u.Error != "" {
			fmt.Fprintf(&b, ": %s", u.Error)
		}
		if len(u.Quarantined) > 0 {
			fmt.Fprintf(&b, "; quarantined until an operator approves them: %s", quarantinedText(u.Quarantined))
		}
		if u.State == UpstreamFailed {
			if u.NextRetry.IsZero() {
				b.WriteString("; not retried")
			} else {
				fmt.Fprintf(&b, "; %d attempts, next in %s", u.Attempts, max(u.NextRetry.Sub(now), 0).Round(time.Second))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// quarantinedText lists quarantined tools with their reasons.
func quarantinedText(qs []Quarantined) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = fmt.Sprintf("%s (%s)", q.ID, q.Reason)
	}
	return strings.Join(parts, ", ")
}

// quarantined returns the tool id when the catalogue withholds it and the
// caller of ctx could call it otherwise.
func (s *Service) quarantined(ctx context.Context, id string) (Quarantined, bool) {
	if s.upstreams == nil {
		return Quarantined{}, false
	}
	for _, u := range s.upstreams() {
		for _, q := range u.Quarantined {
			if q.ID == id {
				return q, s.runner.AuthorizeTool(ctx, q.Tool, q.Backend, callOptions(ctx)) == nil
			}
		}
	}
	return Quarantined{}, false
}

// unseen says which tools a search of namespace ns (all when empty)
// could not see although the caller of ctx may reach them: those of
// upstreams still connecting or failed, and those quarantined. It is
// empty when there are none, which it finds without asking the policies.
func (s *Service) unseen(ctx context.Context, ns string) string {
	if s.upstreams == nil {
		return ""
	}
	concerned := func(u Upstream) bool {
		return (ns == "" || slices.Contains(u.Namespaces, ns)) && (u.State != UpstreamUp || len(u.Quarantined) > 0)
	}
	if !slices.ContainsFunc(s.upstreams(), concerned) {
		return ""
	}
	var down []string
	var withheld []Quarantined
	for _, u := range s.Upstreams(ctx) {
		if !concerned(u) {
			continue
		}
		if u.State != UpstreamUp {
			down = append(down, fmt.Sprintf("%s (%s)", u.Name, u.State))
		}
		withheld = append(withheld, u.Quarantined...)
	}
	var notes []string
	if len(down) > 0 {
		notes = append(notes, "Not searched: the tools of "+strings.Join(down, ", ")+".")
	}
	if len(withheld) > 0 {
		notes = append(notes, "Quarantined until an operator approves them: "+quarantinedText(withheld)+".")
	}
	return strings.Join(notes, " ")
}

// whileDown returns e, the error of an unknown tool, with the failure of
// the upstream of the tool's namespace when that upstream is down: the
// tool may be one of its own.
func (s *Service) whileDown(ctx context.Context, e *errors.Error) *errors.Error {
	ns, _, ok := strings.Cut(e.ToolID, ":")
	if !ok || s.upstreams == nil || !slices.ContainsFunc(s.upstreams(), func(u Upstream) bool {
		return u.State == UpstreamFailed && slices.Contains(u.Namespaces, ns)
	}) {
		return e
	}
	for _, u := range s.Upstreams(ctx) {
		if u.State == UpstreamFailed && slices.Contains(u.Namespaces, ns) {
			hinted := *e
			hinted.Err = fmt.Errorf("%w (the upstream of namespace %s, %s, is down: %s)", e.Err, ns, u.Name, u.Error)
			return &hinted
		}
	}
	return e
}

// whileConnecting returns e, when upstreams are still making their first
// connection attempt, with their names added and marked retryable: the
// tool may be one of theirs, not there yet, and a caller can tell that
// from a tool that will not come. An upstream trying again after a
// failure is not named: it is reported failed, with its next attempt,
// and the answer does not change with each attempt.
func (s *Service) whileConnecting(ctx context.Context, e *errors.Error) error {
	var connecting []string
	for _, u := range s.Upstreams(ctx) {
		if u.State == UpstreamConnecting && u.Attempts <= 1 {
			connecting = append(connecting, u.Name)
		}
	}
	if len(connecting) == 0 {
		return e
	}
	hinted := *e
	hinted.Err = fmt.Errorf("%w (upstreams still connecting, whose tools are not listed yet: %s; try again once the namespaces report them up)", e.Err, strings.Join(connecting, ", "))
	hinted.Retryable = true
	return &hinted
}
