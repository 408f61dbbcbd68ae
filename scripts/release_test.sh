#!/usr/bin/env bash
# Tests scripts/release.sh against throw-away git repositories: three fake
# modules (alpha <- beta <- gamma, each a package importing the one before)
# with a versions.yaml, CHANGELOGs and a bare repository as origin. The
# module path prefix has the form github.com/OWNER/REPO, so that the go
# command maps it to a repository; release.sh points it at the local one.
# Self-contained (needs bash, git 2.31 or later, go; no network), takes
# about half a minute, and exits non-zero on any failed check.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
release=$here/release.sh
tmp=$(mktemp -d)
# Files of a module cache are read-only.
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

# Isolate git from the user's configuration (signing, hooks, templates).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=release-test GIT_AUTHOR_EMAIL=release-test@example.com
export GIT_COMMITTER_NAME=release-test GIT_COMMITTER_EMAIL=release-test@example.com
export RELEASE_DATE=2026-01-02
unset GIT_DIR GIT_WORK_TREE
# release.sh fetches the fake modules into the module cache: one of the
# test's own, so that the caller's gets none of them.
export GOMODCACHE=$tmp/modcache GOFLAGS=-modcacherw

passed=0 failed=0
pass() {
	passed=$((passed + 1))
	printf 'ok   %s\n' "$1"
}
fail() {
	failed=$((failed + 1))
	printf 'FAIL %s\n' "$1"
	[[ -z ${2:-} ]] || printf '%s\n' "$2" | sed 's/^/     | /'
}
# check DESC CMD...: passes when CMD succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}
# run_ok DESC ARGS...: release.sh ARGS must succeed; output in $out.
run_ok() {
	local desc=$1
	shift
	if out=$(bash "$release" "$@" 2>&1); then pass "$desc"; else fail "$desc (exit $?)" "$out"; fi
}
# run_refused DESC PATTERN ARGS...: release.sh ARGS must fail, printing PATTERN.
run_refused() {
	local desc=$1 pattern=$2
	shift 2
	if out=$(bash "$release" "$@" 2>&1); then
		fail "$desc (it succeeded)" "$out"
	elif ! grep -qF -- "$pattern" <<<"$out"; then
		fail "$desc (no '$pattern' in the output)" "$out"
	else
		pass "$desc"
	fi
}
# snapshot: everything a release may change (commits, tags, files, index).
snapshot() {
	{
		git rev-parse -q --verify HEAD || true
		git tag -l
		git status --porcelain
		cat versions.yaml ./*/go.mod ./*/CHANGELOG.md
		cat ./*/go.sum 2>/dev/null || true
	} | cksum
}

# tagged_without_replace TAG DIR: DIR/go.mod at TAG has no replace line.
tagged_without_replace() { ! git show "$1:$2/go.mod" | grep -q replace; }

# tagged_builds TAG DIR ORIGIN: the module DIR as tagged, alone in a
# folder, builds with -mod=readonly and is tidy, the go command fetching
# the siblings from the tags of the repository ORIGIN.git of the test
# folder, as a user of the pushed tags would.
tagged_builds() {
	local tree=$tmp/tree-${1//\//-}
	mkdir -p "$tree"
	git archive "$1" "$2" | tar -x -C "$tree"
	(
		cd "$tree/$2"
		export GOWORK=off GOFLAGS="-mod=readonly -modcacherw" GOPROXY=off GOMODCACHE="$tmp/modcache-$3"
		export GOPRIVATE=github.com/release-test GIT_CONFIG_COUNT=1
		export GIT_CONFIG_KEY_0="url.file://$tmp/$3.origin.git.insteadOf" GIT_CONFIG_VALUE_0=https://github.com/release-test/fake
		go build ./... && go mod tidy -diff
	)
}

# go_package DIR IMPORTED: DIR/DIR.go, a package whose Name calls IMPORTED's
# (a path relative to the prefix), so that the require line is needed.
go_package() {
	local name=${1##*/}
	printf 'package %s\n\nimport "github.com/release-test/fake/%s"\n\n// Name is the names of the packages up to this one.\nfunc Name() string { return %s.Name() + "/%s" }\n' \
		"$name" "$2" "${2##*/}" "$name" >"$1/$name.go"
}

