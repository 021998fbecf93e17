"""Faults as `benchcamp run` meets them, below Airflow: attempts, outcomes, target locks, exit codes.

The archive is written here as the pipeline writes it (records through `archive.save_records`),
and the code under test reads it back; the campaign-level faults run for real in
tests/integration/test_lab_faults.py (the lab) and test_lab_cluster.py (the cluster).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.outcomes import MEANING, SEVERITY, ExitCode, for_signal, table, worst
from benchcamp.core.records import ResultRecord, ValidationFailure, cell_key
from benchcamp.core.spec import load_spec
from benchcamp.pipeline import archive, attempts, noise_floor, outcome, target_lock
from benchcamp.pipeline.campaign import finish
from benchcamp.pipeline.campaign.conf import check_conf
from benchcamp.pipeline.campaign.plan import plan_units

SPEC = load_spec("hibench_dse")
CELL = "wordcount|data_size_gb=0.012|maps=4|reduces=2"
HIVE_CELL = "hive_aggregation|data_size_gb=0.012"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.delenv("BENCHCAMP_LOCKS", raising=False)
    yield tmp_path / "results"


def _plan(campaign: str, repetitions: int = 2, cells: tuple[str, ...] = (CELL, HIVE_CELL)) -> dict[str, Any]:
    conf = check_conf(SPEC, {"ladder": "tiny", "repetitions": repetitions, "cells": list(cells)})
    return plan_units(SPEC, conf, campaign)


def _archive(unit: dict[str, Any], status: str) -> Path:
    """A repetition as the pipeline leaves it: its step folder and its records."""
    rep_dir = archive.repetition_dir(
        unit["study"], unit["campaign"], cell_key(unit["workload"], unit["params"]), unit["repetition"]
    )
    (rep_dir / "execute" / "try1").mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC)
    warmup = unit["repetition"] <= 0
    record = ResultRecord(
        study=unit["study"], campaign=unit["campaign"], environment=unit["environment"],
        workload=unit["workload"], params=unit["params"], repetition=unit["repetition"],
        metric="duration_s", value=1.5 if status == "ok" else 0.0, unit="s",
        status=("warmup" if status == "ok" else "warmup_failed") if warmup else status,
        started_at=now, finished_at=now, artifact=str(rep_dir),
    )  # fmt: skip
    archive.save_records(rep_dir, [record])
    return rep_dir


def _units(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [unit for environment_units in plan.values() for unit in environment_units]


def test_a_first_attempt_moves_nothing_and_is_numbered_one() -> None:
    plan, attempt = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=True)
    assert attempt.number == 1 and attempt.moved_to is None and attempt.kept == 0
    assert not any(unit.get("kept") for unit in _units(plan))


def test_a_restart_moves_the_whole_earlier_attempt_aside_and_loads_none_of_it() -> None:
    """The backfill case: a cancelled attempt's warm-ups and repetitions are never mixed in."""
    first = _plan("c1")
    attempts.begin_attempt(first, "hibench_dse", "c1", resume=False)
    for unit in _units(first):
        _archive(unit, "ok")
    (archive.campaign_dir("hibench_dse", "c1") / "logs").mkdir()
    plan, attempt = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    assert attempt.number == 2 and attempt.kept == 0
    assert archive.load_campaign_records("hibench_dse", "c1") == []  # nothing of attempt 1 is loaded
    moved = archive.campaign_dir("hibench_dse", "c1") / "attempts" / "1"
    assert attempt.moved_to == moved and len(list(moved.glob("*/rep*/records.jsonl"))) == len(_units(first))
    assert (archive.campaign_dir("hibench_dse", "c1") / "logs").is_dir()  # the CLI's logs stay
    # a third attempt never overwrites the second's archive
    _archive(_units(plan)[0], "failed")
    _, third = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    assert third.number == 3 and (moved.parent / "2").is_dir() and moved.is_dir()


