package tooldocs_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkTypeScript checks that src is a well-formed TypeScript declaration
// file of the kind tooldocs.TypeScript renders, without a TypeScript
// compiler (none is installed with the repository's npm packages): it
// parses the grammar of interface, type alias and `declare const`
// declarations, object literal types (properties, methods, call and index
// signatures), unions, intersections, arrays, tuples, literal types and
// generic references; and it checks what a compiler would reject in them:
// a type name declared twice, a reference to an undeclared type, a member
// declared twice in one object type, a generic with the wrong number of
// type arguments, and a comment that does not end.
func checkTypeScript(src string) error {
	toks, err := lexTS(src)
	if err != nil {
		return err
	}
	p := &tsParser{toks: toks, declared: map[string]bool{}}
	for !p.at(tkEOF, "") {
		if err := p.decl(); err != nil {
			return err
		}
	}
	for _, ref := range p.refs {
		if !p.declared[ref.name] {
			return fmt.Errorf("line %d: type %s is not declared", ref.line, ref.name)
		}
	}
	return nil
}

type tkKind int

const (
	tkEOF tkKind = iota
	tkIdent
	tkString
	tkNumber
	tkPunct
)

type tsToken struct {
	kind tkKind
	text string
	line int
}

// lexTS splits src into tokens, dropping white space and comments.
func lexTS(src string) ([]tsToken, error) {
	var toks []tsToken
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: comment does not end", line)
			}
			body := src[i : i+2+end+2]
			line += strings.Count(body, "\n")
			i += len(body)
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			i += end
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				switch src[j] {
				case '\\':
					j++
				case '\n':
					return nil, fmt.Errorf("line %d: line break in a string literal", line)
				}
			}
			if j >= len(src) {
				return nil, fmt.Errorf("line %d: string literal does not end", line)
			}
			lit := src[i : j+1]
			if _, err := strconv.Unquote(lit); err != nil {
				return nil, fmt.Errorf("line %d: string literal %s: %w", line, lit, err)
			}
			toks = append(toks, tsToken{tkString, lit, line})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && strings.IndexByte("0123456789.eE+-", src[j]) >= 0 {
				if (src[j] == '+' || src[j] == '-') && src[j-1] != 'e' && src[j-1] != 'E' {
					break
				}
				j++
			}
			if _, err := strconv.ParseFloat(src[i:j], 64); err != nil {
				return nil, fmt.Errorf("line %d: number %q: %w", line, src[i:j], err)
			}
			toks = append(toks, tsToken{tkNumber, src[i:j], line})
			i = j
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, tsToken{tkIdent, src[i:j], line})
			i = j
		case strings.HasPrefix(src[i:], "..."):
			toks = append(toks, tsToken{tkPunct, "...", line})
			i += 3
		case strings.IndexByte("{}()[]<>:;,?|&=-", c) >= 0:
			toks = append(toks, tsToken{tkPunct, string(c), line})
			i++
		default:
			return nil, fmt.Errorf("line %d: unexpected character %q", line, c)
		}
	}
	return append(toks, tsToken{kind: tkEOF, line: line}), nil
}

// tsKeywordTypes are the type keywords and literal keywords.
var tsKeywordTypes = []string{"string", "number", "boolean", "null", "undefined", "unknown", "never", "any", "object", "void", "true", "false", "symbol", "bigint"}

// jsReservedWords are the words that cannot name a constant in strict
// code: ECMAScript's reserved words and strict mode reserved words
// (ECMAScript 2025 §12.7.2), and arguments and eval (§13.1.1). The
// checker keeps its own list, to check tooldocs' refusal of such a Root.
var jsReservedWords = []string{
	"await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
	"else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
	"instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof",
	"var", "void", "while", "with", "yield", "implements", "interface", "let", "package", "private",
	"protected", "public", "static", "arguments", "eval",
}

// tsGenerics are the library generics the renderer may use, with their
// arity.
var tsGenerics = map[string]int{"Promise": 1, "Record": 2, "Array": 1}

type tsRef struct {
	name string
	line int
}

type tsParser struct {
	toks     []tsToken
	pos      int
	declared map[string]bool
	refs     []tsRef
}

func (p *tsParser) peek() tsToken { return p.toks[p.pos] }

func (p *tsParser) at(kind tkKind, text string) bool {
	t := p.peek()
	return t.kind == kind && (text == "" || t.text == text)
}

func (p *tsParser) accept(kind tkKind, text string) bool {
	if p.at(kind, text) {
		p.pos++
		return true
	}
	return false
}

func (p *tsParser) expect(kind tkKind, text string) (tsToken, error) {
	t := p.peek()
	if !p.at(kind, text) {
		want := text
		if want == "" {
			want = [...]string{"end of file", "identifier", "string", "number", "punctuation"}[kind]
		}
		return t, fmt.Errorf("line %d: want %s, got %q", t.line, want, t.text)
	}
	p.pos++
	return t, nil
}

