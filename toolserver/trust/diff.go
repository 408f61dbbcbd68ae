package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
)

// Change is one difference between two versions of an item.
type Change struct {
	// Field is the changed field: "title", "description", "uriTemplate",
	// "mimeType", or a JSON path into "annotations", "arguments",
	// "inputSchema" or "outputSchema" ("inputSchema.properties.note",
	// "inputSchema.required[1]").
	Field string `json:"field"`
	// Old and New are the values: the text itself for the text fields,
	// canonical JSON for the paths; "" for a value that is absent.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// Diff returns the changes from old to cur, field by field, text fields
// first, then the JSON paths that differ in annotations, arguments and
// schemas (an object key present on one side only is one change holding
// the whole subtree). A nil old means "never approved": every field of
// cur is a change.
func Diff(old, cur *Item) []Change {
	if old == nil {
		old = &Item{}
	}
	var out []Change
	for _, f := range [...]struct {
		field    string
		old, cur string
	}{
		{"name", old.Name, cur.Name}, {"title", old.Title, cur.Title}, {"description", old.Description, cur.Description},
		{"uriTemplate", old.URITemplate, cur.URITemplate}, {"mimeType", old.MIMEType, cur.MIMEType},
	} {
		if f.old != f.cur {
			out = append(out, Change{Field: f.field, Old: f.old, New: f.cur})
		}
	}
	var oldArgs, newArgs json.RawMessage
	if len(old.Arguments) > 0 {
		oldArgs, _ = json.Marshal(old.Arguments) // plain structs always marshal
	}
	if len(cur.Arguments) > 0 {
		newArgs, _ = json.Marshal(cur.Arguments)
	}
	for _, f := range [...]struct {
		field    string
		old, cur json.RawMessage
	}{
		{"annotations", old.Annotations, cur.Annotations}, {"arguments", oldArgs, newArgs},
		{"inputSchema", old.InputSchema, cur.InputSchema}, {"outputSchema", old.OutputSchema, cur.OutputSchema},
	} {
		out = diffJSON(out, f.field, jsonValue(f.old), jsonValue(f.cur))
	}
	return out
}

// absent stands for a value on one side only.
type absentValue struct{}

var absent any = absentValue{}

func jsonValue(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return absent
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return "invalid JSON: " + string(raw)
	}
	return v
}

func diffJSON(out []Change, path string, a, b any) []Change {
	am, aObj := a.(map[string]any)
	bm, bObj := b.(map[string]any)
	if aObj && bObj {
		keys := sortedKeys(am)
		for _, k := range sortedKeys(bm) {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			av, ok := am[k]
			if !ok {
				av = absent
			}
			bv, ok := bm[k]
			if !ok {
				bv = absent
			}
			out = diffJSON(out, path+"."+k, av, bv)
		}
		return out
	}
	as, aArr := a.([]any)
	bs, bArr := b.([]any)
	if aArr && bArr {
		for i := 0; i < max(len(as), len(bs)); i++ {
			av, bv := absent, absent
			if i < len(as) {
				av = as[i]
			}
			if i < len(bs) {
				bv = bs[i]
			}
			out = diffJSON(out, path+"["+strconv.Itoa(i)+"]", av, bv)
		}
		return out
	}
	ac, bc := canonicalValue(a), canonicalValue(b)
	if ac != bc {
		out = append(out, Change{Field: path, Old: ac, New: bc})
	}
	return out
}

func canonicalValue(v any) string {
	if v == absent {
		return ""
	}
	var buf bytes.Buffer
	writeCanonical(&buf, v)
	return buf.String()
}

// FormatChanges writes changes for people: one line per change of a
// one-line value ("title: "old" → "new""), a line diff under the field
// for multi-line texts, and every character that is not safely printable
// escaped as in [Finding.Excerpt].
func FormatChanges(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		if strings.Contains(c.Old, "\n") || strings.Contains(c.New, "\n") {
			fmt.Fprintf(&b, "%s:\n", c.Field)
			for _, l := range lineDiff(splitLines(c.Old), splitLines(c.New)) {
				fmt.Fprintf(&b, "  %c %s\n", l.op, printable(l.text))
			}
			continue
		}
		switch {
		case c.Old == "":
			fmt.Fprintf(&b, "%s: added %s\n", c.Field, quoteValue(c.New))
		case c.New == "":
			fmt.Fprintf(&b, "%s: removed %s\n", c.Field, quoteValue(c.Old))
		default:
			fmt.Fprintf(&b, "%s: %s → %s\n", c.Field, quoteValue(c.Old), quoteValue(c.New))
		}
	}
	return b.String()
}

func printable(s string) string { return excerptAll(s) }

// excerptAll escapes s like an excerpt, without shortening it.
func excerptAll(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		n := min(len(s), maxExcerpt)
		for n < len(s) && !isRuneStart(s[n]) {
			n++
		}
		b.WriteString(excerpt(s, 0, n))
		s = s[n:]
	}
	return b.String()
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

func quoteValue(s string) string {
	return `"` + strings.ReplaceAll(excerptAll(s), `"`, `\"`) + `"`
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

type diffLine struct {
	op   byte // ' ', '-' or '+'
	text string
}

// maxLineDiffCells bounds the work of a line diff (old lines × new
// lines); beyond it the diff is every old line removed, every new one
// added.
const maxLineDiffCells = 1 << 20

// lineDiff returns a line diff of a and b by longest common subsequence,
// after the common prefix and suffix are set aside.
func lineDiff(a, b []string) []diffLine {
	var head, tail []diffLine
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		head = append(head, diffLine{' ', a[0]})
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		tail = append([]diffLine{{' ', a[len(a)-1]}}, tail...)
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	out := head
	if len(a)*len(b) > maxLineDiffCells {
		for _, l := range a {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, diffLine{'+', l})
		}
		return append(out, tail...)
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	n, m := len(a), len(b)
	lcs := make([]int, (n+1)*(m+1))
	at := func(i, j int) *int { return &lcs[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i++
			j++
		case i < n && (j == m || *at(i+1, j) >= *at(i, j+1)):
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	return append(out, tail...)
}

// decodeJSON decodes one JSON value with numbers kept as json.Number.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// writeCanonical writes a decoded JSON value in the canonical form of
// [Canonical].
func writeCanonical(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		buf.WriteByte('{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			writeCanonical(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, v)
	case json.Number:
		buf.WriteString(canonicalNumber(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	default: // nil
		buf.WriteString("null")
	}
}
