package toolrun

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolvePointer(t *testing.T) {
	var doc any
	require.NoError(t, json.Unmarshal([]byte(`{"a/b": {"~": [10, 20]}, "": 1, "content": [{"type": "text", "text": "hi"}]}`), &doc))
	tests := []struct {
		pointer string
		want    any
		err     string
	}{
		{"", doc, ""},
		{"/a~1b/~0/1", 20.0, ""},
		{"/", 1.0, ""},
		{"/content/0/text", "hi", ""},
		{"/content/1", nil, `/content is an array of 1 elements: "1" is not one of its indexes`},
		{"/content/01", nil, `"01" is not one of its indexes`},
		{"/content/-", nil, `"-" is not one of its indexes`},
		{"/nope", nil, `the result has no member "nope" (it has members "", "a/b", "content")`},
		{"/a~1b/~0/0/x", nil, `/a~1b/~0/0 is a number, not an object or array: it has no "x"`},
		{"a", nil, `does not start with "/"`},
		{"/~", nil, `has a "~" not followed by 0 or 1`},
	}
	for _, tt := range tests {
		got, err := resolvePointer(doc, tt.pointer)
		if tt.err != "" {
			require.ErrorContains(t, err, tt.err, tt.pointer)
			continue
		}
		require.NoError(t, err, tt.pointer)
		assert.Equal(t, tt.want, got, tt.pointer)
	}
}

// FuzzJSONPointer parses and resolves arbitrary pointers against
// arbitrary JSON: never a panic, a pointer that parses is rebuilt as it
// was, and a pointer built from a resolved value's path finds it again.
func FuzzJSONPointer(f *testing.F) {
	f.Add("/content/0/text", []byte(`{"content": [{"text": "hi"}]}`))
	f.Add("/a~1b/~0", []byte(`{"a/b": {"~": 1}}`))
	f.Add("", []byte(`[1, 2]`))
	f.Add("/0/~", []byte(`[[]]`))
	f.Add("//", []byte(`{"": {"": null}}`))
	f.Fuzz(func(t *testing.T, pointer string, raw []byte) {
		tokens, err := pointerTokens(pointer)
		if err == nil {
			assert.Equal(t, pointer, pointerText(tokens))
		}
		var doc any
		if json.Unmarshal(raw, &doc) != nil {
			return
		}
		got, err := resolvePointer(doc, pointer)
		if err != nil {
			return
		}
		again, err := resolvePointer(doc, pointerText(tokens))
		require.NoError(t, err)
		assert.Equal(t, got, again)
	})
}