func (p *tsParser) declare(name tsToken) error {
	if slices.Contains(tsKeywordTypes, name.text) {
		return fmt.Errorf("line %d: %s is a keyword", name.line, name.text)
	}
	if _, builtin := tsGenerics[name.text]; builtin || p.declared[name.text] {
		return fmt.Errorf("line %d: type %s is declared twice", name.line, name.text)
	}
	p.declared[name.text] = true
	return nil
}

func (p *tsParser) decl() error {
	switch {
	case p.accept(tkIdent, "interface"):
		name, err := p.expect(tkIdent, "")
		if err != nil {
			return err
		}
		if err := p.declare(name); err != nil {
			return err
		}
		if _, err := p.expect(tkPunct, "{"); err != nil {
			return err
		}
		return p.members()
	case p.accept(tkIdent, "type"):
		name, err := p.expect(tkIdent, "")
		if err != nil {
			return err
		}
		if err := p.declare(name); err != nil {
			return err
		}
		if _, err := p.expect(tkPunct, "="); err != nil {
			return err
		}
		if err := p.typ(); err != nil {
			return err
		}
		_, err = p.expect(tkPunct, ";")
		return err
	case p.accept(tkIdent, "declare"):
		if _, err := p.expect(tkIdent, "const"); err != nil {
			return err
		}
		name, err := p.expect(tkIdent, "")
		if err != nil {
			return err
		}
		if slices.Contains(jsReservedWords, name.text) {
			return fmt.Errorf("line %d: %s is a reserved word", name.line, name.text)
		}
		if _, err := p.expect(tkPunct, ":"); err != nil {
			return err
		}
		if err := p.typ(); err != nil {
			return err
		}
		_, err = p.expect(tkPunct, ";")
		return err
	}
	t := p.peek()
	return fmt.Errorf("line %d: want a declaration, got %q", t.line, t.text)
}

// members parses the members of an object type up to its closing brace,
// which it consumes.
func (p *tsParser) members() error {
	seen := map[string]string{}
	for !p.accept(tkPunct, "}") {
		t := p.peek()
		switch {
		case p.accept(tkPunct, "["):
			if _, err := p.expect(tkIdent, ""); err != nil {
				return err
			}
			if _, err := p.expect(tkPunct, ":"); err != nil {
				return err
			}
			if !p.accept(tkIdent, "string") && !p.accept(tkIdent, "number") {
				return fmt.Errorf("line %d: an index signature's key is string or number", t.line)
			}
			if _, err := p.expect(tkPunct, "]"); err != nil {
				return err
			}
			if seen["[index]"] != "" {
				return fmt.Errorf("line %d: second index signature", t.line)
			}
			seen["[index]"] = "index"
			if err := p.annotation(); err != nil {
				return err
			}
		case p.at(tkPunct, "("):
			if err := p.signature(); err != nil {
				return err
			}
		case t.kind == tkIdent || t.kind == tkString || t.kind == tkNumber:
			p.pos++
			name := t.text
			if t.kind == tkString {
				name, _ = strconv.Unquote(t.text)
			}
			optional := p.accept(tkPunct, "?")
			// Methods may be overloaded: a name declared again must be
			// a method each time, optional each time or never.
			kind := "property"
			if p.at(tkPunct, "(") {
				kind = "method"
				if optional {
					kind = "optional method"
				}
			}
			if prev, ok := seen[name]; ok && (prev != kind || kind == "property") {
				return fmt.Errorf("line %d: member %q is declared twice", t.line, name)
			}
			seen[name] = kind
			if kind != "property" {
				if err := p.signature(); err != nil {
					return err
				}
			} else if err := p.annotation(); err != nil {
				return err
			}
		default:
			return fmt.Errorf("line %d: want a member, got %q", t.line, t.text)
		}
		if !p.accept(tkPunct, ";") && !p.accept(tkPunct, ",") && !p.at(tkPunct, "}") {
			t := p.peek()
			return fmt.Errorf("line %d: want ; after a member, got %q", t.line, t.text)
		}
	}
	return nil
}

// annotation parses ": type".
func (p *tsParser) annotation() error {
	if _, err := p.expect(tkPunct, ":"); err != nil {
		return err
	}
	return p.typ()
}

// signature parses "(params): type".
func (p *tsParser) signature() error {
	if _, err := p.expect(tkPunct, "("); err != nil {
		return err
	}
	for i := 0; !p.accept(tkPunct, ")"); i++ {
		if i > 0 {
			if _, err := p.expect(tkPunct, ","); err != nil {
				return err
			}
		}
		if _, err := p.expect(tkIdent, ""); err != nil {
			return err
		}
		p.accept(tkPunct, "?")
		if err := p.annotation(); err != nil {
			return err
		}
	}
	return p.annotation()
}