# new_repo NAME: a repository with the three modules, committed and pushed
# to a bare origin; leaves the shell in it.
new_repo() {
	local dir=$tmp/$1
	git init -q --bare "$dir.origin.git"
	git init -q -b main "$dir"
	cd "$dir"
	git remote add origin "$dir.origin.git"
	cat >versions.yaml <<'EOF'
# test fixture
prefix: github.com/release-test/fake
modules:
  - dir: alpha
    version: 0.0.0
  - dir: beta
    version: 0.0.0
  - dir: gamma
    version: 0.0.0
EOF
	mkdir alpha beta gamma
	printf 'module github.com/release-test/fake/alpha\n\ngo 1.25.0\n' >alpha/go.mod
	printf 'package alpha\n\n// Name is the package name.\nfunc Name() string { return "alpha" }\n' >alpha/alpha.go
	go_package beta alpha
	go_package gamma beta
	cat >beta/go.mod <<'EOF'
module github.com/release-test/fake/beta

go 1.25.0

require github.com/release-test/fake/alpha v0.0.0

replace github.com/release-test/fake/alpha => ../alpha
EOF
	cat >gamma/go.mod <<'EOF'
module github.com/release-test/fake/gamma

go 1.25.0

require github.com/release-test/fake/beta v0.0.0

require github.com/release-test/fake/alpha v0.0.0 // indirect

replace (
	github.com/release-test/fake/alpha => ../alpha
	github.com/release-test/fake/beta => ../beta
)
EOF
	local m
	for m in alpha beta gamma; do
		printf '# Changelog\n\n## Unreleased\n\n### Added\n\n- %s: first feature\n' "$m" >"$m/CHANGELOG.md"
	done
	git add -A
	git commit -q -m "initial"
	git push -q origin main
}

# ------------------------------------------------------------------ dry run
new_repo dry
before=$(snapshot)
run_ok "dry run --all succeeds" --all 0.1.0
check "dry run lists the modules in versions.yaml order" \
	test "$(grep -o '^\[[0-9]/3\] [a-z]*' <<<"$out" | tr '\n' ' ')" = "[1/3] alpha [2/3] beta [3/3] gamma "
check "dry run plans the require update of beta" \
	grep -qF "beta/go.mod: require github.com/release-test/fake/alpha v0.0.0 -> v0.1.0" <<<"$out"
check "dry run plans gamma's indirect require too" \
	grep -qF "gamma/go.mod: require github.com/release-test/fake/alpha v0.0.0 -> v0.1.0" <<<"$out"
check "dry run plans dropping gamma's replace lines" \
	grep -qF "gamma/go.mod: drop replace alpha beta" <<<"$out"
check "dry run plans completing gamma's go.sum from the tags" \
	grep -qF "gamma: go mod tidy" <<<"$out"
check "dry run plans the commit and the tag" \
	grep -qF 'git tag -a gamma/v0.1.0' <<<"$out"
check "dry run plans putting the replace lines back" \
	grep -qF 'git commit -m "beta, gamma: build on the sibling folders again after v0.1.0"' <<<"$out"
check "dry run says it changed nothing" grep -qF "dry run: nothing was changed" <<<"$out"
check "dry run changes nothing" test "$(snapshot)" = "$before"
check "dry run pushes nothing" test -z "$(git ls-remote --tags origin)"
run_ok "a leading v is accepted" --all v0.1.0

# ------------------------------------------------------------------ refusals
run_refused "refuses a module whose required sibling is unreleased" \
	"beta requires alpha, which is not released yet" beta 0.1.0
run_refused "refuses an unknown module" "not in versions.yaml" delta 0.1.0
run_refused "refuses a version that is not X.Y.Z" "is not X.Y.Z" alpha 0.1
run_refused "refuses a major version >= 2" "module path" alpha 2.0.0
run_refused "refuses --allow-dirty outside a dry run" "dry runs only" --apply --allow-dirty alpha 0.1.0

