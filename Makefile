# benchcamp: `make run` runs a campaign on the local lab, `make test` runs the tests.
# Both install what they need first (uv, the Python env, Hadoop jars, openssh-server).
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
BENCHCAMP := $(VENV)/bin/benchcamp
STUDY ?= hibench_dse
PYTEST_ARGS ?=
# Let Python cache bytecode in .venv: without it every process recompiles Airflow, GX and dbt.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help setup browser run test test-lane test-all test-under-load ci-lane test-unit lint docs up down status lab-up lab-down lab-status cluster-up cluster-down cluster-status benchmark manifest clean

help:
	@echo "make run      the $(STUDY) campaign ($(LADDER) ladder), then a quick YCSB one, through Airflow on the local lab"
	@echo "make test     tier 1: lint, types, docs, JUnit, the unit tier and one path through every layer on the lab"
	@echo "make test-lane LANE=<lane>    one tier-2 lane (tests/lanes.toml: cluster, bigbench, stack, stores, studies)"
	@echo "make test-all    tier 1 and every lane;  make ci-lane    the lane .ci/run picks for this commit, and why"
	@echo "make test-unit    the unit tier alone (no service)"
	@echo "make up | down | status    Airflow (UI on 127.0.0.1:8080, login required) and the lab"
	@echo "make lab-up | lab-down | lab-status    the local lab on 127.0.0.1"
	@echo "make cluster-up | cluster-down | cluster-status    the five-host lab cluster (network namespaces, root)"
	@echo "make benchmark    measure the HiveBench generator, the harness and the import (benchmarks/)"
	@echo "make docs    the documentation site into site/ (open site/index.html)"

$(VENV)/.synced: pyproject.toml uv.lock
	@command -v uv >/dev/null || python3 -m pip install --quiet uv
	uv sync --frozen --python 3.11
	$(PY) -m compileall -q -j 2 $(VENV)/lib > /dev/null || true
	@touch $@

setup: $(VENV)/.synced
	$(PY) -c "from benchcamp.ops.lab import ensure_installed; ensure_installed()"

