#!/usr/bin/env bash
# Tests scripts/fuzz.sh on a throw-away workspace of two modules in a git
# repository: which targets it finds, which it chooses and why, and that a
# failing target fails the run. Needs bash, awk, git and go, no network; a
# few seconds (two fuzzing runs of tiny packages); exits non-zero on any
# failed check.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOTOOLCHAIN=local
unset GOWORK FUZZ_ALL FUZZ_SLICES FUZZ_SLICE FUZZ_BASE

# The workspace: module alpha with packages alpha (two targets, one more
# behind a build tag it is not built with) and alpha/inner (one target in
# an external test package), module beta with one target.
ws=$tmp/ws
mkdir -p "$ws/alpha/inner" "$ws/beta"
printf 'go 1.25.0\n\nuse (\n\t./alpha\n\t./beta\n)\n' >"$ws/go.work"
printf 'module example.com/fake/alpha\n\ngo 1.25.0\n' >"$ws/alpha/go.mod"
printf 'module example.com/fake/beta\n\ngo 1.25.0\n' >"$ws/beta/go.mod"
printf 'package alpha\n' >"$ws/alpha/alpha.go"
printf 'package inner\n' >"$ws/alpha/inner/inner.go"
printf 'package beta\n' >"$ws/beta/beta.go"
cat >"$ws/alpha/alpha_test.go" <<'EOF'
package alpha

import "testing"

func FuzzParse(f *testing.F) { f.Fuzz(func(t *testing.T, s string) {}) }

func Fuzz_Under(f *testing.F) { f.Fuzz(func(t *testing.T, b []byte) {}) }

// Not targets: a test, a helper, a method.
func TestFuzzLike(t *testing.T) {}
func fuzzHelper(f *testing.F)   {}

type fuzzer struct{}

func (fuzzer) FuzzMethod(f *testing.F) {}
EOF
cat >"$ws/alpha/tagged_test.go" <<'EOF'
//go:build never

package alpha

import "testing"

func FuzzTagged(f *testing.F) { f.Fuzz(func(t *testing.T, s string) {}) }
EOF
cat >"$ws/alpha/inner/inner_test.go" <<'EOF'
package inner_test

import "testing"

func FuzzInner(f *testing.F) { f.Fuzz(func(t *testing.T, n int) {}) }
EOF
cat >"$ws/beta/beta_test.go" <<'EOF'
package beta

import "testing"

func FuzzBeta(f *testing.F) { f.Fuzz(func(t *testing.T, s string) {}) }
EOF
git -C "$ws" init -q -b main
git -C "$ws" -c user.name=t -c user.email=t@example.com add -A
git -C "$ws" -c user.name=t -c user.email=t@example.com commit -q -m base
git -C "$ws" checkout -q -b topic

passed=0 failed=0
# check DESC WANT SETUP: run SETUP in a copy of the workspace, then
# `fuzz.sh --list` there, and expect exactly the lines WANT (sorted, with
# "package target reason" as the script prints them).
check() {
	local desc=$1 want=$2 setup=$3 dir out
	dir=$(mktemp -d "$tmp/case.XXXXXX")
	cp -R "$ws/." "$dir"
	if out=$(cd "$dir" && eval "$setup" && bash "$here/fuzz.sh" --list 2>"$dir.err") && [[ $out == "$want" ]]; then
		passed=$((passed + 1)) && echo "ok   $desc"
	else
		failed=$((failed + 1)) && printf 'FAIL %s\nwant:\n%s\ngot:\n%s\n' "$desc" "$want" "$out" && cat "$dir.err"
	fi
}

