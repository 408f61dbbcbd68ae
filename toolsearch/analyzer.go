package toolsearch

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	_ "github.com/blevesearch/bleve/v2/analysis/token/porter" // registers the Porter stemmer, an alternative measured in the ablation
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/registry"
)

// Names under which the analysis chain is known to bleve. The tokenizer is
// registered in bleve's process-wide registry (an on-disk index records
// analyzers by name, so the name must resolve when it is reopened); the
// analyzer is defined in each index's mapping.
const (
	identifierTokenizerName = "metatools_identifier"
	textAnalyzerName        = "metatools_tool_text"
	pairAnalyzerName        = "metatools_word_pairs"
	extraStopMapName        = "metatools_extra_stop_words"
	extraStopFilterName     = "metatools_extra_stop"
)

func init() {
	err := registry.RegisterTokenizer(identifierTokenizerName,
		func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
			return identifierTokenizer{}, nil
		})
	if err != nil {
		panic(err) // only possible if another package took the name
	}
}

// textAnalyzerConfig is the analyzer used for every text field and for
// queries: identifier-aware words, English possessives dropped, lower
// case, English stop words removed, then the stemmer, a token filter
// named in bleve's registry ("" for none).
func textAnalyzerConfig(stemmer string) map[string]any {
	filters := []any{
		en.PossessiveName,
		lowercase.Name,
		en.StopName,
		extraStopFilterName,
	}
	if stemmer != "" {
		filters = append(filters, stemmer)
	}
	return map[string]any{
		"type":          custom.Name,
		"tokenizer":     identifierTokenizerName,
		"token_filters": filters,
	}
}

// extraStopWords complete bleve's English stop words (the Snowball list)
// with the few that other common lists (NLTK's) add: words that say
// nothing about what a tool does but are frequent in requests ("can you",
// "just", "now").
var extraStopWords = []any{"can", "will", "just", "now", "don", "should", "s", "t"}

// textAnalysisConfigs returns the token map and filter the text analyzer
// needs besides bleve's built-in ones, as mapping definitions.
func textAnalysisConfigs() (tokenMap, filter map[string]any) {
	return map[string]any{"type": tokenmap.Name, "tokens": extraStopWords},
		map[string]any{"type": stop.Name, "stop_token_map": extraStopMapName}
}

// identifierTokenizer splits text into words the way people read
// identifiers: besides spaces and punctuation ('_', '-', '.', '/', ':'...),
// it splits at camelCase humps ("createIssue" → create, Issue), at the end
// of an acronym ("HTTPServer" → HTTP, Server) and between letters and
// digits ("base64" → base, 64). A word it splits is also kept whole
// ("createIssue" stays as well), so a query that writes an identifier
// without separators ("github") still matches one written with humps
// ("GitHub"). Apostrophes inside a word belong to it ("don't", "user's")
// and are normalized to ASCII, so that the stop-word and possessive filters
// recognise them. Scripts written without spaces (Han, Hiragana, Katakana)
// yield one token per character.
type identifierTokenizer struct{}

// Tokenize implements analysis.Tokenizer.
func (identifierTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var stream analysis.TokenStream
	pos := 1
	emit := func(start, end int, typ analysis.TokenType, samePos bool) {
		if samePos {
			pos--
		}
		stream = append(stream, &analysis.Token{
			Start: start, End: end, Position: pos, Type: typ,
			Term: normalizeApostrophes(input[start:end]),
		})
		pos++
	}
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		switch {
		case isUnspacedScript(r):
			emit(i, i+size, analysis.Ideographic, false)
			i += size
		case isWordRune(r):
			end := wordEnd(input, i)
			splitWord(input, i, end, emit)
			i = end
		default:
			i += size
		}
	}
	return stream
}

