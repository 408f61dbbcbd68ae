#!/usr/bin/env bash
# Tests scripts/deps-check.sh on a throw-away workspace whose third-party
# modules come from a module proxy in a local folder (GOPROXY=file://...),
# so it needs no network: bash, go and zip. A few seconds; exits non-zero on
# any failed check.
#
#   example.com/heavy     a heavy dependency (forbidden)
#   example.com/carrier   a dependency the core needs, which imports shared
#   example.com/shared    allowed only through carrier
#   example.com/fake/core the workspace module a program imports
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
# The module cache marks its files read-only.
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

export GOPROXY=file://$tmp/proxy GONOSUMDB=example.com GOMODCACHE=$tmp/modcache GOTOOLCHAIN=local

# publish PATH IMPORTS...: a v1.0.0 module at PATH in the local proxy, one
# package importing IMPORTS (each required at v1.0.0).
publish() {
	local path=$1 name=${1##*/} src=$tmp/src/$1@v1.0.0 dst=$tmp/proxy/$1/@v imp
	shift
	mkdir -p "$src" "$dst"
	{
		printf 'module %s\n\ngo 1.25.0\n' "$path"
		for imp in "$@"; do printf '\nrequire %s v1.0.0\n' "$imp"; done
	} >"$src/go.mod"
	{
		printf 'package %s\n\n' "$name"
		for imp in "$@"; do printf 'import _ "%s"\n' "$imp"; done
		printf '\n// Value is a value.\nconst Value = 1\n'
	} >"$src/$name.go"
	cp "$src/go.mod" "$dst/v1.0.0.mod"
	printf '{"Version":"v1.0.0","Time":"2026-01-02T00:00:00Z"}\n' >"$dst/v1.0.0.info"
	printf 'v1.0.0\n' >"$dst/list"
	(cd "$tmp/src" && zip -qr "$dst/v1.0.0.zip" "$path@v1.0.0")
}
publish example.com/heavy
publish example.com/shared
publish example.com/carrier example.com/shared

# A valid workspace: core imports carrier (which brings shared).
base=$tmp/base
mkdir -p "$base/core"
cat >"$base/versions.yaml" <<'EOF'
prefix: example.com/fake
modules:
  - dir: core
    version: 0.0.0
EOF
cat >"$base/core/go.mod" <<'EOF'
module example.com/fake/core

go 1.25.0

require example.com/carrier v1.0.0

require example.com/shared v1.0.0 // indirect
EOF
cat >"$base/core/core.go" <<'EOF'
package core

import "example.com/carrier"

// New returns a value.
func New() int { return carrier.Value }
EOF

export DEPS_CHECK_PACKAGE=example.com/fake/core DEPS_CHECK_CALL='core.New()'
export DEPS_CHECK_FORBID=example.com/heavy DEPS_CHECK_VIA=example.com/shared=example.com/carrier

# shellcheck source=scripts/checkcase.sh
source "$here/checkcase.sh"
passed=0 failed=0
# case_ DESC PATTERN EDIT: see check_case in checkcase.sh.
case_() { check_case "$here/deps-check.sh" "$@"; }

case_ "a core without heavy dependencies passes" "" ":"
case_ "a forbidden module imported by the core" \
	"example.com/heavy is in the module graph of a program importing only example.com/fake/core; it is required by:" \
	"printf 'require example.com/heavy v1.0.0\n' >>core/go.mod && printf 'package core\n\nimport _ \"example.com/heavy\"\n' >core/heavy.go"
case_ "a forbidden module only in the core's go.mod (a test dependency)" \
	"example.com/heavy is in the module graph" \
	"printf 'require example.com/heavy v1.0.0\n' >>core/go.mod"
case_ "a forbidden module path matches the modules below it" "example.com/fake/core is in the module graph" \
	"export DEPS_CHECK_FORBID=example.com/fake"
case_ "a forbidden module does not match a path that merely starts like it" "" \
	"export DEPS_CHECK_FORBID=example.com/car"
case_ "a module allowed through a carrier, imported by the core itself" \
	"example.com/fake/core (module example.com/fake/core) imports example.com/shared: only example.com/carrier may bring it" \
	"sed -i.bak 's#example.com/shared v1.0.0 // indirect#example.com/shared v1.0.0#' core/go.mod && printf 'package core\n\nimport _ \"example.com/shared\"\n' >core/shared.go"
case_ "a module allowed through a carrier, required directly by the core" \
	"core/go.mod requires example.com/shared directly" \
	"sed -i.bak 's#example.com/shared v1.0.0 // indirect#example.com/shared v1.0.0#' core/go.mod"
case_ "a package in no module of the workspace" "example.com/other is in no module of versions.yaml" \
	"export DEPS_CHECK_PACKAGE=example.com/other"

echo
echo "deps-check_test: $passed passed, $failed failed"
((failed == 0))