def test_a_resume_keeps_ok_repetitions_and_reruns_failed_ones_with_their_warmups() -> None:
    first = _plan("c1")
    attempts.begin_attempt(first, "hibench_dse", "c1", resume=True)
    failed_hive: Path | None = None
    for unit in _units(first):
        if unit["workload"] == "hive_aggregation" and unit["repetition"] == 2:
            failed_hive = _archive(unit, "failed")
        else:
            _archive(unit, "ok")
    plan, attempt = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=True)
    kept = {(unit["workload"], unit["repetition"]) for unit in _units(plan) if unit.get("kept")}
    # wordcount complete: kept whole; hive: its ok repetition 1 kept, its warm-up (0) and 2 run again
    assert kept == {("wordcount", 1), ("wordcount", 2), ("hive_aggregation", 1)}
    assert attempt.kept == 3
    assert failed_hive is not None and not failed_hive.exists()
    moved = attempt.moved_to
    assert moved is not None and (moved / failed_hive.parent.name / "rep2" / "records.jsonl").is_file()
    assert (moved / failed_hive.parent.name / "rep0").is_dir()  # the warm-up runs again too
    statuses = {
        record.repetition: record.status for record in archive.load_campaign_records("hibench_dse", "c1")
    }
    assert statuses == {1: "ok", 2: "ok"}  # what is left is one consistent set: nothing failed mixed in


def test_a_name_that_maps_to_another_campaigns_folder_is_refused_and_moves_nothing() -> None:
    """`nightly+ssd` and `nightly_ssd` (or `run_` and `run`) both map to the folder `nightly_ssd`:
    the second must not take the first's archive for an earlier attempt of its own (restart moved
    it aside, resume kept its repetitions); an archive from before `attempt.json` named its
    campaign is known by its saved plan."""
    first = _plan("nightly_ssd")
    attempts.begin_attempt(first, "hibench_dse", "nightly_ssd", resume=False)
    for unit in _units(first):
        _archive(unit, "ok")
    folder = archive.campaign_dir("hibench_dse", "nightly_ssd")
    before = sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))
    for other in ("nightly+ssd", "nightly_ssd_"):
        for resume in (False, True):
            with pytest.raises(attempts.ArchiveClash, match=r"'nightly_ssd' \(both names map to it\)"):
                attempts.begin_attempt(_plan(other), "hibench_dse", other, resume=resume)
    assert sorted(str(path.relative_to(folder)) for path in folder.rglob("*")) == before
    _, again = attempts.begin_attempt(_plan("nightly_ssd"), "hibench_dse", "nightly_ssd", resume=True)
    assert again.kept == len(_units(first))  # its own name still resumes it
    # an archive whose attempt.json predates the name: its plan's units name the campaign
    attempts.save_plan(first, "hibench_dse", "nightly_ssd")
    record = folder / attempts.ATTEMPT_FILE
    record.write_text(json.dumps({"attempt": 2}), encoding="utf-8")
    assert attempts.archive_owner(folder) == "nightly_ssd"
    with pytest.raises(attempts.ArchiveClash):
        attempts.check_archive_owner("hibench_dse", "nightly+ssd")


def _outcome_of(
    statuses: dict[tuple[str, int], str], campaign: str = "c1", airflow_exit: int = 0
) -> outcome.Outcome:
    plan, _ = attempts.begin_attempt(_plan(campaign), "hibench_dse", campaign, resume=False)
    attempts.save_plan(plan, "hibench_dse", campaign)
    for unit in _units(plan):
        status = statuses.get((unit["workload"], unit["repetition"]), "ok")
        if status != "missing":
            _archive(unit, status)
    return outcome.campaign_outcome("hibench_dse", campaign, airflow_exit)


def test_every_repetition_ok_is_exit_0() -> None:
    result = _outcome_of({})
    assert result.code == ExitCode.OK and result.measured_ok == 4 and result.planned == 4


def test_some_failed_repetitions_are_exit_4_with_their_reasons() -> None:
    plan, _ = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    attempts.save_plan(plan, "hibench_dse", "c1")
    for unit in _units(plan):
        rep_dir = _archive(
            unit, "failed" if unit["repetition"] == 2 and unit["workload"] == "wordcount" else "ok"
        )
        if unit["repetition"] == 2 and unit["workload"] == "wordcount":
            failure = archive.Failure.now(
                "execute", "failed", "execute exited 1 on 127.0.0.1:2222: No space left"
            )
            archive.write_failure(rep_dir, failure)
    result = outcome.campaign_outcome("hibench_dse", "c1", 0)
    assert result.code == ExitCode.PARTIAL and result.measured_failed == 1
    assert any("execute exited 1 on 127.0.0.1:2222: No space left" in line for line in result.lines)


