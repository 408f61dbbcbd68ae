package toolsearch

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIdentifierTokenizer(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"Empty", "", nil},
		{"Spaces", "  read the  file ", []string{"read", "the", "file"}},
		{"CamelCase", "createIssue", []string{"createIssue", "create", "Issue"}},
		{"PascalCase", "ResearchHelper", []string{"ResearchHelper", "Research", "Helper"}},
		{"Snake", "create_issue", []string{"create", "issue"}},
		{"Kebab", "create-issue", []string{"create", "issue"}},
		{"Dotted", "github.createIssue", []string{"github", "createIssue", "create", "Issue"}},
		{"Acronym", "HTTPServer", []string{"HTTPServer", "HTTP", "Server"}},
		{"PluralAcronym", "listAPIs", []string{"listAPIs", "list", "APIs"}},
		{"PluralAcronymThenWord", "URLsToFetch", []string{"URLsToFetch", "URLs", "To", "Fetch"}},
		{"AllCaps", "SQL", []string{"SQL"}},
		{"Digits", "base64 v2Api ec2", []string{"base64", "base", "64", "v2Api", "v", "2", "Api", "ec2", "ec", "2"}},
		{"Number", "2024", []string{"2024"}},
		{"Punctuation", "read/write: files (all)", []string{"read", "write", "files", "all"}},
		{"QuerySyntax", `+foo -bar name:x "quoted" a*`, []string{"foo", "bar", "name", "x", "quoted", "a"}},
		{"Apostrophe", "don't user’s 'quoted'", []string{"don't", "user's", "quoted"}},
		{"Accents", "Café crème", []string{"Café", "crème"}},
		{"Han", "查询余票", []string{"查", "询", "余", "票"}},
		{"MixedScripts", "get车票", []string{"get", "车", "票"}},
		{"InvalidUTF8", "ab\xffcd", []string{"ab", "cd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, terms(identifierTokenizer{}.Tokenize([]byte(tt.input))))
		})
	}
}

func TestIdentifierTokenizerPositionsAndOffsets(t *testing.T) {
	input := "the createIssue tool"
	stream := identifierTokenizer{}.Tokenize([]byte(input))
	require.Len(t, stream, 5)
	type tok struct {
		term       string
		pos        int
		start, end int
	}
	var got []tok
	for _, tk := range stream {
		got = append(got, tok{string(tk.Term), tk.Position, tk.Start, tk.End})
		assert.Equal(t, input[tk.Start:tk.End], string(tk.Term), "offsets of %q", tk.Term)
	}
	// The whole identifier shares its position with its first part.
	assert.Equal(t, []tok{
		{"the", 1, 0, 3},
		{"createIssue", 2, 4, 15},
		{"create", 2, 4, 10},
		{"Issue", 3, 10, 15},
		{"tool", 4, 16, 20},
	}, got)
	assert.Equal(t, analysis.Numeric, identifierTokenizer{}.Tokenize([]byte("42"))[0].Type)
	assert.Equal(t, analysis.Ideographic, identifierTokenizer{}.Tokenize([]byte("票"))[0].Type)
}

func TestTextAnalyzer(t *testing.T) {
	s, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })

	// Every spelling of an identifier yields the words of "create issue".
	for _, text := range []string{"createIssue", "create_issue", "create-issue", "github.createIssue", "CreateIssue", "CREATE_ISSUES"} {
		assert.Subset(t, s.queryTerms(s.analyzer.Analyze([]byte(text))), s.queryTerms(s.analyzer.Analyze([]byte("create issue"))), "terms of %q", text)
	}
	tests := []struct {
		name, text string
		want       []string
	}{
		{"StopWordsAndStems", "Lists all the issues of a repository", []string{"issu", "list", "repositori"}},
		{"ExtraStopWords", "can you just do it now", nil},
		{"Possessive", "the user's files", []string{"file", "user"}},
		{"WholeIdentifierKept", "GitHub", []string{"git", "github", "hub"}},
		{"Deduplicated", "file files FILE", []string{"file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, s.queryTerms(s.analyzer.Analyze([]byte(tt.text))))
		})
	}
}

func terms(stream analysis.TokenStream) []string {
	var out []string
	for _, tok := range stream {
		out = append(out, string(tok.Term))
	}
	return out
}

// FuzzIdentifierTokenizer checks the tokenizer's invariants on any input:
// tokens are non-empty, lie within the input in increasing order, hold
// the text they point at (apostrophes aside), and their positions never
// go back.
func FuzzIdentifierTokenizer(f *testing.F) {
	for _, seed := range []string{"", "createIssue", "HTTPServer APIs", "base64_v2-x.y", "don’t", "查询", "a\xffb", "''x''", "ÉCOLE école"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		stream := identifierTokenizer{}.Tokenize([]byte(input))
		prevStart, prevPos := 0, 0
		for _, tok := range stream {
			require.NotEmpty(t, tok.Term)
			require.True(t, 0 <= tok.Start && tok.Start < tok.End && tok.End <= len(input), "offsets %d..%d of %q", tok.Start, tok.End, input)
			require.GreaterOrEqual(t, tok.Start, prevStart)
			require.GreaterOrEqual(t, tok.Position, prevPos)
			require.Equal(t, string(normalizeApostrophes([]byte(input[tok.Start:tok.End]))), string(tok.Term))
			prevStart, prevPos = tok.Start, tok.Position
		}
	})
}
