package builtin

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

// Limits of the values a json:query program builds. The time limit of a
// call stops a program between two of its steps, but one step, such as
// "x" * 1000000000, can take any time and memory: these limits are checked
// before such a step runs, so that no single step builds more than they
// allow.
const (
	// maxQueryStringBytes is the longest string a step may build: by
	// repetition, concatenation or join.
	maxQueryStringBytes = 8 << 20
	// maxQueryArrayLen is the most elements of an array a step may build:
	// collected by [...], concatenated, split from a string or exploded.
	maxQueryArrayLen = 1 << 20
	// maxQueryIndex is the largest array index a program may set: setting
	// .[n] makes an array of n+1 elements.
	maxQueryIndex = maxQueryArrayLen
	// maxQueryIntegerBits is the longest integer a multiplication may
	// make; gojq's integers have arbitrary precision.
	maxQueryIntegerBits = 1 << 16
	// maxQueryNumberDigits is the longest run of digits tonumber and
	// fromjson may read: a long one becomes a big integer, whose parsing
	// takes time quadratic in its length.
	maxQueryNumberDigits = maxQueryIntegerBits * 3 / 10
	// maxQueryTraversal bounds the size of a value (one unit per value,
	// plus the bytes of its strings and keys) that an operation walking it
	// whole may read: tojson, comparisons, sorting, string interpolation.
	// A program can build, in a few steps, values whose parts are shared,
	// [., .] repeated, far larger than the memory they take; walking one
	// is a single step.
	maxQueryTraversal = 8 << 20
	// maxQueryMatches is the most matches a global regular-expression
	// function may find: each becomes an object.
	maxQueryMatches = 1 << 16
)

// guardPrefix starts the names of the functions and variables the
// guarded program uses; a program cannot use them itself.
const guardPrefix = "_metatools_"

// The guard functions. Each returns its input, or an error when the
// operation that follows it would break a limit.
const (
	guardAddOperands     = guardPrefix + "add_operands"
	guardMulOperands     = guardPrefix + "multiply_operands"
	guardCompareOperands = guardPrefix + "compare_operands"
	guardTraversable     = guardPrefix + "traversable"
	guardArrayLength     = guardPrefix + "array_length"
	guardIndex           = guardPrefix + "index"
	guardPath            = guardPrefix + "path"
	guardJoin            = guardPrefix + "join"
	guardSplit           = guardPrefix + "split"
	guardExplode         = guardPrefix + "explode"
	guardNumberText      = guardPrefix + "number_text"
	guardMatches         = guardPrefix + "matches"
	guardVar             = "$" + guardPrefix
	// guardLimit is the builtin limit, under a name a program cannot
	// redefine.
	guardLimit = guardPrefix + "limit"
)

// queryLimitError is the error of a step that would break a limit.
func queryLimitError(format string, args ...any) error {
	return fmt.Errorf("json:query limit: "+format, args...)
}

// guardFunctions are the compiler options that define the guard
// functions.
func guardFunctions() []gojq.CompilerOption {
	return []gojq.CompilerOption{
		gojq.WithFunction(guardAddOperands, 2, 2, checkAddOperands),
		gojq.WithFunction(guardMulOperands, 2, 2, checkMulOperands),
		gojq.WithFunction(guardCompareOperands, 2, 2, checkCompareOperands),
		gojq.WithFunction(guardTraversable, 0, 0, func(v any, _ []any) any { return checkTraversable(v) }),
		gojq.WithFunction(guardArrayLength, 0, 0, checkArrayLength),
		gojq.WithFunction(guardIndex, 0, 0, func(v any, _ []any) any { return checkIndex(v) }),
		gojq.WithFunction(guardPath, 0, 0, checkPath),
		gojq.WithFunction(guardJoin, 1, 1, checkJoin),
		gojq.WithFunction(guardSplit, 1, 1, checkSplit),
		gojq.WithFunction(guardExplode, 0, 0, checkExplode),
		gojq.WithFunction(guardNumberText, 0, 0, checkNumberText),
		gojq.WithFunction(guardMatches, 2, 2, checkMatches),
	}
}

// checkAddOperands checks l + r: a string or an array as long as the two.
func checkAddOperands(_ any, args []any) any {
	l, r := args[0], args[1]
	switch l := l.(type) {
	case string:
		if r, ok := r.(string); ok && len(l)+len(r) > maxQueryStringBytes {
			return stringTooLong(len(l) + len(r))
		}
	case []any:
		if r, ok := r.([]any); ok && len(l)+len(r) > maxQueryArrayLen {
			return arrayTooLong()
		}
	}
	return []any{l, r}
}

