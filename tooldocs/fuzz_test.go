package tooldocs_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

// FuzzParseDetailLevel parses arbitrary text: it never panics, accepts
// only the three names, rejects the rest with invalid_argument, and every
// accepted level prints back to its canonical name.
func FuzzParseDetailLevel(f *testing.F) {
	for _, s := range []string{"summary", "schema", "full", " Full ", "", "ful", "SUMMARY\n", "DetailLevel(1)", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		level, err := tooldocs.ParseDetailLevel(s)
		if err != nil {
			if !errors.Is(err, errors.ErrInvalidArgument) {
				t.Fatalf("ParseDetailLevel(%q): error %v is not invalid_argument", s, err)
			}
			return
		}
		if !level.Valid() {
			t.Fatalf("ParseDetailLevel(%q) = undefined level %d", s, int(level))
		}
		if name := level.String(); !strings.EqualFold(strings.TrimSpace(s), name) {
			t.Fatalf("ParseDetailLevel(%q) = %s", s, name)
		}
		again, err := tooldocs.ParseDetailLevel(level.String())
		if err != nil || again != level {
			t.Fatalf("level %s does not round-trip: %v, %v", level, again, err)
		}
	})
}

// schemaSeeds are schemas that exercise the derivation's branches.
var schemaSeeds = []string{
	`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"$ref":"#/$defs/B"}},"required":["a","c"],"$defs":{"B":{"type":"array","items":{"$ref":"#/$defs/B"}}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"$ref":"#/definitions/P"}},"definitions":{"P":{"allOf":[{"$ref":"#"}],"anyOf":[{"type":"integer"},{"const":null}]}}}`,
	`{"allOf":[{"$ref":"#/allOf/0"}],"oneOf":[{"$ref":"#/oneOf/0"}],"properties":{"x":{"$ref":"#/properties/x"}}}`,
	`{"properties":{"e":{"enum":[1,"a",null,{"k":[true]}],"default":{"d":1}},"n":{"nullable":true,"minimum":0},"t":{"type":"array","items":[{"type":"string"}]}}}`,
	`{"properties":{"a~b":{"$ref":"#/properties/a~0b"},"c/d":{"$ref":"#/properties/c~1d"},"%":{"$ref":"#/properties/%25"}}}`,
	`true`, `false`, `{}`, `[]`, `null`, `{"type":5}`, `{"properties":[]}`,
}

// FuzzDeriveSchemaInfo derives digests from arbitrary JSON: it never
// panics, fails only with invalid_argument, and what it derives is
// consistent (required names are required parameters) and renders.
func FuzzDeriveSchemaInfo(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := tooldocs.DeriveSchemaInfo(json.RawMessage(data))
		if err != nil {
			if !errors.Is(err, errors.ErrInvalidArgument) {
				t.Fatalf("DeriveSchemaInfo(%s): error %v is not invalid_argument", data, err)
			}
			return
		}
		var required []string
		for _, p := range info.Params {
			if p.Required {
				required = append(required, p.Name)
			}
		}
		if strings.Join(required, "\x00") != strings.Join(info.Required, "\x00") {
			t.Fatalf("Required %q does not match the required params %q", info.Required, required)
		}
		if _, err := json.Marshal(info); err != nil {
			t.Fatalf("SchemaInfo does not marshal: %v", err)
		}
		doc := tooldocs.Doc{Level: tooldocs.LevelSchema, ID: "fuzz", Input: info, Output: info}
		_ = doc.Markdown()
	})
}

