# The one entry point for building, testing, linting and releasing every
# module of the workspace. `make help` lists the targets; `make check` is the
# full gate that CI (.ci/run) runs.
#
# The module list comes from versions.yaml (scripts/modules.sh), never from
# this file. From the root, `./...` does not work in a workspace without a
# root module, so workspace-wide commands use Go's `work` pattern (every
# package of every module in go.work); per-module commands loop over the dirs.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

GO ?= go
# -trimpath keeps the checkout's folder out of what Go compiles, so that
# the build cache serves a package compiled in another clone (CI runs each
# time in a new one) instead of compiling it again for vet, the builds,
# the race tests and fuzzing. Settings of GOFLAGS already in force stay.
export GOFLAGS := $(strip $(filter-out -trimpath,$(shell $(GO) env GOFLAGS)) -trimpath)
MODULES := $(shell bash scripts/modules.sh)
ifeq ($(strip $(MODULES)),)
$(error no modules: scripts/modules.sh could not read versions.yaml)
endif

# Tools the Makefile installs itself, pinned, into ./bin (gitignored).
BIN := $(CURDIR)/bin
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
GOVULNCHECK_VERSION := v1.8.0
GOVULNCHECK := $(BIN)/govulncheck-$(GOVULNCHECK_VERSION)

# Knobs: `make fuzz-smoke FUZZTIME=10s FUZZMINIMIZE=5s FUZZ_SLICE=2`,
# `make fuzz-smoke FUZZ_ALL=1` (= `make fuzz-all`), `make bench BENCH=Search BENCHCOUNT=6`.
FUZZTIME ?= 3s
# Minimising each new interesting input may take up to 60 s by default,
# which would eat a smoke run's whole FUZZTIME: a few calls each keep the
# time for fuzzing (a failing input is still minimised as far as they go).
FUZZMINIMIZE ?= 20x
# fuzz-smoke fuzzes the targets of the packages changed since the merge
# base with main (FUZZ_BASE, default origin/main or main) and one of
# FUZZ_SLICES slices of all the targets, chosen by the date (FUZZ_SLICE
# picks one); FUZZ_ALL=1 fuzzes every target. See scripts/fuzz.sh.
FUZZ_ALL ?=
FUZZ_SLICES ?= 4
FUZZ_SLICE ?=
FUZZ_BASE ?=
BENCH ?= .
BENCHTIME ?= 1s
BENCHCOUNT ?= 1
COVERPROFILE ?= coverage.out
RUN_PKG ?= ./toolserver/cmd/metatools
RUN_BIN ?= $(BIN)/metatools
ARGS ?= serve --http 127.0.0.1:8080
# What release-e2e releases (a commit; its own scripts/release.sh is used).
RELEASE_E2E_REV ?= HEAD
# A release dry run needs a version above every module's: the highest minor + 1.
RELEASE_CHECK_VERSION ?= $(shell bash scripts/modules.sh --next-minor)

# Prints a section header so that long `make check` logs stay readable,
# with the time of day, so that the log shows where the minutes go.
banner = printf '\n==> %s [%s]\n' "$(1)" "$$(date +%T)"

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN { FS = ":.*## " } /^[a-zA-Z0-9_-]+:.*## / { printf "  %-20s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@printf '\nModules (versions.yaml): %s\n' "$(MODULES)"
	@printf '\nKnobs (make VAR=value target):\n'
	@printf '  %-20s %s\n' \
	  'MODULES=dir...' 'narrow test-modules and lint to these modules' \
	  'FUZZ_ALL=1' 'fuzz-smoke fuzzes every target (as fuzz-all)' \
	  'FUZZ_SLICES=4' 'fuzz-smoke cuts the targets into this many slices, one a day' \
	  'FUZZ_SLICE=K' 'fuzz-smoke fuzzes slice K (0..FUZZ_SLICES-1) instead of the date'"'"'s' \
	  'FUZZ_BASE=ref' 'what fuzz-smoke compares with for changed packages (origin/main, else main; none)' \
	  'FUZZTIME=3s' 'fuzzing time per target' \
	  'FUZZMINIMIZE=20x' 'minimisation budget per new input' \
	  'BENCH BENCHTIME BENCHCOUNT' 'what bench runs' \
	  'RELEASE_E2E_REV=HEAD' 'the commit release-e2e releases, with its own release.sh'

