package javascript

import (
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
// wrapped like a JavaScript program, and the source map from the one to
// the other (whose source is the wrapped TypeScript).
func transpile(code string) (string, *sourcemap.Consumer, error) {
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
		return "", nil, (&positionMap{code: code}).syntaxError(line, col, m.Text)
	}
	consumer, err := sourcemap.Parse("program.js.map", res.Map)
	if err != nil {
		return "", nil, errors.Errorf(errors.Internal, "typescript: read the source map: %v", err)
	}
	return string(res.Code), consumer, nil
}
