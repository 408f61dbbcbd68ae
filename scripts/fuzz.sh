#!/usr/bin/env bash
# Fuzzes the workspace's Fuzz targets with `go test -fuzz`, FUZZTIME each.
# The seed corpus of every target already runs as an ordinary test in
# `go test`; this adds a short fuzzing run. `go test -fuzz` takes one
# target of one package per run, so the targets are found first: the test
# files `go list` gives for this build (it honours build tags and compiles
# nothing), searched for `func FuzzXxx(f *testing.F)`. A new target is
# picked up without editing a list.
#
#   scripts/fuzz.sh           fuzz the chosen targets (below)
#   scripts/fuzz.sh --list    print them, "package target reason", fuzz nothing
#
# Fuzzing all of them takes several minutes, too long for every run of the
# gate, so a run fuzzes
#   - every target of a package with a file changed since the merge base
#     of HEAD with main, committed or not (reason "changed"), and
#   - one slice of all the targets, sorted by package and name and cut into
#     FUZZ_SLICES contiguous slices, chosen by the UTC date: slice
#     (days since 1970-01-01) mod FUZZ_SLICES (reason "slice K/N"), so that
#     every target is fuzzed once every FUZZ_SLICES days.
#
# Settings (environment):
#   FUZZ_ALL=1     every target (reason "all"), as the scheduled CI run does
#   FUZZ_SLICES    the number of slices (4)
#   FUZZ_SLICE     the slice to run instead of the date's, 0 to FUZZ_SLICES-1
#   FUZZ_BASE      the ref to compare with (origin/main, else main); "none"
#                  skips the comparison
#   FUZZTIME       how long to fuzz each target (3s)
#   FUZZMINIMIZE   the -fuzzminimizetime of each target (20x)
#   GO             the go command (go)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-3s}
FUZZMINIMIZE=${FUZZMINIMIZE:-20x}
FUZZ_SLICES=${FUZZ_SLICES:-4}