func (p *tsParser) typ() error {
	p.accept(tkPunct, "|")
	for {
		if err := p.intersection(); err != nil {
			return err
		}
		if !p.accept(tkPunct, "|") {
			return nil
		}
	}
}

func (p *tsParser) intersection() error {
	p.accept(tkPunct, "&")
	for {
		if err := p.postfix(); err != nil {
			return err
		}
		if !p.accept(tkPunct, "&") {
			return nil
		}
	}
}

func (p *tsParser) postfix() error {
	if err := p.primary(); err != nil {
		return err
	}
	for p.at(tkPunct, "[") && p.toks[p.pos+1].text == "]" {
		p.pos += 2
	}
	return nil
}

func (p *tsParser) primary() error {
	t := p.peek()
	switch {
	case p.accept(tkPunct, "("):
		if err := p.typ(); err != nil {
			return err
		}
		_, err := p.expect(tkPunct, ")")
		return err
	case p.accept(tkPunct, "{"):
		return p.members()
	case p.accept(tkPunct, "["):
		for i := 0; !p.accept(tkPunct, "]"); i++ {
			if i > 0 {
				if _, err := p.expect(tkPunct, ","); err != nil {
					return err
				}
			}
			rest := p.accept(tkPunct, "...")
			if err := p.typ(); err != nil {
				return err
			}
			if !rest {
				p.accept(tkPunct, "?")
			}
		}
		return nil
	case p.accept(tkPunct, "-"):
		_, err := p.expect(tkNumber, "")
		return err
	case p.accept(tkString, ""), p.accept(tkNumber, ""):
		return nil
	case p.accept(tkIdent, ""):
		if slices.Contains(tsKeywordTypes, t.text) {
			return nil
		}
		args := 0
		if p.accept(tkPunct, "<") {
			for {
				if err := p.typ(); err != nil {
					return err
				}
				args++
				if !p.accept(tkPunct, ",") {
					break
				}
			}
			if _, err := p.expect(tkPunct, ">"); err != nil {
				return err
			}
		}
		if n, generic := tsGenerics[t.text]; generic {
			if args != n {
				return fmt.Errorf("line %d: %s takes %d type arguments, got %d", t.line, t.text, n, args)
			}
			return nil
		}
		if args > 0 {
			return fmt.Errorf("line %d: %s is not generic", t.line, t.text)
		}
		p.refs = append(p.refs, tsRef{t.text, t.line})
		return nil
	}
	return fmt.Errorf("line %d: want a type, got %q", t.line, t.text)
}

// TestCheckTypeScript shows that the checker tells well-formed
// declarations from broken ones, so that its approval means something.
func TestCheckTypeScript(t *testing.T) {
	good := []string{
		"interface A { b?: string; \"c-d\": number[]; e(args?: {}): Promise<unknown>; (x: A): null; [key: string]: unknown }\ndeclare const a: A;\n",
		"interface A { run(id: \"a\", args: {}): Promise<unknown>; run(id: \"b:c\", args?: A): Promise<A>; }\n",
		"type T = [string, number?, ...boolean[]] | { [key: string]: T } & { x: -1 } | (\"a\" | 2)[];\n",
		"/** doc * / with stars */ type U = never;\n",
	}
	for _, src := range good {
		require.NoError(t, checkTypeScript(src), src)
	}
	bad := map[string]string{
		"interface A { b: string; b?: number }":                             "declared twice",
		"interface A { b(): A; b: A }":                                      "declared twice",
		"interface A { b(): A; b?(): A }":                                   "declared twice",
		"interface A { b: A; b: A }":                                        "declared twice",
		"interface Class {}\ndeclare const class: Class;":                   "reserved word",
		"type A = string;\ninterface A {}":                                  "declared twice",
		"type A = B;":                                                       "not declared",
		"type A = Promise<string, number>;":                                 "type arguments",
		"/** never ends type A = string;":                                   "does not end",
		"/** a */ b */ type A = string;":                                    "unexpected character",
		"interface A { b: string c: number }":                               "want ;",
		"type A = { b: };":                                                  "want a type",
		"type A = string | ;":                                               "want a type",
		"interface A { \"x\ny\": string }":                                  "line break",
		"type A = [string?, ...number[]?];":                                 "want ,",
		"declare const tools: Tools;":                                       "not declared",
		"interface Record { }":                                              "declared twice",
		"type A = string\ntype B = number;":                                 "want ;",
		"interface A { [key: boolean]: string }":                            "index signature",
		"type A = string[;":                                                 "want ;",
		"type A = { a: string; [k: string]: string; [j: string]: number };": "second index",
	}
	for src, want := range bad {
		err := checkTypeScript(src)
		if assert.Error(t, err, src) {
			assert.Contains(t, err.Error(), want, src)
		}
	}
}
