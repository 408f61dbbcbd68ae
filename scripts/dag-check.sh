#!/usr/bin/env bash
# Fails when the three descriptions of the module graph disagree:
#
#   - the code's: the require lines of each module's go.mod that name a
#     module of versions.yaml (direct or // indirect);
#   - the documentation's: the fenced block that follows the line
#     "<!-- module graph -->" in README.md, one module a line, written
#     `module -> what it requires` (each module listed once; what a required
#     module brings may be left out; text after # is a comment);
#   - the linter's: the allow list of each depguard rule dag-<dir> in
#     .golangci.yml.
#
# For every module M of versions.yaml, the modules M depends on (directly or
# through others) must be the same according to go.mod and to README.md, and
# the depguard rule dag-M must let M's files import the packages of exactly
# those modules and of M. That is decided the way depguard v2 decides it, on
# every package folder of the workspace: each list is sorted and an import
# is looked up by binary search, matching only if the nearest entry sorted
# at or before it is a prefix of it; in lax mode an import is refused when
# it matches the deny list and does not match a longer allow entry. (So a
# catch-all deny entry stops working for paths that sort after another deny
# entry: such rules must deny every forbidden module by name.) The rule of
# a module with modules nested in its folder must also exclude their files
# ("!<path>/**"). Rules for folders that are not modules (yet) are ignored.
# The excluded modules of versions.yaml (modules of tests, never released)
# are not layers: they have no line in README.md and no rule, their
# packages count as those of the module whose folder holds them, and that
# module's rule covers their files (a module of tests requires the module
# it tests, and so may import what that module may).
#
# Usage: scripts/dag-check.sh [repo-root]   (default: this script's repo)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

root=$(cd "${1:-$here/..}" && pwd)
cd "$root"
for f in versions.yaml README.md .golangci.yml; do [[ -f $f ]] || die "$f not found in $root"; done
prefix=$(vy_prefix versions.yaml)
modules=$(vy_modules versions.yaml | awk '{ print $1 }') || die "versions.yaml is malformed"

