package toolmodel

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
)

// checkRefCycles rejects a schema in which references can loop back to a
// schema applied at the same instance location, such as
// {"$ref": "#"} or two $defs referring to each other through allOf.
// Validating against such a schema would recurse forever: jsonschema-go
// follows references without a depth limit, and a goroutine that overflows
// its stack takes the whole process down. Loops that go through
// "properties", "items" and the like are fine, as each step descends into
// the instance, which is finite.
func checkRefCycles(raw []byte) error {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return err
	}
	g := &schemaGraph{
		byURI:   map[string]any{},
		anchors: map[string]any{},
		dynamic: map[string][]any{},
		bases:   map[uintptr]*url.URL{},
	}
	g.collect(root, &url.URL{}, true)
	return g.findCycle()
}

// schemaGraph indexes the subschemas of one schema document.
type schemaGraph struct {
	byURI   map[string]any   // "$id" (resolved) -> schema object
	anchors map[string]any   // resolved base + "#" + anchor -> schema object
	dynamic map[string][]any // "$dynamicAnchor" name -> schema objects
	nodes   []map[string]any // every object, in document order
	bases   map[uintptr]*url.URL
}

// nodeID identifies a decoded JSON object: the same map, not an equal one.
func nodeID(m map[string]any) uintptr {
	return uintptr(reflect.ValueOf(m).UnsafePointer())
}

// sameLocation lists the keywords whose subschemas apply to the instance
// the current schema applies to, rather than to a part of it.
var sameLocation = map[string]bool{
	"allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true,
	"dependentSchemas": true, "dependencies": true,
}

// collect records the base URI, $id and anchors of every object in v.
func (g *schemaGraph) collect(v any, base *url.URL, isRoot bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			g.collect(e, base, false)
		}
	case map[string]any:
		if id, ok := x["$id"].(string); ok {
			if u, err := base.Parse(id); err == nil {
				base = u
				g.byURI[withoutFragment(u)] = x
			}
		}
		if isRoot {
			g.byURI[withoutFragment(base)] = x
		}
		g.nodes = append(g.nodes, x)
		g.bases[nodeID(x)] = base
		for _, key := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := x[key].(string); ok {
				g.anchors[withoutFragment(base)+"#"+a] = x
			}
		}
		if a, ok := x["$dynamicAnchor"].(string); ok {
			g.dynamic[a] = append(g.dynamic[a], x)
		}
		for key, child := range x {
			if key != "enum" && key != "const" && key != "default" && key != "examples" {
				g.collect(child, base, false)
			}
		}
	}
}

func withoutFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// edges returns the schema objects that apply at the same instance
// location as node: the targets of its references and its same-location
// applicators.
func (g *schemaGraph) edges(node map[string]any) []map[string]any {
	var out []map[string]any
	add := func(v any) {
		switch x := v.(type) {
		case map[string]any:
			out = append(out, x)
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					out = append(out, m)
				}
			}
		}
	}
	for key, child := range node {
		switch {
		case key == "$ref" || key == "$recursiveRef":
			if ref, ok := child.(string); ok {
				add(g.resolve(node, ref))
			}
		case key == "$dynamicRef":
			if ref, ok := child.(string); ok {
				add(g.resolve(node, ref))
				if _, frag, found := strings.Cut(ref, "#"); found {
					for _, d := range g.dynamic[frag] {
						add(d)
					}
				}
			}
		case key == "dependentSchemas" || key == "dependencies":
			if m, ok := child.(map[string]any); ok {
				for _, dep := range m {
					add(dep)
				}
			}
		case sameLocation[key]:
			add(child)
		}
	}
	return out
}

// resolve returns the object a reference in node points to, or nil.
func (g *schemaGraph) resolve(node map[string]any, ref string) any {
	u, err := g.bases[nodeID(node)].Parse(ref)
	if err != nil {
		return nil
	}
	doc, ok := g.byURI[withoutFragment(u)]
	if !ok {
		return nil
	}
	frag := u.Fragment
	if frag == "" {
		return doc
	}
	if !strings.HasPrefix(frag, "/") {
		return g.anchors[withoutFragment(u)+"#"+frag]
	}
	cur := doc
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			cur = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			cur = x[i]
		default:
			return nil
		}
	}
	return cur
}

// findCycle runs a depth-first search over same-location edges from every
// object of the document.
func (g *schemaGraph) findCycle() error {
	const (
		unseen = iota
		active
		done
	)
	state := map[uintptr]int{}
	var visit func(m map[string]any) error
	visit = func(m map[string]any) error {
		id := nodeID(m)
		switch state[id] {
		case active:
			return errors.New("references loop without descending into the instance, so validation would never end")
		case done:
			return nil
		}
		state[id] = active
		for _, next := range g.edges(m) {
			if err := visit(next); err != nil {
				return err
			}
		}
		state[id] = done
		return nil
	}
	for _, m := range g.nodes {
		if err := visit(m); err != nil {
			return err
		}
	}
	return nil
}
