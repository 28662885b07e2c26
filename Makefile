# The idempotency lab. `make run` starts it, `make test` runs every test.
ADDR ?= 127.0.0.1:8080

.PHONY: cost-reference sandbox-bench run test build build-lean generate diagrams highlight check-generated vet staticcheck bench check-bench check-compare check-compare-dedup bench-compare fuzz vendor browser-deps load

## run: start the lab at http://$(ADDR) (ARGS=--dev to read files from disk)
run:
	@echo "building the lab (the first build compiles SQLite: several minutes on 2 cores)…"
	go run ./cmd/lab serve --addr $(ADDR) $(ARGS)

## test: everything CI runs: generated code current, vet, staticcheck, all tests (browser tests included), the labtest example
test: check-generated vet staticcheck
	go test -count=1 -timeout 40m ./...
	cd examples && go test -count=1 -timeout 10m ./...

## build: a single binary, ./bin/lab, with NATS JetStream and Kafka's protocol embedded for --broker and broker= (without DWARF and the symbol table: 60 MB, not 83; stack traces and profiles keep their names)
build:
	go build -ldflags='-s -w' -o bin/lab ./cmd/lab

## build-lean: ./bin/lab-lean, the same lab without the embedded NATS and Kafka (go build -tags lean: 41.6 MB); --broker amqp://… still works
build-lean:
	go build -tags lean -ldflags='-s -w' -o bin/lab-lean ./cmd/lab

## generate: regenerate templ components (*_templ.go); commit the result
generate:
	go tool templ generate

## diagrams: render the lessons' mermaid fences to SVG (lessons/diagrams/) in headless Chromium; commit the result
diagrams:
	go run ./cmd/diagrams

## highlight: highlight the lessons' code fences in languages other than Go (sql, json, lua, sh, …) with chroma into lessons/code/, and chroma's stylesheets into lessons/codestyle/; commit the result (the lab's binary does not link chroma; go test ./lessons fails while they are stale)
highlight:
	go test ./lessons -run '^TestHighlightedAhead$$' -count=1 -update

check-generated:
	./scripts/check-generated.sh

vet:
	go vet ./...
	go build -tags lean -o /dev/null ./cmd/lab

## staticcheck: honnef.co/go/tools at the version go.mod pins (a go tool)
staticcheck:
	go tool staticcheck ./...

## bench: engine speed (see README, "Measured")
bench:
	go test ./sim -run '^$$' -bench . -benchtime 200x

## check-bench: the checker's speed (see README, "Measured")
check-bench:
	go test ./check -run '^$$' -bench . -benchtime 3x

## check-compare: `lab check core --json` of CHECK_BASE (a commit) and of the working tree, run alternately: each run's CPU time, scripts per CPU-second and the ratio, and the reports compared byte for byte (CHECKFLAGS go to lab check)
CHECK_BASE ?= a504f96
CHECK_ROUNDS ?= 3
check-compare:
	./scripts/check-compare.sh $(CHECK_BASE) $(CHECK_ROUNDS) core $(CHECKFLAGS)

## check-compare-dedup: lab check inbox --depth 4 --runs 0 of DEDUP_BASE (main before --dedup-states) against the working tree's with --dedup-states, alternately: each run's CPU time and the speedup, and the same verdicts and shortest stories (DEDUP_HANDLERS, DEDUP_FLAGS to change the search)
DEDUP_BASE ?= e122c30
DEDUP_ROUNDS ?= 5
DEDUP_HANDLERS ?= inbox
DEDUP_FLAGS ?= --depth 4 --runs 0
check-compare-dedup:
	HEAD_FLAGS=--dedup-states ./scripts/check-compare.sh $(DEDUP_BASE) $(DEDUP_ROUNDS) $(DEDUP_HANDLERS) $(DEDUP_FLAGS)

## sandbox-bench: a handler file submitted and run on a preset, checked to depth 4, and the interpreter's cost against the same handler compiled in
sandbox-bench:
	go test ./sandbox -run '^$$' -bench . -benchtime 3x

## bench-compare: the engine benchmark of BASE (a commit) and of the working tree, run alternately, compared by benchstat
BASE ?= 5c03a31
ROUNDS ?= 6
BENCHTIME ?= 100x
bench-compare:
	./scripts/bench-compare.sh $(BASE) $(ROUNDS) $(BENCHTIME)

## fuzz: run every fuzz target in the module for FUZZTIME (default 30s) each; the targets are found with `go test -list`, so a new one is never left out
FUZZTIME ?= 30s
fuzz:
	@set -e; for dir in $$(go list -f '{{.Dir}}' ./...); do \
		grep -qs '^func Fuzz' $$dir/*_test.go || continue; \
		for target in $$(go test -list '^Fuzz' $$dir | grep '^Fuzz'); do \
			echo "go test $$dir -fuzz ^$$target\$$"; \
			go test $$dir -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME); \
		done; \
	done

## vendor: refresh static/vendor from npm at the pinned versions
vendor:
	./scripts/vendor.sh

## browser-deps: what the tests need from Debian: chromium (browser tests), redis-server and postgresql (real-engine tests), the ru_RU.UTF-8 locale (PostgreSQL answering in Russian)
browser-deps:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	command -v redis-server >/dev/null || (apt-get update && apt-get install -y redis-server)
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || (apt-get update && apt-get install -y postgresql)
	[ -e /usr/share/i18n/locales/ru_RU ] || (apt-get update && apt-get install -y locales)
	locale -a | grep -qix 'ru_RU\.utf-\?8' || localedef -i ru_RU -f UTF-8 ru_RU.UTF-8

## load: the lab under load on 127.0.0.1 (see README, "Measured"); each case at most 30 s
# The room case across two lab servers keeping rooms in a Redis of your own:
#   make load LOADFLAGS='-case room -duration 10s -students 100 -redis redis://127.0.0.1:6390/0'
load: build
	go run ./cmd/labload -lab bin/lab $(LOADFLAGS)

## cost-reference: the cost lab's reference run (cost/reference.json) that lesson 8 and /cost show; with LAB_POSTGRES_URL and LAB_REDIS_URL set (eval "$$(scripts/real-servers.sh start)") it measures PostgreSQL and Redis too. Commit the file.
cost-reference:
	go run ./cmd/costref
