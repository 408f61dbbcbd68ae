package trust

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/metatools-go/metatools/errors"
)

// DefaultMaxTextBytes is the default bound of one text (a description, a
// title, a schema string) above which the scanner reports [CodeOversized].
const DefaultMaxTextBytes = 8 << 10

// maxExcerpt bounds the excerpt of a finding, in bytes of the original text.
const maxExcerpt = 80

// Finding is one thing the scanner found in an item.
type Finding struct {
	// Code is the rule's code, such as "invisible-tag".
	Code string `json:"code"`
	// Severity is the rule's severity.
	Severity Severity `json:"severity"`
	// Field says where the text is: "name", "title", "description",
	// "uriTemplate", "arguments.NAME.description",
	// "inputSchema.properties.NAME.description" and so on (a schema path
	// ending in a key names the key itself).
	Field string `json:"field"`
	// Start and End are the byte offsets of the offending span in the
	// field's text.
	Start int `json:"start"`
	End   int `json:"end"`
	// Excerpt is the span, shortened and escaped so it is safe to print:
	// invisible, format and control characters are shown as \u escapes,
	// and the text hidden in tag characters is spelled out.
	Excerpt string `json:"excerpt"`
	// Detail adds what the span alone does not say (the name it looks
	// like, the bound it exceeds).
	Detail string `json:"detail,omitempty"`
}

// String returns a one-line form: `high read-secrets in description [12:20]: "..."`.
func (f *Finding) String() string {
	s := fmt.Sprintf("%s %s in %s [%d:%d]: \"%s\"", f.Severity, f.Code, f.Field, f.Start, f.End, f.Excerpt)
	if f.Detail != "" {
		s += " (" + f.Detail + ")"
	}
	return s
}

// Worst returns the highest severity among fs, or 0 when fs is empty.
func Worst(fs []Finding) Severity {
	var w Severity
	for i := range fs {
		w = max(w, fs[i].Severity)
	}
	return w
}

// Scanner checks items against a rule set. It is immutable once built
// and safe for concurrent use.
//
// Cost: scanning an item is linear in the size of its texts: one pass over
// each text's bytes (a rune pass only for texts with non-ASCII bytes) and
// a word pass that looks each word up in a map of triggers; a rule's
// regular expressions run only on a text holding one of its triggers.
// Schemas are walked once without being decoded into maps.
type Scanner struct {
	rules    []compiledRule
	builtin  map[string]Rule
	triggers map[string][]int // word → indexes in rules
	// firsts has bit c set when a trigger starts with byte c, and
	// maxTrigger is the longest trigger: a cheap filter before the map.
	firsts     [4]uint64
	maxTrigger int
	always     []int // rules without triggers
	maxText    int
}

type compiledRule struct {
	Rule
	match []*regexp.Regexp
	with  []*regexp.Regexp
}

// ScanOption configures a [Scanner].
type ScanOption func(*scannerConfig)

type scannerConfig struct {
	rules   []Rule
	maxText int
}

// WithRules replaces the rule set (the default is [DefaultRules]). A check
// written in Go runs only if its code is in the set.
func WithRules(rules []Rule) ScanOption {
	return func(c *scannerConfig) { c.rules = slices.Clone(rules) }
}

// WithMaxTextBytes sets the bound of one text for [CodeOversized] (the
// default is [DefaultMaxTextBytes]); a schema as a whole may be sixteen
// times as large.
func WithMaxTextBytes(n int) ScanOption {
	return func(c *scannerConfig) { c.maxText = n }
}

