"""The whole HiBench DAG at `tiny` scale through Airflow against the real lab.

sshd, HDFS (NameNode + DataNode), MapReduce in local mode and HiveServer2: WordCount,
TestDFSIO write/read and HiveBench aggregation/join, two repetitions per cell.

Runs `benchcamp run` (which runs `airflow dags test`) in a private Airflow home,
results directory and warehouse, then asserts the marts and the raw archive. The studies lane
holds what costs whole extra campaigns: one onto a closed port (test_hibench_unreachable.py; tier 1
has the SSH layer's refusal of a closed port in test_lab_and_ssh.py), and one stopped by SIGTERM
and resumed while a second is refused on the busy target (test_hibench_interrupted.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.core.records import cell_key
from benchcamp.core.spec import load_spec
from benchcamp.ops import lab
from benchcamp.pipeline import archive, run_order
from benchcamp.presentation import report

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
RUN_ID = "it_tiny"
REPETITIONS = 2
WORKLOADS = ("wordcount", "dfsio_write", "dfsio_read", "hive_aggregation", "hive_join")
SIZES = (0.012, 0.017)  # of the tiny ladder's 0.012, 0.017, 0.022: CI's budget
CELLS = [
    cell_key(cell.workload, cell.params)
    for cell in load_spec("hibench_dse").cells("tiny")
    if cell.params["data_size_gb"] in SIZES
]


@pytest.fixture(scope="module")
def campaign(
    tmp_path_factory: pytest.TempPathFactory,
    shared_lab: Callable[[], lab.LabStatus],
    campaign_measured: Callable[..., None],
) -> dict[str, Path]:
    shared_lab()
    tmp = tmp_path_factory.mktemp("campaign")
    paths = {
        "results": tmp / "results",
        "warehouse": tmp / "warehouse" / "benchcamp.duckdb",
        "airflow": tmp / "airflow",
    }
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(paths["warehouse"]),
        "AIRFLOW_HOME": str(paths["airflow"]),
    }
    command = [
        str(BIN / "benchcamp"), "run", "hibench_dse", "--ladder", "tiny", "--repetitions", str(REPETITIONS),
        "--campaign", RUN_ID, "--cells", ",".join(CELLS), "--keep-lab",
        "--summary-file", str(tmp / "summary.txt"),
    ]  # fmt: skip
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    (tmp / "run.log").write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    campaign_measured(result, tmp / "run.log")
    paths["stdout"] = tmp / "run.log"
    paths["summary"] = tmp / "summary.txt"
    return paths


def _why_failed(campaign: dict[str, Path], row: dict[str, object]) -> str:
    """What CI should show when a repetition failed: the run log's error lines (tail)."""
    lines = campaign["stdout"].read_text().splitlines()
    errors = [line for line in lines if "Error" in line or "error" in line or "FAILED" in line]
    return f"{row['workload']} {row['data_size_gb']}: n={row['n']} n_failed={row['n_failed']}\n" + "\n".join(
        errors[-25:]
    )


def test_scaling_mart_has_every_cell_with_every_repetition_ok(campaign: dict[str, Path]) -> None:
    tables = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)
    rows = tables["scaling"]
    assert {(row["workload"], row["data_size_gb"]) for row in rows} == {
        (workload, size) for workload in WORKLOADS for size in SIZES
    }
    fingerprints = {row["fingerprint"] for row in rows}
    assert len(fingerprints) == 1 and "unknown" not in fingerprints
    for row in rows:
        assert row["n"] == REPETITIONS and row["n_failed"] == 0, _why_failed(campaign, row)
        assert row["mean_s"] > 0 and row["stddev_s"] >= 0
        assert row["throughput_mb_s"] == pytest.approx(row["data_size_gb"] * 1024 / row["mean_s"], rel=1e-6)
        if row["data_size_gb"] == 0.012:
            assert row["data_delta_pct"] is None and row["time_delta_pct"] is None
        else:
            expected = {0.017: 41.67}[row["data_size_gb"]]
            assert round(row["data_delta_pct"], 2) == expected
            assert row["linear_projection_s"] > 0


def test_dfsio_read_write_mart(campaign: dict[str, Path]) -> None:
    rows = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)["dfsio_read_write"]
    assert [row["data_size_gb"] for row in sorted(rows, key=lambda r: r["data_size_gb"])] == list(SIZES)
    for row in rows:
        assert row["read_s"] > 0 and row["write_s"] > 0
        assert row["read_write_delta_pct"] == pytest.approx(
            (row["write_s"] - row["read_s"]) / row["read_s"] * 100
        )
        assert row["write_throughput_mb_s"] > 0 and row["read_throughput_mb_s"] > 0
        # The average I/O rate is undefined (not recorded) when a map reads in 0 ms; otherwise positive.
        assert row["read_avg_io_rate_mb_s"] is None or row["read_avg_io_rate_mb_s"] > 0


