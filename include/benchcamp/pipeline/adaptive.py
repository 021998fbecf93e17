"""Adaptive repetitions: after a cell's minimum, more repetitions until its mean is precise enough.

A study (or a trigger) sets `target_ci_pct`: the half-width of the 95 % confidence interval of a
cell's mean, as a % of the mean, that is precise enough; and `max_repetitions`, the most a cell
may get. After the minimum repetitions, each adaptive round reads the archived records of a
target's cells and gives one more repetition to every cell that has not reached the target, until
it does, reaches `max_repetitions`, or has more failed repetitions than the spec allows (more
repetitions are for precision, not to replace failed ones). The interval is Student's t
(`scipy.stats.t`) on the ok values of the metric the study's σ threshold gates (the duration by
default): mean ± t(0.975, n−1)·s/√n.

Each round's decisions and the repetitions it added are archived under
`<campaign>/adaptive/<target>/round<k>.json` before anything runs them; validation expects those
repetitions, and the load writes why each cell stopped into `raw.adaptive_stops`.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from benchcamp.core.paths import slug
from benchcamp.core.records import ResultRecord, cell_key
from benchcamp.core.spec import StudySpec
from benchcamp.pipeline import archive
from benchcamp.pipeline.budget import Costs, afford, measured_costs
from benchcamp.pipeline.campaign.unit import Plan, RepetitionUnit

CONFIDENCE = 0.95
ADAPTIVE_DIR = "adaptive"
DURATION_METRIC = "duration_s"  # a repetition is ok when its duration record is (as validation counts)
StopReason = Literal["target_reached", "max_repetitions", "too_many_failures", "budget"]
STOP_REASONS: tuple[StopReason, ...] = ("target_reached", "max_repetitions", "too_many_failures", "budget")
CellId = tuple[str, str, str]  # environment, workload, cell key


class AdaptiveConfError(ValueError):
    """A run's target_ci_pct / max_repetitions that its DAG cannot run; the message says why."""


def adaptive_rounds(spec: StudySpec) -> int:
    """Adaptive rounds per target in the study's DAG: the spec's max_repetitions − repetitions
    (0 without max_repetitions: the DAG has no adaptive task)."""
    return max((spec.max_repetitions or spec.repetitions) - spec.repetitions, 0)


def check_adaptive_conf(
    spec: StudySpec, repetitions: int, target: Any, maximum: Any
) -> tuple[float | None, int | None]:
    """The run's target and maximum (a trigger's, else the spec's), refused when the DAG cannot
    run them: a target without adaptive rounds, or more adaptive repetitions than it has rounds."""
    if target is not None and (
        isinstance(target, bool) or not isinstance(target, int | float) or not 0 < target < 100
    ):
        raise AdaptiveConfError(
            f"target_ci_pct must be a number above 0 and below 100 (a % of the mean), got {target!r}"
        )
    if maximum is not None and (isinstance(maximum, bool) or not isinstance(maximum, int) or maximum < 1):
        raise AdaptiveConfError(f"max_repetitions must be a positive integer, got {maximum!r}")
    target = spec.target_ci_pct if target is None else float(target)
    rounds = adaptive_rounds(spec)
    if maximum is None:
        maximum = None if target is None else spec.max_repetitions
    if target is None:
        if maximum is not None:
            raise AdaptiveConfError(
                f"max_repetitions {maximum} needs a target_ci_pct (the CI half-width, % of the mean, "
                "that stops a cell's repetitions early); give one or leave max_repetitions empty"
            )
        return None, None
    if rounds == 0:
        raise AdaptiveConfError(
            f"study '{spec.study}' declares no max_repetitions, so its DAG has no adaptive rounds: "
            "declare max_repetitions in the study spec to run with a target_ci_pct"
        )
    assert maximum is not None  # the spec declares one when it has rounds
    if maximum < repetitions:
        raise AdaptiveConfError(
            f"max_repetitions ({maximum}) is below repetitions ({repetitions}): the adaptive "
            "repetitions come after the minimum"
        )
    if maximum - repetitions > rounds:
        raise AdaptiveConfError(
            f"max_repetitions ({maximum}) is more than {rounds} above repetitions ({repetitions}): the "
            f"DAG of '{spec.study}' has {rounds} adaptive round(s) per target (its spec's "
            f"max_repetitions {spec.max_repetitions} - repetitions {spec.repetitions}); lower it or "
            "raise max_repetitions in the spec"
        )
    return target, maximum