// NewScanner builds a scanner. It fails, with code
// [errors.InvalidArgument], on a rule without code or with an unknown
// severity, a rule without patterns whose code is not a built-in check, a
// pattern that does not compile, or a bound that is not positive.
func NewScanner(opts ...ScanOption) (*Scanner, error) {
	cfg := scannerConfig{rules: DefaultRules(), maxText: DefaultMaxTextBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxText <= 0 {
		return nil, errors.Errorf(errors.InvalidArgument, "max text bytes %d: must be positive", cfg.maxText)
	}
	s := &Scanner{builtin: map[string]Rule{}, triggers: map[string][]int{}, maxText: cfg.maxText}
	for i, r := range cfg.rules {
		if r.Code == "" {
			return nil, errors.Errorf(errors.InvalidArgument, "rule %d: no code", i)
		}
		if r.Severity < SeverityInfo || r.Severity > SeverityHigh {
			return nil, errors.Errorf(errors.InvalidArgument, "rule %s: severity %d out of range", r.Code, int(r.Severity))
		}
		if len(r.Match) == 0 {
			if !builtinCodes[r.Code] {
				return nil, errors.Errorf(errors.InvalidArgument, "rule %s: no patterns, and no built-in check has that code", r.Code)
			}
			s.builtin[r.Code] = r
			continue
		}
		cr := compiledRule{Rule: r}
		for _, p := range r.Match {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, errors.E(errors.InvalidArgument, fmt.Errorf("rule %s: match: %w", r.Code, err))
			}
			cr.match = append(cr.match, re)
		}
		for _, p := range r.With {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, errors.E(errors.InvalidArgument, fmt.Errorf("rule %s: with: %w", r.Code, err))
			}
			cr.with = append(cr.with, re)
		}
		idx := len(s.rules)
		s.rules = append(s.rules, cr)
		if len(r.Triggers) == 0 {
			s.always = append(s.always, idx)
		}
		for _, w := range r.Triggers {
			w = strings.ToLower(w)
			if w == "" {
				continue
			}
			s.firsts[w[0]>>6] |= 1 << (w[0] & 63)
			s.maxTrigger = max(s.maxTrigger, len(w))
			if !slices.Contains(s.triggers[w], idx) {
				s.triggers[w] = append(s.triggers[w], idx)
			}
		}
	}
	return s, nil
}

// Rules returns the scanner's rule set.
func (s *Scanner) Rules() []Rule {
	out := make([]Rule, 0, len(s.builtin)+len(s.rules))
	for _, r := range s.builtin {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Rule) int { return strings.Compare(a.Code, b.Code) })
	for _, r := range s.rules {
		out = append(out, r.Rule)
	}
	return out
}

// Scan returns the findings in the texts of it: name, title, description,
// a prompt's arguments, a resource template's URI template and MIME type,
// the annotations, and every key and string value of the schemas
// (property names and descriptions, titles, enum strings, defaults,
// examples). Findings come in field order, then by offset. The name
// checks across upstreams are [Scanner.ScanName]'s.
func (s *Scanner) Scan(it *Item) []Finding {
	var out []Finding
	add := func(field, text string) { out = s.scanText(out, fieldRef{s: field}, text) }
	add("name", it.Name)
	add("title", it.Title)
	add("description", it.Description)
	add("uriTemplate", it.URITemplate)
	add("mimeType", it.MIMEType)
	for _, a := range it.Arguments {
		base := "arguments." + a.Name
		add(base, a.Name)
		add(base+".title", a.Title)
		add(base+".description", a.Description)
	}
	for _, sc := range [...]struct {
		field string
		raw   []byte
	}{{"annotations", it.Annotations}, {"inputSchema", it.InputSchema}, {"outputSchema", it.OutputSchema}} {
		if len(sc.raw) == 0 {
			continue
		}
		if r, ok := s.builtin[CodeOversized]; ok && len(sc.raw) > 16*s.maxText {
			out = append(out, Finding{Code: r.Code, Severity: r.Severity, Field: sc.field, Start: 16 * s.maxText, End: len(sc.raw),
				Excerpt: excerpt(string(sc.raw), 16*s.maxText, len(sc.raw)), Detail: fmt.Sprintf("%d bytes, the bound is %d", len(sc.raw), 16*s.maxText)})
		}
		walkJSON(sc.raw, sc.field, func(path *[]byte, text string) { out = s.scanText(out, fieldRef{b: path}, text) })
	}
	return out
}

// fieldRef names the field of a text: a fixed name, or the current path
// of a schema walk, turned into a string only when there is a finding.
type fieldRef struct {
	s string
	b *[]byte
}

func (f fieldRef) String() string {
	if f.b != nil {
		return string(*f.b)
	}
	return f.s
}

// ScanText returns the findings in one text, reported under field.
func (s *Scanner) ScanText(field, text string) []Finding {
	return s.scanText(nil, fieldRef{s: field}, text)
}

func (s *Scanner) scanText(out []Finding, field fieldRef, text string) []Finding {
	if text == "" {
		return out
	}
	if r, ok := s.builtin[CodeOversized]; ok && len(text) > s.maxText {
		out = append(out, Finding{Code: r.Code, Severity: r.Severity, Field: field.String(), Start: s.maxText, End: len(text),
			Excerpt: excerpt(text, s.maxText, len(text)), Detail: fmt.Sprintf("%d bytes, the bound is %d", len(text), s.maxText)})
	}
	first := len(out)
	out = s.scanChars(out, field, text)
	out = s.scanPatterns(out, field, text)
	return tidy(out, first, text)
}