// checkMulOperands checks l * r: a string repeated or the product of two
// integers.
func checkMulOperands(_ any, args []any) any {
	l, r := args[0], args[1]
	if s, ok := l.(string); ok {
		if err := checkRepetition(s, r); err != nil {
			return err
		}
	} else if s, ok := r.(string); ok {
		if err := checkRepetition(s, l); err != nil {
			return err
		}
	} else if lb, rb := integerBits(l), integerBits(r); lb+rb > maxQueryIntegerBits {
		return queryLimitError("the product would have up to %d bits, the limit is %d", lb+rb, maxQueryIntegerBits)
	}
	return []any{l, r}
}

func checkRepetition(s string, count any) error {
	n, ok := gojq.ToFloat64(count)
	if !ok || !(n > 0) || len(s) == 0 {
		return nil
	}
	if size := float64(len(s)) * math.Floor(n); size > maxQueryStringBytes {
		return stringTooLong(int(min(size, math.MaxInt64/2)))
	}
	return nil
}

// integerBits is the length in bits of an integer value, 0 for others.
func integerBits(v any) int {
	switch v := v.(type) {
	case int:
		return 64
	case *big.Int:
		return v.BitLen()
	}
	return 0
}

// checkCompareOperands checks that a comparison of l and r, which may
// walk both whole, stays within the traversal limit.
func checkCompareOperands(_ any, args []any) any {
	if left := valueSize(args[0], maxQueryTraversal); left > maxQueryTraversal || valueSize(args[1], maxQueryTraversal-left) > maxQueryTraversal-left {
		return traversalTooLarge()
	}
	return []any{args[0], args[1]}
}

func checkTraversable(v any) any {
	if valueSize(v, maxQueryTraversal) > maxQueryTraversal {
		return traversalTooLarge()
	}
	return v
}

func checkArrayLength(v any, _ []any) any {
	if a, ok := v.([]any); ok && len(a) > maxQueryArrayLen {
		return arrayTooLong()
	}
	return v
}

func checkIndex(v any) any {
	if n, ok := gojq.ToFloat64(v); ok && n > maxQueryIndex {
		return queryLimitError("array index %s is beyond the limit of %d", strconv.FormatFloat(n, 'f', -1, 64), maxQueryIndex)
	}
	return v
}

// checkPath checks the indexes of a path given to setpath.
func checkPath(v any, _ []any) any {
	if path, ok := v.([]any); ok {
		for _, step := range path {
			if err, isErr := checkIndex(step).(error); isErr {
				return err
			}
			if m, ok := step.(map[string]any); ok {
				for _, key := range []string{"start", "end"} {
					if err, isErr := checkIndex(m[key]).(error); isErr {
						return err
					}
				}
			}
		}
	}
	return v
}

// checkJoin checks join(sep) of the array v.
func checkJoin(v any, args []any) any {
	a, ok := v.([]any)
	sep, sepOK := args[0].(string)
	if !ok || !sepOK || len(a) == 0 {
		return v
	}
	size := (len(a) - 1) * len(sep)
	for _, e := range a {
		switch e := e.(type) {
		case string:
			size += len(e)
		case nil:
		default:
			size += 32 // a number or a boolean
		}
		if size > maxQueryStringBytes {
			break
		}
	}
	if size > maxQueryStringBytes {
		return stringTooLong(size)
	}
	return v
}

// checkSplit checks split(sep) of the string v.
func checkSplit(v any, args []any) any {
	s, ok := v.(string)
	sep, sepOK := args[0].(string)
	if ok && sepOK && strings.Count(s, sep) >= maxQueryArrayLen {
		return arrayTooLong()
	}
	return v
}

func checkExplode(v any, _ []any) any {
	if s, ok := v.(string); ok && utf8.RuneCountInString(s) > maxQueryArrayLen {
		return arrayTooLong()
	}
	return v
}

// checkNumberText checks the text tonumber or fromjson reads: no run of
// digits longer than maxQueryNumberDigits.
func checkNumberText(v any, _ []any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	run := 0
	for i := range len(s) {
		if '0' <= s[i] && s[i] <= '9' {
			if run++; run > maxQueryNumberDigits {
				return queryLimitError("a number of more than %d digits, the limit is %d digits", run-1, maxQueryNumberDigits)
			}
		} else {
			run = 0
		}
	}
	return v
}

