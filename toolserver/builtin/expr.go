package builtin

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/metatools-go/metatools/errors"
)

// Limits of arithmetic expressions. They bound the time of an evaluation
// (linear in the length) and its stack depth, whatever the input.
const (
	// maxExprBytes is the longest expression.
	maxExprBytes = 4096
	// maxExprDepth is the deepest nesting of parentheses, signs, powers
	// and function calls.
	maxExprDepth = 100
)

// evalExpr evaluates an arithmetic expression with the given variables.
//
// Grammar, from the loosest binding to the tightest:
//
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+") unary | power
//	power   = primary [ ("^" | "**") unary ]       right-associative
//	primary = number | name | name "(" [ sum { "," sum } ] ")" | "(" sum ")"
//
// so -2^2 is -4 and 2^3^2 is 512. Errors name the byte offset of the
// token at fault, and every intermediate result must be a finite real
// number: division by zero, overflow and results such as sqrt(-1) are
// errors, never NaN or infinity.
func evalExpr(src string, vars map[string]float64) (float64, error) {
	if len(src) > maxExprBytes {
		return 0, fmt.Errorf("expression is %d bytes long, the limit is %d", len(src), maxExprBytes)
	}
	if err := checkVariables(vars); err != nil {
		return 0, err
	}
	p := exprParser{src: src, vars: vars}
	p.skipSpace()
	if p.pos == len(src) {
		return 0, errors.New("empty expression")
	}
	v, err := p.parseSum()
	if err != nil {
		return 0, err
	}
	p.skipSpace()
	if p.pos < len(src) {
		return 0, p.unexpected()
	}
	return v + 0, nil // turns -0 into 0
}