# `go vet` is not a step of its own: lint's govet runs its analyzers (and
# more) in every module, and a separate run would type-check every
# package once more.
.PHONY: check
check: ## The full gate (README's test command; CI runs it).
	@$(MAKE) workspace-check
	@$(MAKE) dag-check
	@$(MAKE) test-scripts
	@$(MAKE) deps-check
	@$(MAKE) fmt-check
	@$(MAKE) lint
	@$(MAKE) test-modules
	@$(MAKE) release-check
	@$(MAKE) release-e2e
	@$(MAKE) fuzz-smoke
	@$(call banner,check: all passed)

.PHONY: build
build: ## Build every package of every module.
	@$(call banner,go build work)
	$(GO) build work

# The guest of toolruntime's wasm backend: the runner compiled for WASI
# preview1 (see the package doc of toolruntime/wasm). Go's build cache
# makes a rebuild quick.
RUNNER_WASM ?= $(BIN)/toolruntime-runner.wasm

.PHONY: runner-wasm
runner-wasm: ## Build the runner for the wasm backend (bin/toolruntime-runner.wasm).
	@$(call banner,GOOS=wasip1 GOARCH=wasm go build toolruntime-runner)
	cd toolruntime && GOOS=wasip1 GOARCH=wasm $(GO) build -o $(RUNNER_WASM) ./cmd/toolruntime-runner

# The end-to-end tests of toolserver run real third-party MCP software from
# the npm registry, pinned in toolserver/e2e/package-lock.json. Every target
# that runs tests depends on e2e-deps; `go test` alone does not install
# them, and those tests then fail saying to run `make e2e-deps`.
E2E_DIR := toolserver/e2e

.PHONY: e2e-deps
e2e-deps: $(E2E_DIR)/node_modules/.package-lock.json ## Install the npm packages of the end-to-end tests.

$(E2E_DIR)/node_modules/.package-lock.json: $(E2E_DIR)/package-lock.json
	@$(call banner,npm ci ($(E2E_DIR)))
	@command -v npm >/dev/null || { echo "e2e-deps: npm is not on the PATH: install Node.js (20 or later, with npm) to run the end-to-end tests" >&2; exit 1; }
	npm ci --prefix $(E2E_DIR) --no-audit --no-fund
	@touch $@

# The official MCP conformance suite (pinned in toolserver/e2e/package.json:
# 0.1.13 and, for revision 2026-07-28, 0.2.0) against `metatools serve
# --http`, alone and in front of an upstream that implements the scenarios,
# compared with the baselines toolserver/e2e/conformance-*baseline.json.
# `make test` runs it too (it is a Go test); these targets run only it.
CONFORMANCE_PKG := ./toolserver/cmd/metatools
CONFORMANCE_RUN := -run '^TestConformance$$' -count=1

.PHONY: conformance
conformance: e2e-deps ## The MCP conformance suite against metatools, compared with its baseline.
	@$(call banner,MCP conformance suite)
	$(GO) test $(CONFORMANCE_PKG) $(CONFORMANCE_RUN) -v

.PHONY: conformance-update
conformance-update: e2e-deps ## Rewrite the conformance baseline from a run (then review and commit it).
	@$(call banner,MCP conformance suite: rewriting the baseline)
	$(GO) test $(CONFORMANCE_PKG) $(CONFORMANCE_RUN) -update
	@git --no-pager diff --stat -- $(E2E_DIR)/conformance-baseline.json $(E2E_DIR)/conformance-2026-07-28-baseline.json

# The tests of toolruntime/wasm compile the runner with wazero into a
# compilation cache under the user's cache directory (see its
# main_test.go): about 2.5 minutes under the race detector, 25 s without,
# and 3 to 10 s to load once compiled. A run of the package without it,
# and without tests, fills the cache that the race tests then read. The
# cache finds the runner by the hash of its bytes, and the tests build the
# runner the same way in the workspace and alone, in any clone, so the
# first of these runs on a machine compiles it and the others load it.
.PHONY: test
test: e2e-deps ## Race tests of every module in one run, in the workspace (shuffled order).
	@$(call banner,go test -race -shuffle=on work)
	$(GO) test -count=1 -run '^$$' ./toolruntime/wasm
	$(GO) test -race -shuffle=on work

