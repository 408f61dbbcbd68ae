# shellcheck shell=bash
# Shared helpers for the repository's scripts. Source it; do not run it.
#
# versions.yaml has a fixed, deliberately simple format, so it is parsed
# with awk rather than with a YAML library (nothing to install):
#
#   prefix: github.com/metatools-go/metatools
#   modules:
#     - dir: errors
#       version: 0.0.0
#   excluded-modules:
#     - dir: toolserver/internal/oauthtest
#
# The order of the modules is the release (DAG) order. Version 0.0.0 means
# "never released". Excluded modules (as in OpenTelemetry-Go's
# versions.yaml) are modules of the workspace that are never released and
# have no version: modules of tests, whose dependencies no importer should
# get. Only bash, awk and git are needed (bash 3.2 is enough: no
# associative arrays), so the scripts also run on a stock macOS.

# die prints its arguments to stderr and exits 1.
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# vy_prefix FILE prints the module path prefix.
vy_prefix() {
	awk '
		/^prefix:/ {
			sub(/^prefix:[ \t]*/, ""); sub(/[ \t]+#.*$/, ""); gsub(/["\047]/, "")
			print; found = 1; exit
		}
		END { if (!found) exit 1 }
	' "$1" || die "$1: no prefix: line"
}

# vy_entries FILE SECTION prints "dir version" for every entry of the list
# SECTION (modules or excluded-modules), in file order; version is empty
# when the entry has none.
vy_entries() {
	awk -v want="$2" '
		function clean(s) { sub(/[ \t]+#.*$/, "", s); gsub(/["\047 \t]/, "", s); return s }
		function flush() {
			if (dir != "") print dir, ver
			dir = ""; ver = ""
		}
		/^[^ \t#-][^:]*:/ { flush(); section = $0; sub(/:.*/, "", section); next }
		section != want { next }
		/^[ \t]*-[ \t]*dir:/ { flush(); line = $0; sub(/^[ \t]*-[ \t]*dir:/, "", line); dir = clean(line); next }
		/^[ \t]+version:/ && dir != "" { line = $0; sub(/^[ \t]+version:/, "", line); ver = clean(line); next }
		END { flush() }
	' "$1"
}

# vy_modules FILE prints "dir version" for every module that is released,
# in file order, and fails on an entry without a version or a version that
# is not X.Y.Z.
vy_modules() {
	vy_entries "$1" modules | awk -v file="$1" '
		$2 == "" { printf "%s: module %s has no version\n", file, $1 > "/dev/stderr"; bad = 1 }
		$2 != "" && $2 !~ /^[0-9]+\.[0-9]+\.[0-9]+$/ { printf "%s: module %s: version %s is not X.Y.Z\n", file, $1, $2 > "/dev/stderr"; bad = 1 }
		{ print }
		END { exit bad }
	'
}

# vy_excluded FILE prints the dir of every excluded module (never
# released), in file order, and fails on one that has a version.
vy_excluded() {
	vy_entries "$1" excluded-modules | awk -v file="$1" '
		$2 != "" { printf "%s: excluded module %s has a version: it is never released\n", file, $1 > "/dev/stderr"; bad = 1 }
		{ print $1 }
		END { exit bad }
	'
}

# vy_set_version FILE DIR VERSION rewrites the version of one module in
# place, keeping every other byte of the file.
vy_set_version() {
	local tmp
	tmp=$(mktemp "${1}.XXXXXX")
	awk -v want="$2" -v ver="$3" '
		/^[ \t]*-[ \t]*dir:/ {
			d = $0; sub(/^[ \t]*-[ \t]*dir:[ \t]*/, "", d); sub(/[ \t]+#.*$/, "", d); gsub(/["\047 \t]/, "", d)
			cur = d
		}
		/^[ \t]+version:/ && cur == want {
			match($0, /^[ \t]+version:[ \t]*/)
			$0 = substr($0, 1, RLENGTH) ver
			done = 1; cur = ""
		}
		{ print }
		END { if (!done) exit 1 }
	' "$1" >"$tmp" || {
		rm -f "$tmp"
		die "$1: module $2 not found"
	}
	mv "$tmp" "$1"
}

# gomod_requires GOMOD PREFIX prints "path version" for every require line
# (direct or // indirect, single-line or block form) of a module under
# PREFIX/.
gomod_requires() {
	awk -v prefix="$2/" '
		/^require[ \t]*\([ \t]*$/ { inblock = 1; next }
		inblock && /^[ \t]*\)/ { inblock = 0; next }
		inblock { if (index($1, prefix) == 1) print $1, $2; next }
		/^require[ \t]/ { if (index($2, prefix) == 1) print $2, $3 }
	' "$1"
}

# gomod_replaces GOMOD PREFIX prints "oldpath newpath" for every replace
# line whose old path is under PREFIX/.
gomod_replaces() {
	awk -v prefix="$2/" '
		function emit(old, arrow_at) {
			if (index(old, prefix) != 1) return
			for (i = arrow_at + 1; i <= NF; i++) new = (i == arrow_at + 1 ? $i : new " " $i)
			print old, new
		}
		/^replace[ \t]*\([ \t]*$/ { inblock = 1; next }
		inblock && /^[ \t]*\)/ { inblock = 0; next }
		inblock { for (a = 1; a <= NF; a++) if ($a == "=>") { emit($1, a); break }; next }
		/^replace[ \t]/ { for (a = 2; a <= NF; a++) if ($a == "=>") { emit($2, a); break } }
	' "$1"
}

# relpath FROM TO prints the path of folder TO relative to folder FROM, both
# given relative to the same root without "." or ".." components:
# relpath toolrun/httpexec toolrun prints "..", relpath toolserver
# toolrun/httpexec prints "../toolrun/httpexec".
relpath() {
	awk -v from="$1" -v to="$2" 'BEGIN {
		nf = split(from, f, "/"); nt = split(to, t, "/")
		c = 0
		while (c < nf && c < nt && f[c + 1] == t[c + 1]) c++
		out = ""
		for (i = c + 1; i <= nf; i++) out = out (out == "" ? "" : "/") ".."
		for (i = c + 1; i <= nt; i++) out = out (out == "" ? "" : "/") t[i]
		print (out == "" ? "." : out)
	}'
}

# semver_cmp A B prints -1, 0 or 1 comparing two X.Y.Z versions (a leading
# "v" is ignored).
semver_cmp() {
	local a=${1#v} b=${2#v} i
	local -a x y
	IFS=. read -r -a x <<<"$a"
	IFS=. read -r -a y <<<"$b"
	for i in 0 1 2; do
		if ((10#${x[i]} < 10#${y[i]})); then
			echo -1
			return
		elif ((10#${x[i]} > 10#${y[i]})); then
			echo 1
			return
		fi
	done
	echo 0
}

# is_semver V succeeds when V is X.Y.Z or vX.Y.Z (no pre-release, no build).
is_semver() {
	[[ $1 =~ ^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]]
}

# modcache_escape PATH prints PATH as the module cache spells it: each
# upper-case letter becomes "!" and its lower-case form
# (github.com/BurntSushi -> github.com/!burnt!sushi).
modcache_escape() {
	awk -v p="$1" 'BEGIN {
		out = ""
		for (i = 1; i <= length(p); i++) {
			c = substr(p, i, 1)
			out = out (c ~ /[A-Z]/ ? "!" tolower(c) : c)
		}
		print out
	}'
}

# modcache_forget MODCACHE PATH VERSION REPO_URL TAG removes module PATH
# at VERSION (vX.Y.Z), made from the git tag TAG of the repository at
# REPO_URL, from the module cache MODCACHE: its downloaded files, its
# extracted tree (read-only, as the go command leaves it), its line in the
# list of versions, and the tag in the go command's clone of the
# repository (cache/vcs). It prints
# "removed" when there was something to remove. The go command downloads
# a version its cache holds only once, and takes a tag its clone has as
# it is: a copy made from a tag that was deleted and made again on other
# content would otherwise stay.
modcache_forget() {
	local cache=$1 esc found=false f info
	esc=$(modcache_escape "$2")
	for f in "$cache/cache/download/$esc/@v/$3".{info,mod,zip,ziphash,lock,partial}; do
		if [[ -e $f ]]; then
			rm -f "$f"
			found=true
		fi
	done
	# The versions the go command saw (a file:// proxy reads it).
	f=$cache/cache/download/$esc/@v/list
	if [[ -f $f ]] && grep -qx -- "$3" "$f"; then
		grep -vx -- "$3" "$f" >"$f.tmp" || true
		mv "$f.tmp" "$f"
		found=true
	fi
	if [[ -d $cache/$esc@$3 ]]; then
		chmod -R u+w "$cache/$esc@$3"
		rm -rf "${cache:?}/$esc@$3"
		found=true
	fi
	# The clone is cache/vcs/HASH, named by HASH.info ("git3:URL").
	for info in "$cache"/cache/vcs/*.info; do
		[[ -f $info && $(cat "$info") == "git3:$4" && -d ${info%.info} ]] || continue
		if git -C "${info%.info}" rev-parse -q --verify "refs/tags/$5" >/dev/null; then
			git -C "${info%.info}" update-ref -d "refs/tags/$5"
			found=true
		fi
	done
	if $found; then echo removed; fi
}
