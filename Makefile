# benchcamp: `make run` runs a campaign on the local lab, `make test` runs the tests.
# Both install what they need first (uv, the Python env, Hadoop jars, openssh-server).
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
BENCHCAMP := $(VENV)/bin/benchcamp
STUDY ?= hibench_dse
LADDER ?= small
PYTEST_ARGS ?=
# Let Python cache bytecode in .venv: without it every process recompiles Airflow, GX and dbt.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help setup browser run test test-unit lint up down status lab-up lab-down lab-status benchmark manifest clean

help:
	@echo "make run      run the $(STUDY) campaign ($(LADDER) ladder), then a small YCSB one, through Airflow on the local lab"
	@echo "make test     lint, type-check and run every test (unit, DAG integrity, golden, integration)"
	@echo "make up | down | status    Airflow (UI on 127.0.0.1:8080, login required) and the lab"
	@echo "make lab-up | lab-down | lab-status    the local lab on 127.0.0.1"
	@echo "make benchmark    measure the HiveBench generator, the harness and the import (benchmarks/)"

$(VENV)/.synced: pyproject.toml uv.lock
	@command -v uv >/dev/null || python3 -m pip install --quiet uv
	uv sync --frozen --python 3.11
	$(PY) -m compileall -q -j 2 $(VENV)/lib > /dev/null || true
	@touch $@

setup: $(VENV)/.synced
	$(PY) -c "from benchcamp.lab import ensure_installed; ensure_installed()"

# The default `make run` also runs a small YCSB campaign (study 3: both stores, workloads A and C,
# the tiny ladder's operation counts and offered-load sweep); `make run STUDY=x` runs x alone.
YCSB_RUN ?= --ladder tiny --workloads ycsb_a,ycsb_c --repetitions 2
run: setup
	$(BENCHCAMP) run $(STUDY) --ladder $(LADDER)
ifeq ($(STUDY),hibench_dse)
	$(BENCHCAMP) run ycsb_hbase_cassandra $(YCSB_RUN)
endif

# The browser test drives Debian's Chromium through Playwright (no browser download).
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] || { echo "chromium missing: sudo apt-get install -y chromium"; exit 1; }; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

test: setup browser
	$(VENV)/bin/ruff check include dags plugins tests benchmarks
	$(VENV)/bin/mypy include
	mvn -q -B -f lab/ycsb/pom.xml test   # the YCSB bindings' own JUnit tests
	$(VENV)/bin/pytest $(PYTEST_ARGS)

test-unit: $(VENV)/.synced
	$(VENV)/bin/pytest -m "not integration" $(PYTEST_ARGS)

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check include dags plugins tests benchmarks
	$(VENV)/bin/ruff format --check include dags plugins tests benchmarks
	$(VENV)/bin/mypy include

up: setup
	$(BENCHCAMP) up
down: $(VENV)/.synced
	$(BENCHCAMP) down
status: $(VENV)/.synced
	$(BENCHCAMP) status

lab-up: setup
	$(BENCHCAMP) lab up
lab-down: $(VENV)/.synced
	$(BENCHCAMP) lab down
lab-status: $(VENV)/.synced
	$(BENCHCAMP) lab status

benchmark: setup
	$(PY) benchmarks/hivebench_datagen.py
	$(PY) benchmarks/harness.py
	$(PY) benchmarks/ycsb_overhead.py
	$(PY) benchmarks/import_vs_pandas.py

manifest: $(VENV)/.synced
	$(PY) -c "from benchcamp.transform import generate_manifest; generate_manifest()"

clean:
	rm -rf results warehouse .airflow dbt_project/target dbt_project/logs
