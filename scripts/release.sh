#!/usr/bin/env bash
# Releases modules of the workspace: tags <dir>/vX.Y.Z in the order of
# versions.yaml (the layer DAG), so a module is tagged only after every
# sibling it requires.
#
# Usage:
#   scripts/release.sh [mode] <module> <version>    one module
#   scripts/release.sh [mode] --all <version>       every module, in order
#
# Modes (the default changes nothing):
#   (none)         dry run: run every check and print the plan
#   --apply        commit and tag locally, push nothing (inspect, then push
#                  by hand, or undo with `git reset` + `git tag -d`)
#   --push         --apply, then one atomic push of the branch and the new
#                  tags to origin (all or nothing)
#   --allow-dirty  dry run only: report an unclean work tree instead of
#                  refusing (used by `make release-check` while editing)
#
# A module is named by its folder in versions.yaml; a module nested in
# another's folder is tagged with its whole path (toolrun/httpexec/vX.Y.Z),
# as Go expects of a module in a subfolder of the repository. The excluded
# modules of versions.yaml (modules of tests) are never released: --all
# leaves them out, and naming one is refused.
#
# Versions are X.Y.Z, with or without a leading v. For each module M being
# released at V, in versions.yaml order:
#   a. set M's require lines for released siblings to their (new) versions
#      (`go mod edit -require`);
#   b. set M's version in versions.yaml to V, and in M/CHANGELOG.md move the
#      "## Unreleased" content under "## vV — <date>", leaving a fresh empty
#      Unreleased section;
#   c. commit "M: release vV";
#   d. create the annotated tag M/vV.
# The `replace ... => ../<sibling>` lines stay in every go.mod: they make the
# workspace and GOWORK=off builds use the sibling folders. Go ignores replace
# directives of dependencies, so users of a tagged module get the required
# sibling versions from the require lines set in step a.
#
# The script refuses (before changing anything) when: the work tree is not
# clean; V is not greater than M's version in versions.yaml or its highest
# existing tag; the tag already exists (locally, or on origin with --push);
# a sibling that M requires is neither released (versions.yaml version and
# its tag) nor released earlier in the same run; M has no CHANGELOG.md with
# an Unreleased section; V's major is 2 or more (that needs a /vN module
# path). It never moves, deletes or force-pushes a tag that exists. If
# --apply/--push fails half way, the local commits and tags it made are
# undone (nothing was pushed: the push is atomic and comes last).
#
# Environment: RELEASE_DATE (default: today, UTC), RELEASE_BRANCH (main),
# RELEASE_REMOTE (origin), GO (go).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

usage() {
	sed -n '6,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

mode=dry allow_dirty=false all=false target='' version=''
while (($# > 0)); do
	case $1 in
	--apply) mode=apply ;;
	--push) mode=push ;;
	--allow-dirty) allow_dirty=true ;;
	--all) all=true ;;
	-h | --help) usage ;;
	-*) echo "unknown flag: $1" >&2 && usage ;;
	*)
		if $all || [[ -n $target ]]; then
			[[ -z $version ]] || usage
			version=$1
		else
			target=$1
		fi
		;;
	esac
	shift
done
if $all; then [[ -z $target && -n $version ]] || usage; else [[ -n $target && -n $version ]] || usage; fi
[[ $mode == dry ]] || ! $allow_dirty || die "--allow-dirty is for dry runs only"

