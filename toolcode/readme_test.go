package toolcode_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEExampleIsExample keeps the program of README.md's "Example"
// section the same as Example, which the tests compile and run: the same
// imports, the same body (in main instead of Example), and the output
// the README shows is Example's.
func TestREADMEExampleIsExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("example_test.go")
	require.NoError(t, err)

	section := string(readme)
	start := strings.Index(section, "\n## Example\n")
	require.GreaterOrEqual(t, start, 0, "README.md has no Example section")
	section = section[start:]
	program := regexp.MustCompile("(?s)```go\n(package main\n.*?)```\n").FindStringSubmatch(section)
	require.NotNil(t, program, "README.md's Example section has no ```go block with a main package")
	output := regexp.MustCompile("(?s)```text\n(.*?)```\n").FindStringSubmatch(section)
	require.NotNil(t, output, "README.md's Example section has no ```text block with the output")

	readmeImports, readmeBody := splitProgram(t, program[1], "func main() {\n")
	exampleImports, exampleBody := splitProgram(t, string(example), "func Example() {\n")
	exampleBody, exampleOutput, found := strings.Cut(exampleBody, "\t// Output:\n")
	require.True(t, found, "Example has no // Output: comment")

	assert.Equal(t, exampleImports, readmeImports, "the imports of README.md's program and of example_test.go")
	assert.Equal(t, exampleBody, readmeBody, "the body of README.md's main and of Example")
	var want strings.Builder
	for line := range strings.Lines(exampleOutput) {
		want.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "\t//"), " "))
	}
	assert.Equal(t, want.String(), output[1], "the output README.md shows and Example's")
}

// splitProgram returns the import block of a Go file and the body of the
// function that opens with header, up to the closing brace in column 1.
func splitProgram(t *testing.T, src, header string) (imports, body string) {
	t.Helper()
	m := regexp.MustCompile(`(?s)\nimport \((.*?)\n\)\n`).FindStringSubmatch(src)
	require.NotNil(t, m, "no import block")
	_, rest, found := strings.Cut(src, header)
	require.True(t, found, "no %q", header)
	body, _, found = strings.Cut(rest, "\n}\n")
	require.True(t, found, "no closing brace after %q", header)
	return m[1], body + "\n"
}
