#!/usr/bin/env bash
# Fails when a committed *_templ.go differs from what `templ generate` makes
# of its .templ file. It writes nothing: run `make generate` to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
stale=0
while IFS= read -r f; do
	gen="${f%.templ}_templ.go"
	if [ ! -f "$gen" ] || ! go tool templ generate -f "$f" -stdout 2>/dev/null | cmp -s - "$gen"; then
		echo "stale generated file: $gen (run: make generate)" >&2
		stale=1
	fi
done < <(find . -name '*.templ' -not -path './.git/*' | sort)
exit $stale
