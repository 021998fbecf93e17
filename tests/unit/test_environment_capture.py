"""A failed environment capture fails the repetition: no snapshot, no fingerprint from missing facts.

The facts script runs here for real (through bash, as the SSH wrapper runs it), once with the
tools it needs and once with a PATH that has none of them, so the failure cases are real outputs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.spec import load_spec
from benchcamp.ops import lab
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.plan import rep_dir_for
from benchcamp.pipeline.campaign.steps import EnvironmentCaptureFailed, _capture_environment
from benchcamp.transport import environment as env_facts
from benchcamp.transport import hive, ssh
from benchcamp.workloads.base import ArchivedStep, RunContext

SPEC = load_spec("hibench_dse")
NOW = datetime(2026, 11, 24, 4, 0, tzinfo=UTC)


def _context(workload: str = "wordcount") -> RunContext:
    params: dict[str, Any] = {"data_size_gb": 0.012}
    if workload == "wordcount":
        params |= {"maps": 4, "reduces": 2}
    return RunContext(SPEC, SPEC.environment("local_lab"), "c1", workload, params, 1, "tiny")


def _run_facts_script(directory: Path, path: str, ctx: RunContext | None = None) -> ArchivedStep:
    """The real facts script (of `ctx`'s environment, default local_lab's) through bash with the
    given PATH, archived as the SSH step archives it."""
    directory.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        ["/bin/bash", "-c", env_facts.facts_script(ctx or _context())],
        env={"PATH": path, "WORK": str(directory)},
        capture_output=True,
        text=True,
        check=False,
    )
    (directory / "stdout.log").write_text(result.stdout)
    (directory / "stderr.log").write_text(result.stderr)
    return ArchivedStep(directory=directory, exit_code=result.returncode, started_at=NOW, finished_at=NOW)


def _tools_without(tmp_path: Path, *left_out: str) -> str:
    """A PATH holding links to this machine's tools, except `left_out`."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in (
        "hostname",
        "grep",
        "cut",
        "sed",
        "nproc",
        "awk",
        "uname",
        "lsblk",
        "df",
        "tail",
        "head",
        "cat",
    ):
        found = shutil.which(name)
        if found and name not in left_out:
            (tools / name).symlink_to(found)
    return str(tools)


def test_the_facts_script_reports_every_required_fact_on_this_machine(tmp_path: Path) -> None:
    step = _run_facts_script(tmp_path / "ok", os.environ["PATH"])
    facts = env_facts.parse_facts(step.text("stdout.log"))
    assert env_facts.missing_facts(facts) == []
    assert facts["hostname"] and facts["cpu_cores"] >= 1 and facts["disks"]


def test_the_client_jvm_options_of_the_target_are_a_fact(tmp_path: Path) -> None:
    """The lab's client compiler (and any cluster's HADOOP_CLIENT_OPTS) moves a short job's time:
    every capture records what the target's `hadoop` gives its JVMs, empty when nothing is set."""
    directory = tmp_path / "opts"
    directory.mkdir()
    script = env_facts.facts_script(_context())
    for opts in (lab.CLIENT_JVM_OPTS, ""):
        result = subprocess.run(
            ["/bin/bash", "-c", script],
            env={"PATH": os.environ["PATH"], "WORK": str(directory), "HADOOP_CLIENT_OPTS": opts},
            capture_output=True,
            text=True,
            check=False,
        )
        assert env_facts.parse_facts(result.stdout)["hadoop_client_opts"] == opts
    assert lab.target_shell_env()["HADOOP_CLIENT_OPTS"] == "-XX:TieredStopAtLevel=1"


def test_without_lsblk_the_disks_come_from_the_kernels_list(tmp_path: Path) -> None:
    step = _run_facts_script(tmp_path / "slim", _tools_without(tmp_path, "lsblk"))
    facts = env_facts.parse_facts(step.text("stdout.log"))
    assert facts["disks"], step.text("stdout.log")
    assert not any(disk["name"].startswith(("loop", "zram", "ram")) for disk in facts["disks"])
    assert env_facts.missing_facts(facts) == []


def test_a_host_without_the_tools_is_missing_its_facts(tmp_path: Path) -> None:
    step = _run_facts_script(tmp_path / "bare", str(tmp_path / "empty"))
    facts = env_facts.parse_facts(step.text("stdout.log"))
    assert env_facts.missing_facts(facts) == ["hostname", "cpu_model", "cpu_cores", "mem_total_gib", "disks"]


def _capture_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, step: ArchivedStep) -> None:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(ssh, "run_step", lambda *args, **kwargs: step)
    monkeypatch.setattr(ssh, "target_address", lambda conn_id: "127.0.0.1:2222")


