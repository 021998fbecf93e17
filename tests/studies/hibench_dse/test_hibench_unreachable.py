"""A HiBench campaign onto a target whose SSH port is closed (a real target's, through its
connection), in the studies lane: `benchcamp run` fails at the preflight with exit 5 and host:port
on the console, and the campaign the warehouse held before (the study's published tables,
imported first) reads as it did. Tier 1 runs the campaign itself (test_hibench_campaign.py) and
the SSH layer's refusal of a closed port (test_lab_and_ssh.py); this costs a whole
`airflow dags test` (about 90 s) for one exit code.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchcamp.core.outcomes import MEANING, ExitCode
from benchcamp.presentation import report
from helpers.golden import TEMPLATE

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
EARLIER = "published_dse_2016"  # the template's campaign
CELL = "wordcount|data_size_gb=0.012|maps=4|reduces=2"


def test_an_unreachable_target_fails_with_exit_5_naming_it_and_leaves_earlier_figures(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    warehouse = tmp_path / "warehouse" / "benchcamp.duckdb"
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(tmp_path / "results"),
        "BENCHCAMP_WAREHOUSE": str(warehouse),
        "AIRFLOW_HOME": str(tmp_path / "airflow"),
        "AIRFLOW_CONN_DSE_GATEWAY_SSH": f"ssh://benchcamp@127.0.0.1:{closed}",
    }
    imported = subprocess.run(
        [str(BIN / "benchcamp"), "import", str(TEMPLATE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert imported.returncode == 0, imported.stdout[-3000:] + imported.stderr[-3000:]
    before = report.read_tables(warehouse, "hibench_dse", EARLIER)
    assert before["scaling"], before
    started = time.monotonic()
    result = subprocess.run(
        [str(BIN / "benchcamp"), "run", "hibench_dse", "--ladder", "tiny", "--repetitions", "1",
         "--environment", "dse_cluster", "--workloads", "wordcount", "--cells", CELL,
         "--campaign", "it_unreachable"],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    took = time.monotonic() - started
    assert result.returncode == 5, result.stdout[-3000:] + result.stderr[-3000:]
    assert "step preflight failed" in result.stderr and f"127.0.0.1:{closed}" in result.stderr, result.stderr
    assert result.stdout.rstrip().endswith("exit 5: " + MEANING[ExitCode.NOTHING_MEASURED])
    assert report.read_tables(warehouse, "hibench_dse", EARLIER) == before
    print(f"unreachable target: exit 5 after {took:.0f} s")
