package toolmodel

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestReadable(t *testing.T) {
	long := strings.Repeat("(", 200000)
	tests := []struct {
		name, msg, want string
	}{
		{"integers", "minimum: -1/1 is less than 0.000000", "minimum: -1 is less than 0"},
		{"fractions", "exclusiveMaximum: 5/2 is greater than or equal to 2.500000", "exclusiveMaximum: 2.5 is greater than or equal to 2.5"},
		{"maximum", "maximum: 101/1 is greater than 100.000000", "maximum: 101 is greater than 100"},
		{"exclusive minimum", "exclusiveMinimum: 0/1 is less than or equal to 0.000000", "exclusiveMinimum: 0 is less than or equal to 0"},
		{"multiple", "multipleOf: 7/2 is not a multiple of 0.250000", "multipleOf: 3.5 is not a multiple of 0.25"},
		{"after a prefix", "validating /properties/n: minimum: -3/1 is less than 1.000000", "validating /properties/n: minimum: -3 is less than 1"},
		{"long quoted value", `maxLength: "` + long + `" contains 200000 Unicode code points, more than 4096`,
			`maxLength: "` + strings.Repeat("(", maxQuoted) + `…" contains 200000 Unicode code points, more than 4096`},
		{"short quoted values stay", `pattern: "abc" does not match regular expression "^x$"`, `pattern: "abc" does not match regular expression "^x$"`},
		{"an escape is not cut in two", `maxLength: "` + strings.Repeat("a", maxQuoted-3) + `\u2028 and more" contains 9`,
			`maxLength: "` + strings.Repeat("a", maxQuoted-3) + `…" contains 9`},
		{"an escaped quote does not end the value", `pattern: "a\"` + strings.Repeat("b", 100) + `" does not match`,
			`pattern: "a\"` + strings.Repeat("b", maxQuoted-3) + `…" does not match`},
		{"a character is not cut in two", `maxLength: "` + strings.Repeat("é", 100) + `" contains 100`,
			`maxLength: "` + strings.Repeat("é", maxQuoted/2) + `…" contains 100`},
		{"an unclosed quote is left", `odd: "` + strings.Repeat("x", 10), `odd: "` + strings.Repeat("x", 10)},
		{"a string like a fraction is kept", `pattern: "1/1" does not match regular expression "^0$"`, `pattern: "1/1" does not match regular expression "^0$"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, readable(tt.msg))
		})
	}

	t.Run("long message", func(t *testing.T) {
		got := readable("type: map[" + strings.Repeat("k:v ", 10000) + "] has type \"object\", want \"string\"")
		assert.LessOrEqual(t, len(got), maxMessage+len("…"))
		assert.True(t, strings.HasSuffix(got, "…"))
	})
}

// FuzzReadable checks that readable never returns a message longer than
// its bound, and keeps valid UTF-8 valid.
func FuzzReadable(f *testing.F) {
	for _, seed := range []string{
		"minimum: -1/1 is less than 0.000000", `maxLength: "` + strings.Repeat("ab", 100) + `" contains 200`,
		`a "\u2028" b "\x00`, `"\\"`, `multipleOf: 1/3 is not a multiple of 0.500000`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := readable(msg)
		if len(got) > maxMessage+len("…") {
			t.Fatalf("readable(%q) is %d bytes", msg, len(got))
		}
		if utf8.ValidString(msg) && !utf8.ValidString(got) {
			t.Fatalf("readable(%q) = %q is not UTF-8", msg, got)
		}
	})
}
