package config

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/internal/spell"
)

// Problem is one thing wrong with a configuration file, located in it
// and named in the file's own words: its keys, list indexes and values,
// never the types of the program that reads it.
type Problem struct {
	// Line and Column are where the problem is, counted from 1; zero
	// when the problem has no place in the file (a configuration built
	// in Go, or a file that could not be read).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Path names the setting, as the file writes it:
	// "mcpServers[0].command", "limits.retries", or
	// `mcpServers "github"` in an MCP host's file. It is empty for the
	// file as a whole.
	Path string `json:"path,omitempty"`
	// Message says what is wrong, and often how to put it right.
	Message string `json:"message"`

	// at is Path as keys and indexes, to locate it in the YAML tree.
	at keyPath
	// onKey locates the problem at the key of at rather than its value.
	onKey bool
}

// format renders the problem as one line: "FILE:LINE: PATH: MESSAGE",
// without the parts it lacks ("line LINE:" when there is no file name).
func (p Problem) format(file string) string {
	var b strings.Builder
	switch {
	case file != "" && p.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", file, p.Line)
	case file != "":
		fmt.Fprintf(&b, "%s: ", file)
	case p.Line > 0:
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// String renders the problem as [Error] does, without a file name.
func (p Problem) String() string { return p.format("") }

// Error is the error of a configuration that has problems: every problem
// found, in the order of the file. Errors of [Load] and [Parse] wrap it,
// with code [errors.InvalidArgument]; errors.As finds it, for callers
// that show the problems in their own form.
type Error struct {
	// File is the name of the file, as given to [Load]; empty for
	// [Parse].
	File string `json:"file,omitempty"`
	// Problems are the problems found, at least one.
	Problems []Problem `json:"problems"`
}

// Error renders one problem a line, each as
// "FILE:LINE: PATH: MESSAGE".
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.format(e.File)
	}
	return strings.Join(lines, "\n")
}

// problemsError returns the error of problems, of code
// [errors.InvalidArgument], or nil when there is none.
func problemsError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return errors.E(errors.InvalidArgument, &Error{Problems: problems})
}

// keyPath is the place of a setting: keys (string) and list indexes
// (int) from the top of the file.
type keyPath []any