echo "- local edit" >>alpha/CHANGELOG.md
run_refused "refuses a dirty tree (modified file), dry run" "work tree is not clean" alpha 0.1.0
run_refused "refuses a dirty tree (modified file), --apply" "work tree is not clean" --apply alpha 0.1.0
run_ok "--allow-dirty lets a dry run go on" --allow-dirty alpha 0.1.0
for i in $(seq 1 2000); do echo "$i" >"stray-$i.txt"; done
run_ok "--allow-dirty copes with a long list of changes" --allow-dirty --all 0.1.0
check "a long list of changes is shortened" grep -qF "... and 1991 more" <<<"$out"
rm stray-*.txt
git checkout -q -- alpha/CHANGELOG.md
touch stray.txt
run_refused "refuses a dirty tree (untracked file)" "work tree is not clean" --apply alpha 0.1.0
rm stray.txt

git mv -f alpha/CHANGELOG.md alpha/NOTES.md && git commit -q -m "no changelog"
run_refused "refuses a module without CHANGELOG.md" "alpha/CHANGELOG.md not found" alpha 0.1.0
git reset -q --hard HEAD~1

git checkout -q -b feature
run_refused "refuses --apply from another branch than main" "releases are made from main" --apply alpha 0.1.0
git checkout -q main

# ------------------------------------------------------------------ --apply
before=$(snapshot)
run_ok "--apply alpha 0.1.0 succeeds" --apply alpha 0.1.0
check "--apply creates an annotated tag" test "$(git cat-file -t alpha/v0.1.0 2>&1)" = tag
check "--apply tags the release commit" test "$(git rev-parse 'alpha/v0.1.0^{commit}')" = "$(git rev-parse HEAD)"
check "--apply commits 'alpha: release v0.1.0'" test "$(git log -1 --format=%s)" = "alpha: release v0.1.0"
check "--apply leaves a clean tree" test -z "$(git status --porcelain)"
check "--apply updates versions.yaml" grep -qE '^    version: 0\.1\.0$' <(sed -n '/dir: alpha/,/version/p' versions.yaml)
check "--apply leaves the other versions alone" test "$(grep -c 'version: 0.0.0' versions.yaml)" = 2
expected_changelog=$(printf '# Changelog\n\n## Unreleased\n\n## v0.1.0 — 2026-01-02\n\n### Added\n\n- alpha: first feature\n')
check "--apply moves Unreleased under the version heading" test "$(cat alpha/CHANGELOG.md)" = "$expected_changelog"
check "the tag message carries the changelog" grep -qF "alpha: first feature" <(git tag -l --format='%(contents)' alpha/v0.1.0)
check "--apply pushes nothing" test -z "$(git ls-remote --tags origin)"
check "--apply changed the repository" test "$(snapshot)" != "$before"

run_refused "refuses an existing tag" "tag alpha/v0.1.0 already exists" alpha 0.1.0
run_refused "refuses a version that does not increase" "not greater than its current version 0.1.0" alpha 0.0.9
run_refused "refuses gamma while beta (required) is unreleased" "gamma requires beta, which is not released yet" gamma 0.1.0

# ------------------------------------------------------------------ --push
run_refused "--push refuses beta while alpha's tag is only local" \
	"beta requires alpha, whose tag alpha/v0.1.0 is not on origin" --push beta 0.1.0
git push -q origin main alpha/v0.1.0
run_ok "--push beta 0.1.0 succeeds (alpha is tagged and pushed)" --push beta 0.1.0
check "beta now requires alpha v0.1.0" grep -qF "require github.com/release-test/fake/alpha v0.1.0" beta/go.mod
check "beta keeps its replace line" grep -qF "replace github.com/release-test/fake/alpha => ../alpha" beta/go.mod
check "beta's tag has no replace line" tagged_without_replace beta/v0.1.0 beta
check "beta's tagged go.mod requires alpha v0.1.0" grep -qF "require github.com/release-test/fake/alpha v0.1.0" <(git show beta/v0.1.0:beta/go.mod)
check "beta's tagged go.sum has alpha's checksums" test \
	"$(git show beta/v0.1.0:beta/go.sum | grep -cE '^github.com/release-test/fake/alpha v0\.1\.0(/go\.mod)? h1:')" = 2
