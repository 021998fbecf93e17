"""Each failed repetition's folder says why (failure.json), and the reason is the step that held
it back: a target whose preflight failed is named as such, not as "the clean step did not succeed"."""

from __future__ import annotations

import json
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.records import read_records
from benchcamp.core.steps import ArchivedStep
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
from benchcamp.pipeline.campaign.steps import failure_recorded, run_execute
from benchcamp.pipeline.campaign.target import run_preflight, untouched_target
from benchcamp.transport import ssh

UNIT: dict[str, Any] = {
    "study": "hibench_dse", "campaign": "faults", "environment": "local_lab", "workload": "wordcount",
    "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, "repetition": 1, "ladder": "tiny",
}  # fmt: skip
CELL = "wordcount_data_size_gb=0.012_maps=4_reduces=2"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def unreachable_lab(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> int:
    """The lab's SSH connection on a port nothing listens on; the transport's tries, short waits."""
    port = _closed_port()
    connection = {"conn_type": "ssh", "host": "127.0.0.1", "port": port, "login": "nobody",
                  "extra": {"look_for_keys": "false", "conn_timeout": 2}}  # fmt: skip
    monkeypatch.setenv("AIRFLOW_CONN_BENCHCAMP_LAB_SSH", json.dumps(connection))
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(ssh, "CONNECT_FIRST_WAIT_S", 0.05)
    return port


def test_after_an_unreachable_preflight_each_repetition_names_the_preflight(unreachable_lab: int) -> None:
    port = unreachable_lab
    with pytest.raises(ssh.TargetUnreachable):
        run_preflight([UNIT])
    folder = archive.campaign_dir("hibench_dse", "faults")
    preflight = archive.read_failure(folder / "preflight" / "local_lab" / "try1")
    assert preflight is not None and (preflight.step, preflight.kind) == ("preflight", "unreachable")
    assert f"cannot reach target 127.0.0.1:{port} through connection 'benchcamp_lab_ssh'" in preflight.message
    # The repetitions' clean and generate never ran (upstream failed); execute runs (ALL_DONE).
    with pytest.raises(ssh.StepFailed) as caught:
        run_execute(UNIT)
    message = str(caught.value)
    assert message.startswith("repetition not executed: the preflight on target 'local_lab' failed: ")
    assert f"127.0.0.1:{port}" in message and "clean step" not in message
    rep = folder / CELL / "rep1"
    failure = archive.read_failure(rep)
    assert failure is not None and (failure.step, failure.kind) == ("preflight", "unreachable")
    assert failure.message == message.removeprefix("repetition ")
    (record,) = read_records(rep / archive.RECORDS_FILE)
    assert record.status == "failed"  # the records keep their meaning
    reasons = archive.failure_reasons("hibench_dse", "faults")
    assert [(reason.where, reason.step) for reason in reasons] == [
        ("preflight/local_lab", "preflight"),
        (f"{CELL}/rep1", "preflight"),
    ]
    # Nothing of the campaign ran on the target: its cleanup has nothing to do (no 14 s of tries).
    assert untouched_target([UNIT]) == (
        f"nothing of this campaign ran on target 'local_lab': {preflight.message}"
    )
    first = archive.first_failure_per_step(reasons)
    assert list(first) == ["preflight"] and first["preflight"].where == "preflight/local_lab"
    assert first["preflight"].line().startswith("preflight/local_lab: preflight unreachable: cannot reach")


def test_a_repetition_whose_clean_failed_names_the_clean_steps_cause(unreachable_lab: int) -> None:
    ctx = context_for(UNIT)
    rep = rep_dir_for(ctx)
    clean_dir = archive.step_dir(rep, "clean", 1)
    clean_dir.mkdir(parents=True)
    (clean_dir / "meta.json").write_text('{"exit_code": 1, "connection": "benchcamp_lab_ssh"}')
    (clean_dir / "stderr.log").write_text("clean: data still present: /benchcamp/x\n")
    step = ArchivedStep(clean_dir, 1, datetime.now(UTC), datetime.now(UTC))
    with pytest.raises(ssh.StepFailed), failure_recorded("clean", clean_dir):
        ssh.raise_if_failed("clean", step)
    with pytest.raises(
        ssh.StepFailed, match="the clean step on target 'local_lab' did not succeed: step 'clean'"
    ):
        run_execute(UNIT)
    failure = archive.read_failure(rep)
    assert failure is not None and (failure.step, failure.kind, failure.exit_code) == ("clean", "failed", 1)
    assert (
        "data still present: /benchcamp/x" in failure.message and "data still present" in failure.stderr_tail
    )


def test_an_interrupted_repetition_is_marked_with_the_signal_and_its_records_failed(tmp_path: Path) -> None:
    rep = tmp_path / "study" / "c" / CELL / "rep2"
    line = {
        "study": "study", "campaign": "c", "environment": "local_lab", "workload": "wordcount",
        "params": {"maps": 4}, "repetition": 2, "metric": "duration_s", "value": 12.5, "unit": "s",
        "status": "ok", "started_at": "2026-11-26T10:00:00+00:00", "finished_at": "2026-11-26T10:00:12+00:00",
        "artifact": "x",
    }  # fmt: skip
    rep.mkdir(parents=True)
    (rep / archive.RECORDS_FILE).write_text(json.dumps(line) + "\n")
    archive.mark_interrupted(rep, "SIGTERM", "execute")
    failure = archive.read_failure(rep)
    assert failure is not None and (failure.step, failure.kind) == ("execute", "interrupted")
    assert failure.message == "interrupted by SIGTERM during its execute step"
    assert [record.status for record in read_records(rep / archive.RECORDS_FILE)] == ["failed"]
    (reason,) = archive.failure_reasons("study", "c", tmp_path)
    assert reason.where == f"{CELL}/rep2"
    archive.clear_failure(rep)
    assert archive.failure_reasons("study", "c", tmp_path) == []


def test_a_refused_or_unreachable_target_fails_the_task_without_airflow_retries() -> None:
    from airflow.sdk.exceptions import AirflowFailException
    from benchcamp.airflow.dag_factory import fail_fast

    def raising(exc: Exception) -> None:
        raise exc

    for permanent in (ssh.TargetRefused("target h:22 refused: ..."), ssh.TargetUnreachable("cannot reach")):
        with pytest.raises(AirflowFailException, match=str(permanent)):
            fail_fast(lambda exc=permanent: raising(exc))  # type: ignore[misc]
    with pytest.raises(ssh.StepFailed):  # a command that failed on a reachable target: Airflow retries
        fail_fast(lambda: raising(ssh.StepFailed("step 'generate' exited 1")))
    assert fail_fast(lambda: 42) == 42
