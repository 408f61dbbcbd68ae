package toolmodel

import (
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
)

// maxValidationDepth bounds how deeply validation may nest: the number of
// schemas applied one inside another, through references, applicators
// such as allOf, and descents into the instance. jsonschema-go validates
// recursively, without a depth limit, and a goroutine that overflows its
// stack takes the whole process down; it also wraps its error once per
// level, so the cost of an error grows with the square of the depth.
const maxValidationDepth = 1000

// schemaGraph is the graph of the schemas of one document as jsonschema-go
// validates them: its references are resolved as jsonschema-go resolves
// them (same base URIs, anchors and JSON Pointers, over the decoded
// *jsonschema.Schema rather than the raw JSON, so that keys matched
// without regard to case and draft-07 rules are seen alike). An edge is
// "same" when the target applies to the instance the source applies to
// ($ref, allOf, not, if...) and "down" when it applies to a part of it
// (properties, items...).
type schemaGraph struct {
	root    *jsonschema.Schema
	draft7  bool
	info    map[*jsonschema.Schema]*nodeInfo
	uris    map[string]*jsonschema.Schema // base URI -> schema
	dynamic map[string][]*jsonschema.Schema

	// chain is the longest run of schemas applied to one instance
	// location; path the longest run of nested schemas from the root, or
	// 0 when the schema is recursive, so that only the instance bounds it.
	chain, path int
}

type nodeInfo struct {
	ptr     string             // JSON Pointer from the root
	base    *jsonschema.Schema // schema whose URI is this one's base
	uri     *url.URL           // set on base schemas
	anchors map[string]*jsonschema.Schema
	same    []*jsonschema.Schema
	down    []*jsonschema.Schema
}

// fieldRole tells what a subschema field applies to.
type fieldRole int

const (
	roleSame fieldRole = iota // the instance itself
	roleDown                  // a part of the instance
	roleNone                  // nothing: definitions, annotations
)

type schemaField struct {
	index []int
	name  string // JSON name, as in JSON Pointers
	role  fieldRole
}

// schemaFields lists the fields of jsonschema.Schema that hold subschemas.
// A field not known here is taken to apply to the instance itself, the
// cautious choice for loop detection.
var schemaFields = func() []schemaField {
	down := map[string]bool{
		"PrefixItems": true, "Items": true, "ItemsArray": true, "AdditionalItems": true,
		"Contains": true, "UnevaluatedItems": true, "Properties": true,
		"PatternProperties": true, "AdditionalProperties": true,
		"PropertyNames": true, "UnevaluatedProperties": true,
	}
	none := map[string]bool{"Defs": true, "Definitions": true, "ContentSchema": true}
	var out []schemaField
	for _, sf := range reflect.VisibleFields(reflect.TypeFor[jsonschema.Schema]()) {
		switch sf.Type {
		case reflect.TypeFor[*jsonschema.Schema](), reflect.TypeFor[[]*jsonschema.Schema](), reflect.TypeFor[map[string]*jsonschema.Schema]():
		default:
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch sf.Name {
		case "Items", "ItemsArray":
			name = "items"
		case "DependencySchemas":
			name = "dependencies"
		}
		role := roleSame
		if down[sf.Name] {
			role = roleDown
		} else if none[sf.Name] {
			role = roleNone
		}
		out = append(out, schemaField{index: sf.Index, name: name, role: role})
	}
	return out
}()

// eachChild calls f with every direct subschema of s, its field and its
// JSON Pointer segments.
func eachChild(s *jsonschema.Schema, f func(c *jsonschema.Schema, fd schemaField, segs ...string)) {
	v := reflect.ValueOf(s).Elem()
	for _, fd := range schemaFields {
		switch x := v.FieldByIndex(fd.index).Interface().(type) {
		case *jsonschema.Schema:
			if x != nil {
				f(x, fd, fd.name)
			}
		case []*jsonschema.Schema:
			for i, c := range x {
				if c != nil {
					f(c, fd, fd.name, strconv.Itoa(i))
				}
			}
		case map[string]*jsonschema.Schema:
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range x {
					if !yield(k) {
						return
					}
				}
			}) {
				if c := x[k]; c != nil {
					f(c, fd, fd.name, k)
				}
			}
		}
	}
}

var errRefLoop = errors.New("references loop without descending into the instance, so validation would never end")

