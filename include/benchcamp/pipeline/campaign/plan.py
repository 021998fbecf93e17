"""The campaign's plan: its repetition units per target, in run order, and what each unit
names (its run context, its archive folder, its label in the grid).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchcamp.core.records import cell_key
from benchcamp.core.spec import StudySpec, load_spec
from benchcamp.pipeline import archive, run_order
from benchcamp.pipeline.campaign.conf import CampaignConf
from benchcamp.pipeline.campaign.unit import Plan, RepetitionUnit
from benchcamp.workloads.base import RunContext


def plan_units(spec: StudySpec, conf: CampaignConf, campaign: str) -> Plan:
    """Repetition units per environment, in the order they should run: warm-ups first, then the
    measured repetitions in the conf's run order (sequential: cell by cell).

    An interleaved campaign plans every environment of the target's interleave group, all under
    the target's key: they run in its task group and its pool, one unit at a time, each unit on
    its own environment."""
    units: Plan = {env.name: [] for env in spec.environments}
    group = (spec.interleave_group(conf.environment) if conf.order == "interleaved" else None) or [
        conf.environment
    ]
    for environment, cell in (
        (side, cell)
        for side in group
        for cell in spec.cells(conf.ladder, conf.workloads, spec.environment(side))
    ):
        if conf.cells and cell.key not in conf.cells:
            continue
        # warm-ups first, numbered 1 - w .. 0, then the measured repetitions 1 .. n
        for repetition in range(1 - conf.warmups_for(spec, cell.workload), conf.repetitions + 1):
            units[conf.environment].append(
                {
                    "study": spec.study,
                    "campaign": campaign,
                    "environment": environment,
                    "workload": cell.workload,
                    "params": cell.params,
                    "repetition": repetition,
                    "ladder": conf.ladder,
                }
            )
    # the run order (sequential keeps the cell-by-cell plan), each unit with its planned position
    seed = run_order.derived_seed(spec.study, campaign) if conf.order_seed is None else conf.order_seed
    return {env: run_order.with_positions(env_units, conf.order, seed) for env, env_units in units.items()}


def unit_label(unit: Any) -> str:
    """A repetition unit as the grid names its mapped tasks: cell key and repetition, as archived
    (`<cell>/rep<N>`; warm-ups are repetitions 0 and below). Never raises: Airflow fails a task
    whose `map_index_template` does not render, and a label is not worth a failed repetition."""
    try:
        repetition = int(unit["repetition"])
        kind = "warm-up " if repetition <= 0 else ""
        return f"{cell_key(unit['workload'], unit['params'])} · {kind}rep{repetition}"
    except (KeyError, TypeError, ValueError):
        return ""


def expected_cells(units: Plan) -> list[tuple[str, str, str, int]]:
    """Measured repetitions per cell (warm-ups are not expected by any check)."""
    counts: dict[tuple[str, str, str], int] = {}
    for env_units in units.values():
        for unit in env_units:
            key = (unit["environment"], unit["workload"], cell_key(unit["workload"], unit["params"]))
            counts[key] = max(counts.get(key, 0), unit["repetition"])
    return [(env, workload, key, reps) for (env, workload, key), reps in counts.items()]


def by_environment(units: list[RepetitionUnit]) -> dict[str, list[RepetitionUnit]]:
    """A target's units per environment, in their order (more than one: an interleaved campaign)."""
    out: dict[str, list[RepetitionUnit]] = {}
    for unit in units:
        out.setdefault(str(unit["environment"]), []).append(unit)
    return out


def context_for(unit: RepetitionUnit) -> RunContext:
    spec = load_spec(unit["study"])
    return RunContext(
        spec=spec,
        environment=spec.environment(unit["environment"]),
        campaign=unit["campaign"],
        workload=unit["workload"],
        params=dict(unit["params"]),
        repetition=int(unit["repetition"]),
        ladder=unit["ladder"],
    )


def rep_dir_for(ctx: RunContext, results: Path | None = None, environment: str | None = None) -> Path:
    """The repetition's archive folder (`environment`: a unit of an interleaved campaign,
    `archive.unit_environment`)."""
    return archive.repetition_dir(
        ctx.spec.study, ctx.campaign, cell_key(ctx.workload, ctx.params), ctx.repetition, results, environment
    )
