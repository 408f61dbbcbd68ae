package toolruntimetest

import (
	"fmt"
	"strings"
	"sync"
	"text/tabwriter"
)

// Outcome kinds of an attempt, as the [Report] shows them.
const (
	// BlockedByEngine: the program failed in the engine, which has no API
	// for what it tried.
	BlockedByEngine = "blocked by engine"
	// BlockedByGateway: the gateway (tool calls, log, policy) refused it.
	BlockedByGateway = "blocked by gateway"
	// BlockedByBackend: the backend claims the property and the attempt
	// failed; the detail names the mechanism the backend claims.
	BlockedByBackend = "blocked by backend"
	// BlockedUnclaimed: the attempt failed although the backend claims
	// nothing about it.
	BlockedUnclaimed = "blocked (not claimed)"
	// NotBlocked: the attempt succeeded; the backend does not claim the
	// property, so the suite records it without failing.
	NotBlocked = "not blocked (not claimed)"
	// NotRun: the backend does not claim the property and runs the probe
	// in the test's own process, where the attempt would harm the host.
	NotRun = "not claimed, not run"
	// Escaped: the attempt succeeded although the backend claims the
	// property; the suite fails.
	Escaped = "ESCAPED (claimed)"
)

// Row is the outcome of one attempt made one way.
type Row struct {
	// Attempt names the attempt ("read planted file").
	Attempt string
	// Way is "javascript" (a program the model could write) or "probe"
	// (the operation done for real by the probe engine).
	Way string
	// Property is the row of [toolruntime.Backend.Enforces] that judges
	// the probe, or "" for what the gateway or the engine always enforce.
	Property string
	// Outcome is one of the outcome kinds ([BlockedByEngine], ...).
	Outcome string
	// Detail says how: the error's code, the mechanism, what the probe got.
	Detail string
}

// Report is what the suite found for one backend: attempt by attempt, way
// by way, what stopped it. It is safe for concurrent use.
type Report struct {
	// Backend is the backend's name.
	Backend string

	mu   sync.Mutex
	rows []Row
}

func (r *Report) add(row Row) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, row)
}

// Rows returns the rows, in the order the attempts ran.
func (r *Report) Rows() []Row {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Row(nil), r.rows...)
}

// Escapes returns the rows of attempts that succeeded although the backend
// claims their property.
func (r *Report) Escapes() []Row {
	var out []Row
	for _, row := range r.Rows() {
		if row.Outcome == Escaped {
			out = append(out, row)
		}
	}
	return out
}

// String renders the report as a table.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "backend %s\n", r.Backend)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ATTEMPT\tWAY\tPROPERTY\tOUTCOME\tDETAIL")
	for _, row := range r.Rows() {
		prop := row.Property
		if prop == "" {
			prop = "-"
		}
		detail := row.Detail
		if len(detail) > 90 {
			detail = detail[:90] + "…"
		}
		detail = strings.ReplaceAll(detail, "\n", " ")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", row.Attempt, row.Way, prop, row.Outcome, detail)
	}
	_ = w.Flush()
	return b.String()
}