# `make run`: the HiBench study at the tiny ladder (WordCount, DFSIO write and read, Hive
# aggregation at three sizes, two repetitions, the Hive cells after their warm-up), then a quick
# YCSB look on the same lab (workload A on both stores, one unthrottled and one offered-load
# condition, two repetitions after a warm-up).
# The lab starts once and stops at the end, whatever happened. Exit codes are benchcamp's (README,
# "Exit codes and faults"): the YCSB look runs after the first campaign unless that one measured
# nothing, was stopped or refused (a flagged or partial campaign still goes on); make run exits
# with the first campaign's code, else the YCSB one's. `make run LADDER=small` runs the
# fuller ladder (the spec's three repetitions); `make run STUDY=ycsb_hbase_cassandra` one study;
# `make run STUDY=mapreduce_ssd_hdd` the graph study at tiny on the lab's disk and on a tmpfs;
# `make run STUDY=hdfs_interconnects` the HDFS micro-benchmarks at the lab's three link levels.
LADDER ?= tiny
# one repetition per cell for mapreduce_ssd_hdd (each is a reformat and a chain of YARN jobs) and
# bigbench_containers (a run is the load, the 30 queries and the throughput streams)
REPETITIONS ?= $(if $(filter tiny,$(LADDER)),$(if $(filter mapreduce_ssd_hdd bigbench_containers,$(STUDY)),1,2),)
comma := ,
# The first look asks what the lab can decide in its minutes: TestDFSIO write against read at the
# tiny ladder's largest size (0.022 GB), one warm-up and two repetitions a cell, then adaptive ones
# up to four. Its claim (write slower than read) then reaches a verdict. The scaling claims need
# two sizes and more repetitions than the budget holds: at 0.012 and 0.022 GB, four cells used the
# whole 3.5-minute budget at n = 2 and decided nothing (2026-12-03); WordCount's ±5 % band and
# Hive's 1-second cells need tens of repetitions at the lab's noise, which the answer block says
# when they run (docs/getting-started.md). WORKLOADS= runs every workload at tiny, at its three
# sizes; WORKLOADS=wordcount,hive_aggregation those. With ENV=, the tiny look is WordCount,
# TestDFSIO and the Hive aggregation at every size (hive_join takes about 2 minutes).
WORKLOADS ?= $(if $(filter tiny,$(LADDER)),$(if $(ENV),wordcount$(comma)dfsio_write$(comma)dfsio_read$(comma)hive_aggregation,dfsio_write$(comma)dfsio_read),)
# one warm-up a cell: in the lab's first minutes a DFSIO write took 14-15 s where later ones took
# 11.3-11.8 s (2026-12-03), which alone put a cell past the study's σ gate
FIRST_LOOK_WARMUPS = 1
FIRST_LOOK_CELLS = dfsio_write|data_size_gb=0.022,dfsio_read|data_size_gb=0.022
# mapreduce_ssd_hdd compares the lab's two storage devices, hdfs_interconnects its three link
# levels, bigbench_containers bare vs container: one campaign on each
# ENV=<environment> runs the study on that one environment of its spec (e.g. ENV=lab_cluster: the
# five-host lab cluster, started for it and stopped after, with its stores for the YCSB study;
# the YCSB look is left out), then prints each cell's time beside the same cell's latest on the study's baseline
# environment (`report --beside baseline`); CELLS= runs only those cells
# Measure until the figures can decide, within a budget: after the two planned repetitions, a
# cell gets more (up to MAX_REPETITIONS) until the 95 % CI of its mean is within TARGET_CI_PCT %
# of it, while what they take fits in the campaign's BUDGET (`benchcamp run --budget`); the
# answer block names the cells the cap or the budget left short. TARGET_CI_PCT= runs the two alone.
TARGET_CI_PCT ?= $(if $(filter tiny,$(LADDER)),$(if $(filter hibench_dse ycsb_hbase_cassandra,$(STUDY)),10,),)
MAX_REPETITIONS ?= 4
BUDGET ?= 3.5m
# the DAG has two adaptive rounds per target, so a cap at most two above the planned repetitions
YCSB_REPETITIONS ?= 3
YCSB_MAX_REPETITIONS ?= 5
YCSB_BUDGET ?= 3m
ADAPTIVE = $(if $(TARGET_CI_PCT),--target-ci-pct $(TARGET_CI_PCT) --max-repetitions $(MAX_REPETITIONS) --budget $(1),)
ENV ?=
RUN_ARGS ?= $(if $(ENV),--environment $(ENV),$(if $(filter mapreduce_ssd_hdd hdfs_interconnects bigbench_containers,$(STUDY)),--environment all,))
# The YCSB look: workload A on both stores at one offered load (500 ops/s, 16 threads), where
# the stores' latencies part and their throughputs can be shown the same within ±10 %; its
# unthrottled one-thread cells (add them with YCSB_CELLS=) spread 20-45 % at 1,000 operations.
YCSB_CELLS ?= ycsb_a|store=cassandra|target_ops=500|threads=16,ycsb_a|store=hbase|target_ops=500|threads=16
YCSB_RUN ?= --ladder tiny --repetitions $(YCSB_REPETITIONS) --cells '$(YCSB_CELLS)' $(if $(TARGET_CI_PCT),--target-ci-pct $(TARGET_CI_PCT) --max-repetitions $(YCSB_MAX_REPETITIONS) --budget $(YCSB_BUDGET))
# `make run STUDY=ycsb_hbase_cassandra ENV=lab_cluster` (or a ring of yours): a tiny cluster
# campaign on both stores, two clients of 8 threads (on the environment's ycsb_client_hosts) at
# two offered loads
YCSB_CLUSTER_CELLS ?= ycsb_a|clients=2|store=cassandra|target_ops=250|threads=8,ycsb_a|clients=2|store=cassandra|target_ops=500|threads=8,ycsb_a|clients=2|store=hbase|target_ops=250|threads=8,ycsb_a|clients=2|store=hbase|target_ops=500|threads=8
CELLS ?= $(if $(and $(ENV),$(filter ycsb_hbase_cassandra,$(STUDY))),$(YCSB_CLUSTER_CELLS),$(if $(and $(filter file,$(origin WORKLOADS)),$(filter tiny,$(LADDER)),$(filter hibench_dse,$(STUDY)),$(if $(ENV),,yes)),$(FIRST_LOOK_CELLS),))
run: setup
	@started=$$(date +%s); summary=$$(mktemp); \
	trap 'echo; $(BENCHCAMP) lab down; $(if $(filter lab_cluster,$(ENV)),$(BENCHCAMP) lab cluster down;) echo; sed "s/^/make run: /" $$summary; rm -f $$summary; echo "make run took $$(( ($$(date +%s) - started) / 60 )) min $$(( ($$(date +%s) - started) % 60 )) s"' EXIT; \
	rc=0; $(BENCHCAMP) run $(STUDY) --summary-file $$summary --ladder $(LADDER) $(if $(REPETITIONS),--repetitions $(REPETITIONS)) \
	  $(if $(and $(WORKLOADS),$(filter hibench_dse,$(STUDY))),--workloads $(WORKLOADS)) $(if $(CELLS),--cells '$(CELLS)') $(if $(filter $(FIRST_LOOK_CELLS),$(CELLS)),--warmups $(FIRST_LOOK_WARMUPS)) \
	  $(if $(ENV),,$(call ADAPTIVE,$(BUDGET))) --keep-lab $(RUN_ARGS) || rc=$$?; \
	if [ "$(STUDY)" = hibench_dse ] && [ -z "$(ENV)" ] && { [ $$rc = 0 ] || [ $$rc = 3 ] || [ $$rc = 4 ]; }; then \
	  $(BENCHCAMP) run ycsb_hbase_cassandra $(YCSB_RUN) --summary-file $$summary --keep-lab || { code=$$?; [ $$rc != 0 ] || rc=$$code; }; fi; \
	if [ -n "$(ENV)" ]; then echo; $(BENCHCAMP) report $(STUDY) --beside baseline || true; fi; \
	exit $$rc

