package trust

import (
	"slices"
	"strings"

	"github.com/metatools-go/metatools/errors"
)

// Mode is how much an upstream is trusted.
type Mode string

// The trust modes.
const (
	// ModeTrusted admits everything the upstream lists, unchecked and
	// unpinned.
	ModeTrusted Mode = "trusted"
	// ModePin, the default, admits a new item and pins its fingerprint;
	// an item whose fingerprint changed since it was approved waits for
	// review, and so does one with a high-severity finding.
	ModePin Mode = "pin"
	// ModeReview admits only approved items: new and changed ones wait
	// for review.
	ModeReview Mode = "review"
)

// ParseMode reads a mode; "" is [ModePin]. Errors have code
// [errors.InvalidArgument].
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModePin, nil
	case ModeTrusted, ModePin, ModeReview:
		return m, nil
	}
	return "", errors.Errorf(errors.InvalidArgument, "trust mode %q: want trusted, pin or review", s)
}

// Input is what [Decide] decides on.
type Input struct {
	// Mode is the upstream's mode ("" is [ModePin]).
	Mode Mode
	// Kind is the item's kind, for the reason's wording.
	Kind Kind
	// Approved is the approved fingerprint, "" when the item was never
	// approved.
	Approved Fingerprint
	// Current is the fingerprint of the item as listed now.
	Current Fingerprint
	// Findings are the scanner's findings on the item as listed now.
	Findings []Finding
	// PreApproved are fingerprints the configuration approves in advance.
	PreApproved []Fingerprint
}

// Decision is the outcome of [Decide].
type Decision struct {
	// Admit reports whether the item may be shown to the model.
	Admit bool
	// Pin reports whether Current becomes the approved fingerprint (first
	// sight in pin mode, or pre-approval).
	Pin bool
	// Reason says why, for logs and the review list: "approved",
	// "new tool pinned on first sight", "pre-approved by configuration",
	// "new tool under review", "changed since approved",
	// "finding high: read-secrets in description" (reasons are joined
	// with "; ").
	Reason string
}

// Decide decides whether an item is admitted or quarantined. It is a pure
// function of its input:
//
//   - trusted: admitted, never pinned;
//   - the current fingerprint is the approved one: admitted (findings
//     were there to see when it was approved);
//   - the current fingerprint is pre-approved: admitted and pinned;
//   - otherwise a high-severity finding quarantines it, and so does a
//     change since approval (pin and review) or a first sight (review);
//   - a first sight in pin mode without a high finding is admitted and
//     pinned.
func Decide(in Input) Decision {
	kind := in.Kind
	if kind == "" {
		kind = KindTool
	}
	switch {
	case in.Mode == ModeTrusted:
		return Decision{Admit: true, Reason: "upstream trusted"}
	case in.Approved != "" && in.Current == in.Approved:
		return Decision{Admit: true, Reason: "approved"}
	case slices.Contains(in.PreApproved, in.Current):
		return Decision{Admit: true, Pin: true, Reason: "pre-approved by configuration"}
	}
	var reasons []string
	if in.Approved != "" {
		reasons = append(reasons, "changed since approved")
	} else if in.Mode == ModeReview {
		reasons = append(reasons, "new "+kind.word()+" under review")
	}
	for i := range in.Findings {
		if f := &in.Findings[i]; f.Severity >= SeverityHigh {
			r := "finding high: " + f.Code + " in " + f.Field
			if !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	if len(reasons) > 0 {
		return Decision{Reason: strings.Join(reasons, "; ")}
	}
	return Decision{Admit: true, Pin: true, Reason: "new " + kind.word() + " pinned on first sight"}
}

func (k Kind) word() string {
	if k == KindResourceTemplate {
		return "resource template"
	}
	return string(k)
}