// tidy sorts the findings of one text, out[first:], by offset, and merges
// the overlapping or adjacent (one byte apart) spans of one code into one
// finding.
func tidy(out []Finding, first int, text string) []Finding {
	fs := out[first:]
	if len(fs) < 2 {
		return out
	}
	slices.SortStableFunc(fs, func(a, b Finding) int { return a.Start - b.Start })
	kept := fs[:1]
	for _, f := range fs[1:] {
		merged := false
		for i := range kept {
			k := &kept[i]
			if k.Code == f.Code && f.Start <= k.End+1 && f.Detail == "" && k.Detail == "" {
				k.End = max(k.End, f.End)
				k.Excerpt = excerpt(text, k.Start, k.End)
				merged = true
				break
			}
		}
		if !merged {
			kept = append(kept, f)
		}
	}
	return out[:first+len(kept)]
}

// charClass is the class of a character the Unicode checks care about.
type charClass uint8

const (
	charPlain charClass = iota
	charTag
	charBidi
	charInvisible
	charControl
)

func classify(r rune) charClass {
	switch {
	case r < 0x20:
		if r == '\t' || r == '\n' || r == '\r' {
			return charPlain
		}
		return charControl
	case r < 0x7f:
		return charPlain
	case r <= 0x9f:
		return charControl
	case r >= 0xE0000 && r <= 0xE007F:
		return charTag
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return charBidi
	case r >= 0xE0100 && r <= 0xE01EF, r >= 0xFE00 && r <= 0xFE0F,
		r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x2800, r == 0x034F, r == 0x00AD:
		return charInvisible
	case unicode.Is(unicode.Cf, r):
		return charInvisible
	}
	return charPlain
}

// scanChars reports tag characters, bidirectional controls, invisible
// characters and control characters, each run of them as one finding.
func (s *Scanner) scanChars(out []Finding, field fieldRef, text string) []Finding {
	ascii := true
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= utf8.RuneSelf || c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return out
	}
	emit := func(code string, start, end int, detail string) {
		if r, ok := s.builtin[code]; ok {
			out = append(out, Finding{Code: code, Severity: r.Severity, Field: field.String(), Start: start, End: end, Excerpt: excerpt(text, start, end), Detail: detail})
		}
	}
	prev := rune(-1)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		cls := classify(r)
		if cls == charPlain || cls == charInvisible && benignInvisible(text, i, r, size, prev) {
			prev = r
			i += size
			continue
		}
		// A run of characters of the same class (tags, bidi, invisible).
		start, n := i, 0
		var hidden strings.Builder
		for i < len(text) {
			r2, size2 := utf8.DecodeRuneInString(text[i:])
			c2 := classify(r2)
			if c2 != cls || c2 == charInvisible && benignInvisible(text, i, r2, size2, prev) {
				break
			}
			if cls == charTag && r2 >= 0xE0020 && r2 < 0xE007F && hidden.Len() < maxExcerpt {
				hidden.WriteRune(r2 - 0xE0000)
			}
			prev = r2
			i += size2
			n++
		}
		switch cls {
		case charTag:
			emit(CodeInvisibleTag, start, i, fmt.Sprintf("hidden text %q", hidden.String()))
		case charBidi:
			emit(CodeBidiControl, start, i, "")
		case charControl:
			emit(CodeControlChar, start, i, "")
		case charInvisible:
			if n >= 4 {
				emit(CodeInvisibleRun, start, i, fmt.Sprintf("%d invisible characters", n))
			} else {
				emit(CodeZeroWidth, start, i, "")
			}
		}
	}
	return out
}

// benignInvisible reports whether an invisible character at text[i:i+size]
// is there for a reason: a joiner or variation selector inside an emoji
// sequence, a joiner or non-joiner beside letters of a script that shapes
// with them, a byte-order mark at the start, a direction mark in text that
// holds right-to-left letters.
func benignInvisible(text string, i int, r rune, size int, prev rune) bool {
	next, _ := utf8.DecodeRuneInString(text[i+size:])
	switch r {
	case 0xFEFF:
		return i == 0
	case 0x200D: // zero-width joiner
		return isEmojiLike(prev) && (isEmojiLike(next) || isModifier(next)) || isShapingLetter(prev) || isShapingLetter(next)
	case 0x200C: // zero-width non-joiner
		return isShapingLetter(prev) || isShapingLetter(next)
	case 0xFE0E, 0xFE0F:
		return prev > 0 && (isEmojiLike(prev) || prev == 0x20E3 || '0' <= prev && prev <= '9' || prev == '#' || prev == '*')
	case 0x200E, 0x200F, 0x061C:
		return hasRTL(text)
	case 0x00AD: // soft hyphen: invisible, but it only marks where a word may break
		return unicode.IsLetter(prev) && unicode.IsLetter(next)
	}
	return false
}