// FuzzSignature renders signatures of tools with arbitrary input schemas:
// the signature is one line, starts with the tool's ID and lists every
// parameter, optional ones marked.
func FuzzSignature(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"properties":{"a\nb":{"description":"multi\nline"},"c":{"enum":["x\ny"]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := tooldocs.DeriveSchemaInfo(json.RawMessage(data))
		if err != nil {
			return
		}
		doc := tooldocs.Doc{Level: tooldocs.LevelSchema, ID: "ns:tool", Input: info}
		sig := doc.Signature()
		if !utf8.ValidString(sig) && utf8.Valid(data) {
			t.Fatalf("signature %q is not valid UTF-8", sig)
		}
		if !strings.HasPrefix(sig, "ns:tool(") || !strings.HasSuffix(sig, ")") {
			t.Fatalf("signature %q is not ns:tool(...)", sig)
		}
		for _, p := range info.Params {
			mark := p.Name + ": "
			if !p.Required {
				mark = p.Name + "?: "
			}
			if !strings.Contains(sig, mark) {
				t.Fatalf("signature %q misses parameter %q", sig, mark)
			}
		}
		if strings.Contains(sig, "\n") && !strings.Contains(string(data), `\n`) && !strings.Contains(string(data), "\n") {
			t.Fatalf("signature %q spans lines", sig)
		}
	})
}

// FuzzSummarize cuts arbitrary descriptions: the summary is one line,
// within the limit, and a prefix of the description's words.
func FuzzSummarize(f *testing.F) {
	f.Add("Create an issue. Then more.", 10)
	f.Add("# Title\n\nBody e.g. this. Next", 0)
	f.Add("Überprüfe die Größe", 3)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit %= 500
		got := tooldocs.Summarize(s, limit)
		if strings.ContainsAny(got, "\n\r") {
			t.Fatalf("Summarize(%q) = %q spans lines", s, got)
		}
		if limit > 0 && utf8.RuneCountInString(got) > limit {
			t.Fatalf("Summarize(%q, %d) = %q is too long", s, limit, got)
		}
	})
}

// FuzzEstimateTokens checks the estimator's contract on arbitrary text:
// zero only for text of single spaces, never negative, and never smaller
// for a text than for a prefix of it that ends between runes.
func FuzzEstimateTokens(f *testing.F) {
	f.Add("## tool\n`{\"a\":1}` 天气 🙂", 5)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		n := tooldocs.EstimateTokens(s)
		if n < 0 {
			t.Fatalf("EstimateTokens(%q) = %d", s, n)
		}
		if cut < 0 {
			cut = -cut
		}
		if len(s) > 0 {
			cut %= len(s)
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			prefix := s[:cut]
			if p := tooldocs.EstimateTokens(prefix); p > n {
				t.Fatalf("EstimateTokens(%q) = %d > EstimateTokens(%q) = %d", prefix, p, s, n)
			}
		}
		if strings.Trim(s, " ") != "" && n == 0 {
			t.Fatalf("EstimateTokens(%q) = 0", s)
		}
	})
}

// FuzzTypeScript renders declarations of a tool whose input and output
// schemas are arbitrary bytes: it never fails or panics on a schema, always
// declares the tool's method, and its output, terse or not, is well-formed
// TypeScript.
func FuzzTypeScript(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`))
	f.Add([]byte(`{"properties":{"*/":{"description":"*/ end","enum":["*/",{"*/":1}],"pattern":"*/"}},"x-ext":{"s":{"type":"string"}},"required":["r"]}`))
	f.Add([]byte(`{"prefixItems":[{"type":"string"}],"items":[{"type":"number"}],"minItems":-1,"exclusiveMinimum":true,"required":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tool := toolmodel.Tool{Namespace: "app"}
		tool.Name = "t"
		tool.InputSchema = json.RawMessage(data)
		tool.OutputSchema = json.RawMessage(data)
		out, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{})
		if err != nil {
			t.Fatalf("TypeScript(%s): %v", data, err)
		}
		if !strings.Contains(out, "\n    t(args") {
			t.Fatalf("TypeScript(%s) does not declare the tool:\n%s", data, out)
		}
		if err := checkTypeScript(out); err != nil {
			t.Fatalf("TypeScript(%s) is not well-formed: %v\n%s", data, err, out)
		}
		terse, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{Brief: true, Terse: true})
		if err != nil {
			t.Fatalf("terse TypeScript(%s): %v", data, err)
		}
		if err := checkTypeScript(terse); err != nil {
			t.Fatalf("terse TypeScript(%s) is not well-formed: %v\n%s", data, err, terse)
		}
	})
}