check "the branch's beta has no go.sum again, as before" test ! -e beta/go.sum
check "the commit after the tag puts the replace line back" \
	test "$(git log --format=%s -2 | tr '\n' ',')" = "beta: build on the sibling folders again after v0.1.0,beta: release v0.1.0,"
check "the tagged beta builds with -mod=readonly, alpha from origin's tag" tagged_builds beta/v0.1.0 beta dry
check "--push pushed main" test "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse HEAD)"
check "--push pushed beta's tag" test -n "$(git ls-remote --tags origin refs/tags/beta/v0.1.0)"
check "--push pushed beta's tag and no other (alpha's was pushed by hand)" test "$(git ls-remote --tags origin | grep -vc '\^{}$')" = 2

# A tag that exists only on origin (pushed by someone else) is refused too.
git push -q origin "HEAD:refs/tags/gamma/v0.1.0"
run_refused "refuses a tag that exists on origin" "gamma/v0.1.0 already exists on origin" --push gamma 0.1.0
run_ok "gamma 0.2.0 is fine" --push gamma 0.2.0
check "gamma requires beta and alpha at their released versions" \
	test "$(grep -c 'github.com/release-test/fake/[a-z]* v0.1.0' gamma/go.mod)" = 2
check "gamma's indirect require keeps its comment" grep -qF "github.com/release-test/fake/alpha v0.1.0 // indirect" gamma/go.mod

# A sibling recorded as released whose tag is missing is refused.
new_repo missing-tag
sed -i.bak 's/version: 0.0.0/version: 0.1.0/' versions.yaml && rm versions.yaml.bak
git commit -q -am "claim 0.1.0 without tags"
run_refused "refuses a sibling whose recorded tag is missing" "whose tag alpha/v0.1.0" beta 0.2.0

# versions.yaml must list a module after what it requires.
new_repo order
awk '/dir: alpha/ { a = $0; getline; av = $0; next } /dir: beta/ { print; getline; print; print a; print av; next } { print }' \
	versions.yaml >v.tmp && mv v.tmp versions.yaml
git commit -q -am "wrong order"
run_refused "refuses a module listed before a sibling it requires" "beta requires alpha, which versions.yaml lists after it" --all 0.1.0

# ------------------------------------------------------------------ --all --push
new_repo all
run_ok "--push --all 0.1.0 succeeds" --push --all 0.1.0
check "--all commits in DAG order, then puts the replace lines back" \
	test "$(git log --format=%s -4 | tr '\n' ',')" = "beta, gamma: build on the sibling folders again after v0.1.0,gamma: release v0.1.0,beta: release v0.1.0,alpha: release v0.1.0,"
check "each tag points at its module's release commit" test \
	"$(git rev-parse 'alpha/v0.1.0^{commit}' 'beta/v0.1.0^{commit}' 'gamma/v0.1.0^{commit}' | tr '\n' ' ')" = \
	"$(git rev-parse HEAD~3 HEAD~2 HEAD~1 | tr '\n' ' ')"
check "gamma's tag has no replace line" tagged_without_replace gamma/v0.1.0 gamma
check "the branch's gamma has its replace lines again" grep -qF "github.com/release-test/fake/beta => ../beta" gamma/go.mod
check "the branch's go.mod and go.sum files are as they were, but for the versions" \
	test -z "$(git diff HEAD~4 HEAD -- '*/go.mod' '*/go.sum' | grep '^[-+][^-+]' | grep -v 'v0.0.0 *\(// indirect\)\{0,1\}$' | grep -v 'v0.1.0 *\(// indirect\)\{0,1\}$')"
check "the tagged gamma builds with -mod=readonly, beta and alpha from origin's tags" tagged_builds gamma/v0.1.0 gamma all
check "alpha's tag predates the commit that requires alpha v0.1.0" \
	git merge-base --is-ancestor 'alpha/v0.1.0' "$(git log --format=%H -1 -- beta/go.mod)"