func isEmojiLike(r rune) bool {
	return r >= 0x2190 && (unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r >= 0x1F000 && r <= 0x1FAFF || r == 0x2640 || r == 0x2642)
}

func isModifier(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF || r == 0xFE0F }

func isShapingLetter(r rune) bool {
	return r >= 0x0590 && unicode.IsLetter(r) || r >= 0x0590 && unicode.Is(unicode.Mn, r) || r >= 0x0590 && unicode.Is(unicode.Mc, r)
}

func hasRTL(text string) bool {
	for _, r := range text {
		if unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko) {
			return true
		}
	}
	return false
}

// window is how far around a trigger word the patterns of its rule look,
// in bytes; every pattern's match is shorter than this on each side.
const window = 128

// hit is a trigger word's rule and position.
type hit struct{ rule, start, end int }

// scanPatterns runs the rules whose triggers occur in text, each on the
// windows of text around its triggers' occurrences.
func (s *Scanner) scanPatterns(out []Finding, field fieldRef, text string) []Finding {
	var hits []hit
	var word [32]byte
	n := 0
	flush := func(end int) {
		if n > 0 && n <= s.maxTrigger && n <= len(word) && s.firsts[word[0]>>6]&(1<<(word[0]&63)) != 0 {
			for _, idx := range s.triggers[string(word[:n])] {
				hits = append(hits, hit{idx, end - n, end})
			}
		}
		n = 0
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		default:
			flush(i)
			continue
		}
		if n < len(word) {
			word[n] = c
		}
		n++
	}
	flush(len(text))
	for _, idx := range s.always {
		hits = append(hits, hit{idx, 0, len(text)})
	}
	if len(hits) == 0 {
		return out
	}
	// The patterns match the text with its ASCII letters lower-cased,
	// which keeps every offset and lets the matcher compare bytes
	// instead of case folds.
	lower := []byte(text)
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.rule != b.rule {
			return a.rule - b.rule
		}
		return a.start - b.start
	})
	for i := 0; i < len(hits); {
		idx := hits[i].rule
		// Merge the windows of this rule's hits.
		lo, hi := windowAround(text, hits[i].start, hits[i].end)
		j := i + 1
		for ; j <= len(hits); j++ {
			if j < len(hits) && hits[j].rule == idx {
				l2, h2 := windowAround(text, hits[j].start, hits[j].end)
				if l2 <= hi {
					hi = max(hi, h2)
					continue
				}
				out = s.runRule(out, field, text, lower, idx, lo, hi)
				lo, hi = l2, h2
				continue
			}
			out = s.runRule(out, field, text, lower, idx, lo, hi)
			break
		}
		i = j
	}
	return out
}

// windowAround returns the window of text around [start, end), widened to
// word boundaries so that no word is cut.
func windowAround(text string, start, end int) (int, int) {
	lo, hi := max(0, start-window), min(len(text), end+window)
	for lo > 0 && isWordByte(text[lo-1]) {
		lo--
	}
	for hi < len(text) && isWordByte(text[hi]) {
		hi++
	}
	return lo, hi
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c >= utf8.RuneSelf
}

// runRule runs rule idx on lower[lo:hi], lower being text with its ASCII
// letters lower-cased.
func (s *Scanner) runRule(out []Finding, field fieldRef, text string, lower []byte, idx, lo, hi int) []Finding {
	r := &s.rules[idx]
	for _, re := range r.match {
		for _, m := range re.FindAllIndex(lower[lo:hi], -1) {
			start, end := lo+m[0], lo+m[1]
			if len(r.with) > 0 && !matchesAny(r.with, sentence(lower, start, end)) {
				continue
			}
			out = append(out, Finding{Code: r.Code, Severity: r.Severity, Field: field.String(), Start: start, End: end, Excerpt: excerpt(text, start, end)})
		}
	}
	return out
}

func matchesAny(res []*regexp.Regexp, s []byte) bool {
	for _, re := range res {
		if re.Match(s) {
			return true
		}
	}
	return false
}

