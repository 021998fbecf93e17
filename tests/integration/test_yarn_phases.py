"""WordCount on the lab's YARN through the DAG: per-task phase times from the JobHistory server.

One cell, one repetition (the YARN jobs cost about a minute each on CI's two cores), on the `local_lab_yarn` environment (ResourceManager,
NodeManager and JobHistory server in a loopback-only network namespace): the REST
answers are archived, the phase means become records, and the phase_times mart and
the report show them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.ops import lab
from benchcamp.platforms.jobhistory import load_job_history
from benchcamp.presentation import report

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not lab.yarn_enabled(), reason="the lab's YARN needs root (a network namespace)"),
]
BIN = Path(sys.executable).parent
RUN_ID = "it_yarn"
CELL = "wordcount|data_size_gb=0.012|maps=4|reduces=2"
PHASES = ("phase_map_s", "phase_shuffle_s", "phase_merge_s", "phase_reduce_s", "job_elapsed_s")


@pytest.fixture(scope="module")
def campaign(
    tmp_path_factory: pytest.TempPathFactory,
    shared_lab: Callable[[], lab.LabStatus],
    campaign_measured: Callable[..., None],
) -> dict[str, Path]:
    shared_lab()
    tmp = tmp_path_factory.mktemp("yarn")
    paths = {"results": tmp / "results", "warehouse": tmp / "warehouse" / "benchcamp.duckdb"}
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(paths["warehouse"]),
        "AIRFLOW_HOME": str(tmp / "airflow"),
    }
    result = subprocess.run(
        [
            str(BIN / "benchcamp"),
            "run",
            "hibench_dse",
            "--ladder",
            "tiny",
            "--repetitions",
            "1",
            "--workloads",
            "wordcount",
            "--environment",
            "local_lab_yarn",
            "--cells",
            CELL,
            "--campaign",
            RUN_ID,
            "--keep-lab",
        ],  # fmt: skip
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    (tmp / "run.log").write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    campaign_measured(result, "the output above")
    paths["stdout"] = tmp / "run.log"
    return paths


def test_each_repetition_archives_its_job_history_and_records_the_phases(campaign: dict[str, Path]) -> None:
    cell_dir = campaign["results"] / "hibench_dse" / RUN_ID / "wordcount_data_size_gb=0.012_maps=4_reduces=2"
    for repetition in (1,):
        rep = cell_dir / f"rep{repetition}"
        archived = rep / "jobhistory" / "try1" / "stdout.log"
        job = load_job_history(archived)  # the archived REST answers parse on their own
        assert job.succeeded and job.maps == 4 and job.reduces == 2
        assert len([a for a in job.attempts if a.state == "SUCCEEDED"]) == 6
        records = {
            record["metric"]: record
            for record in map(json.loads, (rep / "records.jsonl").read_text().splitlines())
        }
        assert all(records[metric]["status"] == "ok" for metric in records)
        for metric in PHASES:
            assert records[metric]["artifact"] == str(archived)
            assert records[metric]["value"] == pytest.approx(job.metrics()[metric])
        assert records["phase_map_s"]["value"] > 0 and records["phase_shuffle_s"]["value"] > 0
        # the job's own elapsed time fits inside the duration timed around the client on the target
        assert records["job_elapsed_s"]["value"] < records["duration_s"]["value"]


def test_phase_times_mart_and_report(campaign: dict[str, Path]) -> None:
    tables = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)
    (row,) = tables["phase_times"]
    assert (row["environment"], row["cell_key"], row["n"]) == ("local_lab_yarn", CELL, 1)
    for phase in ("map", "shuffle", "merge", "reduce"):  # one repetition has no spread
        assert row[f"{phase}_s"] is not None and row[f"{phase}_stddev_s"] is None
    assert row["failed_task_attempts"] == 0 and row["fingerprint"] != "unknown"
    (scaling,) = tables["scaling"]
    assert scaling["n"] == 1 and scaling["n_failed"] == 0
    text = report.render(tables, "table", "hibench_dse")
    assert "wordcount task phases (JobHistory) on local_lab_yarn" in text
