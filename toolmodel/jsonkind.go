package toolmodel

import "fmt"

// JSONKind names the JSON type of a decoded JSON value: "object",
// "array", "string", "number", "boolean" or "null"; a value of another Go
// type is named by its type. Every message of the modules that says what
// a value is, is worded with it.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// JSONKindPhrase is [JSONKind] with its article, for a sentence: "an
// object", "a string", "null".
func JSONKindPhrase(v any) string {
	switch kind := JSONKind(v); kind {
	case "null":
		return kind
	case "object", "array":
		return "an " + kind
	default:
		return "a " + kind
	}
}
