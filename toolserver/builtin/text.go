package builtin

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Limits of the text tools.
const (
	// maxTextBytes is the longest text a text tool takes.
	maxTextBytes = 1 << 20
	// maxPatternBytes is the longest search string or replacement.
	maxPatternBytes = 64 << 10
	// maxReplaceOutputBytes is the longest text text:replace returns.
	maxReplaceOutputBytes = 4 << 20
)

var textTags = []string{"text", "string"}

// textDescription is the description of the text argument of every text
// tool.
var textDescription = fmt.Sprintf("The text, at most %d bytes (1 MiB).", maxTextBytes)

type statsInput struct {
	Text string `json:"text"`
}

type statsOutput struct {
	Characters      int `json:"characters" jsonschema:"Unicode characters (code points)."`
	Bytes           int `json:"bytes" jsonschema:"Bytes in UTF-8."`
	Words           int `json:"words" jsonschema:"Words: runs of characters between spaces."`
	Lines           int `json:"lines" jsonschema:"Lines; a final line break does not start a new line."`
	Sentences       int `json:"sentences" jsonschema:"Sentences, estimated from ending punctuation (. ! ? and their CJK forms) followed by a space or the end."`
	Paragraphs      int `json:"paragraphs" jsonschema:"Paragraphs: blocks of lines separated by blank lines."`
	EstimatedTokens int `json:"estimatedTokens" jsonschema:"A rough estimate of the tokens a language model's tokenizer makes of the text."`
}

func textStatsTool(*config) (Tool, error) {
	return newTool(spec{
		namespace: "text",
		name:      "stats",
		title:     "Count characters, words, lines and tokens",
		description: "Count the characters, bytes, words, lines, sentences and paragraphs of a text, and estimate its length in language-model tokens. " +
			"Use it to check a length limit (a tweet, a title, a context budget) instead of counting by eye.",
		tags:  append([]string{"count", "length", "words", "tokens", "statistics"}, textTags...),
		input: textProperty,
		examples: []Example{
			{Name: "paragraph", Description: "The statistics of a short text.", Args: map[string]any{"text": "Go is expressive, concise, clean, and efficient. Its concurrency mechanisms make it easy to write programs that get the most out of multicore machines.\n\nIt compiles quickly to machine code."}},
		},
	}, func(_ context.Context, in statsInput) (statsOutput, error) {
		if err := checkSize("text:stats", "text", in.Text, maxTextBytes); err != nil {
			return statsOutput{}, err
		}
		return textStats(in.Text), nil
	})
}

// textProperty documents the text argument.
func textProperty(props map[string]*jsonschema.Schema) {
	props["text"].Description = textDescription
}

func textStats(s string) statsOutput {
	out := statsOutput{Bytes: len(s), Words: len(strings.Fields(s))}
	if s != "" {
		out.Lines = strings.Count(s, "\n") + 1
		if strings.HasSuffix(s, "\n") {
			out.Lines--
		}
	}
	for _, block := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(block) != "" {
			out.Paragraphs++
		}
	}
	var (
		inSentence bool // a sentence has started and not ended
		ending     bool // the last character ends a sentence
		wordLen    int  // letters and digits in the current word
	)
	flushWord := func() {
		// Common words are one token, longer ones one per six
		// characters or so.
		out.EstimatedTokens += (wordLen + 5) / 6
		wordLen = 0
	}
	for _, r := range s {
		out.Characters++
		switch {
		case unicode.IsSpace(r):
			flushWord()
			if ending {
				out.Sentences++
				inSentence, ending = false, false
			}
			continue
		case r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			// About one token per ideogram or syllable.
			flushWord()
			out.EstimatedTokens++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			wordLen++
		default:
			flushWord()
			out.EstimatedTokens++
		}
		if strings.ContainsRune("。！？", r) {
			// CJK sentences end without a following space.
			out.Sentences++
			inSentence, ending = false, false
			continue
		}
		inSentence = true
		ending = strings.ContainsRune(".!?…", r) || ending && strings.ContainsRune(`"')]»”’`, r)
	}
	flushWord()
	if inSentence {
		out.Sentences++
	}
	return out
}

