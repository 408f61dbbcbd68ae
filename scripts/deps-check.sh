#!/usr/bin/env bash
# Fails when a program that imports only the core of the stack gets a heavy
# integration's dependencies in its module graph. It builds a throw-away
# program in a temporary folder, as a user would write it (GOWORK=off, a
# replace line per workspace module pointing at this checkout), that imports
# only DEPS_CHECK_PACKAGE and calls DEPS_CHECK_CALL, runs `go mod tidy`,
# then checks:
#
#   - no module listed in DEPS_CHECK_FORBID appears in `go mod graph`
#     (a module path matches itself and the paths below it);
#   - for each "MODULE=CARRIER" of DEPS_CHECK_VIA, MODULE may be in the
#     graph only because CARRIER needs it: the only packages of the
#     program that import a package of MODULE belong to CARRIER (or to
#     MODULE), and no workspace module of the graph requires MODULE
#     directly (a `// indirect` line is the bookkeeping of Go's pruned
#     module graph, not a need of ours).
#
# The defaults are the reason the HTTP, OpenAPI and gRPC integrations are
# modules of their own: a program using toolrun with a local executor must
# not get grpc-go, protobuf or kin-openapi, and gets golang.org/x/oauth2
# only through the MCP go-sdk (its mcp package imports it, and toolmodel's
# Tool is the SDK's).
#
# Usage: scripts/deps-check.sh [repo-root]   (default: this script's repo)
# It needs the modules in the module cache or a module proxy; go.sum is
# seeded from the workspace's go.sum files, so no checksum database is asked.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

root=$(cd "${1:-$here/..}" && pwd)
[[ -f $root/versions.yaml ]] || die "versions.yaml not found in $root"
prefix=$(vy_prefix "$root/versions.yaml")
modules=$(vy_modules "$root/versions.yaml" | awk '{ print $1 }') || die "versions.yaml is malformed"

package=${DEPS_CHECK_PACKAGE:-$prefix/toolrun}
call=${DEPS_CHECK_CALL:-toolrun.NewLocalExecutor()}
forbid=${DEPS_CHECK_FORBID:-google.golang.org/grpc google.golang.org/protobuf google.golang.org/genproto github.com/getkin/kin-openapi}
via=${DEPS_CHECK_VIA:-golang.org/x/oauth2=github.com/modelcontextprotocol/go-sdk}
GO=${GO:-go}

# The module of the imported package: the longest workspace module path
# that is the package's path or a prefix of it.
main_mod=
while read -r dir; do
	p=$prefix/$dir
	if [[ $package == "$p" || $package == "$p"/* ]] && ((${#p} > ${#main_mod})); then
		main_mod=$p
	fi
done <<<"$modules"
[[ -n $main_mod ]] || die "$package is in no module of versions.yaml"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	printf 'module example.com/depscheck\n\ngo 1.25.0\n\nrequire %s v0.0.0\n\nreplace (\n' "$main_mod"
	while read -r dir; do printf '\t%s/%s => %s/%s\n' "$prefix" "$dir" "$root" "$dir"; done <<<"$modules"
	printf ')\n'
} >"$tmp/go.mod"
printf 'package main\n\nimport "%s"\n\nfunc main() {\n\t_ = %s\n}\n' "$package" "$call" >"$tmp/main.go"
while read -r dir; do
	[[ ! -f $root/$dir/go.sum ]] || cat "$root/$dir/go.sum"
done <<<"$modules" | sort -u >"$tmp/go.sum"

cd "$tmp"
export GOWORK=off GOFLAGS=-mod=mod
"$GO" mod tidy || die "go mod tidy failed for a program importing $package"
graph=$("$GO" mod graph) || die "go mod graph failed"
pkgs=$("$GO" list -deps -f '{{.ImportPath}}|{{with .Module}}{{.Path}}{{end}}|{{join .Imports " "}}' .) ||
	die "go list failed"

errors=0
fail() {
	printf 'deps-check: %s\n' "$*" >&2
	errors=$((errors + 1))
}
# in_module MODULE PATH: PATH is MODULE or below it.
in_module() { [[ $2 == "$1" || $2 == "$1"/* ]]; }

# Every module of the graph, without versions.
graph_mods=$(tr ' ' '\n' <<<"$graph" | sed 's/@.*//' | sort -u)

for m in $forbid; do
	while read -r g; do
		[[ -n $g ]] || continue
		if in_module "$m" "$g"; then
			fail "$g is in the module graph of a program importing only $package; it is required by: $(awk -v g="$g" '{ split($2, a, "@") } a[1] == g { print $1 }' <<<"$graph" | paste -sd ' ' -)"
		fi
	done <<<"$graph_mods"
done

for pair in $via; do
	m=${pair%%=*} carrier=${pair#*=}
	# Packages of the program importing a package of m, with their modules.
	importers=$(awk -F'|' -v m="$m" '
		{ mod[$1] = $2; imports[$1] = $3 }
		END {
			for (p in imports) {
				n = split(imports[p], list, " ")
				for (i = 1; i <= n; i++) {
					q = list[i]
					if (mod[q] == m) print p, mod[p]
				}
			}
		}' <<<"$pkgs" | sort -u)
	while read -r p pm; do
		[[ -n $p ]] || continue
		in_module "$m" "$pm" || in_module "$carrier" "$pm" ||
			fail "$p (module ${pm:-none}) imports $m: only $carrier may bring it into a program importing only $package"
	done <<<"$importers"
	# Workspace modules of the graph that require m without // indirect.
	while read -r g; do
		[[ $g == "$prefix"/* ]] || continue
		dir=${g#"$prefix"/}
		[[ -f $root/$dir/go.mod ]] || continue
		awk -v m="$m" '
			/^require[ \t]*\([ \t]*$/ { inblock = 1; next }
			inblock && /^[ \t]*\)/ { inblock = 0; next }
			inblock && $1 == m && $0 !~ /\/\/[ \t]*indirect/ { found = 1 }
			/^require[ \t]/ && $2 == m && $0 !~ /\/\/[ \t]*indirect/ { found = 1 }
			END { exit !found }
		' "$root/$dir/go.mod" &&
			fail "$dir/go.mod requires $m directly, in the module graph of a program importing only $package"
	done <<<"$graph_mods"
done

if ((errors > 0)); then
	echo "deps-check: $errors problem(s)" >&2
	exit 1
fi
count=$(wc -l <<<"$graph_mods" | tr -d ' ')
echo "deps-check: ok (a program importing only $package: $count modules in its graph, none of: $forbid; $(tr ' ' '\n' <<<"$via" | sed 's/=/ only through /' | paste -sd ';' -))"
