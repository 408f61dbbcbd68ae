package spell_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolserver/internal/spell"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"", "abc", 3},
		{"serach", "search", 1}, // a transposition is one edit
		{"serve", "search", 3},
		{"comand", "command", 1},
		{"kitten", "sitting", 3},
		{strings.Repeat("a", 200), "a", 200}, // too long to be compared
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			assert.Equal(t, tt.want, spell.Distance(tt.a, tt.b))
			assert.Equal(t, tt.want, spell.Distance(tt.b, tt.a), "symmetric")
		})
	}
}

func TestNearest(t *testing.T) {
	commands := []string{"serve", "search", "describe", "run", "tools", "exec", "config", "stats", "version", "help"}
	tests := []struct {
		word string
		n    int
		want []string
	}{
		{"serach", 3, []string{"search"}},
		{"serv", 3, []string{"serve"}},
		{"Search", 3, []string{"search"}}, // case alone is one edit
		{"toolz", 3, []string{"tools"}},
		{"rn", 3, []string{"run"}},
		{"frobnicate", 3, nil}, // nothing near: no guess
		{"search", 3, nil},     // a known word needs no suggestion
		{"stat", 3, []string{"stats"}},
		{"describ", 1, []string{"describe"}},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			assert.Equal(t, tt.want, spell.Nearest(tt.word, commands, tt.n))
		})
	}
	assert.Equal(t, []string{"math:eval", "math:evil"}, spell.Nearest("math:evl", []string{"time:now", "math:eval", "math:evil", "math:eval"}, 5),
		"nearest first, in order at equal distances, without repeats")
	assert.Len(t, spell.Nearest("ab", []string{"aa", "bb", "ac"}, 2), 2, "at most n")
}

func TestSuggest(t *testing.T) {
	s, ok := spell.Suggest("comand", []string{"name", "command", "args"})
	assert.True(t, ok)
	assert.Equal(t, "command", s)
	_, ok = spell.Suggest("zzzzzz", []string{"name", "command", "args"})
	assert.False(t, ok)
}

func ExampleSuggest() {
	if s, ok := spell.Suggest("serach", []string{"search", "serve"}); ok {
		fmt.Printf("did you mean %q?\n", s)
	}
	// Output: did you mean "search"?
}
