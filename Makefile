# kafkactl-audit — `make run` then `make test`. Each target creates the virtualenv when missing.
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.stamp-setup
export PYSPARK_PYTHON := $(abspath $(BIN)/python)
export PYSPARK_DRIVER_PYTHON := $(abspath $(BIN)/python)

##@ Getting started
help: ## Show this help
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_-]+:.*?##/ { printf "  \033[36m%-14s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

setup: $(STAMP) ## Create .venv with the package (editable), local Spark + Delta's jars, a JVM class archive, dev tools
	@$(BIN)/python -m jobs.runtime.spark_jars delta $(if $(KAFKACTL_REQUIRE_DELTA_SPARK),--required)
	@$(BIN)/python -m jobs.runtime.class_archive

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade 'pip>=25.1'
	$(BIN)/python -m pip install --quiet -e '.[local]' --group dev
	touch $(STAMP)

##@ Running
run: setup ## Run the whole pipeline on the embedded default (conf/local.yaml)
	$(BIN)/kafkactl-audit run

bench: setup ## Print throughput figures (no assertions); AGAINST=<git rev> runs that version beside
	$(BIN)/python scripts/bench.py $(if $(AGAINST),--against $(AGAINST))

##@ Quality
# make test's pytest processes, each with its own Spark session; one file stays in one process
# (its module fixtures are built once). 2 on 2 cores: 20.3 min against 25.5-27.6 min for one.
TEST_WORKERS ?= 2

test: setup ## Run the test suite (every lane but the live clusters); TEST_WORKERS=1 runs it in one process
	$(BIN)/pytest -q -m "not live" -n $(TEST_WORKERS) --dist loadfile

test-unit: setup ## Lane 1, no JVM: the core, the adapters and the fuzz properties (a minute)
	$(BIN)/pytest -q tests/core tests/adapters tests/fuzz

test-spark: setup ## Lane 2: the Spark jobs on a local session
	$(BIN)/pytest -q tests/spark

test-e2e: setup ## Lane 3: whole runs (CLI, spark-submit, both engines), a real ZooKeeper, real Kafka captures
	$(BIN)/pytest -q -m "not live" tests/e2e tests/zk tests/real_kafka

test-live: setup ## The slow lane: tests that start real clusters (Spark standalone, Kafka)
	$(BIN)/pytest -q -m live tests || { rc=$$?; [ $$rc -eq 5 ] && echo "no live tests"; exit $$((rc == 5 ? 0 : rc)); }

FUZZ_EXAMPLES ?= 10000
FUZZ_SECONDS ?= 60
fuzz: setup ## Fuzz readers, decoders, config: FUZZ_EXAMPLES per property, then atheris FUZZ_SECONDS per target
	KAFKACTL_FUZZ=fuzz KAFKACTL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -q -p no:cacheprovider \
		--hypothesis-show-statistics tests/fuzz
	@set -o pipefail; \
	if ! $(BIN)/python -c "import atheris" 2>/dev/null; then echo "atheris not installed: hypothesis only"; exit 0; fi; \
	for target in $$($(BIN)/python -m tests.fuzz.atheris_main --list 2>/dev/null); do \
		echo "atheris $$target:"; \
		$(BIN)/python -m tests.fuzz.atheris_main $$target -max_total_time=$(FUZZ_SECONDS) 2>&1 | tail -n 4 || exit 1; \
	done

lint: setup ## ruff + mypy --strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy kafkactl_core schemas jobs kafkactl_lab

fmt: setup ## Format and fix what ruff can
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

golden-update: setup ## Regenerate tests/golden (report files) from samples/demo; review the diff
	$(BIN)/python scripts/update_golden.py

##@ Packaging
build: setup ## Build the wheel into dist/
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps -w dist .
	@ls -1 dist/*.whl

clean: ## Remove the virtualenv, caches, build output and the local lakehouse
	rm -rf $(VENV) dist build .pytest_cache .mypy_cache .ruff_cache lakehouse spark-warehouse

.PHONY: help setup run bench test test-unit test-spark test-e2e test-live fuzz lint fmt golden-update build clean
