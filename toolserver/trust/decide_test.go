package trust_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver/trust"
)

func TestDecide(t *testing.T) {
	const a, b = trust.Fingerprint("aaaa"), trust.Fingerprint("bbbb")
	high := []trust.Finding{{Code: "read-secrets", Severity: trust.SeverityHigh, Field: "description"}}
	medium := []trust.Finding{{Code: "zero-width", Severity: trust.SeverityMedium, Field: "title"}}
	tests := []struct {
		name string
		in   trust.Input
		want trust.Decision
	}{
		{"trusted", trust.Input{Mode: trust.ModeTrusted, Current: a, Findings: high}, trust.Decision{Admit: true, Reason: "upstream trusted"}},
		{"pin first sight", trust.Input{Mode: trust.ModePin, Current: a, Findings: medium}, trust.Decision{Admit: true, Pin: true, Reason: "new tool pinned on first sight"}},
		{"default mode is pin", trust.Input{Current: a}, trust.Decision{Admit: true, Pin: true, Reason: "new tool pinned on first sight"}},
		{"pin approved", trust.Input{Mode: trust.ModePin, Approved: a, Current: a}, trust.Decision{Admit: true, Reason: "approved"}},
		{"approved despite findings", trust.Input{Mode: trust.ModeReview, Approved: a, Current: a, Findings: high}, trust.Decision{Admit: true, Reason: "approved"}},
		{"pin changed", trust.Input{Mode: trust.ModePin, Approved: a, Current: b}, trust.Decision{Reason: "changed since approved"}},
		{"pin high finding", trust.Input{Mode: trust.ModePin, Current: a, Findings: high}, trust.Decision{Reason: "finding high: read-secrets in description"}},
		{"changed and high", trust.Input{Mode: trust.ModePin, Approved: a, Current: b, Findings: append(high, high...)},
			trust.Decision{Reason: "changed since approved; finding high: read-secrets in description"}},
		{"review new", trust.Input{Mode: trust.ModeReview, Current: a}, trust.Decision{Reason: "new tool under review"}},
		{"review new prompt", trust.Input{Mode: trust.ModeReview, Kind: trust.KindPrompt, Current: a}, trust.Decision{Reason: "new prompt under review"}},
		{"review new template", trust.Input{Mode: trust.ModeReview, Kind: trust.KindResourceTemplate, Current: a}, trust.Decision{Reason: "new resource template under review"}},
		{"review changed", trust.Input{Mode: trust.ModeReview, Approved: a, Current: b}, trust.Decision{Reason: "changed since approved"}},
		{"pre-approved new", trust.Input{Mode: trust.ModeReview, Current: a, PreApproved: []trust.Fingerprint{b, a}},
			trust.Decision{Admit: true, Pin: true, Reason: "pre-approved by configuration"}},
		{"pre-approved change with finding", trust.Input{Mode: trust.ModePin, Approved: a, Current: b, Findings: high, PreApproved: []trust.Fingerprint{b}},
			trust.Decision{Admit: true, Pin: true, Reason: "pre-approved by configuration"}},
		{"pre-approved other", trust.Input{Mode: trust.ModePin, Approved: a, Current: b, PreApproved: []trust.Fingerprint{a}}, trust.Decision{Reason: "changed since approved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, trust.Decide(tt.in))
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]trust.Mode{"": trust.ModePin, "pin": trust.ModePin, "review": trust.ModeReview, "trusted": trust.ModeTrusted} {
		got, err := trust.ParseMode(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := trust.ParseMode("paranoid")
	require.ErrorContains(t, err, "want trusted, pin or review")
}