def test_no_repetition_measured_is_exit_5_even_when_airflow_says_0() -> None:
    result = _outcome_of({(w, r): "failed" for w in ("wordcount", "hive_aggregation") for r in (1, 2)})
    assert result.code == ExitCode.NOTHING_MEASURED and result.measured_ok == 0


def test_a_failed_preflight_is_exit_5_and_its_error_is_on_the_console() -> None:
    plan, _ = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    attempts.save_plan(plan, "hibench_dse", "c1")
    try:
        raise RuntimeError("cannot reach target 127.0.0.1:2322 through connection 'lab_ssh': refused")
    except RuntimeError as exc:
        outcome.save_task_failure("hibench_dse", "c1", "preflight_local_lab", -1, 1, exc)
    result = outcome.campaign_outcome("hibench_dse", "c1", 1)
    assert result.code == ExitCode.NOTHING_MEASURED
    assert result.lines[0].startswith(
        "step preflight failed: RuntimeError: cannot reach target 127.0.0.1:2322"
    )


def test_a_copy_of_a_study_under_another_name_is_judged_from_its_archive_alone() -> None:
    """The fault tests run hibench_dse's spec as `labfaults_it`, a name no bundled spec has: the
    judgement reads the archive only, and a noise floor states the gate it was measured under."""
    plan = {env: [{**unit, "study": "copy_it"} for unit in units] for env, units in _plan("c1").items()}
    attempts.save_plan(plan, "copy_it", "c1")
    for unit in _units(plan):
        _archive(unit, "ok")
    floor = noise_floor.NoiseFloor(
        environment="local_lab", kind="mapreduce_job", description="an empty job", workloads=["wordcount"],
        durations_s=[3.0, 3.2, 3.4], max_stddev_pct=20,
    )  # fmt: skip
    noise_floor.save_floors(archive.campaign_dir("copy_it", "c1"), "local_lab", [floor])
    result = outcome.campaign_outcome("copy_it", "c1", 0)
    assert result.code == ExitCode.OK, result.lines
    assert "noise floor on local_lab: an empty job: mean 3.20 s, σ 0.20 s over 3 runs → resolution 1 s" in (
        "\n".join(result.lines)
    )


def test_a_failed_build_is_exit_7_over_validation_and_a_busy_warehouse_is_6() -> None:
    archive.save_validation("hibench_dse", "c1", [])
    plan, _ = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    attempts.save_plan(plan, "hibench_dse", "c1")
    for unit in _units(plan):
        _archive(unit, "ok")
    outcome.save_task_failure("hibench_dse", "c1", "dbt_build", -1, 1, RuntimeError("test unique_x failed"))
    assert outcome.campaign_outcome("hibench_dse", "c1", 1).code == ExitCode.ANALYSIS_FAILED

    class WarehouseBusy(RuntimeError):
        pass

    outcome.save_task_failure("hibench_dse", "c1", "load", -1, 1, WarehouseBusy("held by PID 42"))
    assert outcome.campaign_outcome("hibench_dse", "c1", 1).code == ExitCode.BUSY


def test_an_interrupted_repetition_is_marked_failed_with_the_signal_as_its_reason() -> None:
    plan, _ = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    attempts.save_plan(plan, "hibench_dse", "c1")
    units = _units(plan)
    _archive(units[0], "ok")
    running = archive.repetition_dir("hibench_dse", "c1", CELL, units[1]["repetition"])
    (running / "execute" / "try1").mkdir(parents=True)  # started, no meta.json: in flight
    waiting = archive.repetition_dir(
        "hibench_dse", "c1", cell_key(units[2]["workload"], units[2]["params"]), units[2]["repetition"]
    )
    (waiting / "clean" / "try1").mkdir(parents=True)  # cleaned, then waiting for its turn: not interrupted
    (waiting / "clean" / "try1" / "meta.json").write_text("{}")
    marked = outcome.mark_interrupted("hibench_dse", "c1", "SIGTERM")
    assert marked == [running]
    reason = archive.read_failure(running)
    assert reason is not None and reason.kind == "interrupted" and reason.step == "execute"
    assert reason.message == "interrupted by SIGTERM during its execute step"
    (record,) = archive.load_campaign_records("hibench_dse", "c1")[1:2] or [None]
    assert record is not None and record.status == "failed"
    assert not attempts.repetition_ok(running)


