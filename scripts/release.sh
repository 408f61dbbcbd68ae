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
#   b. drop M's `replace <sibling> => ../<sibling>` lines, then, when M
#      requires a sibling, `go mod tidy`: the go command fetches the
#      siblings at their tags, made by this run or an earlier one, from
#      this repository, and writes their checksums into M/go.sum. The tidy
#      must change no require line (if it does, M's go.mod was not tidy:
#      the release is undone);
#   c. set M's version in versions.yaml to V, and in M/CHANGELOG.md move the
#      "## Unreleased" content under "## vV — <date>", leaving a fresh empty
#      Unreleased section;
#   d. commit "M: release vV";
#   e. create the annotated tag M/vV (and forget any stale copy of M@vV in
#      the module cache, see below).
# Then one commit puts back, in every module whose replace lines step b
# dropped, those lines and the go.sum of before step b, so that the
# branch builds each module on its sibling folders again.
#
# Why the tagged go.mod files have no replace lines, and the branch has
# them. `go install M/cmd/x@vV` and `go run M/cmd/x@vV` build with M as
# the main module, and refuse a module whose go.mod holds any replace or
# exclude directive (importers of a library ignore them, so only the
# commands showed it). The other way out, no replace lines at all and
# go.work alone for development, would cost the checks of each module
# alone (make test-modules, CI's matrix: `cd M && GOWORK=off go mod tidy
# -diff && go build ./... && go test ./...`): without go.work they would
# build M against its siblings' published versions instead of the folders
# beside it, so they could not run before a sibling's first release, nor
# on a change that spans two modules, and would test something else than
# the commit. Keeping the lines on the branch and dropping them in the
# release commits costs one more commit per run, this script's step b,
# and release commits that are not development states: there, the
# workspace check (scripts/workspace-check.sh) misses the replace lines,
# and the released module builds alone only against its siblings' tags.
# A tagged go.sum is complete: in the tag's tree, `GOWORK=off go mod tidy
# -diff` finds nothing to change, and builds with -mod=readonly. Its
# checksums of the siblings are the ones the go command computes anywhere
# from the same tags once they are pushed (a module's hash is a function
# of its files alone).
#
# Step b runs the go command with GOWORK=off; GOPRIVATE and GONOSUMDB set
# to the module path prefix, so that the repository's modules come from
# the repository itself, not from a proxy or the checksum database (which
# stay in use for third-party modules); and git's
# url.file://<repository>.insteadOf=<RELEASE_REPO_URL>, given to the go
# command's git in GIT_CONFIG_COUNT variables (no configuration file
# changes), so that it reads the tags before they are pushed. It uses the
# caller's module cache, where third-party modules already are. Since a
# module cache never downloads again a version it holds, right after
# tagging M/vV the script removes M@vV from it: a copy there can only come
# from a release of vV that was undone and is now made again, maybe on
# other content, and would give the next modules wrong checksums. For the
# same reason the go command runs with GODEBUG=goindex=0: it keeps an index
# of each module of the module cache in the build cache, keyed by the
# module's folder alone, which would describe the files of the old copy.
#
# The script refuses (before changing anything) when: the work tree is not
# clean; V is not greater than M's version in versions.yaml or its highest
# existing tag; the tag already exists (locally, or on origin with --push);
# a sibling that M requires is neither released (versions.yaml version and
# its tag, on origin too with --push) nor released earlier in the same run;
# M's go.mod replaces
# anything else than a sibling, or excludes a module (the tagged go.mod
# would keep it, and go install refuses it); M has no CHANGELOG.md with
# an Unreleased section; V's major is 2 or more (that needs a /vN module
# path). It never moves, deletes or force-pushes a tag that exists. If
# --apply/--push fails half way, the local commits and tags it made are
# undone (nothing was pushed: the push is atomic and comes last).
#
# Environment: RELEASE_DATE (default: today, UTC), RELEASE_BRANCH (main),
# RELEASE_REMOTE (origin), RELEASE_REPO_URL (https://<prefix>: the URL
# the go command reads the modules from, for github.com/OWNER/REPO/...
# paths), GO (go).
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
REPO_URL=${RELEASE_REPO_URL:-}

