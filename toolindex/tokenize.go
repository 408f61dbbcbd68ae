package toolindex

import (
	"strings"
	"unicode"
)

// stopwords are words too common in tool descriptions and requests to
// tell tools apart. Leaving them out keeps "how to create an issue" from
// matching every description that says "to".
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "by": true, "for": true, "from": true, "in": true, "into": true,
	"is": true, "it": true, "its": true, "of": true, "on": true, "or": true,
	"that": true, "the": true, "this": true, "to": true, "with": true,
}

// appendTerms appends the search terms of s to dst and returns the
// result. It splits s into words at every character that is neither a
// letter, a digit nor a mark, and splits identifiers at their inner
// boundaries: "createIssue", "create_issue", "create-issue" and
// "github.create.issue" all give "create" and "issue"; "HTTPServer"
// gives "http" and "server"; "base64url" gives "base", "64" and "url".
// Each word is lower-cased and folded by [foldPlural]; stopwords are
// dropped. Queries and documents go through the same function, so that
// they meet on the same terms.
func appendTerms(dst []string, s string) []string {
	rs := []rune(s)
	start := 0
	for i := 0; i <= len(rs); i++ {
		if i == len(rs) || !isWordRune(rs[i]) {
			dst = appendWord(dst, rs[start:i])
			start = i + 1
			continue
		}
		if i > start && wordBoundary(rs, i) {
			dst = appendWord(dst, rs[start:i])
			start = i
		}
	}
	return dst
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// wordBoundary reports whether a word starts at rs[i] inside an
// identifier: between letters and digits, at a lower-to-upper case
// change, and before the last capital of a run of capitals followed by a
// lower-case letter.
func wordBoundary(rs []rune, i int) bool {
	a, b := rs[i-1], rs[i]
	switch {
	case unicode.IsMark(b):
		return false
	case unicode.IsDigit(a) != unicode.IsDigit(b):
		return true
	case unicode.IsLower(a) && unicode.IsUpper(b):
		return true
	case unicode.IsUpper(a) && unicode.IsUpper(b):
		return i+1 < len(rs) && unicode.IsLower(rs[i+1])
	}
	return false
}

func appendWord(dst []string, word []rune) []string {
	if len(word) == 0 {
		return dst
	}
	w := foldPlural(strings.ToLower(string(word)))
	if stopwords[w] {
		return dst
	}
	return append(dst, w)
}

// foldPlural maps the common English plural forms to their singular, so
// that "issues" finds "issue" and "queries" finds "query". It is
// deliberately light, not a stemmer: it only has to map a word and its
// plural to the same term, and it leaves short words, and words ending in
// "ss", "us" or "is" ("address", "status", "analysis"), alone.
func foldPlural(w string) string {
	n := len(w)
	switch {
	case n <= 3 || w[n-1] != 's':
		return w
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:n-1]
}
