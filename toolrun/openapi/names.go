package openapi

import (
	"strings"
	"unicode"

	"github.com/metatools-go/metatools/toolmodel"
)

// sanitizeName turns s into a valid tool name ([toolmodel.ValidateName]):
// every run of other bytes than ASCII letters, digits, '_', '.' and '-'
// becomes one '_', leading and trailing '_' go, and the result is cut to
// [toolmodel.MaxNameLen] bytes. It returns "" when nothing is left.
func sanitizeName(s string) string {
	var b strings.Builder
	pendingSep := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !validByte(c) {
			pendingSep = true
			continue
		}
		if pendingSep && b.Len() > 0 {
			b.WriteByte('_')
		}
		pendingSep = false
		b.WriteByte(c)
	}
	name := strings.Trim(b.String(), "_")
	if len(name) > toolmodel.MaxNameLen {
		name = strings.TrimRight(name[:toolmodel.MaxNameLen], "_")
	}
	return name
}

func validByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// derivedName names an operation without an operationId after its method
// and path: GET /pets/{petId}/photos is "get_pets_by_petId_photos".
func derivedName(method, path string) string {
	parts := []string{strings.ToLower(method)}
	for _, segment := range strings.Split(path, "/") {
		if segment == "" {
			continue
		}
		if name, ok := strings.CutPrefix(segment, "{"); ok {
			segment = "by_" + strings.TrimSuffix(name, "}")
		}
		parts = append(parts, segment)
	}
	return sanitizeName(strings.Join(parts, "_"))
}

// upperSnake returns s in upper snake case, the form of environment
// variable names: "tracker" and "bearerAuth" give "TRACKER_BEARER_AUTH".
func upperSnake(parts ...string) string {
	var b strings.Builder
	for _, part := range parts {
		prevLower := false
		for _, r := range part {
			switch {
			case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
				if unicode.IsUpper(r) && prevLower {
					b.WriteByte('_')
				}
				b.WriteRune(unicode.ToUpper(r))
				prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
			default:
				b.WriteByte('_')
				prevLower = false
			}
		}
		b.WriteByte('_')
	}
	var out strings.Builder
	for _, field := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == '_' }) {
		if out.Len() > 0 {
			out.WriteByte('_')
		}
		out.WriteString(field)
	}
	return out.String()
}