check "--all pushed three tags" test "$(git ls-remote --tags origin | grep -vc '\^{}$')" = 3
check "--all records every version" test "$(grep -c 'version: 0.1.0' versions.yaml)" = 3

# ------------------------------------------------------------------ nested module
# alpha/ext is a module nested in alpha's folder that requires alpha (as
# toolrun/httpexec does toolrun): listed after alpha, tagged alpha/ext/vX.Y.Z.
new_repo nested
mkdir alpha/ext
cat >alpha/ext/go.mod <<'EOF2'
module github.com/release-test/fake/alpha/ext

go 1.25.0

require github.com/release-test/fake/alpha v0.0.0

replace github.com/release-test/fake/alpha => ..
EOF2
printf '# Changelog\n\n## Unreleased\n\n- ext: first feature\n' >alpha/ext/CHANGELOG.md
go_package alpha/ext alpha
awk '{ print } /dir: alpha$/ { getline; print; print "  - dir: alpha/ext"; print "    version: 0.0.0" }' versions.yaml >v.tmp && mv v.tmp versions.yaml
git add -A && git commit -q -m "nested module"
run_refused "refuses a nested module whose parent is unreleased" \
	"alpha/ext requires alpha, which is not released yet" alpha/ext 0.1.0
run_ok "--apply --all 0.1.0 with a nested module succeeds" --apply --all 0.1.0
check "the nested module is released right after its parent" \
	test "$(git log --format=%s -5 | tr '\n' ',')" = "alpha/ext, beta, gamma: build on the sibling folders again after v0.1.0,gamma: release v0.1.0,beta: release v0.1.0,alpha/ext: release v0.1.0,alpha: release v0.1.0,"
check "the nested module's tag is alpha/ext/v0.1.0" test "$(git cat-file -t alpha/ext/v0.1.0 2>&1)" = tag
check "the nested module requires its parent's new version" grep -qF "require github.com/release-test/fake/alpha v0.1.0" alpha/ext/go.mod
check "the nested module keeps its relative replace line" grep -qF "replace github.com/release-test/fake/alpha => .." alpha/ext/go.mod
check "the nested module's tag has no replace line" tagged_without_replace alpha/ext/v0.1.0 alpha/ext
check "the nested module's version is recorded" grep -qE '^    version: 0\.1\.0$' <(sed -n '/dir: alpha\/ext/,/version/p' versions.yaml)
check "the nested module's CHANGELOG is released" grep -qF "## v0.1.0 — 2026-01-02" alpha/ext/CHANGELOG.md
run_ok "the nested module alone, above its parent's version" --apply alpha/ext 0.3.0
run_ok "the parent's tags are not confused with the nested module's" alpha 0.2.0
check "the parent's plan names only the parent's tag" grep -qF "git tag -a alpha/v0.2.0" <<<"$out"
run_refused "the nested module's own tags still count" "not greater than its existing tag alpha/ext/v0.3.0" alpha/ext 0.2.0

# ------------------------------------------------------------------ excluded module
# gamma/tests is a module of tests (requiring gamma) that versions.yaml
# excludes from releases: --all leaves it out, and it cannot be named.
new_repo excluded
mkdir gamma/tests
cat >gamma/tests/go.mod <<'EOF2'
module github.com/release-test/fake/gamma/tests

go 1.25.0

require github.com/release-test/fake/gamma v0.0.0

replace github.com/release-test/fake/gamma => ..
EOF2
printf 'excluded-modules:\n  - dir: gamma/tests\n' >>versions.yaml
git add -A && git commit -q -m "excluded module"
run_ok "--apply --all 0.1.0 with an excluded module succeeds" --apply --all 0.1.0
check "--all releases only the listed modules" \
	test "$(git log --format=%s -5 | tr '\n' ',')" = "beta, gamma: build on the sibling folders again after v0.1.0,gamma: release v0.1.0,beta: release v0.1.0,alpha: release v0.1.0,excluded module,"
check "the excluded module gets no tag" test -z "$(git tag -l 'gamma/tests/*')"
check "the excluded module's go.mod is left alone" grep -qF "require github.com/release-test/fake/gamma v0.0.0" gamma/tests/go.mod
check "versions.yaml keeps the excluded module without a version" \
	test "$(sed -n '/^excluded-modules:/,$p' versions.yaml)" = "$(printf 'excluded-modules:\n  - dir: gamma/tests')"
