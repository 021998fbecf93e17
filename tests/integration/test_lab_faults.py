"""Services of the target dying under a running repetition: the DataNode killed mid-job,
HiveServer2 killed mid-query (issue 26's fault suite; the SSH, HDFS-full, SIGTERM, busy-target
and warehouse faults are in the HiBench, leftovers and analysis modules).

The lab's real daemons are killed with SIGKILL while the DAG's own step functions run a tiny
repetition on them. Each fault must leave the repetition marked failed with a reason naming the
dead service, a campaign whose judge (`pipeline.outcome`, what `benchcamp run` prints and exits
with) says exit 5 naming it, and nothing of the campaign on HDFS after its cleanup. Every
campaign uses the same daemons, so tier 1 runs this module in its last session (tests/lanes.toml),
after the health check and just before the lab stops: the DataNode is started again (the next
test needs HDFS), HiveServer2 only when the lab is kept after the session (BENCHCAMP_KEEP_LAB=1;
a restart costs about a minute). The study is hibench_dse's spec under its own name, so no
preflight sweeps another's.
"""

from __future__ import annotations

import getpass
import os
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.outcomes import MEANING, ExitCode
from benchcamp.ops import lab
from benchcamp.pipeline import archive, attempts, outcome
from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
from benchcamp.pipeline.campaign.steps import run_clean, run_execute, run_generate
from benchcamp.pipeline.campaign.target import run_cleanup, run_preflight
from benchcamp.transport import ssh

pytestmark = pytest.mark.integration
STUDY = "labfaults_it"  # hibench_dse's spec under a name no other test uses
DEADLINE_S = 300
CELL = "wordcount_data_size_gb=0.012_maps=4_reduces=2"


def _exists(path: str) -> bool:
    """Whether `path` is on the lab's HDFS (WebHDFS: no JVM, and HiveServer2 may be down)."""
    base = lab.target_shell_env()["BENCHCAMP_WEBHDFS_URL"]
    url = f"{base}/webhdfs/v1{urllib.parse.quote(path)}?op=GETFILESTATUS&user.name={getpass.getuser()}"
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return int(answer.status) == 200
    except urllib.error.HTTPError as exc:
        assert exc.code == 404, exc
        return False


def _unit(name: str, workload: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"study": STUDY, "campaign": name, "environment": "local_lab", "workload": workload,
            "params": params, "repetition": 1, "ladder": "tiny"}  # fmt: skip


@pytest.fixture
def on_lab(hibench_copy_on_lab: Callable[[str], None]) -> None:
    hibench_copy_on_lab(STUDY)


def _restart(shared_lab: Callable[[], lab.LabStatus]) -> None:
    restarted = shared_lab()  # whatever the test killed is started again (under the lab's lock)
    assert restarted.healthy, restarted.format()


def _kill_when_running(service: str, running: Callable[[], bool], failed: list[BaseException]) -> int:
    """SIGKILL the lab's `service` once `running()` says the step is under way; its PID."""
    deadline = time.monotonic() + DEADLINE_S
    while not running():
        assert time.monotonic() < deadline and not failed, f"the step never started: {failed}"
        time.sleep(0.2)
    pid = lab.read_pid(service)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    return pid


def _run_killed(unit: dict[str, Any], service: str, running: Callable[[Path], bool]) -> BaseException:
    """Plan, preflight, clean and generate `unit`, then its execute with `service` killed once
    `running(execute try folder)`; the execute's exception, archived as the DAG's callback does."""
    attempts.save_plan({"local_lab": [unit]}, STUDY, unit["campaign"])
    run_preflight([unit])
    run_clean(unit)
    run_generate(unit)
    rep_dir = rep_dir_for(context_for(unit))
    failed: list[BaseException] = []

    def execute() -> None:
        try:
            run_execute(unit)
        except BaseException as exc:  # the fault under test
            failed.append(exc)

    worker = threading.Thread(target=execute)
    worker.start()
    _kill_when_running(service, lambda: running(rep_dir / "execute" / "try1"), failed)
    worker.join(DEADLINE_S)
    assert not worker.is_alive(), f"the execute step still runs {DEADLINE_S} s after {service} died"
    assert failed, f"the execute step succeeded with {service} killed under it"
    outcome.save_task_failure(STUDY, unit["campaign"], "repetitions_local_lab.execute", 0, 1, failed[0])
    return failed[0]