root=$(git rev-parse --show-toplevel 2>/dev/null) || die "not inside a git repository"
cd "$root"
[[ -f versions.yaml ]] || die "versions.yaml not found in $root"
prefix=$(vy_prefix versions.yaml)
REPO_URL=${REPO_URL:-https://$prefix}

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

# gomod_entries GOMOD KEYWORD prints the first field (the module path) of
# every KEYWORD directive (replace, exclude...), in single-line and block
# form.
gomod_entries() {
	awk -v kw="$2" '
		{ sub(/\/\/.*/, "") }
		$0 ~ "^" kw "[ \t]*\\([ \t]*$" { inblock = 1; next }
		inblock && /^[ \t]*\)/ { inblock = 0; next }
		inblock && NF { print $1; next }
		$1 == kw && NF > 1 { print $2 }
	' "$1"
}

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
		while read -r path; do
			[[ -n $path ]] || continue
			if [[ $path != "$prefix"/* ]] || (($(index_of "${path#"$prefix"/}") < 0)); then
				refuse "$m/go.mod replaces $path, which is not a module of versions.yaml (a tagged go.mod keeps it, and go install refuses a module with a replace line)"
			fi
		done < <(gomod_entries "$m/go.mod" replace)
		while read -r path; do
			[[ -z $path ]] || refuse "$m/go.mod excludes $path (go install refuses a module with an exclude line)"
		done < <(gomod_entries "$m/go.mod" exclude)
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
			elif [[ $mode == push ]] && ! grep -qx "refs/tags/$s/v${vers[j]}" <<<"$remote_tags"; then
				refuse "$m requires $s, whose tag $s/v${vers[j]} is not on $REMOTE (push it first: users of $m could not get it)"
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
# work: the go.mod and go.sum files of before step b, to put back.
work=
if [[ $mode != dry ]]; then
	work=$(mktemp -d)
	modcache=$("$GO" env GOMODCACHE)
	[[ -n $modcache ]] || die "go env GOMODCACHE is empty"
fi

# On failure after changes began, put the repository back as it was: the
# tree was clean and nothing is pushed before the final atomic push.
rollback() {
	if ! $finished && [[ $mode != dry && -n $start_head ]]; then
		echo "release failed: undoing the local commits and tags of this run" >&2
		local t
		for t in ${created_tags[@]+"${created_tags[@]}"}; do git tag -d "$t" >/dev/null || true; done
		git reset -q --hard "$start_head" || true
	fi
	if [[ -n $work ]]; then rm -rf "$work"; fi
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

# go_tags ARGS...: the go command reading the repository's modules from
# this repository's tags (see step b in the header).
go_tags() {
	local n=${GIT_CONFIG_COUNT:-0}
	env GOWORK=off GOPRIVATE="$prefix" GONOPROXY="$prefix" GONOSUMDB="$prefix" \
		GODEBUG="${GODEBUG:+$GODEBUG,}goindex=0" \
		GIT_CONFIG_COUNT=$((n + 1)) "GIT_CONFIG_KEY_$n=url.file://$root.insteadOf" "GIT_CONFIG_VALUE_$n=$REPO_URL" \
		"$GO" "$@"
}

requires_of() { # requires_of MODULE: its require lines, sorted, one a line
	(cd "$1" && GOWORK=off "$GO" mod edit -json) | awk '
		/^\t"Require": \[/ { on = 1; next }
		on && /^\t\]/ { exit }
		on && /"Path":/ { p = $2 }
		on && /"Version":/ { v = $2 }
		on && /"Indirect": true/ { ind = " indirect" }
		on && /^\t\t\}/ { gsub(/[",]/, "", p); gsub(/[",]/, "", v); print p, v ind; p = v = ind = "" }
	' | sort
}

save_dev() { # save_dev MODULE INDEX: keep go.mod and go.sum to put back after the tag
	cp "$1/go.mod" "$work/$2.mod"
	if [[ -f $1/go.sum ]]; then cp "$1/go.sum" "$work/$2.sum"; fi
}

drop_replaces() { # drop_replaces MODULE PATH...
	local m=$1 p args=()
	shift
	for p; do args+=("-dropreplace=$p"); done
	(cd "$m" && GOWORK=off "$GO" mod edit "${args[@]}")
}

tidy_tagged() { # tidy_tagged MODULE: go mod tidy against the tags; the require lines must stay
	local before after
	before=$(requires_of "$1")
	(cd "$1" && go_tags mod tidy) || die "$1: go mod tidy without the replace lines failed (is every required sibling tagged in this repository?)"
	after=$(requires_of "$1")
	[[ $before == "$after" ]] ||
		die "$1: go mod tidy without the replace lines changes the require lines (run \`make tidy\`, commit, and release again):
$(diff <(echo "$before") <(echo "$after") | grep '^[<>]')"
}

restore_dev() { # restore_dev MODULE INDEX: go.mod and go.sum as save_dev kept them
	cp "$work/$2.mod" "$1/go.mod"
	if [[ -f $work/$2.sum ]]; then
		cp "$work/$2.sum" "$1/go.sum"
	else
		rm -f "$1/go.sum"
	fi
}

commit_release() { # commit_release MODULE VERSION
	local files=("$1/go.mod" "$1/CHANGELOG.md" versions.yaml)
	[[ -f $1/go.sum ]] && files+=("$1/go.sum")
	git add -- "${files[@]}"
	git commit -q -m "$1: release v$2" -- "${files[@]}"
}

commit_restore() { # commit_restore SUBJECT MODULE...: commit their go.mod and go.sum
	local subject=$1 m files=()
	shift
	for m; do
		files+=("$m/go.mod")
		# go.sum as it is, or its removal when it did not exist before.
		if [[ -f $m/go.sum ]] || git ls-files --error-unmatch "$m/go.sum" >/dev/null 2>&1; then files+=("$m/go.sum"); fi
	done
	git add -A -- "${files[@]}"
	git commit -q -m "$subject" -- "${files[@]}"
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
restore=() # the modules whose replace lines step b dropped, by index
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

	say "  b. drop the siblings' replace lines; go.sum gets their checksums from the tags"
	dropped=()
	while read -r path; do
		[[ -n $path ]] && dropped+=("$path")
	done < <(gomod_entries "$m/go.mod" replace)
	if ((${#dropped[@]} > 0)); then
		[[ $mode == dry ]] || save_dev "$m" "$i"
		step "$m/go.mod: drop replace ${dropped[*]#"$prefix"/}" -- drop_replaces "$m" "${dropped[@]}"
		restore+=("$i")
	fi
	# Without replace lines but requiring siblings (a release made from
	# a tagged commit), go.sum still needs the new versions' checksums.
	if ((${#dropped[@]} > 0)) || [[ -n $reqs ]]; then
		step "$m: go mod tidy (GOWORK=off; the siblings from this repository's tags)" -- tidy_tagged "$m"
	else
		say "     (no sibling required, no replace line)"
	fi

	say "  c. record the version"
	step "versions.yaml: $m ${vers[i]} -> $version" -- vy_set_version versions.yaml "$m" "$version"
	step "$m/CHANGELOG.md: move Unreleased ($(unreleased_lines "$m/CHANGELOG.md") non-blank lines) under '## v$version — $DATE'" -- \
		changelog_release "$m/CHANGELOG.md" "$version" "$DATE"

	say "  d. commit"
	step "git commit -m \"$m: release v$version\"" -- commit_release "$m" "$version"

	say "  e. tag"
	step "git tag -a $m/v$version" -- tag_release "$m" "$version"
	if [[ $mode != dry && $(modcache_forget "$modcache" "$prefix/$m" "v$version" "$REPO_URL" "$m/v$version") == removed ]]; then
		say "     removed $prefix/$m@v$version from the module cache (a copy left by an undone release)"
	fi
	new[i]=$version
done

if ((${#restore[@]} > 0)); then
	restored=()
	for i in "${restore[@]}"; do restored+=("${dirs[i]}"); done
	if ((${#restored[@]} == 1)); then
		subject="${restored[0]}: build on the sibling folders again after v$version"
	elif ((${#restored[@]} <= 3)); then
		subject="$(printf '%s, ' "${restored[@]}")"
		subject="${subject%, }: build on the sibling folders again after v$version"
	else
		subject="all: build on the sibling folders again after v$version"
	fi
	say ""
	say "then put back the replace lines and go.sum files of before step b: ${restored[*]}"
	if [[ $mode != dry ]]; then
		for i in "${restore[@]}"; do restore_dev "${dirs[i]}" "$i"; done
	fi
	step "git commit -m \"$subject\"" -- commit_restore "$subject" "${restored[@]}"
fi

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