@dataclass(frozen=True)
class Precision:
    """The mean of a cell's ok values and its two-sided t confidence interval (None below 2 values)."""

    n: int
    mean: float | None
    stddev: float | None
    half_width: float | None
    half_width_pct: float | None


def precision(values: list[float], confidence: float = CONFIDENCE) -> Precision:
    """Mean, sample σ (n−1), the t-based CI half-width and that half-width as a % of |mean|."""
    from scipy import stats

    n = len(values)
    if n == 0:
        return Precision(0, None, None, None, None)
    mean = math.fsum(values) / n
    if n < 2:
        return Precision(n, mean, None, None, None)
    stddev = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (n - 1))
    half_width = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * stddev / math.sqrt(n)
    pct = half_width / abs(mean) * 100 if mean != 0 else None
    return Precision(n, mean, stddev, half_width, pct)


@dataclass(frozen=True)
class CellState:
    """A cell's measured repetitions so far: how many were planned, and the ok values among them."""

    environment: str
    workload: str
    cell_key: str
    metric: str
    planned: int
    ok_values: tuple[float, ...]
    failed: int  # planned repetitions without an ok duration record (failed or never recorded)


@dataclass(frozen=True)
class Decision:
    """What a round decided for one cell: one more repetition, or why it stops."""

    environment: str
    workload: str
    cell_key: str
    metric: str
    repetitions: int  # planned measured repetitions so far
    ok_n: int
    failed_n: int
    mean: float | None
    stddev: float | None
    half_width: float | None
    half_width_pct: float | None
    target_ci_pct: float
    max_repetitions: int
    confidence: float
    more: bool
    reason: StopReason | None

    @property
    def cell(self) -> CellId:
        return (self.environment, self.workload, self.cell_key)


def decide(
    state: CellState,
    target_ci_pct: float,
    max_repetitions: int,
    allowed_failures: int,
    confidence: float = CONFIDENCE,
) -> Decision:
    """One more repetition unless the cell reached the target, has too many failed repetitions, or
    reached `max_repetitions`. Failures are judged first: a cell that already fails validation's
    `repetitions_ok` is not given repetitions to make up for them."""
    found = precision(list(state.ok_values), confidence)
    reason: StopReason | None = None
    if state.failed > allowed_failures:
        reason = "too_many_failures"
    elif found.half_width_pct is not None and found.half_width_pct <= target_ci_pct:
        reason = "target_reached"
    elif state.planned >= max_repetitions:
        reason = "max_repetitions"
    return Decision(
        environment=state.environment,
        workload=state.workload,
        cell_key=state.cell_key,
        metric=state.metric,
        repetitions=state.planned,
        ok_n=found.n,
        failed_n=state.failed,
        mean=found.mean,
        stddev=found.stddev,
        half_width=found.half_width,
        half_width_pct=found.half_width_pct,
        target_ci_pct=target_ci_pct,
        max_repetitions=max_repetitions,
        confidence=confidence,
        more=reason is None,
        reason=reason,
    )


def allowed_failures(repetitions: int, min_ok_repetitions: int | None) -> int:
    """Failed repetitions a cell may have at its minimum (validation's rule): none unless the spec
    sets `thresholds.min_ok_repetitions`. Adaptive repetitions do not raise the allowance."""
    return 0 if min_ok_repetitions is None else max(repetitions - min_ok_repetitions, 0)


def cell_states(
    records: list[ResultRecord], planned: dict[CellId, int], metrics: dict[str, str]
) -> list[CellState]:
    """Each planned cell's state from its records: the ok values of its workload's gated metric
    (`metrics`, by workload; the duration by default) among repetitions 1..planned; a planned
    repetition without an ok, positive duration record counts as failed (as in the marts, whose
    `stg_results.is_usable` leaves a non-positive duration out of every statistic)."""
    ok_reps: dict[CellId, set[int]] = {}
    values: dict[CellId, list[tuple[int, float]]] = {}
    for record in records:
        cell = (record.environment, record.workload, cell_key(record.workload, record.params))
        if cell not in planned or not 1 <= record.repetition <= planned[cell] or not record.is_usable:
            continue
        if record.metric == DURATION_METRIC:
            ok_reps.setdefault(cell, set()).add(record.repetition)
        if record.metric == metrics.get(record.workload, DURATION_METRIC):
            values.setdefault(cell, []).append((record.repetition, record.value))
    states = []
    for cell, count in planned.items():
        environment, workload, key = cell
        ok = ok_reps.get(cell, set())
        states.append(
            CellState(
                environment=environment,
                workload=workload,
                cell_key=key,
                metric=metrics.get(workload, DURATION_METRIC),
                planned=count,
                ok_values=tuple(value for rep, value in sorted(values.get(cell, [])) if rep in ok),
                failed=count - len(ok),
            )
        )
    return states