# All three graphs as "source kind args..." lines for one awk program.
facts=$(
	while read -r m; do
		echo "module $m"
		[[ -f $m/go.mod ]] || die "$m/go.mod not found"
		gomod_requires "$m/go.mod" "$prefix" | while read -r path _; do
			echo "gomod $m ${path#"$prefix"/}"
		done
	done <<<"$modules"

	# Every package folder (a folder with a .go file), as "package MODULE PATH".
	find . -mindepth 1 \( -name '.*' -o -name bin -o -name node_modules -o -name testdata \) -prune -o \
		-type f -name '*.go' -print | sed -e 's#^\./##' -e 's#/[^/]*$##' | sort -u |
		while read -r d; do
			best=
			while read -r m; do
				if [[ $d == "$m" || $d == "$m"/* ]] && ((${#m} > ${#best})); then best=$m; fi
			done <<<"$modules"
			[[ -z $best ]] || echo "package $best $prefix/$d"
		done

	awk '
		/<!--[ \t]*module graph[ \t]*-->/ { marker = 1; next }
		marker && !inblock && /^```/ { inblock = 1; next }
		inblock && /^```/ { exit }
		inblock {
			sub(/#.*/, "")
			if ($0 ~ /^[ \t]*$/) next
			n = split($0, parts, "->")
			if (n > 2) { print "readme-bad " NR " " $0; next }
			gsub(/[ \t]/, "", parts[1])
			print "readme-node " parts[1] " " NR
			if (n == 2) {
				gsub(/,/, " ", parts[2])
				k = split(parts[2], deps, " ")
				for (i = 1; i <= k; i++) print "readme " parts[1] " " deps[i]
			}
		}
		END { if (!inblock) print "readme-missing" }
	' README.md

	awk -v prefix="$prefix/" '
		function clean(s) { sub(/[ \t]+#.*$/, "", s); gsub(/["\047]/, "", s); gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
		function indent(s) { match(s, /^ */); return RLENGTH }
		function item(v) {
			v = clean(v)
			if (field == "deny") { if (v !~ /^pkg:/) return; sub(/^pkg:[ \t]*/, "", v) }
			if (field == "files") { sub(/^\$\{config-path\}\//, "", v); sub(/^!\$\{config-path\}\//, "!", v) }
			if ((field == "allow" || field == "deny") && index(v, prefix) != 1 && v "/" != prefix) return
			print field, rule, v
		}
		/^[ \t]*#/ || /^[ \t]*$/ { next }
		/^[ \t]*depguard:[ \t]*$/ { dg = indent($0); next }
		dg && indent($0) <= dg { dg = 0; rule = "" }
		!dg { next }
		/^[ \t]*dag-[^ \t:]+:[ \t]*$/ { rule = clean($0); sub(/^dag-/, "", rule); sub(/:$/, "", rule); field = ""; print "rule", rule, rule; next }
		rule == "" { next }
		/^[ \t]*(files|allow|deny|list-mode|desc):/ && !/^[ \t]*- / {
			line = $0; sub(/^[ \t]*/, "", line)
			key = line; sub(/:.*/, "", key)
			if (key == "desc") next
			field = key
			rest = line; sub(/^[^:]*:[ \t]*/, "", rest)
			if (rest ~ /^\[/) {
				gsub(/^\[|\][ \t]*$/, "", rest)
				k = split(rest, items, ",")
				for (i = 1; i <= k; i++) item(items[i])
			}
			next
		}
		/^[ \t]*- / { v = $0; sub(/^[ \t]*- /, "", v); item(v) }
	' .golangci.yml | sed 's/^/depguard-/'
)

LC_ALL=C awk '
	function sorted(set,   k, out, n, i, j, t, a) {
		n = 0
		for (k in set) a[++n] = k
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		out = ""
		for (i = 1; i <= n; i++) out = out (out == "" ? "" : " ") a[i]
		return out
	}
	function fail(msg) { printf "dag-check: %s\n", msg > "/dev/stderr"; bad++ }
	# closure(kind, m, out): every module m depends on, by the edges of kind.
	function closure(kind, m, out,   stack, n, cur, k, d) {
		n = 0; stack[++n] = m
		while (n > 0) {
			cur = stack[n--]
			for (k = 1; k <= deg[kind, cur]; k++) {
				d = edge[kind, cur, k]
				if (!(d in out)) { out[d] = 1; stack[++n] = d }
			}
		}
	}
	function add(kind, a, b) { edge[kind, a, ++deg[kind, a]] = b }
	# lookup(LIST, N, S): depguard'"'"'s strInPrefixList on the sorted list:
	# the greatest entry that sorts at or before S, if it is a prefix of S;
	# its length, or -1.
	function lookup(list, n, s,   i, best, e) {
		best = ""
		for (i = 1; i <= n; i++) { e = list[i]; if (e <= s && (best == "" || e > best)) best = e }
		if (best != "" && index(s, best) == 1) return length(best)
		return -1
	}
	function lax_allows(r, s,   i, a, d, la, ld) {
		split("", a); split("", d)
		for (i = 1; i <= nal[r]; i++) a[i] = al[r, i]
		for (i = 1; i <= ndl[r]; i++) d[i] = dl[r, i]
		la = lookup(a, nal[r] + 0, s); ld = lookup(d, ndl[r] + 0, s)
		if (ld < 0) return 1
		return la > ld
	}
	$1 == "module" { mods[$2] = 1; order[++nmods] = $2 }
	$1 == "gomod" { add("gomod", $2, $3) }
	$1 == "readme" { add("readme", $2, $3); rdeps[$3] = 1 }
	$1 == "readme-node" {
		if ($2 in rnode) fail("README.md: " $2 " is listed twice in the module graph")
		rnode[$2] = 1
	}
	$1 == "readme-bad" { fail("README.md line " $2 ": more than one -> on a line of the module graph") }
	$1 == "readme-missing" { missing = 1 }
	$1 == "depguard-rule" { rules[$2] = 1 }
	$1 == "depguard-allow" { al[$2, ++nal[$2]] = $3 }
	$1 == "depguard-deny" { dl[$2, ++ndl[$2]] = $3 }
	$1 == "package" { pkgmod[++npkgs] = $2; pkgpath[npkgs] = $3 }
	$1 == "depguard-files" { files[$2, $3] = 1 }
	END {
		if (missing) { fail("README.md has no fenced block after a <!-- module graph --> line"); exit 1 }
		for (m in rnode) if (!(m in mods)) fail("README.md: the module graph lists " m ", which is not a module in versions.yaml")
		for (m in rdeps) if (!(m in mods)) fail("README.md: the module graph names " m " as a dependency, which is not a module in versions.yaml")
		for (i = 1; i <= nmods; i++) {
			m = order[i]
			if (!(m in rnode)) fail("README.md: the module graph has no line for " m)
			split("", g); split("", r); split("", want)
			closure("gomod", m, g); closure("readme", m, r)
			for (d in g) if (!(d in r)) fail(m " requires " d " (go.mod), but README.md'"'"'s module graph does not show it")
			for (d in r) if (!(d in g)) fail("README.md'"'"'s module graph says " m " requires " d ", but its go.mod does not")
			if (!(m in rules)) { fail(".golangci.yml has no depguard rule dag-" m); continue }
			for (d in g) want[d] = 1
			want[m] = 1
			for (k = 1; k <= npkgs; k++) {
				pm = pkgmod[k]; pp = pkgpath[k]
				ok = lax_allows(m, pp)
				if (ok && !(pm in want)) fail("dag-" m " lets " m " import " pp ", but " m " does not require " pm " (go.mod)")
				else if (!ok && (pm in want)) fail("dag-" m " refuses " pp ", but " m (pm == m ? " is its own module" : " requires " pm " (go.mod)"))
			}
			# The files of modules nested in m belong to their own rules.
			for (j = 1; j <= nmods; j++) {
				n2 = order[j]
				if (index(n2, m "/") == 1 && !files[m, "!" n2 "/**"])
					fail("dag-" m " also covers the files of " n2 " (nested in its folder): add \"!${config-path}/" n2 "/**\" to its files")
			}
		}
		if (bad) { printf "dag-check: %d problem(s)\n", bad > "/dev/stderr"; exit 1 }
		printf "dag-check: ok (%d modules: go.mod, README.md and .golangci.yml agree)\n", nmods
	}
' <<<"$facts"