def test_the_campaign_is_scored_against_the_papers_claims(campaign: dict[str, Path]) -> None:
    """The DAG's load wrote the study's claims (claims.yaml) and dbt scored this lab campaign
    against each: a verdict with its evidence per claim (which verdict depends on the lab: at
    these sizes JVM start-up dominates and the times grow far less than linearly)."""
    rows = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)["scorecard"]
    comparisons = {
        "wordcount_scales_linearly": 1,  # 0.017 vs 0.012
        "hive_scales_linearly": 2,  # aggregation and join
        "dfsio_above_linear_projection": 2,  # read and write
        "dfsio_write_slower_than_read": 2,  # per size
        "dfsio_write_read_gap_narrows": 1,  # the ratio at 0.017 vs at 0.012
    }
    assert {row["claim_id"]: row["comparisons"] for row in rows} == comparisons
    for row in rows:
        assert row["environment"] == "local_lab"
        assert row["verdict"] in ("reproduced", "contradicted", "inconclusive"), row
        assert row["estimate"] > 0 and row["evidence"] and row["method"].startswith("ratio of means")
        if all(int(n) >= 2 for n in row["n_per_side"].split("/")):
            assert row["ci_low"] <= row["estimate"] <= row["ci_high"], row
    assert (
        "Reproduction scorecard on local_lab: the study's published claims" in campaign["stdout"].read_text()
    )


def test_raw_archive_keeps_command_outputs_and_environment(campaign: dict[str, Path]) -> None:
    campaign_dir = campaign["results"] / "hibench_dse" / RUN_ID
    reps = sorted(campaign_dir.glob("*/rep*"))
    # every cell's measured repetitions, and the spec's one warm-up (rep0) for each Hive cell
    warmups = [rep for rep in reps if rep.name == "rep0"]
    assert len(reps) - len(warmups) == len(WORKLOADS) * len(SIZES) * REPETITIONS
    assert sorted(rep.parent.name.split("_data")[0] for rep in warmups) == ["hive_aggregation"] * len(
        SIZES
    ) + ["hive_join"] * len(SIZES)
    for rep in reps:
        execute = rep / "execute" / "try1"
        hive = rep.parent.name.startswith("hive_")
        names = (
            ("statements.sql", "operation.log", "results.json", "meta.json")
            if hive
            else ("command.sh", "wrapper.sh", "stdout.log", "stderr.log", "status", "meta.json")
        )
        for name in names:
            assert (execute / name).exists(), execute / name
        meta = json.loads((execute / "meta.json").read_text())
        assert meta["exit_code"] == 0 and meta["duration_s"] > 0
        clean = (rep / "clean" / "try1" / "stdout.log").read_text()
        assert "clean_verified=yes" in clean and "drop_caches=" in clean
        facts = json.loads((rep / "environment.json").read_text())
        assert facts["facts"]["cpu_cores"] >= 1 and "3.4.2" in facts["facts"]["hadoop_version"]
        if hive:
            assert facts["facts"]["hive_version"] == "4.0.1"
            assert facts["facts"]["effective_settings"]["dfs.replication"] == "1"
            assert (rep / "generate" / "try1" / "stats.json").exists()
        assert len(facts["fingerprint"]) == 16
        records = (rep / "records.jsonl").read_text().splitlines()
        assert any(json.loads(line)["metric"] == "duration_s" for line in records)


def test_report_prints_the_published_columns(campaign: dict[str, Path]) -> None:
    text = campaign["stdout"].read_text()
    for column in ("Time (s)", "σ (s)", "σ (%)", "Data Δ (%)", "Time Δ (%)", "baseline", "+41.67"):
        assert column in text


def test_the_console_showed_each_repetition_as_it_ended(campaign: dict[str, Path]) -> None:
    """Not a terminal (a pipe here): one line per measured repetition, counted against the plan,
    each ok, and one per warm-up (issue 50's progress lines, read from the live archive)."""
    text = campaign["stdout"].read_text()
    planned = len(CELLS) * REPETITIONS
    counted = re.findall(
        rf"^\[local_lab\] (\d+)/{planned} (ok|FAILED)  (\S+) rep (\d+)  \(", text, re.MULTILINE
    )
    assert [int(done) for done, *_ in counted] == list(range(1, planned + 1)), text[-4000:]
    assert {status for _, status, *_ in counted} == {"ok"}, counted
    assert sorted((cell, int(rep)) for *_, cell, rep in counted) == sorted(
        (cell, rep) for cell in CELLS for rep in range(1, REPETITIONS + 1)
    )
    hive = [cell for cell in CELLS if cell.startswith("hive_")]
    assert f"[local_lab] planned: {planned} measured repetition(s), {len(hive)} warm-up(s)" in text, text[
        -4000:
    ]
    assert len(re.findall(r"^\[local_lab\] warm-up \d+/\d+ ok ", text, re.MULTILINE)) == len(hive)


