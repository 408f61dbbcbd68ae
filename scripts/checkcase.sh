# shellcheck shell=bash
# Shared by the tests of the workspace's check scripts: sourced, not run.
# The sourcing test sets base (a valid workspace), tmp, passed and failed.
# shellcheck disable=SC2154 # base and tmp: set by the sourcing test.

# check_case CHECK DESC PATTERN EDIT: copy the valid workspace, run EDIT in
# it, then run the script CHECK on the copy, in the same subshell (EDIT may
# export a setting), and expect it to fail printing PATTERN, or to pass if
# PATTERN is "".
check_case() {
	local check=$1 desc=$2 pattern=$3 edit=$4 dir out
	dir=$(mktemp -d "$tmp/case.XXXXXX")
	cp -R "$base/." "$dir"
	if out=$(cd "$dir" && eval "$edit" && bash "$check" "$dir" 2>&1); then
		if [[ -z $pattern ]]; then
			passed=$((passed + 1)) && echo "ok   $desc"
		else
			failed=$((failed + 1)) && printf 'FAIL %s (it passed)\n%s\n' "$desc" "$out"
		fi
	elif [[ -n $pattern ]] && grep -qF -- "$pattern" <<<"$out"; then
		passed=$((passed + 1)) && echo "ok   $desc"
	else
		failed=$((failed + 1)) && printf 'FAIL %s (want %s)\n%s\n' "$desc" "${pattern:-success}" "$out"
	fi
}