// sentence returns the text around [start, end) up to the nearest
// sentence end or line break on each side.
func sentence(text []byte, start, end int) []byte {
	isEnd := func(c byte) bool { return c == '.' || c == '!' || c == '?' || c == '\n' }
	for start > 0 && !isEnd(text[start-1]) {
		start--
	}
	for end < len(text) && !isEnd(text[end]) {
		end++
	}
	return text[start:end]
}

// excerpt returns text[start:end], at most maxExcerpt bytes of it (cut at a
// character boundary, with "…" when cut), with every character that is not
// safely printable written as a \u or \U escape.
func excerpt(text string, start, end int) string {
	cut := false
	if end-start > maxExcerpt {
		end = start + maxExcerpt
		for end > start && !utf8.RuneStart(text[end]) {
			end--
		}
		cut = true
	}
	var b strings.Builder
	for _, r := range text[start:end] {
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\\':
			b.WriteString(`\\`)
		case classify(r) != charPlain || !unicode.IsPrint(r) && r != ' ':
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// walkJSON calls add for every object key and string value of the JSON
// document raw, with its path ("inputSchema.properties.x.description",
// "inputSchema.enum[2]"). It stops quietly at the first syntax error: a
// broken schema is the catalogue's to refuse, not the scanner's.
func walkJSON(raw []byte, root string, add func(path *[]byte, text string)) {
	w := jsonWalker{b: raw, add: add, path: append(make([]byte, 0, 128), root...)}
	w.value(0)
}

type jsonWalker struct {
	b    []byte
	i    int
	add  func(path *[]byte, text string)
	path []byte
	bad  bool
}

const maxJSONDepth = 200

func (w *jsonWalker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// next reads what follows a member or an element of a container closed
// by closing: it reports whether another one follows (a comma); at the
// closing byte, or after a value gone bad, the container is over (and
// anything else makes it bad).
func (w *jsonWalker) next(closing byte) bool {
	if w.bad {
		return false
	}
	w.space()
	if w.i < len(w.b) && w.b[w.i] == ',' {
		w.i++
		return true
	}
	if w.i < len(w.b) && w.b[w.i] == closing {
		w.i++
	} else {
		w.bad = true
	}
	return false
}

func (w *jsonWalker) value(depth int) {
	w.space()
	if w.bad || w.i >= len(w.b) || depth > maxJSONDepth {
		w.bad = true
		return
	}
	switch w.b[w.i] {
	case '{':
		w.i++
		for {
			w.space()
			if w.i < len(w.b) && w.b[w.i] == '}' {
				w.i++
				return
			}
			key, ok := w.str()
			if !ok {
				w.bad = true
				return
			}
			n := len(w.path)
			w.path = append(append(w.path, '.'), key...)
			w.add(&w.path, key)
			w.space()
			if w.i >= len(w.b) || w.b[w.i] != ':' {
				w.bad = true
				return
			}
			w.i++
			w.value(depth + 1)
			w.path = w.path[:n]
			if !w.next('}') {
				return
			}
		}
	case '[':
		w.i++
		for n := 0; ; n++ {
			w.space()
			if w.i < len(w.b) && w.b[w.i] == ']' {
				w.i++
				return
			}
			l := len(w.path)
			w.path = append(strconv.AppendInt(append(w.path, '['), int64(n), 10), ']')
			w.value(depth + 1)
			w.path = w.path[:l]
			if !w.next(']') {
				return
			}
		}
	case '"':
		s, ok := w.str()
		if !ok {
			w.bad = true
			return
		}
		w.add(&w.path, s)
	default: // number, true, false, null
		for w.i < len(w.b) && !strings.ContainsRune(",}] \t\n\r", rune(w.b[w.i])) {
			w.i++
		}
	}
}

// str reads a JSON string at w.i and returns its value.
func (w *jsonWalker) str() (string, bool) {
	if w.i >= len(w.b) || w.b[w.i] != '"' {
		return "", false
	}
	start := w.i
	escaped := false
	for j := start + 1; j < len(w.b); j++ {
		switch w.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			w.i = j + 1
			if !escaped {
				if j == start+1 {
					return "", true
				}
				// The scan only reads the text while the schema is
				// walked, and every finding copies what it keeps, so the
				// bytes are not copied into a string.
				return unsafe.String(&w.b[start+1], j-start-1), true
			}
			var s string
			if err := json.Unmarshal(w.b[start:w.i], &s); err != nil {
				return "", false
			}
			return s, true
		}
	}
	return "", false
}
