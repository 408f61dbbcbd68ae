#!/usr/bin/env bash
# Tests scripts/dag-check.sh on a throw-away copy of a small valid
# workspace, breaking one rule at a time. Needs only bash and awk; under a
# second; exits non-zero on any failed check.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A valid workspace: alpha <- alpha/ext <- beta, alpha/ext nested in alpha.
base=$tmp/base
mkdir -p "$base/alpha/ext" "$base/beta"
cat >"$base/versions.yaml" <<'EOF'
prefix: example.com/fake
modules:
  - dir: alpha
    version: 0.0.0
  - dir: alpha/ext
    version: 0.0.0
  - dir: beta
    version: 0.0.0
EOF
# Package folders: dag-check replays depguard on their import paths.
mkdir -p "$base/alpha/a"
touch "$base/alpha/alpha.go" "$base/alpha/a/a.go" "$base/alpha/ext/ext.go" "$base/beta/beta.go"
printf 'module example.com/fake/alpha\n\ngo 1.25.0\n' >"$base/alpha/go.mod"
printf 'module example.com/fake/alpha/ext\n\ngo 1.25.0\n\nrequire example.com/fake/alpha v0.0.0\n\nreplace example.com/fake/alpha => ..\n' >"$base/alpha/ext/go.mod"
cat >"$base/beta/go.mod" <<'EOF'
module example.com/fake/beta

go 1.25.0

require example.com/fake/alpha/ext v0.0.0

require example.com/fake/alpha v0.0.0 // indirect

replace (
	example.com/fake/alpha => ../alpha
	example.com/fake/alpha/ext => ../alpha/ext
)
EOF
cat >"$base/README.md" <<'EOF'
# fake

Some text, and a block that is not the graph:

```text
beta -> nothing
```

<!-- module graph -->
```text
alpha            # no dependency
alpha/ext -> alpha
beta      -> alpha/ext
```
EOF
cat >"$base/.golangci.yml" <<'EOF'
linters:
  settings:
    depguard:
      # dag-comment: not a rule
      rules:
        dag-alpha:
          list-mode: lax
          files:
            - "${config-path}/alpha/**"
            - "!${config-path}/alpha/ext/**"
          allow:
            - example.com/fake/alpha
          deny:
            - pkg: example.com/fake/
              desc: "alpha imports nothing"
            - pkg: example.com/fake/alpha/ext
              desc: "ext requires alpha"
            - pkg: example.com/fake/beta
              desc: "with two deny entries, every forbidden module is denied by name"
        dag-alpha/ext:
          files: ["${config-path}/alpha/ext/**"]
          allow:
            - example.com/fake/alpha
            - example.com/fake/alpha/ext
          deny:
            - pkg: example.com/fake/
        dag-beta:
          files: ["${config-path}/beta/**"]
          allow:
            - "example.com/fake/alpha"
            - example.com/fake/alpha/ext # the extension
            - example.com/fake/beta
          deny:
            - pkg: example.com/fake/
        dag-gamma:
          allow:
            - example.com/fake/whatever
        errors-package:
          deny:
            - pkg: errors$
  exclusions:
    rules:
      - dag-beta:
          allow:
            - example.com/fake/zzz
EOF

# shellcheck source=scripts/checkcase.sh
source "$here/checkcase.sh"
passed=0 failed=0
# case_ DESC PATTERN EDIT: see check_case in checkcase.sh.
case_() { check_case "$here/dag-check.sh" "$@"; }

case_ "a valid workspace passes" "" ":"
case_ "README may list a dependency that another one brings" "" \
	"sed -i.bak 's#^beta      -> alpha/ext#beta -> alpha/ext, alpha#' README.md"
case_ "README without the module graph" "README.md has no fenced block after a <!-- module graph --> line" \
	"sed -i.bak '/module graph/d' README.md"
case_ "README misses a module" "README.md: the module graph has no line for beta" \
	"sed -i.bak '/^beta      ->/d' README.md"
case_ "README lists a module twice" "README.md: beta is listed twice" \
	"sed -i.bak 's#^alpha  .*#alpha\nbeta -> alpha/ext#' README.md"
case_ "README lists an unknown module" "the module graph lists gamma, which is not a module" \
	"sed -i.bak 's#^alpha  .*#alpha\ngamma#' README.md"