# `check` runs the race tests here only, each module alone as its users
# build it: `test` runs the same packages, and a second run would double
# the gate's longest step. toolruntime's sandbox conformance suites
# (TestConformance: the same JavaScript cases on every backend, one
# sandbox each) run without the race detector, which makes them take
# four minutes more; every other test of the module runs with it, and
# `test` runs them all with it.
.PHONY: test-modules
test-modules: e2e-deps ## Each module alone (GOWORK=off): tidy, build, race tests (shuffled order).
	@failed=; \
	for m in $(MODULES); do \
	  $(call banner,$$m (GOWORK=off): go mod tidy -diff / go build / go test -race -shuffle=on); \
	  skip=; \
	  if ! (cd "$$m" && export GOWORK=off && \
	        $(GO) mod tidy -diff && $(GO) build ./... && \
	        if [ "$$m" = toolruntime ]; then \
	          $(GO) test -count=1 -shuffle=on -run '^TestConformance$$' ./... && skip='-skip=^TestConformance$$'; \
	        fi && \
	        $(GO) test -race -shuffle=on $$skip ./...); then \
	    failed="$$failed $$m"; \
	  fi; \
	done; \
	if [ -n "$$failed" ]; then echo "test-modules: FAILED in:$$failed" >&2; exit 1; fi

.PHONY: vet
vet: ## go vet every module.
	@$(call banner,go vet work)
	$(GO) vet work

# testdata/ is skipped: it may hold deliberately unformatted Go (golden files).
# A module nested in another's folder (toolrun/httpexec) is found twice: sort -u.
.PHONY: fmt-check
fmt-check: ## Fail when gofmt would change a file.
	@$(call banner,gofmt -l)
	@out=$$(find $(MODULES) -name '*.go' -not -path '*/testdata/*' | sort -u | xargs gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt would change (run make fmt):"; echo "$$out"; exit 1; fi

.PHONY: fmt
fmt: $(GOLANGCI_LINT) ## Format every module (gofmt + goimports grouping).
	@for m in $(MODULES); do \
	  (cd "$$m" && $(GOLANGCI_LINT) fmt --config $(CURDIR)/.golangci.yml ./...); \
	done

# --allow-serial-runners: wait for another golangci-lint on this machine (it
# locks its cache) instead of failing.
.PHONY: lint
lint: $(GOLANGCI_LINT) ## golangci-lint (pinned, installed into ./bin) in each module.
	@$(call banner,golangci-lint $(GOLANGCI_LINT_VERSION) config verify)
	@$(GOLANGCI_LINT) config verify --config $(CURDIR)/.golangci.yml
	@failed=; \
	for m in $(MODULES); do \
	  $(call banner,golangci-lint $$m); \
	  (cd "$$m" && $(GOLANGCI_LINT) run --allow-serial-runners --config $(CURDIR)/.golangci.yml ./...) || failed="$$failed $$m"; \
	done; \
	if [ -n "$$failed" ]; then echo "lint: FAILED in:$$failed" >&2; exit 1; fi

.PHONY: lint-config
lint-config: $(GOLANGCI_LINT) ## Validate .golangci.yml against the linter's schema.
	$(GOLANGCI_LINT) config verify --config $(CURDIR)/.golangci.yml

# Installed under a versioned name, so bumping GOLANGCI_LINT_VERSION
# reinstalls; `go install pkg@version` ignores go.work and the modules.
$(GOLANGCI_LINT):
	@$(call banner,installing golangci-lint $(GOLANGCI_LINT_VERSION) into ./bin (first run only; a few minutes))
	@mkdir -p $(BIN)/.install
	GOBIN=$(BIN)/.install $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	@mv $(BIN)/.install/golangci-lint $@

$(GOVULNCHECK):
	@mkdir -p $(BIN)/.install
	GOBIN=$(BIN)/.install $(GO) install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)
	@mv $(BIN)/.install/govulncheck $@