// newSchemaGraph builds the graph of root and checks that validating
// against it ends: it refuses a schema in which references loop back to a
// schema applied at the same instance location, such as {"$ref": "#"} or
// two $defs referring to each other through allOf (loops through
// "properties", "items" and the like are fine, as each step descends into
// the instance, which is finite), and one whose references chain more than
// maxValidationDepth schemas at one location. It must be called on a
// schema that jsonschema-go resolved without error.
func newSchemaGraph(root *jsonschema.Schema) (*schemaGraph, error) {
	g := &schemaGraph{
		root:    root,
		info:    map[*jsonschema.Schema]*nodeInfo{},
		uris:    map[string]*jsonschema.Schema{},
		dynamic: map[string][]*jsonschema.Schema{},
	}
	switch root.Schema {
	case "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema":
		g.draft7 = true
	}
	if err := g.collect(root); err != nil {
		return nil, err
	}
	for s := range g.info {
		if err := g.link(s); err != nil {
			return nil, err
		}
	}
	if err := g.measure(); err != nil {
		return nil, err
	}
	return g, nil
}

// collect records the JSON Pointer, base URI and anchors of every schema,
// as jsonschema-go's resolveURIs does.
func (g *schemaGraph) collect(root *jsonschema.Schema) error {
	rootURI := &url.URL{}
	g.uris[rootURI.String()] = root
	g.info[root] = &nodeInfo{uri: rootURI}
	onPath := map[*jsonschema.Schema]bool{}
	var walk func(s, base *jsonschema.Schema, ptr string) error
	walk = func(s, base *jsonschema.Schema, ptr string) error {
		if onPath[s] {
			return errors.New("a subschema contains itself")
		}
		info := g.info[s]
		if info == nil {
			info = &nodeInfo{}
			g.info[s] = info
		} else if s != root {
			return nil // shared by two parents: already collected
		}
		info.ptr = ptr
		if s.ID != "" && (!g.draft7 || s.Ref == "") {
			id, err := url.Parse(s.ID)
			if err != nil {
				return err
			}
			if g.draft7 && id.Fragment != "" {
				g.setAnchor(base, strings.TrimPrefix(s.ID, "#"), s)
			} else {
				info.uri = g.info[base].uri.ResolveReference(id)
				g.uris[info.uri.String()] = s
				base = s
			}
		}
		info.base = base
		if !g.draft7 {
			g.setAnchor(base, s.Anchor, s)
			g.setAnchor(base, s.DynamicAnchor, s)
			if s.DynamicAnchor != "" {
				g.dynamic[s.DynamicAnchor] = append(g.dynamic[s.DynamicAnchor], s)
			}
		}
		onPath[s] = true
		defer delete(onPath, s)
		var err error
		eachChild(s, func(c *jsonschema.Schema, _ schemaField, segs ...string) {
			if err == nil {
				err = walk(c, base, ptr+pointerSuffix(segs...))
			}
		})
		return err
	}
	return walk(root, root, "")
}

func (g *schemaGraph) setAnchor(base *jsonschema.Schema, name string, s *jsonschema.Schema) {
	if name == "" {
		return
	}
	bi := g.info[base]
	if bi.anchors == nil {
		bi.anchors = map[string]*jsonschema.Schema{}
	}
	if _, dup := bi.anchors[name]; !dup {
		bi.anchors[name] = s
	}
}

// link computes the edges of s.
func (g *schemaGraph) link(s *jsonschema.Schema) error {
	info := g.info[s]
	eachChild(s, func(c *jsonschema.Schema, fd schemaField, _ ...string) {
		switch fd.role {
		case roleSame:
			info.same = append(info.same, c)
		case roleDown:
			info.down = append(info.down, c)
		}
	})
	if s.Ref != "" {
		target, _, err := g.resolve(s, s.Ref)
		if err != nil {
			return err
		}
		info.same = append(info.same, target)
	}
	if s.DynamicRef != "" {
		target, frag, err := g.resolve(s, s.DynamicRef)
		if err != nil {
			return err
		}
		info.same = append(info.same, target)
		// A dynamic reference may land on any schema with its anchor.
		info.same = append(info.same, g.dynamic[frag]...)
	}
	return nil
}

