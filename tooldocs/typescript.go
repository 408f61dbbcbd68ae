package tooldocs

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// DefaultTypeScriptRoot is the name of the object through which a program
// calls tools, unless [TypeScriptOptions.Root] names another.
const DefaultTypeScriptRoot = "tools"

// reservedNames are the members of the root object that a code-mode
// engine answers itself; see [ReservedNames].
var reservedNames = [...]string{"run", "search", "namespaces", "describe", "examples", "chain", "ns", "log", "then"}

// ReservedNames returns the names a code-mode engine keeps for itself on
// the root object ([TypeScriptOptions.Root], "tools"), so that they do not
// name a namespace or a tool there: its own functions run, search,
// namespaces, describe, examples, chain, ns and log, and then, which is
// undefined on the root and on every namespace object so that awaiting one
// yields it instead of calling a tool.
//
// This is the contract between [TypeScript] and the engines (the engines
// of toolcode/javascript and toolcode/quickjs answer exactly these
// names): a program reaches the tool namespace:name as
// root.<namespace>.<name>(args), and a tool without namespace as
// root.<name>(args), unless the namespace (or the namespace-less tool's
// name) is reserved, or the name of a tool in a namespace is then. Such a
// tool is reached by its ID, root.run("<id>", args), and TypeScript
// declares it so, as an overload of run. The result is a new slice.
func ReservedNames() []string { return slices.Clone(reservedNames[:]) }

// IsReservedName reports whether name is one of [ReservedNames]: a member
// of the root object that is not a namespace or a tool.
func IsReservedName(name string) bool {
	for _, r := range reservedNames {
		if name == r {
			return true
		}
	}
	return false
}

// declaredByID reports whether a program reaches t only by its ID, with
// root.run (see [ReservedNames]).
func declaredByID(t *toolmodel.Tool) bool {
	if t.Namespace == "" {
		return IsReservedName(t.Name)
	}
	return IsReservedName(t.Namespace) || t.Name == "then"
}

// reservedWords are the words a Root cannot be, although they are
// identifiers: `declare const <word>` does not parse (or is an early error
// in strict code, which TypeScript's strict mode applies). They are the
// ReservedWord production of ECMAScript 2025 (§12.7.2, await and yield
// included), the words reserved in strict mode code (§12.7.2 and §13.1.1:
// implements, interface, let, package, private, protected, public,
// static), which TypeScript calls its strict mode reserved words, and
// arguments and eval, which strict code cannot declare (§13.1.1).
var reservedWords = [...]string{
	"await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
	"do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import",
	"in", "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try",
	"typeof", "var", "void", "while", "with", "yield",
	"implements", "interface", "let", "package", "private", "protected", "public", "static",
	"arguments", "eval",
}

// TerseDescriptionLength is the most characters of a property's
// description that [TypeScriptOptions.Terse] keeps.
const TerseDescriptionLength = 80

// TypeScriptOptions tunes the declarations [TypeScript] and
// [Store.TypeScript] render. The zero value asks for the defaults.
type TypeScriptOptions struct {
	// Root is the name of the global object through which a program calls
	// tools; it must be an ASCII identifier, and not a reserved word of
	// JavaScript or TypeScript ("class", "delete", "interface", ...). The
	// default is [DefaultTypeScriptRoot]. The object's type is an interface named
	// after it ("tools" → "Tools"), which a code-mode engine may extend by
	// declaration merging with helpers of its own (say, a generic run).
	Root string
	// Brief cuts each tool's description to its first sentence (see
	// [Summarize]), for declarations of many tools at once. Property
	// descriptions are kept whole: they say how to build the arguments.
	Brief bool
	// Terse cuts the descriptions of the argument and result types (of
	// properties and named types) to their first sentence, at most
	// [TerseDescriptionLength] characters, and leaves out their
	// constraint tags (@default, @minimum, ...): the shape of many tools
	// at once, such as a search's results, for a fraction of the size. A
	// tool's full declaration says the rest.
	Terse bool
}

// Declarer renders TypeScript declarations of tools, so that a language
// model writing a program (code mode) sees typed calls. A [Store]
// implements it; a consumer holding a [Describer] discovers it with a type
// assertion.
//
// TypeScript returns the declarations of the tools with the given IDs, as
// [TypeScript] renders them. Implementations are safe for concurrent use
// and honour ctx where they block. Errors: an unknown tool yields code
// [errors.NotFound]; a malformed ID or an invalid option yields
// [errors.InvalidArgument].
type Declarer interface {
	TypeScript(ctx context.Context, ids []string, opts TypeScriptOptions) (string, error)
}

var _ Declarer = (*Store)(nil)