type replaceInput struct {
	Text        string `json:"text"`
	Find        string `json:"find" jsonschema:"The text to find, or with regex a regular expression in RE2 syntax (no lookaround or backreferences)."`
	Replacement string `json:"replacement,omitempty" jsonschema:"The text to put in place of each match (default empty: delete the matches). With regex, $1 or ${name} insert a group of the match, and $$ a dollar sign."`
	Regex       bool   `json:"regex,omitempty" jsonschema:"Read find as a regular expression rather than literal text."`
	IgnoreCase  bool   `json:"ignoreCase,omitempty" jsonschema:"Match without regard to letter case."`
	Limit       int    `json:"limit,omitempty" jsonschema:"The most matches to replace, from the start of the text; 0 (default) replaces all."`
}

type replaceOutput struct {
	Text         string `json:"text" jsonschema:"The text after the replacements."`
	Replacements int    `json:"replacements" jsonschema:"The number of matches replaced."`
}

func textReplaceTool(*config) (Tool, error) {
	return newTool(spec{
		namespace: "text",
		name:      "replace",
		title:     "Find and replace in text",
		description: "Replace the occurrences of a word, a string or a regular expression (RE2 syntax, with $1 group references) in a text, " +
			"all of them or the first few, optionally ignoring case, and tell how many were replaced. " +
			"With no replacement it removes them: strip white space, delete digits.",
		tags: append([]string{"replace", "substitute", "regex", "regexp", "search"}, textTags...),
		input: func(props map[string]*jsonschema.Schema) {
			textProperty(props)
			props["find"].MinLength = ptr(1)
			props["limit"].Minimum = ptr(0.0)
		},
		examples: []Example{
			{Name: "literal", Description: "Replace a word everywhere.", Args: map[string]any{"text": "The cat sat on the cat mat.", "find": "cat", "replacement": "dog"}},
			{Name: "regex-groups", Description: "Reorder dates from DD/MM/YYYY to YYYY-MM-DD.", Args: map[string]any{"text": "Due 31/12/2024, paid 02/01/2025.", "find": `(\d{2})/(\d{2})/(\d{4})`, "replacement": "$3-$2-$1", "regex": true}},
			{Name: "first-only", Description: "Replace only the first match, ignoring case.", Args: map[string]any{"text": "TODO: a. todo: b.", "find": "todo", "replacement": "DONE", "ignoreCase": true, "limit": 1}},
		},
	}, func(_ context.Context, in replaceInput) (replaceOutput, error) {
		return replaceText(&in)
	})
}

func replaceText(in *replaceInput) (replaceOutput, error) {
	const id = "text:replace"
	for _, f := range []struct {
		name, value string
		limit       int
	}{{"text", in.Text, maxTextBytes}, {"find", in.Find, maxPatternBytes}, {"replacement", in.Replacement, maxPatternBytes}} {
		if err := checkSize(id, f.name, f.value, f.limit); err != nil {
			return replaceOutput{}, err
		}
	}
	if in.Find == "" {
		return replaceOutput{}, validationError(id, "find is empty")
	}
	if in.Limit < 0 {
		return replaceOutput{}, validationError(id, "limit is %d, it must be 0 (all) or more", in.Limit)
	}
	n := in.Limit
	if n == 0 {
		n = -1
	}
	if !in.Regex && !in.IgnoreCase {
		count := strings.Count(in.Text, in.Find)
		if n >= 0 {
			count = min(count, n)
		}
		if len(in.Text)+count*(len(in.Replacement)-len(in.Find)) > maxReplaceOutputBytes {
			return replaceOutput{}, fmt.Errorf("the result would be longer than %d bytes", maxReplaceOutputBytes)
		}
		return replaceOutput{Text: strings.Replace(in.Text, in.Find, in.Replacement, n), Replacements: count}, nil
	}
	pattern := in.Find
	if !in.Regex {
		pattern = regexp.QuoteMeta(pattern)
	}
	if in.IgnoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return replaceOutput{}, fmt.Errorf("invalid regular expression: %w", err)
	}
	var b strings.Builder
	last, count := 0, 0
	for _, m := range re.FindAllStringSubmatchIndex(in.Text, n) {
		b.WriteString(in.Text[last:m[0]])
		if in.Regex {
			b.Write(re.ExpandString(nil, in.Replacement, in.Text, m))
		} else {
			b.WriteString(in.Replacement)
		}
		last = m[1]
		count++
		if b.Len() > maxReplaceOutputBytes {
			return replaceOutput{}, fmt.Errorf("the result would be longer than %d bytes", maxReplaceOutputBytes)
		}
	}
	b.WriteString(in.Text[last:])
	if b.Len() > maxReplaceOutputBytes {
		return replaceOutput{}, fmt.Errorf("the result would be longer than %d bytes", maxReplaceOutputBytes)
	}
	return replaceOutput{Text: b.String(), Replacements: count}, nil
}