# -- the archive: one file per target and round ------------------------------------------------


def adaptive_dir(study: str, campaign: str, environment: str, root: Path | None = None) -> Path:
    return archive.campaign_dir(study, campaign, root) / ADAPTIVE_DIR / slug(environment)


def _rounds(study: str, campaign: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Every archived round of the campaign, per target in round order."""
    base = archive.campaign_dir(study, campaign, root) / ADAPTIVE_DIR
    files = sorted(base.glob("*/round*.json"), key=lambda path: (path.parent.name, int(path.stem[5:])))
    return [json.loads(path.read_text(encoding="utf-8")) for path in files]


def added_units(study: str, campaign: str, root: Path | None = None) -> list[RepetitionUnit]:
    """The repetition units every adaptive round of the campaign added (validation expects them)."""
    return [unit for found in _rounds(study, campaign, root) for unit in found["added_units"]]


def stops(study: str, campaign: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Why each adaptive cell stopped: its first stopping decision (with `round`), in round order."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for round_ in _rounds(study, campaign, root):
        for decision in round_["decisions"]:
            key = (decision["environment"], decision["cell_key"])
            if decision["reason"] is not None and key not in found:
                found[key] = {**decision, "round": round_["round"]}
    return list(found.values())


def run_round(
    environment_units: list[RepetitionUnit],
    round_number: int,
    last: bool,
    target_ci_pct: float | None,
    max_repetitions: int | None,
    min_ok_repetitions: int | None,
    minimum: int,
    root: Path | None = None,
    budget_s: float | None = None,
    now: datetime | None = None,
) -> list[RepetitionUnit]:
    """One adaptive round on one target: decide from the archive, archive the decisions and the
    units added (numbered after the cell's last planned repetition), return those units.

    `environment_units`: the target's planned units (warm-ups are ignored). Earlier rounds' files
    say what they added; a cell that stopped in an earlier round is not decided again. Re-running a
    round replaces its own file and adds the same units. In the `last` round (after the final
    adaptive repetitions, `finish`) nothing is added: a cell still short of the target stops there.
    With `budget_s` (pipeline.budget), a cell whose next repetition no longer fits in what is left
    of the campaign's budget stops with the reason `budget`.
    """
    measured = [unit for unit in environment_units if int(unit["repetition"]) >= 1]
    if target_ci_pct is None or max_repetitions is None or not measured:
        return []
    from benchcamp.pipeline.validation import stddev_metric_of

    first = measured[0]
    study, campaign, environment = first["study"], first["campaign"], first["environment"]
    directory = adaptive_dir(study, campaign, environment, root)
    earlier = [
        json.loads((directory / f"round{k}.json").read_text(encoding="utf-8"))
        for k in range(1, round_number)
        if (directory / f"round{k}.json").exists()
    ]
    stopped = {
        (decision["environment"], decision["cell_key"])
        for round_ in earlier
        for decision in round_["decisions"]
        if decision["reason"] is not None
    }
    last_unit: dict[CellId, RepetitionUnit] = {}
    for unit in measured + [unit for round_ in earlier for unit in round_["added_units"]]:
        cell = (unit["environment"], unit["workload"], cell_key(unit["workload"], unit["params"]))
        if cell not in last_unit or int(unit["repetition"]) > int(last_unit[cell]["repetition"]):
            last_unit[cell] = unit
    planned = {
        cell: int(unit["repetition"]) for cell, unit in last_unit.items() if (cell[0], cell[2]) not in stopped
    }
    records = archive.load_campaign_records(study, campaign, root)
    metrics = {workload: stddev_metric_of(workload) for _, workload, _ in planned}
    allowed = allowed_failures(minimum, min_ok_repetitions)
    decisions = []
    for state in cell_states(records, planned, metrics):
        decision = decide(state, target_ci_pct, max_repetitions, allowed)
        if decision.more and last:
            decision = Decision(**{**asdict(decision), "more": False, "reason": "max_repetitions"})
        decisions.append(decision)
    if budget_s is not None and not last:
        left = _left_of_budget(study, campaign, budget_s, now, root)
        decisions = within_budget(decisions, _target_costs(measured, earlier, left, root), left[1])
    added: list[RepetitionUnit] = [
        {**last_unit[decision.cell], "repetition": decision.repetitions + 1}
        for decision in decisions
        if decision.more
    ]
    # With a run order (pipeline.run_order), an added repetition runs after everything planned so far.
    positions = [
        int(unit["position"])
        for unit in environment_units + [unit for round_ in earlier for unit in round_["added_units"]]
        if "position" in unit
    ]
    if positions:
        added = [{**unit, "position": max(positions) + number} for number, unit in enumerate(added, start=1)]
    archive.write_atomically(
        directory / f"round{round_number}.json",
        json.dumps(
            {
                "round": round_number,
                "environment": environment,
                "target_ci_pct": target_ci_pct,
                "max_repetitions": max_repetitions,
                "confidence": CONFIDENCE,
                "final": last,
                "decisions": [asdict(decision) for decision in decisions],
                "added_units": added,
            },
            indent=2,
        ),
    )
    return added


def _left_of_budget(
    study: str, campaign: str, budget_s: float, now: datetime | None, root: Path | None
) -> tuple[float | None, float]:
    """(seconds since the attempt began, seconds of the budget left); without an attempt file the
    budget counts from now."""
    from benchcamp.pipeline.attempts import attempt_started

    moment = now or datetime.now(UTC)
    started = attempt_started(archive.campaign_dir(study, campaign, root)) or moment
    elapsed = max((moment - started).total_seconds(), 0.0)
    return elapsed, budget_s - elapsed


def _target_costs(
    measured: list[RepetitionUnit],
    earlier: list[dict[str, Any]],
    left: tuple[float | None, float],
    root: Path | None,
) -> Costs:
    dirs: dict[str, list[Path]] = {}
    for unit in measured + [unit for round_ in earlier for unit in round_["added_units"]]:
        key = cell_key(unit["workload"], unit["params"])
        dirs.setdefault(key, []).append(archive.unit_repetition_dir(unit, root))
    return measured_costs(dirs, left[0])


def within_budget(decisions: list[Decision], costs: Costs, left_s: float) -> list[Decision]:
    """The round's decisions with the repetitions the budget cannot afford taken back: the
    cells furthest from their target keep theirs first (`budget.afford`); the others stop with
    the reason `budget`."""
    wanted = [
        (d.cell_key, (d.half_width_pct / d.target_ci_pct) if d.half_width_pct is not None else math.inf)
        for d in decisions
        if d.more
    ]
    given = afford(wanted, costs, left_s)
    return [
        replace(d, more=False, reason="budget") if d.more and d.cell_key not in given else d
        for d in decisions
    ]


def finish(units: Plan, min_ok_repetitions: int | None, root: Path | None = None) -> None:
    """After the DAG's last adaptive round has run its repetitions (validate calls this): decide the
    cells that round gave a repetition to once more, nothing added, so each records why it stopped
    (still short of the target there: at max_repetitions). Re-running it replaces its own file."""
    for environment_units in units.values():
        measured = [unit for unit in environment_units if int(unit["repetition"]) >= 1]
        if not measured:
            continue
        first = measured[0]
        directory = adaptive_dir(first["study"], first["campaign"], first["environment"], root)
        numbers = sorted(int(path.stem[5:]) for path in directory.glob("round*.json"))
        if not numbers:
            continue
        last = json.loads((directory / f"round{numbers[-1]}.json").read_text(encoding="utf-8"))
        if not last["added_units"] or last.get("final"):
            continue
        run_round(
            environment_units, numbers[-1] + 1, True, last["target_ci_pct"], last["max_repetitions"],
            min_ok_repetitions, max(int(unit["repetition"]) for unit in measured), root,
        )  # fmt: skip