.PHONY: vulncheck
vulncheck: $(GOVULNCHECK) ## govulncheck each module (needs the vulnerability database: CI only).
	@failed=; \
	for m in $(MODULES); do \
	  $(call banner,govulncheck $$m); \
	  (cd "$$m" && $(GOVULNCHECK) ./...) || failed="$$failed $$m"; \
	done; \
	if [ -n "$$failed" ]; then echo "vulncheck: FAILED in:$$failed" >&2; exit 1; fi

.PHONY: workspace-check
workspace-check: ## versions.yaml, go.work, folders and go.mod files agree.
	@$(call banner,workspace-check)
	@bash scripts/workspace-check.sh

.PHONY: dag-check
dag-check: ## README.md's module graph, the go.mod files and the depguard rules agree.
	@$(call banner,dag-check)
	@bash scripts/dag-check.sh

# A throw-away program importing only toolrun (GOWORK=off, replace lines to
# this checkout): no grpc-go, protobuf or kin-openapi in its module graph,
# and golang.org/x/oauth2 only through the MCP go-sdk.
.PHONY: deps-check
deps-check: ## A program importing only toolrun gets none of the integrations' dependencies.
	@$(call banner,deps-check)
	@bash scripts/deps-check.sh

.PHONY: test-scripts
test-scripts: ## Every scripts/*_test.sh (release.sh's too) + shellcheck when it is installed.
	@for t in scripts/*_test.sh; do \
	  $(call banner,$$t); bash "$$t" || exit 1; \
	done
	@if command -v shellcheck >/dev/null; then \
	  $(call banner,shellcheck); shellcheck -x scripts/*.sh .ci/run && echo "shellcheck: ok"; \
	else echo "(shellcheck not installed: skipped)"; fi

.PHONY: bench
bench: ## Benchmarks (BENCH, BENCHTIME, BENCHCOUNT); pipe to a file for benchstat.
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -benchmem work

.PHONY: bench-smoke
bench-smoke: ## Every benchmark once, to prove it runs.
	@$(call banner,bench-smoke)
	$(GO) test -run='^$$' -bench=. -benchtime=1x work

# `go test -fuzz` takes one target of one package per run: scripts/fuzz.sh
# finds the targets in the test files and runs them one by one. The seed
# corpora already run as tests; this fuzzes a subset (the log says which
# targets and why), and the scheduled CI workflow runs `make fuzz-all`.
FUZZ_ENV = GO='$(GO)' FUZZTIME='$(FUZZTIME)' FUZZMINIMIZE='$(FUZZMINIMIZE)' \
	FUZZ_SLICES='$(FUZZ_SLICES)' FUZZ_SLICE='$(FUZZ_SLICE)' FUZZ_BASE='$(FUZZ_BASE)'

.PHONY: fuzz-smoke
fuzz-smoke: ## Fuzz for FUZZTIME each the targets of changed packages + the date's slice (FUZZ_ALL=1: all).
	@$(call banner,fuzz-smoke ($(FUZZTIME) per target))
	@$(FUZZ_ENV) FUZZ_ALL='$(FUZZ_ALL)' bash scripts/fuzz.sh

.PHONY: fuzz-all
fuzz-all: ## Fuzz every Fuzz target of every module for FUZZTIME each (the scheduled CI run).
	@$(call banner,fuzz-all ($(FUZZTIME) per target))
	@$(FUZZ_ENV) FUZZ_ALL=1 bash scripts/fuzz.sh

.PHONY: fuzz-list
fuzz-list: ## Print the targets fuzz-smoke would fuzz, and why, without fuzzing.
	@$(FUZZ_ENV) FUZZ_ALL='$(FUZZ_ALL)' bash scripts/fuzz.sh --list

.PHONY: cover
cover: e2e-deps ## Coverage of every module into $(COVERPROFILE) (+ .html).
	@$(call banner,cover)
	$(GO) test -covermode=atomic -coverprofile=$(COVERPROFILE) work
	$(GO) tool cover -html=$(COVERPROFILE) -o $(COVERPROFILE:.out=.html)
	@$(GO) tool cover -func=$(COVERPROFILE) | tail -n 1

.PHONY: release-check
release-check: ## A dry run of releasing every module (test-scripts runs the release script's own test).
	@$(call banner,scripts/release.sh --all $(RELEASE_CHECK_VERSION) (dry run))
	@bash scripts/release.sh --allow-dirty --all $(RELEASE_CHECK_VERSION)

# About 60 to 75 s on two busy cores once the earlier steps of check have
# compiled the third-party packages (the test shares the build and module
# caches); the repository's packages are compiled again from the release.
# It releases HEAD, the last commit: uncommitted changes are not in it.
# RELEASE_E2E_REV=<commit> releases another commit with its own release.sh.
.PHONY: release-e2e
release-e2e: ## Release HEAD in a throw-away clone and install it as users do (go install @V, --version, pinned modules).
	@$(call banner,scripts/release-e2e.sh)
	@RELEASE_E2E_REV='$(RELEASE_E2E_REV)' bash scripts/release-e2e.sh

# Built first, then run with exec, so that the shell leaves and Ctrl-C
# reaches metatools alone: it stops cleanly and exits 0, and make reports
# no error. `go run` would hide a long first build behind silence.
# The sandbox runner of code mode's standard profile, next to metatools
# (where metatools looks for it): a static binary, since bubblewrap binds
# nothing else into the sandbox.
RUNNER_PKG := ./toolruntime/cmd/toolruntime-runner

.PHONY: runner
runner: ## Build the sandbox runner of code mode into bin/ (toolruntime-runner).
	@CGO_ENABLED=0 $(GO) build -o $(BIN)/toolruntime-runner $(RUNNER_PKG)

# The opt-in test against a real kube-apiserver and etcd (not part of
# check): scripts/kube-binaries.sh builds them once from the Go module
# proxy into ./bin (the API server takes the better part of an hour on two
# busy cores), and the test starts them on loopback.
.PHONY: e2e-kubernetes
e2e-kubernetes: ## Test the Kubernetes backend and manifests against a real API server (builds it once; slow).
	@$(call banner,kube-apiserver and etcd)
	@bins=$$(bash scripts/kube-binaries.sh $(BIN)); \
	apiserver=$$(sed -n 1p <<<"$$bins"); etcd=$$(sed -n 2p <<<"$$bins"); \
	cd toolruntime/kubernetes && METATOOLS_KUBE_APISERVER=$$apiserver METATOOLS_ETCD=$$etcd \
		$(GO) test -race -count=1 -tags e2e_kubernetes -v -run TestAgainstAPIServer ./e2e/

# The opt-in test of the traces against a real Jaeger (v2, an OpenTelemetry
# Collector distribution; not part of check): scripts/jaeger-binary.sh
# builds it once from the Go module proxy into ./bin (about 7 minutes on two
# cores), and the test starts it on loopback and reads the trace back from
# its query API.
.PHONY: e2e-jaeger
e2e-jaeger: e2e-deps ## Test the traces against a real Jaeger (builds it once; a few minutes).
	@$(call banner,jaeger)
	@jaeger=$$(bash scripts/jaeger-binary.sh $(BIN)); \
	cd toolserver && METATOOLS_JAEGER=$$jaeger \
		$(GO) test -race -count=1 -tags e2e_jaeger -v -run TestTracesReachJaeger ./cmd/metatools/

.PHONY: run
run: ## The main job: build metatools and serve its built-in catalogue at http://127.0.0.1:8080/mcp (Ctrl-C stops it).
	@echo "building metatools into $(RUN_BIN) (the first build downloads and compiles the dependencies: it can take minutes)..."
	@$(GO) build -o $(RUN_BIN) $(RUN_PKG)
	@$(MAKE) runner runner-wasm
	@echo "running: metatools $(ARGS) (Ctrl-C to stop)"
	@exec $(RUN_BIN) $(ARGS)

.PHONY: tidy
tidy: ## go mod tidy in each module (GOWORK=off, as the module is published).
	@for m in $(MODULES); do (cd "$$m" && echo "tidy $$m" && GOWORK=off $(GO) mod tidy); done

.PHONY: clean
clean: ## Remove ./bin and coverage files.
	rm -rf $(BIN) $(COVERPROFILE) $(COVERPROFILE:.out=.html)