case_ "README names an unknown dependency" "names delta as a dependency, which is not a module" \
	"sed -i.bak 's#^beta      -> alpha/ext#beta -> alpha/ext delta#' README.md"
case_ "README shows an edge go.mod lacks" "README.md's module graph says alpha requires beta, but its go.mod does not" \
	"sed -i.bak 's#^alpha  .*#alpha -> beta#' README.md"
case_ "go.mod has an edge README lacks" "beta requires alpha/ext (go.mod), but README.md's module graph does not show it" \
	"sed -i.bak 's#^beta      -> alpha/ext#beta -> alpha#' README.md"
case_ "README with two arrows on a line" "more than one -> on a line" \
	"sed -i.bak 's#^beta      -> alpha/ext#beta -> alpha/ext -> alpha#' README.md"
case_ "a module without a depguard rule" ".golangci.yml has no depguard rule dag-beta" \
	"sed -i.bak 's#dag-beta:#dag-betax:#' .golangci.yml"
case_ "a rule allowing a module not required" "dag-alpha/ext lets alpha/ext import example.com/fake/beta, but alpha/ext does not require beta (go.mod)" \
	"sed -i.bak 's#^            - example.com/fake/alpha\$#            - example.com/fake/alpha\n            - example.com/fake/beta#' .golangci.yml"
case_ "a rule missing a required module" "dag-beta refuses example.com/fake/alpha, but beta requires alpha (go.mod)" \
	"sed -i.bak '/\"example.com\\/fake\\/alpha\"/d' .golangci.yml"
case_ "a rule refusing the module itself" "dag-beta refuses example.com/fake/beta, but beta is its own module" \
	"sed -i.bak '/- example.com\\/fake\\/beta\$/d' .golangci.yml"
case_ "a rule without deny entries lets everything in" "dag-alpha/ext lets alpha/ext import example.com/fake/beta" \
	"awk '/dag-alpha\\/ext:/ { on = 1 } on && /deny:/ { getline; on = 0; next } { print }' .golangci.yml >g.tmp && mv g.tmp .golangci.yml"
case_ "a rule allowing every module, for a module that requires them all" "" \
	"sed -i.bak 's#- example.com/fake/beta\$#- example.com/fake/#' .golangci.yml && awk '/dag-beta:/ { on = 1 } on && /deny:/ { getline; on = 0; next } { print }' .golangci.yml >g.tmp && mv g.tmp .golangci.yml"
# depguard'"'"'s lookup sees only the nearest allow entry sorted before an
# import: alpha/util sorts after alpha/ext, so allowing both alpha and
# alpha/ext does not let alpha/util in (a deny entry sorted in between
# that is not a prefix of it would).
case_ "a package sorted after an allowed nested module" "dag-alpha/ext refuses example.com/fake/alpha/util, but alpha/ext requires alpha (go.mod)" \
	"mkdir alpha/util && touch alpha/util/util.go"
case_ "a nested module let in by its parent's path" "dag-alpha lets alpha import example.com/fake/alpha/ext, but alpha does not require alpha/ext" \
	"sed -i.bak '/pkg: example.com\\/fake\\/alpha\\/ext/d' .golangci.yml"
case_ "a catch-all deny entry hidden by another deny entry" "dag-alpha lets alpha import example.com/fake/beta, but alpha does not require beta" \
	"sed -i.bak '/pkg: example.com\\/fake\\/beta/d' .golangci.yml"
case_ "a parent's rule covering a nested module's files" "dag-alpha also covers the files of alpha/ext" \
	"sed -i.bak '/!\${config-path}\\/alpha\\/ext/d' .golangci.yml"
case_ "go.mod requiring a module through another counts" "" \
	"sed -i.bak '/alpha v0.0.0 .. indirect/d' beta/go.mod"
# A module of tests excluded from releases, nested in beta's folder: not a
# layer, so no line in README.md and no rule of its own; beta's rule
# covers its files.
case_ "an excluded module is not a layer of the graph" "" \
	"mkdir beta/tests && touch beta/tests/tests.go && printf 'module example.com/fake/beta/tests\n\ngo 1.25.0\n\nrequire example.com/fake/beta v0.0.0\n' >beta/tests/go.mod && printf 'excluded-modules:\n  - dir: beta/tests\n' >>versions.yaml"

echo
echo "dag-check_test: $passed passed, $failed failed"
((failed == 0))