// TypeScript implements [Declarer] for the tools the Store documents,
// registered or found through its resolver. Repeated IDs are rendered
// once. Errors are those of [Store.Describe], and those of [TypeScript].
func (s *Store) TypeScript(ctx context.Context, ids []string, opts TypeScriptOptions) (string, error) {
	const op = "tooldocs.TypeScript"
	tools := make([]toolmodel.Tool, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		v, err := s.lookup(ctx, op, id)
		if err != nil {
			return "", err
		}
		if v.entry != nil && v.entry.reg.Tool != nil {
			tools = append(tools, *v.entry.reg.Tool)
		} else {
			tools = append(tools, v.tool)
		}
	}
	out, err := TypeScript(tools, opts)
	if err != nil {
		return "", errors.WithOp(op, err)
	}
	return out, nil
}

// TypeScript renders TypeScript declarations for tools, so that a program
// can call each one as
//
//	await tools.<namespace>.<name>(args)
//
// (or tools["12306-mcp"]["get-current-date"](args) for names that are not
// identifiers; a tool without a namespace is a method of the root object
// itself), and each tool that the names a code-mode engine keeps for
// itself would hide ([ReservedNames]: a namespace or a namespace-less tool
// named run, ns, then, ..., or a tool named then) as
//
//	await tools.run("<id>", args)
//
// The output is an ambient declaration file:
//
//   - an interface for the root object ("Tools"), with one member per
//     namespace holding that namespace's tools as methods, each with its
//     description as JSDoc, one overload of run per tool reached by its
//     ID (`run(id: "run:echo", args: RunEchoArgs): Promise<unknown>;`),
//     and a `declare const tools: Tools;`;
//   - per tool, an interface (or a type alias) for its arguments, named
//     after the tool ("github:create_issue" → GithubCreateIssueArgs), and
//     one for its result when the tool has an output schema; a tool
//     without one returns Promise<unknown>. The argument is optional when
//     the tool requires none; a tool that takes no arguments at all is
//     declared with `args?: {}`;
//   - a named type for every local $ref target ("#/$defs/Pet" → Pet),
//     shared between tools whose definitions are identical and contain no
//     reference, and otherwise prefixed with the tool's name.
//
// JSON Schema maps onto TypeScript this way: string, number and integer
// (both number), boolean and null as themselves; enum and const as unions
// of literal types; a type array, OpenAPI's nullable, anyOf and oneOf as
// unions; allOf and a $ref with sibling keywords as intersections; objects
// as object literal types with "?" on optional properties (quoted when the
// name is not an identifier), additionalProperties and patternProperties
// as index signatures; arrays as T[], and prefixItems (or draft-07 items
// arrays) as tuples. Recursive schemas become recursive named types; a
// reference cycle that TypeScript could not express (a type that is a
// union with itself) becomes unknown there. What has no TypeScript form
// (not, if/then/else, external or anchor references, a schema that does
// not decode) becomes unknown, and false becomes never. Descriptions
// become JSDoc, and constraints JSDoc tags: @default, @format, @integer,
// @minimum, @maximum, @exclusiveMinimum, @exclusiveMaximum, @multipleOf,
// @minLength, @maxLength, @pattern, @minItems, @maxItems, @uniqueItems,
// @minProperties, @maxProperties and @deprecated.
//
// The output is deterministic: tools and namespaces are sorted, properties
// keep the order of the schema document (alphabetical when it is not
// known), and type names are allocated in that order, with a number added
// when two would collide. Rendering does a bounded amount of work per tool,
// so that no schema makes it explode; what is past the bound is unknown.
//
// Errors, of code [errors.InvalidArgument]: a tool whose name or namespace
// breaks the name rules ([toolmodel.ValidateName]), two tools with the
// same ID, or a Root that is not an identifier or is a reserved word. A
// schema never causes an error.
func TypeScript(tools []toolmodel.Tool, opts TypeScriptOptions) (string, error) {
	const op = "tooldocs.TypeScript"
	root := cmp.Or(opts.Root, DefaultTypeScriptRoot)
	// A reserved word is an IdentifierName but not an Identifier
	// (ECMAScript §12.7.2).
	if !isIdentifier(root) || slices.Contains(reservedWords[:], root) {
		e := errors.Errorf(errors.InvalidArgument, "root %q is not an identifier", root)
		e.Op = op
		return "", e
	}
	sorted := make([]*toolmodel.Tool, len(tools))
	for i := range tools {
		sorted[i] = &tools[i]
	}
	slices.SortFunc(sorted, func(a, b *toolmodel.Tool) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for i, t := range sorted {
		if err := checkToolNames(t); err != nil {
			return "", errors.WithOp(op, err).With("", t.ID(), "")
		}
		if i > 0 && sorted[i-1].ID() == t.ID() {
			e := errors.Errorf(errors.InvalidArgument, "tool %q is listed twice", t.ID())
			e.Op, e.ToolID = op, t.ID()
			return "", e
		}
	}

	w := &tsWriter{names: newNameSet(), shared: map[string]string{}, bodies: map[string]string{}, terse: opts.Terse}
	// A root without a letter or digit ("$", "_") names the type Root.
	rootType := w.names.take(cmp.Or(pascal(root), "Root"))
	// Name every tool's types before any definition takes a name, so that
	// a tool's own names do not depend on the other tools' definitions.
	decls := make([]tsToolDecl, len(sorted))
	for i, t := range sorted {
		prefix := pascal(t.Name)
		if t.Namespace != "" {
			prefix = pascal(t.Namespace) + prefix
		}
		decls[i] = tsToolDecl{tool: t, prefix: prefix}
		decls[i].args = w.names.take(prefix + "Args")
		if t.OutputSchema != nil {
			decls[i].result = w.names.take(prefix + "Result")
		}
	}
	var types strings.Builder
	for i := range decls {
		w.renderTool(&decls[i], &types)
	}

	var b strings.Builder
	b.WriteString("/** The tools a program calls, as `await " + root + ".<namespace>.<name>(args)`")
	if slices.ContainsFunc(sorted, declaredByID) {
		b.WriteString(", or `await " + root + ".run(id, args)` for those declared with their ID")
	}
	b.WriteString(". */\n")
	b.WriteString("interface " + rootType + " {\n")
	w.writeRoot(&b, decls, opts)
	b.WriteString("}\n")
	b.WriteString("declare const " + root + ": " + rootType + ";\n")
	b.WriteString(types.String())
	return b.String(), nil
}

// checkToolNames checks the name and namespace a tool is called by.
func checkToolNames(t *toolmodel.Tool) error {
	if err := toolmodel.ValidateName(t.Name); err != nil {
		return errors.Errorf(errors.InvalidArgument, "tool name %q: %w", t.Name, err)
	}
	if t.Namespace != "" {
		if err := toolmodel.ValidateName(t.Namespace); err != nil {
			return errors.Errorf(errors.InvalidArgument, "tool namespace %q: %w", t.Namespace, err)
		}
	}
	return nil
}

// Rendering limits: inline types nest at most maxTSDepth levels, and each
// schema document (a tool's input or output schema) gets maxTSSteps
// schemas and values to render, its named definitions included; past
// either, a type is unknown.
const (
	maxTSDepth = 32
	maxTSSteps = 20_000
)

// tsToolDecl is one tool being declared.
type tsToolDecl struct {
	tool         *toolmodel.Tool
	prefix       string // the tool's name as a type name, for its definitions
	args         string // the arguments type's name
	result       string // the result type's name, or "" without an output schema
	argsType     string // the type of the args parameter
	argsOptional bool
	resultType   string // the type the method's promise resolves to
}

// tsWriter holds what is shared by every tool of one rendering.
type tsWriter struct {
	names nameSet
	// shared maps the JSON of a definition without references to the
	// type name it was given, so that tools generated from one API
	// document share its definitions.
	shared map[string]string
	// bodies maps the rendering of a definition to its type name.
	bodies map[string]string
	// terse leaves out the JSDoc of types (TypeScriptOptions.Terse).
	terse bool
}

// renderTool writes the declarations of one tool's types to out and
// records how its method is typed.
func (w *tsWriter) renderTool(d *tsToolDecl, out *strings.Builder) {
	d.argsType, d.argsOptional = "{ [key: string]: unknown }", true
	if in, err := decodeLenient(d.tool.InputSchema); err == nil {
		if takesNothing(in) {
			d.argsType = "{}"
		} else {
			r := w.newRenderer(in, d.tool.InputSchema, d.prefix, d.args)
			r.declareAll(out)
			d.argsType, d.argsOptional = d.args, len(in.Required) == 0 && in.Ref == "" &&
				len(in.AllOf) == 0 && len(in.AnyOf) == 0 && len(in.OneOf) == 0
		}
	}
	d.resultType = "unknown"
	if d.result != "" {
		if outSchema, err := decodeLenient(d.tool.OutputSchema); err == nil {
			r := w.newRenderer(outSchema, d.tool.OutputSchema, d.prefix, d.result)
			r.declareAll(out)
			d.resultType = d.result
		}
	}
}

// takesNothing reports whether an input schema is an object without any
// property: the tool takes no arguments.
func takesNothing(s *jsonschema.Schema) bool {
	return len(s.Properties) == 0 && len(s.PatternProperties) == 0 && len(s.Required) == 0 &&
		(s.AdditionalProperties == nil || isFalseSchema(s.AdditionalProperties) || isEmptySchema(s.AdditionalProperties)) &&
		s.Ref == "" && s.DynamicRef == "" && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 &&
		(s.Type == "" || s.Type == "object") && len(s.Types) == 0 && s.Enum == nil && s.Const == nil
}

// writeRoot writes the members of the root interface: the tools without
// namespace as methods, and one object type per namespace. A tool without
// namespace whose name is also a namespace becomes that namespace's call
// signature. The tools reached by their ID come last, as overloads of
// run, in the order of decls.
func (w *tsWriter) writeRoot(b *strings.Builder, decls []tsToolDecl, opts TypeScriptOptions) {
	type member struct {
		key   string
		tools []*tsToolDecl
		call  *tsToolDecl // a namespace-less tool named like the namespace
	}
	var members []*member
	byKey := map[string]*member{}
	get := func(key string) *member {
		if m := byKey[key]; m != nil {
			return m
		}
		m := &member{key: key}
		byKey[key] = m
		members = append(members, m)
		return m
	}
	var byID []*tsToolDecl
	for i := range decls {
		d := &decls[i]
		switch {
		case declaredByID(d.tool):
			byID = append(byID, d)
		case d.tool.Namespace != "":
			m := get(d.tool.Namespace)
			m.tools = append(m.tools, d)
		default:
			get(d.tool.Name).call = d
		}
	}
	slices.SortFunc(members, func(a, b *member) int { return cmp.Compare(a.key, b.key) })
	for _, m := range members {
		if len(m.tools) == 0 {
			writeMethod(b, "  ", propertyName(m.key), "", m.call, opts)
			continue
		}
		b.WriteString("  " + propertyName(m.key) + ": {\n")
		if m.call != nil {
			writeMethod(b, "    ", "", "", m.call, opts)
		}
		for _, d := range m.tools {
			writeMethod(b, "    ", propertyName(d.tool.Name), "", d, opts)
		}
		b.WriteString("  };\n")
	}
	for _, d := range byID {
		writeMethod(b, "  ", "run", d.tool.ID(), d, opts)
	}
}

// writeMethod writes a tool's JSDoc and method signature; an empty name
// writes a call signature, and an id a first parameter whose type is that
// ID (an overload of run).
func writeMethod(b *strings.Builder, indent, name, id string, d *tsToolDecl, opts TypeScriptOptions) {
	desc := d.tool.Description
	if strings.TrimSpace(desc) == "" {
		desc = d.tool.Title
		if desc == "" && d.tool.Annotations != nil {
			desc = d.tool.Annotations.Title
		}
	}
	if opts.Brief {
		desc = Summarize(desc, DefaultSummaryLength)
	}
	writeJSDoc(b, indent, docText(desc), nil)
	b.WriteString(indent + name + "(")
	if id != "" {
		b.WriteString("id: " + quote(id) + ", ")
	}
	b.WriteString("args")
	if d.argsOptional {
		b.WriteByte('?')
	}
	b.WriteString(": " + d.argsType + "): Promise<" + d.resultType + ">;\n")
}

// tsRenderer renders the types of one schema document: its root, as the
// type named rootName, and the targets of its local references.
type tsRenderer struct {
	w        *tsWriter
	root     *jsonschema.Schema
	source   any // the schema as given, to resolve pointers into unknown keywords
	rootName string
	prefix   string
	steps    int

	named   map[*jsonschema.Schema]string
	bases   map[*jsonschema.Schema]string // the name each target asked for
	queue   []*jsonschema.Schema          // named schemas to declare, in order
	current *jsonschema.Schema            // the named schema being declared

	doc   any                           // source decoded as plain JSON, once needed
	extra map[string]*jsonschema.Schema // targets inside unknown keywords, by reference
}

func (w *tsWriter) newRenderer(root *jsonschema.Schema, source any, prefix, rootName string) *tsRenderer {
	return &tsRenderer{
		w: w, root: root, source: source, rootName: rootName, prefix: prefix, steps: maxTSSteps,
		named: map[*jsonschema.Schema]string{root: rootName},
		bases: map[*jsonschema.Schema]string{},
		queue: []*jsonschema.Schema{root},
	}
}

// resolve returns the target of a local reference, or nil. Besides the
// keywords that hold schemas, it follows pointers into keywords JSON
// Schema does not define, such as OpenAPI's "#/components/schemas/Pet"
// in a schema cut from an API document.
func (r *tsRenderer) resolve(ref string) *jsonschema.Schema {
	if t := lookupRef(r.root, ref); t != nil {
		return t
	}
	if t, ok := r.extra[ref]; ok {
		return t
	}
	if r.extra == nil {
		r.extra = map[string]*jsonschema.Schema{}
	}
	r.extra[ref] = nil
	frag, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	if r.doc == nil {
		raw, err := toolmodel.SchemaJSON(r.source)
		if err != nil || json.Unmarshal(raw, &r.doc) != nil {
			return nil
		}
	}
	node := r.doc
	for seg := range strings.SplitSeq(frag, "/") {
		if unescaped, err := url.PathUnescape(seg); err == nil {
			seg = unescaped
		}
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch x := node.(type) {
		case map[string]any:
			node = x[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			node = x[i]
		default:
			return nil
		}
	}
	raw, err := json.Marshal(node)
	if err != nil || node == nil {
		return nil
	}
	t, err := decodeLenient(json.RawMessage(raw))
	if err != nil {
		return nil
	}
	r.extra[ref] = t
	return t
}

// declareAll writes the root's declaration and those of every reference
// target met on the way.
func (r *tsRenderer) declareAll(out *strings.Builder) {
	for len(r.queue) > 0 {
		s := r.queue[0]
		r.queue = r.queue[1:]
		r.current = s
		name := r.named[s]
		t := r.expr(s, 0, true, "")
		var doc strings.Builder
		r.w.writeTypeDoc(&doc, "", s)
		out.WriteByte('\n')
		out.WriteString(doc.String())
		if base, ok := r.bases[s]; ok {
			// A definition repeated in another tool's document, whose
			// references make it unshareable by content, is shared by
			// its rendering.
			key := base + "\x00" + doc.String() + t.text
			if same, ok := r.w.bodies[key]; ok {
				out.WriteString("type " + name + " = " + same + ";\n")
				continue
			}
			r.w.bodies[key] = name
		}
		if t.object {
			out.WriteString("interface " + name + " " + t.text + "\n")
		} else {
			out.WriteString("type " + name + " = " + t.text + ";\n")
		}
	}
}

// Operator precedence of a type expression, to know when to parenthesize.
const (
	precUnion = iota
	precIntersection
	precPrimary
)

// tsExpr is a rendered type.
type tsExpr struct {
	text   string
	prec   int
	object bool // an object literal type, which may be an interface body
}

var (
	tsUnknown = tsExpr{text: "unknown", prec: precPrimary}
	tsNever   = tsExpr{text: "never", prec: precPrimary}
)

func primary(text string) tsExpr { return tsExpr{text: text, prec: precPrimary} }

// wrap returns e's text, parenthesized when its precedence is below min.
func (e tsExpr) wrap(minPrec int) string {
	if e.prec < minPrec {
		return "(" + e.text + ")"
	}
	return e.text
}

// expr renders s. bare reports that no object or array lies between s and
// the named type being declared, where a reference back to that type
// would make it circular; indent is the indentation of the line the type
// starts on.
func (r *tsRenderer) expr(s *jsonschema.Schema, depth int, bare bool, indent string) tsExpr {
	if s == nil {
		return tsUnknown
	}
	if r.steps--; r.steps < 0 || depth > maxTSDepth {
		return tsUnknown
	}
	if isFalseSchema(s) {
		return tsNever
	}
	var parts []tsExpr
	if s.Ref != "" {
		parts = append(parts, r.ref(s.Ref, bare))
	}
	parts = append(parts, r.own(s, depth, bare, indent))
	for _, p := range s.AllOf {
		parts = append(parts, r.expr(p, depth+1, bare, indent))
	}
	if len(s.AnyOf) > 0 {
		parts = append(parts, r.alternatives(s.AnyOf, depth, bare, indent))
	}
	if len(s.OneOf) > 0 {
		parts = append(parts, r.alternatives(s.OneOf, depth, bare, indent))
	}
	return intersection(parts)
}

func (r *tsRenderer) alternatives(alts []*jsonschema.Schema, depth int, bare bool, indent string) tsExpr {
	parts := make([]tsExpr, len(alts))
	for i, a := range alts {
		parts[i] = r.expr(a, depth+1, bare, indent)
	}
	return union(parts)
}

// ref renders a reference: the name of its target's type, declared once.
func (r *tsRenderer) ref(ref string, bare bool) tsExpr {
	target := r.resolve(ref)
	if target == nil {
		return tsUnknown
	}
	if bare && r.bareReaches(target, r.current, map[*jsonschema.Schema]bool{}) {
		return tsUnknown // the type would be a union or intersection with itself
	}
	if name, ok := r.named[target]; ok {
		return primary(name)
	}
	name := r.nameFor(ref, target)
	r.named[target] = name
	return primary(name)
}

// nameFor names the type of a reference target, reusing the name of an
// identical definition without references declared for another tool.
func (r *tsRenderer) nameFor(ref string, target *jsonschema.Schema) string {
	base := "Type"
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		seg := strings.NewReplacer("~1", "/", "~0", "~").Replace(ref[i+1:])
		if p := pascal(seg); p != "" && p[0] != '_' {
			base = p
		}
	}
	var key string
	if raw, err := json.Marshal(target); err == nil && !bytes.Contains(raw, []byte(`"$ref"`)) && !bytes.Contains(raw, []byte(`"$dynamicRef"`)) {
		key = base + "\x00" + string(raw)
		if name, ok := r.w.shared[key]; ok {
			return name // declared by the tool that first met it
		}
	}
	var name string
	if !r.w.names.used[base] {
		name = r.w.names.take(base)
	} else {
		name = r.w.names.take(r.prefix + base)
	}
	if key != "" {
		r.w.shared[key] = name
	}
	r.bases[target] = base
	r.queue = append(r.queue, target)
	return name
}

// bareReaches reports whether target is reachable from s through
// references and alternatives only, without an object or array between.
func (r *tsRenderer) bareReaches(s, target *jsonschema.Schema, seen map[*jsonschema.Schema]bool) bool {
	if s == nil || seen[s] || len(seen) > maxTSSteps {
		return false
	}
	if s == target {
		return true
	}
	seen[s] = true
	if s.Ref != "" && r.bareReaches(r.resolve(s.Ref), target, seen) {
		return true
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, p := range list {
			if r.bareReaches(p, target, seen) {
				return true
			}
		}
	}
	return false
}

// own renders what s itself says of its values: const, enum, or types.
func (r *tsRenderer) own(s *jsonschema.Schema, depth int, bare bool, indent string) tsExpr {
	nullable, _ := s.Extra["nullable"].(bool)
	var parts []tsExpr
	switch {
	case s.Const != nil:
		parts = append(parts, r.literal(*s.Const, depth))
	case s.Enum != nil:
		if len(s.Enum) == 0 {
			return tsNever
		}
		for _, v := range s.Enum {
			parts = append(parts, r.literal(v, depth))
		}
	default:
		types := s.Types
		if s.Type != "" {
			types = []string{s.Type}
		}
		if len(types) == 0 {
			switch {
			case s.Properties != nil || s.AdditionalProperties != nil || s.PatternProperties != nil:
				types = []string{"object"}
			case s.Items != nil || s.ItemsArray != nil || s.PrefixItems != nil:
				types = []string{"array"}
			default:
				return tsUnknown
			}
		}
		for _, t := range types {
			parts = append(parts, r.typeExpr(s, t, depth, indent))
		}
	}
	if nullable {
		parts = append(parts, primary("null"))
	}
	return union(parts)
}

// typeExpr renders one JSON type of s.
func (r *tsRenderer) typeExpr(s *jsonschema.Schema, t string, depth int, indent string) tsExpr {
	switch t {
	case "string", "boolean", "null":
		return primary(t)
	case "number", "integer":
		return primary("number")
	case "array":
		return r.array(s, depth, indent)
	case "object":
		return r.object(s, depth, indent)
	}
	return tsUnknown
}

// array renders an array type, or a tuple for prefixItems (draft-07: an
// items array).
func (r *tsRenderer) array(s *jsonschema.Schema, depth int, indent string) tsExpr {
	prefix, rest := s.PrefixItems, s.Items
	if s.ItemsArray != nil {
		prefix, rest = s.ItemsArray, s.AdditionalItems
	}
	if len(prefix) == 0 {
		switch {
		case rest == nil:
			return primary("unknown[]")
		case isFalseSchema(rest):
			return primary("[]")
		}
		return primary(r.expr(rest, depth+1, false, indent).wrap(precPrimary) + "[]")
	}
	elems := make([]string, 0, len(prefix)+1)
	for i, p := range prefix {
		e := r.expr(p, depth+1, false, indent)
		if s.MinItems == nil || i >= *s.MinItems {
			elems = append(elems, e.wrap(precPrimary)+"?")
		} else {
			elems = append(elems, e.text)
		}
	}
	switch {
	case rest != nil && !isFalseSchema(rest):
		elems = append(elems, "..."+r.expr(rest, depth+1, false, indent).wrap(precPrimary)+"[]")
	case rest == nil && (s.MaxItems == nil || *s.MaxItems > len(prefix)):
		elems = append(elems, "...unknown[]")
	}
	return primary("[" + strings.Join(elems, ", ") + "]")
}

// object renders an object type: a literal type with its properties, and
// an index signature for additionalProperties and patternProperties. An
// index signature beside properties is intersected with them, since
// TypeScript requires every property to fit an index signature in the
// same literal.
func (r *tsRenderer) object(s *jsonschema.Schema, depth int, indent string) tsExpr {
	inner := indent + "  "
	var body strings.Builder
	required := map[string]bool{}
	for _, name := range s.Required {
		required[name] = true
	}
	members := 0
	for _, name := range propertyOrder(s) {
		p := s.Properties[name]
		t := r.expr(p, depth+1, false, inner)
		if p != nil {
			r.w.writeTypeDoc(&body, inner, p)
		}
		body.WriteString(inner + propertyName(name))
		if !required[name] {
			body.WriteByte('?')
		}
		body.WriteString(": " + t.text + ";\n")
		members++
	}
	listed := map[string]bool{}
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; ok || listed[name] {
			continue
		}
		listed[name] = true
		body.WriteString(inner + propertyName(name) + ": unknown;\n")
		members++
	}

	var index []tsExpr
	patterns := make([]string, 0, len(s.PatternProperties))
	for p := range s.PatternProperties {
		patterns = append(patterns, p)
	}
	slices.Sort(patterns)
	for _, p := range patterns {
		index = append(index, r.expr(s.PatternProperties[p], depth+1, false, inner))
	}
	extra := s.AdditionalProperties
	switch {
	case extra != nil && isFalseSchema(extra):
	case extra != nil && !isEmptySchema(extra):
		index = append(index, r.expr(extra, depth+1, false, inner))
	case members == 0 && len(index) == 0:
		index = append(index, tsUnknown) // any object
	}

	if members == 0 {
		if len(index) == 0 { // additionalProperties: false and nothing else
			return primary("{ [key: string]: never }")
		}
		return primary("{ [key: string]: " + union(index).text + " }")
	}
	literal := tsExpr{text: "{\n" + body.String() + indent + "}", prec: precPrimary, object: true}
	if len(index) == 0 {
		return literal
	}
	return tsExpr{text: literal.text + " & { [key: string]: " + union(index).text + " }", prec: precIntersection}
}

