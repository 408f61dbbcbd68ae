package grpcexec

import (
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// schemaMode says which side of a call a schema describes: what protojson
// accepts in a request is broader than what it writes in a response.
type schemaMode int

const (
	// inputMode describes arguments: unknown fields refused, 64-bit
	// integers as numbers or decimal strings, enums by name.
	inputMode schemaMode = iota
	// outputMode describes results as protojson writes them: 64-bit
	// integers as strings, enums by name (or number for a value the
	// descriptor does not know), NaN and infinities as strings, and
	// every field without presence always there.
	outputMode
)

// maxInlineDepth is how deep message schemas nest inside one another
// before the deeper ones move to $defs.
const maxInlineDepth = 8

// messageSchema returns the JSON Schema of md's JSON form, as protojson
// maps it with proto field names:
//
//   - scalars: bool → boolean; string → string; bytes → base64 string;
//     32-bit integers → integer; 64-bit integers → integer or decimal
//     string in input, decimal string in output; float and double →
//     number (and "NaN", "Infinity", "-Infinity" in output); enums →
//     string enum of value names (or an integer in output);
//   - repeated → array; map → object whose additionalProperties are the
//     values (integer and bool keys are constrained by propertyNames);
//   - well-known types in their JSON form: Timestamp → date-time string,
//     Duration → "1.5s" string, FieldMask → string, Struct → object,
//     ListValue → array, Value → any value, Any → object with "@type",
//     wrappers → their wrapped scalar, NullValue → null;
//   - other messages → object, with additionalProperties false in input;
//     a message referenced by one field only is written in place, one
//     referenced by several fields or by itself (recursive types), or
//     nested deeper than maxInlineDepth, once under $defs, so that the
//     schema grows linearly with the number of fields;
//   - members of a oneof say so in their description: at most one may be
//     set (protojson refuses more);
//   - descriptions come from the comments of the .proto file when the
//     server's descriptors carry them.
//
// The result is a fresh map holding only JSON values.
func messageSchema(md protoreflect.MessageDescriptor, mode schemaMode) map[string]any {
	b := &schemaBuilder{mode: mode, root: md.FullName(), refs: countRefs(md), defs: map[string]any{}}
	s := b.message(md, 0, true)
	for len(b.pending) > 0 {
		next := b.pending[0]
		b.pending = b.pending[1:]
		b.defs[string(next.FullName())] = b.message(next, 0, true)
	}
	if len(b.defs) > 0 {
		s["$defs"] = b.defs
	}
	return s
}

// schemaBuilder builds one schema; it is used once.
type schemaBuilder struct {
	mode    schemaMode
	root    protoreflect.FullName
	refs    map[protoreflect.FullName]int
	defs    map[string]any
	pending []protoreflect.MessageDescriptor
}

// countRefs returns, for each message reachable from md, how many fields
// of the messages reachable from md refer to it (a map field refers to
// the message of its values).
func countRefs(md protoreflect.MessageDescriptor) map[protoreflect.FullName]int {
	refs := map[protoreflect.FullName]int{}
	seen := map[protoreflect.FullName]bool{}
	var visit func(md protoreflect.MessageDescriptor)
	visit = func(md protoreflect.MessageDescriptor) {
		if seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		fields := md.Fields()
		for i := range fields.Len() {
			if target := fieldMessage(fields.Get(i)); target != nil {
				refs[target.FullName()]++
				visit(target)
			}
		}
	}
	visit(md)
	return refs
}

// fieldMessage returns the message a field holds: its message, or the
// message of its map values; nil for scalars.
func fieldMessage(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	return fd.Message()
}

// message returns the schema of a message: the well-known type's, the
// object itself when inline, or a $ref to its definition.
func (b *schemaBuilder) message(md protoreflect.MessageDescriptor, depth int, inline bool) map[string]any {
	if s, ok := b.wellKnown(md); ok {
		return s
	}
	name := md.FullName()
	if !inline && (name == b.root || b.refs[name] > 1 || depth > maxInlineDepth) {
		key := string(name)
		if _, ok := b.defs[key]; !ok {
			b.defs[key] = nil // reserved; built by messageSchema
			b.pending = append(b.pending, md)
		}
		return map[string]any{"$ref": "#/$defs/" + key}
	}
	s := map[string]any{"type": "object"}
	props := map[string]any{}
	var required []string
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := fd.TextName()
		props[name] = b.field(fd, depth)
		if fd.Cardinality() == protoreflect.Required || (b.mode == outputMode && !fd.HasPresence()) {
			required = append(required, name)
		}
	}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	if b.mode == inputMode {
		s["additionalProperties"] = false
	}
	if c := comment(md); c != "" {
		s["description"] = c
	}
	return s
}