// FuzzTypeScriptNames renders declarations of a tool with an arbitrary
// root, namespace and name: a root that is not an identifier or is a
// reserved word ("class", "delete", "interface") and a name that breaks
// the name rules are refused with invalid_argument; otherwise the output is
// well-formed TypeScript (whose checker refuses a reserved word after
// `declare const`) and declares the tool in the form the engines support:
// root.<namespace>.<name>(args), or an overload of run by ID when a name
// is reserved ([tooldocs.ReservedNames]).
func FuzzTypeScriptNames(f *testing.F) {
	for _, seed := range [][3]string{
		{"tools", "app", "t"}, {"api", "", "t"}, {"class", "app", "t"}, {"delete", "app", "t"},
		{"interface", "app", "t"}, {"await", "app", "t"}, {"1x", "app", "t"}, {"", "app", "t"},
		{"tools", "run", "echo"}, {"tools", "", "ns"}, {"tools", "ns", "inner"}, {"tools", "", "then"},
		{"tools", "then", "x"}, {"tools", "app", "then"}, {"tools", "12306-mcp", "then"},
		{"tools", "class", "delete"}, {"tools", "a:b", "t"}, {"yield", "then", "x"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, root, namespace, name string) {
		tool := toolmodel.Tool{Namespace: namespace}
		tool.Name = name
		tool.InputSchema = json.RawMessage(`{"type":"object"}`)
		out, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{Root: root})
		badNames := toolmodel.ValidateName(name) != nil || namespace != "" && toolmodel.ValidateName(namespace) != nil
		if slices.Contains(jsReservedWords, root) && err == nil {
			t.Fatalf("TypeScript accepts the reserved word %q as root:\n%s", root, out)
		}
		if err != nil {
			if !errors.Is(err, errors.ErrInvalidArgument) {
				t.Fatalf("TypeScript(%q, %q, %q): %v, want invalid_argument", root, namespace, name, err)
			}
			if !badNames && isRootName(root) {
				t.Fatalf("TypeScript(%q, %q, %q) refuses valid names: %v", root, namespace, name, err)
			}
			return
		}
		if badNames {
			t.Fatalf("TypeScript(%q, %q, %q) accepts invalid names", root, namespace, name)
		}
		if err := checkTypeScript(out); err != nil {
			t.Fatalf("TypeScript(%q, %q, %q) is not well-formed: %v\n%s", root, namespace, name, err, out)
		}
		byID := tooldocs.IsReservedName(namespace) || namespace == "" && tooldocs.IsReservedName(name) ||
			namespace != "" && name == "then"
		want := "\n  " + tsProperty(name) + "(args"
		if namespace != "" {
			want = "\n  " + tsProperty(namespace) + ": {\n    " + tsProperty(name) + "(args"
		}
		if byID {
			id, _ := json.Marshal(tool.ID())
			want = "\n  run(id: " + string(id) + ", args"
		}
		if !strings.Contains(out, want) {
			t.Fatalf("TypeScript(%q, %q, %q) does not declare %q:\n%s", root, namespace, name, want, out)
		}
	})
}

// isRootName reports whether s may name the root: an ASCII identifier
// that is not a reserved word, or empty (the default).
func isRootName(s string) bool {
	if s == "" {
		return true
	}
	if slices.Contains(jsReservedWords, s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// tsProperty is name as a property of an object type: as is when it is an
// identifier, quoted otherwise.
func tsProperty(name string) string {
	if isRootName(name) || slices.Contains(jsReservedWords, name) {
		return name
	}
	q, _ := json.Marshal(name)
	return string(q)
}
