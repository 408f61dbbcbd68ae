#!/usr/bin/env bash
# Tests scripts/modules.sh on throw-away versions.yaml files. Needs only
# bash and awk; under a second; exits non-zero on any failed check.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/versions.yaml" <<'YAML'
# test fixture
prefix: example.com/fake
modules:
  - dir: alpha
    version: 0.3.1
  - dir: beta # a comment
    version: 0.0.0
# Never released.
excluded-modules:
  - dir: beta/tests
YAML

passed=0 failed=0
ok() { passed=$((passed + 1)) && echo "ok   $1"; }
# expect DESC WANT ARGS...: modules.sh ARGS succeeds printing exactly WANT.
expect() {
	local desc=$1 want=$2 got
	shift 2
	if got=$(VERSIONS_FILE=$tmp/versions.yaml bash "$here/modules.sh" "$@" 2>&1) && [[ $got == "$want" ]]; then
		ok "$desc"
	else
		failed=$((failed + 1)) && printf 'FAIL %s\nwant:\n%s\ngot:\n%s\n' "$desc" "$want" "$got"
	fi
}
# refused DESC PATTERN ARGS...: modules.sh ARGS fails printing PATTERN.
refused() {
	local desc=$1 pattern=$2 got
	shift 2
	if got=$(VERSIONS_FILE=$tmp/versions.yaml bash "$here/modules.sh" "$@" 2>&1); then
		failed=$((failed + 1)) && printf 'FAIL %s (it succeeded)\n%s\n' "$desc" "$got"
	elif grep -qF -- "$pattern" <<<"$got"; then
		ok "$desc"
	else
		failed=$((failed + 1)) && printf 'FAIL %s (want %s)\n%s\n' "$desc" "$pattern" "$got"
	fi
}

expect "every module, released ones in release order first" "$(printf 'alpha\nbeta\nbeta/tests')"
expect "every module as JSON" '["alpha","beta","beta/tests"]' --json
expect "versions of the released modules only" "$(printf 'alpha 0.3.1\nbeta 0.0.0')" --versions
expect "the next minor ignores excluded modules" "0.4.0" --next-minor
expect "the prefix" "example.com/fake" --prefix

printf '    version: 1.0.0\n' >>"$tmp/versions.yaml"
refused "an excluded module with a version" "excluded module beta/tests has a version: it is never released"
refused "an excluded module with a version, in the versions too" "is malformed" --versions

head -n 7 "$tmp/versions.yaml" >"$tmp/released-only.yaml" && mv "$tmp/released-only.yaml" "$tmp/versions.yaml"
expect "without excluded modules" "$(printf 'alpha\nbeta')"

echo
echo "modules_test: $passed passed, $failed failed"
((failed == 0))