list_only=
case ${1:-} in
"") ;;
--list) list_only=1 ;;
*) die "usage: $0 [--list]" ;;
esac
[[ $FUZZ_SLICES =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SLICES=$FUZZ_SLICES: want a positive number"

# note prints a line about the choice on stderr, so that --list's output
# stays the list alone.
note() { printf 'fuzz: %s\n' "$*" >&2; }

# targets prints "package dir target" for every Fuzz target of the
# workspace, sorted. `go list` runs from the workspace root (the current
# folder); dir is the package's folder relative to it.
targets() {
	local root listing pkg dir rest files
	root=$(pwd)
	listing=$($GO list -f '{{.ImportPath}} {{.Dir}}{{range .TestGoFiles}} {{.}}{{end}}{{range .XTestGoFiles}} {{.}}{{end}}' work) ||
		die "go list work failed (does every package load?)"
	while read -r pkg dir rest; do
		[[ -n $rest ]] || continue
		read -r -a files <<<"$rest"
		# A test function's name goes on with a character that is not a
		# lower-case letter (FuzzParse, Fuzz_x, Fuzz), as go test requires.
		(cd "$dir" && cat -- "${files[@]}") |
			sed -nE 's/^func (Fuzz([^a-z(][A-Za-z0-9_]*)?)\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\).*/\1/p' |
			while read -r name; do printf '%s %s %s\n' "$pkg" "${dir#"$root"/}" "$name"; done
	done <<<"$listing" | LC_ALL=C sort
}

# changed_files prints the files changed between the merge base of HEAD
# with FUZZ_BASE and the work tree, untracked ones included. It prints
# nothing when there is nothing to compare with, and says so.
changed_files() {
	local ref=${FUZZ_BASE:-} base
	if [[ $ref == none ]]; then
		note "changed packages: not computed (FUZZ_BASE=none)"
		return
	fi
	if [[ -z $ref ]]; then
		for ref in origin/main main ""; do
			[[ -n $ref ]] && git rev-parse -q --verify "$ref^{commit}" >/dev/null && break
		done
		if [[ -z $ref ]]; then
			note "changed packages: not computed (no origin/main or main here: set FUZZ_BASE)"
			return
		fi
	fi
	git rev-parse -q --verify "$ref^{commit}" >/dev/null || die "FUZZ_BASE=$ref is not a commit here"
	base=$(git merge-base HEAD "$ref") || die "no merge base of HEAD and $ref"
	note "changed packages: files changed since the merge base of HEAD with $ref ($(git rev-parse --short "$base"))"
	git diff --name-only --no-renames "$base" -- .
	git ls-files --others --exclude-standard
}

all=$(targets)
[[ -n $all ]] || {
	note "no Fuzz targets found"
	exit 0
}
total=$(wc -l <<<"$all")
note "$total target(s) in $(awk '{ print $1 }' <<<"$all" | sort -u | wc -l) package(s), found in their test files"

if [[ ${FUZZ_ALL:-} == 1 ]]; then
	chosen=$(awk '{ print $1, $3, "all" }' <<<"$all")
	note "FUZZ_ALL=1: every target"
else
	if [[ -n ${FUZZ_SLICE:-} ]]; then
		if ! [[ $FUZZ_SLICE =~ ^[0-9]+$ ]] || ((FUZZ_SLICE >= FUZZ_SLICES)); then
			die "FUZZ_SLICE=$FUZZ_SLICE: want 0 to $((FUZZ_SLICES - 1))"
		fi
		slice=$FUZZ_SLICE why="FUZZ_SLICE"
	else
		day=$(($(date -u +%s) / 86400))
		slice=$((day % FUZZ_SLICES)) why="day $day UTC, $(date -u +%F)"
	fi
	changed=$(changed_files)
	# A target is changed when a file of its package's folder, or of the
	# folder's testdata/ (a corpus), changed; target i of n is in slice
	# i*FUZZ_SLICES/n.
	chosen=$(awk -v slice="$slice" -v slices="$FUZZ_SLICES" -v total="$total" '
		FILENAME == ARGV[1] { changed[$0] = 1; next }
		{
			dir = $2; reason = ""
			for (f in changed) {
				d = f; sub(/\/[^\/]*$/, "", d); if (d == f) d = "."
				if (d == dir || index(f, dir "/testdata/") == 1) { reason = "changed"; break }
			}
			if (int((FNR - 1) * slices / total) == slice) reason = reason (reason == "" ? "" : ", ") "slice " slice "/" slices
			if (reason != "") print $1, $3, reason
		}
	' <(printf '%s\n' "$changed") <(printf '%s\n' "$all"))
	note "slice $slice of 0..$((FUZZ_SLICES - 1)) ($why): $(grep -c 'slice' <<<"$chosen" || true) target(s); FUZZ_ALL=1 fuzzes all $total"
	note "changed: $(grep -c 'changed' <<<"$chosen" || true) target(s)"
fi

if [[ -n $list_only ]]; then
	printf '%s\n' "$chosen"
	exit 0
fi

count=$(grep -c . <<<"$chosen" || true)
note "fuzzing $count of $total target(s), $FUZZTIME each"
# fuzz PKG TARGET runs go test -fuzz on one target, printing its output.
fuzz() {
	$GO test -run='^$' -fuzz="^$2\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="$FUZZMINIMIZE" "$1" 2>&1
}
while read -r pkg target reason; do
	[[ -n $pkg ]] || continue
	echo "--- $pkg $target ($reason)"
	if ! out=$(fuzz "$pkg" "$target"); then
		echo "$out"
		# go test -fuzz sometimes stops on its own deadline before the
		# fuzzing time is up, with no failing input: run it once more.
		if grep -q 'Failing input written' <<<"$out" || ! grep -q 'context deadline exceeded' <<<"$out"; then exit 1; fi
		echo "(go test -fuzz stopped on its own deadline without a failing input, a known toolchain flake: run again)"
		out=$(fuzz "$pkg" "$target") || {
			echo "$out"
			exit 1
		}
	fi
	awk '/execs:/ { last = $0 } END { if (last != "") print last }' <<<"$out"
	tail -n 1 <<<"$out"
done <<<"$chosen"
echo "fuzz-smoke: $count of $total target(s) ok"