def _hold(environment: str, ready: Any, release: Any, results: str) -> None:
    import os

    os.environ["BENCHCAMP_RESULTS"] = results
    lock = target_lock.acquire(
        environment,
        "benchcamp_lab_ssh",
        {"study": "hibench_dse", "campaign": "first", "command": "benchcamp run"},
    )
    ready.set()
    release.wait(30)
    lock.release()


def test_a_second_campaign_on_a_held_target_is_refused_naming_the_first(_results: Path) -> None:
    """Two processes, as two `benchcamp run`: the second is told who holds the target, and may wait."""
    context = multiprocessing.get_context("spawn")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=_hold, args=("local_lab", ready, release, str(_results)))
    holder.start()
    try:
        assert ready.wait(60)
        with pytest.raises(
            target_lock.TargetBusy, match=rf"campaign first of hibench_dse \(benchcamp run, PID {holder.pid} "
        ):
            target_lock.acquire(
                "local_lab", "benchcamp_lab_ssh", {"study": "hibench_dse", "campaign": "second"}
            )
        with pytest.raises(target_lock.TargetBusy, match="campaign first"):
            target_lock.check_free("local_lab", "benchcamp_lab_ssh")  # a DAG run that is not the holder's
        with pytest.raises(target_lock.TargetBusy, match="campaign first"):  # one machine, one lock
            target_lock.acquire("local_lab_yarn", "benchcamp_lab_ssh", {"campaign": "y"})
        target_lock.acquire("dse_cluster", "dse_gateway_ssh", {"campaign": "x"}).release()  # others are free
        waited: list[str] = []
        release.set()
        lock = target_lock.acquire(
            "local_lab", "benchcamp_lab_ssh", {"campaign": "second"}, wait_s=30, on_wait=waited.append
        )
        assert json.loads(target_lock.lock_path("benchcamp_lab_ssh").read_text())["campaign"] == "second"
        lock.release()
    finally:
        release.set()
        holder.join(30)
    target_lock.check_free("local_lab", "benchcamp_lab_ssh")  # released when its holder ended


def test_the_lock_holder_s_own_dag_run_may_use_its_target(monkeypatch: pytest.MonkeyPatch) -> None:
    lock = target_lock.acquire("local_lab", "benchcamp_lab_ssh", {"campaign": "mine"})
    try:
        monkeypatch.setenv(target_lock.TOKEN_ENV, lock.token)
        target_lock.check_free("local_lab", "benchcamp_lab_ssh")
        monkeypatch.setenv(target_lock.TOKEN_ENV, "someone-else")
        with pytest.raises(target_lock.TargetBusy):
            target_lock.check_free("local_lab", "benchcamp_lab_ssh")
    finally:
        lock.release()


def test_exit_codes_the_most_severe_wins_and_signals_are_128_plus() -> None:
    assert worst([ExitCode.VALIDATION_FAILED, ExitCode.PARTIAL]) == ExitCode.PARTIAL
    assert worst([ExitCode.ANALYSIS_FAILED, ExitCode.NOTHING_MEASURED]) == ExitCode.NOTHING_MEASURED
    assert worst([]) == ExitCode.OK
    assert set(SEVERITY) == set(ExitCode) and set(MEANING) == set(ExitCode)
    assert for_signal(2) == 130 and for_signal(15) == 143


def test_the_readme_table_is_the_cli_s() -> None:
    """The README's exit-code table is `core.outcomes.table()`, word for word."""
    assert table() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_bad_input_is_refused_before_the_lab_starts(tmp_path: Path) -> None:
    """An unknown cell: exit 2 with the cell named, in seconds, no lab started (no PID file made)."""
    env = {"BENCHCAMP_LAB_DIR": str(tmp_path / "lab"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("benchcamp")), "run", "hibench_dse", "--ladder", "tiny",
         "--cells", "wordcount|data_size_gb=9"],
        capture_output=True, text=True, timeout=600, env={**env, "BENCHCAMP_RESULTS": str(tmp_path / "r")},
    )  # fmt: skip
    assert done.returncode == ExitCode.BAD_INPUT, done.stdout + done.stderr
    assert re.search(r"cell 'wordcount\|data_size_gb=9' is not in the tiny matrix", done.stderr)
    assert not list((tmp_path / "lab").rglob("*.pid")) and "lab:" not in done.stdout


