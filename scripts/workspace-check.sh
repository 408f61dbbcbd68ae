#!/usr/bin/env bash
# Fails when the workspace's three descriptions of itself disagree, or when a
# module breaks the workspace conventions (see CONVENTIONS.md):
#
#   - versions.yaml's modules (released and excluded), go.work's use list
#     and the folders that hold a go.mod must be the same set;
#   - go.work says `go $GO_FLOOR` (the floor, never a local patch version)
#     and has no toolchain line;
#   - each module's go.mod says `module <prefix>/<dir>` and `go $GO_FLOOR`,
#     has no toolchain line, and has a `replace <sibling> => <path>` line
#     for every sibling it requires, <path> being the sibling's folder
#     relative to the module's (../toolmodel; .. from toolrun/httpexec to
#     toolrun), so GOWORK=off builds work;
#   - a required sibling is listed before its dependent in versions.yaml
#     (that order is the release order), and is not an excluded module;
#   - each released module has a CHANGELOG.md with a "## Unreleased"
#     section and a depguard rule named dag-<dir> in .golangci.yml (the
#     layer DAG). An excluded module (never released: a module of tests)
#     needs neither: it has no importers, and the rule of the module whose
#     folder holds it covers its files.
#
# Usage: scripts/workspace-check.sh [repo-root]   (default: this script's repo)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

root=$(cd "${1:-$here/..}" && pwd)
cd "$root"
GO_FLOOR=${GO_FLOOR:-1.25.0}

errors=0
fail() {
	printf 'workspace-check: %s\n' "$*" >&2
	errors=$((errors + 1))
}

[[ -f versions.yaml ]] || die "versions.yaml not found in $root"
[[ -f go.work ]] || die "go.work not found in $root"

prefix=$(vy_prefix versions.yaml)
listed=$(vy_modules versions.yaml) || die "versions.yaml is malformed"
excluded=$(vy_excluded versions.yaml) || die "versions.yaml is malformed"
yaml_dirs=$(awk '{ print $1 }' <<<"$listed")
[[ -z $excluded ]] || yaml_dirs+=$'\n'$excluded
dups=$(sort <<<"$yaml_dirs" | uniq -d)
[[ -z $dups ]] || fail "versions.yaml lists a module twice: $dups"

# go.work: `use ./x` and `use ( ./x ./y )` forms, // comments stripped.
work_dirs=$(awk '
	{ sub(/\/\/.*/, "") }
	/^use[ \t]*\([ \t]*$/ { inblock = 1; next }
	inblock && /^[ \t]*\)/ { inblock = 0; next }
	inblock && NF { print $1; next }
	/^use[ \t]+[^(]/ { print $2 }
' go.work | sed -e 's#^\./##' -e 's#/$##')
grep -Eq "^go[[:space:]]+${GO_FLOOR//./\\.}[[:space:]]*$" go.work ||
	fail "go.work: want the line 'go $GO_FLOOR' (the floor), got: $(grep -E '^go[[:space:]]' go.work || echo none)"
if grep -Eq '^toolchain[[:space:]]' go.work; then
	fail "go.work: remove the toolchain line (the go line is the floor)"
fi

# Folders holding a go.mod, at any depth (a module may nest in another's
# folder, like toolrun/httpexec): hidden folders, bin/, node_modules/ and
# testdata/ are not searched, and symbolic links are not followed.
disk_dirs=$(find . -mindepth 2 \( -name '.*' -o -name bin -o -name node_modules -o -name testdata \) -prune -o \
	-type f -name go.mod -print | sed -e 's#^\./##' -e 's#/go\.mod$##' | sort)

compare() { # compare NAME-A LIST-A NAME-B LIST-B
	local only
	only=$(comm -23 <(sort <<<"$2" | sed '/^$/d') <(sort <<<"$4" | sed '/^$/d') | tr '\n' ' ')
	[[ -z $only ]] || fail "in $1 but not in $3: $only"
}
compare "versions.yaml" "$yaml_dirs" "go.work" "$work_dirs"
compare "go.work" "$work_dirs" "versions.yaml" "$yaml_dirs"
compare "versions.yaml" "$yaml_dirs" "the folders with a go.mod" "$disk_dirs"
compare "the folders with a go.mod" "$disk_dirs" "versions.yaml" "$yaml_dirs"

# "dir released" for every released module, in release order, then "dir
# excluded" for every excluded one.
modules=$(awk '{ print $1, "released" }' <<<"$listed")
[[ -z $excluded ]] || modules+=$'\n'$(awk '{ print $1, "excluded" }' <<<"$excluded")

seen=" "
while read -r dir kind; do
	mod=$dir/go.mod
	if [[ ! -f $mod ]]; then
		seen="$seen$dir "
		continue # already reported above
	fi
	want="$prefix/$dir"
	got=$(awk '/^module[ \t]/ { print $2; exit }' "$mod" | tr -d '"')
	[[ $got == "$want" ]] || fail "$mod: module path is '$got', want '$want'"
	grep -Eq "^go[[:space:]]+${GO_FLOOR//./\\.}[[:space:]]*$" "$mod" ||
		fail "$mod: want the line 'go $GO_FLOOR', got: $(grep -E '^go[[:space:]]' "$mod" || echo none)"
	if grep -Eq '^toolchain[[:space:]]' "$mod"; then
		fail "$mod: remove the toolchain line (the go line is the floor)"
	fi

	replaces=$(gomod_replaces "$mod" "$prefix")
	while read -r path _; do
		[[ -n $path ]] || continue
		sib=${path#"$prefix"/}
		if ! grep -qx -- "$sib" <<<"$yaml_dirs"; then
			fail "$mod: requires $path, which is not a module in versions.yaml"
			continue
		fi
		if grep -qx -- "$sib" <<<"$excluded"; then
			fail "$mod: requires $sib, an excluded module (never released: nothing may require it)"
			continue
		fi
		[[ $seen == *" $sib "* ]] ||
			fail "$mod: requires $sib, which versions.yaml lists after $dir (the list is the release order)"
		target=$(awk -v p="$path" '$1 == p { print $2 }' <<<"$replaces")
		rel=$(relpath "$dir" "$sib")
		[[ $target == "$rel" ]] ||
			fail "$mod: requires $path but has no 'replace $path => $rel' line${target:+ (it has => $target)}"
	done < <(gomod_requires "$mod" "$prefix")

	if [[ $kind == excluded ]]; then
		continue
	fi
	if [[ ! -f $dir/CHANGELOG.md ]]; then
		fail "$dir/CHANGELOG.md is missing (scripts/release.sh needs it)"
	elif ! grep -Eq '^## Unreleased[[:space:]]*$' "$dir/CHANGELOG.md"; then
		fail "$dir/CHANGELOG.md has no '## Unreleased' section"
	fi
	if [[ -f .golangci.yml ]] && ! grep -Eq "^[[:space:]]+dag-$dir:[[:space:]]*$" .golangci.yml; then
		fail ".golangci.yml has no depguard rule dag-$dir (the module's allowed imports)"
	fi
	seen="$seen$dir "
done <<<"$modules"

if ((errors > 0)); then
	echo "workspace-check: $errors problem(s)" >&2
	exit 1
fi
echo "workspace-check: ok ($(wc -l <<<"$listed" | tr -d ' ') modules: $(awk '{ print $1 }' <<<"$listed" | paste -sd ' ' -)${excluded:+; excluded from releases: $(paste -sd ' ' - <<<"$excluded")})"
