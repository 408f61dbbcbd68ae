package toolindex

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolmodel"
)

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		name, in, want string
		limit          int
	}{
		{"empty", "", "", 10},
		{"blank", " \n\t\n ", "", 10},
		{"first non-blank line", "\n\n  Hello   world \nsecond", "Hello world", 20},
		{"exact limit", "abcde", "abcde", 5},
		{"cut", "abcdef", "abcd…", 5},
		{"cut drops trailing space", "abc def", "abc…", 5},
		{"runes not bytes", long, strings.Repeat("é", 9) + "…", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oneLine(tt.in, tt.limit)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, utf8.RuneCountInString(got), tt.limit)
		})
	}
}

func TestNewSummaryTitle(t *testing.T) {
	tool := toolmodel.Tool{Namespace: "ns"}
	tool.Name = "n"
	tool.Annotations = &mcp.ToolAnnotations{Title: "From annotations"}
	assert.Equal(t, "From annotations", newSummary(&tool, nil).Title)
	tool.Title = "Own title"
	assert.Equal(t, "Own title", newSummary(&tool, nil).Title)
	backends := []toolmodel.ToolBackend{{Kind: toolmodel.BackendMCP}, {Kind: toolmodel.BackendLocal}, {Kind: toolmodel.BackendMCP}}
	assert.Equal(t, []toolmodel.BackendKind{toolmodel.BackendMCP, toolmodel.BackendLocal}, newSummary(&tool, backends).Backends)
}