def test_a_cli_run_refuses_a_target_the_stack_is_running_a_campaign_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stack's run on the lab (its default environment, or the one its conf names) holds the
    lab's connection for `benchcamp run`; a run on another target, or of no study, does not."""
    from benchcamp.ops import cli, metadb

    runs = [
        ("benchcamp_housekeeping", "r0", {}),
        ("hibench_dse", "scheduled__2026-11-26", {"environment": "dse_cluster"}),
    ]
    monkeypatch.setattr(metadb, "active_runs", lambda: runs)
    assert cli._stack_run_on("benchcamp_lab_ssh") is None
    assert (
        cli._stack_run_on("dse_gateway_ssh")
        == "hibench_dse run scheduled__2026-11-26 (environment dse_cluster)"
    )
    runs.append(("ycsb_hbase_cassandra", "manual__1", {"environment": "single_node"}))
    assert cli._stack_run_on("benchcamp_lab_ssh") is None
    assert (
        cli._stack_run_on("ycsb_node_ssh") == "ycsb_hbase_cassandra run manual__1 (environment single_node)"
    )
    # no environment in the conf: the stack's default, the study's lab environment (not single_node)
    runs.append(("ycsb_hbase_cassandra", "manual__2", {}))
    assert (
        cli._stack_run_on("benchcamp_lab_ssh") == "ycsb_hbase_cassandra run manual__2 (environment local_lab)"
    )