run_refused "refuses to release an excluded module" "gamma/tests' is excluded from releases" gamma/tests 0.2.0

# A go.mod that the release could not tag as it is refused: go install
# refuses a module with any replace or exclude line, and release.sh drops
# only the siblings'.
new_repo foreign
printf '\nreplace example.com/other => ../other\n' >>beta/go.mod
git commit -q -am "a foreign replace line"
run_refused "refuses a replace line of a module outside versions.yaml" \
	"beta/go.mod replaces example.com/other, which is not a module of versions.yaml" --all 0.1.0
git reset -q --hard HEAD~1
printf '\nexclude example.com/other v1.0.0\n' >>gamma/go.mod
git commit -q -am "an exclude line"
run_refused "refuses an exclude line" "gamma/go.mod excludes example.com/other" --all 0.1.0

# A module whose go.mod tidy would change (beta no longer imports alpha,
# still requires it): the release is undone, from the first module on.
new_repo untidy
printf 'package beta\n\n// Name is the package name.\nfunc Name() string { return "beta" }\n' >beta/beta.go
git commit -q -am "beta without alpha"
before=$(snapshot)
run_refused "refuses a release whose go mod tidy changes a require line" \
	"beta: go mod tidy without the replace lines changes the require lines" --apply --all 0.1.0
check "an untidy module leaves the repository as it was" test "$(snapshot)" = "$before"

# A module that requires a sibling but has no replace line (a release
# made from a tagged commit) still gets the sibling's checksums.
new_repo noreplace
sed -i.bak '/^replace/d' beta/go.mod && rm beta/go.mod.bak
git commit -q -am "beta without its replace line"
run_ok "--push --all 0.1.0 with a module without replace lines" --push --all 0.1.0
check "its go.sum gets the sibling's checksums" test \
	"$(git show beta/v0.1.0:beta/go.sum | grep -cE '^github.com/release-test/fake/alpha v0\.1\.0(/go\.mod)? h1:')" = 2
check "the tagged beta builds with -mod=readonly" tagged_builds beta/v0.1.0 beta noreplace
check "only the modules that had replace lines get them back" \
	test "$(git log --format=%s -1)" = "gamma: build on the sibling folders again after v0.1.0"

# A release undone after the module cache got a copy of a new tag (here
# beta's tidy downloads alpha v0.1.0), then made again on other content:
# the stale copy is removed, and beta's go.sum has the new checksums.
new_repo redo
start=$(git rev-parse HEAD)
run_ok "--apply --all 0.1.0, to be undone" --apply --all 0.1.0
git tag -d alpha/v0.1.0 beta/v0.1.0 gamma/v0.1.0 >/dev/null
git reset -q --hard "$start"
sed -i.bak 's/return "alpha"/return "alpha, again"/' alpha/alpha.go && rm alpha/alpha.go.bak
git commit -q -am "alpha, changed before the release is made again"
run_ok "--push --all 0.1.0 again, on other content" --push --all 0.1.0
check "it removes the stale copy from the module cache" \
	grep -qF "removed github.com/release-test/fake/alpha@v0.1.0 from the module cache" <<<"$out"
check "the tagged beta builds with -mod=readonly against the new alpha (checksums match)" tagged_builds beta/v0.1.0 beta redo

# A failed push undoes the local commits and tags (the push is atomic).
new_repo rejected
printf '#!/bin/sh\necho "rejected by test hook" >&2\nexit 1\n' >"$tmp/rejected.origin.git/hooks/pre-receive"
chmod +x "$tmp/rejected.origin.git/hooks/pre-receive"
before=$(snapshot)
run_refused "a rejected push fails" "rejected by test hook" --push --all 0.1.0
check "a rejected push leaves the local repository as it was" test "$(snapshot)" = "$before"
check "a rejected push leaves origin without tags" test -z "$(git ls-remote --tags origin)"

echo
echo "release_test: $passed passed, $failed failed"
((failed == 0))