// The cases text:case converts to.
var textCases = []string{"upper", "lower", "title", "sentence", "snake", "kebab", "camel", "pascal", "constant"}

type caseInput struct {
	Text string `json:"text"`
	To   string `json:"to"`
}

type caseOutput struct {
	Text string `json:"text" jsonschema:"The converted text."`
}

func textCaseTool(*config) (Tool, error) {
	return newTool(spec{
		namespace: "text",
		name:      "case",
		title:     "Change the case of text",
		description: "Convert text to UPPER, lower, Title Case (capitalize each word), Sentence case, or to an identifier style: snake_case, kebab-case, camelCase, PascalCase or CONSTANT_CASE. " +
			"Identifier styles split words at spaces, punctuation and case changes (\"HTTPServer\" is HTTP + Server), and kebab-case doubles as a URL slug.",
		tags: append([]string{"case", "uppercase", "lowercase", "snake-case", "camel-case", "kebab-case", "slug"}, textTags...),
		input: func(props map[string]*jsonschema.Schema) {
			textProperty(props)
			props["to"].Description = "The case to convert to: upper, lower, title (each word capitalized, the rest lower), sentence (the first letter capitalized, the rest lower), " +
				"snake, kebab, camel, pascal or constant."
			props["to"].Enum = stringsToAny(textCases)
		},
		examples: []Example{
			{Name: "snake", Description: "An identifier in snake_case.", Args: map[string]any{"text": "parseHTTPResponse2Body", "to": "snake"}},
			{Name: "slug", Description: "A title as a URL slug.", Args: map[string]any{"text": "Ten Tips for Writing Go, Part 2!", "to": "kebab"}},
			{Name: "title", Description: "A heading in Title Case.", Args: map[string]any{"text": "the QUICK brown fox", "to": "title"}},
		},
	}, func(_ context.Context, in caseInput) (caseOutput, error) {
		if err := checkSize("text:case", "text", in.Text, maxTextBytes); err != nil {
			return caseOutput{}, err
		}
		out, ok := convertCase(in.Text, in.To)
		if !ok {
			return caseOutput{}, validationError("text:case", "unknown case %q: use one of %s", in.To, strings.Join(textCases, ", "))
		}
		return caseOutput{Text: out}, nil
	})
}

