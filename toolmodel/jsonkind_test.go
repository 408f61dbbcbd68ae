package toolmodel_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolmodel"
)

func TestJSONKind(t *testing.T) {
	tests := []struct {
		v            any
		kind, phrase string
	}{
		{nil, "null", "null"},
		{map[string]any{}, "object", "an object"},
		{[]any{}, "array", "an array"},
		{"x", "string", "a string"},
		{1.5, "number", "a number"},
		{true, "boolean", "a boolean"},
		{json.RawMessage(`1`), "json.RawMessage", "a json.RawMessage"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.kind, toolmodel.JSONKind(tt.v))
		assert.Equal(t, tt.phrase, toolmodel.JSONKindPhrase(tt.v))
	}
}

func TestCutUTF8(t *testing.T) {
	assert.Equal(t, "abc", toolmodel.CutUTF8("abc", 5))
	assert.Equal(t, "ab", toolmodel.CutUTF8("abc", 2))
	assert.Equal(t, "a", toolmodel.CutUTF8("aé", 2), "never half of é")
	assert.Empty(t, toolmodel.CutUTF8("é", 1))
}

func TestPointerToken(t *testing.T) {
	assert.Equal(t, "a~1b~0c", toolmodel.PointerToken("a/b~c"))
	assert.Equal(t, "plain", toolmodel.PointerToken("plain"))
}

// FuzzCutUTF8 cuts any text at any size: the result is a prefix of at
// most n bytes, valid UTF-8 when the text is, and the text itself when it
// fits.
func FuzzCutUTF8(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := toolmodel.CutUTF8(s, n)
		assert.LessOrEqual(t, len(got), max(n, 0))
		assert.Equal(t, s[:len(got)], got)
		if len(s) <= n {
			assert.Equal(t, s, got)
		}
	})
}
