# Everyday targets; `make help` lists them. Benchmarks need root (sudo).
GO ?= go
XDPMICRO ?= $(GO) run ./cmd/xdpmicro
BEFORE ?= v3
AFTER ?= v4

.PHONY: help build test generate bench compare bench-bmf report ci

help:
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build ./xdpmicro
	$(GO) build -o xdpmicro ./cmd/xdpmicro

test: ## run the tests (as root, the kernel tests load and run the programs)
	$(GO) test -p 1 ./...

generate: ## rebuild the bundled BPF objects from their C sources (needs clang, llvm, libbpf-dev)
	$(GO) generate ./bpf

bench: ## the bundled default, every class
	$(XDPMICRO) bench

compare: ## BEFORE against AFTER, interleaved; exit 3 on a regression
	$(XDPMICRO) bench --before $(BEFORE) --after $(AFTER) --fail-on-regression

bench-bmf: ## results.json in Bencher Metric Format
	$(XDPMICRO) bench --format bmf --output results.json

report: ## an HTML page with plots in xdpmicro-report/, for BEFORE against AFTER
	$(XDPMICRO) bench --before $(BEFORE) --after $(AFTER) --report xdpmicro-report --quiet

ci: ## what CI runs
	bash .ci/run