// checkMatches checks a regular-expression function on the string v:
// with the global flag, the number of matches. Flags that change what
// matches are applied as gojq does; a pattern Go cannot compile is left
// for the function to report.
func checkMatches(v any, args []any) any {
	s, ok := v.(string)
	pattern, patternOK := args[0].(string)
	flags, _ := args[1].(string)
	if !ok || !patternOK || !strings.Contains(flags, "g") || strings.Contains(flags, "x") {
		return v
	}
	prefix := ""
	for _, f := range []string{"i", "s"} {
		if strings.Contains(flags, f) {
			prefix += "(?" + f + ")"
		}
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return v
	}
	if n := len(re.FindAllStringIndex(s, maxQueryMatches+1)); n > maxQueryMatches {
		return queryLimitError("more than %d matches, the limit is %d matches", maxQueryMatches, maxQueryMatches)
	}
	return v
}

func stringTooLong(size int) error {
	return queryLimitError("the string would be %d bytes long, the limit is %d bytes", size, maxQueryStringBytes)
}

func arrayTooLong() error {
	return queryLimitError("the array would have more than %d elements", maxQueryArrayLen)
}

func traversalTooLarge() error {
	return queryLimitError("the value is too large to walk whole: its size is more than %d, the limit is %d (one per value, plus the bytes of strings and keys)",
		maxQueryTraversal, maxQueryTraversal)
}

// valueSize returns the size of v, one per value plus the bytes of its
// strings and keys, counting shared parts each time they appear; it
// stops counting, and returns a number above limit, once the size is
// above limit, so that it takes at most limit steps.
func valueSize(v any, limit int) int {
	size := 0
	var walk func(v any)
	walk = func(v any) {
		if size > limit {
			return
		}
		size++
		switch v := v.(type) {
		case string:
			size += len(v)
		case *big.Int:
			size += v.BitLen() / 8
		case []any:
			for _, e := range v {
				walk(e)
				if size > limit {
					return
				}
			}
		case map[string]any:
			for k, e := range v {
				size += len(k)
				walk(e)
				if size > limit {
					return
				}
			}
		}
	}
	walk(v)
	return size
}

// guardProgram rewrites a parsed program with [guardQuery], and defines
// the jq functions the rewritten program uses ahead of the program's own,
// so that a program's definitions cannot change them.
func guardProgram(q *gojq.Query) {
	guardQuery(q)
	limitDef := &gojq.FuncDef{Name: guardLimit, Args: []string{"$n", "f"}, Body: call("limit", variable("$n"), call("f"))}
	q.FuncDefs = append([]*gojq.FuncDef{limitDef}, q.FuncDefs...)
}

// guardQuery rewrites a parsed program so that the steps that could
// break a limit check it first:
//
//   - a + b and a * b check their operands (string length, array length,
//     integer bits); a += b and a *= b become a |= . + $b and a |= . * $b;
//   - [f] collects at most maxQueryArrayLen+1 values, then fails if it
//     has more than maxQueryArrayLen;
//   - array indexes of paths, and the paths of setpath, are checked;
//   - operations that walk a value whole (comparisons, tojson, tostring,
//     formats, string interpolation, sorting, flatten, add, contains,
//     error messages) check its size first;
//   - join, split, explode, tonumber, fromjson and the global
//     regular-expression functions check their input.
//
// It changes nothing else: the program's results are the same, but for
// one case where gojq departs from jq. gojq takes the result of an
// operator as a path when it equals the value at a path of an operand,
// so that path(.a + 0) is ["a"]; jq refuses it ("Invalid path
// expression"), and so does the rewritten program.
func guardQuery(q *gojq.Query) {
	if q == nil {
		return
	}
	for _, fd := range q.FuncDefs {
		guardQuery(fd.Body)
	}
	guardQuery(q.Left)
	guardQuery(q.Right)
	guardPatterns(q.Patterns)
	guardTerm(q.Term)
	l, r, defs := q.Left, q.Right, q.FuncDefs
	switch q.Op {
	case gojq.OpAdd, gojq.OpMul:
		check := guardAddOperands
		if q.Op == gojq.OpMul {
			check = guardMulOperands
		}
		*q = *pipe(call(check, l, r), &gojq.Query{Left: elem(0), Op: q.Op, Right: elem(1)})
	case gojq.OpSub, gojq.OpEq, gojq.OpNe, gojq.OpLt, gojq.OpLe, gojq.OpGt, gojq.OpGe:
		*q = *pipe(call(guardCompareOperands, l, r), &gojq.Query{Left: elem(0), Op: q.Op, Right: elem(1)})
	case gojq.OpUpdateAdd, gojq.OpUpdateMul:
		op := gojq.OpAdd
		check := guardAddOperands
		if q.Op == gojq.OpUpdateMul {
			op, check = gojq.OpMul, guardMulOperands
		}
		rhs := guardVar + "rhs"
		update := pipe(call(check, identity(), variable(rhs)), &gojq.Query{Left: elem(0), Op: op, Right: elem(1)})
		*q = *bind(r, rhs, &gojq.Query{Left: l, Op: gojq.OpModify, Right: update})
	}
	// The rewrites above replace q whole; its definitions stay, as the
	// operands may call them.
	q.FuncDefs = defs
}

