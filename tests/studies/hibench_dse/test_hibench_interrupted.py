"""A HiBench campaign stopped by SIGTERM and resumed, with a second campaign on the busy target
refused meanwhile (the studies lane): one cell, one repetition on the real lab.

Tier 1's test_hibench_campaign.py runs the whole campaign once through `benchcamp run`; what this
module proves costs two more `airflow dags test` runs (the refused one about 90 s of CPU), so it
is tier 2's. The run is stopped while its first job runs on the target, then the same command
resumes it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.ops import lab

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
RUN_ID = "it_stopped"
CELL = "wordcount|data_size_gb=0.012|maps=4|reduces=2"
STARTED_S = 600  # bound on the wait for the first job to be under way on the target


@pytest.fixture(scope="module")
def stopped(
    tmp_path_factory: pytest.TempPathFactory,
    shared_lab: Callable[[], lab.LabStatus],
    campaign_measured: Callable[..., None],
) -> dict[str, Path]:
    """The campaign stopped by SIGTERM after a second one was refused, then resumed."""
    shared_lab()
    tmp = tmp_path_factory.mktemp("stopped")
    paths = {"results": tmp / "results", "airflow": tmp / "airflow", "tmp": tmp}
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(tmp / "warehouse" / "benchcamp.duckdb"),
        "AIRFLOW_HOME": str(paths["airflow"]),
    }

    def command(campaign: str) -> list[str]:
        return [
            str(BIN / "benchcamp"), "run", "hibench_dse", "--ladder", "tiny", "--repetitions", "2",
            "--workloads", "wordcount", "--cells", CELL, "--campaign", campaign, "--keep-lab",
        ]  # fmt: skip

    with (tmp / "stopped.log").open("w") as out:
        first = subprocess.Popen(command(RUN_ID), env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
        campaign_dir = paths["results"] / "hibench_dse" / RUN_ID
        deadline = time.monotonic() + STARTED_S
        while not list(campaign_dir.glob("*/rep*/generate/try1")) and first.poll() is None:
            assert time.monotonic() < deadline, (
                f"no generate step under way within {STARTED_S} s:\n{(tmp / 'stopped.log').read_text()[-3000:]}"
            )
            time.sleep(0.5)
        other = subprocess.run(command("it_other"), env=env, capture_output=True, text=True, timeout=300)
        (tmp / "refused.log").write_text(other.stdout + "\n--- stderr ---\n" + other.stderr)
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=300)
    stop = {
        "refused_exit": other.returncode,
        "stopped_exit": first.returncode,
        "left_running": _campaign_processes(f"hibench_dse/{RUN_ID}"),
    }
    (tmp / "stop.json").write_text(json.dumps(stop))
    # the same command again: resumes the stopped campaign (nothing was ok yet: all of it runs)
    result = subprocess.run(command(RUN_ID), env=env, capture_output=True, text=True, timeout=1800)
    (tmp / "run.log").write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    campaign_measured(result, tmp / "run.log")
    return paths


def _campaign_processes(text: str) -> list[str]:
    """Command lines (here: Airflow's and the target's jobs, the lab being this machine) holding `text`."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                line = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in line:
                found.append(f"{proc.name}: {line[:200]}")
    return found


def test_a_second_campaign_on_the_busy_target_was_refused_naming_the_first(stopped: dict[str, Path]) -> None:
    """One campaign per target from the CLI: exit 6 before the lab is touched, the holder named."""
    refused = (stopped["tmp"] / "refused.log").read_text()
    assert json.loads((stopped["tmp"] / "stop.json").read_text())["refused_exit"] == 6, refused[-3000:]
    assert (
        f"target local_lab (connection benchcamp_lab_ssh) is busy: campaign {RUN_ID} of hibench_dse "
        "(benchcamp run, PID" in refused
    ), refused[-3000:]
    assert not (stopped["results"] / "hibench_dse" / "it_other").exists()


def test_sigterm_stopped_airflow_and_the_job_and_marked_the_run_failed(stopped: dict[str, Path]) -> None:
    """SIGTERM mid-campaign: exit 143 after Airflow and the target's job are stopped (nothing of the
    campaign left running), the DAG run failed in the metadata database; the re-run resumed."""
    log = (stopped["tmp"] / "stopped.log").read_text()
    stop = json.loads((stopped["tmp"] / "stop.json").read_text())
    assert stop["stopped_exit"] == 143, log[-3000:]
    assert "SIGTERM: Airflow stopped;" in log and "marked failed" in log, log[-3000:]
    assert stop["left_running"] == [], stop["left_running"]
    with sqlite3.connect(stopped["airflow"] / "airflow.db") as db:
        states = [
            row[0] for row in db.execute("select state from dag_run where dag_id = 'hibench_dse' order by id")
        ]
    assert states == ["failed", "success"], states
    campaign_dir = stopped["results"] / "hibench_dse" / RUN_ID
    attempt = json.loads((campaign_dir / "attempt.json").read_text())
    assert (
        attempt["attempt"] == 2 and attempt["mode"] == "resume" and attempt["earlier_attempt"] == "attempts/1"
    ), attempt
    assert list((campaign_dir / "attempts" / "1").glob("*/rep*/generate/try1"))  # kept, never loaded
