package tooldocs_test

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

// loadToolSet reads a JSON array of tools without validating them, so
// that a set may hold schemas a validating decoder would refuse.
func loadToolSet(tb testing.TB, path string) []toolmodel.Tool {
	tb.Helper()
	data, err := os.ReadFile(path)
	require.NoError(tb, err)
	var tools []toolmodel.Tool
	require.NoError(tb, json.Unmarshal(data, &tools), path)
	return tools
}

// livemcpTools are the 527 tools of real MCP servers that toolsearch
// evaluates its ranking on.
const livemcpTools = "../toolsearch/testdata/livemcp/tools.jsonl"

// loadLiveMCP reads the livemcp catalogue.
func loadLiveMCP(tb testing.TB) []toolmodel.Tool {
	tb.Helper()
	f, err := os.Open(livemcpTools)
	require.NoError(tb, err, "the livemcp catalogue lives in the toolsearch module of this repository")
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var tools []toolmodel.Tool
	for sc.Scan() {
		tool, err := toolmodel.DecodeTool(sc.Bytes())
		require.NoError(tb, err)
		tools = append(tools, tool)
	}
	require.NoError(tb, sc.Err())
	require.Len(tb, tools, 527)
	return tools
}

// TestTypeScriptGolden renders each tool set of testdata/typescript and
// compares the result with the .d.ts file beside it, after checking that
// it is well-formed TypeScript. Run with -update to accept a change.
func TestTypeScriptGolden(t *testing.T) {
	sets, err := filepath.Glob(filepath.Join("testdata", "typescript", "*.json"))
	require.NoError(t, err)
	require.Len(t, sets, 6)
	for _, set := range sets {
		t.Run(filepath.Base(set), func(t *testing.T) {
			got, err := tooldocs.TypeScript(loadToolSet(t, set), tooldocs.TypeScriptOptions{})
			require.NoError(t, err)
			require.NoError(t, checkTypeScript(got), "the declarations are not well-formed:\n%s", got)
			path := strings.TrimSuffix(set, ".json") + ".d.ts"
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create the golden file")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestTypeScriptLiveMCP renders the 527 tools of real MCP servers: the
// output is well-formed, declares a method for every tool, and does not
// depend on the order of the input.
func TestTypeScriptLiveMCP(t *testing.T) {
	tools := loadLiveMCP(t)
	got, err := tooldocs.TypeScript(tools, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	require.NoError(t, checkTypeScript(got))
	methods := regexp.MustCompile(`(?m)^    (?:"[^"]+"|[A-Za-z_$][\w$]*)\(args\??: `).FindAllString(got, -1)
	assert.Len(t, methods, len(tools), "one method per tool")

	shuffled := append([]toolmodel.Tool(nil), tools...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	again, err := tooldocs.TypeScript(shuffled, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	assert.Equal(t, got, again, "the output does not depend on the input order")
}

// renderProperty renders a tool whose only argument, p, has the given
// schema, and returns p's declaration line.
func renderProperty(t *testing.T, schema string) string {
	t.Helper()
	tool := toolmodel.Tool{Namespace: "app"}
	tool.Name = "t"
	tool.InputSchema = json.RawMessage(`{"type":"object","properties":{"p":` + schema + `},"$defs":{"D":{"type":"string"}}}`)
	out, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	require.NoError(t, checkTypeScript(out), out)
	_, decl, found := strings.Cut(out, "interface AppTArgs {\n")
	require.True(t, found, out)
	var lines []string
	for l := range strings.SplitSeq(decl, "\n") {
		if strings.HasPrefix(l, "  p?: ") || len(lines) > 0 {
			lines = append(lines, l)
		}
		if len(lines) > 0 && strings.HasSuffix(l, ";") && strings.Count(strings.Join(lines, "\n"), "{") == strings.Count(strings.Join(lines, "\n"), "}") {
			break
		}
	}
	return strings.TrimPrefix(strings.Join(lines, "\n"), "  p?: ")
}

func TestTypeScriptTypes(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{"string", `{"type":"string"}`, "string;"},
		{"integer is a number", `{"type":"integer"}`, "number;"},
		{"type array is a union", `{"type":["string","null"]}`, "string | null;"},
		{"nullable", `{"type":"integer","nullable":true}`, "number | null;"},
		{"enum", `{"enum":["a","b",1,true,null]}`, `"a" | "b" | 1 | true | null;`},
		{"const", `{"const":"x"}`, `"x";`},
		{"object const", `{"const":{"b":[1,-2.5],"a":{}}}`, `{ a: { [key: string]: never }; b: [1, -2.5] };`},
		{"empty enum", `{"enum":[]}`, "never;"},
		{"false", `false`, "never;"},
		{"true", `true`, "unknown;"},
		{"array", `{"type":"array","items":{"type":"string"}}`, "string[];"},
		{"array of unions", `{"type":"array","items":{"type":["string","number"]}}`, "(string | number)[];"},
		{"array without items", `{"type":"array"}`, "unknown[];"},
		{"tuple", `{"prefixItems":[{"type":"string"},{"type":"number"}],"minItems":1,"items":false}`, "[string, number?];"},
		{"open tuple", `{"prefixItems":[{"type":"string"}],"minItems":1}`, "[string, ...unknown[]];"},
		{"draft-07 tuple", `{"items":[{"type":"string"}],"additionalItems":{"type":"integer"},"minItems":1}`, "[string, ...number[]];"},
		{"record", `{"type":"object","additionalProperties":{"type":"integer"}}`, "{ [key: string]: number };"},
		{"any object", `{"type":"object"}`, "{ [key: string]: unknown };"},
		{"closed empty object", `{"type":"object","additionalProperties":false}`, "{ [key: string]: never };"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"$ref":"#/$defs/D"}]}`, "string | D;"},
		{"oneOf with unknown", `{"oneOf":[{"type":"string"},{}]}`, "unknown;"},
		{"allOf", `{"allOf":[{"$ref":"#/$defs/D"},{"minLength":2}]}`, "D;"},
		{"ref with siblings", `{"$ref":"#/$defs/D","type":"string"}`, "D & string;"},
		{"external ref", `{"$ref":"https://example.com/s.json"}`, "unknown;"},
		{"not", `{"not":{"type":"string"}}`, "unknown;"},
		{"nested object", `{"type":"object","properties":{"a-b":{"type":"string","description":"A."}},"required":["a-b"]}`,
			"{\n    /** A. */\n    \"a-b\": string;\n  };"},
		{"properties and index", `{"properties":{"a":{"type":"string"}},"additionalProperties":{"type":"number"}}`,
			"{\n    a?: string;\n  } & { [key: string]: number };"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, renderProperty(t, tt.schema))
		})
	}
}

func TestTypeScriptJSDoc(t *testing.T) {
	tool := toolmodel.Tool{Namespace: "app"}
	tool.Name = "t"
	tool.Description = "First line.\n    Indented */ second line.\n\n\n    Third."
	tool.InputSchema = json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer","description":"Count.","default":3,"minimum":1,"maximum":10,"exclusiveMaximum":11,"multipleOf":1},
		"s":{"type":"string","format":"email","pattern":"^a*/b$","minLength":1,"maxLength":9,"deprecated":true},
		"l":{"type":"array","minItems":1,"maxItems":2,"uniqueItems":true},
		"o":{"type":"object","minProperties":1,"maxProperties":2}}}`)
	out, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	require.NoError(t, checkTypeScript(out))
	for _, want := range []string{
		"    /**\n     * First line.\n     * Indented *\\/ second line.\n     *\n     * Third.\n     */\n    t(args?: AppTArgs): Promise<unknown>;",
		"  /**\n   * Count.\n   * @default 3\n   * @integer\n   * @minimum 1\n   * @maximum 10\n   * @exclusiveMaximum 11\n   * @multipleOf 1\n   */\n  n?: number;",
		"   * @deprecated\n   * @format email\n   * @minLength 1\n   * @maxLength 9\n   * @pattern ^a*\\/b$\n   */\n  s?: string;",
		"   * @minItems 1\n   * @maxItems 2\n   * @uniqueItems\n   */\n  l?: unknown[];",
		"   * @minProperties 1\n   * @maxProperties 2\n   */\n  o?: { [key: string]: unknown };",
	} {
		assert.Contains(t, out, want)
	}

	brief, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{Brief: true})
	require.NoError(t, err)
	assert.Contains(t, brief, "    /** First line. */\n    t(args?: AppTArgs)")
}

func TestTypeScriptOptionsAndSignatures(t *testing.T) {
	mk := func(ns, name, input, output string) toolmodel.Tool {
		tool := toolmodel.Tool{Namespace: ns}
		tool.Name = name
		tool.InputSchema = json.RawMessage(input)
		if output != "" {
			tool.OutputSchema = json.RawMessage(output)
		}
		return tool
	}
	tools := []toolmodel.Tool{
		mk("b", "x", `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, `{"type":"object","properties":{"n":{"type":"number"}}}`),
		mk("a", "y", `{"type":"object"}`, ""),
		mk("", "b", `{"type":"object","properties":{"v":{"type":"string"}}}`, ""),
	}
	out, err := tooldocs.TypeScript(tools, tooldocs.TypeScriptOptions{Root: "api"})
	require.NoError(t, err)
	require.NoError(t, checkTypeScript(out))
	assert.Equal(t, `/** The tools a program calls, as `+"`await api.<namespace>.<name>(args)`"+`. */
interface Api {
  a: {
    y(args?: {}): Promise<unknown>;
  };
  b: {
    (args?: BArgs): Promise<unknown>;
    x(args: BXArgs): Promise<BXResult>;
  };
}
declare const api: Api;

interface BArgs {
  v?: string;
}

interface BXArgs {
  q: string;
}

interface BXResult {
  n?: number;
}
`, out)
}

func TestTypeScriptTerse(t *testing.T) {
	tool := toolmodel.Tool{Namespace: "shop", Tags: nil}
	tool.Name = "order"
	tool.Description = "Place an order. The order is charged at once; refunds take a week."
	tool.InputSchema = json.RawMessage(`{"type":"object","properties":{
		"date":{"type":"string","description":"The delivery date in YYYY-MM-DD format. Weekends are refused, and so are public holidays of the delivery country.","format":"date"},
		"count":{"type":"integer","minimum":1,"default":1,"description":"How many."},
		"item":{"$ref":"#/$defs/Item"}},
		"required":["date","item"],
		"$defs":{"Item":{"type":"object","description":"An item of the catalogue. Its SKU names it.","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}$"}}}}}`)

	full, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	assert.Contains(t, full, "Weekends are refused")
	assert.Contains(t, full, "@minimum 1")

	terse, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{Terse: true, Brief: true})
	require.NoError(t, err)
	require.NoError(t, checkTypeScript(terse))
	assert.Equal(t, `/** The tools a program calls, as `+"`await tools.<namespace>.<name>(args)`"+`. */
interface Tools {
  shop: {
    /** Place an order. */
    order(args: ShopOrderArgs): Promise<unknown>;
  };
}
declare const tools: Tools;

interface ShopOrderArgs {
  /** The delivery date in YYYY-MM-DD format. */
  date: string;
  /** How many. */
  count?: number;
  item: Item;
}

/** An item of the catalogue. */
interface Item {
  sku?: string;
}
`, terse)
	assert.Less(t, len(terse), len(full))
}

func TestTypeScriptErrors(t *testing.T) {
	ok := toolmodel.Tool{Namespace: "app"}
	ok.Name = "t"
	ok.InputSchema = json.RawMessage(`{"type":"object"}`)
	badName := ok
	badName.Name = "has space"
	badNamespace := ok
	badNamespace.Namespace = "a:b"
	tests := []struct {
		name  string
		tools []toolmodel.Tool
		opts  tooldocs.TypeScriptOptions
		want  string
	}{
		{"root not an identifier", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "my-tools"}, `root "my-tools" is not an identifier`},
		{"root starts with a digit", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "1x"}, `root "1x" is not an identifier`},
		{"root is a keyword", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "class"}, `root "class" is not an identifier`},
		{"root is an operator keyword", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "delete"}, `root "delete" is not an identifier`},
		{"root is a literal", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "null"}, `root "null" is not an identifier`},
		{"root is await", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "await"}, `root "await" is not an identifier`},
		{"root is reserved in strict mode", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "interface"}, `root "interface" is not an identifier`},
		{"root is let", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "let"}, `root "let" is not an identifier`},
		{"root is eval", []toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: "eval"}, `root "eval" is not an identifier`},
		{"duplicate", []toolmodel.Tool{ok, ok}, tooldocs.TypeScriptOptions{}, `tool "app:t" is listed twice`},
		{"bad name", []toolmodel.Tool{badName}, tooldocs.TypeScriptOptions{}, `tool name "has space"`},
		{"bad namespace", []toolmodel.Tool{badNamespace}, tooldocs.TypeScriptOptions{}, `tool namespace "a:b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tooldocs.TypeScript(tt.tools, tt.opts)
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	out, err := tooldocs.TypeScript(nil, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	assert.Contains(t, out, "interface Tools {\n}\ndeclare const tools: Tools;\n", "no tools is an empty root")
	require.NoError(t, checkTypeScript(out))

	// Contextual keywords of TypeScript are identifiers.
	for _, root := range []string{"type", "declare", "any", "of", "async", "string"} {
		out, err := tooldocs.TypeScript([]toolmodel.Tool{ok}, tooldocs.TypeScriptOptions{Root: root})
		require.NoError(t, err, root)
		require.NoError(t, checkTypeScript(out), out)
	}
}

// TestTypeScriptReservedNames checks which tools are declared as overloads
// of run, by ID: exactly those whose namespace (or namespace-less name) is
// reserved by the engines, and those named then in a namespace.
func TestTypeScriptReservedNames(t *testing.T) {
	names := tooldocs.ReservedNames()
	assert.Equal(t, []string{"run", "search", "namespaces", "describe", "examples", "chain", "ns", "log", "then"}, names)
	tooldocs.ReservedNames()[0] = "changed"
	assert.Equal(t, "run", tooldocs.ReservedNames()[0], "ReservedNames returns a copy")
	assert.True(t, tooldocs.IsReservedName("then"))
	assert.False(t, tooldocs.IsReservedName("Run"))
	assert.False(t, tooldocs.IsReservedName("tools"))

	mk := func(ns, name string) toolmodel.Tool {
		tool := toolmodel.Tool{Namespace: ns}
		tool.Name = name
		tool.InputSchema = json.RawMessage(`{"type":"object"}`)
		return tool
	}
	tests := []struct {
		ns, name string
		want     string // the declaration's line
	}{
		{"", "plain", "  plain(args?: {}): Promise<unknown>;"},
		{"a", "b", "    b(args?: {}): Promise<unknown>;"},
		{"a", "run", "    run(args?: {}): Promise<unknown>;"},
		{"a-b", "c-d", `    "c-d"(args?: {}): Promise<unknown>;`},
		{"a", "then", `  run(id: "a:then", args?: {}): Promise<unknown>;`},
		{"a-b", "then", `  run(id: "a-b:then", args?: {}): Promise<unknown>;`},
		{"", "then", `  run(id: "then", args?: {}): Promise<unknown>;`},
		{"then", "then", `  run(id: "then:then", args?: {}): Promise<unknown>;`},
	}
	for _, name := range names {
		tests = append(tests,
			struct{ ns, name, want string }{"", name, `  run(id: "` + name + `", args?: {}): Promise<unknown>;`},
			struct{ ns, name, want string }{name, "x", `  run(id: "` + name + `:x", args?: {}): Promise<unknown>;`})
	}
	for _, tt := range tests {
		tool := mk(tt.ns, tt.name)
		t.Run(tool.ID(), func(t *testing.T) {
			for _, root := range []string{"tools", "api"} {
				out, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{Root: root})
				require.NoError(t, err)
				require.NoError(t, checkTypeScript(out), out)
				assert.Contains(t, strings.Split(out, "\n"), tt.want, out)
				byID := strings.HasPrefix(tt.want, "  run(id: ")
				assert.Equal(t, byID, strings.Contains(out, "`await "+root+".run(id, args)`"), "the header names the form by ID when it is used")
			}
		})
	}
}

func TestStoreTypeScript(t *testing.T) {
	ctx := t.Context()
	resolvedOnly := mustTool(t, searchToolJSON)
	s := tooldocs.NewStore(tooldocs.WithResolver(newCatalog(resolvedOnly)))
	entries := loadEntries(t)
	require.NoError(t, s.RegisterMany(ctx, entries))

	var d tooldocs.Describer = s
	declarer, ok := d.(tooldocs.Declarer)
	require.True(t, ok, "a Store is a Declarer")

	ids := []string{"github:create_issue", "docs:search", "github:create_issue"}
	out, err := declarer.TypeScript(ctx, ids, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	require.NoError(t, checkTypeScript(out))
	want, err := tooldocs.TypeScript([]toolmodel.Tool{*entries[0].Tool, *resolvedOnly}, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	assert.Equal(t, want, out, "registered and resolved tools, each once")
	assert.Contains(t, out, "create_issue(args: GithubCreateIssueArgs): Promise<GithubCreateIssueResult>;")
	assert.Contains(t, out, "search(args: DocsSearchArgs): Promise<DocsSearchResult>;")

	_, err = s.TypeScript(ctx, []string{"github:create_issue", "nope:missing"}, tooldocs.TypeScriptOptions{})
	require.ErrorIs(t, err, errors.ErrNotFound)
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "nope:missing", e.ToolID)
	_, err = s.TypeScript(ctx, []string{"bad id"}, tooldocs.TypeScriptOptions{})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	_, err = s.TypeScript(ctx, []string{"docs:search"}, tooldocs.TypeScriptOptions{Root: "1x"})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	_, err = s.TypeScript(ctx, []string{"docs:search"}, tooldocs.TypeScriptOptions{Root: "class"})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
}