func stringsToAny(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// convertCase converts s to the named case; it reports false for an
// unknown name.
func convertCase(s, to string) (string, bool) {
	switch to {
	case "upper":
		return strings.ToUpper(s), true
	case "lower":
		return strings.ToLower(s), true
	case "title":
		return titleCase(s), true
	case "sentence":
		return capitalize(strings.ToLower(s)), true
	case "snake":
		return joinWords(splitWords(s), "_", strings.ToLower), true
	case "kebab":
		return joinWords(splitWords(s), "-", strings.ToLower), true
	case "constant":
		return joinWords(splitWords(s), "_", strings.ToUpper), true
	case "camel":
		words := splitWords(s)
		if len(words) == 0 {
			return "", true
		}
		return strings.ToLower(words[0]) + joinWords(words[1:], "", capitalizeWord), true
	case "pascal":
		return joinWords(splitWords(s), "", capitalizeWord), true
	}
	return "", false
}

// titleCase capitalizes each word, a run of letters, digits and
// apostrophes, and lower-cases the rest of it.
func titleCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := true
	for _, r := range s {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
		switch {
		case inWord && start:
			b.WriteRune(unicode.ToTitle(r))
		case inWord:
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
		start = !inWord
	}
	return b.String()
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	for i, r := range s {
		if unicode.IsLetter(r) {
			return s[:i] + string(unicode.ToTitle(r)) + s[i+utf8.RuneLen(r):]
		}
	}
	return s
}

func capitalizeWord(w string) string { return capitalize(strings.ToLower(w)) }

func joinWords(words []string, sep string, f func(string) string) string {
	for i, w := range words {
		words[i] = f(w)
	}
	return strings.Join(words, sep)
}

// splitWords splits s into the words of an identifier: at characters
// other than letters and digits, between a lower-case letter or digit and
// an upper-case one ("fooBar"), and before the last capital of a run
// followed by a lower-case letter ("HTTPServer" is HTTP, Server). Digits
// stay with the letters before them ("v2Api" is v2, Api).
func splitWords(s string) []string {
	var words []string
	runes := []rune(s)
	start := -1
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				words = append(words, string(runes[start:i]))
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := runes[i-1]
		upper := unicode.IsUpper(r)
		boundary := upper && (unicode.IsLower(prev) || unicode.IsDigit(prev)) ||
			upper && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
		if boundary {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	if start >= 0 {
		words = append(words, string(runes[start:]))
	}
	return words
}

// hashes are the algorithms of text:hash.
var hashes = map[string]func() hash.Hash{
	"sha256": sha256.New,
	"sha512": sha512.New,
	"sha1":   sha1.New,
	"md5":    md5.New,
}

type hashInput struct {
	Text      string `json:"text"`
	Algorithm string `json:"algorithm,omitempty"`
}

type hashOutput struct {
	Algorithm string `json:"algorithm" jsonschema:"The algorithm used."`
	Hex       string `json:"hex" jsonschema:"The digest in lower-case hexadecimal."`
	Base64    string `json:"base64" jsonschema:"The digest in standard base64."`
}

func textHashTool(*config) (Tool, error) {
	return newTool(spec{
		namespace: "text",
		name:      "hash",
		title:     "Hash text",
		description: "Compute the SHA-256 (default), SHA-512, SHA-1 or MD5 digest of a text's UTF-8 bytes, in hexadecimal and base64, " +
			"to compare contents, build cache keys or check a published checksum. SHA-1 and MD5 are for compatibility, not security.",
		tags: append([]string{"hash", "digest", "checksum", "sha256", "md5", "sha1"}, textTags...),
		input: func(props map[string]*jsonschema.Schema) {
			textProperty(props)
			props["algorithm"].Description = "The hash algorithm."
			props["algorithm"].Enum = []any{"sha256", "sha512", "sha1", "md5"}
			props["algorithm"].Default = []byte(`"sha256"`)
		},
		examples: []Example{
			{Name: "sha256", Description: "The SHA-256 digest of a string.", Args: map[string]any{"text": "hello world"}},
			{Name: "md5", Description: "The MD5 checksum of a string.", Args: map[string]any{"text": "hello world", "algorithm": "md5"}},
		},
	}, func(_ context.Context, in hashInput) (hashOutput, error) {
		if err := checkSize("text:hash", "text", in.Text, maxTextBytes); err != nil {
			return hashOutput{}, err
		}
		algorithm := in.Algorithm
		if algorithm == "" {
			algorithm = "sha256"
		}
		newHash, ok := hashes[algorithm]
		if !ok {
			return hashOutput{}, validationError("text:hash", "unknown algorithm %q: use sha256, sha512, sha1 or md5", in.Algorithm)
		}
		h := newHash()
		h.Write([]byte(in.Text))
		sum := h.Sum(nil)
		return hashOutput{Algorithm: algorithm, Hex: hex.EncodeToString(sum), Base64: base64.StdEncoding.EncodeToString(sum)}, nil
	})
}