// literal renders a JSON value as a literal type.
func (r *tsRenderer) literal(v any, depth int) tsExpr {
	if r.steps--; r.steps < 0 || depth > maxTSDepth {
		return tsUnknown
	}
	switch x := v.(type) {
	case nil:
		return primary("null")
	case bool:
		return primary(strconv.FormatBool(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return primary("number")
		}
		return primary(strconv.FormatFloat(x, 'g', -1, 64))
	case string:
		return primary(quote(x))
	case []any:
		elems := make([]string, len(x))
		for i, e := range x {
			elems[i] = r.literal(e, depth+1).text
		}
		return primary("[" + strings.Join(elems, ", ") + "]")
	case map[string]any:
		if len(x) == 0 {
			return primary("{ [key: string]: never }")
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		members := make([]string, len(keys))
		for i, k := range keys {
			members[i] = propertyName(k) + ": " + r.literal(x[k], depth+1).text
		}
		return primary("{ " + strings.Join(members, "; ") + " }")
	}
	// A value of another Go type, in a schema built in code: read it as
	// the JSON it stands for.
	raw, err := json.Marshal(v)
	if err != nil {
		return tsUnknown
	}
	var decoded any
	if json.Unmarshal(raw, &decoded) != nil || reflect.TypeOf(decoded) == reflect.TypeOf(v) {
		return tsUnknown
	}
	return r.literal(decoded, depth+1)
}

// union joins alternatives: unknown absorbs the others, never drops out,
// and repeated members appear once.
func union(parts []tsExpr) tsExpr {
	var kept []tsExpr
	for _, p := range parts {
		switch p.text {
		case "unknown":
			return tsUnknown
		case "never":
			continue
		}
		if !slices.ContainsFunc(kept, func(k tsExpr) bool { return k.text == p.text }) {
			kept = append(kept, p)
		}
	}
	switch len(kept) {
	case 0:
		return tsNever
	case 1:
		return kept[0]
	}
	texts := make([]string, len(kept))
	for i, p := range kept {
		texts[i] = p.text // a union inside a union needs no parentheses
	}
	return tsExpr{text: strings.Join(texts, " | "), prec: precUnion}
}

// intersection joins parts that all hold: unknown drops out, never absorbs
// the others, and repeated members appear once.
func intersection(parts []tsExpr) tsExpr {
	var kept []tsExpr
	for _, p := range parts {
		switch p.text {
		case "unknown":
			continue
		case "never":
			return tsNever
		}
		if !slices.ContainsFunc(kept, func(k tsExpr) bool { return k.text == p.text }) {
			kept = append(kept, p)
		}
	}
	switch len(kept) {
	case 0:
		return tsUnknown
	case 1:
		return kept[0]
	}
	texts := make([]string, len(kept))
	for i, p := range kept {
		texts[i] = p.wrap(precPrimary)
	}
	return tsExpr{text: strings.Join(texts, " & "), prec: precIntersection}
}

// isFalseSchema reports whether s is the schema false, which accepts
// nothing (decoded as {"not": {}}).
func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && isEmptySchema(s.Not) && reflect.DeepEqual(*s, jsonschema.Schema{Not: s.Not})
}

// isEmptySchema reports whether s is the schema true (or {}), which
// accepts anything.
func isEmptySchema(s *jsonschema.Schema) bool {
	return s != nil && reflect.DeepEqual(*s, jsonschema.Schema{})
}

// schemaTags returns the JSDoc tags for the constraints of s that its type
// does not state.
func schemaTags(s *jsonschema.Schema) []string {
	var tags []string
	add := func(tag, value string) { tags = append(tags, "@"+tag+" "+value) }
	num := func(tag string, v *float64) {
		if v != nil {
			add(tag, strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	count := func(tag string, v *int) {
		if v != nil {
			add(tag, strconv.Itoa(*v))
		}
	}
	if s.Deprecated {
		tags = append(tags, "@deprecated")
	}
	if len(s.Default) > 0 {
		add("default", oneLine(string(compactJSON(s.Default))))
	}
	if s.Format != "" {
		add("format", oneLine(s.Format))
	}
	if s.Type == "integer" || (slices.Contains(s.Types, "integer") && !slices.Contains(s.Types, "number")) {
		tags = append(tags, "@integer")
	}
	num("minimum", s.Minimum)
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("maximum", s.Maximum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	num("multipleOf", s.MultipleOf)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	if s.Pattern != "" {
		add("pattern", oneLine(s.Pattern))
	}
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	if s.UniqueItems {
		tags = append(tags, "@uniqueItems")
	}
	count("minProperties", s.MinProperties)
	count("maxProperties", s.MaxProperties)
	return tags
}

// docText returns a description as lines for a JSDoc comment: line breaks
// normalized, trailing spaces and surrounding blank lines dropped, runs of
// blank lines collapsed, and the indentation the lines after the first
// share removed (descriptions taken from indented docstrings carry it).
func docText(s string) []string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var out []string
	blank := false
	for l := range strings.SplitSeq(s, "\n") {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	if len(out) > 1 {
		common := -1
		for _, l := range out[1:] {
			if l == "" {
				continue
			}
			n := len(l) - len(strings.TrimLeft(l, " \t"))
			if common < 0 || n < common {
				common = n
			}
		}
		for i := 1; i < len(out) && common > 0; i++ {
			if out[i] != "" {
				out[i] = out[i][common:]
			}
		}
		out[0] = strings.TrimLeft(out[0], " \t")
	}
	return out
}

// writeTypeDoc writes the JSDoc of a type or property: its description
// and constraint tags, or in terse mode its description's first sentence.
func (w *tsWriter) writeTypeDoc(b *strings.Builder, indent string, s *jsonschema.Schema) {
	if w.terse {
		writeJSDoc(b, indent, docText(Summarize(s.Description, TerseDescriptionLength)), nil)
		return
	}
	writeJSDoc(b, indent, docText(s.Description), schemaTags(s))
}

// writeJSDoc writes a JSDoc comment with the given lines and tags, on one
// line when it has one, and nothing when it has none. "*/" in the text is
// escaped so that it cannot end the comment.
func writeJSDoc(b *strings.Builder, indent string, lines, tags []string) {
	all := slices.Concat(lines, tags)
	if len(all) == 0 {
		return
	}
	esc := strings.NewReplacer("*/", `*\/`)
	if len(all) == 1 {
		b.WriteString(indent + "/** " + esc.Replace(all[0]) + " */\n")
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range all {
		if l == "" {
			b.WriteString(indent + " *\n")
			continue
		}
		b.WriteString(indent + " * " + esc.Replace(l) + "\n")
	}
	b.WriteString(indent + " */\n")
}

// propertyName returns name as a property name: as is when it is an
// identifier, quoted otherwise.
func propertyName(name string) string {
	if isIdentifier(name) {
		return name
	}
	return quote(name)
}

// quote returns s as a string literal, valid in JavaScript and TypeScript.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return `""`
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// isIdentifier reports whether s is an ASCII JavaScript identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// pascal turns a name into a type name: its ASCII letter and digit runs,
// each capitalized, joined ("create-issue" → "CreateIssue"); "_" is
// prepended when it would start with a digit. It returns "" when s has no
// ASCII letter or digit.
func pascal(s string) string {
	var b strings.Builder
	start := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			if start {
				c -= 'a' - 'A'
			}
		case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		default:
			start = true
			continue
		}
		if b.Len() == 0 && '0' <= c && c <= '9' {
			b.WriteByte('_')
		}
		b.WriteByte(c)
		start = false
	}
	return b.String()
}

// nameSet allocates unique type names.
type nameSet struct{ used map[string]bool }

// tsReserved are global type names of TypeScript's standard library that
// a generated name must not shadow.
var tsReserved = []string{
	"Array", "ArrayLike", "Awaited", "BigInt", "Boolean", "Capitalize", "Date", "Error", "Exclude",
	"Extract", "Function", "InstanceType", "Iterable", "Iterator", "JSON", "Lowercase", "Map", "Math",
	"NonNullable", "Number", "Object", "Omit", "Parameters", "Partial", "Pick", "Promise", "PromiseLike",
	"PropertyKey", "Readonly", "ReadonlyArray", "Record", "RegExp", "Required", "ReturnType", "Set",
	"String", "Symbol", "Uncapitalize", "Uppercase",
}

func newNameSet() nameSet {
	n := nameSet{used: map[string]bool{}}
	for _, r := range tsReserved {
		n.used[r] = true
	}
	return n
}

// take returns base, or base with the smallest number from 2 that makes it
// unused, and marks it used.
func (n nameSet) take(base string) string {
	name := base
	for i := 2; n.used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	n.used[name] = true
	return name
}
