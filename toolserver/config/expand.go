package config

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// expandEnv expands the environment variables of every scalar of the
// tree at at (see [expandString]), recording what changed in exp. A
// plain scalar that expands to a number or a boolean becomes one, so
// that "retries: ${RETRIES:-3}" sets a number. Problems are reported
// with their place.
func expandEnv(n *yaml.Node, at keyPath, add func(Problem), exp *expansions) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "$") {
		written := n.Value
		n.Value = exp.expand(n.Value, func(msg string) {
			add(Problem{Line: n.Line, Column: n.Column, Path: at.String(), Message: msg, at: at})
		})
		if n.Value != written && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) == 0 {
			retyped := &yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}
			switch tag := retyped.ShortTag(); tag {
			case "!!int", "!!float", "!!bool":
				n.Tag = tag
			}
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			expandEnv(n.Content[i], at, add, exp)
			expandEnv(n.Content[i+1], at.with(n.Content[i].Value), add, exp)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			expandEnv(c, at.with(i), add, exp)
		}
	default:
		for _, c := range n.Content {
			expandEnv(c, at, add, exp)
		}
	}
}

// expansions remembers the strings of a file that environment variables
// changed, so that errors show them as the file writes them: a value
// taken from the environment is often a secret.
type expansions struct {
	// written maps an expanded value to its form in the file.
	written map[string]string
}

// expand returns s expanded as [expandString] does, and records it when
// the expansion changed it.
func (x *expansions) expand(s string, report func(msg string)) string {
	v := expandString(s, report)
	if v != s {
		if x.written == nil {
			x.written = map[string]string{}
		}
		x.written[v] = s
	}
	return v
}

// hide returns the problems with every expanded value that their
// messages quote (as Go and YAML quote values: "v", `v`) replaced by its
// form in the file.
func (x *expansions) hide(problems []Problem) []Problem {
	if len(x.written) == 0 {
		return problems
	}
	values := slices.Collect(maps.Keys(x.written))
	// Longest first: a value is replaced before another that is part of it.
	slices.SortFunc(values, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 4*len(values))
	for _, v := range values {
		raw := x.written[v]
		pairs = append(pairs, strconv.Quote(v), strconv.Quote(raw), "`"+v+"`", "`"+raw+"`")
		if len(v) > 10 {
			// go-yaml quotes a longer value by its first 7 bytes.
			pairs = append(pairs, "`"+v[:7]+"...`", "`"+raw+"`")
		}
	}
	r := strings.NewReplacer(pairs...)
	out := slices.Clone(problems)
	for i := range out {
		out[i].Message = r.Replace(out[i].Message)
		out[i].Path = r.Replace(out[i].Path)
	}
	return out
}

// expandString expands the references to environment variables in s:
//
//   - ${NAME} and $NAME are the variable's value; an unset variable is
//     reported. ${env:NAME} is the same (the spelling of VS Code and
//     Cursor).
//   - ${NAME:-default} is the variable's value, or default when the
//     variable is unset or empty; ${NAME:-} is thus the value or nothing,
//     never an error. The default is taken as written: it is not expanded
//     again and cannot hold "}".
//   - "$$" is a literal "$"; a "$" before anything but a letter, '_' or
//     '{' (as in "$5") is kept as it is.
//
// A host's own variable such as ${input:token}, a name that is not one,
// or a "${" left open is reported.
func expandString(s string, report func(msg string)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch next := s[i+1]; {
		case next == '$':
			b.WriteByte('$')
			i += 2
		case next == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				report(fmt.Sprintf("%q is not closed: a variable is written ${NAME}, or $$ for a literal $", s[i:]))
				return b.String()
			}
			b.WriteString(lookupRef(s[i+2:i+2+end], report))
			i += end + 3
		case isNameStart(next):
			j := i + 1
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			b.WriteString(lookupRef(s[i+1:j], report))
			i = j
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String()
}

// lookupRef returns the value of the reference ref, written between "${"
// and "}" (or after a bare "$").
func lookupRef(ref string, report func(msg string)) string {
	name, def, hasDefault := strings.Cut(ref, ":-")
	if env, ok := strings.CutPrefix(name, "env:"); ok {
		name = env
	} else if strings.Contains(name, ":") {
		report(fmt.Sprintf("${%s} is a variable of an MCP host, which metatools cannot resolve: use an environment variable, ${NAME}", name))
		return ""
	}
	if !isVariableName(name) {
		report(fmt.Sprintf("${%s}: %q is not a variable name (letters, digits and '_', not starting with a digit)", ref, name))
		return ""
	}
	v, ok := os.LookupEnv(name)
	switch {
	case hasDefault && v == "":
		return def
	case !ok:
		report(fmt.Sprintf("environment variable %s is not set (write ${%s:-default} to give it a default)", name, name))
	}
	return v
}

func isNameStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isNameByte(c byte) bool { return isNameStart(c) || '0' <= c && c <= '9' }

func isVariableName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}