is_semver "$version" || die "version '$version' is not X.Y.Z (with or without a leading v)"
version=${version#v}
[[ ${version%%.*} -lt 2 ]] || die "v$version: a major version of 2 or more needs a /v${version%%.*} module path; not supported"

GO=${GO:-go}
DATE=${RELEASE_DATE:-$(date -u +%F)}
BRANCH=${RELEASE_BRANCH:-main}
REMOTE=${RELEASE_REMOTE:-origin}

root=$(git rev-parse --show-toplevel 2>/dev/null) || die "not inside a git repository"
cd "$root"
[[ -f versions.yaml ]] || die "versions.yaml not found in $root"
prefix=$(vy_prefix versions.yaml)

# Modules in release order, and their versions (parallel arrays: bash 3.2).
dirs=() vers=()
while read -r d v; do
	dirs+=("$d")
	vers+=("$v")
done < <(vy_modules versions.yaml || die "versions.yaml is malformed")
((${#dirs[@]} > 0)) || die "versions.yaml lists no modules"

index_of() { # index_of DIR -> index in dirs, or -1
	local i
	for i in "${!dirs[@]}"; do
		[[ ${dirs[i]} == "$1" ]] && echo "$i" && return
	done
	echo -1
}
tag_exists() { git rev-parse -q --verify "refs/tags/$1" >/dev/null; }

# The modules to release, by index.
todo=()
if $all; then
	todo=("${!dirs[@]}")
else
	i=$(index_of "$target")
	if ((i < 0)) && vy_excluded versions.yaml | grep -qx -- "$target"; then
		die "module '$target' is excluded from releases in versions.yaml (a module of tests): it is never tagged"
	fi
	((i >= 0)) || die "module '$target' is not in versions.yaml (modules: ${dirs[*]})"
	todo=("$i")
fi
releasing() { # releasing INDEX: is it in this run?
	local t
	for t in "${todo[@]}"; do [[ $t == "$1" ]] && return 0; done
	return 1
}

# ---------------------------------------------------------------- checks
# Every check runs before anything changes, and all refusals are reported
# together.
refusals=()
refuse() { refusals+=("$*"); }

dirty=$(git status --porcelain)
if [[ -n $dirty ]]; then
	# The first few paths are enough (awk reads all its input: no SIGPIPE).
	dirty=$(awk 'NR <= 10 { print "    " $0 } END { if (NR > 10) print "    ... and " NR - 10 " more" }' <<<"$dirty")
	if $allow_dirty; then
		printf 'warning: the work tree is not clean; a real release would refuse:\n%s\n' "$dirty" >&2
	else
		refuse "the work tree is not clean (commit or stash first):"$'\n'"$dirty"
	fi
fi
head=$(git rev-parse -q --verify HEAD 2>/dev/null || true)
branch=$(git symbolic-ref -q --short HEAD 2>/dev/null || echo "(detached)")
if [[ $mode != dry ]]; then
	[[ -n $head ]] || refuse "the repository has no commit yet"
	[[ $branch == "$BRANCH" ]] || refuse "releases are made from $BRANCH, not $branch"
fi
if [[ $mode == push ]]; then
	git remote get-url "$REMOTE" >/dev/null 2>&1 || refuse "no remote named $REMOTE"
fi

remote_tags=
if [[ $mode == push ]] && git remote get-url "$REMOTE" >/dev/null 2>&1; then
	remote_tags=$(git ls-remote --tags "$REMOTE" 2>/dev/null | awk '{ print $2 }') ||
		refuse "cannot list the tags of $REMOTE"
	if git fetch -q "$REMOTE" "$BRANCH" 2>/dev/null && [[ -n $head ]]; then
		git merge-base --is-ancestor FETCH_HEAD HEAD ||
			refuse "$REMOTE/$BRANCH has commits that $BRANCH lacks: pull first"
	fi
fi

for i in "${todo[@]}"; do
	m=${dirs[i]}
	tag="$m/v$version"
	[[ -f $m/go.mod ]] || refuse "$m/go.mod not found"
	if [[ ! -f $m/CHANGELOG.md ]]; then
		refuse "$m/CHANGELOG.md not found"
	elif ! grep -Eq '^## Unreleased[[:space:]]*$' "$m/CHANGELOG.md"; then
		refuse "$m/CHANGELOG.md has no '## Unreleased' section"
	fi
	[[ $(semver_cmp "$version" "${vers[i]}") == 1 ]] ||
		refuse "$m: v$version is not greater than its current version ${vers[i]} (versions.yaml)"
	if tag_exists "$tag"; then
		refuse "$m: tag $tag already exists"
	elif grep -qx "refs/tags/$tag" <<<"$remote_tags"; then
		refuse "$m: tag $tag already exists on $REMOTE"
	fi
	while read -r t; do
		t=${t#"$m"/}
		is_semver "$t" || continue
		[[ $(semver_cmp "$version" "$t") == 1 ]] || refuse "$m: v$version is not greater than its existing tag $m/$t"
	done < <(git tag -l "$m/v*")

	if [[ -f $m/go.mod ]]; then
		while read -r path _; do
			[[ -n $path ]] || continue
			s=${path#"$prefix"/}
			j=$(index_of "$s")
			if ((j < 0)); then
				refuse "$m requires $path, which is not in versions.yaml"
			elif ((j > i)); then
				refuse "$m requires $s, which versions.yaml lists after it (fix the order)"
			elif releasing "$j"; then
				: # tagged earlier in this run
			elif [[ ${vers[j]} == 0.0.0 ]]; then
				refuse "$m requires $s, which is not released yet (release $s first, or use --all)"
			elif ! tag_exists "$s/v${vers[j]}"; then
				refuse "$m requires $s, whose tag $s/v${vers[j]} (the version in versions.yaml) does not exist"
			fi
		done < <(gomod_requires "$m/go.mod" "$prefix")
	fi
done

if ((${#refusals[@]} > 0)); then
	echo "release refused:" >&2
	printf '  - %s\n' "${refusals[@]}" >&2
	exit 1
fi

# ---------------------------------------------------------------- steps
# new[i] is each module's version once the run has reached it.
new=("${vers[@]}")
created_tags=()
start_head=$head
finished=false

# On failure after changes began, put the repository back as it was: the
# tree was clean and nothing is pushed before the final atomic push.
rollback() {
	$finished && return
	[[ $mode != dry && -n $start_head ]] || return
	echo "release failed: undoing the local commits and tags of this run" >&2
	local t
	for t in ${created_tags[@]+"${created_tags[@]}"}; do git tag -d "$t" >/dev/null || true; done
	git reset -q --hard "$start_head" || true
}
trap rollback EXIT

say() { printf '%s\n' "$*"; }
# step DESCRIPTION -- CMD...: print the step; run it unless this is a dry run.
step() {
	local desc=$1
	shift 2
	say "     $desc"
	[[ $mode == dry ]] || "$@"
}

changelog_release() { # changelog_release FILE VERSION DATE
	local tmp
	tmp=$(mktemp "$1.XXXXXX")
	awk -v ver="$2" -v date="$3" '
		function flush_body(   i, s, e) {
			s = 1; e = n
			while (s <= e && body[s] ~ /^[ \t]*$/) s++
			while (e >= s && body[e] ~ /^[ \t]*$/) e--
			print "## Unreleased"; print ""
			print "## v" ver " — " date; print ""
			if (s > e) { print "No notable changes."; print "" }
			for (i = s; i <= e; i++) print body[i]
			if (s <= e) print ""
			n = 0
		}
		state == 0 && /^## Unreleased[ \t]*$/ { state = 1; next }
		state == 1 && /^## / { flush_body(); state = 2 }
		state == 1 { body[++n] = $0; next }
		{ print }
		END { if (state == 1) flush_body(); if (state == 0) exit 1 }
	' "$1" >"$tmp" || {
		rm -f "$tmp"
		die "$1: no '## Unreleased' section"
	}
	mv "$tmp" "$1"
}

unreleased_lines() { # number of non-blank lines in the Unreleased section
	awk '/^## Unreleased[ \t]*$/ { on = 1; next } on && /^## / { exit } on && NF { n++ } END { print n + 0 }' "$1"
}

tag_message() { # the released CHANGELOG section, for the annotated tag
	awk -v h="## v$2 " 'index($0, h) == 1 { on = 1; next } on && /^## / { exit } on { print }' "$1"
}

mod_require() { # mod_require MODULE PATH VERSION
	(cd "$1" && GOWORK=off "$GO" mod edit -require="$2@$3")
}

commit_release() { # commit_release MODULE VERSION
	local files=("$1/go.mod" "$1/CHANGELOG.md" versions.yaml)
	[[ -f $1/go.sum ]] && files+=("$1/go.sum")
	git add -- "${files[@]}"
	git commit -q -m "$1: release v$2" -- "${files[@]}"
}

tag_release() { # tag_release MODULE VERSION
	git tag -a "$1/v$2" -F - <<EOF
$1 v$2

$(tag_message "$1/CHANGELOG.md" "$2")
EOF
	created_tags+=("$1/v$2")
}

case $mode in
dry) say "Release plan (dry run: nothing is changed; --apply commits and tags locally, --push also pushes)" ;;
apply) say "Releasing (local commits and tags; nothing is pushed)" ;;
push) say "Releasing (local commits and tags, then one atomic push to $REMOTE)" ;;
esac
say "repository $root, branch $branch${head:+ at ${head:0:12}}, date $DATE"

n=0
for i in "${todo[@]}"; do
	n=$((n + 1))
	m=${dirs[i]}
	say ""
	say "[$n/${#todo[@]}] $m v$version (was ${vers[i]})"

	say "  a. require released siblings at their versions"
	changed=false
	reqs=$(gomod_requires "$m/go.mod" "$prefix") # read before go.mod is edited
	while read -r path cur; do
		[[ -n $path ]] || continue
		j=$(index_of "${path#"$prefix"/}")
		want=v${new[j]}
		if [[ $(semver_cmp "$cur" "$want") == -1 ]]; then
			step "$m/go.mod: require $path $cur -> $want" -- \
				mod_require "$m" "$path" "$want"
			changed=true
		fi
	done <<<"$reqs"
	$changed || say "     (nothing to change)"

	say "  b. record the version"
	step "versions.yaml: $m ${vers[i]} -> $version" -- vy_set_version versions.yaml "$m" "$version"
	step "$m/CHANGELOG.md: move Unreleased ($(unreleased_lines "$m/CHANGELOG.md") non-blank lines) under '## v$version — $DATE'" -- \
		changelog_release "$m/CHANGELOG.md" "$version" "$DATE"

	say "  c. commit"
	step "git commit -m \"$m: release v$version\"" -- commit_release "$m" "$version"

	say "  d. tag"
	step "git tag -a $m/v$version" -- tag_release "$m" "$version"
	new[i]=$version
done

tags=()
for i in "${todo[@]}"; do tags+=("refs/tags/${dirs[i]}/v$version"); done
say ""
if [[ $mode == push ]]; then
	say "push: git push --atomic $REMOTE HEAD:refs/heads/$BRANCH ${tags[*]}"
	git push -q --atomic "$REMOTE" "HEAD:refs/heads/$BRANCH" "${tags[@]}"
	finished=true
	say "released and pushed: ${tags[*]#refs/tags/}"
elif [[ $mode == apply ]]; then
	finished=true
	say "committed and tagged locally: ${tags[*]#refs/tags/}"
	say "to publish: git push --atomic $REMOTE HEAD:refs/heads/$BRANCH ${tags[*]}"
else
	say "push (with --push): git push --atomic $REMOTE HEAD:refs/heads/$BRANCH ${tags[*]}"
	say ""
	say "dry run: nothing was changed"
fi
