#!/usr/bin/env bash
# The end-to-end release test (make release-e2e): releases the repository
# in a throw-away clone, then installs and imports the release as Go users
# do, to prove that the tags scripts/release.sh makes work with `go
# install`, `go run` and `go get`. In a temporary clone of one commit
# (RELEASE_E2E_REV, default HEAD: uncommitted changes are not in it),
# with that commit's scripts/release.sh:
#
#   1. release.sh --apply --all V1, then toolsearch alone at V2 (V1 is the
#      next minor above every version of versions.yaml, V2 the one after);
#   2. every tag's go.mod has no replace or exclude directive, and in the
#      tagged tree (the module as the go command downloads it) `go mod tidy
#      -diff` finds nothing to change: its go.sum is complete;
#   3. `go install <prefix>/toolserver/cmd/metatools@V1`, and @latest:
#      `metatools --version` prints V1; `go run ...@V1 --version` too;
#      `go install` of toolruntime-runner@V1 and of toolsearch-eval@V2
#      (the repository's other commands);
#   4. a fresh module importing only toolrun (`go get toolrun@V1`): it
#      builds and runs with -mod=readonly, and its `go mod graph` has no
#      grpc-go, kin-openapi nor bleve;
#   5. a fresh module pinning toolsearch at V2 and toolindex at V1: the
#      build list says so, and it builds and runs with -mod=readonly;
#   6. the program of toolcode/README.md's Example section, as written
#      there, builds against toolcode@V1 and prints what the README says;
#   7. `go mod verify` in every consumer module.
#
# The go command reaches the clone as it would reach the repository:
# git's url.file://<clone>.insteadOf rewrites https://<prefix> (set for
# the go command's git through GIT_CONFIG_COUNT: no configuration file
# changes), and GOPRIVATE=<prefix> fetches the repository's modules from
# it directly, keeping them out of the proxy and the checksum database;
# both stay in use for third-party modules. GOWORK=off: the consumers are
# outside the workspace.
#
# It uses the caller's module cache (third-party modules are there
# already) and build cache (-trimpath, as the Makefile builds, so that
# compiled third-party packages are shared with the other builds). The
# test versions never exist upstream, and every run tags them on other
# content: before and after a run, the script removes them from the
# module cache (scripts/lib.sh: modcache_forget), the go command runs
# with GODEBUG=goindex=0 (its index of a module cache folder would outlive
# the folder), and a lock keeps two runs on one machine from overlapping.
#
# Usage: scripts/release-e2e.sh   (make release-e2e). It prints one line
# per check and ends with "release-e2e: N passed, M failed"; it exits 1
# when a check failed. RELEASE_E2E_REV=<commit> releases another commit
# with its own release.sh (RELEASE_E2E_REV=main shows how main's fares);
# RELEASE_E2E_KEEP=1 keeps the temporary folder.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

root=$(git -C "$here/.." rev-parse --show-toplevel)
GO=${GO:-go}
rev=$(git -C "$root" rev-parse --verify "${RELEASE_E2E_REV:-HEAD}^{commit}") ||
	die "RELEASE_E2E_REV=${RELEASE_E2E_REV:-HEAD} is not a commit"
