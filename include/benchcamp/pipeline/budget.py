"""A campaign's wall-time budget (`benchcamp run --budget 10m`, conf `budget_s`).

The budget counts from the start of the campaign's attempt (`attempt.json`). The planned
repetitions always run: they are the minimum the study's figures need, and a budget too small
for them is refused before anything runs when an earlier campaign on the target says what they
take (`plan_estimate`). The budget bounds what comes after them, the adaptive repetitions: each
round gives its extra repetitions, the cells furthest from their target first, only while what
they would take still fits in what is left (`afford`); the cells it leaves out stop with the
reason `budget`, and the answer block names them.

What a repetition of a cell takes is measured, not guessed: the sum of its steps' times (each
step's last try, `meta.json`), stretched by everything else the attempt has spent so far (its
elapsed time over the measured repetitions' summed step times: the harness between steps, the
preflight and the warm-ups count against the budget too, so the estimate errs long).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from benchcamp.core.records import cell_key
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.unit import Plan

STEPS = ("clean", "generate", "execute")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(h|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}
MIN_BUDGET_S = 1.0


class BudgetError(ValueError):
    """A budget that cannot be used; the message says what to give instead."""


def parse_budget(text: str) -> float:
    """Seconds from `90s`, `10m`, `1h`, `1h30m` or a plain number of seconds."""
    cleaned = text.strip().lower().replace(" ", "")
    try:
        seconds = float(cleaned)
    except ValueError:
        parts = _DURATION.findall(cleaned)
        if not parts or "".join(f"{value}{unit}" for value, unit in parts) != cleaned:
            raise BudgetError(
                f"budget {text!r} is not a duration: give seconds or a number with h, m or s "
                "(for example 600, 10m, 1h30m)"
            ) from None
        seconds = sum(float(value) * _UNITS[unit] for value, unit in parts)
    if not math.isfinite(seconds) or seconds < MIN_BUDGET_S:
        raise BudgetError(f"budget must be at least {MIN_BUDGET_S:g} s, got {text!r}")
    return seconds


def check_budget(value: object) -> float | None:
    """A trigger conf's budget_s: None, or a positive number of seconds."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= MIN_BUDGET_S:
        raise BudgetError(f"budget_s must be a number of seconds, at least {MIN_BUDGET_S:g}, got {value!r}")
    return float(value)


def _seconds(meta: object) -> float | None:
    if not isinstance(meta, dict):
        return None
    try:
        started = datetime.fromisoformat(str(meta["started_at"]))
        finished = datetime.fromisoformat(str(meta["finished_at"]))
    except (KeyError, ValueError):
        return None
    return max((finished - started).total_seconds(), 0.0)


