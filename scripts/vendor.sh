#!/usr/bin/env bash
# Refreshes the vendored front-end files from the npm registry at pinned
# versions. The version is part of each file name, so a browser never keeps
# a stale copy and a reader sees at once what is vendored.
set -euo pipefail
cd "$(dirname "$0")/.."
HTMX_VERSION=4.0.1
MERMAID_VERSION=12.3.0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p static/vendor
(cd "$tmp" && npm pack --silent "htmx.org@$HTMX_VERSION" "mermaid@$MERMAID_VERSION" >/dev/null)
tar -xzf "$tmp/htmx.org-$HTMX_VERSION.tgz" -C "$tmp" package/dist/htmx.min.js
cp "$tmp/package/dist/htmx.min.js" "static/vendor/htmx-$HTMX_VERSION.min.js"
rm -rf "$tmp/package"
tar -xzf "$tmp/mermaid-$MERMAID_VERSION.tgz" -C "$tmp" package/dist/mermaid.min.js
cp "$tmp/package/dist/mermaid.min.js" "static/vendor/mermaid-$MERMAID_VERSION.min.js"
echo "vendored htmx $HTMX_VERSION and mermaid $MERMAID_VERSION into static/vendor/"