def _judged(unit: dict[str, Any], address: str) -> str:
    """The campaign's exit code and console lines, as `benchcamp run` prints them."""
    judged = outcome.campaign_outcome(STUDY, unit["campaign"], airflow_exit=1)
    console = "\n".join(judged.lines)
    assert judged.code == ExitCode.NOTHING_MEASURED, console
    assert judged.summary() == f"exit 5: {MEANING[ExitCode.NOTHING_MEASURED]}"
    assert "1 of 1 measured repetition(s) failed" in console and address in console, console
    return console


def test_a_datanode_killed_mid_job_fails_the_repetition_naming_it(
    on_lab: None, shared_lab: Callable[[], lab.LabStatus]
) -> None:
    try:
        _datanode_killed_mid_job()
    finally:
        _restart(shared_lab)


def _datanode_killed_mid_job() -> None:
    unit = _unit("dn_killed", "wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2})
    # the job is under way: its live log on the target (archived only when the step ends) says so
    work = Path(lab.target_shell_env()["BENCHCAMP_WORK_DIR"])
    live = work / STUDY / "dn_killed" / CELL / "rep1" / "jobs" / "execute-try1" / "stderr.log"

    def mapping(try_dir: Path) -> bool:
        return live.exists() and " map 0% reduce 0%" in live.read_text(errors="replace")

    error = _run_killed(unit, "datanode", mapping)
    assert isinstance(error, ssh.StepFailed), repr(error)
    rep_dir = rep_dir_for(context_for(unit))
    reason = archive.read_failure(rep_dir)
    assert reason is not None and reason.step == "execute", reason
    # the reason is the job's root cause, naming the dead DataNode (not its last log line)
    assert "BlockMissingException" in reason.message, reason
    assert f"127.0.0.1:{lab.port('datanode')}" in reason.message, reason
    assert [record.status for record in archive.load_campaign_records(STUDY, "dn_killed")] == ["failed"]
    _judged(unit, "BlockMissingException")
    run_cleanup([unit])
    assert not _exists(f"{lab.HDFS_BASE_PATH}/{STUDY}/dn_killed")


def test_hiveserver2_killed_mid_query_fails_the_repetition_naming_it(
    on_lab: None, shared_lab: Callable[[], lab.LabStatus]
) -> None:
    try:
        _hiveserver2_killed_mid_query()
    finally:
        if os.environ.get("BENCHCAMP_KEEP_LAB") == "1":
            _restart(shared_lab)


def _hiveserver2_killed_mid_query() -> None:
    unit = _unit("hs2_killed", "hive_aggregation", {"data_size_gb": 0.012})
    address = f"127.0.0.1:{lab.port('hiveserver2')}"
    # the query is under way: the statements are sent and HiveServer2 logs their operation
    error = _run_killed(unit, "hiveserver2", lambda try_dir: (try_dir / "operation.log").exists())
    assert isinstance(error, ssh.StepFailed), repr(error)
    assert address in str(error), str(error)
    rep_dir = rep_dir_for(context_for(unit))
    reason = archive.read_failure(rep_dir)
    assert reason is not None and reason.step == "execute" and address in reason.message, reason
    assert [record.status for record in archive.load_campaign_records(STUDY, "hs2_killed")] == ["failed"]
    _judged(unit, address)
    # the cleanup deletes the campaign's data without HiveServer2, and says the tables are left
    with pytest.raises(ssh.StepFailed, match=r"(?s)data is deleted \(verified gone\) but HiveServer2"):
        run_cleanup([unit])
    assert not _exists(f"{lab.HDFS_BASE_PATH}/{STUDY}/hs2_killed")
