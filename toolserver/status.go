package toolserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// The states of an upstream in [UpstreamStatus].
const (
	// UpstreamConnecting: a connection attempt is under way; the upstream's
	// tools are not in the catalogue yet, or are those of an earlier
	// listing.
	UpstreamConnecting = "connecting"
	// UpstreamUp: the upstream connected and its tools are in the
	// catalogue. The state turns up just after the tools come: a search
	// may find them a moment before.
	UpstreamUp = "up"
	// UpstreamFailed: the last connection attempt failed; it is tried
	// again at NextRetry, unless that is zero.
	UpstreamFailed = "failed"
)

// UpstreamStatus is the state of one source of tools (an MCP server, an
// OpenAPI document, a gRPC service, the built-in tools), which
// list_namespaces reports so that an agent can tell a tool that is not
// there yet from one that will not come.
type UpstreamStatus struct {
	// Name is the upstream's name in the configuration.
	Name string `json:"name"`
	// Kind is "builtin", "mcp", "openapi" or "grpc".
	Kind string `json:"kind"`
	// State is [UpstreamConnecting], [UpstreamUp] or [UpstreamFailed].
	State string `json:"state"`
	// Tools is the number of tools the upstream brought, when up.
	Tools int `json:"tools"`
	// Error is why the upstream failed, or, while it connects again, why
	// the previous attempt failed.
	Error string `json:"error,omitempty"`
	// Attempts is the number of connection attempts made so far,
	// counting the one under way.
	Attempts int `json:"attempts,omitempty"`
	// NextRetry is when a failed upstream is tried again; zero when it is
	// not.
	NextRetry time.Time `json:"nextRetry,omitzero"`
	// Since is when the upstream entered its state.
	Since time.Time `json:"since,omitzero"`
}

// WithUpstreamStatus makes list_namespaces report the state of the
// upstreams as fn returns it, calling fn for each answer. fn must be
// safe for concurrent use and quick.
func WithUpstreamStatus(fn func() []UpstreamStatus) Option {
	return func(s *Server) { s.upstreamStatus = fn }
}

// statusText describes the upstreams' states, one line each, for the
// text of list_namespaces.
func statusText(ups []UpstreamStatus, now time.Time) string {
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

// whileConnecting returns err, when it says a tool was not found while
// upstreams are still connecting, with their names added and marked
// retryable: the tool may be one of theirs, not there yet, and an agent
// can tell that from a tool that will not come.
func (s *Server) whileConnecting(err error) error {
	var e *errors.Error
	if s.upstreamStatus == nil || errors.CodeOf(err) != errors.NotFound || !errors.As(err, &e) {
		return err
	}
	var connecting []string
	for _, u := range s.upstreamStatus() {
		if u.State == UpstreamConnecting {
			connecting = append(connecting, u.Name)
		}
	}
	if len(connecting) == 0 {
		return err
	}
	hinted := *e
	hinted.Err = fmt.Errorf("%w (upstreams still connecting, whose tools are not listed yet: %s; try again once list_namespaces reports them up)", e.Err, strings.Join(connecting, ", "))
	hinted.Retryable = true
	return &hinted
}
