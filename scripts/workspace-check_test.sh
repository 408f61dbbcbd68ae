#!/usr/bin/env bash
# Tests scripts/workspace-check.sh on a throw-away copy of a small valid
# workspace, breaking one rule at a time. Needs only bash and awk; under a
# second; exits non-zero on any failed check.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A valid workspace: alpha <- beta.
base=$tmp/base
mkdir -p "$base/alpha" "$base/beta"
cat >"$base/versions.yaml" <<'EOF'
prefix: example.com/fake
modules:
  - dir: alpha
    version: 0.0.0
  - dir: beta
    version: 0.0.0
EOF
printf 'go 1.25.0\n\nuse (\n\t./alpha\n\t./beta\n)\n' >"$base/go.work"
printf 'module example.com/fake/alpha\n\ngo 1.25.0\n' >"$base/alpha/go.mod"
printf 'module example.com/fake/beta\n\ngo 1.25.0\n\nrequire example.com/fake/alpha v0.0.0\n\nreplace example.com/fake/alpha => ../alpha\n' >"$base/beta/go.mod"
printf '# Changelog\n\n## Unreleased\n' | tee "$base/alpha/CHANGELOG.md" >"$base/beta/CHANGELOG.md"
printf 'linters:\n  settings:\n    depguard:\n      rules:\n        dag-alpha:\n        dag-beta:\n' >"$base/.golangci.yml"

# shellcheck source=scripts/checkcase.sh
source "$here/checkcase.sh"
passed=0 failed=0
# case_ DESC PATTERN EDIT: see check_case in checkcase.sh.
case_() { check_case "$here/workspace-check.sh" "$@"; }

case_ "a valid workspace passes" "" ":"
case_ "go.work single-line use form" "" "printf 'go 1.25.0\nuse ./alpha\nuse ./beta\n' >go.work"
case_ "module missing from go.work" "in versions.yaml but not in go.work: beta" \
	"printf 'go 1.25.0\nuse ./alpha\n' >go.work"
case_ "module missing from versions.yaml" "in go.work but not in versions.yaml: gamma" \
	"mkdir gamma && printf 'module example.com/fake/gamma\n\ngo 1.25.0\n' >gamma/go.mod && printf 'use ./gamma\n' >>go.work"
case_ "folder with a go.mod not listed" "in the folders with a go.mod but not in versions.yaml: gamma" \
	"mkdir gamma && printf 'module example.com/fake/gamma\n' >gamma/go.mod"
case_ "listed module without a folder" "in versions.yaml but not in the folders with a go.mod: beta" \
	"rm -r beta && printf 'go 1.25.0\nuse ./alpha\nuse ./beta\n' >go.work"
case_ "go.work with a patch go line" "go.work: want the line 'go 1.25.0'" \
	"printf 'go 1.26.8\nuse ./alpha\nuse ./beta\n' >go.work"
case_ "go.work with a toolchain line" "go.work: remove the toolchain line" \
	"printf 'toolchain go1.26.8\n' >>go.work"
case_ "go.mod with another go line" "beta/go.mod: want the line 'go 1.25.0'" \
	"sed -i.bak 's/^go 1.25.0/go 1.26/' beta/go.mod"
case_ "go.mod with a toolchain line" "alpha/go.mod: remove the toolchain line" \
	"printf 'toolchain go1.26.8\n' >>alpha/go.mod"
case_ "go.mod with a wrong module path" "module path is 'example.com/other/beta'" \
	"sed -i.bak 's#^module .*#module example.com/other/beta#' beta/go.mod"
case_ "sibling require without replace" "has no 'replace example.com/fake/alpha => ../alpha' line" \
	"sed -i.bak '/^replace/d' beta/go.mod"
case_ "sibling listed after its dependent" "which versions.yaml lists after alpha" \
	"printf 'require example.com/fake/beta v0.0.0\nreplace example.com/fake/beta => ../beta\n' >>alpha/go.mod"
case_ "duplicate module in versions.yaml" "lists a module twice" \
	"printf '  - dir: beta\n    version: 0.0.0\n' >>versions.yaml"
