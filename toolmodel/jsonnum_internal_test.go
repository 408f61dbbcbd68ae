package toolmodel

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExactFloat(t *testing.T) {
	tests := []struct {
		number string
		exact  bool
	}{
		{"0", true},
		{"-0", true},
		{"0.0e10", true},
		{"1", true},
		{"-1.25", true},
		{"0.1", true},
		{"1E2", true},
		{"123456789012345", true},
		{"1.7976931348623157e308", true},
		{"5e-324", true},
		{"9007199254740992", true},
		{"9007199254740993", false},
		// 2^64 is a float64, but one that encodes as 18446744073709552000.
		{"18446744073709551616", false},
		{"18446744073709551617", false},
		{"0.30000000000000001", false},
		{"4.9e-324", false}, // the same float64 as 5e-324, which it encodes as
		{"1e-400", false},
		{"1e400", false},
		{"1e99999999999999999999", false},
		{"0e99999999999999999999", false},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			_, exact := exactFloat(json.Number(tt.number))
			assert.Equal(t, tt.exact, exact)
		})
	}
}

func TestCanonicalNumber(t *testing.T) {
	tests := []struct {
		number string
		want   any
	}{
		{"1.0", 1.0},
		{"-2.50e1", -25.0},
		{"9007199254740993", json.Number("9007199254740993e0")},
		{"9007199254740993.000", json.Number("9007199254740993e0")},
		{"-90071992547409930e-1", json.Number("-9007199254740993e0")},
		{"1e700", json.Number("1e700")},
		{"10e699", json.Number("1e700")},
		{"0.00e99999999999999999999", json.Number("0.00e99999999999999999999")},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			assert.Equal(t, tt.want, canonicalNumber(json.Number(tt.number)))
		})
	}
}

func TestPointerToken(t *testing.T) {
	tests := map[string]string{"": "", "a": "a", "a/b": "a~1b", "~": "~0", "~1": "~01", "/~/": "~1~0~1"}
	for name, want := range tests {
		assert.Equal(t, want, PointerToken(name))
		assert.Equal(t, name, unescapePointer(want))
	}
}

// TestMayRound checks that the quick scan never misses a number that
// exactFloat would keep as a json.Number.
func TestMayRound(t *testing.T) {
	for _, raw := range []string{
		`{"n":9007199254740993}`, `{"n":[1,-0.30000000000000001]}`, `{"n":1e400}`, `{"n":1E-400}`,
		`{"n":0.0000000000000001}`, `{"n":4.9e-324}`,
	} {
		assert.True(t, mayRound([]byte(raw)), raw)
	}
	for _, raw := range []string{`{"n":3,"m":-1.5,"s":"abc"}`, `{"n":123456789012345}`, `{"n":[0.25,{"k":null}]}`} {
		assert.False(t, mayRound([]byte(raw)), raw)
	}
}

// FuzzMayRound checks the shortcuts of the number handling against the
// full comparison: the quick scan and the short-decimal case of
// exactFloat.
func FuzzMayRound(f *testing.F) {
	for _, seed := range []string{"1", "9007199254740993", "1e5", "0.000000000000001", "-12.5"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, number string) {
		if !json.Valid([]byte(number)) {
			return
		}
		var n json.Number
		if json.Unmarshal([]byte(number), &n) != nil {
			return // not a number
		}
		number = string(n) // a quoted number decodes as well
		f, exact := exactFloat(n)
		if !exact && !mayRound([]byte(number)) {
			t.Fatalf("%s would be rounded, and the scan missed it", number)
		}
		// The shortcut in exactFloat agrees with the full comparison.
		if exact && !sameDecimal(number, strconv.FormatFloat(f, 'g', -1, 64)) {
			t.Fatalf("%s taken as exact, but it encodes as %v", number, f)
		}
	})
}