func guardPatterns(patterns []*gojq.Pattern) {
	for _, p := range patterns {
		if p == nil {
			continue
		}
		guardPatterns(p.Array)
		for _, o := range p.Object {
			guardString(o.KeyString)
			guardQuery(o.KeyQuery)
			guardPatterns([]*gojq.Pattern{o.Val})
		}
	}
}

func guardString(s *gojq.String) {
	if s == nil {
		return
	}
	for i, q := range s.Queries {
		if q.Term != nil && q.Term.Str != nil {
			continue // a literal part
		}
		guardQuery(q)
		s.Queries[i] = &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: pipe(q, call(guardTraversable))}}
	}
}

func guardIndexTerm(ix *gojq.Index) {
	if ix == nil {
		return
	}
	guardString(ix.Str)
	for _, q := range []**gojq.Query{&ix.Start, &ix.End} {
		if *q != nil {
			guardQuery(*q)
			*q = pipe(*q, call(guardIndex))
		}
	}
}

func guardTerm(t *gojq.Term) {
	if t == nil {
		return
	}
	for _, s := range t.SuffixList {
		guardIndexTerm(s.Index)
	}
	guardIndexTerm(t.Index)
	guardString(t.Str)
	if t.Unary != nil {
		guardTerm(t.Unary.Term)
	}
	if t.Object != nil {
		for _, kv := range t.Object.KeyVals {
			guardString(kv.KeyString)
			guardQuery(kv.KeyQuery)
			guardQuery(kv.Val)
		}
	}
	if t.If != nil {
		guardQuery(t.If.Cond)
		guardQuery(t.If.Then)
		for _, e := range t.If.Elif {
			guardQuery(e.Cond)
			guardQuery(e.Then)
		}
		guardQuery(t.If.Else)
	}
	if t.Try != nil {
		guardQuery(t.Try.Body)
		guardQuery(t.Try.Catch)
	}
	if t.Reduce != nil {
		guardQuery(t.Reduce.Query)
		guardPatterns(t.Reduce.Patterns)
		guardQuery(t.Reduce.Start)
		guardQuery(t.Reduce.Update)
	}
	if t.Foreach != nil {
		guardQuery(t.Foreach.Query)
		guardPatterns(t.Foreach.Patterns)
		guardQuery(t.Foreach.Start)
		guardQuery(t.Foreach.Update)
		guardQuery(t.Foreach.Extract)
	}
	if t.Label != nil {
		guardQuery(t.Label.Body)
	}
	guardQuery(t.Query)
	switch t.Type {
	case gojq.TermTypeArray:
		if t.Array != nil && t.Array.Query != nil {
			guardQuery(t.Array.Query)
			t.Array.Query = call(guardLimit, number(maxQueryArrayLen+1), t.Array.Query)
			wrapTerm(t, nil, call(guardArrayLength))
		}
	case gojq.TermTypeFormat:
		if t.Str == nil {
			wrapTerm(t, call(guardTraversable), nil)
		}
	case gojq.TermTypeFunc:
		for _, a := range t.Func.Args {
			guardQuery(a)
		}
		guardCall(t)
	}
}

// The functions that walk their input whole, by arity.
var traversingFuncs = map[string]int{
	"tojson": 0, "tostring": 0, "add": 0, "sort": 0, "unique": 0, "min": 0, "max": 0, "implode": 0,
	"contains": 1, "inside": 1, "indices": 1, "index": 1, "rindex": 1, "ascii": 0, "error": 0,
}

// The functions that sort or group by a key: both their input and the
// keys are walked whole.
var keyedFuncs = map[string]bool{"sort_by": true, "group_by": true, "unique_by": true, "min_by": true, "max_by": true}

// The regular-expression functions, by arity: the index of their flags
// argument (-1 when they have none) and whether they always match
// globally.
var regexFuncs = map[string]map[int]struct {
	flags  int
	global bool
}{
	"match":   {2: {1, false}},
	"test":    {2: {1, false}},
	"capture": {2: {1, false}},
	"scan":    {1: {-1, true}, 2: {1, true}},
	"splits":  {1: {-1, true}, 2: {1, true}},
	"split":   {2: {1, true}},
	"sub":     {3: {2, false}},
	"gsub":    {2: {-1, true}, 3: {2, true}},
}

