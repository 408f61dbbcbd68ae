package tooldocs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/tooldocs"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"one word", "weather", 1},
		{"words joined by single spaces", "get the weather", 3},
		{"long word splits", "internationalization", 3}, // 20 letters
		{"digits by three", "1234567", 3},
		{"punctuation runs by three", `{"a":"b"}`, 5}, // {" a ":" b "}
		{"long punctuation run", "=======", 3},
		{"newline and indentation are one token", "a\n    b", 3},
		{"two spaces are one token", "a  b", 3},
		{"identifier", "create_issue", 3},
		{"wide script: a token per rune", "天气预报", 4},
		{"emoji: two per rune", "🙂🙂", 4},
		{"control characters: two each", "\x00\x01", 4},
		{"accented letters are letters", "Größe", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tooldocs.EstimateTokens(tt.in))
		})
	}
}

func TestEstimateTokensNeverDecreasesWhenAppending(t *testing.T) {
	text := "## github:create_issue — Create issue\nCreate a new issue. `{\"owner\":\"octo\",\"n\":12345}` 天气 🙂\n  - x"
	prev := 0
	for i := range text {
		n := tooldocs.EstimateTokens(text[:i])
		assert.GreaterOrEqual(t, n, prev, "prefix %q", text[:i])
		prev = n
	}
}

func TestEstimateTokensScalesWithLength(t *testing.T) {
	one := tooldocs.EstimateTokens("Create a new issue in a repository. ")
	assert.Equal(t, 100*one, tooldocs.EstimateTokens(strings.Repeat("Create a new issue in a repository. ", 100)))
}

func TestTokenEstimatorFunc(t *testing.T) {
	var est tooldocs.TokenEstimator = tooldocs.TokenEstimatorFunc(func(s string) int { return len(s) })
	assert.Equal(t, 5, est.EstimateTokens("hello"))
}
