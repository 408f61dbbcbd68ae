package javascript_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
)

// TestSyntaxErrorPositions checks that a syntax error is reported at the
// program's own line and column wherever it is, in both languages; an
// error at the very end of the program (an unclosed brace or parenthesis)
// is reported just after the program's last character, not in the
// wrapper the engine adds around it.
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name      string
		code      string
		line, col string
		// tsCol, when set, replaces col for TypeScript: esbuild reports
		// some errors where the token ends, not where it starts.
		tsCol string
		// endOfProgram reports an error found past the last character.
		endOfProgram bool
	}{
		{name: "first line", code: "let x = ;\nreturn 1;\n", line: "1", col: "9"},
		{name: "first line alone", code: "let x = ;", line: "1", col: "9"},
		{name: "middle", code: "let a = 1;\nlet b = ;\nreturn a;\n", line: "2", col: "9"},
		{name: "last line", code: "let a = 1;\nlet b = ;\n", line: "2", col: "9"},
		{name: "last line without newline", code: "let a = 1;\nlet b = ;", line: "2", col: "9"},
		{name: "open parenthesis on the last line", code: "let a = 1;\nreturn (\n", line: "2", col: "9", endOfProgram: true},
		{name: "open parenthesis without newline", code: "let a = 1;\nreturn (", line: "2", col: "9", endOfProgram: true},
		{name: "open parenthesis then blank lines", code: "let a = 1;\nreturn (\n\n  \n", line: "2", col: "9", endOfProgram: true},
		{name: "unclosed brace", code: "if (true) {\n  return 1;\n", line: "2", col: "12", endOfProgram: true},
		{name: "unclosed brace without newline", code: "if (true) {\n  return 1;", line: "2", col: "12", endOfProgram: true},
		{name: "unclosed brace on the only line", code: "if (true) {", line: "1", col: "12", endOfProgram: true},
		{name: "unclosed string", code: "let a = 1;\nlet s = 'abc", line: "2", col: "9", tsCol: "13"},
		{name: "unclosed array", code: "const xs = [1,\n  2,", line: "2", col: "5", endOfProgram: true},
	}
	x := newExecutor(t)
	for _, lang := range []string{javascript.LanguageJavaScript, javascript.LanguageTypeScript} {
		for _, tc := range tests {
			t.Run(lang+"/"+tc.name, func(t *testing.T) {
				_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: lang, Code: tc.code})
				require.Error(t, err)
				assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
				var e *errors.Error
				require.ErrorAs(t, err, &e)
				col := tc.col
				if lang == javascript.LanguageTypeScript && tc.tsCol != "" {
					col = tc.tsCol
				}
				assert.Equal(t, tc.line, e.Meta["line"], err.Error())
				assert.Equal(t, col, e.Meta["column"], err.Error())
				if tc.endOfProgram {
					assert.Contains(t, err.Error(), "unexpected end of the program")
				}
			})
		}
	}
}