# The versions and modules of the commit released.
vfile=$(mktemp)
git -C "$root" show "$rev:versions.yaml" >"$vfile"
prefix=$(vy_prefix "$vfile")
V1=$(VERSIONS_FILE=$vfile bash "$here/modules.sh" --next-minor)
IFS=. read -r major minor _ <<<"$V1"
V2=$major.$((minor + 1)).0
modules=() # the released ones, in release order
while read -r m _; do modules+=("$m"); done < <(vy_modules "$vfile")
rm -f "$vfile"
((${#modules[@]} > 0)) || die "no modules in versions.yaml at $rev"

# Read before the environment of the go command changes below.
modcache=$("$GO" env GOMODCACHE)
goflags=$("$GO" env GOFLAGS)
repo_url=https://$prefix

# forget_test_versions: the test versions out of the module cache, and
# the pseudo-versions of the repository's root path made from the clone's
# new commits (`go install ...@latest` looks for a module at every prefix
# of the package path, the root too).
forget_test_versions() {
	local m h esc d
	for m in "${modules[@]}"; do
		modcache_forget "$modcache" "$prefix/$m" "v$V1" "$repo_url" "$m/v$V1" >/dev/null
	done
	modcache_forget "$modcache" "$prefix/toolsearch" "v$V2" "$repo_url" "toolsearch/v$V2" >/dev/null
	[[ -d ${clone:-}/.git ]] || return 0
	esc=$(modcache_escape "$prefix")
	for h in $(git -C "$clone" rev-list "$rev..main" 2>/dev/null); do
		rm -f "$modcache/cache/download/$esc/@v/"*-"${h:0:12}".*
		for d in "$modcache/$esc@"*-"${h:0:12}"; do
			[[ -d $d ]] || continue
			chmod -R u+w "$d"
			rm -rf "$d"
		done
		if [[ -f $modcache/cache/download/$esc/@v/list ]]; then
			grep -v -- "-${h:0:12}\$" "$modcache/cache/download/$esc/@v/list" >"$tmp/list" || true
			cat "$tmp/list" >"$modcache/cache/download/$esc/@v/list"
		fi
	done
}

exec 9>"${TMPDIR:-/tmp}/metatools-release-e2e.lock"
if command -v flock >/dev/null; then
	flock -n 9 || {
		echo "release-e2e: another run holds the lock; waiting" >&2
		flock 9
	}
fi

tmp=$(mktemp -d)
cleanup() {
	forget_test_versions
	if [[ ${RELEASE_E2E_KEEP:-} == 1 ]]; then
		echo "kept $tmp"
	else
		chmod -R u+w "$tmp" 2>/dev/null || true
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

passed=0 failed=0
pass() {
	passed=$((passed + 1))
	printf 'ok   %s\n' "$1"
}
fail() {
	failed=$((failed + 1))
	printf 'FAIL %s\n' "$1"
	# The first lines say what went wrong; the rest often repeats it.
	[[ -z ${2:-} ]] || printf '%s\n' "$2" | awk 'NR <= 12 { print "     | " $0 } END { if (NR > 12) print "     | (" NR - 12 " more lines)" }'
}
# try DESC CMD...: runs CMD, output in $out; passes when it succeeds.
try() {
	local desc=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$desc"
	else
		fail "$desc (exit $?)" "$out"
		return 1
	fi
}
# expect DESC WANT GOT: passes when GOT contains WANT.
expect() {
	if [[ $3 == *"$2"* ]]; then pass "$1"; else fail "$1 (want '$2')" "$3"; fi
}
# absent DESC PATTERN TEXT: passes when no line of TEXT matches PATTERN.
absent() {
	local hits
	hits=$(grep -E -- "$2" <<<"$3" || true)
	if [[ -z $hits ]]; then pass "$1"; else fail "$1" "$hits"; fi
}
elapsed() { echo "$((SECONDS - $1))s"; }
in_dir() { # in_dir DIR CMD...: CMD in DIR
	local d=$1
	shift
	(cd "$d" && "$@")
}
start=$SECONDS

# ------------------------------------------------------------ environment
# Git: no user or system configuration (signing, hooks), a fixed identity.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=release-e2e GIT_AUTHOR_EMAIL=release-e2e@example.com
export GIT_COMMITTER_NAME=release-e2e GIT_COMMITTER_EMAIL=release-e2e@example.com
unset GIT_DIR GIT_WORK_TREE

clone=$tmp/repo
git clone -q --no-checkout --no-hardlinks "$root" "$clone"
git -C "$clone" checkout -q -B main "$rev"
git -C "$clone" remote remove origin # nothing can be pushed anywhere

export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.file://$clone.insteadOf" GIT_CONFIG_VALUE_0=$repo_url
export GOWORK=off GOTOOLCHAIN=local
export GOPRIVATE=$prefix GONOPROXY=$prefix GONOSUMDB=$prefix
# The go command's index of a module of the module cache is kept in the
# build cache under the module's folder alone, as if its files never
# changed: the test versions' would outlive the versions (see release.sh).
export GODEBUG=${GODEBUG:+$GODEBUG,}goindex=0
flags=-trimpath
for f in $goflags; do [[ $f == -trimpath ]] || flags="$f $flags"; done
export GOFLAGS=$flags
export GOBIN=$tmp/bin
forget_test_versions # left by a run that was killed

printf 'release-e2e: %s at %s, test versions v%s and v%s\n' "$prefix" "$(git -C "$root" rev-parse --short=12 "$rev")" "$V1" "$V2"
printf '  (module cache %s; GOFLAGS=%s)\n\n' "$modcache" "$GOFLAGS"

# From here on a failed command is a failed check, counted, and the
# checks go on.
set +e

# ------------------------------------------------------------ 1. release
t=$SECONDS
if ! try "release.sh --apply --all $V1" in_dir "$clone" bash scripts/release.sh --apply --all "$V1"; then
	echo
	echo "release-e2e: $passed passed, $failed failed (the release failed: nothing to install)"
	exit 1
fi
echo "     ($(elapsed "$t"))"
t=$SECONDS
try "release.sh --apply toolsearch $V2" in_dir "$clone" bash scripts/release.sh --apply toolsearch "$V2" &&
	echo "     ($(elapsed "$t"))"

# ------------------------------------------------------------ 2. the tagged trees
t=$SECONDS
tags=()
for m in "${modules[@]}"; do tags+=("$m/v$V1"); done
tags+=("toolsearch/v$V2")
for tag in "${tags[@]}"; do
	m=${tag%/v*} v=${tag##*/}
	gomod=$(git -C "$clone" show "$tag:$m/go.mod")
	absent "$tag: go.mod has no replace or exclude directive" '^[[:space:]]*(replace|exclude)([[:space:]]|\()' "$gomod"
	# The module as the go command downloads it (its zip, not the folder).
	if try "$tag: go mod download" "$GO" mod download -json "$prefix/$m@$v"; then
		dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$out")
		try "$tag: go mod tidy -diff in the tagged tree finds nothing to change" \
			in_dir "$dir" "$GO" mod tidy -diff
	fi
done
echo "     ($(elapsed "$t"))"

# ------------------------------------------------------------ 3. the commands
t=$SECONDS
if try "go install $prefix/toolserver/cmd/metatools@v$V1" "$GO" install "$prefix/toolserver/cmd/metatools@v$V1"; then
	echo "     ($(elapsed "$t"))"
	try "metatools --version" "$GOBIN/metatools" --version && expect "metatools --version prints v$V1: $out" "metatools v$V1 (" "$out"
	try "metatools version --json" "$GOBIN/metatools" version --json &&
		expect "metatools version --json says v$V1" "\"version\": \"v$V1\"" "$(tr -d '\n' <<<"$out" | sed 's/"version":[[:space:]]*/"version": /')"
	try "go version -m metatools" "$GO" version -m "$GOBIN/metatools" &&
		expect "the binary's main module is toolserver v$V1" "$(printf 'mod\t%s/toolserver\tv%s' "$prefix" "$V1")" "$out"
	rm -f "$GOBIN/metatools"
fi
t=$SECONDS
try "go install $prefix/toolserver/cmd/metatools@latest" "$GO" install "$prefix/toolserver/cmd/metatools@latest" &&
	try "metatools@latest --version" "$GOBIN/metatools" --version && expect "@latest is v$V1: $out" "metatools v$V1 (" "$out"
echo "     ($(elapsed "$t"))"
t=$SECONDS
try "go run $prefix/toolserver/cmd/metatools@v$V1 --version" "$GO" run "$prefix/toolserver/cmd/metatools@v$V1" --version &&
	expect "go run ...@v$V1 prints v$V1: $out" "metatools v$V1 (" "$out"
echo "     ($(elapsed "$t"))"
t=$SECONDS
try "go install $prefix/toolruntime/cmd/toolruntime-runner@v$V1" "$GO" install "$prefix/toolruntime/cmd/toolruntime-runner@v$V1"
try "go install $prefix/toolsearch/cmd/toolsearch-eval@v$V2" "$GO" install "$prefix/toolsearch/cmd/toolsearch-eval@v$V2" &&
	try "go version -m toolsearch-eval" "$GO" version -m "$GOBIN/toolsearch-eval" &&
	expect "toolsearch-eval is toolsearch v$V2" "$(printf 'mod\t%s/toolsearch\tv%s' "$prefix" "$V2")" "$out" &&
	expect "toolsearch-eval has toolindex v$V1" "$(printf 'dep\t%s/toolindex\tv%s' "$prefix" "$V1")" "$out"
echo "     ($(elapsed "$t"))"

# ------------------------------------------------------------ 4. a toolrun-only program
# consumer NAME: a fresh module example.com/NAME in $tmp/NAME, main.go from stdin.
consumer() {
	mkdir -p "$tmp/$1"
	cat >"$tmp/$1/main.go"
	printf 'module example.com/%s\n\ngo 1.25.0\n' "$1" >"$tmp/$1/go.mod"
}
t=$SECONDS
consumer toolrunonly <<'EOF'
package main

import (
	"context"
	"fmt"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

func main() {
	tool, fn, err := toolrun.NewLocalTool("add", "Add two numbers.", func(_ context.Context, in addArgs) (sum, error) {
		return sum{Sum: in.A + in.B}, nil
	})
	if err != nil {
		panic(err)
	}
	local := toolrun.NewLocalExecutor()
	local.Register("add", fn)
	idx := toolindex.New()
	ctx := context.Background()
	if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("add")}); err != nil {
		panic(err)
	}
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), toolrun.WithIndex(idx))
	res, err := runner.Run(ctx, "add", map[string]any{"a": 2, "b": 40})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Structured)
}
EOF
d=$tmp/toolrunonly
if try "toolrun-only: go get toolrun@v$V1" in_dir "$d" "$GO" get "$prefix/toolrun@v$V1" &&
	try "toolrun-only: go mod tidy" in_dir "$d" "$GO" mod tidy; then
	try "toolrun-only: go build with -mod=readonly" in_dir "$d" env GOFLAGS="$GOFLAGS -mod=readonly" "$GO" build -o "$tmp/bin/toolrunonly" . &&
		try "toolrun-only: the program runs" "$tmp/bin/toolrunonly" && expect "toolrun-only: it prints the sum" "map[sum:42]" "$out"
	if try "toolrun-only: go mod graph" in_dir "$d" "$GO" mod graph; then
		absent "toolrun-only: no grpc-go, kin-openapi nor bleve in the module graph" \
			'(google\.golang\.org/grpc|github\.com/getkin/kin-openapi|github\.com/blevesearch/bleve)' "$out"
		expect "toolrun-only: the graph has toolrun v$V1" "$prefix/toolrun@v$V1" "$out"
	fi
	try "toolrun-only: go mod verify" in_dir "$d" "$GO" mod verify
fi
echo "     ($(elapsed "$t"))"

# ------------------------------------------------------------ 5. two versions
t=$SECONDS
consumer pinned <<'EOF'
package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

func main() {
	ctx := context.Background()
	s, err := toolsearch.New()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	idx := toolindex.New(toolindex.WithSearcher(s))
	var regs []toolindex.Registration
	for _, name := range []string{"create_issue", "read_file"} {
		t := toolmodel.Tool{Tool: mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, Namespace: "demo"}
		regs = append(regs, toolindex.Registration{Tool: t, Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: t.ID()}}})
	}
	if err := idx.RegisterMany(ctx, regs); err != nil {
		panic(err)
	}
	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "open an issue", Limit: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.Items[0].ID)
}
EOF
d=$tmp/pinned
if try "pinned: go get toolsearch@v$V2 toolindex@v$V1" in_dir "$d" "$GO" get "$prefix/toolsearch@v$V2" "$prefix/toolindex@v$V1" &&
	try "pinned: go mod tidy" in_dir "$d" "$GO" mod tidy; then
	try "pinned: go list -m" in_dir "$d" "$GO" list -m "$prefix/toolsearch" "$prefix/toolindex" &&
		expect "pinned: the build list has toolsearch v$V2 and toolindex v$V1" "$prefix/toolsearch v$V2"$'\n'"$prefix/toolindex v$V1" "$out"
	try "pinned: go build with -mod=readonly" in_dir "$d" env GOFLAGS="$GOFLAGS -mod=readonly" "$GO" build -o "$tmp/bin/pinned" . &&
		try "pinned: the program runs" "$tmp/bin/pinned" && expect "pinned: it finds the tool" "demo:create_issue" "$out"
	try "pinned: go mod verify" in_dir "$d" "$GO" mod verify
