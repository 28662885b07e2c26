#!/usr/bin/env bash
# Refreshes the vendored front-end files from the npm registry at pinned
# versions. The version is part of each file name, so a browser never keeps
# a stale copy and a reader sees at once what is vendored. htmx goes to
# static/vendor (served); mermaid goes next to cmd/diagrams, which runs it
# in headless Chromium for `make diagrams` and is never served. After a new
# mermaid version, update the -mermaid default in cmd/diagrams/main.go and
# the Makefile's diagrams target if the name changes, then run make diagrams.
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
cp "$tmp/package/dist/mermaid.min.js" "cmd/diagrams/mermaid-$MERMAID_VERSION.min.js"
echo "vendored htmx $HTMX_VERSION into static/vendor/ and mermaid $MERMAID_VERSION into cmd/diagrams/ (run make diagrams)"

# The handler editor: CodeMirror 6 with Go, its lint markers
# (@codemirror/lint) and token classes (@lezer/highlight), bundled once
# with esbuild from scripts/editor (its package.json pins the packages,
# package-lock.json everything under them) into one file under
# static/vendor, which lab.js loads when an editor opens. After a new
# version, change the name in web/page.EditorScript too.
CODEMIRROR_VERSION=6.0.2
(cd scripts/editor && npm ci --silent --no-audit --no-fund &&
	./node_modules/.bin/esbuild editor.js --bundle --minify --format=iife --target=es2020 --legal-comments=eof \
		--log-level=warning --outfile="../../static/vendor/codemirror-$CODEMIRROR_VERSION.min.js")
echo "bundled codemirror $CODEMIRROR_VERSION with @codemirror/lang-go and @codemirror/lint into static/vendor/"

# axe-core is for the browser tests only (web/a11y/a11y_browser_test.go injects
# it into each page): it lives in web/testdata, never in static/, so it is
# not embedded in the binary.
AXE_VERSION=4.14.1
mkdir -p web/testdata
(cd "$tmp" && npm pack --silent "axe-core@$AXE_VERSION" >/dev/null)
rm -rf "$tmp/package"
tar -xzf "$tmp/axe-core-$AXE_VERSION.tgz" -C "$tmp" package/axe.min.js
cp "$tmp/package/axe.min.js" "web/testdata/axe-core-$AXE_VERSION.min.js"
echo "vendored axe-core $AXE_VERSION into web/testdata/ (tests only)"