def test_a_capture_that_exits_non_zero_fails_naming_the_target_and_the_archive(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    step = _run_facts_script(tmp_path / "capture", os.environ["PATH"])
    failed = ArchivedStep(directory=step.directory, exit_code=255, started_at=NOW, finished_at=NOW)
    (step.directory / "stderr.log").write_text("bash: line 1: /proc/meminfo: Permission denied\n")
    _capture_with(monkeypatch, tmp_path, failed)
    ctx = _context()
    rep_dir = rep_dir_for(ctx)
    with pytest.raises(EnvironmentCaptureFailed) as caught:
        _capture_environment(ctx, rep_dir, 1)
    message = str(caught.value)
    assert "target 'local_lab' (127.0.0.1:2222)" in message and "exited 255" in message
    assert str(step.directory) in message and "Permission denied" in message
    assert not (rep_dir / archive.ENVIRONMENT_FILE).exists()
    assert not list((tmp_path / "results").rglob(archive.ENVIRONMENT_FILE)), "no snapshot is cached"


def test_a_capture_with_missing_facts_computes_no_fingerprint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    step = _run_facts_script(tmp_path / "capture", str(tmp_path / "empty"))
    assert step.exit_code == 0  # the script itself does not notice: the facts check does
    _capture_with(monkeypatch, tmp_path, step)
    ctx = _context()
    with pytest.raises(EnvironmentCaptureFailed, match="did not report hostname, cpu_model") as caught:
        _capture_environment(ctx, rep_dir_for(ctx), 1)
    assert str(step.directory / "stdout.log") in str(caught.value)
    assert not list((tmp_path / "results").rglob(archive.ENVIRONMENT_FILE))


def test_a_failed_hive_facts_query_fails_the_capture(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    step = _run_facts_script(tmp_path / "capture", os.environ["PATH"])
    _capture_with(monkeypatch, tmp_path, step)

    def refused(conn_id: str, statements: list[Any], archive_dir: Path, **kwargs: Any) -> ArchivedStep:
        archive_dir.mkdir(parents=True, exist_ok=True)
        (archive_dir / "stderr.log").write_text("TTransportException: Could not connect to 127.0.0.1:10000\n")
        (archive_dir / "results.json").write_text(json.dumps({}))
        return ArchivedStep(directory=archive_dir, exit_code=1, started_at=NOW, finished_at=NOW)

    monkeypatch.setattr(hive, "run_statements", refused)
    ctx = _context("hive_aggregation")
    with pytest.raises(EnvironmentCaptureFailed, match="HiveServer2's facts") as caught:
        _capture_environment(ctx, rep_dir_for(ctx), 1)
    assert "Could not connect" in str(caught.value) and "hive" in str(caught.value)
    assert not list((tmp_path / "results").rglob(archive.ENVIRONMENT_FILE))


def test_the_time_the_storage_was_reformatted_is_an_environment_fact(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    step = _run_facts_script(tmp_path / "capture", os.environ["PATH"])
    _capture_with(monkeypatch, tmp_path, step)
    spec = SPEC.model_copy(update={"reformat_storage": True})
    ctx = RunContext(
        spec, spec.environment("local_lab"), "c1", "wordcount", {"data_size_gb": 0.012}, 1, "tiny"
    )
    preflight = archive.campaign_dir("hibench_dse", "c1") / "preflight" / "local_lab" / "try1"
    preflight.mkdir(parents=True)
    (preflight / "meta.json").write_text(json.dumps({"exit_code": 0}))
    (preflight / "stdout.log").write_text("storage_reformatted_at=2026-11-24T04:00:00Z\nsafemode=off\n")
    snapshot = _capture_environment(ctx, rep_dir_for(ctx), 1)
    assert snapshot.facts["storage_reformatted_at"] == "2026-11-24T04:00:00Z"


def test_a_worker_lost_between_repetitions_is_captured_again_and_splits_the_fingerprint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With `recheck_facts`, the hardware facts seen just before a repetition's timed step
    (`since`) decide whether the campaign's capture still holds: the same workers reuse it, fewer
    capture the environment again, and the repetitions after it reuse the new snapshot."""
    three = "yarn_active_nodes=3\nyarn_nodes=10.232.0.11,10.232.0.12,10.232.0.13\n"
    two = "yarn_active_nodes=2\nyarn_nodes=10.232.0.11,10.232.0.12\n"
    nodes = tmp_path / "nodes.txt"
    environment = SPEC.environment("lab_cluster")  # hardware_facts: yarn_active_nodes, yarn_nodes
    transport = environment.transport.model_copy(update={"facts_command": f"cat {nodes}"})
    environment = environment.model_copy(update={"transport": transport})
    params: dict[str, Any] = {"data_size_gb": 0.012, "maps": 4, "reduces": 2}
    ctx = RunContext(SPEC, environment, "c1", "wordcount", params, 1, "tiny")
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(ssh, "target_address", lambda conn_id: "10.232.0.20:22")
    captures: list[str] = []

    def run_step(*args: object, **kwargs: object) -> ArchivedStep:
        captures.append(nodes.read_text())
        return _run_facts_script(tmp_path / f"capture{len(captures)}", os.environ["PATH"], ctx)

    monkeypatch.setattr(ssh, "run_step", run_step)
    nodes.write_text(three)
    first = _capture_environment(ctx, rep_dir_for(ctx), 1, since=env_facts.parse_target_facts(three))
    # the next repetition saw the same workers just before its step: the campaign's capture is reused
    again = _capture_environment(ctx, rep_dir_for(ctx), 1, since=env_facts.parse_target_facts(three))
    assert captures == [three] and again.fingerprint == first.fingerprint
    nodes.write_text(two)  # worker3 is gone before the third repetition's step
    later = _capture_environment(ctx, rep_dir_for(ctx), 1, since=env_facts.parse_target_facts(two))
    assert captures == [three, two] and later.fingerprint != first.fingerprint
    assert later.facts["target_hardware"] == env_facts.parse_target_facts(two)
    cached = archive.campaign_dir(SPEC.study, "c1") / "environment" / "lab_cluster" / archive.ENVIRONMENT_FILE
    assert later.fingerprint in cached.read_text()  # the repetitions after it reuse the new one