def test_hivebench_rows_carry_processed_data_and_checked_results(campaign: dict[str, Path]) -> None:
    rows = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)["scaling"]
    hive = {
        (row["workload"], row["data_size_gb"]): row for row in rows if row["workload"].startswith("hive_")
    }
    assert len(hive) == 2 * len(SIZES)
    for (workload, size), row in hive.items():
        # uservisits ≈ 155 B/visit × 4,583,333 visits/GB; the join also reads rankings
        assert 0.4 * size < row["processed_gb"] < 1.2 * size, (workload, size, row["processed_gb"])
        assert row["mean_s"] > 0
    for size in SIZES:
        assert hive[("hive_join", size)]["processed_gb"] > hive[("hive_aggregation", size)]["processed_gb"]
    text = campaign["stdout"].read_text()
    assert "Processed (GB)" in text and "hive_join on local_lab" in text


def test_the_campaign_left_the_cluster_clean(campaign: dict[str, Path]) -> None:
    cleanup = campaign["results"] / "hibench_dse" / RUN_ID / "cleanup" / "local_lab"
    assert "cleanup_verified=yes" in (cleanup / "try1" / "stdout.log").read_text()
    preflight = campaign["results"] / "hibench_dse" / RUN_ID / "preflight" / "local_lab" / "try1"
    assert "safemode=off" in (preflight / "stdout.log").read_text()


def test_warmups_ran_first_are_archived_and_in_no_figure(campaign: dict[str, Path]) -> None:
    campaign_dir = campaign["results"] / "hibench_dse" / RUN_ID
    for warmup in campaign_dir.glob("hive_*/rep0"):
        records = [json.loads(line) for line in (warmup / "records.jsonl").read_text().splitlines()]
        assert {record["status"] for record in records} == {"warmup"}
        assert {record["repetition"] for record in records} == {0}
        first = json.loads((warmup / "execute" / "try1" / "meta.json").read_text())["started_at"]
        then = json.loads((warmup.parent / "rep1" / "execute" / "try1" / "meta.json").read_text())[
            "started_at"
        ]
        assert first < then
    rows = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)["scaling"]
    for row in rows:
        hive = row["workload"].startswith("hive_")
        assert (row["n"], row["n_warmup"]) == (REPETITIONS, 1 if hive else 0), row
    assert "warm-ups: 1 per cell" in campaign["stdout"].read_text()


def test_benchcamp_run_kept_the_planned_randomised_order(campaign: dict[str, Path]) -> None:
    """The spec's order is a seeded shuffle; `airflow dags test` runs the ready mapped steps in
    any order, so each repetition waits for its turn (dag_factory.wait_for_turn). The repetitions'
    executes started in the planned order, the warm-ups before them all."""
    campaign_dir = campaign["results"] / "hibench_dse" / RUN_ID
    rows = run_order.load_run_order(campaign_dir)
    assert {row["order"] for row in rows} == {"randomised"}, rows
    assert len(rows) == len(CELLS) * REPETITIONS + sum(cell.startswith("hive_") for cell in CELLS)
    started = {}
    for row in rows:
        rep_dir = archive.repetition_dir(
            "hibench_dse", RUN_ID, row["cell_key"], row["repetition"], campaign["results"]
        )
        meta = json.loads((rep_dir / "execute" / "try1" / "meta.json").read_text())
        started[(row["cell_key"], row["repetition"])] = meta["started_at"]
    planned = [
        (row["cell_key"], row["repetition"]) for row in sorted(rows, key=lambda row: row["planned_position"])
    ]
    ran = sorted(started, key=lambda unit: started[unit])
    assert ran == planned, "\n".join(f"planned {p}  ran {r}" for p, r in zip(planned, ran, strict=True))
    measured = [unit for unit in planned if unit[1] >= 1]
    cell_by_cell = sorted(measured, key=lambda unit: (CELLS.index(unit[0]), unit[1]))
    assert measured != cell_by_cell, "the shuffle left the plan cell by cell: the check would prove nothing"


def test_the_summary_line_says_what_ran_its_exit_its_report_and_its_answer(campaign: dict[str, Path]) -> None:
    """`make run`'s closing lines (`--summary-file`): one per campaign, its answer's first
    sentence the one the printed report's answer block opens with."""
    (line,) = campaign["summary"].read_text().splitlines()
    report_file = campaign["results"] / "hibench_dse" / RUN_ID / "report.txt"
    # the exit status the run printed last (3 when a cell misses its σ gate at two repetitions)
    code = re.findall(r"^exit (\d+): ", campaign["stdout"].read_text(), re.MULTILINE)[-1]
    head = f"hibench_dse on local_lab (campaign {RUN_ID}): exit {code}; report {report_file}; answer: "
    assert line.startswith(head), line
    answer = line.removeprefix(head)
    assert len(answer) > 20 and answer in campaign["stdout"].read_text(), line
