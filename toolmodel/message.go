package toolmodel

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of a validation message (see [readable]).
const (
	// maxQuoted is the length, in bytes, past which a value quoted in a
	// message is cut.
	maxQuoted = 64
	// maxMessage is the length, in bytes, past which a message is cut.
	maxMessage = 1000
)

// Messages of jsonschema-go for the numeric keywords: the value is a
// big.Rat ("-1/1") and the bound is written with %f ("0.000000").
var (
	comparison = regexp.MustCompile(`((?:exclusiveM|m)(?:inimum|aximum)): (-?\d+/\d+) (is (?:less|greater) than(?: or equal to)?) (-?\d+\.\d+)`)
	multiple   = regexp.MustCompile(`multipleOf: (-?\d+/\d+) is not a multiple of (-?\d+\.\d+)`)
)

// readable makes a validation message of jsonschema-go fit for a person
// or a model to read. The validator repeats the value that failed, and an
// argument of 200 KB made a message of 200 KB: each value quoted in the
// message is cut to maxQuoted bytes and the whole to maxMessage bytes.
// The numbers of the numeric keywords are written as decimals: "minimum:
// -1 is less than 0", not "minimum: -1/1 is less than 0.000000".
func readable(msg string) string {
	msg = comparison.ReplaceAllStringFunc(msg, func(m string) string {
		p := comparison.FindStringSubmatch(m)
		return p[1] + ": " + decimal(p[2]) + " " + p[3] + " " + trimZeros(p[4])
	})
	msg = multiple.ReplaceAllStringFunc(msg, func(m string) string {
		p := multiple.FindStringSubmatch(m)
		return "multipleOf: " + decimal(p[1]) + " is not a multiple of " + trimZeros(p[2])
	})
	msg = cutQuoted(msg)
	if len(msg) > maxMessage {
		msg = CutUTF8(msg, maxMessage) + "…"
	}
	return msg
}

// decimal writes a big.Rat's "a/b" as a decimal number.
func decimal(rat string) string {
	r, ok := new(big.Rat).SetString(rat)
	if !ok {
		return rat
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// trimZeros drops the trailing zeros of a number written with %f, and
// its point when nothing follows it.
func trimZeros(f string) string {
	f = strings.TrimRight(f, "0")
	return strings.TrimSuffix(f, ".")
}

// cutQuoted cuts each double-quoted string of msg (as %q writes them)
// that is longer than maxQuoted bytes, keeping its start and its quotes.
func cutQuoted(msg string) string {
	var b strings.Builder
	for {
		start := strings.IndexByte(msg, '"')
		if start < 0 {
			break
		}
		end := closingQuote(msg, start+1)
		if end < 0 {
			break
		}
		b.WriteString(msg[:start+1])
		inner := msg[start+1 : end]
		if len(inner) > maxQuoted {
			inner = cutQuotedText(inner) + "…"
		}
		b.WriteString(inner)
		b.WriteByte('"')
		msg = msg[end+1:]
	}
	b.WriteString(msg)
	return b.String()
}

// cutQuotedText returns the first maxQuoted bytes at most of the text of
// a quoted string, without splitting a character or an escape sequence,
// which would read as another character.
func cutQuotedText(s string) string {
	end := 0
	for i := 0; i < len(s); {
		var n int
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'x':
				n = 4
			case 'u':
				n = 6
			case 'U':
				n = 10
			default:
				n = 2
			}
		} else {
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		if i+n > maxQuoted {
			break
		}
		i += n
		end = i
	}
	return s[:end]
}

// closingQuote returns the index of the quote that closes a string
// starting at i (just after its opening quote), or -1.
func closingQuote(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// CutUTF8 returns the first n bytes of s at most, without splitting a
// UTF-8 sequence: the one cut of text to a size that the modules make.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
