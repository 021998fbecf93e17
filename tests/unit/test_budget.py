"""A campaign's wall-time budget (issue 50, item 2): the duration a user writes, what a
repetition took from its archived steps, the adaptive repetitions it affords (furthest from the
target first), the cells it stops with the reason `budget`, and a plan it cannot hold refused
before anything runs, naming the minimum."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.records import ResultRecord, cell_key
from benchcamp.core.spec import load_spec
from benchcamp.pipeline import adaptive, archive, attempts, budget
from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf

STUDY, CAMPAIGN, ENV = "hibench_dse", "budget_test", "local_lab"
WIDE = {"data_size_gb": 0.012, "maps": 4, "reduces": 2}  # far from a 5 % target
NEAR = {"data_size_gb": 0.017, "maps": 4, "reduces": 2}  # just short of it
START = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("600", 600.0), ("90s", 90.0), ("10m", 600.0), ("1h30m", 5400.0), ("1.5h", 5400.0), (" 2m 30s ", 150.0)],
)
def test_a_budget_is_written_as_people_write_durations(text: str, seconds: float) -> None:
    assert budget.parse_budget(text) == seconds


@pytest.mark.parametrize("text", ["ten minutes", "10 min", "5x", "0", "-3m", "0.5s", "m"])
def test_a_budget_that_is_no_duration_is_refused_saying_what_to_give(text: str) -> None:
    with pytest.raises(budget.BudgetError, match=r"budget"):
        budget.parse_budget(text)


def _step(rep_dir: Path, step: str, seconds: float, at: datetime) -> None:
    directory = archive.step_dir(rep_dir, step, 1)
    directory.mkdir(parents=True, exist_ok=True)
    meta = {"started_at": at.isoformat(), "finished_at": (at + timedelta(seconds=seconds)).isoformat()}
    (directory / "meta.json").write_text(json.dumps(meta))


def _repetition(root: Path, params: dict[str, Any], repetition: int, value: float, steps_s: float) -> None:
    """A measured repetition as the DAG archives it: its three steps timed, its duration record."""
    rep_dir = archive.repetition_dir(STUDY, CAMPAIGN, cell_key("wordcount", params), repetition, root)
    for number, step in enumerate(("clean", "generate", "execute")):
        _step(rep_dir, step, steps_s / 3, START + timedelta(seconds=number))
    record = ResultRecord(
        study=STUDY, campaign=CAMPAIGN, environment=ENV, workload="wordcount", params=params,
        repetition=repetition, metric="duration_s", value=value, unit="s", status="ok",
        started_at=START, finished_at=START,
    )  # fmt: skip
    archive.save_records(rep_dir, [record])


def _unit(params: dict[str, Any], repetition: int, position: int) -> dict[str, Any]:
    return {"study": STUDY, "campaign": CAMPAIGN, "environment": ENV, "workload": "wordcount", "params": params,
            "repetition": repetition, "ladder": "tiny", "position": position, "order": "sequential"}  # fmt: skip


def test_a_repetition_takes_what_its_steps_last_tries_took(tmp_path: Path) -> None:
    rep_dir = tmp_path / "rep1"
    _step(rep_dir, "clean", 2.0, START)
    _step(rep_dir, "generate", 5.0, START)
    (archive.step_dir(rep_dir, "execute", 1)).mkdir(parents=True)  # a first try that left no meta.json
    _step(rep_dir, "execute", 11.0, START)  # try 1 rewritten as it ended: 11 s
    assert budget.repetition_seconds(rep_dir) == pytest.approx(18.0)
    assert budget.repetition_seconds(tmp_path / "never_ran") is None


def test_the_budget_affords_the_cells_furthest_from_their_target_first() -> None:
    costs = budget.Costs({"a": 10.0, "b": 10.0, "c": 10.0}, stretch=1.5)  # 15 s each with the harness
    assert budget.afford([("a", 1.2), ("b", 4.0), ("c", 2.0)], costs, 31.0) == {"b", "c"}
    assert budget.afford([("a", 1.2), ("b", 4.0)], costs, 14.9) == set()
    # a cell no repetition of which was timed gets none: nothing says it fits
    assert budget.afford([("untimed", 9.0), ("a", 1.0)], costs, 100.0) == {"a"}


def _planned_campaign(root: Path) -> list[dict[str, Any]]:
    planned = [_unit(WIDE, 1, 1), _unit(WIDE, 2, 2), _unit(NEAR, 1, 3), _unit(NEAR, 2, 4)]
    archive.campaign_dir(STUDY, CAMPAIGN, root).mkdir(parents=True)
    attempts._record(archive.campaign_dir(STUDY, CAMPAIGN, root), CAMPAIGN, 1, False, 0, None)
    started = json.loads((archive.campaign_dir(STUDY, CAMPAIGN, root) / attempts.ATTEMPT_FILE).read_text())
    started["started_at"] = START.isoformat()
    (archive.campaign_dir(STUDY, CAMPAIGN, root) / attempts.ATTEMPT_FILE).write_text(json.dumps(started))
    attempts.save_plan({ENV: planned}, STUDY, CAMPAIGN, root)  # type: ignore[dict-item]
    _repetition(root, WIDE, 1, 5.0, 30.0)
    _repetition(root, WIDE, 2, 7.0, 30.0)  # CI far beyond 5 %
    _repetition(root, NEAR, 1, 5.60, 30.0)
    _repetition(root, NEAR, 2, 5.90, 30.0)  # CI about 35 %: short too, but nearer
    return planned


def test_a_round_gives_what_the_budget_holds_and_stops_the_rest_for_the_budget(tmp_path: Path) -> None:
    """Four repetitions of 30 s in a campaign 150 s old: stretch 150/120 = 1.25, 37.5 s a repetition.
    With a 200 s budget 50 s are left: one more repetition, to the cell furthest from the target."""
    planned = _planned_campaign(tmp_path)
    now = START + timedelta(seconds=150)
    added = adaptive.run_round(planned, 1, False, 5.0, 4, None, 2, root=tmp_path, budget_s=200.0, now=now)  # type: ignore[arg-type]
    assert [(unit["params"], unit["repetition"]) for unit in added] == [(WIDE, 3)]
    stops = {stop["cell_key"]: stop["reason"] for stop in adaptive.stops(STUDY, CAMPAIGN, tmp_path)}
    assert stops == {cell_key("wordcount", NEAR): "budget"}
    # a budget already spent adds nothing; without a budget both cells get their repetition
    assert (
        adaptive.run_round(planned, 1, False, 5.0, 4, None, 2, root=tmp_path, budget_s=120.0, now=now) == []
    )  # type: ignore[arg-type]
    both = adaptive.run_round(planned, 1, False, 5.0, 4, None, 2, root=tmp_path, now=now)  # type: ignore[arg-type]
    assert sorted(unit["params"]["data_size_gb"] for unit in both) == [0.012, 0.017]


def test_a_budget_needs_a_target_and_a_number_of_seconds() -> None:
    spec = load_spec(STUDY)
    conf = {"ladder": "tiny", "repetitions": 2, "target_ci_pct": 10, "max_repetitions": 4}
    assert check_conf(spec, {**conf, "budget_s": 480}).budget_s == 480.0
    with pytest.raises(CampaignConfError, match=r"budget_s bounds the adaptive repetitions.*target_ci_pct"):
        check_conf(spec, {"ladder": "tiny", "budget_s": 480})
    for bad in ("10m", 0, True, -5):
        with pytest.raises(CampaignConfError, match=r"budget_s must be a number of seconds"):
            check_conf(spec, {**conf, "budget_s": bad})


def test_a_plan_an_earlier_campaign_says_exceeds_the_budget_is_refused_naming_the_minimum(
    tmp_path: Path,
) -> None:
    _planned_campaign(tmp_path)  # four repetitions of 30 s each: two cells, two each
    plan = {ENV: [_unit(WIDE, 1, 1), _unit(WIDE, 2, 2), _unit(NEAR, 1, 3), _unit(NEAR, 2, 4)]}
    problem = budget.check_plan_fits(STUDY, "next", 100.0, plan, tmp_path)  # type: ignore[arg-type]
    assert problem is not None
    assert "budget 1 min 40 s is too small for one pass of the plan on local_lab" in problem
    assert "took at least 2 min 0 s in campaign budget_test" in problem
    assert "give a budget of at least 2 min 0 s" in problem
    assert budget.check_plan_fits(STUDY, "next", 120.0, plan, tmp_path) is None  # type: ignore[arg-type]
    # nothing measured these cells on another target: nothing to refuse by
    assert budget.check_plan_fits(STUDY, "next", 1.0, {"local_lab_yarn": plan[ENV]}, tmp_path) is None  # type: ignore[arg-type]
