package javascript

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/dop251/goja"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
)

// cutAsShown is a text as shown: itself when it has MaxShownLength UTF-16
// code units at most, else its longest prefix that has, without splitting
// a character, and "…".
func cutAsShown(s string) string {
	units := 0
	for i, c := range s {
		units += utf16.RuneLen(c)
		if units > toolcode.MaxShownLength {
			return s[:i] + "…"
		}
	}
	return s
}

// jsonDepth is the deepest nesting of arrays and objects in a JSON text.
func jsonDepth(text string) int {
	d, deepest := 0, 0
	dec := json.NewDecoder(strings.NewReader(text))
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			d++
			deepest = max(deepest, d)
		case json.Delim(']'), json.Delim('}'):
			d--
		}
	}
}

// FuzzShownJSON checks that a value JSON.parse makes is shown as
// JSON.stringify writes it (a string as it is), cut as the engines cut:
// the walk that bounds the text writes what JSON.stringify would.
func FuzzShownJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"two",null,true,{"b":-0.5}]}`, `"text"`, `1e21`, `[]`, `{}`, `null`, `[1e351]`,
		`{"s":"\u2028\n\t\"\\ \u0001 😀 \ud800"}`, `{"__proto__":{"x":1}}`, `{"2":1,"1":2,"b":3}`,
		`{"message":"plain","name":"still JSON"}`, `"` + strings.Repeat("é", 1200) + `"`, `[` + strings.Repeat(`"😀",`, 600) + `1]`} {
		f.Add(s)
	}
	r := newTestRun(f)
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) || jsonDepth(text) > maxShownDepth || strings.Count(text, ",") > maxShownMembers/2 {
			return
		}
		v, err := r.parseJSON(text)
		if err != nil {
			return // goja's JSON.parse refuses a number past float64's range
		}
		want := v.String()
		if !goja.IsString(v) {
			s, ok, err := r.stringify(v)
			require.NoError(t, err)
			require.True(t, ok)
			want = s
		}
		assert.Equal(t, cutAsShown(want), r.shownValue(v))
	})
}

// TestShownValueRefusesToPanic checks that showing a value that throws
// whatever is read of it gives the text of a value that cannot be shown.
func TestShownValueRefusesToPanic(t *testing.T) {
	r := newTestRun(t)
	for _, expr := range []string{
		`new Proxy({}, {get() { throw 1; }, getPrototypeOf() { throw 2; }, ownKeys() { throw 3; }})`,
		`(() => { const p = Proxy.revocable([], {}); p.revoke(); return p.proxy; })()`,
		`({toJSON() { throw new Error("no"); }})`,
	} {
		v, err := r.vm.RunString("(" + expr + ")")
		require.NoError(t, err)
		assert.Equal(t, cannotShow, r.shownValue(v), expr)
	}
}
