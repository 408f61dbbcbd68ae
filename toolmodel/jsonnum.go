package toolmodel

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// decodeJSONObject decodes a JSON object whose values toolmodel only
// carries (a tool's metadata and _meta). Numbers that a float64 holds
// faithfully become float64, as encoding/json gives them, so code that
// reads them keeps working; the others (integers beyond 2^53, more
// digits than a float64 keeps, magnitudes beyond its range) stay
// [json.Number], which encodes them again exactly as written rather than
// rounded. An absent or null object decodes to nil.
func decodeJSONObject(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var m map[string]any
	if !mayRound(raw) {
		// Every number is exact as a float64: the plain decoding, which
		// costs less, gives the same result.
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	for k, v := range m {
		m[k] = replaceNumbers(v, floatWhereExact)
	}
	return m, nil
}

// mayRound reports whether raw JSON may hold a number that a float64
// would round: one of more than 15 digits, or with an exponent (see
// exactFloat). It looks at the bytes without parsing them, so digits in
// a string may make it answer true for nothing; never false for a number
// that would be rounded.
func mayRound(raw []byte) bool {
	digits := 0
	for _, c := range raw {
		switch {
		case '0' <= c && c <= '9':
			if digits++; digits > 15 {
				return true
			}
		case c == '.':
			// The digits of a fraction count with those before it.
		case (c == 'e' || c == 'E') && digits > 0:
			return true
		default:
			digits = 0
		}
	}
	return false
}

// replaceNumbers replaces, in place, each json.Number of a value decoded
// with UseNumber by what f makes of it, and returns the value.
func replaceNumbers(v any, f func(json.Number) any) any {
	switch x := v.(type) {
	case json.Number:
		return f(x)
	case map[string]any:
		for k, e := range x {
			x[k] = replaceNumbers(e, f)
		}
	case []any:
		for i, e := range x {
			x[i] = replaceNumbers(e, f)
		}
	}
	return v
}

// floatWhereExact is n as a float64 where that is exact, else n.
func floatWhereExact(n json.Number) any {
	if f, ok := exactFloat(n); ok {
		return f
	}
	return n
}

// exactFloat returns n as a float64 and whether that float64 encodes back
// to the same number, so that decoding n as a float64 loses nothing.
func exactFloat(n json.Number) (float64, bool) {
	s := string(n)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false // beyond float64's range
	}
	// A decimal of at most 15 digits written without an exponent (so
	// within the normal range) survives a float64 round trip: the common
	// case, decided without formatting f.
	if digitCount(s) <= 15 && !strings.ContainsAny(s, "eE") {
		return f, true
	}
	return f, sameDecimal(s, strconv.FormatFloat(f, 'g', -1, 64))
}

// digitCount returns the number of decimal digits in s.
func digitCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

// sameDecimal reports whether two JSON numbers have the same value.
func sameDecimal(a, b string) bool {
	an, ad, ae, aok := decimalParts(a)
	bn, bd, be, bok := decimalParts(b)
	return aok && bok && an == bn && ad == bd && ae == be
}

// decimalParts splits a JSON number into its sign, its significant digits
// without leading or trailing zeros, and the power of ten they are
// multiplied by: "-120.50" is (true, "1205", -1). Zero is (false, "", 0).
// ok is false when the exponent does not fit an int.
func decimalParts(s string) (neg bool, digits string, exp int, ok bool) {
	neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant := s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return false, "", 0, false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits = strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return false, "", 0, true
	}
	if len(frac) > 0 && exp < math.MinInt+len(frac) {
		return false, "", 0, false
	}
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	if zeros := len(digits) - len(trimmed); zeros > 0 {
		if exp > math.MaxInt-zeros {
			return false, "", 0, false
		}
		exp += zeros
	}
	return neg, trimmed, exp, true
}

// canonicalNumber returns n in one form for all spellings of its value: a
// float64 where that is exact (1, 1.0 and 1e0 alike), otherwise its
// significant digits and exponent ("10e699" and "1e700" alike), or n as
// written when its exponent is beyond an int.
func canonicalNumber(n json.Number) any {
	if f, ok := exactFloat(n); ok {
		return f
	}
	neg, digits, exp, ok := decimalParts(string(n))
	if !ok {
		return n
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return json.Number(sign + digits + "e" + strconv.Itoa(exp))
}