// plainKey matches the keys written after a dot; others are quoted in
// brackets.
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// String renders the path as "a.b[0].c", a key that is not a plain word
// as ["key"].
func (p keyPath) String() string {
	var b strings.Builder
	for i, seg := range p {
		switch s := seg.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			switch {
			case !plainKey.MatchString(s):
				fmt.Fprintf(&b, "[%s]", strconv.Quote(s))
			case i > 0:
				b.WriteByte('.')
				b.WriteString(s)
			default:
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// with returns a copy of p extended by segs; p is not changed, so that
// siblings extending one path do not share an array.
func (p keyPath) with(segs ...any) keyPath {
	return append(slices.Clip(p), segs...)
}

// isPrefixOf reports whether p is q or an ancestor of q.
func (p keyPath) isPrefixOf(q keyPath) bool {
	return len(p) <= len(q) && slices.Equal(p, q[:len(p)])
}

// locate sets the line and column of each problem to the place of its
// path in the tree rooted at doc: the deepest node of the path that the
// file writes (a problem about a missing key is shown at the mapping
// that lacks it).
func locate(doc *yaml.Node, problems []Problem) {
	if doc == nil {
		return
	}
	for i := range problems {
		if problems[i].Line > 0 {
			continue
		}
		n := find(doc, problems[i].at, problems[i].onKey)
		if n != nil {
			problems[i].Line, problems[i].Column = n.Line, n.Column
		}
	}
}

// find returns the node of path under n (the key node when onKey), or
// the deepest node on the way.
func find(n *yaml.Node, path keyPath, onKey bool) *yaml.Node {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	for depth, seg := range path {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next, key *yaml.Node
		switch s := seg.(type) {
		case int:
			if n.Kind == yaml.SequenceNode && s >= 0 && s < len(n.Content) {
				next = n.Content[s]
			}
		case string:
			if n.Kind == yaml.MappingNode {
				key, next = lookupKey(n, s)
			}
		}
		if next == nil {
			return n
		}
		if onKey && key != nil && depth == len(path)-1 {
			return key
		}
		n = next
	}
	return n
}

// lookupKey returns the key and value nodes of key in the mapping m, its
// merged mappings ("<<: *base") included.
func lookupKey(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "<<" && m.Content[i].ShortTag() == "!!merge" {
			merged := m.Content[i+1]
			for merged.Kind == yaml.AliasNode && merged.Alias != nil {
				merged = merged.Alias
			}
			if merged.Kind == yaml.MappingNode {
				if k, v := lookupKey(merged, key); v != nil {
					return k, v
				}
			}
		}
	}
	return nil, nil
}

// sortProblems orders problems by their place in the file, those without
// a place last, keeping the order of problems at one place.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		if a.Line == 0 || b.Line == 0 {
			return cmp.Compare(b.Line, a.Line) // placed ones first
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

// unknownKey is the message of a key that is not one of known.
func unknownKey(key string, known []string) string {
	if s, ok := spell.Suggest(key, known); ok {
		return fmt.Sprintf("unknown key %q (did you mean %q?)", key, s)
	}
	return fmt.Sprintf("unknown key %q (known keys: %s)", key, strings.Join(known, ", "))
}

// yamlLine matches the place go-yaml puts at the start of its messages.
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// syntaxProblem turns an error of the YAML parser into a problem at the
// right line. go-yaml numbers some lines from 0 and others from 1, and
// names the line where a construct began rather than where it went wrong,
// so the line is found again: it is the last line of the shortest part of
// the file that fails with the same message. An unclosed "[" or "{" is
// reported at its own line.
func syntaxProblem(data []byte, err error) Problem {
	msg := err.Error()
	problem := yamlLine.ReplaceAllString(msg, "")
	p := Problem{Message: "not valid YAML: " + problem}
	if m := yamlLine.FindStringSubmatch(msg); len(m) > 1 && m[1] != "" {
		p.Line, _ = strconv.Atoi(m[1])
	}
	switch problem {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected node content":
		if line, col, open, ok := unclosedFlow(data, problem); ok {
			msg := `this "[" is not closed: a list written [a, b] needs its "]"`
			if open == '{' {
				msg = `this "{" is not closed: a mapping written {a: 1} needs its "}"`
			}
			return Problem{Line: line, Column: col, Message: msg}
		}
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(k int) bool {
		var n yaml.Node
		err := yaml.Unmarshal(bytes.Join(lines[:k], nil), &n)
		return err != nil && yamlLine.ReplaceAllString(err.Error(), "") == problem
	}
	if len(lines) > 0 && fails(len(lines)) {
		// The shortest failing prefix, by bisection: the prefixes of a
		// file fail from the line of its first error on.
		lo, hi := 0, len(lines)
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if fails(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		p.Line = hi
	}
	return p
}

// unclosedFlow returns the place and bracket of the first flow
// collection still open at the end of data (of the kind problem names,
// when it names one), skipping
// quoted strings and comments. In block context only a bracket that
// starts a value opens a collection ("a: [", "- [", "[" at a line's
// start); brackets inside plain text ("list_[ab]") do not.
func unclosedFlow(data []byte, problem string) (line, col int, open byte, ok bool) {
	type mark struct {
		b         byte
		line, col int
	}
	var stack []mark
	line, col = 1, 0
	valueStart := true // at a place where a value may start
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
			valueStart = true
			continue
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
			continue
		case (c == '"' || c == '\'') && (valueStart || len(stack) > 0):
			for i+1 < len(data) {
				i++
				col++
				if data[i] == '\n' {
					line, col = line+1, 0
				}
				if c == '"' && data[i] == '\\' && i+1 < len(data) {
					i++
					col++
					continue
				}
				if data[i] == c {
					if c == '\'' && i+1 < len(data) && data[i+1] == '\'' {
						i++
						col++
						continue
					}
					break
				}
			}
			valueStart = false
			continue
		case (c == '[' || c == '{') && (valueStart || len(stack) > 0):
			stack = append(stack, mark{c, line, col})
			valueStart = true
			continue
		case (c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		case c == ',' && len(stack) > 0:
			valueStart = true
			continue
		case c == ' ' || c == '\t':
			continue
		case c == '-' || c == ':' || c == '?':
			if i+1 == len(data) || data[i+1] == ' ' || data[i+1] == '\n' || data[i+1] == '\t' {
				valueStart = true
				continue
			}
		}
		valueStart = false
	}
	want := byte(0)
	switch {
	case strings.HasSuffix(problem, "']'"):
		want = '['
	case strings.HasSuffix(problem, "'}'"):
		want = '{'
	}
	for _, m := range stack {
		if want == 0 || m.b == want {
			return m.line, m.col, m.b, true
		}
	}
	return 0, 0, 0, false
}