// field returns the schema of a field, with its comment and the rule of
// its oneof as description.
func (b *schemaBuilder) field(fd protoreflect.FieldDescriptor, depth int) map[string]any {
	var s map[string]any
	switch {
	case fd.IsMap():
		s = map[string]any{"type": "object", "additionalProperties": b.value(fd.MapValue(), depth)}
		switch fd.MapKey().Kind() {
		case protoreflect.BoolKind:
			s["propertyNames"] = map[string]any{"enum": []any{"true", "false"}}
		case protoreflect.StringKind:
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			s["propertyNames"] = map[string]any{"pattern": "^[0-9]+$"}
		default:
			s["propertyNames"] = map[string]any{"pattern": "^-?[0-9]+$"}
		}
	case fd.IsList():
		s = map[string]any{"type": "array", "items": b.value(fd, depth)}
	default:
		s = b.value(fd, depth)
	}
	desc := comment(fd)
	if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
		var members []string
		for i := range o.Fields().Len() {
			members = append(members, o.Fields().Get(i).TextName())
		}
		rule := "Part of oneof " + string(o.Name()) + ": set at most one of " + strings.Join(members, ", ") + "."
		desc = strings.TrimSpace(desc + "\n\n" + rule)
	}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// value returns the schema of one value of a field: the field itself when
// singular, an element when repeated, a value when a map's.
func (b *schemaBuilder) value(fd protoreflect.FieldDescriptor, depth int) map[string]any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{"type": "boolean"}
	case protoreflect.StringKind:
		return map[string]any{"type": "string"}
	case protoreflect.BytesKind:
		return map[string]any{"type": "string", "contentEncoding": "base64"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return map[string]any{"type": "integer", "format": "int32"}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return map[string]any{"type": "integer", "format": "uint32", "minimum": 0}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if b.mode == outputMode {
			return map[string]any{"type": "string", "format": "int64"}
		}
		return map[string]any{"type": []any{"integer", "string"}, "format": "int64", "pattern": "^-?[0-9]+$"}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if b.mode == outputMode {
			return map[string]any{"type": "string", "format": "uint64"}
		}
		return map[string]any{"type": []any{"integer", "string"}, "format": "uint64", "minimum": 0, "pattern": "^[0-9]+$"}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if b.mode == outputMode {
			return map[string]any{"anyOf": []any{
				map[string]any{"type": "number"},
				map[string]any{"enum": []any{"NaN", "Infinity", "-Infinity"}},
			}}
		}
		return map[string]any{"type": "number"}
	case protoreflect.EnumKind:
		return b.enum(fd.Enum())
	default: // MessageKind, GroupKind
		return b.message(fd.Message(), depth+1, false)
	}
}

func (b *schemaBuilder) enum(ed protoreflect.EnumDescriptor) map[string]any {
	if ed.FullName() == "google.protobuf.NullValue" {
		return map[string]any{"type": "null"}
	}
	var names []any
	values := ed.Values()
	for i := range values.Len() {
		names = append(names, string(values.Get(i).Name()))
	}
	s := map[string]any{"type": "string", "enum": names}
	if c := comment(ed); c != "" {
		s["description"] = c
	}
	if b.mode == outputMode {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "integer"}}}
	}
	return s
}

// wellKnown returns the schema of a well-known type with a JSON form of
// its own.
func (b *schemaBuilder) wellKnown(md protoreflect.MessageDescriptor) (map[string]any, bool) {
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return map[string]any{"type": "string", "format": "date-time"}, true
	case "google.protobuf.Duration":
		return map[string]any{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]{1,9})?s$`}, true
	case "google.protobuf.FieldMask":
		return map[string]any{"type": "string", "description": "Comma-separated field paths in lowerCamelCase."}, true
	case "google.protobuf.Struct":
		return map[string]any{"type": "object"}, true
	case "google.protobuf.ListValue":
		return map[string]any{"type": "array"}, true
	case "google.protobuf.Value":
		return map[string]any{}, true
	case "google.protobuf.Any":
		return map[string]any{
			"type":       "object",
			"properties": map[string]any{"@type": map[string]any{"type": "string"}},
			"required":   []any{"@type"},
		}, true
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue",
		"google.protobuf.Int64Value", "google.protobuf.UInt64Value",
		"google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		if fd := md.Fields().ByName("value"); fd != nil && !fd.IsList() && !fd.IsMap() && fd.Message() == nil {
			return b.value(fd, 0), true
		}
	}
	return nil, false
}

// jsonIsObject reports whether md's JSON form is an object, as a tool's
// arguments and an MCP structured result must be.
func jsonIsObject(md protoreflect.MessageDescriptor) bool {
	switch md.FullName() {
	case "google.protobuf.Struct", "google.protobuf.Any":
		return true
	}
	_, special := (&schemaBuilder{}).wellKnown(md)
	return !special
}

// comment returns the comment of a descriptor in the .proto file, when
// the descriptor carries its source: the leading comment, else the
// trailing one, with each line trimmed.
func comment(d protoreflect.Descriptor) string {
	loc := d.ParentFile().SourceLocations().ByDescriptor(d)
	text := loc.LeadingComments
	if strings.TrimSpace(text) == "" {
		text = loc.TrailingComments
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimSpace(line)
	}
	return strings.Join(lines, "\n")
}