// resolve returns the schema ref in s refers to, as jsonschema-go's
// resolveRef finds it, and the fragment when it names an anchor. A
// reference it cannot follow is refused rather than left out, since a
// reference left out could hide a loop.
func (g *schemaGraph) resolve(s *jsonschema.Schema, ref string) (*jsonschema.Schema, string, error) {
	fail := func() (*jsonschema.Schema, string, error) {
		return nil, "", errors.Errorf(errors.InvalidArgument, "reference %q cannot be checked for loops", ref)
	}
	u, err := url.Parse(ref)
	if err != nil {
		return fail()
	}
	base := g.info[g.info[s].base]
	if base == nil || base.uri == nil {
		return fail()
	}
	u = base.uri.ResolveReference(u)
	frag := u.Fragment
	doc := *u
	doc.Fragment = ""
	target := g.uris[doc.String()]
	if target == nil {
		return fail()
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		a := g.info[target].anchors[frag]
		if a == nil {
			return fail()
		}
		return a, frag, nil
	}
	if frag == "" {
		return target, "", nil
	}
	cur := target
	segs := strings.Split(frag[1:], "/")
	for i := 0; i < len(segs); i++ {
		f, ok := schemaFieldNamed(cur, unescapePointer(segs[i]))
		if !ok {
			return fail()
		}
		switch x := f.Interface().(type) {
		case *jsonschema.Schema:
			cur = x
		case []*jsonschema.Schema:
			if i++; i == len(segs) {
				return fail()
			}
			n, err := strconv.Atoi(segs[i])
			if err != nil || n < 0 || n >= len(x) || len(segs[i]) > 1 && segs[i][0] == '0' {
				return fail()
			}
			cur = x[n]
		case map[string]*jsonschema.Schema:
			if i++; i == len(segs) {
				return fail()
			}
			cur = x[unescapePointer(segs[i])]
		default:
			return fail()
		}
		if cur == nil || g.info[cur] == nil {
			return fail()
		}
	}
	return cur, "", nil
}

// schemaFieldNamed returns the subschema field of s with the JSON name
// name, as jsonschema-go's JSON Pointers find it.
func schemaFieldNamed(s *jsonschema.Schema, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(s).Elem()
	var found []reflect.Value
	for _, fd := range schemaFields {
		if fd.name == name {
			found = append(found, v.FieldByIndex(fd.index))
		}
	}
	switch {
	case len(found) == 0:
		return reflect.Value{}, false
	case len(found) > 1 && found[0].IsNil(): // "items": Items, else ItemsArray
		return found[1], true
	}
	return found[0], true
}

// measure refuses same-location loops and computes chain and path.
func (g *schemaGraph) measure() error {
	const (
		unseen = iota
		active
		done
	)
	// Same-location edges: loops are refused, chains measured.
	state := map[*jsonschema.Schema]int{}
	chain := map[*jsonschema.Schema]int{}
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		switch state[s] {
		case active:
			return errRefLoop
		case done:
			return nil
		}
		state[s] = active
		longest := 0
		for _, next := range g.info[s].same {
			if err := visit(next); err != nil {
				return err
			}
			longest = max(longest, chain[next])
		}
		state[s] = done
		chain[s] = longest + 1
		g.chain = max(g.chain, chain[s])
		return nil
	}
	for s := range g.info {
		if err := visit(s); err != nil {
			return err
		}
	}
	if g.chain > maxValidationDepth {
		return errors.Errorf(errors.InvalidArgument, "references chain %d schemas at one place, more than %d", g.chain, maxValidationDepth)
	}

	// All edges: a loop here goes down into the instance, which bounds it.
	state = map[*jsonschema.Schema]int{}
	path := map[*jsonschema.Schema]int{}
	recursive := false
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		switch state[s] {
		case active:
			recursive = true
			return
		case done:
			return
		}
		state[s] = active
		longest := 0
		for _, next := range slices.Concat(g.info[s].same, g.info[s].down) {
			if walk(next); recursive {
				return
			}
			longest = max(longest, path[next])
		}
		state[s] = done
		path[s] = longest + 1
	}
	if walk(g.root); !recursive {
		g.path = path[g.root]
	}
	return nil
}

// checkDepth returns an error when validating instance could nest more
// than maxValidationDepth schemas. Each level of the instance costs at
// most chain schemas.
func (g *schemaGraph) checkDepth(instance any) error {
	if g.path > 0 && g.path <= maxValidationDepth {
		return nil
	}
	limit := maxValidationDepth/g.chain - 1 // deepest instance allowed
	if at, ok := depthAtMost(reflect.ValueOf(instance), limit); !ok {
		if len(at) > 64 {
			at = at[:64] + "..."
		}
		return errors.Errorf(errors.Validation, "%s: value nested more than %d levels deep, more than this schema can check", at, limit)
	}
	return nil
}

// depthAtMost reports whether v nests at most limit levels of arrays and
// objects; if not, it returns the path where it goes deeper. It stops
// there, so that it ends even on a value that contains itself.
func depthAtMost(v reflect.Value, limit int) (string, bool) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
	default:
		return "", true
	}
	if v.Len() == 0 {
		return "", true
	}
	if limit <= 0 {
		return "", false
	}
	if v.Kind() == reflect.Map {
		it := v.MapRange()
		for it.Next() {
			if p, ok := depthAtMost(it.Value(), limit-1); !ok {
				return "/" + PointerToken(fmtKey(it.Key())) + p, false
			}
		}
		return "", true
	}
	for i := range v.Len() {
		if p, ok := depthAtMost(v.Index(i), limit-1); !ok {
			return "/" + strconv.Itoa(i) + p, false
		}
	}
	return "", true
}

func fmtKey(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	return "?"
}