// wordEnd returns the end of the word starting at start: a run of letters,
// digits and marks, with apostrophes allowed between letters.
func wordEnd(input []byte, start int) int {
	i := start
	for i < len(input) {
		r, size := utf8.DecodeRune(input[i:])
		if isWordRune(r) && !isUnspacedScript(r) {
			i += size
			continue
		}
		if isApostrophe(r) && i > start && i+size < len(input) {
			prev, _ := utf8.DecodeLastRune(input[start:i])
			next, _ := utf8.DecodeRune(input[i+size:])
			if unicode.IsLetter(prev) && unicode.IsLetter(next) && !isUnspacedScript(next) {
				i += size
				continue
			}
		}
		break
	}
	return i
}

// runeClass is what decides word-internal boundaries.
type runeClass int

const (
	classOther runeClass = iota // marks and apostrophes: never a boundary
	classLower                  // lower-case and uncased letters
	classUpper
	classDigit
)

func classOf(r rune) runeClass {
	switch {
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return classUpper
	case unicode.IsLetter(r):
		return classLower
	case unicode.IsDigit(r):
		return classDigit
	}
	return classOther
}

// splitWord emits the parts of the word input[start:end], preceded by the
// whole word when there is more than one part.
func splitWord(input []byte, start, end int, emit func(start, end int, typ analysis.TokenType, samePos bool)) {
	type part struct{ start, end int }
	var parts []part
	partStart := start
	prev := classOther
	for i := start; i < end; {
		r, size := utf8.DecodeRune(input[i:])
		cur := classOf(r)
		if i > partStart && isBoundary(prev, cur, input[i+size:end]) {
			parts = append(parts, part{partStart, i})
			partStart = i
		}
		if cur != classOther {
			prev = cur
		}
		i += size
	}
	parts = append(parts, part{partStart, end})
	if len(parts) > 1 {
		emit(start, end, wordType(input[start:end]), false)
		for i, p := range parts {
			emit(p.start, p.end, wordType(input[p.start:p.end]), i == 0)
		}
		return
	}
	emit(start, end, wordType(input[start:end]), false)
}

// isBoundary reports whether a word splits before a rune of class cur that
// follows one of class prev; rest is what follows that rune in the word.
func isBoundary(prev, cur runeClass, rest []byte) bool {
	switch {
	case prev == classLower && cur == classUpper:
		return true // createIssue
	case (prev == classDigit) != (cur == classDigit) && prev != classOther && cur != classOther:
		return true // base64, v2Api
	case prev == classUpper && cur == classUpper:
		return startsWithLowerWord(rest) // HTTPServer, but not APIs
	}
	return false
}

// startsWithLowerWord reports whether rest begins with lower-case letters
// that are more than a plural "s" ("Server" in "HTTPServer", not the "s"
// of "APIs" or "URLsToFetch").
func startsWithLowerWord(rest []byte) bool {
	n := 0
	var first rune
	for i := 0; i < len(rest); {
		r, size := utf8.DecodeRune(rest[i:])
		if classOf(r) != classLower {
			break
		}
		if n == 0 {
			first = r
		}
		n++
		i += size
	}
	return n > 1 || n == 1 && first != 's'
}

func wordType(word []byte) analysis.TokenType {
	for _, r := range string(word) {
		if !unicode.IsDigit(r) {
			return analysis.AlphaNumeric
		}
	}
	return analysis.Numeric
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isUnspacedScript reports whether r belongs to a script written without
// spaces between words, where each character is searched on its own.
func isUnspacedScript(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == '＇' }

// normalizeApostrophes returns a copy of term with typographic apostrophes
// replaced by ASCII ones. The copy also keeps the token from aliasing the
// caller's input, which filters modify in place.
func normalizeApostrophes(term []byte) []byte {
	out := make([]byte, 0, len(term))
	for i := 0; i < len(term); {
		r, size := utf8.DecodeRune(term[i:])
		if r != '\'' && isApostrophe(r) {
			out = append(out, '\'')
		} else {
			out = append(out, term[i:i+size]...)
		}
		i += size
	}
	return out
}
