#!/usr/bin/env bash
# Fails when a committed *_templ.go differs from what `templ generate` makes
# of its .templ file. It regenerates in a scratch copy and changes nothing
# here: run `make generate` to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar --exclude=./.git --exclude=./artifacts --exclude=./bin -cf - . | tar -xf - -C "$tmp"
(cd "$tmp" && go tool templ generate -log-level warn >/dev/null)
stale=0
while IFS= read -r f; do
	gen="${f%.templ}_templ.go"
	if [ ! -f "$root/$gen" ] || ! cmp -s "$tmp/$gen" "$root/$gen"; then
		echo "stale generated file: $gen (run: make generate)" >&2
		stale=1
	fi
done < <(cd "$tmp" && find . -name '*.templ' | sort)
exit $stale
