package builtin

import (
	"math"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func FuzzEvalExpr(f *testing.F) {
	for _, seed := range []string{
		"1 + 2 * 3", "-2 ^ 2 ** 3", "round(x, 2) % 3", "max(1, min(2, 3), sqrt(4))", "((1)", "1e308 * 10",
		"2pi", ".5.", "atan2(y, x)", "---+-1", strings.Repeat("(", 120) + "1", "1/0", "log2(0)", "\x00", "é",
	} {
		f.Add(seed)
	}
	vars := map[string]float64{"x": 1.25, "y": -3}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		v, err := evalExpr(src, vars)
		// Evaluation is linear in the length of the expression, itself
		// bounded: it can never take long.
		assert.Less(t, time.Since(start), time.Second)
		if err != nil {
			assert.NotEmpty(t, err.Error())
			return
		}
		assert.False(t, math.IsNaN(v) || math.IsInf(v, 0), "%q gives %v", src, v)
	})
}

func FuzzCodecRoundTrip(f *testing.F) {
	for _, seed := range []string{"", "hello, world", "a b&c=d/é?#", "<a href=\"x\">&amp;</a>", "\x00\xff", "%zz", "aGVsbG8=", "☕ 🚀"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range codecs {
			// Decoding anything fails cleanly or gives bytes.
			_, _ = c.decode(s)
			if !utf8.ValidString(s) {
				// Texts reach the tools as JSON strings: always UTF-8.
				continue
			}
			decoded, err := c.decode(c.encode([]byte(s)))
			require.NoError(t, err, c.name)
			assert.Equal(t, s, string(decoded), c.name)
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, seed := range []struct{ time, zone string }{
		{"2024-03-10T14:30:00Z", "UTC"}, {"2024-03-10 14:30", "Europe/Paris"}, {"1710081000.5", "+05:30"},
		{"now", "Local"}, {"Sun, 10 Mar 2024 14:30:00 GMT", "-0800"}, {"9999-12-31", "America/New_York"}, {"", "../etc"},
	} {
		f.Add(seed.time, seed.zone)
	}
	f.Fuzz(func(t *testing.T, s, zone string) {
		loc, err := loadZone(zone)
		if err != nil {
			return
		}
		tm, err := parseTime(s, loc, func() time.Time { return time.Unix(1710081000, 0) })
		if err != nil {
			return
		}
		info, err := describeTime(tm, zone, "")
		require.NoError(t, err)
		assert.NotEmpty(t, info.ISO)
		end := addCalendar(tm, 1, 1, 1)
		span := calendarDiff(tm, end)
		assert.GreaterOrEqual(t, span.Years*12+span.Months, 13, "%v to %v", tm, end)
	})
}

func FuzzDecodeJSONText(f *testing.F) {
	for _, seed := range []string{`{"a": [1, 2.5e3, "x"]}`, `12345678901234567890`, `{} {}`, `{"a": }`, `[`, ` null `, "\"\xff\""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := decodeJSONText(s)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "inputText is not valid JSON: "), err.Error())
			return
		}
		// A decoded document is a valid query input.
		code, err := compileQuery(".", nil)
		require.NoError(t, err)
		out, ok := code.Run(v).Next()
		require.True(t, ok)
		_, isErr := out.(error)
		assert.False(t, isErr, "%v", out)
	})
}

func FuzzAllowList(f *testing.F) {
	f.Add("*.example.com", "https://api.example.com/x")
	f.Add("127.0.0.1", "http://127.0.0.1:8080/")
	f.Add("[::1]:8080", "http://[::1]:8080/")
	f.Add("internal:10.0.0.0/8:*", "http://10.2.3.4:5432/")
	f.Add("169.254.169.254", "http://169.254.169.254/latest/meta-data/")
	f.Add("exa mple.com", "http://user@exa%20mple.com/")
	f.Fuzz(func(t *testing.T, entry, rawURL string) {
		e, err := parseAllowEntry(entry)
		if err != nil {
			return
		}
		// An entry is valid as it is shown.
		again, err := parseAllowEntry(e.display)
		if e.internal {
			again, err = parseAllowEntry(internalPrefix + e.display)
		}
		require.NoError(t, err, "display %q", e.display)
		assert.Equal(t, e, again)
		if e.prefix.IsValid() && !e.internal {
			for _, ll := range linkLocal {
				assert.False(t, e.prefix.Overlaps(ll), "a link-local range needs internal:")
			}
		}
		a := &allowList{entries: []allowEntry{e}}
		u, err := url.Parse(rawURL)
		if err != nil {
			return
		}
		if a.check(u) == nil {
			// What passes is an http(s) URL of an allowed host and port.
			assert.True(t, u.Scheme == "http" || u.Scheme == "https")
			assert.True(t, e.matchesHost(normalizeHost(u.Hostname())))
			assert.True(t, e.allowsPort(portOf(u)))
		}
	})
}
