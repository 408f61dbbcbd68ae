package toolindex

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAppendTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"createIssue", []string{"create", "issue"}},
		{"create_issue", []string{"create", "issue"}},
		{"create-issue", []string{"create", "issue"}},
		{"github.create.issue", []string{"github", "create", "issue"}},
		{"HTTPServer", []string{"http", "server"}},
		{"getHTTPResponseCode", []string{"get", "http", "response", "code"}},
		{"base64url", []string{"base", "64", "url"}},
		{"v2", []string{"v", "2"}},
		{"ListIssues", []string{"list", "issue"}},
		{"Open a new issue in the repository.", []string{"open", "new", "issue", "repository"}},
		{`name:foo +bar -baz "quoted" *`, []string{"name", "foo", "bar", "baz", "quoted"}},
		{"Été à Paris", []string{"été", "à", "paris"}},
		{"e\u0301te", []string{"e\u0301te"}},
		{"東京 weather", []string{"東京", "weather"}},
		{"", nil},
		{"  -- !! ", nil},
		{"the of to", nil},
		{"\xff\xfeabc", []string{"abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, appendTerms(nil, tt.in))
		})
	}
}

func TestFoldPlural(t *testing.T) {
	tests := map[string]string{
		"issues":   "issue",
		"queries":  "query",
		"boxes":    "box",
		"matches":  "match",
		"wishes":   "wish",
		"classes":  "class",
		"lists":    "list",
		"status":   "status",
		"address":  "address",
		"analysis": "analysis",
		"bus":      "bus",
		"gas":      "gas",
		"issue":    "issue",
		"s":        "s",
	}
	for in, want := range tests {
		assert.Equal(t, want, foldPlural(in), in)
	}
}
