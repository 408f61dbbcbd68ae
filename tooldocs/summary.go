package tooldocs

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultSummaryLength is the longest one-line description, in runes, a
// Store produces unless told otherwise with [WithSummaryLength].
const DefaultSummaryLength = 160

// Summarize returns the first sentence of a description on one line, at
// most maxRunes runes long (when maxRunes > 0).
//
// The first sentence ends at the first '.', '!' or '?' followed by a space
// and an upper-case letter or a digit, or at the end of the first
// paragraph; so "e.g. this" or "v1.2" do not end it. Markdown heading
// marks and runs of spaces are dropped. A sentence longer than maxRunes is
// cut at the last space that fits and ends with "…".
func Summarize(description string, maxRunes int) string {
	para := firstParagraph(description)
	s := firstSentence(para)
	if maxRunes <= 0 || utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	// Keep maxRunes-1 runes, leaving room for the ellipsis, then back up
	// to a word boundary (s[cut] itself may be the space).
	cut, runes := 0, 0
	for i := range s {
		if runes == maxRunes-1 {
			cut = i
			break
		}
		runes++
	}
	if space := strings.LastIndexByte(s[:cut+1], ' '); space > 0 {
		cut = space
	}
	return strings.TrimRightFunc(s[:cut], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}) + "…"
}

// firstParagraph returns the first non-blank paragraph of text as one line,
// without Markdown heading marks.
func firstParagraph(text string) string {
	var words []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		line = strings.TrimSpace(strings.TrimLeft(line, "#"))
		words = append(words, strings.Fields(line)...)
	}
	return strings.Join(words, " ")
}

// firstSentence returns the first sentence of a one-line paragraph.
func firstSentence(para string) string {
	for i := 0; i < len(para); i++ {
		switch para[i] {
		case '.', '!', '?':
		default:
			continue
		}
		if i+2 >= len(para) || para[i+1] != ' ' {
			continue
		}
		next, _ := utf8.DecodeRuneInString(para[i+2:])
		if unicode.IsUpper(next) || unicode.IsDigit(next) {
			return para[:i+1]
		}
	}
	return para
}
