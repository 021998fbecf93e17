"""`benchcamp run`'s progress: read from the archive as the pipeline's own writers leave it (the plan,
the adaptive rounds, the step tries, the records, the failures), drawn live on a terminal and as
one line per repetition anywhere else. Every time is given: nothing here waits on a clock."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import statistics
from argparse import Namespace
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.records import ResultRecord, cell_key, read_jsonl
from benchcamp.core.spec import load_spec
from benchcamp.core.steps import ArchivedStep
from benchcamp.ops import cli
from benchcamp.pipeline import adaptive, archive, attempts
from benchcamp.pipeline.campaign.conf import check_conf
from benchcamp.pipeline.campaign.plan import context_for, plan_units
from benchcamp.pipeline.campaign.steps import failure_of, failure_recorded
from benchcamp.pipeline.campaign.unit import Plan, RepetitionUnit
from benchcamp.pipeline.progress import (
    Activity,
    CampaignWatch,
    Planned,
    Progress,
    RepetitionEnded,
    RoundAdded,
    StepFailed,
    TargetProgress,
)
from benchcamp.presentation import progress_display
from benchcamp.presentation.progress_display import (
    POLL_S,
    about_text,
    clock_text,
    event_line,
    follow_campaign,
    render,
)
from benchcamp.transport import ssh
from benchcamp.workloads import get_workload
from rich.console import Console

STUDY, CAMPAIGN, ENV = "hibench_dse", "progress", "local_lab"
WORDCOUNT = "wordcount|data_size_gb=0.012|maps=4|reduces=2"
HIVE = "hive_aggregation|data_size_gb=0.012"
T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # the target's clock in the step archives
ERROR = "step 'execute' failed (exit 1); see execute/try1/stderr.log:\nException in thread main"
DATA = Path(__file__).resolve().parents[1] / "data" / "adaptive"


def _plan() -> Plan:
    """The Hive cell's warm-up, then two repetitions of each cell (the DAG's plan task)."""
    spec = load_spec(STUDY)
    conf = check_conf(
        spec,
        {
            "ladder": "tiny",
            "workloads": ["wordcount", "hive_aggregation"],
            "repetitions": 2,
            "cells": [WORDCOUNT, HIVE],
        },
    )
    return plan_units(spec, conf, CAMPAIGN)


def _begin(plan: Plan, root: Path, campaign: str = CAMPAIGN) -> Plan:
    """The plan task's writes: the attempt (attempt.json), then its plan (plan.json)."""
    units, _ = attempts.begin_attempt(plan, STUDY, campaign, resume=False, root=root)
    attempts.save_plan(units, STUDY, campaign, root)
    return units


def _unit(plan: Plan, key: str, repetition: int) -> RepetitionUnit:
    return next(
        unit
        for unit in plan[ENV]
        if cell_key(unit["workload"], unit["params"]) == key and unit["repetition"] == repetition
    )


