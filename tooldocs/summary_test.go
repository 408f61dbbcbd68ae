package tooldocs_test

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/tooldocs"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"empty", "", 100, ""},
		{"one sentence", "Create an issue.", 100, "Create an issue."},
		{"first of two", "Create an issue. It is opened at once.", 100, "Create an issue."},
		{"exclamation and question", "Is it up? Ask the server! Then wait.", 100, "Is it up?"},
		{"abbreviation does not end it", "Use e.g. the owner name. Then more.", 100, "Use e.g. the owner name."},
		{"version does not end it", "Works with v1.2 and later. More.", 100, "Works with v1.2 and later."},
		{"digit starts a sentence", "Costs money. 3 calls are free.", 100, "Costs money."},
		{"first paragraph only", "Lists files\nin a folder\n\nSecond paragraph.", 100, "Lists files in a folder"},
		{"leading blank lines and heading", "\n\n  # Weather tool\n\nGet the weather.", 100, "Weather tool"},
		{"spaces collapse", "Get   the\tweather   now", 100, "Get the weather now"},
		{"cut at a word", "Search the catalogue for tools that match a query", 20, "Search the…"},
		{"cut drops trailing punctuation", "Alpha, beta, gamma, delta", 13, "Alpha, beta…"},
		{"cut counts runes", "Überprüfe die Größe der Datei", 12, "Überprüfe…"},
		{"cut inside one long word", "Supercalifragilistic", 6, "Super…"},
		{"no limit", "A long sentence without any limit applied to it.", 0, "A long sentence without any limit applied to it."},
		{"exactly at the limit", "Twelve runes", 12, "Twelve runes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tooldocs.Summarize(tt.in, tt.max)
			assert.Equal(t, tt.want, got)
			if tt.max > 0 {
				assert.LessOrEqual(t, utf8.RuneCountInString(got), tt.max)
			}
		})
	}
}
