"""Ctrl-C or SIGTERM while a Hive statement runs cancels it on the lab's real HiveServer2 (the
studies lane, beside the SIGTERM-and-resume campaign).

A child process runs a long query through `transport.hive.run_statements` under the signal
handlers of the two paths a user has: `benchcamp run`'s (SIGINT and SIGTERM raise `Interrupted`)
and an Airflow 3 task's (SIGTERM calls the operator's `on_kill` and returns). Once HiveServer2's
job runs, the child gets the signal; then HiveServer2's own log must show the query cancelled and
removed and its session's operation log gone, and the archive the cancel. The query is a
MapReduce job whose map task sleeps 250 ms a row, so it costs little CPU; the lab's MapReduce runs
in HiveServer2's JVM (LocalJobRunner), where a map task already running ends its split after its
job is killed (30 s here, asleep): docs/operations/faults.md. About 40 s for the three cases.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from benchcamp.ops import lab
from benchcamp.platforms.hive import OPERATION_LOG, HiveStatement
from benchcamp.transport import hive

pytestmark = pytest.mark.integration
TABLE = "cancel_it_rows"
ROWS = 120  # one map task of 30 s
JOB_STARTED_S = 120  # bound on the wait for the query's MapReduce job to be under way
CHILD_EXIT_S = 30  # bound on the child's exit after the signal (the cancel waits at most 2 s)
SERVER_VIEW_S = 30  # bound on the wait for HiveServer2's log to show the cancel
SETTINGS = ["SET hive.exec.parallel=false"]  # a statement before the query: the label is the query's
QUERY = (  # each row sleeps 250 ms in its map task
    f"SELECT count(*) FROM {TABLE} WHERE reflect('java.lang.Thread', 'sleep', CAST(n - n + 250 AS BIGINT)) IS NULL"
)
CHILD = """
import json, signal, sys
from pathlib import Path
from benchcamp.ops import lab
from benchcamp.ops.cli import _raise_interrupted
from benchcamp.platforms.hive import HiveStatement
from benchcamp.transport.hive import run_statements

handlers, archive, settings, query = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
if handlers == "benchcamp_run":  # the handlers `benchcamp run` installs (ops/cli.py)
    signal.signal(signal.SIGINT, _raise_interrupted)
    signal.signal(signal.SIGTERM, _raise_interrupted)
else:  # Airflow 3's task runner: SIGTERM calls the operator's on_kill (a @task has none), returns
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
statements = [HiveStatement(f"setting{i}", sql) for i, sql in enumerate(settings)]
try:
    run_statements(lab.LAB_HIVE_CONNECTION_ID, [*statements, HiveStatement("long_query", query, timed=True)], archive)
except BaseException as exc:
    print(json.dumps({"raised": type(exc).__name__, "text": str(exc)}), flush=True)
else:
    print(json.dumps({"raised": None}), flush=True)
"""


@pytest.fixture(scope="module")
def rows(shared_lab: Callable[[], lab.LabStatus], tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The query's table on the lab's HiveServer2, one text file of ROWS rows; dropped after."""
    shared_lab()
    os.environ.update(lab.airflow_connection_env())
    archive = tmp_path_factory.mktemp("hive_rows")
    setup = [
        HiveStatement("drop", f"DROP TABLE IF EXISTS {TABLE}"),
        HiveStatement("create", f"CREATE TABLE {TABLE} (n INT) STORED AS TEXTFILE"),
        HiveStatement(
            "fill",
            f"INSERT INTO {TABLE} SELECT pos FROM (SELECT posexplode(split(space({ROWS - 1}), ' '))) s",
        ),
    ]
    step = hive.run_statements(lab.LAB_HIVE_CONNECTION_ID, setup, archive / "setup")
    assert step.exit_code == 0, step.text("stderr.log")
    yield
    hive.run_statements(lab.LAB_HIVE_CONNECTION_ID, setup[:1], archive / "drop")


def _wait_for(condition: Callable[[], bool], bound_s: float, what: Callable[[], str]) -> None:
    deadline = time.monotonic() + bound_s
    while not condition():
        assert time.monotonic() < deadline, what()
        time.sleep(0.5)


@pytest.mark.parametrize(
    ("handlers", "signum", "raised", "reason"),
    [
        ("benchcamp_run", signal.SIGINT, "Interrupted", "Interrupted: SIGINT"),
        ("benchcamp_run", signal.SIGTERM, "Interrupted", "Interrupted: SIGTERM"),
        (
            "airflow_task",
            signal.SIGTERM,
            "AirflowTaskTerminated",
            "AirflowTaskTerminated: SIGTERM while a Hive statement ran",
        ),
    ],
    ids=["benchcamp-run-sigint", "benchcamp-run-sigterm", "airflow-task-sigterm"],
)
def test_a_signal_cancels_the_running_query_on_hiveserver2_and_the_archive_says_so(
    rows: None, tmp_path: Path, handlers: str, signum: int, raised: str, reason: str
) -> None:
    archive = tmp_path / "execute"
    log = archive / OPERATION_LOG
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, handlers, str(archive), json.dumps(SETTINGS), QUERY],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(
            lambda: log.exists() and "Stage-1 map = " in log.read_text(encoding="utf-8"),
            JOB_STARTED_S,
            lambda: f"the query's job did not start: {log.read_text() if log.exists() else 'no log'}",
        )
        signalled = time.monotonic()
        child.send_signal(signum)
        out, err = child.communicate(timeout=CHILD_EXIT_S)
    finally:
        if child.poll() is None:  # a failed wait: the child is ours to stop
            child.kill()
            child.wait()
    assert time.monotonic() - signalled < CHILD_EXIT_S
    outcome = json.loads(out.splitlines()[-1])
    assert outcome == {"raised": raised, "text": reason.split(": ", 1)[1]}, err[-3000:]

    # HiveServer2's view: the query cancelled (TCancelOperation, not only the session's close),
    # its command interrupted, its operation removed, the session's operation log deleted
    text = log.read_text(encoding="utf-8")
    query_id = re.findall(r"Compiling command\(queryId=([^)]+)\)", text)[-1]
    server_log = lab.lab_dir() / "logs" / "hiveserver2-hive.log"
    expected = [
        f"Successfully cancelled the query: {query_id}",
        f"Executing command(queryId={query_id}) has been interrupted",
        f"Removed queryId: {query_id}",
    ]
    _wait_for(
        lambda: all(line in server_log.read_text(encoding="utf-8", errors="replace") for line in expected),
        SERVER_VIEW_S,
        lambda: f"HiveServer2's log lacks one of {expected}",
    )
    operation_logs = lab.lab_dir() / "hive" / "operation_logs"
    assert not list(operation_logs.rglob(query_id))  # HiveServer2 closed the operation and its log

    # the archive: the cancel in the operation log, the interruption in meta.json
    assert f"BENCHCAMP_CANCELLED long_query: {reason}\n" in text
    assert "BENCHCAMP_WARNING" not in text, text[-3000:]
    meta = json.loads((archive / "meta.json").read_text(encoding="utf-8"))
    assert (meta["exit_code"], meta["error"], meta["interrupted"]) == (
        1,
        f"BENCHCAMP_CANCELLED long_query: {reason}",
        reason,
    )