// guardCall adds the checks a call of a built-in function needs.
func guardCall(t *gojq.Term) {
	f := t.Func
	name, arity := f.Name, len(f.Args)
	traversingArity, traversing := traversingFuncs[name]
	switch {
	case strings.HasPrefix(name, "$"):
	case traversing && traversingArity == arity:
		if arity == 1 {
			f.Args[0] = pipe(f.Args[0], call(guardTraversable))
		}
		wrapTerm(t, call(guardTraversable), nil)
	case name == "error" && arity == 1, name == "flatten" && arity == 1:
		f.Args[0] = pipe(f.Args[0], call(guardTraversable))
		if name == "flatten" {
			wrapTerm(t, call(guardTraversable), nil)
		}
	case name == "flatten" && arity == 0:
		wrapTerm(t, call(guardTraversable), nil)
	case keyedFuncs[name] && arity == 1:
		f.Args[0] = pipe(f.Args[0], call(guardTraversable))
		wrapTerm(t, call(guardTraversable), nil)
	case name == "setpath" && arity == 2:
		f.Args[0] = pipe(f.Args[0], call(guardPath))
	case name == "join" && arity == 1:
		bindArg(t, 0, guardJoin)
	case name == "split" && arity == 1:
		bindArg(t, 0, guardSplit)
	case name == "explode" && arity == 0:
		wrapTerm(t, call(guardExplode), nil)
	case (name == "tonumber" || name == "fromjson") && arity == 0:
		wrapTerm(t, call(guardNumberText), nil)
	default:
		spec, ok := regexFuncs[name][arity]
		if !ok {
			return
		}
		re, flagsVar := guardVar+"re", guardVar+"flags"
		reArg := f.Args[0]
		f.Args[0] = variable(re)
		var flagsArg *gojq.Query
		flags := stringLiteral("g")
		if spec.flags >= 0 {
			flagsArg = f.Args[spec.flags]
			f.Args[spec.flags] = variable(flagsVar)
			flags = variable(flagsVar)
			if spec.global {
				flags = &gojq.Query{Left: flags, Op: gojq.OpAdd, Right: stringLiteral("g")}
			}
		}
		wrapTerm(t, call(guardMatches, variable(re), flags), nil)
		if flagsArg != nil {
			t.Query = bind(flagsArg, flagsVar, t.Query)
		}
		t.Query = bind(reArg, re, t.Query)
	}
}

func stringLiteral(s string) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: s}}}
}

// bindArg makes f(a) of the term t into (a) as $v | check($v) | f($v),
// so that a is evaluated once.
func bindArg(t *gojq.Term, i int, check string) {
	name := guardVar + "arg"
	arg := t.Func.Args[i]
	t.Func.Args[i] = variable(name)
	wrapTerm(t, call(check, variable(name)), nil)
	t.Query = bind(arg, name, t.Query)
}

// wrapTerm replaces t with (before | t | after), the suffixes of t
// applying to the whole.
func wrapTerm(t *gojq.Term, before, after *gojq.Query) {
	inner := *t
	inner.SuffixList = nil
	parts := []*gojq.Query{before, {Term: &inner}, after}
	*t = gojq.Term{Type: gojq.TermTypeQuery, Query: pipe(parts...), SuffixList: t.SuffixList}
}

// pipe joins queries with |, leaving out nil ones.
func pipe(qs ...*gojq.Query) *gojq.Query {
	var out *gojq.Query
	for i := len(qs) - 1; i >= 0; i-- {
		switch {
		case qs[i] == nil:
		case out == nil:
			out = qs[i]
		default:
			out = &gojq.Query{Left: qs[i], Op: gojq.OpPipe, Right: out}
		}
	}
	return out
}

func call(name string, args ...*gojq.Query) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name, Args: args}}}
}

func variable(name string) *gojq.Query { return call(name) }

func identity() *gojq.Query { return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}} }

func number(n int) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeNumber, Number: strconv.Itoa(n)}}
}

// elem is .[i].
func elem(i int) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIndex, Index: &gojq.Index{Start: number(i)}}}
}

// bind is (value) as $name | body.
func bind(value *gojq.Query, name string, body *gojq.Query) *gojq.Query {
	return &gojq.Query{
		Left:     &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: value}},
		Patterns: []*gojq.Pattern{{Name: name}},
		Op:       gojq.OpPipe,
		Right:    body,
	}
}
