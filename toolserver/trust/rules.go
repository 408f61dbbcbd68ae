package trust

import (
	"fmt"
	"strings"

	"github.com/metatools-go/metatools/errors"
)

// Severity ranks a finding. A finding of severity [SeverityHigh]
// quarantines the item under the pin and review modes ([Decide]).
type Severity int

// The severities, from least to most severe.
const (
	SeverityInfo Severity = iota + 1
	SeverityLow
	SeverityMedium
	SeverityHigh
)

var severityNames = [...]string{SeverityInfo: "info", SeverityLow: "low", SeverityMedium: "medium", SeverityHigh: "high"}

// String returns "info", "low", "medium" or "high".
func (s Severity) String() string {
	if s < SeverityInfo || s > SeverityHigh {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads a severity written by [Severity.String]. Errors have
// code [errors.InvalidArgument].
func ParseSeverity(s string) (Severity, error) {
	for i, name := range severityNames {
		if name != "" && strings.EqualFold(s, name) {
			return Severity(i), nil
		}
	}
	return 0, errors.Errorf(errors.InvalidArgument, "severity %q: want info, low, medium or high", s)
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) {
	if s < SeverityInfo || s > SeverityHigh {
		return nil, errors.Errorf(errors.InvalidArgument, "severity %d out of range", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// The codes of the checks that are written in Go rather than as patterns:
// a [Rule] with one of these codes and no patterns sets the check's
// severity and description (or, left out of the rule set, turns it off).
const (
	CodeInvisibleTag   = "invisible-tag"
	CodeBidiControl    = "bidi-control"
	CodeZeroWidth      = "zero-width"
	CodeInvisibleRun   = "invisible-run"
	CodeControlChar    = "control-character"
	CodeOversized      = "oversized"
	CodeNameConfusable = "name-confusable"
	CodeNameCollision  = "name-collision"
)

var builtinCodes = map[string]bool{
	CodeInvisibleTag: true, CodeBidiControl: true, CodeZeroWidth: true, CodeInvisibleRun: true,
	CodeControlChar: true, CodeOversized: true, CodeNameConfusable: true, CodeNameCollision: true,
}

// Rule is one check of the scanner, as data. A rule either names a check
// written in Go (one of the Code constants, with no patterns) or carries
// patterns:
//
//   - Triggers are lower-case words (letters, digits and '_'); the
//     patterns run only on a text that holds one of them as a whole word,
//     which keeps the scan linear and cheap. No triggers: the patterns run
//     on every text.
//   - Match are regular expressions (RE2 syntax); each match is a finding,
//     its span the matched bytes. They run on the text with its ASCII
//     letters lower-cased (offsets do not move), so they are written in
//     lower case and match any case of those letters; non-ASCII letters
//     are matched as they are.
//   - With, when set, are regular expressions of which one must also
//     match the sentence around the match (the text between the nearest
//     '.', '!', '?' or line break on each side).
type Rule struct {
	// Code names the rule in findings, such as "read-secrets".
	Code string `json:"code" yaml:"code"`
	// Severity is the severity of the rule's findings.
	Severity Severity `json:"severity" yaml:"severity"`
	// Description says what the rule finds, for operators.
	Description string `json:"description" yaml:"description"`
	// Triggers gate the patterns (see above).
	Triggers []string `json:"triggers,omitempty" yaml:"triggers,omitempty"`
	// Match are the patterns that make a finding.
	Match []string `json:"match,omitempty" yaml:"match,omitempty"`
	// With are the patterns the sentence of a match must also match.
	With []string `json:"with,omitempty" yaml:"with,omitempty"`
}

// Built reports whether r names a check written in Go.
func (r *Rule) Built() bool { return len(r.Match) == 0 && builtinCodes[r.Code] }

// DefaultRules returns the default rule set, a new slice each time (callers
// may change it and pass it to [WithRules]). High severity is kept for
// instructions aimed at the model, hidden characters, exfiltration and
// confusable names; a tool that merely works on files, keys or URLs is not
// high.
func DefaultRules() []Rule {
	return []Rule{
		{Code: CodeInvisibleTag, Severity: SeverityHigh,
			Description: "Unicode tag characters (U+E0000 to U+E007F): invisible to people, read by models as text"},
		{Code: CodeBidiControl, Severity: SeverityHigh,
			Description: "bidirectional embedding, override or isolate controls, which make text read differently than it shows"},
		{Code: CodeInvisibleRun, Severity: SeverityHigh,
			Description: "a run of four or more invisible characters (zero-width, fillers, variation selectors), enough to carry hidden data"},
		{Code: CodeZeroWidth, Severity: SeverityMedium,
			Description: "an invisible character (zero-width space or joiner outside emoji and scripts that need it, word joiner, filler, stray variation selector, other format character)"},
		{Code: CodeControlChar, Severity: SeverityMedium,
			Description: "a control character other than tab and line breaks, such as a terminal escape that can hide text on review"},
		{Code: CodeOversized, Severity: SeverityMedium,
			Description: "a text longer than the scanner's bound, which can bury instructions and costs context"},
		{Code: CodeNameConfusable, Severity: SeverityHigh,
			Description: "a name that looks like another upstream's or a built-in's (look-alike letters, case, separators, digits for letters)"},
		{Code: CodeNameCollision, Severity: SeverityHigh,
			Description: "a name that another upstream or a built-in already shows the model"},
		{
			Code: "ignore-instructions", Severity: SeverityHigh,
			Description: "tells the model to ignore or override its instructions",
			Triggers:    []string{"ignore", "ignoring", "disregard", "disregarding", "forget", "override", "overrides", "supersede", "supersedes", "bypass"},
			Match: []string{
				`\b(ignore|ignoring|disregard|disregarding|forget|override|overrides|supersede|supersedes|bypass)\b[^.!?\n]{0,40}?\b(previous|prior|preceding|above|earlier|all|any|other|system|your|existing|original|safety)\b[^.!?\n]{0,30}?\b(instructions?|prompts?|directives?|guidelines|guidance|policies|constraints|restrictions)\b`,
			},
		},
		{
			Code: "ignore-instructions", Severity: SeverityHigh,
			Description: "asks the model to reveal its system prompt",
			Triggers:    []string{"system"},
			Match: []string{
				`\b(reveal|print|output|show|repeat|leak|disclose|include)\b[^.!?\n]{0,30}?\b(your|the)\s+system\s+(prompt|instructions|message)\b`,
			},
		},
		{
			Code: "conceal-from-user", Severity: SeverityHigh,
			Description: "tells the model to keep something from the user",
			Triggers:    []string{"tell", "telling", "mention", "mentioning", "say", "explain", "inform", "informing", "reveal", "revealing", "notify", "alert", "disclose", "hide", "hiding", "conceal", "concealing", "know", "aware", "notice"},
			Match: []string{
				`\b(do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t|avoid)\s+(\w+\s+){0,2}?(tell|telling|mention|mentioning|inform|informing|reveal|revealing|notify|notifying|alert|alerting|disclose|disclosing)\b[^.!?\n]{0,40}?\b(the\s+)?(user|users|human|operator)\b`,
				`\b(do\s+not|don'?t|never)\s+(mention|tell|reveal|say|disclose|explain)\s+(that|this|it|anything|what)\b`,
				`\b(hide|hiding|conceal|concealing)\b[^.!?\n]{0,40}?\bfrom\s+(the\s+)?(user|users|human|operator)\b`,
				`\b(keep|keeping)\s+(this|it|that|these)\b[^.!?\n]{0,20}?\b(secret|hidden|private)\s+from\s+(the\s+)?(user|users|human)\b`,
				`\b(the\s+)?(user|users|human)\s+(must|should|need|needs|will|does|do)\s*(not|never|n't)\s+(know|see|notice|find\s+out|be\s+told|be\s+aware|be\s+informed)\b`,
				`\bwithout\s+(the\s+)?(user|users|human)('s)?\s+(knowing|noticing|knowledge|awareness)\b`,
			},
		},
		{
			Code: "read-secrets", Severity: SeverityHigh,
			Description: "names a secret file: SSH keys, cloud and Git credentials, /etc/shadow, an MCP client's configuration",
			Triggers: []string{"ssh", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "aws", "netrc", "npmrc", "pypirc", "shadow", "passwd",
				"sudoers", "gnupg", "kube", "docker", "claude", "claude_desktop_config", "credentials", "cursor"},
			Match: []string{
				`~/\.(ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|cursor|claude)\b`,
				`\bid_(rsa|ed25519|ecdsa|dsa)\b`,
				`/etc/(shadow|passwd|sudoers)\b`,
				`\.aws/credentials\b|\.git-credentials\b|\bclaude_desktop_config\.json\b|[~/.]cursor/mcp\.json\b|\.kube/config\b`,
			},
		},
		{
			Code: "read-secrets", Severity: SeverityHigh,
			Description: "tells the model to read, pass or send a .env file",
			Triggers:    []string{"env"},
			Match:       []string{`(^|[\s'"` + "`" + `(])\.env\b`},
			With:        []string{`\b(read|cat|open|pass|send|include|provide|give|share|upload|attach|copy|paste|contents?|append)\b`},
		},
		{
			Code: "read-secrets", Severity: SeverityHigh,
			Description: "tells the model (before, first, always, you must...) to read or pass on API keys, tokens, passwords or credentials",
			Triggers:    []string{"keys", "key", "passwords", "password", "tokens", "token", "credentials", "variables", "vars", "phrase", "mnemonic"},
			Match: []string{
				`\b(read|retrieve|collect|gather|extract|dump|cat|look\s+up|include|pass|send|append|attach|share|copy|upload|leak)\b[^.!?\n]{0,40}?\b(api[\s_-]?keys?|secret\s+keys?|private\s+keys?|ssh\s+keys?|passwords?|credentials|access\s+tokens?|auth\s+tokens?|environment\s+variables|env\s+vars?|seed\s+phrases?|mnemonic)\b`,
			},
			With: []string{`\b(before\s+(using|calling|answering|responding|you)|first|otherwise|make\s+sure|be\s+sure|remember\s+to|don'?t\s+forget|you\s+must|you\s+should|always)\b`},
		},
		{
			Code: "call-other-tools", Severity: SeverityHigh,
			Description: "tells the model to call this tool before, after or instead of any other tool",
			Triggers:    []string{"before", "after", "instead", "rather", "whenever"},
			Match: []string{
				`\b(before|after|instead\s+of|rather\s+than|whenever)\s+(using|calling|invoking|running|executing)\s+(any|every|all|other|another|each)\s+(other\s+)?(tools?|functions?)\b`,
			},
		},
		{
			Code: "call-other-tools", Severity: SeverityHigh,
			Description: "claims side effects on other tools or servers",
			Triggers:    []string{"effect", "effects"},
			Match: []string{
				`\b(side\s+effects?|effects?)\s+(on|to)\b[^.!?\n]{0,30}?\b(other|another|also\s+present|existing)\s+([\w.-]+\s+)?(tools?|functions?|servers?)\b`,
			},
		},
		{
			Code: "call-other-tools", Severity: SeverityHigh,
			Description: "tells the model what another tool must send or use",
			Triggers:    []string{"must", "shall"},
			Match: []string{
				`\b(other|another|the)\s+` + "`?" + `[\w.-]+` + "`?" + `\s+tool\s+(must|shall|has\s+to|needs\s+to)\s+(always\s+)?(send|forward|include|add|copy|bcc|cc|use)\b`,
			},
		},
		{
			Code: "call-other-tools", Severity: SeverityHigh,
			Description: "tells the model to redirect all emails, messages or payments",
			Triggers:    []string{"sent", "forwarded", "copied", "redirected", "routed", "bcc", "bccd", "cc", "ccd"},
			Match: []string{
				`\b(all|every|any)\s+(emails?|messages?|requests?|calls?|payments?|transfers?)\b[^.!?\n]{0,40}?\b(must|should|shall)\s+(always\s+)?(be\s+)?(sent|forwarded|copied|redirected|routed|bcc'?d|cc'?d)\s+to\b`,
			},
		},
		{
			Code: "exfiltration-url", Severity: SeverityHigh,
			Description: "a URL with a placeholder for data, secrets or the conversation, for the model to fill in and fetch or show",
			Triggers:    []string{"http", "https"},
			Match: []string{
				`https?://[^\s"'<>)\]]*?(\{\{?\s*[\w.-]*?|<[\w.-]*?|\$\{?[\w.-]*?|\[[\w.-]*?)(data|secrets?|tokens?|passwords?|passwd|credentials?|conversation|history|chat|context|env|memory|prompt|cookies?|session|ssh|private|api_?key|apikey|access_?key)[\w.-]*?(\}\}?|>|\]|\b)`,
			},
		},
		{
			Code: "exfiltrate-conversation", Severity: SeverityHigh,
			Description: "tells the model (must, always, before, after...) to pass on the conversation, the chat history or its context",
			Triggers:    []string{"conversation", "conversations", "chat", "history", "messages", "dialog", "dialogue", "context"},
			Match: []string{
				`\b(pass|send|include|provide|attach|append|copy|forward|upload|post|put|call|invoke|fill)\b[^.!?\n]{0,40}?\b(full|entire|whole|complete|all|the|this|our|your)\s+(conversation|chat(\s+history)?|message\s+history|(previous|prior|earlier|past)\s+messages|context\s+window|dialog(ue)?)\b`,
			},
			With: []string{`\b(must|always|before|after|first|otherwise|make\s+sure|be\s+sure|required|remember)\b`},
		},
		{
			Code: "send-to-url", Severity: SeverityMedium,
			Description: "tells the model to send or post something to a fixed URL",
			Triggers:    []string{"http", "https"},
			Match: []string{
				`\b(send|post|upload|forward|transmit|submit|report|exfiltrate|leak|beacon)\b[^.!?\n]{0,60}?\bto\s+(the\s+)?(url\s+|endpoint\s+|server\s+|webhook\s+)?https?://`,
			},
		},
		{
			Code: "directive-tag", Severity: SeverityMedium,
			Description: "a pseudo-markup tag that poses as a higher authority, such as <IMPORTANT> or <system>",
			Triggers:    []string{"important", "system", "instructions", "instruction", "admin"},
			Match:       []string{`<\s*/?\s*(important|system|instructions?|admin)\s*>`},
		},
	}
}
