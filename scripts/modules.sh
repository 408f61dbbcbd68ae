#!/usr/bin/env bash
# Prints the workspace's modules from versions.yaml, the one list of modules
# that the Makefile, CI and scripts/release.sh all read.
#
#   scripts/modules.sh                 every module dir, one a line: the released
#                                      ones in release order, then the excluded
#                                      ones (never released, tested all the same)
#   scripts/modules.sh --json          the same dirs as a JSON array (CI's job matrix)
#   scripts/modules.sh --versions      "dir version" lines of the released modules
#   scripts/modules.sh --prefix        the module path prefix
#   scripts/modules.sh --next-minor    a version greater than every module's
#                                      (highest minor + 1), for release dry runs
#
# VERSIONS_FILE overrides the file (default: versions.yaml at the repo root).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

file=${VERSIONS_FILE:-$here/../versions.yaml}
[[ -f $file ]] || die "$file not found"

list=$(vy_modules "$file") || die "$file is malformed"
[[ -n $list ]] || die "$file lists no modules"
excluded=$(vy_excluded "$file") || die "$file is malformed"
all=$(awk '{ print $1 }' <<<"$list")
[[ -z $excluded ]] || all+=$'\n'$excluded

case ${1:-} in
"") printf '%s\n' "$all" ;;
--versions) printf '%s\n' "$list" ;;
--json) awk 'BEGIN { printf "[" } { printf "%s\"%s\"", (NR > 1 ? "," : ""), $1 } END { print "]" }' <<<"$all" ;;
--prefix) vy_prefix "$file" ;;
--next-minor)
	max=0.0.0
	while read -r _ v; do
		[[ $(semver_cmp "$v" "$max") == 1 ]] && max=$v
	done <<<"$list"
	IFS=. read -r major minor _ <<<"$max"
	echo "$major.$((minor + 1)).0"
	;;
*) die "usage: $0 [--versions|--json|--prefix|--next-minor]" ;;
esac
