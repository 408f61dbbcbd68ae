package toolcode

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeCases are values whose encoding must match encoding/json's, byte
// for byte, whichever path writes them.
var encodeCases = []any{
	nil, true, false, "", "plain", `quote " and \ backslash`, "tab\tnew\nline", "<html> & co",
	"héllo wörld ✓ 😀", "line\u2028sep\u2029", "bad \xff utf8", "\x7f del",
	0.0, math.Copysign(0, -1), 1.0, -1.5, 3.14159, 1e20, 1e21, 1.5e-7, 1e-6, 123456789012345678.0, 5e-324, math.MaxFloat64,
	// Whole numbers on either side of 2^53, where the digits of AppendInt
	// give way to those of AppendFloat.
	-7.0, 1e15, 1 << 53, -(1 << 53), 1<<53 + 2, -(1<<53 + 2), math.Nextafter(1<<53, 0),
	map[string]any{}, map[string]any(nil), []any{}, []any(nil),
	map[string]any{"b": 1.0, "a": []any{"x", nil, true, map[string]any{"z": 2.5, "y": "<"}}, "é": "k", "A": 0.0},
	[]any{1.0, "two", []any{3.0}, map[string]any{"k": nil}},
	map[string]any{"n": math.NaN()}, []any{math.Inf(1)},
	map[string]any{"typed": map[string]string{"k": "v"}, "int": 3},
	struct{ A int }{A: 1},
}

func TestMarshalJSONMatchesEncodingJSON(t *testing.T) {
	for _, v := range encodeCases {
		want, wantErr := json.Marshal(v)
		got, err := marshalJSON(v)
		if wantErr != nil {
			require.Error(t, err, "%#v", v)
			continue
		}
		require.NoError(t, err, "%#v", v)
		assert.Equal(t, string(want), string(got), "%#v", v)
	}
}

func TestJSONSizeMatchesEncodingJSON(t *testing.T) {
	// Twice: the second pass reuses the scratch buffers of the first.
	for range 2 {
		for _, v := range encodeCases {
			want, wantErr := json.Marshal(v)
			got, err := jsonSize(v)
			if wantErr != nil {
				require.Error(t, err, "%#v", v)
				continue
			}
			require.NoError(t, err, "%#v", v)
			assert.Equal(t, len(want), got, "%#v", v)
		}
	}
}

func TestMarshalJSONCycleFails(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	_, err := marshalJSON(m)
	assert.Error(t, err)
}

// FuzzMarshalJSON decodes arbitrary JSON, as the trace's values are, and
// checks that marshalJSON writes it exactly as encoding/json does.
func FuzzMarshalJSON(f *testing.F) {
	for _, v := range encodeCases {
		if b, err := json.Marshal(v); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"a":"\u2028\ud800x","b":[1e-7,-0,123e300]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		want, wantErr := json.Marshal(v)
		got, err := marshalJSON(v)
		if wantErr != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

// BenchmarkMarshalJSON writes what the trace records of a call: its
// arguments, and (for jsonSize) its result.
func BenchmarkMarshalJSON(b *testing.B) {
	for _, c := range []struct {
		name string
		v    any
	}{
		{"whole", map[string]any{"a": 7.0, "b": 1.0}},
		{"fractional", map[string]any{"a": 7.25, "b": 0.1}},
		{"mixed", map[string]any{"query": "weather in Tokyo", "limit": 5.0, "tags": []any{"a", "b"}, "deep": map[string]any{"x": true}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := marshalJSON(c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