# The browser test drives Debian's Chromium through Playwright (no browser download).
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] || { echo "chromium missing: sudo apt-get install -y chromium"; exit 1; }; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

# Tier 1 and the tier-2 lanes are declared in tests/lanes.toml and run by tests/run-suite
# (docs/development/tests.md); their times are in docs/performance.md.
test: setup browser
	VENV=$(VENV) PYTEST_ARGS="$(PYTEST_ARGS)" $(PY) tests/run-suite tier1

# an unknown lane, or one this machine cannot run (root, network namespaces), is refused before
# anything installs; python3 (3.11, for tomllib) is the machine's
LANE ?=
test-lane:
	@python3 tests/run-suite --check $(LANE)
	@$(MAKE) --no-print-directory setup browser
	VENV=$(VENV) PYTEST_ARGS="$(PYTEST_ARGS)" $(PY) tests/run-suite $(LANE)

test-all: setup browser
	VENV=$(VENV) PYTEST_ARGS="$(PYTEST_ARGS)" $(PY) tests/run-suite all

# Tier 1 beside a CPU hog on every core (Debian's stress-ng at the same priority): the check that
# its waits are on conditions a loaded machine cannot outrun (docs/development/tests.md). The unit
# lane runs at the hog's priority too: at its usual nice 10 the hog leaves it a tenth of a core.
test-under-load: setup browser
	@command -v stress-ng >/dev/null || { [ "$$(id -u)" = 0 ] || { echo "stress-ng missing: sudo apt-get install -y stress-ng"; exit 1; }; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends stress-ng; }
	@stress-ng --cpu $$(nproc) --quiet & hog=$$!; trap 'kill $$hog 2>/dev/null' EXIT; \
	  UNIT_NICE=0 VENV=$(VENV) PYTEST_ARGS="$(PYTEST_ARGS)" $(PY) tests/run-suite tier1

ci-lane: $(VENV)/.synced
	@$(PY) tests/run-suite choose >/dev/null

# The unit tier alone (no service), in two workers as `make test` runs it.
test-unit: $(VENV)/.synced
	VENV=$(VENV) PYTEST_ARGS="$(PYTEST_ARGS)" $(PY) tests/run-suite unit

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check include dags plugins tests benchmarks
	$(VENV)/bin/ruff format --check include dags plugins tests benchmarks
	$(VENV)/bin/mypy include benchmarks

# The documentation site (mkdocs.yml, docs/): --strict, so a broken link, a page missing from the
# nav or an unknown anchor fails; the reference pages are generated from the code as it builds.
# NO_MKDOCS_2_WARNING quiets Material's banner about MkDocs 2, which says nothing of this site.
docs: $(VENV)/.synced
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

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
cluster-up: setup
	$(BENCHCAMP) lab cluster up
cluster-down: $(VENV)/.synced
	$(BENCHCAMP) lab cluster down
cluster-status: $(VENV)/.synced
	$(BENCHCAMP) lab cluster status

benchmark: setup
	$(PY) benchmarks/hivebench_datagen.py
	$(PY) benchmarks/harness.py
	$(PY) benchmarks/ycsb_overhead.py
	$(PY) benchmarks/import_vs_pandas.py
	$(PY) benchmarks/client_polling.py
	$(PY) benchmarks/fixed_costs.py

manifest: $(VENV)/.synced
	$(PY) -c "from benchcamp.pipeline.transform import generate_manifest; generate_manifest()"

clean:
	rm -rf results warehouse .airflow dbt_project/target dbt_project/logs site