case_ "missing CHANGELOG.md" "alpha/CHANGELOG.md is missing" "rm alpha/CHANGELOG.md"
case_ "CHANGELOG.md without Unreleased" "beta/CHANGELOG.md has no '## Unreleased'" "printf '# Changelog\n' >beta/CHANGELOG.md"
case_ "module without a depguard rule" "no depguard rule dag-beta" "sed -i.bak '/dag-beta/d' .golangci.yml"

# A module nested in another's folder (alpha/nested requires alpha): its
# replace lines are relative to its own folder.
nest='mkdir alpha/nested && printf "module example.com/fake/alpha/nested\n\ngo 1.25.0\n\nrequire example.com/fake/alpha v0.0.0\n\nreplace example.com/fake/alpha => ..\n" >alpha/nested/go.mod && printf "# Changelog\n\n## Unreleased\n" >alpha/nested/CHANGELOG.md && printf "        dag-alpha/nested:\n" >>.golangci.yml'
listnest='printf "  - dir: alpha/nested\n    version: 0.0.0\n" >>versions.yaml && printf "go 1.25.0\nuse ./alpha\nuse ./beta\nuse ./alpha/nested\n" >go.work'
case_ "a nested module passes" "" "$nest && $listnest"
case_ "nested folder with a go.mod not listed" "in the folders with a go.mod but not in versions.yaml: alpha/nested" "$nest"
case_ "nested module with a replace relative to the root" "has no 'replace example.com/fake/alpha => ..' line (it has => ../alpha)" \
	"$nest && $listnest && sed -i.bak 's#=> \.\.\$#=> ../alpha#' alpha/nested/go.mod"
case_ "module requiring a nested one needs its path" "has no 'replace example.com/fake/alpha/nested => ../alpha/nested' line" \
	"$nest && $listnest && printf 'require example.com/fake/alpha/nested v0.0.0\n' >>beta/go.mod"
case_ "go.mod under testdata/ is not a module" "" "mkdir -p alpha/testdata/x && printf 'module example.com/x\n' >alpha/testdata/x/go.mod"

# An excluded module (never released: tests), nested in beta's folder and
# requiring beta: no version, no CHANGELOG.md, no depguard rule of its own.
tests='mkdir beta/tests && printf "module example.com/fake/beta/tests\n\ngo 1.25.0\n\nrequire example.com/fake/beta v0.0.0\n\nrequire example.com/fake/alpha v0.0.0 // indirect\n\nreplace (\n\texample.com/fake/alpha => ../../alpha\n\texample.com/fake/beta => ..\n)\n" >beta/tests/go.mod'
exclude='printf "excluded-modules:\n  - dir: beta/tests\n" >>versions.yaml'
usetests='printf "use ./beta/tests\n" >>go.work'
case_ "an excluded module passes" "" "$tests && $exclude && $usetests"
case_ "excluded module missing from go.work" "in versions.yaml but not in go.work: beta/tests" "$tests && $exclude"
case_ "excluded module's folder not listed" "in the folders with a go.mod but not in versions.yaml: beta/tests" "$tests && $usetests"
case_ "excluded module with a version" "excluded module beta/tests has a version" \
	"$tests && $exclude && $usetests && printf '    version: 0.0.0\n' >>versions.yaml"
case_ "excluded module listed as released too" "lists a module twice: beta/tests" \
	"$tests && $exclude && $usetests && printf 'modules:\n  - dir: beta/tests\n    version: 0.0.0\n' >>versions.yaml"
case_ "excluded module without a replace line" "has no 'replace example.com/fake/alpha => ../../alpha' line" \
	"$tests && $exclude && $usetests && sed -i.bak '/=> ..\/..\/alpha/d' beta/tests/go.mod"
case_ "excluded module with a toolchain line" "beta/tests/go.mod: remove the toolchain line" \
	"$tests && $exclude && $usetests && printf 'toolchain go1.26.8\n' >>beta/tests/go.mod"
case_ "a released module requiring an excluded one" "alpha/go.mod: requires beta/tests, an excluded module" \
	"$tests && $exclude && $usetests && printf 'require example.com/fake/beta/tests v0.0.0\nreplace example.com/fake/beta/tests => ../beta/tests\n' >>alpha/go.mod"

echo
echo "workspace-check_test: $passed passed, $failed failed"
((failed == 0))
