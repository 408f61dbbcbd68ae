package toolops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
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
}

// Upstreams returns the state of the sources of the catalogue's tools,
// as [WithUpstreams] gives it (nil without it), that the caller of ctx is
// offered: an upstream none of whose namespaces holds an offered tool is
// left out, its failure and its stderr with it, and so is one whose tools
// are not there (it is down, or connecting) when the policies refuse its
// namespaces as a whole ([toolrun.Runner.AuthorizeNamespace]). An
// upstream that names no namespace is reported.
func (s *Service) Upstreams(ctx context.Context) []Upstream {
	if s.upstreams == nil {
		return nil
	}
	all := s.upstreams()
	out := make([]Upstream, 0, len(all))
	for _, u := range all {
		if s.upstreamOffered(ctx, u) {
			out = append(out, u)
		}
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
