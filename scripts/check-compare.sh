#!/usr/bin/env bash
# Measures the checker before and after a change in one run: it builds the
# lab of a base commit (from a temporary git worktree) and of the working
# tree as it is, runs `lab check HANDLERS --json` with each, alternately,
# round after round, so both see the same machine load, and prints each
# run's CPU time (user + system: what the search cost, however loaded the
# machine) and scripts per CPU-second, then the median ratio. It also
# compares the reports: byte for byte the same, but for
# schedules_per_second, which is wall-clock (and scripts and
# distinct_states, which a base before them does not print); any
# difference is printed and the script fails.
#
#   scripts/check-compare.sh [BASE] [ROUNDS] [HANDLERS] [FLAGS...]
#
# HEAD_FLAGS, when set, go to the working tree's lab check alone (such as
# --dedup-states, which a base does not know): the two searches then run
# different counts of scripts, so what is compared is the CPU time of the
# same search (the speedup, base CPU over head CPU), and the reports by
# their verdicts and each verdict's shortest story, not byte for byte.
#
# BASE defaults to a504f96 (main before the checker reused its worlds),
# ROUNDS to 3, HANDLERS to core; FLAGS go to lab check (--depth 3, say).
# Only the worktree is created and removed; nothing in this checkout
# changes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
base=${1:-a504f96}
rounds=${2:-3}
handlers=${3:-core}
shift $(($# < 3 ? $# : 3))
flags=("$@")
read -r -a head_flags <<<"${HEAD_FLAGS:-}"

tmp=$(mktemp -d)
cleanup() {
	git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
	git -C "$root" worktree prune >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building the lab of $base and of the working tree (the first build compiles SQLite: minutes on 2 cores)" >&2
git worktree add --detach --quiet "$tmp/base" "$base"
(cd "$tmp/base" && go build -o "$tmp/base.lab" ./cmd/lab)
go build -o "$tmp/head.lab" ./cmd/lab

# run NAME ROUND: one search; writes the report and "user system" seconds.
run() {
	local out="$tmp/$1.$2"
	local status=0
	TIMEFORMAT='%3U %3S'
	local extra=()
	if [ "$1" = head ]; then
		extra=("${head_flags[@]}")
	fi
	{ time "$tmp/$1.lab" check "$handlers" --json "${flags[@]}" "${extra[@]}" >"$out.json" 2>"$out.err"; } 2>"$out.time" || status=$?
	# 1 is a handler that failed, as core's do; 2 and up is the lab's.
	if [ "$status" -gt 1 ]; then
		echo "lab check ($1) exited $status:" >&2
		cat "$out.err" >&2
		exit 1
	fi
}
scripts() { jq '[.[].explored] | add' "$1"; }
cpu() { awk '{ print $1 + $2 }' "$1"; }

printf '%-6s %12s %12s %12s %12s %16s %16s %7s %8s\n' round "base CPU s" "head CPU s" "base scripts" "head scripts" "base scripts/s" "head scripts/s" ratio speedup
for i in $(seq "$rounds"); do
	run base "$i"
	run head "$i"
	sb=$(scripts "$tmp/base.$i.json")
	sh=$(scripts "$tmp/head.$i.json")
	cb=$(cpu "$tmp/base.$i.time")
	ch=$(cpu "$tmp/head.$i.time")
	awk -v i="$i" -v sb="$sb" -v sh="$sh" -v cb="$cb" -v ch="$ch" 'BEGIN {
		rb = sb / cb; rh = sh / ch
		printf "%-6s %12.2f %12.2f %12d %12d %16.0f %16.0f %6.2fx %7.2fx\n", i, cb, ch, sb, sh, rb, rh, rh / rb, cb / ch
	}' | tee -a "$tmp/rows.txt"
	if [ "$sb" != "$sh" ] && [ ${#head_flags[@]} -eq 0 ]; then
		echo "round $i: base ran $sb scripts, head $sh" >&2
	fi
done
median() { sort -g | awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }
echo
printf 'median ratio (head/base, scripts per CPU-second) over %d rounds: %.2fx\n' "$rounds" "$(awk '{ print $8 + 0 }' "$tmp/rows.txt" | median)"
printf 'median speedup (base CPU over head CPU, the same search) over %d rounds: %.2fx\n' "$rounds" "$(awk '{ print $9 + 0 }' "$tmp/rows.txt" | median)"

if [ ${#head_flags[@]} -gt 0 ]; then
	# Each handler's verdicts, each with its shortest story (the first
	# of its verdict in the report's order).
	stories() {
		jq '[.[] | {handler, failed, stories: (reduce .failures[] as $f ([];
			if any(.[]; .verdict == $f.verdict) then . else . + [$f | {verdict, script, steps, settled, expected, reason}] end))}]' "$1"
	}
	if diff <(stories "$tmp/base.1.json") <(stories "$tmp/head.1.json") >"$tmp/report.diff"; then
		echo "reports: the same verdicts, each with the same shortest story (head with ${HEAD_FLAGS})"
		exit 0
	fi
	echo "reports differ in their verdicts or shortest stories:"
	cat "$tmp/report.diff"
	exit 1
fi
strip() { grep -v '"schedules_per_second"\|"scripts":\|"distinct_states":' "$1"; }
if diff <(strip "$tmp/base.1.json") <(strip "$tmp/head.1.json") >"$tmp/report.diff"; then
	echo "reports: byte-identical (schedules_per_second aside)"
else
	echo "reports differ:"
	cat "$tmp/report.diff"
	exit 1
fi
