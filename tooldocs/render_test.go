package tooldocs_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/tooldocs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata (Markdown and TypeScript)")

// TestMarkdownGolden renders every sample tool at every level and compares
// the result with testdata/golden/<id>.<level>.md. Run with -update to
// accept a change in rendering.
func TestMarkdownGolden(t *testing.T) {
	s := sampleStore(t)
	for _, id := range s.List(tooldocs.ListFilter{}) {
		for _, level := range tooldocs.Levels() {
			name := strings.ReplaceAll(id, ":", "_") + "." + level.String() + ".md"
			t.Run(name, func(t *testing.T) {
				doc, err := s.Describe(t.Context(), id, level)
				require.NoError(t, err)
				got := doc.Markdown()
				path := filepath.Join("testdata", "golden", name)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "run go test -update to create the golden file")
				assert.Equal(t, string(want), got)
			})
		}
	}
}

func TestMarkdownLevelsNest(t *testing.T) {
	s := sampleStore(t)
	for _, id := range s.List(tooldocs.ListFilter{}) {
		summary, err := s.Describe(t.Context(), id, tooldocs.LevelSummary)
		require.NoError(t, err)
		schema, err := s.Describe(t.Context(), id, tooldocs.LevelSchema)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(schema.Markdown(), summary.Markdown()), "%s: the schema level extends the summary", id)
		assert.Contains(t, schema.Markdown(), "`"+schema.Signature()+"`")
	}
}

func TestSignature(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		want   string
		wantMD []string
	}{
		{
			name: "required first, optional marked",
			tool: `{"namespace":"github","name":"create_issue","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"},"body":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["owner","repo","title"]},"outputSchema":{"type":"object"}}`,
			want: "github:create_issue(owner: string, repo: string, title: string, body?: string, labels?: string[]) -> object",
		},
		{
			name: "no parameters and no output schema",
			tool: `{"name":"ping","inputSchema":{"type":"object"}}`,
			want: "ping()",
		},
		{
			name: "nullable, unions, any and nested arrays",
			tool: `{"name":"f","inputSchema":{"type":"object","properties":{"a":{"type":["string","null"]},"b":{},"c":{"type":"array","items":{"type":["integer","string"]}},"d":{"type":"array"},"e":{"type":"array","items":{"type":"array","items":{"type":"number"}}},"o":{"type":"object","properties":{"x":{"type":"string"}}}}}}`,
			want: "f(a?: string | null, b?: any, c?: (integer | string)[], d?: any[], e?: number[][], o?: object)",
		},
		{
			name: "short enumerations become literal types",
			tool: `{"name":"g","inputSchema":{"type":"object","properties":{"state":{"enum":["open","closed"]},"n":{"const":3},"many":{"type":"string","enum":["a","b","c","d","e","f"]},"tags":{"type":"array","items":{"enum":["x","y"]}}},"required":["state"]},"outputSchema":{"type":["array","null"]}}`,
			want: `g(state: "open" | "closed", n?: 3, many?: string, tags?: ("x" | "y")[]) -> array | null`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tooldocs.NewStore()
			require.NoError(t, s.Register(t.Context(), tooldocs.Entry{Tool: mustTool(t, tt.tool)}))
			tool := mustTool(t, tt.tool)
			doc, err := s.Describe(t.Context(), tool.ID(), tooldocs.LevelSchema)
			require.NoError(t, err)
			assert.Equal(t, tt.want, doc.Signature())

			summary, err := s.Describe(t.Context(), tool.ID(), tooldocs.LevelSummary)
			require.NoError(t, err)
			assert.Equal(t, tool.ID()+"(…)", summary.Signature(), "a summary has no parameters to show")
		})
	}
}

func TestMarkdownShortensLongEnumerations(t *testing.T) {
	s := tooldocs.NewStore()
	require.NoError(t, s.Register(t.Context(), tooldocs.Entry{Tool: mustTool(t,
		`{"name":"country","inputSchema":{"type":"object","properties":{"code":{"enum":["ad","ae","af","ag","ai","al","am","ao","aq","ar","as","at"]}}}}`)}))
	doc, err := s.Describe(t.Context(), "country", tooldocs.LevelSchema)
	require.NoError(t, err)
	assert.Contains(t, doc.Markdown(), `- `+"`code`"+` (string, one of "ad", "ae", "af", "ag", "ai", "al", "am", "ao", "aq", "ar", … (2 more))`)
	assert.Equal(t, "country(code?: string)", doc.Signature())
}

func TestAnnotationsString(t *testing.T) {
	tests := []struct {
		a    tooldocs.Annotations
		want string
	}{
		{tooldocs.Annotations{ReadOnly: true, Destructive: true, Idempotent: true, OpenWorld: false}, "read-only, closed-world"},
		{tooldocs.Annotations{Destructive: true, OpenWorld: true}, "destructive, open-world"},
		{tooldocs.Annotations{Idempotent: true}, "additive, idempotent, closed-world"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.a.String())
	}
}
