package toolrun

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// PreviousRef is the member of a chain step's argument that refers to a
// part of the previous step's result: an argument value {"$previous":
// "/text"} is replaced by the member "text" of that result. Its value is
// a JSON pointer (RFC 6901); "" is the whole result.
const PreviousRef = "$previous"

// maxListedMembers bounds the member names an error lists.
const maxListedMembers = 20

// pointerTokens parses a JSON pointer (RFC 6901) into its reference
// tokens, unescaped: "" is the whole document, "/a~1b/0" is the tokens
// "a/b" and "0".
func pointerTokens(pointer string) ([]string, error) {
	if pointer == "" {
		return nil, nil
	}
	if pointer[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with \"/\" (\"\" is the whole result)", pointer)
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, tok := range tokens {
		if !strings.Contains(tok, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(tok); j++ {
			if tok[j] != '~' {
				b.WriteByte(tok[j])
				continue
			}
			if j+1 == len(tok) || (tok[j+1] != '0' && tok[j+1] != '1') {
				return nil, fmt.Errorf("JSON pointer %q has a \"~\" not followed by 0 or 1 (write ~0 for \"~\" and ~1 for \"/\")", pointer)
			}
			b.WriteByte("~/"[tok[j+1]-'0'])
			j++
		}
		tokens[i] = b.String()
	}
	return tokens, nil
}

// pointerText returns the JSON pointer of tokens, escaped.
func pointerText(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(toolmodel.PointerToken(tok))
	}
	return b.String()
}

// resolvePointer returns the part of a decoded JSON document that pointer
// selects, or an error saying where it stops and what is there.
func resolvePointer(doc any, pointer string) (any, error) {
	tokens, err := pointerTokens(pointer)
	if err != nil {
		return nil, err
	}
	cur := doc
	for i, tok := range tokens {
		where := "the result"
		if i > 0 {
			where = pointerText(tokens[:i])
		}
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, fmt.Errorf("%s has no member %q (it has %s)", where, tok, memberList(v))
			}
			cur = next
		case []any:
			n, ok := arrayIndex(tok)
			if !ok || n >= len(v) {
				return nil, fmt.Errorf("%s is an array of %d elements: %q is not one of its indexes", where, len(v), tok)
			}
			cur = v[n]
		default:
			return nil, fmt.Errorf("%s is %s, not an object or array: it has no %q", where, toolmodel.JSONKindPhrase(cur), tok)
		}
	}
	return cur, nil
}

// arrayIndex parses an array index token: digits without a leading zero.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' || strings.TrimLeft(tok, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(tok)
	return n, err == nil
}

// memberList names an object's members for an error, sorted and bounded.
func memberList(obj map[string]any) string {
	if len(obj) == 0 {
		return "no members"
	}
	names := slices.Sorted(maps.Keys(obj))
	more := ""
	if len(names) > maxListedMembers {
		more = fmt.Sprintf(" and %d more", len(names)-maxListedMembers)
		names = names[:maxListedMembers]
	}
	return "members " + strings.Join(quoteAll(names), ", ") + more
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// previousRef reports whether v is a reference to the previous result,
// and its pointer.
func previousRef(v any) (string, bool, error) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return "", false, nil
	}
	ref, ok := obj[PreviousRef]
	if !ok {
		return "", false, nil
	}
	pointer, ok := ref.(string)
	if !ok {
		return "", true, fmt.Errorf("the value of %q is %s, not a JSON pointer string", PreviousRef, toolmodel.JSONKindPhrase(ref))
	}
	return pointer, true, nil
}

// hasPreviousRefs reports whether args refer to the previous result
// anywhere.
func hasPreviousRefs(v any) bool {
	if _, ok, _ := previousRef(v); ok {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if hasPreviousRefs(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasPreviousRefs(e) {
				return true
			}
		}
	}
	return false
}

// fillPreviousRefs returns v with every reference to the previous result
// replaced by the part of previous it selects. Maps and slices that hold
// a reference are copied; the caller's are never changed. at is the
// pointer of v in the step's arguments, for errors.
func fillPreviousRefs(v any, previous any, at string) (any, error) {
	pointer, isRef, err := previousRef(v)
	where := "argument " + at
	if at == "" {
		where = "the arguments"
	}
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "%s: %w", where, err)
	}
	if isRef {
		part, err := resolvePointer(previous, pointer)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "%s: %s %q: %w", where, PreviousRef, pointer, err)
		}
		return part, nil
	}
	switch x := v.(type) {
	case map[string]any:
		if !hasPreviousRefs(x) {
			return x, nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if out[k], err = fillPreviousRefs(e, previous, at+"/"+toolmodel.PointerToken(k)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		if !hasPreviousRefs(x) {
			return x, nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			if out[i], err = fillPreviousRefs(e, previous, at+"/"+strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}