// checkVariables reports the first variable, in name order, that is not
// usable. The order is only sorted when there is an error to report.
func checkVariables(vars map[string]float64) error {
	for name, value := range vars {
		if checkVariable(name, value) != nil {
			for _, name := range slices.Sorted(maps.Keys(vars)) {
				if err := checkVariable(name, vars[name]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkVariable(name string, value float64) error {
	switch {
	case !isName(name):
		return fmt.Errorf("variable name %q is not a name: use ASCII letters, digits and '_', not starting with a digit", name)
	case constants[name] != 0:
		return fmt.Errorf("variable %q would hide the constant of that name", name)
	case functions[name].call != nil:
		return fmt.Errorf("variable %q would hide the function of that name", name)
	case math.IsNaN(value) || math.IsInf(value, 0):
		return fmt.Errorf("variable %q is not a finite number", name)
	}
	return nil
}

// exprParser evaluates an expression as it parses it.
type exprParser struct {
	src   string
	pos   int
	depth int
	vars  map[string]float64
}

func (p *exprParser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the byte at the current position, or 0 at the end.
func (p *exprParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// unexpected returns the error for the token at the current position.
func (p *exprParser) unexpected() error {
	if p.pos >= len(p.src) {
		return fmt.Errorf("unexpected end of expression at offset %d", p.pos)
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return fmt.Errorf("unexpected %q at offset %d", r, p.pos)
}

func (p *exprParser) parseSum() (float64, error) {
	v, err := p.parseProduct()
	if err != nil {
		return 0, err
	}
	for {
		p.skipSpace()
		op, at := p.peek(), p.pos
		if op != '+' && op != '-' {
			return v, nil
		}
		p.pos++
		r, err := p.parseProduct()
		if err != nil {
			return 0, err
		}
		what := "'+'"
		if op == '+' {
			v += r
		} else {
			v, what = v-r, "'-'"
		}
		if err := checkFinite(v, what, at); err != nil {
			return 0, err
		}
	}
}

func (p *exprParser) parseProduct() (float64, error) {
	v, err := p.parseUnary()
	if err != nil {
		return 0, err
	}
	for {
		p.skipSpace()
		op, at := p.peek(), p.pos
		if op != '*' && op != '/' && op != '%' {
			return v, nil
		}
		p.pos++
		r, err := p.parseUnary()
		if err != nil {
			return 0, err
		}
		var what string
		switch op {
		case '*':
			v, what = v*r, "'*'"
		case '/', '%':
			if r == 0 {
				return 0, fmt.Errorf("division by zero at offset %d", at)
			}
			if op == '/' {
				v, what = v/r, "'/'"
			} else {
				v, what = math.Mod(v, r), "'%'"
			}
		}
		if err := checkFinite(v, what, at); err != nil {
			return 0, err
		}
	}
}

// parseUnary is the one step every level of nesting goes through, so it
// is where the depth is bounded.
func (p *exprParser) parseUnary() (float64, error) {
	p.skipSpace()
	if p.depth == maxExprDepth {
		return 0, fmt.Errorf("expression nests more than %d levels deep at offset %d", maxExprDepth, p.pos)
	}
	p.depth++
	defer func() { p.depth-- }()
	switch p.peek() {
	case '-':
		p.pos++
		v, err := p.parseUnary()
		return -v, err
	case '+':
		p.pos++
		return p.parseUnary()
	}
	return p.parsePower()
}

func (p *exprParser) parsePower() (float64, error) {
	base, err := p.parsePrimary()
	if err != nil {
		return 0, err
	}
	p.skipSpace()
	at := p.pos
	switch {
	case strings.HasPrefix(p.src[p.pos:], "**"):
		p.pos += 2
	case p.peek() == '^':
		p.pos++
	default:
		return base, nil
	}
	exp, err := p.parseUnary()
	if err != nil {
		return 0, err
	}
	v := math.Pow(base, exp)
	return v, checkFinite(v, "'^'", at)
}

func (p *exprParser) parsePrimary() (float64, error) {
	p.skipSpace()
	c := p.peek()
	switch {
	case isDigit(c) || c == '.':
		return p.parseNumber()
	case isNameStart(c):
		return p.parseName()
	case c == '(':
		open := p.pos
		p.pos++
		v, err := p.parseSum()
		if err != nil {
			return 0, err
		}
		return v, p.closeParen(open)
	}
	return 0, p.unexpected()
}

// closeParen consumes the ')' that closes the '(' at offset open.
func (p *exprParser) closeParen(open int) error {
	p.skipSpace()
	switch p.peek() {
	case ')':
		p.pos++
		return nil
	case 0:
		if p.pos == len(p.src) {
			return fmt.Errorf("missing ')' for the '(' at offset %d", open)
		}
	}
	return p.unexpected()
}

func (p *exprParser) parseNumber() (float64, error) {
	start := p.pos
	p.skipDigits()
	if p.peek() == '.' {
		p.pos++
		p.skipDigits()
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		// An exponent only when digits follow: "2e" is 2 followed by e.
		j := p.pos + 1
		if j < len(p.src) && (p.src[j] == '+' || p.src[j] == '-') {
			j++
		}
		if j < len(p.src) && isDigit(p.src[j]) {
			p.pos = j
			p.skipDigits()
		}
	}
	text := p.src[start:p.pos]
	if text == "." {
		p.pos = start
		return 0, p.unexpected()
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, fmt.Errorf("number %s at offset %d is too large", text, start)
	}
	return v, nil
}

func (p *exprParser) skipDigits() {
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
	}
}

func (p *exprParser) parseName() (float64, error) {
	start := p.pos
	for p.pos < len(p.src) && isNamePart(p.src[p.pos]) {
		p.pos++
	}
	name := p.src[start:p.pos]
	p.skipSpace()
	if p.peek() == '(' {
		return p.parseCall(name, start)
	}
	if v, ok := p.vars[name]; ok {
		return v, nil
	}
	if v, ok := constants[name]; ok {
		return v, nil
	}
	if functions[name].call != nil {
		return 0, fmt.Errorf("function %s at offset %d needs its arguments in parentheses, as in %s(x)", name, start, name)
	}
	return 0, fmt.Errorf("unknown name %q at offset %d (known: the constants pi and e%s)", name, start, p.variablesHint())
}

// variablesHint lists the variables for an error message.
func (p *exprParser) variablesHint() string {
	if len(p.vars) == 0 {
		return ", no variables"
	}
	return ", the variables " + strings.Join(slices.Sorted(maps.Keys(p.vars)), ", ")
}

func (p *exprParser) parseCall(name string, at int) (float64, error) {
	fn := functions[name]
	if fn.call == nil {
		return 0, fmt.Errorf("unknown function %q at offset %d", name, at)
	}
	open := p.pos
	p.pos++
	var buf [4]float64
	args := buf[:0]
	p.skipSpace()
	if p.peek() == ')' {
		p.pos++
	} else {
		for {
			v, err := p.parseSum()
			if err != nil {
				return 0, err
			}
			args = append(args, v)
			p.skipSpace()
			if p.peek() != ',' {
				break
			}
			p.pos++
		}
		if err := p.closeParen(open); err != nil {
			return 0, err
		}
	}
	if err := fn.checkArity(name, len(args), at); err != nil {
		return 0, err
	}
	v, err := fn.call(args)
	if err != nil {
		return 0, fmt.Errorf("%s at offset %d: %w", name, at, err)
	}
	return v, checkFinite(v, name, at)
}

// checkFinite refuses NaN and infinite results of an operation.
func checkFinite(v float64, what string, at int) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("result of %s at offset %d is not a real number", what, at)
	case math.IsInf(v, 0):
		return fmt.Errorf("result of %s at offset %d is too large (infinite)", what, at)
	}
	return nil
}

func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isNameStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isNamePart(c byte) bool  { return isNameStart(c) || isDigit(c) }

func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNamePart(s[i]) {
			return false
		}
	}
	return true
}

// constants are the named constants; none is zero.
var constants = map[string]float64{"pi": math.Pi, "e": math.E}

// function is a function of expressions.
type function struct {
	minArgs int
	maxArgs int // negative: no limit
	call    func(args []float64) (float64, error)
}

func (f function) checkArity(name string, n, at int) error {
	if n >= f.minArgs && (f.maxArgs < 0 || n <= f.maxArgs) {
		return nil
	}
	var want string
	switch {
	case f.maxArgs < 0:
		want = fmt.Sprintf("at least %d", f.minArgs)
	case f.minArgs == f.maxArgs:
		want = strconv.Itoa(f.minArgs)
	default:
		want = fmt.Sprintf("%d or %d", f.minArgs, f.maxArgs)
	}
	plural := "s"
	if strings.HasSuffix(want, " 1") || want == "1" {
		plural = ""
	}
	return fmt.Errorf("%s takes %s argument%s, got %d (at offset %d)", name, want, plural, n, at)
}

func unaryFunc(f func(float64) float64) function {
	return function{1, 1, func(a []float64) (float64, error) { return f(a[0]), nil }}
}

func binaryFunc(f func(float64, float64) float64) function {
	return function{2, 2, func(a []float64) (float64, error) { return f(a[0], a[1]), nil }}
}

// functions are the functions of expressions, by name.
var functions = map[string]function{
	"sqrt":  unaryFunc(math.Sqrt),
	"cbrt":  unaryFunc(math.Cbrt),
	"abs":   unaryFunc(math.Abs),
	"floor": unaryFunc(math.Floor),
	"ceil":  unaryFunc(math.Ceil),
	"trunc": unaryFunc(math.Trunc),
	"ln":    unaryFunc(math.Log),
	"log10": unaryFunc(math.Log10),
	"log2":  unaryFunc(math.Log2),
	"exp":   unaryFunc(math.Exp),
	"sin":   unaryFunc(math.Sin),
	"cos":   unaryFunc(math.Cos),
	"tan":   unaryFunc(math.Tan),
	"asin":  unaryFunc(math.Asin),
	"acos":  unaryFunc(math.Acos),
	"atan":  unaryFunc(math.Atan),
	"pow":   binaryFunc(math.Pow),
	"hypot": binaryFunc(math.Hypot),
	"atan2": binaryFunc(math.Atan2),
	"min":   {1, -1, func(a []float64) (float64, error) { return slices.Min(a), nil }},
	"max":   {1, -1, func(a []float64) (float64, error) { return slices.Max(a), nil }},
	"round": {1, 2, roundDigits},
}

// roundDigits rounds half away from zero, to a number of decimal digits
// when a second argument gives it (negative: to tens, hundreds...).
func roundDigits(a []float64) (float64, error) {
	if len(a) == 1 {
		return math.Round(a[0]), nil
	}
	digits := a[1]
	if digits != math.Trunc(digits) || math.Abs(digits) > 15 {
		return 0, errors.New("the number of digits must be a whole number from -15 to 15")
	}
	scale := math.Pow(10, digits)
	scaled := a[0] * scale
	if math.Abs(scaled) >= 1<<53 {
		// Beyond 2^53 a float64 has no fractional digits to round.
		return a[0], nil
	}
	return math.Round(scaled) / scale, nil
}