p=example.com/fake
check "FUZZ_ALL=1 lists every target built, and nothing else" "$p/alpha FuzzParse all
$p/alpha Fuzz_Under all
$p/alpha/inner FuzzInner all
$p/beta FuzzBeta all" "export FUZZ_ALL=1"
check "the slices of an unchanged branch are disjoint and cover every target (1 of 3)" "$p/alpha FuzzParse slice 0/3
$p/alpha Fuzz_Under slice 0/3" "export FUZZ_SLICES=3 FUZZ_SLICE=0"
check "the slices of an unchanged branch are disjoint and cover every target (2 of 3)" "$p/alpha/inner FuzzInner slice 1/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=1"
check "the slices of an unchanged branch are disjoint and cover every target (3 of 3)" "$p/beta FuzzBeta slice 2/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=2"
check "one slice is every target" "$p/alpha FuzzParse slice 0/1
$p/alpha Fuzz_Under slice 0/1
$p/alpha/inner FuzzInner slice 0/1
$p/beta FuzzBeta slice 0/1" "export FUZZ_SLICES=1"
check "a package changed in a commit since main adds its targets" "$p/alpha FuzzParse slice 0/3
$p/alpha Fuzz_Under slice 0/3
$p/beta FuzzBeta changed" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=0 && echo '// x' >>beta/beta.go && git -c user.name=t -c user.email=t@example.com commit -qam x"
check "an uncommitted corpus file marks its package changed" "$p/alpha FuzzParse changed
$p/alpha Fuzz_Under changed
$p/beta FuzzBeta slice 2/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=2 && mkdir -p alpha/testdata/fuzz/FuzzParse && echo x >alpha/testdata/fuzz/FuzzParse/a"
check "a change in a subpackage does not mark its parent changed" "$p/alpha/inner FuzzInner changed
$p/beta FuzzBeta slice 2/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=2 FUZZ_BASE=main && echo '// x' >>alpha/inner/inner.go"
check "a target both changed and in the slice says both" "$p/alpha/inner FuzzInner changed, slice 1/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=1 && echo '// x' >>alpha/inner/inner.go"
check "FUZZ_BASE=none compares with nothing" "$p/beta FuzzBeta slice 2/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=2 FUZZ_BASE=none && echo '// x' >>alpha/alpha.go"
check "without main to compare with, the slice alone" "$p/beta FuzzBeta slice 2/3" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=2 && echo '// x' >>alpha/alpha.go && git branch -q -m main other"

# check_fails DESC PATTERN SETUP ARGS...: fuzz.sh ARGS must fail printing PATTERN.
check_fails() {
	local desc=$1 pattern=$2 setup=$3 dir out
	shift 3
	dir=$(mktemp -d "$tmp/case.XXXXXX")
	cp -R "$ws/." "$dir"
	if out=$(cd "$dir" && eval "$setup" && bash "$here/fuzz.sh" "$@" 2>&1); then
		failed=$((failed + 1)) && printf 'FAIL %s (it passed)\n%s\n' "$desc" "$out"
	elif grep -qF -- "$pattern" <<<"$out"; then
		passed=$((passed + 1)) && echo "ok   $desc"
	else
		failed=$((failed + 1)) && printf 'FAIL %s (want %s)\n%s\n' "$desc" "$pattern" "$out"
	fi
}
check_fails "a FUZZ_BASE that is no commit" "FUZZ_BASE=nosuch is not a commit" "export FUZZ_BASE=nosuch" --list
check_fails "a FUZZ_SLICE out of range" "FUZZ_SLICE=3: want 0 to 2" "export FUZZ_SLICES=3 FUZZ_SLICE=3" --list
check_fails "a failing target fails the run" "--- FAIL: FuzzBeta" \
	"export FUZZ_SLICES=3 FUZZ_SLICE=2 FUZZTIME=10x && sed -i 's/{})/{ t.Fatal(\"boom\") })/' beta/beta_test.go"

# A passing run fuzzes each chosen target and says so.
dir=$(mktemp -d "$tmp/case.XXXXXX")
cp -R "$ws/." "$dir"
if out=$(cd "$dir" && FUZZ_SLICES=3 FUZZ_SLICE=0 FUZZTIME=10x bash "$here/fuzz.sh" 2>&1) &&
	grep -q "^--- $p/alpha FuzzParse (slice 0/3)" <<<"$out" && grep -q "^--- $p/alpha Fuzz_Under (slice 0/3)" <<<"$out" &&
	grep -q '^fuzz-smoke: 2 of 4 target(s) ok$' <<<"$out"; then
	passed=$((passed + 1)) && echo "ok   a passing run fuzzes the chosen targets"
else
	failed=$((failed + 1)) && printf 'FAIL a passing run fuzzes the chosen targets\n%s\n' "$out"
fi

echo "fuzz_test: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
