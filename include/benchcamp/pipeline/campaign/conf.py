"""A run's configuration checked against the study spec before anything runs, and the
campaign's name.

`check_conf` refuses what the DAG's JSON schema cannot (unknown keys, cells, unimplemented
workloads, a target that lacks what its workloads need) with a message that says what to fix.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from benchcamp.core.matrix import LADDERS
from benchcamp.core.records import CAMPAIGN_NAME, CAMPAIGN_RULE
from benchcamp.core.spec import (
    MAX_WARMUP_REPETITIONS,
    Environment,
    Ladder,
    RunOrder,
    SpecError,
    StudySpec,
)
from benchcamp.pipeline import adaptive, budget, run_order
from benchcamp.workloads import get_workload, is_implemented
from benchcamp.workloads.base import RunContext

CONF_KEYS = (
    "ladder",
    "repetitions",
    "environment",
    "workloads",
    "cells",
    "campaign",
    "fail_on_validation",
    "note",
    "warmup_repetitions",
    "target_ci_pct",
    "max_repetitions",
    "budget_s",
    "order",
    "order_seed",
    "resume",
)
# Empty (the run id names it) or a name that starts with a letter or digit: `.` and `..` would
# make the archive the study's folder or the results root, and the cleanup the whole data root.
CAMPAIGN_PATTERN = rf"^({CAMPAIGN_NAME})?$"
MAX_REPETITIONS = 50
WAREHOUSE_POOL = "benchcamp_warehouse"
# Comma-separated SSH connection ids the Airflow stack reaches (`make up` sets the lab's): a run
# without an environment, and the trigger form's default, target the study's first environment
# reached through one of them. Unset (e.g. Docker Compose): the spec's baseline.
DEFAULT_CONNECTIONS_ENV = "BENCHCAMP_DEFAULT_CONNECTIONS"


class CampaignConfError(ValueError):
    """A run configuration that cannot run; the message says what to fix."""


def target_pool(environment: str) -> str:
    """One 1-slot pool per target: two campaigns never load the same cluster at once."""
    return f"benchcamp_target_{environment}"


def campaign_id(run_id: str) -> str:
    """The campaign is the DAG run; its id is made safe for paths and SQL literals (a run id
    that does not start with a letter or digit, as one given through the REST API may, gets a
    `run_` prefix)."""
    safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", run_id)[:120]
    return safe if re.fullmatch(CAMPAIGN_PATTERN, safe) and safe else f"run_{safe}"[:120]


def resolve_campaign(
    params: dict[str, Any],
    run_id: str,
    run_type: str | None = None,
    logical_date: datetime | None = None,
    reruns: int = 0,
) -> str:
    """The campaign named in the run's params, else the run id: stable across task retries.

    A backfill run is named by its logical date, `backfill__<date>`, whatever its run id: when a
    backfill re-processes an existing run, Airflow clears that run and keeps its id, and naming the
    campaign by the id would overwrite the original campaign's rows with the re-run's. `reruns`
    is how often that run was cleared (Airflow's `clear_number`): a backfill of a date that an
    earlier run or backfill already had is `backfill__<date>__rerun<N>`, a new campaign beside the
    earlier one (a cancelled one included), never a resumption of it (the DAG's plan step fixes the
    name once per run, so clearing one task later does not rename the campaign).
    """
    named = str(params.get("campaign") or "")
    if named and not re.fullmatch(CAMPAIGN_PATTERN, named):
        raise CampaignConfError(f"campaign {named!r} {CAMPAIGN_RULE}")
    if named:
        return named
    if run_type == "backfill" and logical_date is not None:
        rerun = f"__rerun{reruns}" if reruns > 0 else ""
        return campaign_id(f"backfill__{logical_date.astimezone(UTC).isoformat()}{rerun}")
    return campaign_id(run_id)


def run_settings(conf: CampaignConf) -> dict[str, Any]:
    """What a campaign ran with, as the results page shows it: the conf the run received with
    the DAG's defaults filled in (a backfill without parameters shows the defaults it ran)."""
    return {
        "ladder": conf.ladder,
        "repetitions": conf.repetitions,
        "warmups": conf.warmups,
        "workloads": list(conf.workloads),
        "cells": list(conf.cells),
        "order": conf.order,
        "order_seed": conf.order_seed,
        "target_ci_pct": conf.target_ci_pct,
        "max_repetitions": conf.max_repetitions,
        "budget_s": conf.budget_s,
        "note": conf.note,
    }


def conf_summary(
    run_type: str, run_conf: dict[str, Any] | None, conf: CampaignConf, spec: StudySpec | None = None
) -> list[str]:
    """What the plan logs about the parameters a run used: the conf Airflow handed it (the DAG's
    defaults fill the rest) and the resolved campaign settings; for a backfill run that carries
    none, why (Airflow 3.3's backfill dialog sends the form's values only with "Override
    parameters on existing runs" ticked, apache/airflow#64939)."""
    lines = [
        f"run conf: {json.dumps(run_conf or {}, sort_keys=True)}",
        f"campaign settings: ladder={conf.ladder} repetitions={conf.repetitions} "
        f"environment={conf.environment} workloads={','.join(conf.workloads)}"
        + (f" cells={len(conf.cells)}" if conf.cells else ""),
    ]
    if not run_conf:  # a run with nothing said: what it runs, and how long the spec says that takes
        took = spec.campaign_durations.get(conf.ladder) if spec is not None else None
        lines.append(
            f"no parameters given: the defaults, ladder {conf.ladder}, {len(conf.workloads)} workload(s), "
            f"{conf.repetitions} repetition(s) a cell" + (f" ({took})" if took else "")
        )
    if run_type == "backfill" and not run_conf:
        lines.append(
            "WARNING: this backfill run carries no conf, so it runs the DAG's defaults: Airflow's "
            "backfill dialog sends the form's parameters only when 'Override parameters on existing "
            "runs' is ticked (README: 'Hardware changes and backfills')"
        )
    return lines


# A scheduled run that starts later than this after its scheduled time is not a campaign anyone
# asked for (README "Airflow with a UI"): Airflow runs the latest scheduled date at once when a
# study is unpaused, even with catchup off, and offers no setting against it (apache/airflow#45768).
SCHEDULED_START_GRACE = timedelta(minutes=15)


def late_scheduled_run(
    run_type: str, due: datetime | None, started: datetime | None, cleared: bool = False
) -> str | None:
    """Why a scheduled run should not measure anything (None: it should): it starts more than
    `SCHEDULED_START_GRACE` after its scheduled time, so it is a catch-up of a date that passed
    while the study was paused, the scheduler was down or another campaign of the study ran.
    Manual runs, backfills, asset-triggered runs and a run someone cleared to re-run always run."""
    if run_type != "scheduled" or due is None or started is None or cleared:
        return None
    late = started - due
    if late <= SCHEDULED_START_GRACE:
        return None
    minutes = int(late.total_seconds() // 60)
    return (
        f"scheduled for {due.astimezone(UTC):%Y-%m-%d %H:%M} UTC but starting {minutes // 60} h "
        f"{minutes % 60:02d} min later (the study was paused, the scheduler was down or another "
        "campaign of the study still ran): skipped rather than run as a catch-up campaign; trigger "
        "the study to run one now, or wait for its next scheduled time"
    )


def implemented_workloads(spec: StudySpec) -> list[str]:
    return [name for name in spec.workloads if is_implemented(name)]


@dataclass(frozen=True)
class CampaignConf:
    ladder: Ladder
    repetitions: int
    environment: str
    workloads: list[str]
    cells: list[str]
    fail_on_validation: bool
    note: str
    warmups: int | None = None  # None: the spec's per-workload warm-ups
    target_ci_pct: float | None = None  # adaptive repetitions (pipeline.adaptive): none without
    max_repetitions: int | None = None  # the most a cell gets with a target (None without one)
    budget_s: float | None = None  # wall time the adaptive repetitions must fit in (pipeline.budget)
    order: RunOrder = "sequential"  # run order of the measured repetitions (pipeline.run_order)
    order_seed: int | None = None  # None: derived from the study and campaign names
    resume: bool = False  # a named campaign run again keeps its ok repetitions (pipeline.attempts)

    def warmups_for(self, spec: StudySpec, workload: str) -> int:
        return spec.warmups(workload) if self.warmups is None else self.warmups


def stack_connections() -> frozenset[str]:
    """The SSH connections the stack says it reaches (`DEFAULT_CONNECTIONS_ENV`); none when unset."""
    names = os.environ.get(DEFAULT_CONNECTIONS_ENV, "").split(",")
    return frozenset(name.strip() for name in names if name.strip())


def default_environment(spec: StudySpec) -> str:
    """The environment of a run that names none, on this stack (`StudySpec.default_environment`)."""
    return spec.default_environment(stack_connections())


def check_conf(spec: StudySpec, conf: dict[str, Any]) -> CampaignConf:
    """Reject what the JSON schema cannot: unknown keys, unknown cells, unimplemented workloads."""
    unknown = sorted(set(conf) - set(CONF_KEYS))
    if unknown:
        raise CampaignConfError(
            f"unknown parameter '{unknown[0]}' for study '{spec.study}' (accepted: {', '.join(CONF_KEYS)})"
        )
    ladder = conf.get("ladder", spec.default_ladder)
    if ladder not in LADDERS:
        raise CampaignConfError(f"ladder '{ladder}' is not one of {', '.join(LADDERS)}")
    repetitions = conf.get("repetitions", spec.repetitions)
    if (
        isinstance(repetitions, bool)
        or not isinstance(repetitions, int)
        or not 1 <= repetitions <= MAX_REPETITIONS
    ):
        raise CampaignConfError(
            f"repetitions must be an integer from 1 to {MAX_REPETITIONS}, got {repetitions!r}"
        )
    environment = conf.get("environment") or default_environment(spec)
    try:
        spec.environment(str(environment))
    except SpecError as exc:
        raise CampaignConfError(str(exc)) from exc
    available = implemented_workloads(spec)
    workloads = conf.get("workloads") or available
    for workload in workloads:
        if workload not in spec.workloads:
            raise CampaignConfError(f"study '{spec.study}' has no workload '{workload}'")
        if workload not in available:
            raise CampaignConfError(
                f"workload '{workload}' is declared by the study but not implemented yet "
                f"(implemented: {', '.join(available)})"
            )
    order = conf.get("order") or spec.order
    group = [str(environment)]
    if order == "interleaved":
        group = spec.interleave_group(str(environment)) or []
        if not group:
            listed = "; ".join(", ".join(names) for names in spec.interleave) or "none declared"
            raise CampaignConfError(
                f"order interleaved runs the interleave group of the environment, and '{environment}' "
                f"is in none (groups of study '{spec.study}': {listed}); choose an environment of a "
                "group or another order"
            )
    for target in (spec.environment(name) for name in group):
        _check_target(spec, target, workloads)
    if not spec.regenerate_data:
        unable = [name for name in workloads if not get_workload(name).generates_once_per_cell]
        if unable:
            raise CampaignConfError(
                f"study '{spec.study}' generates its data once per cell (regenerate_data: false), "
                f"which {', '.join(unable)} cannot do: it deletes and regenerates each repetition's "
                "data; set regenerate_data: true or run a workload that keeps its inputs"
            )
    cells = list(conf.get("cells") or [])
    for side in (spec.environment(name) for name in group):
        side_cells = spec.cells(ladder, workloads, side)
        known = {cell.key for cell in side_cells}
        for key in cells:
            if key not in known:
                raise CampaignConfError(
                    f"cell '{key}' is not in the {ladder} matrix of '{spec.study}' for workloads "
                    f"{', '.join(workloads)} on environment '{side.name}'{_sized(spec, side)} "
                    f"(known: {', '.join(sorted(known))})"
                )
        for cell in side_cells:
            if cells and cell.key not in cells:
                continue
            ctx = RunContext(spec, side, "check", cell.workload, cell.params, 1, ladder)
            try:
                get_workload(cell.workload).check_cell(ctx)
            except ValueError as exc:
                raise CampaignConfError(f"cell '{cell.key}' cannot run: {exc}") from exc
    warmups = conf.get("warmup_repetitions")
    if warmups is not None and (
        isinstance(warmups, bool)
        or not isinstance(warmups, int)
        or not 0 <= warmups <= MAX_WARMUP_REPETITIONS
    ):
        raise CampaignConfError(
            f"warmup_repetitions must be an integer from 0 to {MAX_WARMUP_REPETITIONS} "
            f"(or empty for the study's own), got {warmups!r}"
        )
    try:
        order, order_seed = run_order.check_order(
            conf.get("order") or spec.order,
            conf.get("order_seed") if conf.get("order_seed") is not None else spec.order_seed,
        )
    except run_order.RunOrderError as exc:
        raise CampaignConfError(str(exc)) from exc
    try:
        target_ci_pct, max_repetitions = adaptive.check_adaptive_conf(
            spec, repetitions, conf.get("target_ci_pct"), conf.get("max_repetitions")
        )
    except adaptive.AdaptiveConfError as exc:
        raise CampaignConfError(str(exc)) from exc
    try:
        budget_s = budget.check_budget(conf.get("budget_s"))
    except budget.BudgetError as exc:
        raise CampaignConfError(str(exc)) from exc
    if budget_s is not None and target_ci_pct is None:
        raise CampaignConfError(
            "budget_s bounds the adaptive repetitions, which need a target_ci_pct (the CI half-width, "
            "% of the mean, that is precise enough): give one, or leave budget_s empty"
        )
    if order == "interleaved" and target_ci_pct is not None:
        raise CampaignConfError(
            "order interleaved keeps the environments' repetitions in balanced turns, which adaptive "
            "repetitions (target_ci_pct) would add to one side only: leave target_ci_pct empty"
        )
    return CampaignConf(
        target_ci_pct=target_ci_pct,
        max_repetitions=max_repetitions,
        budget_s=budget_s,
        order=order,
        order_seed=order_seed,
        warmups=warmups,
        ladder=ladder,
        repetitions=repetitions,
        environment=str(environment),
        workloads=list(workloads),
        cells=cells,
        fail_on_validation=bool(conf.get("fail_on_validation", True)),
        note=str(conf.get("note") or ""),
        resume=bool(conf.get("resume", False)),
    )


def _sized(spec: StudySpec, environment: Environment) -> str:
    """What fixes an environment's cells beyond the ladder: the axes that are its facts."""
    facts = environment.flat_keys()
    named = [
        f"{name} is its {axis.environment_key}, {facts[axis.environment_key]}"
        for name, axis in spec.axes.items()
        if axis.environment_key is not None
    ]
    return f" ({'; '.join(named)})" if named else ""


def _check_target(spec: StudySpec, target: Environment, workloads: list[str]) -> None:
    """What a target of the campaign must declare for its workloads (every environment of an
    interleaved campaign is a target)."""
    for workload in workloads:
        if get_workload(workload).uses_hive and not target.hive.connection:
            raise CampaignConfError(
                f"workload '{workload}' runs HiveQL but environment '{target.name}' names no "
                "hive_connection (an Airflow HiveServer2 connection) in the study spec"
            )
        if get_workload(workload).uses_hive and not target.hadoop.data_root:
            raise CampaignConfError(
                f"workload '{workload}' needs the data path of environment '{target.name}': "
                "set data_root (e.g. the HDFS base path) in the study spec"
            )
    if spec.reformat_storage and not target.transport.reformat_command:
        raise CampaignConfError(
            f"study '{spec.study}' reformats the target's storage before its series "
            f"(reformat_storage: true), but environment '{target.name}' has no reformat_command "
            "(the command that stops, formats and restarts its storage) in the study spec"
        )
