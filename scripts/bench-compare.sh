#!/usr/bin/env bash
# Measures the engine before and after a change in one run: it builds the
# sim benchmark of a base commit (from a temporary git worktree) and of the
# working tree as it is, runs the two binaries alternately, round after
# round, so both see the same machine load, and compares them with
# benchstat (or, if benchstat cannot be fetched, prints the medians).
#
#   scripts/bench-compare.sh [BASE] [ROUNDS] [BENCHTIME]
#
# BASE defaults to 5c03a31, ROUNDS to 6, BENCHTIME to 100x. Only the
# worktree is created and removed; nothing in this checkout changes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
base=${1:-5c03a31}
rounds=${2:-6}
benchtime=${3:-100x}
bench=${BENCH:-ExecuteAllHandlers}
benchstat=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

tmp=$(mktemp -d)
cleanup() {
	git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
	git -C "$root" worktree prune >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building the benchmark of $base and of the working tree (the first build compiles SQLite: minutes on 2 cores)" >&2
git worktree add --detach --quiet "$tmp/base" "$base"
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./sim)
go test -c -o "$tmp/head.test" ./sim

# Each binary runs from its own package folder, as go test would run it.
run() { # name binary dir
	(cd "$3/sim" && "$2" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.count 1) |
		grep '^Benchmark' >>"$tmp/$1.txt"
}
for i in $(seq "$rounds"); do
	echo "round $i of $rounds" >&2
	run base "$tmp/base.test" "$tmp/base"
	run head "$tmp/head.test" "$root"
done

echo
if go run "$benchstat" "base=$tmp/base.txt" "head=$tmp/head.txt" 2>"$tmp/benchstat.err"; then
	exit 0
fi
echo "(benchstat unavailable: $(head -1 "$tmp/benchstat.err"); medians of $rounds rounds instead)"
# median NAME FILE prints the median ns/op of one benchmark in one file.
median() {
	awk -v name="$1" '$1 == name { print $3 }' "$2" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf '%-50s %14s %14s %8s\n' benchmark "base ns/op" "head ns/op" change
for name in $(awk '{ print $1 }' "$tmp/base.txt" "$tmp/head.txt" | sort -u); do
	b=$(median "$name" "$tmp/base.txt")
	h=$(median "$name" "$tmp/head.txt")
	awk -v n="$name" -v b="${b:-0}" -v h="${h:-0}" 'BEGIN {
		c = (b > 0 && h > 0) ? sprintf("%+.1f%%", (h - b) * 100 / b) : "?"
		printf "%-50s %14.0f %14.0f %8s\n", n, b, h, c
	}'
done
