package toolmodel

import "strings"

// pointerEscaper escapes a JSON Pointer reference token (RFC 6901, section
// 3). A Replacer makes one pass, so the "~" written for "/" is never
// escaped again.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// PointerToken returns s escaped as one JSON Pointer reference token (RFC
// 6901), so that a property named "a/b" reads as one step ("/a~1b") and
// not as two. Every JSON Pointer the modules write, in schema references,
// validation errors and paths into results, is built with it.
func PointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s // the common case, without allocating
	}
	return pointerEscaper.Replace(s)
}

// pointerSuffix returns the JSON Pointer segments segs, escaped.
func pointerSuffix(segs ...string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(PointerToken(s))
	}
	return b.String()
}

// unescapePointer returns the property name a JSON Pointer reference
// token stands for. "~1" is replaced first, as RFC 6901 requires, so that
// "~01" reads as "~1".
func unescapePointer(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}
