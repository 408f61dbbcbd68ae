package javascript

import (
	"strconv"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"

	"github.com/metatools-go/metatools/errors"
)

// NewTypeScript returns the TypeScript engine (language "typescript"): it
// transpiles the program in-process with esbuild (types are erased, not
// checked) and runs the JavaScript on goja like [New]'s engine, with the
// same limits. Syntax errors and uncaught exceptions are reported at the
// TypeScript program's line and column, through the transpiler's source map.
func NewTypeScript(opts ...Option) *Engine {
	e := New(opts...)
	e.language = LanguageTypeScript
	e.transform = transpile
	return e
}

// transpile turns a TypeScript program into the JavaScript that runs,
// wrapped like a JavaScript program, and the map back to its positions.
func transpile(code string) (string, *positionMap, error) {
	res := api.Transform(wrapPrefix+code+wrapSuffix, api.TransformOptions{
		Loader:     api.LoaderTS,
		Target:     api.ES2017,
		Sourcemap:  api.SourceMapExternal,
		Sourcefile: "program.ts",
		LogLevel:   api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		line, col := 0, 0
		if m.Location != nil {
			line, col = m.Location.Line, m.Location.Column+1
		}
		line, col = (*positionMap)(nil).original(line, col)
		e := errors.Errorf(errors.InvalidArgument, "syntax error at line %d, column %d: %s", line, col, strings.TrimSpace(m.Text))
		e.Op = "compile"
		e.Meta = map[string]string{"line": strconv.Itoa(line), "column": strconv.Itoa(col)}
		return "", nil, e
	}
	consumer, err := sourcemap.Parse("program.js.map", res.Map)
	if err != nil {
		return "", nil, errors.Errorf(errors.Internal, "typescript: read the source map: %v", err)
	}
	return string(res.Code), &positionMap{consumer: consumer}, nil
}

// positionMap maps a position in the JavaScript that runs (1-based line and
// column) to the program's own. The nil map is that of a JavaScript
// program: only the first line's columns are shifted, by the wrapper.
type positionMap struct {
	consumer *sourcemap.Consumer
}

func (m *positionMap) original(line, col int) (int, int) {
	if m != nil && m.consumer != nil && line > 0 {
		if _, _, l, c, ok := m.consumer.Source(line, max(col-1, 0)); ok {
			line, col = l, c+1
		}
	}
	if line == 1 {
		col = max(col-len(wrapPrefix), 1)
	}
	return line, col
}