def _meta(try_dir: Path, step: str, exit_code: int, started: datetime, finished: datetime) -> None:
    """A step try's meta.json, with the keys `ssh.run_step` writes once the job ended."""
    try_dir.mkdir(parents=True, exist_ok=True)
    meta = {
        "step": step, "connection": "benchcamp_lab_ssh", "remote_job_dir": "/tmp/job", "exit_code": exit_code,
        "started_at": started.isoformat(), "finished_at": finished.isoformat(),
        "duration_s": (finished - started).total_seconds(), "try_number": 1,
    }  # fmt: skip
    (try_dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")


def _measure(
    unit: RepetitionUnit, start: datetime, seconds: float, root: Path, error: str = "", clean: bool = True
) -> Path:
    """A repetition as its steps archive it: a clean try (1 s) and an execute try, then the
    workload's duration record (ok, or failed with the reason `failure_of` makes of the error)."""
    rep_dir = archive.unit_repetition_dir(unit, root)
    execute_start, end = start + timedelta(seconds=1 if clean else 0), start + timedelta(seconds=seconds)
    if clean:
        _meta(archive.step_dir(rep_dir, "clean", 1), "clean", 0, start, execute_start)
    execute_dir = archive.step_dir(rep_dir, "execute", 1)
    _meta(execute_dir, "execute", 1 if error else 0, execute_start, end)
    ctx = context_for(unit)
    step = ArchivedStep(execute_dir, 1 if error else 0, execute_start, end)
    archive.save_records(rep_dir, [get_workload(ctx.workload).duration_record(ctx, step, ok=not error)])
    if error:
        archive.write_failure(rep_dir, failure_of("execute", ssh.StepFailed(error), execute_dir))
    return rep_dir


@pytest.fixture
def since() -> datetime:
    """When `benchcamp run` started Airflow: just before the plan task writes its attempt."""
    return datetime.now(UTC) - timedelta(seconds=1)


def _at(since: datetime, seconds: float) -> datetime:
    return since + timedelta(seconds=seconds)


def _target(progress: Progress) -> TargetProgress:
    (target,) = progress.targets
    return target


def _ended(progress: Progress) -> list[RepetitionEnded]:
    return [event for event in progress.events if isinstance(event, RepetitionEnded)]


# -- counts, the estimate, failures -------------------------------------------------------------


def test_counts_and_the_estimate_follow_the_archive(tmp_path: Path, since: datetime) -> None:
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    assert watch.read(_at(since, 5)) == Progress(5.0, False, (), ())  # Airflow still parsing
    plan = _begin(_plan(), tmp_path)
    first = watch.read(_at(since, 10))
    assert first.events == (Planned(ENV, measured=4, warmups=1, kept=0),)
    assert _target(first).phase == "before the first repetition (preflight)"
    assert _target(first).remaining_s is None  # nothing measured yet to estimate from

    _measure(_unit(plan, HIVE, 0), T0, 10, tmp_path)
    _measure(_unit(plan, WORDCOUNT, 1), T0 + timedelta(seconds=17), 18, tmp_path)
    second = watch.read(_at(since, 65))
    # left: each cell's clean (1 s) and execute (9 s, 17 s) for the other 3 units, 38 s, and the
    # gaps between steps as they were so far: 35 s on the target's clock for 28 s of steps
    assert [
        (e.label, e.warmup, e.ok, e.done, e.planned, e.duration_s, e.remaining_s) for e in _ended(second)
    ] == [
        (f"{HIVE} rep 0", True, True, 1, 1, 10.0, 47.5),
        (f"{WORDCOUNT} rep 1", False, True, 1, 4, 18.0, 47.5),
    ]
    assert [event_line(event) for event in second.events] == [
        f"[local_lab] warm-up 1/1 ok  {HIVE} rep 0  (10.0 s; elapsed 1 min 05 s, about 50 s left)",
        f"[local_lab] 1/4 ok  {WORDCOUNT} rep 1  (18.0 s; elapsed 1 min 05 s, about 50 s left)",
    ]
    state = _target(second)
    assert (state.measured_done, state.measured_planned, state.warmups_done) == (1, 4, 1)
    assert (state.remaining_s, state.phase) == (47.5, "between steps")
    assert watch.read(_at(since, 66)).events == ()  # an ended repetition is read once


def test_the_estimate_counts_only_the_steps_left(tmp_path: Path, since: datetime) -> None:
    """`airflow dags test` runs every clean, then every generate, then every execute: a repetition
    whose clean ended has only its execute left, and its own span is not what one takes."""
    plan = _begin({ENV: [_unit(_plan(), WORDCOUNT, 1), _unit(_plan(), WORDCOUNT, 2)]}, tmp_path)
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    first, second = (archive.unit_repetition_dir(unit, tmp_path) for unit in plan[ENV])
    _meta(archive.step_dir(first, "clean", 1), "clean", 0, T0, T0 + timedelta(seconds=1))
    _meta(
        archive.step_dir(second, "clean", 1), "clean", 0, T0 + timedelta(seconds=2), T0 + timedelta(seconds=3)
    )
    assert _target(watch.read(_at(since, 5))).remaining_s is None  # no repetition ended yet
    _measure(plan[ENV][0], T0 + timedelta(seconds=4), 10, tmp_path, clean=False)
    (ended,) = _ended(watch.read(_at(since, 20)))
    assert ended.duration_s == 11.0  # its clean and its execute, not the 14 s from one to the other
    # the second's execute (10 s) is left, stretched by 14 s of the target's clock over 12 s of steps
    assert ended.remaining_s == pytest.approx(10 * 14 / 12)


def test_a_failure_shows_the_first_line_of_its_reason(tmp_path: Path, since: datetime) -> None:
    plan = _begin(_plan(), tmp_path)
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    watch.read(_at(since, 1))
    _measure(_unit(plan, WORDCOUNT, 1), T0, 20, tmp_path, error=ERROR)
    (ended,) = _ended(watch.read(_at(since, 30)))
    assert (ended.ok, ended.failed_step, ended.reason) == (
        False,
        "execute",
        "step 'execute' failed (exit 1); see execute/try1/stderr.log:",
    )
    assert event_line(ended) == (
        f"[local_lab] 1/4 FAILED  {WORDCOUNT} rep 1  (20.0 s; elapsed 30 s, about 1 min left)  "
        "at execute: step 'execute' failed (exit 1); see execute/try1/stderr.log:"
    )
    assert _target(watch.read(_at(since, 31))).measured_failed == 1


def test_a_failed_repetition_waits_for_its_reason_which_follows_its_records(
    tmp_path: Path, since: datetime
) -> None:
    plan = _begin(_plan(), tmp_path)
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    watch.read(_at(since, 1))
    unit = _unit(plan, WORDCOUNT, 1)
    rep_dir = _measure(unit, T0, 20, tmp_path, error=ERROR)
    reason = (rep_dir / archive.FAILURE_FILE).read_text(encoding="utf-8")
    (rep_dir / archive.FAILURE_FILE).unlink()  # the records are in, the reason not yet
    assert _ended(watch.read(_at(since, 2))) == []
    (rep_dir / archive.FAILURE_FILE).write_text(reason, encoding="utf-8")
    assert [event.failed_step for event in _ended(watch.read(_at(since, 3)))] == ["execute"]
    # none ever comes: shown without one, at the last read at once
    other = _measure(_unit(plan, WORDCOUNT, 2), T0 + timedelta(seconds=30), 20, tmp_path, error=ERROR)
    (other / archive.FAILURE_FILE).unlink()
    (last,) = _ended(watch.read(_at(since, 60), final=True))
    assert (last.failed_step, last.reason) == ("", "no reason archived")
    assert event_line(last).endswith("at an unknown step: no reason archived")


# -- adaptive rounds -----------------------------------------------------------------------------


def _planned_repetitions_ended(tmp_path: Path, since: datetime) -> tuple[Plan, CampaignWatch, datetime]:
    """Two cells' planned repetitions (and the Hive warm-up) ended, watched from the start; the
    plan, the watch and when the last one ended."""
    plan = _begin(_plan(), tmp_path)
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    watch.read(_at(since, 1))
    start = T0
    for (key, repetition), seconds in zip(
        [(HIVE, 0), (WORDCOUNT, 1), (WORDCOUNT, 2), (HIVE, 1), (HIVE, 2)], [5, 10, 14, 10, 16], strict=True
    ):
        _measure(_unit(plan, key, repetition), start, seconds, tmp_path)
        start += timedelta(seconds=seconds)
    return plan, watch, start


def test_a_round_the_budget_stopped_says_for_how_many_cells(tmp_path: Path, since: datetime) -> None:
    """A budget already spent: the round adds nothing and the line says the budget stopped both
    cells (issue 50, item 2)."""
    plan, watch, _ = _planned_repetitions_ended(tmp_path, since)
    watch.read(_at(since, 60))
    spent = adaptive.run_round(plan[ENV], 1, False, 0.1, 3, None, 2, root=tmp_path, budget_s=1.0)
    assert spent == []
    (event,) = watch.read(_at(since, 61)).events
    assert event == RoundAdded(ENV, round_number=1, added=0, planned=4, budget_stopped=2)
    assert event_line(event) == (
        f"[{ENV}] adaptive round 1 added 0 repetition(s): 4 measured planned; "
        "the budget held no more for 2 cell(s)"
    )


def test_an_adaptive_round_grows_the_planned_total(tmp_path: Path, since: datetime) -> None:
    plan, watch, start = _planned_repetitions_ended(tmp_path, since)
    assert _target(watch.read(_at(since, 60))).phase.startswith("every planned repetition ended")
    # the DAG's first adaptive round: neither cell is within 0.1 % yet, each gets a 3rd repetition
    added = adaptive.run_round(plan[ENV], 1, False, 0.1, 3, None, 2, root=tmp_path)
    assert len(added) == 2
    grown = watch.read(_at(since, 61))
    assert grown.events == (RoundAdded(ENV, round_number=1, added=2, planned=6),)
    state = _target(grown)
    assert (state.measured_done, state.measured_planned, state.added) == (4, 6, 2)
    # a clean (1 s) and an execute each: WordCount's took 9 and 13 s, the Hive cell's 4, 9 and 15 s
    assert state.remaining_s == pytest.approx(1 + 11 + 1 + 28 / 3)
    third = next(unit for unit in added if unit["workload"] == "wordcount")
    _measure(third, start, 12, tmp_path)
    (ended,) = _ended(watch.read(_at(since, 75)))
    assert (ended.label, ended.done, ended.planned) == (f"{WORDCOUNT} rep 3", 5, 6)
    assert watch.read(_at(since, 76)).events == ()  # the round file read once (and its units)


def test_the_recorded_lab_campaign_replays_round_by_round(tmp_path: Path, since: datetime) -> None:
    """The adaptive lab campaign of tests/data/adaptive (see test_adaptive): its records and the
    round files its DAG archived, laid down in the order the DAG wrote them."""
    records = read_jsonl((DATA / "adaptive_example_records.jsonl").read_text(), "recorded")
    by_rep: dict[tuple[str, int], list[ResultRecord]] = {}
    for record in records:
        by_rep.setdefault((cell_key(record.workload, record.params), record.repetition), []).append(record)
    planned: list[RepetitionUnit] = [
        {
            "study": STUDY,
            "campaign": "adaptive_example",
            "environment": ENV,
            "workload": record.workload,
            "params": record.params,
            "repetition": record.repetition,
            "ladder": "tiny",
        }  # fmt: skip
        for record in records
        if record.metric == "duration_s" and record.repetition <= 2
    ]
    _begin({ENV: planned}, tmp_path, "adaptive_example")
    watch = CampaignWatch(STUDY, "adaptive_example", since, root=tmp_path)
    rounds = adaptive.adaptive_dir(STUDY, "adaptive_example", ENV, tmp_path)
    rounds.mkdir(parents=True)

    def took(items: list[ResultRecord]) -> float:
        return (
            max(item.finished_at for item in items) - min(item.started_at for item in items)
        ).total_seconds()

    def measured(up_to: int) -> Progress:
        """The repetitions' execute tries (their records' times are the try's) and records."""
        for (key, repetition), items in by_rep.items():
            if repetition == up_to or (up_to == 2 and repetition <= 2):
                rep_dir = archive.repetition_dir(STUDY, "adaptive_example", key, repetition, tmp_path)
                started = min(item.started_at for item in items)
                _meta(
                    archive.step_dir(rep_dir, "execute", 1),
                    "execute",
                    0,
                    started,
                    started + timedelta(seconds=took(items)),
                )
                archive.save_records(rep_dir, items)
        return watch.read(_at(since, 600))

    first = measured(2)
    assert first.events[0] == Planned(ENV, measured=12, warmups=3, kept=0)
    assert len(_ended(first)) == 15 and all(event.ok for event in _ended(first))
    state = _target(first)
    assert (state.measured_done, state.measured_planned, state.warmups_done) == (12, 12, 3)
    assert state.remaining_s == 0.0
    # round 1 gives every cell a 3rd repetition: 3 of WordCount's, 3 of the Hive cells', each as
    # long as its workload's so far, stretched as the campaign's steps were by the gaps between them
    ran = {rep: items for rep, items in by_rep.items() if rep[1] <= 2}
    means = {
        workload: statistics.mean(
            took(items) for (key, _), items in ran.items() if key.startswith(f"{workload}|")
        )
        for workload in ("wordcount", "hive_aggregation")
    }
    seen = [item for items in ran.values() for item in items]
    stretch = took(seen) / sum(took(items) for items in ran.values())

    shutil.copy(DATA / "adaptive_example_round1.json", rounds / "round1.json")
    grown = watch.read(_at(since, 601))
    assert grown.events == (RoundAdded(ENV, round_number=1, added=6, planned=18),)
    assert _target(grown).remaining_s == pytest.approx(
        3 * (means["wordcount"] + means["hive_aggregation"]) * stretch
    )
    assert [event.done for event in _ended(measured(3))] == [13, 14, 15, 16, 17, 18]
    shutil.copy(DATA / "adaptive_example_round2.json", rounds / "round2.json")
    assert watch.read(_at(since, 602)).events == (RoundAdded(ENV, round_number=2, added=4, planned=22),)
    last = _ended(measured(4))
    assert [(event.done, event.planned) for event in last] == [(19, 22), (20, 22), (21, 22), (22, 22)]
    assert {event.label.split(" rep ")[1] for event in last} == {"4"}
    shutil.copy(DATA / "adaptive_example_round3.json", rounds / "round3.json")  # final: adds nothing
    done = watch.read(_at(since, 603))
    assert done.events == () and _target(done).measured_done == 22 and _target(done).added == 10


# -- the current cell and step -------------------------------------------------------------------


def _stamp(path: Path, seconds: int) -> None:
    """A try folder's time (files are written into it as the step runs): set, not waited for."""
    os.utime(path, (T0.timestamp() + seconds, T0.timestamp() + seconds))


def test_the_current_step_is_the_latest_try_in_flight(tmp_path: Path, since: datetime) -> None:
    plan = _begin(_plan(), tmp_path)
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    campaign_dir = archive.campaign_dir(STUDY, CAMPAIGN, tmp_path)
    preflight = archive.step_dir(campaign_dir / "preflight", ENV, 1)
    preflight.mkdir(parents=True)
    assert _target(watch.read(_at(since, 1))).activity == Activity("preflight", 1, True)
    _meta(preflight, ENV, 0, T0, T0)

    rep_dir = archive.unit_repetition_dir(_unit(plan, HIVE, 0), tmp_path)
    clean1 = archive.step_dir(rep_dir, "clean", 1)
    clean1.mkdir(parents=True)
    with pytest.raises(ssh.TargetUnreachable), failure_recorded("clean", clean1):
        raise ssh.TargetUnreachable("cannot reach target 127.0.0.1:2222\nafter 3 tries")
    clean2 = archive.step_dir(rep_dir, "clean", 2)
    clean2.mkdir()
    _stamp(clean1, 1)
    _stamp(clean2, 2)
    state = _target(watch.read(_at(since, 2)))
    assert state.activity == Activity("clean", 2, True, f"{HIVE} rep 0", "cannot reach target 127.0.0.1:2222")
    assert progress_display.activity_text(state) == (
        f"{HIVE} rep 0 · clean try 2 (try 1 failed: cannot reach target 127.0.0.1:2222)"
    )
    _meta(clean2, "clean", 0, T0, T0 + timedelta(seconds=1))
    generate = archive.step_dir(rep_dir, "generate", 1)
    generate.mkdir(parents=True)
    _stamp(clean2, 3)
    _stamp(generate, 4)
    assert _target(watch.read(_at(since, 3))).activity == Activity("generate", 1, True, f"{HIVE} rep 0")
    _meta(generate, "generate", 0, T0, T0 + timedelta(seconds=2))
    between = _target(watch.read(_at(since, 4)))
    assert between.activity == Activity("generate", 1, False, f"{HIVE} rep 0")
    assert (
        progress_display.activity_text(between) == f"{HIVE} rep 0 · generate try 1 ended, next step starting"
    )


def test_a_failed_preflight_try_is_shown_as_it_happens(tmp_path: Path, since: datetime) -> None:
    _begin(_plan(), tmp_path)
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    watch.read(_at(since, 1))
    preflight = archive.step_dir(archive.campaign_dir(STUDY, CAMPAIGN, tmp_path) / "preflight", ENV, 1)
    preflight.mkdir(parents=True)
    with pytest.raises(ssh.TargetUnreachable), failure_recorded("preflight", preflight):
        raise ssh.TargetUnreachable(
            "cannot reach target 127.0.0.1:2222 through connection 'benchcamp_lab_ssh'"
        )
    (event,) = watch.read(_at(since, 2)).events
    assert event == StepFailed(
        ENV, "preflight", ENV, 1, "cannot reach target 127.0.0.1:2222 through connection 'benchcamp_lab_ssh'"
    )
    assert event_line(event) == (
        "[local_lab] preflight try 1 FAILED: cannot reach target 127.0.0.1:2222 through connection 'benchcamp_lab_ssh'"
    )
    assert watch.read(_at(since, 3)).events == ()


# -- what the watcher must survive ---------------------------------------------------------------


def test_half_written_files_are_read_at_the_next_poll(tmp_path: Path, since: datetime) -> None:
    watch = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path)
    plan = _begin(_plan(), tmp_path)
    plan_file = archive.campaign_dir(STUDY, CAMPAIGN, tmp_path) / attempts.PLAN_FILE
    whole = plan_file.read_text(encoding="utf-8")
    plan_file.write_text(whole[: len(whole) // 2], encoding="utf-8")
    assert not watch.read(_at(since, 1)).planned
    plan_file.write_text(whole, encoding="utf-8")
    assert watch.read(_at(since, 2)).planned

    rep_dir = _measure(_unit(plan, HIVE, 0), T0, 10, tmp_path)
    records = (rep_dir / archive.RECORDS_FILE).read_text(encoding="utf-8")
    (rep_dir / archive.RECORDS_FILE).write_text(records[:40], encoding="utf-8")
    (rep_dir / "clean" / "try1" / "meta.json").write_text('{"started_at": "2026-', encoding="utf-8")
    assert _ended(watch.read(_at(since, 3))) == []
    (rep_dir / archive.RECORDS_FILE).write_text(records, encoding="utf-8")
    (ended,) = _ended(watch.read(_at(since, 4)))
    assert ended.duration_s == 9.0  # the execute try's times: the clean try's meta.json is no JSON

    rep_dir = _measure(_unit(plan, WORDCOUNT, 1), T0 + timedelta(seconds=10), 10, tmp_path, error=ERROR)
    reason = (rep_dir / archive.FAILURE_FILE).read_text(encoding="utf-8")
    (rep_dir / archive.FAILURE_FILE).write_text(reason[:30], encoding="utf-8")
    assert _ended(watch.read(_at(since, 5))) == []
    (rep_dir / archive.FAILURE_FILE).write_text(reason, encoding="utf-8")
    assert [event.failed_step for event in _ended(watch.read(_at(since, 6)))] == ["execute"]

    round_file = adaptive.adaptive_dir(STUDY, CAMPAIGN, ENV, tmp_path) / "round1.json"
    added = {**_unit(plan, WORDCOUNT, 2), "repetition": 3}
    text = json.dumps({"round": 1, "environment": ENV, "decisions": [], "added_units": [added]})
    round_file.parent.mkdir(parents=True)
    round_file.write_text(text[:-20], encoding="utf-8")
    assert watch.read(_at(since, 7)).events == ()
    round_file.write_text(text, encoding="utf-8")
    assert watch.read(_at(since, 8)).events == (RoundAdded(ENV, 1, 1, 5),)


def test_an_earlier_attempt_in_the_folder_is_not_this_runs(tmp_path: Path) -> None:
    """Until the plan task moves it aside, the folder holds the attempt before: not shown."""
    plan = _begin(_plan(), tmp_path)
    _measure(_unit(plan, HIVE, 0), T0, 10, tmp_path)
    later = datetime.now(UTC) + timedelta(seconds=1)
    watch = CampaignWatch(STUDY, CAMPAIGN, later, root=tmp_path)
    assert not watch.read(_at(later, 1)).planned


def test_kept_repetitions_count_as_done_and_are_not_shown_again(tmp_path: Path, since: datetime) -> None:
    plan = _begin(_plan(), tmp_path)
    for (key, repetition), start in zip([(HIVE, 0), (WORDCOUNT, 1)], [0, 10], strict=True):
        _measure(_unit(plan, key, repetition), T0 + timedelta(seconds=start), 10, tmp_path)
    units, attempt = attempts.begin_attempt(_plan(), STUDY, CAMPAIGN, resume=True, root=tmp_path)
    attempts.save_plan(units, STUDY, CAMPAIGN, tmp_path)
    assert attempt.kept == 1  # the ok measured repetition; its cell's warm-up runs again
    progress = CampaignWatch(STUDY, CAMPAIGN, since, root=tmp_path).read(_at(since, 1))
    assert progress.events == (Planned(ENV, measured=4, warmups=1, kept=1),)
    assert event_line(progress.events[0]) == (
        "[local_lab] planned: 4 measured repetition(s) (1 kept from an earlier attempt), 1 warm-up(s)"
    )
    state = _target(progress)
    assert (state.measured_done, state.kept, state.remaining_s) == (1, 1, None)


# -- the console -----------------------------------------------------------------------------------


def test_times_read_as_people_say_them() -> None:
    assert [clock_text(s) for s in (0.4, 42, 65, 3599, 3720)] == [
        "0 s",
        "42 s",
        "1 min 05 s",
        "59 min 59 s",
        "1 h 02 min",
    ]
    assert [about_text(s) for s in (4, 29, 45, 58, 170, 4800)] == [
        "about 10 s", "about 30 s", "about 50 s", "about 1 min", "about 3 min", "about 1 h 20 min",
    ]  # fmt: skip


class _Script:
    """The DAG's writes between the watcher's reads: `sleep` runs the next one, `poll` says the run
    ended once none is left, and the clock moves 10 s a read."""

    def __init__(self, since: datetime, steps: list[Callable[[], None]], code: int = 0) -> None:
        self.steps, self.since, self.code, self.reads = iter(steps), since, code, 0
        self.done = False

    def poll(self) -> int | None:
        return self.code if self.done else None

    def sleep(self, seconds: float) -> None:
        assert seconds == POLL_S
        try:
            next(self.steps)()
        except StopIteration:
            self.done = True

    def clock(self) -> datetime:
        self.reads += 1
        return self.since + timedelta(seconds=10 * self.reads)


def test_a_stream_that_is_no_terminal_gets_one_line_per_repetition(tmp_path: Path, since: datetime) -> None:
    plan = _plan()
    units: dict[str, Plan] = {}

    def planned() -> None:
        units["plan"] = _begin(plan, tmp_path)

    def measure(key: str, repetition: int, start: int, seconds: float, error: str = "") -> Callable[[], None]:
        def step() -> None:
            _measure(
                _unit(units["plan"], key, repetition), T0 + timedelta(seconds=start), seconds, tmp_path, error
            )

        return step

    script = _Script(
        since,
        [
            planned,
            measure(HIVE, 0, 0, 8),
            measure(WORDCOUNT, 1, 10, 14.2),
            measure(WORDCOUNT, 2, 25, 13.6, error=ERROR),
        ],
        code=0,
    )
    stream = io.StringIO()
    code = follow_campaign(
        script.poll, STUDY, CAMPAIGN, since, stream, root=tmp_path, sleep=script.sleep, clock=script.clock
    )
    assert code == 0
    assert stream.getvalue().splitlines() == [
        "[local_lab] planned: 4 measured repetition(s), 1 warm-up(s)",
        f"[local_lab] warm-up 1/1 ok  {HIVE} rep 0  (8.0 s; elapsed 30 s, about 30 s left)",
        f"[local_lab] 1/4 ok  {WORDCOUNT} rep 1  (14.2 s; elapsed 40 s, about 30 s left)",
        f"[local_lab] 2/4 FAILED  {WORDCOUNT} rep 2  (13.6 s; elapsed 50 s, about 20 s left)  "
        "at execute: step 'execute' failed (exit 1); see execute/try1/stderr.log:",
    ]


class _Stop(BaseException):
    """What the CLI's SIGINT handler raises (`cli.Interrupted`): not an Exception."""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_display_is_live_and_a_stop_leaves_a_clean_line(
    tmp_path: Path, since: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    plan = _begin(_plan(), tmp_path)
    _measure(_unit(plan, WORDCOUNT, 1), T0, 20, tmp_path, error=ERROR)
    stream = _Terminal()

    def interrupted(_seconds: float) -> None:
        raise _Stop

    with pytest.raises(_Stop):
        follow_campaign(lambda: None, STUDY, CAMPAIGN, since, stream, root=tmp_path, sleep=interrupted)
    out = stream.getvalue()
    assert "\x1b[" in out  # drawn in place, not as lines
    assert f"1/4 FAILED  {WORDCOUNT} rep 1" in out  # the failure printed above the display
    assert "1/4 measured · 1 failed · warm-ups 0/1" in out
    assert out.endswith("\n\x1b[?25h")  # stopped: the cursor back, on a line of its own


def test_the_display_names_each_target_its_counts_and_its_step() -> None:
    target = TargetProgress(
        "local_lab", measured_planned=12, measured_ok=2, measured_failed=1, added=2, kept=0,
        warmups_planned=1, warmups_ok=1, warmups_failed=0,
        activity=Activity("execute", 1, True, f"{WORDCOUNT} rep 4"), phase="between steps", remaining_s=190.0,
    )  # fmt: skip
    console = Console(file=io.StringIO(), width=200, record=True)
    console.print(render(Progress(65.0, True, (target,), ())))
    text = console.export_text()
    assert "[local_lab]" in text
    assert (
        "3/12 measured (+2 adaptive) · 1 failed · warm-ups 1/1 · elapsed 1 min 05 s · about 3 min left"
        in text
    )
    assert f"now: {WORDCOUNT} rep 4 · execute try 1" in text
    console.print(render(Progress(3.0, False, (), ())))
    assert "waiting for the campaign's plan (Airflow starting) · elapsed 3 s" in console.export_text()


def test_a_broken_watcher_ends_the_display_not_the_wait(
    tmp_path: Path, since: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Progress:
        raise RuntimeError("boom")

    monkeypatch.setattr(CampaignWatch, "read", broken)
    script = _Script(since, [lambda: None, lambda: None], code=3)
    stream = io.StringIO()
    assert (
        follow_campaign(
            script.poll, STUDY, CAMPAIGN, since, stream, root=tmp_path, sleep=script.sleep, clock=script.clock
        )
        == 3
    )
    assert stream.getvalue() == "progress display stopped (RuntimeError: boom); the campaign goes on\n"


# -- `benchcamp run`'s wait ----------------------------------------------------------------------


class _Airflow:
    """`airflow dags test` as `_run_campaign` sees it: `poll` runs the DAG's writes, then ends."""

    def __init__(self, run: Callable[[], int]) -> None:
        self.run, self.pid = run, 0

    def poll(self) -> int:
        return self.run()

    def wait(self) -> int:  # pragma: no cover - the old blocking wait: no longer called
        raise AssertionError("the campaign is waited for by polling")


def _args(summary_file: Path | None = None) -> Namespace:
    return Namespace(study=STUDY, summary_file=summary_file)


def test_run_campaign_prints_the_progress_between_its_own_lines(
    isolated_paths: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def dag_run() -> int:
        plan = _begin({ENV: [_unit(_plan(), WORDCOUNT, 1)]}, isolated_paths / "results")
        _measure(plan[ENV][0], T0, 12.5, isolated_paths / "results")
        return 0

    monkeypatch.setattr(cli, "start_airflow", lambda *_args: _Airflow(dag_run))
    conf: dict[str, object] = {"campaign": CAMPAIGN}
    assert cli._run_campaign(_args(), {}, None, conf) == ExitCode.OK
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0] == f'running {STUDY} through Airflow (airflow dags test), conf {{"campaign": "{CAMPAIGN}"}}'
    )
    assert lines[1].startswith("Airflow's log: ")
    assert lines[2] == "[local_lab] planned: 1 measured repetition(s), 0 warm-up(s)"
    assert lines[3].startswith(f"[local_lab] 1/1 ok  {WORDCOUNT} rep 1  (12.5 s; elapsed ")
    assert lines[4:6] == ["", f"campaign:     {CAMPAIGN}"]
    assert lines[-1].startswith("exit 0: ")


def test_run_campaign_appends_its_line_to_make_runs_summary(
    isolated_paths: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make run` ends with one line per campaign: what ran, its exit status, where its report
    is, the answer's first sentence; no warehouse here, so it says why there is none."""

    def dag_run() -> int:
        plan = _begin({ENV: [_unit(_plan(), WORDCOUNT, 1)]}, isolated_paths / "results")
        _measure(plan[ENV][0], T0, 12.5, isolated_paths / "results")
        return 0

    monkeypatch.setattr(cli, "start_airflow", lambda *_args: _Airflow(dag_run))
    summary = isolated_paths / "summary.txt"
    summary.write_text("an earlier campaign's line\n")
    assert cli._run_campaign(_args(summary), {}, ENV, {"campaign": CAMPAIGN}) == ExitCode.OK
    earlier, line = summary.read_text().splitlines()
    assert earlier == "an earlier campaign's line"  # appended: one make run, two campaigns
    assert line.startswith(f"{STUDY} on {ENV} (campaign {CAMPAIGN}): exit 0; ")
    # no figures to read here (tier 1's HiBench campaign checks a line with its answer)
    assert line.endswith("; no answer (ReportError: no warehouse at "
                         f"{isolated_paths / 'warehouse' / 'benchcamp.duckdb'} (run a campaign or "
                         "`benchcamp import` first))"), line  # fmt: skip


def test_a_signal_during_the_wait_still_stops_the_campaign(
    isolated_paths: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def signalled() -> int:
        raise cli.Interrupted(signal.SIGINT)

    stopped: list[int] = []

    def stop(
        _study: str, _campaign: str, _target: object, _env: object, _process: object, signum: int
    ) -> ExitCode:
        stopped.append(signum)
        return ExitCode.INTERRUPTED

    monkeypatch.setattr(cli, "start_airflow", lambda *_args: _Airflow(signalled))
    monkeypatch.setattr(cli, "_stop_campaign", stop)
    assert cli._run_campaign(_args(), {}, None, {"campaign": CAMPAIGN}) == ExitCode.INTERRUPTED
    assert stopped == [signal.SIGINT]


# -- the results page's campaigns under way ------------------------------------------------------


def test_the_results_page_names_a_campaign_under_way_and_one_gone_quiet(tmp_path: Path) -> None:
    """Issue 50, item 5: the running campaign's counts and step on the results page, read from
    the archive; one whose files stopped changing is not called running, and one validated is gone."""
    from benchcamp.pipeline import unfinished
    from benchcamp.presentation.results_page import unfinished_notices

    plan = _begin(_plan(), tmp_path)
    _measure(_unit(plan, HIVE, 0), T0, 10, tmp_path)
    rep_dir = _measure(_unit(plan, WORDCOUNT, 1), T0 + timedelta(seconds=11), 18, tmp_path)
    _meta(archive.step_dir(rep_dir.with_name("rep2"), "clean", 1), "clean", 0, T0, T0)  # a step ended
    started = attempts.attempt_started(archive.campaign_dir(STUDY, CAMPAIGN, tmp_path))
    assert started is not None
    now = datetime.now(UTC) + timedelta(seconds=30)
    (line,) = unfinished_notices(STUDY, now, tmp_path)
    assert line.startswith(
        f"Campaign {CAMPAIGN} is running (local_lab: 1/4 measured · warm-ups 1/1 · elapsed "
    )
    assert line.endswith(
        f" · now: {WORDCOUNT} rep 2 · clean try 1 ended, next step starting). "
        "Its figures appear here once its analysis has run."
    )

    later = now + timedelta(seconds=unfinished.QUIET_S + 60)
    (quiet,) = unfinished_notices(STUDY, later, tmp_path)
    assert quiet.startswith(f"Campaign {CAMPAIGN} has not ended, and nothing of it was written for 31 min"), (
        quiet
    )
    assert ": interrupted, or in a long step (local_lab: 1/4 measured" in quiet and " · last: " in quiet

    assert unfinished_notices(STUDY, now + timedelta(seconds=unfinished.FORGOTTEN_S + 60), tmp_path) == []
    archive.save_validation(STUDY, CAMPAIGN, [], tmp_path)  # its repetitions ended: the marts have it
    assert unfinished_notices(STUDY, later, tmp_path) == []
    assert unfinished.unfinished_campaigns("ycsb_hbase_cassandra", later, tmp_path) == []