def repetition_seconds(rep_dir: Path) -> float | None:
    """What a repetition's steps took: each step's last try's time from its meta.json, summed
    (None when it has no timed step, e.g. it has not run)."""
    total, found = 0.0, False
    for step in STEPS:
        tries = archive.step_tries(rep_dir, step)
        if not tries:
            continue
        try:
            seconds = _seconds(json.loads((tries[-1] / "meta.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            seconds = None
        if seconds is not None:
            total, found = total + seconds, True
    return total if found else None


@dataclass(frozen=True)
class Costs:
    """What a repetition of each cell took on a target, and the harness's stretch there."""

    per_cell_s: dict[str, float]  # cell key: mean seconds of its repetitions' steps
    stretch: float  # elapsed time over the steps' summed time (at least 1)

    def of(self, cell_key: str) -> float | None:
        seconds = self.per_cell_s.get(cell_key)
        return None if seconds is None else seconds * self.stretch


def measured_costs(rep_dirs: Mapping[str, Iterable[Path]], elapsed_s: float | None) -> Costs:
    """Each cell's mean repetition time from its archived repetitions (`rep_dirs` by cell key),
    and the stretch `elapsed_s` (the target's time since the attempt began) gives it."""
    per_cell: dict[str, float] = {}
    busy = 0.0
    for key, directories in rep_dirs.items():
        found = [seconds for path in directories if (seconds := repetition_seconds(path)) is not None]
        if found:
            per_cell[key] = sum(found) / len(found)
            busy += sum(found)
    stretch = max(elapsed_s / busy, 1.0) if elapsed_s and busy > 0 else 1.0
    return Costs(per_cell, stretch)


def afford(wanted: list[tuple[str, float]], costs: Costs, left_s: float) -> set[str]:
    """The cells (of `wanted`: cell key and how far it is from its target, e.g. its CI over the
    target) whose next repetition fits in `left_s`, the furthest from the target first. A cell no
    repetition of which was timed is not given one: nothing says it fits."""
    given: set[str] = set()
    for key, _ in sorted(wanted, key=lambda item: -item[1]):
        seconds = costs.of(key)
        if seconds is not None and seconds <= left_s:
            given.add(key)
            left_s -= seconds
    return given


def plan_estimate(cells: Mapping[str, int], earlier: Costs) -> tuple[float, list[str]]:
    """What the planned repetitions (`cells`: cell key and repetitions, warm-ups included) take at
    an earlier campaign's costs, and the cells it did not measure (not counted)."""
    total = 0.0
    unknown = []
    for key, repetitions in cells.items():
        seconds = earlier.of(key)
        if seconds is None:
            unknown.append(key)
        else:
            total += seconds * repetitions
    return total, unknown


def earlier_costs(
    study: str, environment: str, cell_keys: Iterable[str], campaign: str, root: Path | None = None
) -> tuple[str, Costs] | None:
    """The latest other campaign of the study that timed a repetition of one of these cells on
    `environment` (its saved plan says where each unit ran), with what they took there: its
    steps' times only (stretch 1), so an estimate from it is a lower bound."""
    from benchcamp.core.paths import results_root
    from benchcamp.pipeline.attempts import attempt_started, load_plan

    wanted = set(cell_keys)
    study_dir = (root or results_root()) / study
    found = []
    for folder in study_dir.iterdir() if study_dir.is_dir() else ():
        started = attempt_started(folder)
        if folder.is_dir() and folder.name != campaign and started is not None:
            found.append((started, folder.name))
    for _, name in sorted(found, reverse=True):
        plan = load_plan(study, name, root) or {}
        dirs: dict[str, list[Path]] = {}
        for unit in plan.get(environment, []):
            key = cell_key(unit["workload"], unit["params"])
            if key in wanted and int(unit["repetition"]) >= 1:
                dirs.setdefault(key, []).append(archive.unit_repetition_dir(unit, root))
        costs = measured_costs(dirs, None)
        if costs.per_cell_s:
            return name, costs
    return None


def check_plan_fits(
    study: str,
    campaign: str,
    budget_s: float,
    planned: Plan,
    root: Path | None = None,
) -> str | None:
    """Why the budget cannot hold the planned repetitions (every target's, at the latest earlier
    campaign's times), or None when it can or nothing says: the message names the minimum."""
    for environment, units in planned.items():
        cells: dict[str, int] = {}
        for unit in units:
            if not unit.get("kept"):
                key = cell_key(unit["workload"], unit["params"])
                cells[key] = cells.get(key, 0) + 1
        if not cells:
            continue
        earlier = earlier_costs(study, environment, cells, campaign, root)
        if earlier is None:
            continue
        total, unknown = plan_estimate(cells, earlier[1])
        if total > budget_s:
            more = f" and {len(unknown)} cell(s) it did not measure" if unknown else ""
            return (
                f"budget {minutes(budget_s)} is too small for one pass of the plan on {environment}: "
                f"its {sum(cells.values())} planned repetitions took at least {minutes(total)} in "
                f"campaign {earlier[0]} (their steps alone{more}); give a budget of at least "
                f"{minutes(math.ceil(total))}, or fewer cells or repetitions"
            )
    return None


def minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"