def test_one_run_on_several_environments_of_one_connection_takes_its_lock_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--environment all` of the graph study: lab_disk and lab_ram share the lab's connection, so
    the run holds that one lock (a second flock on it from the same process would refuse it)."""
    from benchcamp.ops import cli, lab

    class LabReached(Exception):
        pass

    def lab_up() -> None:
        held = json.loads(target_lock.lock_path("benchcamp_lab_ssh").read_text())
        raise LabReached(held["campaign"])

    def lab_down() -> None:  # the real one would stop the lab an integration stream is using
        raise AssertionError("lab_down called by a unit test")

    monkeypatch.setattr(lab, "lab_up", lab_up)
    monkeypatch.setattr(lab, "lab_down", lab_down)
    monkeypatch.setattr("benchcamp.ops.metadb.active_runs", lambda: [])
    with pytest.raises(LabReached, match="^c_lab_disk$"):
        cli.main(
            [
                "run",
                "mapreduce_ssd_hdd",
                "--ladder",
                "tiny",
                "--environment",
                "all",
                "--campaign",
                "c",
                "--keep-lab",
            ]
        )
    target_lock.check_free("lab_ram", "benchcamp_lab_ssh")  # released when the run ended


def test_all_environments_are_the_one_host_labs_the_lab_cluster_only_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The graph study's `all` compares the lab's two storages; its lab_cluster environment (five
    hosts, a minute's protocol per repetition) runs when named, not with them."""
    from benchcamp.ops import cli

    class Planned(Exception):
        pass

    targets: list[str | None] = []

    def conf(_args: object, target: str | None, campaign: str) -> dict[str, object]:
        targets.append(target)
        return {"campaign": campaign, "environment": target}

    def check_conf(_spec: object, _conf: object) -> None:
        raise Planned

    monkeypatch.setattr(cli, "_conf", conf)
    monkeypatch.setattr("benchcamp.pipeline.campaign.conf.check_conf", check_conf)
    for chosen, expected in (("all", ["lab_disk", "lab_ram"]), ("lab_cluster", ["lab_cluster"])):
        targets.clear()
        with pytest.raises(Planned):
            cli.main(
                ["run", "mapreduce_ssd_hdd", "--ladder", "tiny", "--environment", chosen, "--campaign", "c"]
            )
        assert targets == expected


def test_ctrl_c_stops_the_target_s_jobs_through_the_connections_airflow_was_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`benchcamp run` defines the lab's connections for Airflow's process only: its own stop of
    the target's jobs once Airflow is stopped must reach the target through them too (it once
    found no connection and said no job was running), and a target it cannot reach is said so."""
    from benchcamp.ops import cli
    from benchcamp.transport import ssh

    variable = "AIRFLOW_CONN_BENCHCAMP_CLUSTER_SSH"
    monkeypatch.setenv(variable, "stale")
    seen: dict[str, str | None] = {}

    def stop_jobs(environment: Any, study: str, campaign: str, grace_s: float, **kwargs: Any) -> list[Any]:
        seen[environment.name] = os.environ.get(variable)
        raise ssh.TargetUnreachable("target 10.232.0.20:22 unreachable: timed out")

    monkeypatch.setattr(ssh, "stop_campaign_jobs", stop_jobs)
    said = cli._stop_remote_jobs(
        "hibench_dse", "c1", "lab_cluster", "SIGINT", {variable: '{"conn_type": "ssh"}'}
    )
    assert seen == {"lab_cluster": '{"conn_type": "ssh"}'}
    assert said.startswith("its jobs could not be stopped on lab_cluster (target 10.232.0.20:22 unreachable")
    assert "no job" not in said


def test_a_failed_gate_is_exit_3_naming_the_cap_or_the_budget_that_stopped_its_cell(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Exit 3 says what more repetitions could still do: a cell still over the σ gate at the cap
    of its adaptive repetitions, or cut by the budget, says which (issue 50, item 6)."""
    plan, _ = attempts.begin_attempt(_plan("c1"), "hibench_dse", "c1", resume=False)
    attempts.save_plan(plan, "hibench_dse", "c1")
    for unit in _units(plan):
        _archive(unit, "ok")
    gate = {
        "study": "hibench_dse",
        "campaign": "c1",
        "environment": "local_lab",
        "expectation": "stddev_pct_max",
    }
    failures = [
        ValidationFailure(**gate, workload="wordcount", cell_key="wc_a", details="σ% 14.2 > 10\nat n = 4"),
        ValidationFailure(**gate, workload="wordcount", cell_key="wc_b", details="σ% 11.9 > 10"),
        ValidationFailure(**gate, workload="wordcount", cell_key="wc_c", details="σ% 12.0 > 10"),
    ]
    archive.save_validation("hibench_dse", "c1", failures)
    stops = [
        {"environment": "local_lab", "cell_key": "wc_a", "reason": "max_repetitions", "max_repetitions": 4, "repetitions": 4},
        {"environment": "local_lab", "cell_key": "wc_b", "reason": "budget", "max_repetitions": 4, "repetitions": 3},
    ]  # fmt: skip
    lines = outcome.validation_lines(failures, stops)
    assert lines == [
        "  local_lab wc_a: stddev_pct_max: σ% 14.2 > 10 (still so at the cap of 4 repetitions)",
        "  local_lab wc_b: stddev_pct_max: σ% 11.9 > 10 (still so after 3 repetitions, when the budget held no more)",
        "  local_lab wc_c: stddev_pct_max: σ% 12.0 > 10",
    ]
    result = outcome.campaign_outcome("hibench_dse", "c1", 0)
    assert result.code == ExitCode.VALIDATION_FAILED
    assert result.lines[0] == "3 expectation(s) failed (cells marked in the report):"
    assert result.lines[1:] == [line.split(" (")[0] for line in lines]  # no adaptive round archived here
    assert outcome.validation_lines(failures * 2, [])[-1] == "  and 1 more"
    # the UI's run fails at publish with the same cells first and a one-line message
    with pytest.raises(finish.ValidationGateFailed) as failed:
        finish.gate("hibench_dse", "c1", fail_on_validation=True)
    assert (
        str(failed.value)
        == "campaign c1 did not pass validation: 3 failed expectation(s), 0 failed record(s)"
    )
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"{failed.value} (cells marked in the report):", *result.lines[1:]]
    assert (
        finish.gate("hibench_dse", "c1", fail_on_validation=False)
        == "3 failed expectation(s), 0 failed record(s)"
    )
