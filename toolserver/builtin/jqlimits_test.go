package builtin

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guardSamples are programs whose results the guards must not change.
var guardSamples = []string{
	`.a + .b`, `(1,2) + (10,20)`, `(1,2) * (3,4)`, `[.[]? | . * 2]`, `.a += 1`, `.a *= 2`, `.l[0] = 5`, `.l[1:3] = ["x"]`,
	`"\(1 + 2) and \(.a)"`, `@base64 "x\(.a)"`, `@json`, `@text`, `.l | sort_by(-.)`, `[{a:1},{a:2},{a:1}] | group_by(.a)`,
	`["a","b"] | join(",")`, `"a, b,c" | split(",")`, `"a, b,c" | split(", *"; null)`, `"banana" | gsub("a"; "o")`,
	`"a1b22" | [scan("\\d+")]`, `"aXa" | sub("(?<x>a)"; "\(.x)!"; "g")`, `"ABC" | test("b"; "i")`, `"aa" | [match("a"; "g").offset]`,
	`to_entries`, `[paths]`, `path(.a[0])`, `del(.a)`, `[tostream]`, `[limit(3; range(10))]`, `{a: 1} * {a: {b: 2}}`,
	`"ab" * 0`, `"ab" * 2.5`, `"ab" * -1`, `[1,2,3] - [2]`, `1 == 1.0`, `[1,[2,[3]]] | flatten, flatten(1)`, `try error("x") catch .`,
	`try error({a:1}) catch .`, `"12" | tonumber`, `"{\"a\": [1]}" | fromjson`, `"héllo" | explode | implode`,
	`reduce ([1,2],[3,4]) as [$a, $b] (0; . + $a * $b)`, `. as {a: $x} | $x`, `def f(x): x * 2; f(3, 4)`, `.a |= . + 1`,
	`getpath(["a"])`, `setpath(["b"]; 1)`, `label $out | 1, break $out`, `first(range(10))`, `if .a then 1 elif .b then 3 else 4 end`,
	`(.a, .b) = 1`, `.. |= (if type == "number" then . + 1 else . end)`, `[.l[] | select(. > 1)] | add`, `.l | min, max, unique`,
	`[1,2] | contains([1]), inside([1,2,3]), indices(2)`, `"a,b" | index(","), rindex(",")`, `{} | .x.y = 3`, `[] | .[2] = 1`,
	`.l as [$h] | $h`, `foreach .l[] as $x (0; . + $x; [$x, .])`, `"abc" | .[1:]`, `.l | .[-1:]`, `[.[] | tostring]`, `@csv "\(.l)"`,
	`"x" * 3 + "y"`, `12345678901234567890 * 10`, `[.a, .b] | @sh`, `try ([1] | implode) catch "bad"`, `.a //= 3`,
	`"ab" | ascii_downcase`, `[range(5)] | .[2:4] |= map(. * 10)`, `[splits(", ")]`, `"a-b" | [splits("-"; "g")]`,
	`{(.a | tostring): 1}`, `def limit($n; f): 42; [range(3)], limit(1; 2)`, `def f: [.]; def limit(a; b): 0; f`, `"ab" | capture("(?<x>.)"; "g")`, `[.[]?] | length`, `error`, `.a as $x | [$x, $x] == [1, 1]`,
	`def f(x): x * 2; f(1) + 1`, `def f(x): x; .a += f(1)`, `def f: 1; f == .a`, `def f($x): $x; [f(1)] - [f(2)]`,
}

// collectTimeout bounds each run of collect: two runs of one input stay
// well under the ten seconds after which the fuzzer takes a worker for
// hung.
const collectTimeout = 2 * time.Second

// collect runs code on input and returns its results and errors as JSON.
func collect(t *testing.T, code *gojq.Code, input any) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
	defer cancel()
	var out []string
	iter := code.RunWithContext(ctx, input)
	for range 50 {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			out = append(out, "error: "+err.Error())
			break
		}
		raw, err := gojq.Marshal(v) // as json:query encodes its results
		require.NoError(t, err)
		out = append(out, string(raw))
	}
	return out
}

// compileBoth compiles a program as it is and guarded; ok is false when
// it does not compile as it is.
func compileBoth(src string) (plain, guarded *gojq.Code, err error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, nil, err
	}
	if plain, err = gojq.Compile(q); err != nil {
		return nil, nil, err
	}
	guarded, err = compileQuery(src, nil)
	return plain, guarded, err
}

func TestGuardsKeepResults(t *testing.T) {
	input := map[string]any{"a": 1, "b": 2, "l": []any{3, 1, 2}}
	for _, src := range guardSamples {
		t.Run(src, func(t *testing.T) {
			plain, guarded, err := compileBoth(src)
			require.NoError(t, err)
			assert.Equal(t, collect(t, plain, input), collect(t, guarded, input))
		})
	}
}

func TestOperatorResultsAreNoPaths(t *testing.T) {
	input := map[string]any{"a": 1, "t": true}
	for _, src := range []string{`path(.a + 0)`, `.a * 1 = 0`, `path(.t == true)`} {
		t.Run(src, func(t *testing.T) {
			plain, guarded, err := compileBoth(src)
			require.NoError(t, err)
			assert.NotContains(t, collect(t, plain, input)[0], "error", "gojq takes it as a path")
			assert.Contains(t, collect(t, guarded, input)[0], "error: invalid path against: ", "jq does not")
		})
	}
}

func TestReservedNamesAreRefused(t *testing.T) {
	_, err := compileQuery(`"x" | _metatools_traversable`, nil)
	require.ErrorContains(t, err, `names starting with "_metatools_" are reserved`)
}

func FuzzGuardQuery(f *testing.F) {
	for _, seed := range guardSamples {
		f.Add(seed)
	}
	input := map[string]any{"a": 1, "b": "two", "l": []any{3, "x", nil, []any{1}}}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > maxQueryBytes || strings.Contains(src, guardPrefix) || strings.Contains(src, "$__prog") {
			return
		}
		plain, guarded, err := compileBoth(src)
		if plain == nil {
			return
		}
		require.NoError(t, err, "a program that compiles compiles guarded")
		got := collect(t, guarded, input)
		if last := len(got) - 1; last >= 0 && (strings.Contains(got[last], "json:query limit") ||
			strings.Contains(got[last], context.DeadlineExceeded.Error())) {
			// A limit or the deadline stopped it; the program as it is
			// would take the memory or the time they save.
			return
		}
		want := collect(t, plain, input)
		for i := range min(len(want), len(got)) {
			if want[i] != got[i] && strings.HasPrefix(want[i], "error: ") && strings.HasPrefix(got[i], "error: ") {
				return // the same failure may be worded otherwise
			}
			if strings.HasPrefix(got[i], "error: invalid path against: ") && !strings.HasPrefix(want[i], "error: ") {
				return // an operator's result is no path, as in jq
			}
			require.Equal(t, want[i], got[i], "result %d", i)
		}
		require.Len(t, got, len(want))
	})
}

func TestCollectedArraysAreCapped(t *testing.T) {
	q, err := gojq.Parse(`[range(10)]`)
	require.NoError(t, err)
	guardQuery(q)
	assert.Equal(t, `([_metatools_limit(1048577; range(10))] | _metatools_array_length)`, q.String())
	err, isErr := checkArrayLength(make([]any, maxQueryArrayLen+1), nil).(error)
	require.True(t, isErr)
	require.ErrorContains(t, err, "the array would have more than 1048576 elements")
	assert.Len(t, checkArrayLength(make([]any, maxQueryArrayLen), nil), maxQueryArrayLen)
}