fi
echo "     ($(elapsed "$t"))"

# ------------------------------------------------------------ 6. a README's program
t=$SECONDS
readme=$(git -C "$clone" show "toolcode/v$V1:toolcode/README.md")
# The first ```go block of its Example section, and the ```text block after it.
awk '/^## Example/ { on = 1 } on && /^```go$/ { go = 1; next } go && /^```$/ { exit } go { print }' <<<"$readme" |
	consumer toolcodereadme
want=$(awk '/^## Example/ { on = 1 } on && /^```text$/ { txt = 1; next } txt && /^```$/ { exit } txt { print }' <<<"$readme")
d=$tmp/toolcodereadme
if try "toolcode README: go get toolcode@v$V1" in_dir "$d" "$GO" get "$prefix/toolcode@v$V1" &&
	try "toolcode README: go mod tidy" in_dir "$d" "$GO" mod tidy; then
	try "toolcode README: the program builds as written, with -mod=readonly" in_dir "$d" env GOFLAGS="$GOFLAGS -mod=readonly" "$GO" build -o "$tmp/bin/toolcodereadme" . &&
		try "toolcode README: the program runs" "$tmp/bin/toolcodereadme" &&
		if [[ -n $want && $out == "$want" ]]; then pass "toolcode README: it prints what the README says"; else fail "toolcode README: it prints what the README says" "got:"$'\n'"$out"$'\n'"README:"$'\n'"$want"; fi
	try "toolcode README: go mod verify" in_dir "$d" "$GO" mod verify
fi
echo "     ($(elapsed "$t"))"

echo
echo "release-e2e: took $(elapsed "$start")"
echo "release-e2e: $passed passed, $failed failed"
((failed == 0))
