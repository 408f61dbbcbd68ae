package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/toolserver"
)

// This file checks the shape of a YAML configuration against the types
// it is decoded into, before it is decoded, so that every problem is told
// in the file's words: its keys (the yaml names of the fields), its
// values, its lines. go-yaml's own errors name Go types and fields.

var (
	durationType = reflect.TypeFor[Duration]()
	// stdDurationType is the duration of the libraries' limits, which the
	// file writes as Duration is written.
	stdDurationType = reflect.TypeFor[time.Duration]()
	patternsType    = reflect.TypeFor[ToolPatterns]()
	// bearerTokenType is written as the token alone, or as its settings.
	bearerTokenType = reflect.TypeFor[toolserver.BearerToken]()
)

// maxShapeDepth bounds the nesting the check follows, aliases included,
// so that a file of aliases to aliases cannot make it run away.
const maxShapeDepth = 64

// checkShape reports, through add, every place of the tree n whose shape
// does not fit t: unknown or repeated keys, a list where a setting
// expects a string, a word where it expects a number or a duration.
func checkShape(n *yaml.Node, t reflect.Type, at keyPath, add func(Problem)) {
	checkNode(n, t, at, add, 0)
}

func checkNode(n *yaml.Node, t reflect.Type, at keyPath, add func(Problem), depth int) {
	if n == nil || depth > maxShapeDepth {
		return
	}
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			checkNode(c, t, at, add, depth+1)
		}
		return
	}
	place := n // an alias's problem is shown where the alias is written
	for n.Kind == yaml.AliasNode {
		if n.Alias == nil || depth > maxShapeDepth {
			return
		}
		n, depth = n.Alias, depth+1
	}
	bad := func(format string, args ...any) {
		add(Problem{Line: place.Line, Column: place.Column, Path: at.String(), Message: fmt.Sprintf(format, args...), at: at})
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // the setting keeps its default
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case durationType, stdDurationType:
		if n.Kind != yaml.ScalarNode {
			bad("expected a duration such as 30s or 1m30s, not %s", describe(n))
		} else if _, err := time.ParseDuration(n.Value); err != nil {
			bad("%q is not a duration such as 30s or 1m30s (units: ms, s, m, h)", n.Value)
		}
		return
	case patternsType:
		checkPatterns(n, bad, at, add)
		return
	case bearerTokenType:
		if n.Kind == yaml.ScalarNode {
			return
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		checkStruct(n, t, at, bad, add, depth)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			bad("expected a list, such as [a, b], not %s", describe(n))
			return
		}
		for i, item := range n.Content {
			checkNode(item, t.Elem(), at.with(i), add, depth+1)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			bad("expected a mapping of names to values, not %s", describe(n))
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				add(Problem{Line: k.Line, Column: k.Column, Path: at.String(), Message: "a key must be a string, not " + describe(k), at: at})
				continue
			}
			if first, dup := seen[k.Value]; dup {
				add(Problem{Line: k.Line, Column: k.Column, Path: at.String(),
					Message: fmt.Sprintf("key %q is written twice (first at line %d)", k.Value, first), at: at})
				continue
			}
			seen[k.Value] = k.Line
			checkNode(v, t.Elem(), at.with(k.Value), add, depth+1)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			bad("expected a string, not %s", describe(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			bad("%s is not true or false", describe(n))
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.Kind != yaml.ScalarNode {
			bad("expected a number, not %s", describe(n))
			return
		}
		switch n.ShortTag() {
		case "!!int":
			var v int64
			if err := n.Decode(&v); err != nil || (t.Kind() == reflect.Int32 && (v > math.MaxInt32 || v < math.MinInt32)) ||
				(t.Kind() == reflect.Int && strconv.IntSize == 32 && (v > math.MaxInt32 || v < math.MinInt32)) {
				bad("%q is too large a number", n.Value)
			}
		case "!!float":
			bad("%q is not a whole number", n.Value)
		default:
			bad("%q is not a number", n.Value)
		}
	}
}

// checkStruct checks a mapping of the settings of struct t.
func checkStruct(n *yaml.Node, t reflect.Type, at keyPath, bad func(string, ...any), add func(Problem), depth int) {
	if n.Kind != yaml.MappingNode {
		if len(at) == 0 {
			bad("a configuration is a mapping of settings (%s), not %s", strings.Join(yamlKeys(t), ", "), describe(n))
		} else {
			bad("expected a mapping of settings (%s), not %s", strings.Join(yamlKeys(t), ", "), describe(n))
		}
		return
	}
	known := yamlKeys(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
			// A merge ("<<: *defaults") brings in the keys of another
			// mapping, or of a list of them.
			merged := v
			for merged.Kind == yaml.AliasNode && merged.Alias != nil {
				merged = merged.Alias
			}
			if merged.Kind == yaml.SequenceNode {
				for _, m := range merged.Content {
					checkNode(m, t, at, add, depth+1)
				}
			} else {
				checkNode(v, t, at, add, depth+1)
			}
			continue
		}
		keyProblem := func(msg string) {
			add(Problem{Line: k.Line, Column: k.Column, Path: at.String(), Message: msg, at: at})
		}
		if k.Kind != yaml.ScalarNode {
			keyProblem("a key must be a word, not " + describe(k))
			continue
		}
		field, ok := fieldByKey(t, k.Value)
		if !ok {
			keyProblem(unknownKey(k.Value, known))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			keyProblem(fmt.Sprintf("key %q is written twice (first at line %d)", k.Value, first))
			continue
		}
		seen[k.Value] = k.Line
		checkNode(v, field.Type, at.with(k.Value), add, depth+1)
	}
}

// checkPatterns checks the forms of [ToolPatterns]: a list of patterns,
// one pattern, or a boolean.
func checkPatterns(n *yaml.Node, bad func(string, ...any), at keyPath, add func(Problem)) {
	switch n.Kind {
	case yaml.ScalarNode:
		return
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null" {
				add(Problem{Line: item.Line, Column: item.Column, Path: at.with(i).String(),
					Message: "a tool pattern is a string, such as get_*, not " + describe(item), at: at.with(i)})
			}
		}
	default:
		bad("expected true, false, a tool pattern or a list of them, not %s", describe(n))
	}
}

// describe names what a node is, for "expected X, not Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	default:
		return "nothing"
	}
}

// yamlKeys returns the keys of struct t, in the order of its fields, those
// of an inlined struct in its place.
func yamlKeys(t reflect.Type) []string {
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if inlined(f) {
			keys = append(keys, yamlKeys(f.Type)...)
		} else if k := yamlKey(f); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// fieldByKey returns the field of struct t written key in the file, in t
// or a struct it inlines.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if inlined(f) {
			if g, ok := fieldByKey(f.Type, key); ok {
				return g, true
			}
		} else if yamlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// inlined reports a struct field whose settings the file writes among its
// parent's (`yaml:",inline"`).
func inlined(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return f.Type.Kind() == reflect.Struct && slices.Contains(strings.Split(opts, ","), "inline")
}

// yamlKey returns the key of a field in the file, or "" for a field the
// file does not write.
func yamlKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name)
	}
	return name
}
