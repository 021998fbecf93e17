"""The steps of a campaign, as plain functions the DAG's tasks call.

clean → generate → execute run per repetition on the target (over SSH); validate,
load and report run once per campaign on the Airflow worker. Everything a step
learns is written to the raw archive first, and later steps read the archive, so
any task can be cleared and re-run without duplicating or losing a row.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcamp.core.claims import load_claims
from benchcamp.core.matrix import LADDERS
from benchcamp.core.paths import check_component, child, default_warehouse, repo_root, slug
from benchcamp.core.records import EnvironmentSnapshot, ResultRecord, ValidationFailure, cell_key
from benchcamp.core.spec import (
    MAX_WARMUP_REPETITIONS,
    Environment,
    Ladder,
    RunOrder,
    SpecError,
    StudySpec,
    load_spec,
)
from benchcamp.pipeline import adaptive, archive, host_load, run_order
from benchcamp.platforms import webhdfs
from benchcamp.platforms.hadoop import parse_job_reports
from benchcamp.platforms.hive import RESULTS_FILE, HiveStatement, identifier
from benchcamp.platforms.jobhistory import fetch_script, parse_job_history
from benchcamp.transport import environment as env_facts
from benchcamp.transport import ssh
from benchcamp.workloads import get_workload, is_implemented

if TYPE_CHECKING:
    from benchcamp.pipeline.warehouse import HardwareChange
from benchcamp.workloads.base import (
    ArchivedStep,
    ParseError,
    RunContext,
    Shell,
    Word,
    Workload,
    data_path,
    render,
)

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
    "order",
    "order_seed",
    "resume",
)
# Empty (the run id names it) or a name that starts with a letter or digit: `.` and `..` would
# make the archive the study's folder or the results root, and the cleanup the whole data root.
CAMPAIGN_PATTERN = r"^([A-Za-z0-9][A-Za-z0-9_.+-]{0,119})?$"
MAX_REPETITIONS = 50
WAREHOUSE_POOL = "benchcamp_warehouse"
# Comma-separated SSH connection ids the Airflow stack reaches (`make up` sets the lab's): a run
# without an environment, and the trigger form's default, target the study's first environment
# reached through one of them. Unset (e.g. Docker Compose): the spec's baseline.
DEFAULT_CONNECTIONS_ENV = "BENCHCAMP_DEFAULT_CONNECTIONS"


class EnvironmentCaptureFailed(RuntimeError):
    """The target's facts could not be captured; names the target and the archived output."""


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
        raise CampaignConfError(
            f"campaign {named!r} must start with a letter or digit and hold only letters, digits "
            "and _ . + - (at most 120 characters)"
        )
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
        "note": conf.note,
    }


def conf_summary(run_type: str, run_conf: dict[str, Any] | None, conf: CampaignConf) -> list[str]:
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
    target = spec.environment(str(environment))
    if not spec.regenerate_data:
        unable = [name for name in workloads if not get_workload(name).generates_once_per_cell]
        if unable:
            raise CampaignConfError(
                f"study '{spec.study}' generates its data once per cell (regenerate_data: false), "
                f"which {', '.join(unable)} cannot do: it deletes and regenerates each repetition's "
                "data; set regenerate_data: true or run a workload that keeps its inputs"
            )
    cells = list(conf.get("cells") or [])
    known = {cell.key for cell in spec.cells(ladder, workloads)}
    for key in cells:
        if key not in known:
            raise CampaignConfError(
                f"cell '{key}' is not in the {ladder} matrix of '{spec.study}' for workloads "
                f"{', '.join(workloads)} (known: {', '.join(sorted(known))})"
            )
    for cell in spec.cells(ladder, workloads):
        if cells and cell.key not in cells:
            continue
        ctx = RunContext(spec, target, "check", cell.workload, cell.params, 1, ladder)
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
    if order == "interleaved" and target_ci_pct is not None:
        raise CampaignConfError(
            "order interleaved keeps the environments' repetitions in balanced turns, which adaptive "
            "repetitions (target_ci_pct) would add to one side only: leave target_ci_pct empty"
        )
    return CampaignConf(
        target_ci_pct=target_ci_pct,
        max_repetitions=max_repetitions,
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


def plan_units(spec: StudySpec, conf: CampaignConf, campaign: str) -> dict[str, list[dict[str, Any]]]:
    """Repetition units per environment, in the order they should run: warm-ups first, then the
    measured repetitions in the conf's run order (sequential: cell by cell).

    An interleaved campaign plans every environment of the target's interleave group, all under
    the target's key: they run in its task group and its pool, one unit at a time, each unit on
    its own environment."""
    units: dict[str, list[dict[str, Any]]] = {env.name: [] for env in spec.environments}
    group = (spec.interleave_group(conf.environment) if conf.order == "interleaved" else None) or [
        conf.environment
    ]
    for environment, cell in (
        (environment, cell) for environment in group for cell in spec.cells(conf.ladder, conf.workloads)
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


def expected_cells(units: dict[str, list[dict[str, Any]]]) -> list[tuple[str, str, str, int]]:
    """Measured repetitions per cell (warm-ups are not expected by any check)."""
    counts: dict[tuple[str, str, str], int] = {}
    for env_units in units.values():
        for unit in env_units:
            key = (unit["environment"], unit["workload"], cell_key(unit["workload"], unit["params"]))
            counts[key] = max(counts.get(key, 0), unit["repetition"])
    return [(env, workload, key, reps) for (env, workload, key), reps in counts.items()]


def by_environment(units: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """A target's units per environment, in their order (more than one: an interleaved campaign)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for unit in units:
        out.setdefault(str(unit["environment"]), []).append(unit)
    return out


def context_for(unit: dict[str, Any]) -> RunContext:
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


def _uses_webhdfs(ctx: RunContext) -> bool:
    return bool(ctx.environment.hadoop.webhdfs_url and ctx.environment.hadoop.data_root)


def remove_data_script(ctx: RunContext, verify: bool, what: str = "clean") -> str:
    """Shell lines that delete the repetition's data (WebHDFS where configured, else `hadoop fs`)."""
    workload = get_workload(ctx.workload)
    paths = workload.clean_paths(ctx)
    if not paths:
        return ""
    if _uses_webhdfs(ctx) and paths == [data_path()]:
        return (
            "\n".join(
                webhdfs.delete_lines(
                    ctx.environment.hadoop.webhdfs_url or "", ctx.data_location(), verify, what
                )
            )
            + "\n"
        )
    lines = []
    for path in paths:
        lines.append(render([*ctx.hadoop, "fs", "-rm", "-r", "-f", "-skipTrash", path]) + " >/dev/null")
        if verify:
            lines.append(
                f"if {render([*ctx.hadoop, 'fs', '-test', '-e', path])} 2>/dev/null; then "
                f"echo '{what}: data still present: '{path} >&2; exit 1; fi"
            )
    return "\n".join(lines) + "\n"


def clean_body(ctx: RunContext) -> str:
    """Delete the repetition's data, check it is gone, and drop the page cache where permitted."""
    lines = ["set -u", remove_data_script(ctx, verify=True).rstrip("\n")]
    lines.append("echo clean_verified=yes")
    if ctx.spec.drop_caches and ctx.environment.transport.drop_caches:
        refused = (
            "echo 'clean: the page cache cannot be dropped (not permitted) and the study requires it' >&2; exit 4"
            if ctx.spec.drop_caches_required
            else "echo drop_caches=not_permitted"
        )
        lines.append(
            "sync; if { echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; "
            f"then echo drop_caches=done; else {refused}; fi"
        )
    else:
        lines.append("echo drop_caches=skipped")
    return "\n".join(line for line in lines if line) + "\n"


def _run_hive(
    ctx: RunContext, statements: list[HiveStatement], archive_dir: Path, step_name: str
) -> ArchivedStep:
    from benchcamp.transport import hive

    connection = ctx.environment.hive.connection
    if connection is None:
        raise CampaignConfError(f"environment '{ctx.environment.name}' has no hive_connection")
    step = hive.run_statements(connection, statements, archive_dir)
    if step.exit_code != 0:
        raise ssh.StepFailed(
            f"step '{step_name}' failed in HiveServer2 ({connection}); archived in {archive_dir}: "
            f"{step.text('stderr.log').strip()}"
        )
    return step


# Exit codes by which a step refuses what waiting cannot change (see clean_body, preflight_body):
# the task fails at once (ssh.TargetRefused), no retry.
CLEAN_REFUSALS = frozenset({4})  # the study requires dropping the page cache; not permitted here
PREFLIGHT_REFUSALS = frozenset({5, 7, 8})  # safe mode after its wait, too little space, reformat failed


def failure_of(step: str, exc: BaseException, archive_dir: Path | None = None) -> archive.Failure:
    """The archived reason of a failed step: its kind (refused, unreachable, failed), the
    exception's first line, and the exit code and stderr tail of the step's try folder if any."""
    kind: archive.FailureKind = (
        "refused"
        if isinstance(exc, ssh.TargetRefused)
        else "unreachable"
        if isinstance(exc, ssh.TargetUnreachable)
        else "failed"
    )
    exit_code = None
    tail = ""
    if archive_dir is not None:
        meta = archive_dir / "meta.json"
        if meta.exists():
            exit_code = json.loads(meta.read_text(encoding="utf-8")).get("exit_code")
        for name in ("stderr.log", "ssh_stderr.log"):
            if (archive_dir / name).exists():
                tail = ssh.stderr_tail((archive_dir / name).read_text(encoding="utf-8", errors="replace"), 10)
                break
    message = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    return archive.Failure.now(
        step, kind, message, exit_code=exit_code, exception=type(exc).__name__, stderr_tail=tail,
        archive=str(archive_dir) if archive_dir is not None else None,
    )  # fmt: skip


@contextmanager
def failure_recorded(step: str, archive_dir: Path) -> Iterator[None]:
    """A step that raises leaves its reason in its try folder (failure.json): the repetitions it
    holds back, and the console, name that reason instead of "the step did not succeed"."""
    try:
        yield
    except Exception as exc:
        archive.write_failure(archive_dir, failure_of(step, exc, archive_dir))
        raise


def run_clean(unit: dict[str, Any], try_number: int = 1) -> dict[str, str]:
    ctx = context_for(unit)
    archive_dir = archive.step_dir(
        rep_dir_for(ctx, None, archive.unit_environment(unit)), "clean", try_number
    )
    with failure_recorded("clean", archive_dir):
        hive_statements = get_workload(ctx.workload).hive_clean(ctx)
        if hive_statements:
            _run_hive(ctx, hive_statements, archive_dir / "hive", "clean")
        step = ssh.run_step(
            ctx, ctx.environment.transport.connection, "clean", clean_body(ctx), archive_dir, try_number
        )
        ssh.raise_if_failed("clean", step, CLEAN_REFUSALS)
    facts = step_facts(step.text("stdout.log"))
    return {"archive": str(step.directory), **facts}


def run_generate(unit: dict[str, Any], try_number: int = 1) -> str:
    ctx = context_for(unit)
    workload = get_workload(ctx.workload)
    commands = workload.generate(ctx)
    if not commands and not workload.hive_setup(ctx):
        return "nothing to generate"  # e.g. YCSB loads its store in execute: no SSH session for nothing
    archive_dir = archive.step_dir(
        rep_dir_for(ctx, None, archive.unit_environment(unit)), "generate", try_number
    )
    marker = shared_input_marker(ctx)
    if not ctx.spec.regenerate_data and marker.exists():
        return _reuse_input(ctx, archive_dir, marker)
    # A retried generate starts from nothing (clean did it for the first try; with
    # regenerate_data: false nothing did): jobs refuse to write into an existing output directory.
    remove_old = ""
    if commands and (try_number > 1 or not ctx.spec.regenerate_data) and workload.uses_data_fs:
        remove_old = (
            render([*ctx.hadoop, "fs", "-rm", "-r", "-f", "-skipTrash", Shell('"$INPUT"')])
            + " >/dev/null 2>&1\n"
        )
    with failure_recorded("generate", archive_dir):
        step = ssh.run_step(
            ctx, ctx.environment.transport.connection, "generate", remove_old + ssh.commands_body(commands),
            archive_dir, try_number, tools=workload.tools(ctx),
        )  # fmt: skip
        ssh.raise_if_failed("generate", step)
        checked = workload.verify_generate(ctx, step)
        hive_statements = workload.hive_setup(ctx)
        if hive_statements:
            _run_hive(ctx, hive_statements, archive_dir / "hive", "generate")
    archive.write_atomically(step.directory / "verified.json", json.dumps(checked))
    if not ctx.spec.regenerate_data:
        archive.write_atomically(
            marker, json.dumps({"generated_by": str(step.directory), "verified": checked}, indent=2)
        )
    return str(step.directory)


def shared_input_marker(ctx: RunContext) -> Path:
    """With `regenerate_data: false`: the record that this cell's input exists on this target in this
    campaign (written once it was generated and verified; removed by the preflight and the cleanup)."""
    cell = archive.cell_dir(ctx.spec.study, ctx.campaign, cell_key(ctx.workload, ctx.params))
    return cell / "input" / f"{slug(ctx.environment.name)}.json"


def _reuse_input(ctx: RunContext, archive_dir: Path, marker: Path) -> str:
    """A repetition measured on the cell's input generated by an earlier one: no SSH session; the
    archive says which repetition generated it and what its verification found."""
    shared = json.loads(marker.read_text(encoding="utf-8"))
    now = datetime.now(UTC).isoformat()
    meta = {"step": "generate", "exit_code": 0, "started_at": now, "finished_at": now, "duration_s": 0.0,
            "reused_input_of": shared["generated_by"]}  # fmt: skip
    archive.write_atomically(archive_dir / "meta.json", json.dumps(meta, indent=2))
    archive.write_atomically(archive_dir / "verified.json", json.dumps({**shared["verified"], "reused": 1.0}))
    return f"input generated once for the cell (regenerate_data: false) by {shared['generated_by']}"


def _forget_shared_inputs(ctx: RunContext) -> None:
    """Drop this target's shared-input records of the campaign: its data is (about to be) gone."""
    for marker in archive.campaign_dir(ctx.spec.study, ctx.campaign).glob(
        f"*/input/{slug(ctx.environment.name)}.json"
    ):
        marker.unlink()


def _latest_step_status(rep_dir: Path, step: str) -> tuple[int | None, Path | None]:
    tries = archive.step_tries(rep_dir, step)
    if not tries:
        return None, None
    directory = tries[-1]
    code = int(json.loads((directory / "meta.json").read_text(encoding="utf-8"))["exit_code"])
    hive_meta = directory / "hive" / "meta.json"
    if code == 0 and hive_meta.exists():
        code = int(json.loads(hive_meta.read_text(encoding="utf-8"))["exit_code"])
    if code == 0 and step == "generate" and not (directory / "verified.json").exists():
        code = -1  # the data was not verified (or Hive tables not declared): do not measure on it
    return code, directory


def _mark_not_executed(
    ctx: RunContext, rep_dir: Path, artifact: Path | None, failure: archive.Failure
) -> None:
    """Mark the repetition failed in the archive, with its reason: never dropped silently."""
    now = datetime.now(UTC)
    never_ran = ArchivedStep(directory=artifact or rep_dir, exit_code=-1, started_at=now, finished_at=now)
    archive.save_records(rep_dir, [get_workload(ctx.workload).duration_record(ctx, never_ran, ok=False)])
    archive.write_failure(rep_dir, failure)


def _mark_failed(ctx: RunContext, rep_dir: Path, step: ArchivedStep, failure: archive.Failure) -> None:
    """A repetition that ran but cannot count: its duration record failed, its reason archived."""
    archive.save_records(rep_dir, [get_workload(ctx.workload).duration_record(ctx, step, ok=False)])
    archive.write_failure(rep_dir, failure)


def _preflight_failure(ctx: RunContext) -> archive.Failure | None:
    """The target's latest preflight, if it failed: why (its failure.json), else its exit code."""
    target = slug(ctx.environment.name)
    failure = archive.step_failure(_preflight_root(ctx), target)
    if failure is not None:
        return failure
    code, directory = _latest_step_status(_preflight_root(ctx), target)
    if code in (None, 0):
        return None
    return archive.Failure.now(
        "preflight", "failed", f"the preflight exited {code}; see {directory}", exit_code=code,
        archive=str(directory),
    )  # fmt: skip


def _failed_before_execute(ctx: RunContext, rep_dir: Path, previous: str, where: Path | None) -> None:
    """Mark a repetition whose `previous` step did not succeed failed, with the reason of the step
    that held it back: the target's preflight when it failed (the repetition's steps did not run
    then), else that step's own failure.json, else its folder."""
    preflight = _preflight_failure(ctx)
    code, _ = _latest_step_status(rep_dir, previous)
    address = ssh.target_address(ctx.environment.transport.connection)
    cause: archive.Failure | None
    if preflight is not None and code is None:
        cause, step = preflight, "preflight"
        what = f"the preflight on target '{ctx.environment.name}'"
    else:
        cause, step = archive.step_failure(rep_dir, previous), previous
        what = f"the {previous} step on target '{ctx.environment.name}'"
    detail = cause.message if cause else f"see {where or rep_dir}"
    named = "" if address in detail else f" ({address})"  # the message names host:port already
    message = f"{what}{named} {'failed' if step == 'preflight' else 'did not succeed'}: {detail}"
    failure = archive.Failure.now(
        step, cause.kind if cause else "failed", f"not executed: {message}",
        exit_code=cause.exit_code if cause else code, exception=cause.exception if cause else None,
        stderr_tail=cause.stderr_tail if cause else "", archive=cause.archive if cause else str(where or rep_dir),
    )  # fmt: skip
    _mark_not_executed(ctx, rep_dir, where, failure)
    raise ssh.StepFailed(f"repetition not executed: {message}")


def run_execute(unit: dict[str, Any], try_number: int = 1, keep_data: bool = False) -> dict[str, Any]:
    """Run the timed step, archive it, parse the archive, then capture the environment."""
    ctx = context_for(unit)
    rep_dir = rep_dir_for(ctx, None, archive.unit_environment(unit))
    run_order.save_run_order(rep_dir, unit)  # its planned place in the run order, with the repetition
    workload = get_workload(ctx.workload)
    generate_commands = workload.generate(ctx)
    for previous in ("clean", "generate") if generate_commands else ("clean",):
        code, where = _latest_step_status(rep_dir, previous)
        if code != 0:
            _failed_before_execute(ctx, rep_dir, previous, where)
    execute_dir = archive.step_dir(rep_dir, "execute", try_number)
    hive_statements = workload.hive_execute(ctx)
    remove_data = workload.uses_data_fs and not keep_data
    own_step = False
    # the target's load around the timed step: the SSH wrapper reads it for a shell step; two short
    # sessions read it for the others, measured repetitions only (warm-ups are compared with nothing)
    outside_wrapper = not ctx.is_warmup and (
        bool(hive_statements) or type(workload).run_own_step is not Workload.run_own_step
    )
    load_before = host_load.sample(ctx.environment.transport.connection) if outside_wrapper else None
    try:
        step_or_none = workload.run_own_step(ctx, execute_dir)
        if step_or_none is not None:
            step, own_step = step_or_none, True
        elif hive_statements:
            from benchcamp.transport import hive

            connection = ctx.environment.hive.connection or ""
            step = hive.run_statements(connection, hive_statements, execute_dir)
        else:
            # The repetition's data is removed after the timed job, in the same session (untimed).
            after = remove_data_script(ctx, verify=False, what="remove") if remove_data else ""
            step = ssh.run_step(
                ctx, ctx.environment.transport.connection, "execute", ssh.commands_body(workload.execute(ctx)),
                execute_dir, try_number, after=after,
            )  # fmt: skip
    except Exception as exc:
        # Whatever broke (an unreachable or refusing target, HiveServer2 down), the repetition is
        # archived as failed with its reason, never silently missing.
        _mark_not_executed(ctx, rep_dir, execute_dir, failure_of("execute", exc, execute_dir))
        raise
    if outside_wrapper:
        host_load.write_load(execute_dir, load_before, host_load.sample(ctx.environment.transport.connection))
    try:
        records = workload.parse(ctx, step)
        if (
            step.exit_code == 0
            and ctx.environment.jobhistory.url
            and not hive_statements
            and not own_step
            and not workload.fetches_own_job_history
        ):
            records += _job_history_records(ctx, workload, step, rep_dir, try_number)
    except Exception as exc:
        # ParseError names the archived file; any other error still marks the repetition failed.
        # A job that exited non-zero is the cause, not the output it could not write.
        if step.exit_code != 0:
            _fail_execute(ctx, rep_dir, step)
        _mark_failed(ctx, rep_dir, step, failure_of("parse", exc, step.directory))
        raise
    try:
        _capture_environment(ctx, rep_dir, try_number)
    except Exception as exc:
        # Numbers whose machine is unknown cannot be compared: the repetition is marked failed
        # (its raw outputs stay archived) and the task fails with the capture's message.
        if step.exit_code != 0:
            _fail_execute(ctx, rep_dir, step)  # the job's own failure is the reason to give
        _mark_failed(ctx, rep_dir, step, failure_of("environment", exc))
        raise
    archive.save_records(rep_dir, records)
    if (hive_statements or own_step) and remove_data:
        # HiveServer2 ran the query: the repetition's data goes in a short session of its own
        # (a failure is archived; the campaign's cleanup checks nothing is left)
        ssh.run_step(
            ctx, ctx.environment.transport.connection, "remove_data", "set -u\n" + remove_data_script(ctx, False, "remove"),
            archive.step_dir(rep_dir, "remove_data", try_number), try_number,
        )  # fmt: skip
    if step.exit_code != 0:
        _fail_execute(ctx, rep_dir, step, records)
    archive.clear_failure(rep_dir)  # measured: a reason left by an earlier try or run no longer holds
    return {"archive": str(step.directory), "duration_s": step.duration_s, "records": len(records)}


def _fail_execute(
    ctx: RunContext, rep_dir: Path, step: ArchivedStep, records: list[ResultRecord] | None = None
) -> None:
    """The execute step exited non-zero: archive its reason (and the records, failed, or a failed
    duration record when there are none) and fail with its stderr tail."""
    try:
        ssh.raise_if_failed("execute", step)
    except ssh.StepFailed as exc:
        if records is None:
            _mark_failed(ctx, rep_dir, step, failure_of("execute", exc, step.directory))
        else:
            archive.write_failure(rep_dir, failure_of("execute", exc, step.directory))
        raise


def stop_campaign(
    study: str,
    campaign: str,
    signal_name: str,
    environments: list[str] | None = None,
    grace_s: float = ssh.STOP_GRACE_S,
) -> list[ssh.StoppedJob]:
    """For `benchcamp run`'s SIGINT/SIGTERM handler, once Airflow's process is stopped: stop the
    campaign's running jobs on each target (`environments`, default every one of the study) and
    mark the repetitions they measured interrupted (`archive.mark_interrupted`).

    A target that cannot be reached within a short budget is logged and skipped: nothing can be
    stopped there. Returns the jobs stopped.
    """
    spec = load_spec(study)
    stopped: list[ssh.StoppedJob] = []
    for environment in spec.environments:
        if environments is not None and environment.name not in environments:
            continue
        try:
            jobs = ssh.stop_campaign_jobs(
                environment, study, campaign, grace_s, attempts=2, first_wait_s=1.0, budget_s=3.0
            )
        except (ssh.TargetUnreachable, ssh.TargetRefused) as exc:
            logging.getLogger(__name__).warning("cannot stop the jobs on %s: %s", environment.name, exc)
            continue
        for job in jobs:
            if job.step in archive.MEASURING_STEPS:
                # an interleaved campaign archives each environment's repetitions apart
                interleaved = f"{job.cell}@{slug(environment.name)}"
                cell = (
                    interleaved
                    if (archive.campaign_dir(study, campaign) / interleaved).is_dir()
                    else job.cell
                )
                rep_dir = child(
                    archive.campaign_dir(study, campaign), cell, f"rep{job.repetition}", what="cell"
                )
                archive.mark_interrupted(rep_dir, signal_name, job.step)
        stopped += jobs
    return stopped


def _job_history_records(
    ctx: RunContext, workload: Workload, step: ArchivedStep, rep_dir: Path, try_number: int
) -> list[ResultRecord]:
    """Per-task phase times of the execute step's last MapReduce job, from the JobHistory server.

    The REST answers are archived (jobhistory/try<N>/stdout.log) before they are parsed;
    the phase means are records of the repetition like its duration.
    """
    log = step.text("stderr.log") + "\n" + step.text("stdout.log")
    job_ids = [report.job_id for report in parse_job_reports(log) if report.job_id]
    if not job_ids:
        raise ParseError(f"{step.directory / 'stderr.log'}: no MapReduce job id to fetch the history of")
    url = ctx.environment.jobhistory.url or ""
    history = ssh.run_step(
        ctx, ctx.environment.transport.connection, "jobhistory",
        fetch_script(url, job_ids[-1], ctx.environment.jobhistory.via.split()),
        archive.step_dir(rep_dir, "jobhistory", try_number), try_number,
    )  # fmt: skip
    source = history.directory / "stdout.log"
    if history.exit_code != 0:
        raise ParseError(
            f"{history.directory / 'stderr.log'}: fetching the history of {job_ids[-1]} from {url} "
            f"failed (exit {history.exit_code})"
        )
    try:
        job = parse_job_history(json.loads(history.text("stdout.log")), str(source))
    except ParseError:
        raise  # names the file already
    except ValueError as exc:  # not JSON
        raise ParseError(f"{source}: {exc}") from exc
    if not job.succeeded:
        raise ParseError(f"{source}: job {job.job_id} ended {job.state}")
    records = [
        workload.record(ctx, step, metric, value, "s", artifact=source)
        for metric, value in job.metrics().items()
    ]
    records.append(
        workload.record(
            ctx, step, "failed_task_attempts", float(job.failed_attempts), "attempts", artifact=source
        )
    )
    return records


def _capture_environment(ctx: RunContext, rep_dir: Path, try_number: int) -> EnvironmentSnapshot:
    """The target's facts for this repetition: captured once per campaign and target, reused after.

    The first repetition on a target captures them (archived under
    `<campaign>/environment/<target>/capture<N>/`); later repetitions get a copy of that snapshot
    (same `captured_at`), which saves an SSH session and a JVM per repetition. A retried step
    (try > 1) captures again, since whatever failed may have changed the target, and a Hive
    workload adds HiveServer2's facts the first time one runs.
    """
    cache_dir = (
        archive.campaign_dir(ctx.spec.study, ctx.campaign) / "environment" / slug(ctx.environment.name)
    )
    cached_file = cache_dir / archive.ENVIRONMENT_FILE
    wants_hive = bool(ctx.environment.hive.connection) and get_workload(ctx.workload).uses_hive
    snapshot: EnvironmentSnapshot | None = None
    if try_number == 1 and cached_file.exists():
        snapshot = EnvironmentSnapshot.model_validate_json(cached_file.read_text(encoding="utf-8"))
    cached = snapshot
    capture_dir = cache_dir / f"capture{len(list(cache_dir.glob('capture*'))) + 1}"
    if snapshot is None:
        step = ssh.run_step(
            ctx,
            ctx.environment.transport.connection,
            "environment",
            env_facts.facts_script(ctx),
            capture_dir,
            try_number,
        )
        where = (
            f"target '{ctx.environment.name}' ({ssh.target_address(ctx.environment.transport.connection)})"
        )
        if step.exit_code != 0:
            raise EnvironmentCaptureFailed(
                f"environment capture on {where} exited {step.exit_code}; raw output archived in "
                f"{step.directory}\n{ssh.stderr_tail(step.text('stderr.log'))}"
            )
        facts = env_facts.parse_facts(step.text("stdout.log"))
        missing = env_facts.missing_facts(facts)
        if missing:
            raise EnvironmentCaptureFailed(
                f"environment capture on {where} did not report {', '.join(missing)}; no fingerprint "
                f"is computed from missing facts (raw output: {step.directory / 'stdout.log'})"
            )
        hardware = ctx.environment.transport.hardware_facts
        absent = [name for name in hardware if name not in facts["target"]]
        if absent:
            raise EnvironmentCaptureFailed(
                f"the facts_command of {where} did not print {', '.join(absent)} (hardware_facts); "
                f"raw output: {step.directory / 'stdout.log'}"
            )
        if hardware:
            facts["target_hardware"] = {name: facts["target"][name] for name in hardware}
        if ctx.spec.reformat_storage:
            facts["storage_reformatted_at"] = _preflight_facts(ctx).get("storage_reformatted_at", "")
        snapshot = env_facts.snapshot(ctx, facts, step.finished_at)
    if wants_hive and "hive_version" not in snapshot.facts:
        from benchcamp.transport import hive

        hive_dir = capture_dir / "hive"
        hive_step = hive.run_statements(
            ctx.environment.hive.connection or "", env_facts.hive_fact_statements(), hive_dir
        )
        if hive_step.exit_code != 0:
            raise EnvironmentCaptureFailed(
                f"HiveServer2's facts (version, effective settings) could not be read through "
                f"'{ctx.environment.hive.connection}' (exit {hive_step.exit_code}); raw output archived "
                f"in {hive_step.directory}\n{ssh.stderr_tail(hive_step.text('stderr.log'))}"
            )
        facts = {**snapshot.facts, **env_facts.parse_hive_facts(json.loads(hive_step.text("results.json")))}
        snapshot = snapshot.model_copy(update={"facts": facts})
    if snapshot is not cached:  # newly captured, or with HiveServer2's facts added
        archive.save_environment(cache_dir, snapshot)
    archive.save_environment(rep_dir, snapshot)
    return snapshot


def _uses_data_fs(units: list[dict[str, Any]]) -> bool:
    """Whether any unit's workload keeps data on the target's Hadoop file system."""
    return any(get_workload(unit["workload"]).uses_data_fs for unit in units)


SPACE_HEADROOM = 1.25  # the study left about 25% of the storage free for temporary data


def leftovers_lines(ctx: RunContext, data_fs: bool = True) -> list[str]:
    """Shell lines that remove what campaigns of this study left on the target, and say so.

    A campaign killed mid-way (SIGTERM, a lost worker) never runs its cleanup, and a failed
    cleanup leaves its data: the next campaign of the study on the target removes it first, so
    the space it needs is free and no stale data is measured. Removed: the study's folder on
    the data file system (`<data_root>/<study>/`, else `"$WORK"/<study>/*/rep*/data` and the
    cells' `input`) and the generators' staging folders on the target's disk, the current
    campaign's own included (a re-run of the same name regenerates its inputs: the preflight
    forgets them). Other studies' paths are never touched. This is safe only because one
    campaign runs on a target at a time (the CLI's lock; the stack's 1-slot pool per target):
    a campaign running beside it would lose its data. Prints `leftovers_removed` (paths),
    `leftovers_files`, `leftovers_bytes` and `leftover_campaigns` (their names, comma-separated).
    """
    study = check_component(slug(ctx.spec.study), "path part")
    lines = [
        "shopt -s nullglob",
        'leftover_names=""; leftovers_removed=0; leftovers_files=0; leftovers_bytes=0',
        # the generators' staging folders on the target's own disk
        f'for dir in "$WORK"/{shlex.quote(study)}/*/*/rep*/staging; do',
        "  leftovers_bytes=$(( leftovers_bytes + $(find \"$dir\" -type f -printf '%s\\n' | awk '{ n += $1 } END { print n + 0 }') ))",
        '  leftovers_files=$(( leftovers_files + $(find "$dir" -type f | wc -l) ))',
        f'  rest=${{dir#"$WORK"/{shlex.quote(study)}/}}; leftover_names="$leftover_names${{rest%%/*}}"$\'\\n\'',
        '  rm -rf "$dir"; leftovers_removed=$(( leftovers_removed + 1 ))',
        "done",
        "shopt -u nullglob",
    ]
    root = ctx.environment.hadoop.data_root
    if data_fs and _uses_webhdfs(ctx) and root:
        study_root = f"{root.rstrip('/')}/{study}"
        url = ctx.environment.hadoop.webhdfs_url or ""
        lines += [
            *webhdfs.summary_lines(url, study_root, "preflight"),
            'if [ -n "$children" ]; then',
            *("  " + line for line in webhdfs.delete_lines(url, study_root, True, "preflight: leftovers")),
            "  leftover_names=\"$leftover_names$children\"$'\\n'",
            "  leftovers_removed=$(( leftovers_removed + $(printf '%s\\n' \"$children\" | grep -c .) ))",
            "  leftovers_files=$(( leftovers_files + ${child_files:-0} ))",
            "  leftovers_bytes=$(( leftovers_bytes + ${child_bytes:-0} ))",
            "fi",
        ]
    elif data_fs:
        # `hadoop fs` expands the (quoted) patterns itself: on HDFS the shell sees no such paths
        words: list[Word]
        if root:
            prefix = Shell(shlex.quote(f"{root.rstrip('/')}/{study}"))
            words = [f"{root.rstrip('/')}/{study}/*"]
        else:
            prefix = Shell(f'"$WORK"/{shlex.quote(study)}')
            words = [
                Shell(f'"$WORK"/{shlex.quote(f"{study}/{tail}")}') for tail in ("*/*/rep*/data", "*/*/input")
            ]
        hadoop, found = ctx.hadoop, Shell('"${paths[@]}"')
        lines += [
            # DIR_COUNT FILE_COUNT CONTENT_SIZE PATHNAME per match; nothing when nothing matches
            f"listing=$({render([*hadoop, 'fs', '-count', *words])} 2>/dev/null || true)",
            'if [ -n "$listing" ]; then',
            '  mapfile -t paths < <(printf \'%s\\n\' "$listing" | awk \'NF >= 4 { $1 = $2 = $3 = ""; '
            'sub(/^ +/, ""); print }\')',
            "  leftovers_files=$(( leftovers_files + $(printf '%s\\n' \"$listing\" | awk '{ n += $2 } END { print n + 0 }') ))",
            "  leftovers_bytes=$(( leftovers_bytes + $(printf '%s\\n' \"$listing\" | awk '{ n += $3 } END { print n + 0 }') ))",
            '  for path in "${paths[@]}"; do',
            f"    rest=${{path#*{prefix}/}}; leftover_names=\"$leftover_names${{rest%%/*}}\"$'\\n'",
            "  done",
            f"  {render([*hadoop, 'fs', '-rm', '-r', '-f', '-skipTrash', found])} >/dev/null",
            f"  left=$({render([*hadoop, 'fs', '-ls', '-d', found])} 2>/dev/null | grep -c . || true)",
            '  if [ "${left:-0}" -gt 0 ]; then echo "preflight: leftovers still present: $left path(s)" >&2; exit 9; fi',
            "  leftovers_removed=$(( leftovers_removed + ${#paths[@]} ))",
            "fi",
        ]
    lines += [
        "echo leftovers_removed=$leftovers_removed",
        "echo leftovers_files=$leftovers_files",
        "echo leftovers_bytes=$leftovers_bytes",
        'echo "leftover_campaigns=$(printf \'%s\' "$leftover_names" | grep . | sort -u | paste -sd, -)"',
    ]
    return lines


def preflight_body(ctx: RunContext, needed_bytes: int, data_fs: bool = True) -> str:
    """Before anything runs on a target: HDFS out of safe mode (bounded wait), what earlier
    campaigns of the study left removed (`leftovers_lines`), then enough free space.

    Without `data_fs` (no workload of the campaign keeps data on a Hadoop file system) only
    the work directory is made and its staging leftovers removed: the target may have no Hadoop.
    """
    hadoop = ctx.hadoop
    lines = ["set -u"]
    if ctx.spec.reformat_storage and ctx.environment.transport.reformat_command:
        # The study starts every campaign on freshly formatted storage (the command is the spec's).
        lines += [
            f"( {ctx.environment.transport.reformat_command}\n) || {{ rc=$?; echo \"preflight: the environment's "
            'reformat_command failed (exit $rc)" >&2; exit 8; }',
            'echo "storage_reformatted_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
        ]
    if not data_fs:
        return (
            "\n".join([*lines, *leftovers_lines(ctx, data_fs), 'mkdir -p "$WORK"', "echo data_fs=none"])
            + "\n"
        )
    wait_s = ctx.environment.hadoop.safemode_wait_s
    if wait_s:
        lines += [
            f"deadline=$(( $(date +%s) + {int(wait_s)} ))",
            f"until {render([*hadoop, 'dfsadmin', '-safemode', 'get'])} 2>/dev/null | grep -q 'Safe mode is OFF'; do",
            f'  if [ "$(date +%s)" -ge "$deadline" ]; then echo "preflight: HDFS is still in safe mode after {int(wait_s)} s" >&2; exit 5; fi',
            "  sleep 5",
            "done",
            "echo safemode=off",
        ]
    lines += leftovers_lines(ctx, data_fs)  # before the free space is read: they held some of it
    root = (
        Shell(shlex.quote(ctx.environment.hadoop.data_root))
        if ctx.environment.hadoop.data_root
        else Shell('"$WORK"')
    )
    lines += [
        f'mkdir -p "$WORK"; {render([*hadoop, "fs", "-mkdir", "-p", root])} 2>/dev/null || true',
        f"available=$({render([*hadoop, 'fs', '-df', root])} 2>/dev/null | awk 'NR==2 {{print $4}}')",
        'if [ -z "$available" ]; then echo "preflight: cannot read the free space of the data file system" >&2; exit 6; fi',
        "echo data_available_bytes=$available",
        f"echo data_needed_bytes={needed_bytes}",
        f'if [ "$available" -lt {needed_bytes} ]; then echo "preflight: the largest cell needs {needed_bytes} bytes '
        f"(its data x {SPACE_HEADROOM} headroom) but the data file system has $available bytes free: choose a "
        'smaller ladder or free space" >&2; exit 7; fi',
    ]
    return "\n".join(lines) + "\n"


def _preflight_root(ctx: RunContext) -> Path:
    """The campaign's preflight folder: one step folder per target, named by its slug."""
    return archive.campaign_dir(ctx.spec.study, ctx.campaign) / "preflight"


def step_facts(stdout: str) -> dict[str, str]:
    """The `key=value` lines a clean or preflight script prints (e.g. `drop_caches=done`)."""
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


def _preflight_facts(ctx: RunContext) -> dict[str, str]:
    """The `key=value` lines of the target's latest successful preflight (e.g. when its storage was
    reformatted), for the environment facts."""
    code, step_dir = _latest_step_status(_preflight_root(ctx), slug(ctx.environment.name))
    if code != 0 or step_dir is None:
        return {}
    return step_facts((step_dir / "stdout.log").read_text(encoding="utf-8"))


class ControllerSetupFailed(RuntimeError):
    """An environment's controller_setup exited non-zero; names it and its archived output."""


def run_controller_setup(argv: tuple[str, ...], archive_dir: Path) -> ArchivedStep:
    """Run an environment's `controller_setup` here (not over SSH), archive-first: its argv,
    output, exit code and times are written before its exit code is judged."""
    archive_dir.mkdir(parents=True, exist_ok=True)
    program = argv[0] if "/" not in argv[0] or argv[0].startswith("/") else str(repo_root() / argv[0])
    command = [shutil.which(program) or program, *argv[1:]]
    (archive_dir / "command.json").write_text(json.dumps(command), encoding="utf-8")
    started = datetime.now(UTC)
    with (archive_dir / "stdout.log").open("wb") as out, (archive_dir / "stderr.log").open("wb") as err:
        try:
            code = subprocess.run(command, stdout=out, stderr=err, cwd=repo_root(), check=False).returncode
        except OSError as exc:  # a missing program is a failed setup, said like one
            err.write(f"{exc}\n".encode())
            code = 127
    step = ArchivedStep(
        directory=archive_dir, exit_code=code, started_at=started, finished_at=datetime.now(UTC)
    )
    (archive_dir / "status").write_text(f"{code} {step.duration_s:.3f}\n", encoding="utf-8")
    if code != 0:
        raise ControllerSetupFailed(
            f"controller_setup {' '.join(argv)!r} exited {code}; raw output archived in {archive_dir}\n"
            f"{ssh.stderr_tail(step.text('stderr.log'))}"
        )
    return step


def table_location(rows: list[list[Any]]) -> str:
    """The path of a table's data from DESCRIBE FORMATTED's rows (`Location:`, then
    `hdfs://host:port/path`), without scheme and authority; empty when there is none."""
    for row in rows:
        if len(row) >= 2 and str(row[0]).strip() == "Location:" and row[1]:
            return re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*", "", str(row[1]).strip())
    return ""


def _leftover_tables(ctx: RunContext, units: list[dict[str, Any]], archive_dir: Path) -> dict[str, list[str]]:
    """Drop the Hive tables campaigns of this study left (their data under `<data_root>/<study>/`);
    {campaign: [tables]}.

    Only tables named as the campaign's workloads name theirs are looked at (SHOW TABLES, then
    DESCRIBE FORMATTED each for its location): a shared HiveServer2's other tables cost nothing
    and are never dropped.
    """
    root = ctx.environment.hadoop.data_root
    patterns = {get_workload(unit["workload"]).hive_table_pattern for unit in units} - {None}
    statements = [HiveStatement("ping", "SELECT 1", fetch=True)]
    if root and patterns:
        statements.append(HiveStatement("tables", "SHOW TABLES", fetch=True))
    listed = _run_hive(ctx, statements, archive_dir / "hive", "preflight")
    if len(statements) == 1:
        return {}
    names = [str(row[0]) for row in json.loads(listed.text(RESULTS_FILE))["tables"] if row]
    candidates = [name for name in names if any(re.fullmatch(p or "", name) for p in patterns)]
    if not candidates:
        return {}
    described = _run_hive(
        ctx,
        [HiveStatement(name, f"DESCRIBE FORMATTED {identifier(name)}", fetch=True) for name in candidates],
        archive_dir / "hive_tables",
        "preflight",
    )
    rows = json.loads(described.text(RESULTS_FILE))
    study_root = f"{(root or '').rstrip('/')}/{check_component(slug(ctx.spec.study), 'path part')}/"
    found: dict[str, list[str]] = {}
    for name in candidates:
        location = table_location(rows.get(name, []))
        if location.startswith(study_root):
            found.setdefault(location[len(study_root) :].split("/")[0], []).append(name)
    drops = [
        HiveStatement(f"drop_{n}", f"DROP TABLE IF EXISTS {n}") for names in found.values() for n in names
    ]
    if drops:
        _run_hive(ctx, drops, archive_dir / "hive_drop", "preflight")
    return found


def run_preflight(units: list[dict[str, Any]], try_number: int = 1) -> dict[str, str]:
    """Reject a campaign a target cannot hold, before any data is generated; check Hive answers;
    remove what earlier campaigns of the study left on the target (`leftovers_lines`) and the
    Hive tables over it.

    Safe only because one campaign runs on a target at a time (the CLI's lock per target;
    Airflow's 1-slot pool per target in the stack): whatever the study has there is a leftover.
    The facts say what went: `leftovers_removed` (paths), `leftovers_files`, `leftovers_bytes`,
    `leftover_campaigns` (comma-separated) and, for a campaign with Hive workloads,
    `leftover_tables` (tables dropped).
    """
    if not units:
        return {"preflight": "nothing planned on this target"}
    targets = by_environment(units)
    if len(targets) > 1:  # an interleaved campaign: each environment of its group, in turn
        return {
            f"{environment}.{key}": value
            for environment, env_units in targets.items()
            for key, value in run_preflight(env_units, try_number).items()
        }
    ctx = context_for(units[0])
    needed = max(get_workload(unit["workload"]).estimated_bytes(context_for(unit)) for unit in units)
    data_fs = _uses_data_fs(units)
    archive_dir = archive.step_dir(_preflight_root(ctx), slug(ctx.environment.name), try_number)
    _forget_shared_inputs(ctx)  # a re-run campaign (same name) generates its cells' input anew
    with failure_recorded("preflight", archive_dir):
        if ctx.environment.transport.controller_setup:
            run_controller_setup(ctx.environment.transport.controller_setup, archive_dir / "controller_setup")
        step = ssh.run_step(
            ctx, ctx.environment.transport.connection, "preflight", preflight_body(ctx, int(needed * SPACE_HEADROOM), data_fs),
            archive_dir, try_number,
        )  # fmt: skip
        ssh.raise_if_failed("preflight", step, PREFLIGHT_REFUSALS)
        facts = step_facts(step.text("stdout.log"))
        if any(get_workload(unit["workload"]).uses_hive for unit in units):
            tables = _leftover_tables(ctx, units, archive_dir)
            facts["hive"] = "reachable"
            facts["leftover_tables"] = str(sum(len(names) for names in tables.values()))
            campaigns = {name for name in facts.get("leftover_campaigns", "").split(",") if name} | set(
                tables
            )
            facts["leftover_campaigns"] = ",".join(sorted(campaigns))
    return {"archive": str(step.directory), **facts}


def _campaign_part(ctx: RunContext) -> str:
    """`<study>/<campaign>`: the campaign's folder under the target's work and data roots."""
    return "/".join(check_component(slug(name), "path part") for name in (ctx.spec.study, ctx.campaign))


def untouched_target(units: list[dict[str, Any]]) -> str | None:
    """Why the campaign's cleanup on this target has nothing to do, or None: its preflight never
    opened a session there (unreachable or refused at connect), so no step of the campaign ran on
    it (every repetition waits for the preflight). Saves the cleanup's own tries on a dead target."""
    if not units:
        return None
    targets = by_environment(units)
    if len(targets) > 1:  # an interleaved campaign: untouched only when none of them was touched
        reasons = [untouched_target(env_units) for env_units in targets.values()]
        return None if None in reasons else "; ".join(reason or "" for reason in reasons)
    ctx = context_for(units[0])
    root, target = _preflight_root(ctx), slug(ctx.environment.name)
    failure = archive.step_failure(root, target)
    if archive.step_tries(root, target) or failure is None or failure.kind not in ("unreachable", "refused"):
        return None
    return f"nothing of this campaign ran on target '{ctx.environment.name}': {failure.message}"


def cleanup_body(ctx: RunContext, data_fs: bool = True) -> str:
    """Delete every repetition's data of the campaign on the target and check it is gone.

    Through WebHDFS where the environment has it (no JVM), else `hadoop fs`; never through
    HiveServer2, so a dead HiveServer2 cannot keep the data: the Hive tables are external tables
    over the campaign's data path (`workloads.hivebench`), dropped apart.
    """
    hadoop = ctx.hadoop
    campaign_part = _campaign_part(ctx)
    staging = Shell(f'"$WORK"/{shlex.quote(campaign_part)}/*/rep*/staging')
    if not data_fs:  # the stores' tables are emptied by the next run's execute step
        return "\n".join(["set -u", f"rm -rf {staging}", "echo cleanup_verified=yes", ""])
    root = ctx.environment.hadoop.data_root
    if _uses_webhdfs(ctx) and root:
        delete = webhdfs.delete_lines(
            ctx.environment.hadoop.webhdfs_url or "", f"{root.rstrip('/')}/{campaign_part}", True, "cleanup"
        )
        return "\n".join(["set -u", f"rm -rf {staging}", *delete, "echo cleanup_verified=yes", ""])
    if root:
        pattern = Shell(shlex.quote(f"{root.rstrip('/')}/{campaign_part}"))
    else:  # the repetitions' data and, with regenerate_data: false, the cells' shared input
        pattern = Shell(
            f'"$WORK"/{shlex.quote(campaign_part)}/*/rep*/data "$WORK"/{shlex.quote(campaign_part)}/*/input'
        )
    return "\n".join(
        [
            "set -u",
            f"rm -rf {staging}",
            render([*hadoop, "fs", "-rm", "-r", "-f", "-skipTrash", pattern]) + " >/dev/null",
            f"left=$({render([*hadoop, 'fs', '-ls', '-d', pattern])} 2>/dev/null | grep -c . || true)",
            'if [ "${left:-0}" -gt 0 ]; then echo "cleanup: data still present: $left path(s)" >&2; exit 1; fi',
            "echo cleanup_verified=yes",
            "",
        ]
    )


def run_cleanup(units: list[dict[str, Any]], try_number: int = 1) -> dict[str, str]:
    """After every repetition, failed or not: delete the campaign's data on the target, then drop
    its Hive tables.

    Idempotent; runs with trigger rule ALL_DONE so a failed campaign never leaves the next
    one a dirty cluster. The data goes first and without HiveServer2: when HiveServer2 cannot
    drop the tables the data is still gone (verified), the task fails naming HiveServer2, and
    the next campaign's preflight on this target drops the tables left behind.
    """
    if not units:
        return {"cleanup": "nothing planned on this target"}
    targets = by_environment(units)
    if len(targets) > 1:  # an interleaved campaign: each environment of its group, in turn
        return {
            f"{environment}.{key}": value
            for environment, env_units in targets.items()
            for key, value in run_cleanup(env_units, try_number).items()
        }
    ctx = context_for(units[0])
    archive_dir = archive.step_dir(
        archive.campaign_dir(ctx.spec.study, ctx.campaign) / "cleanup", ctx.environment.name, try_number
    )
    statements: list[HiveStatement] = []
    seen: set[str] = set()
    for unit in units:
        unit_ctx = context_for(unit)
        for statement in get_workload(unit_ctx.workload).hive_clean(unit_ctx):
            if statement.sql not in seen:
                seen.add(statement.sql)
                statements.append(statement)
    _forget_shared_inputs(ctx)
    step = ssh.run_step(
        ctx, ctx.environment.transport.connection, "cleanup",
        cleanup_body(ctx, _uses_data_fs(units)),
        archive_dir, try_number,
    )  # fmt: skip
    hive_failure: Exception | None = None
    if statements:
        try:
            _run_hive(ctx, statements, archive_dir / "hive", "cleanup")
        except (ssh.StepFailed, ssh.TargetUnreachable) as exc:
            hive_failure = exc
    ssh.raise_if_failed("cleanup", step)
    if hive_failure is not None:
        raise ssh.StepFailed(
            f"cleanup on '{ctx.environment.name}': the campaign's data is deleted (verified gone) but "
            f"HiveServer2 ({ctx.environment.hive.connection}) did not drop its {len(statements)} Hive "
            f"table(s); the next campaign's preflight on this target drops them. {hive_failure}"
        ) from hive_failure
    return {"archive": str(step.directory), "hive_tables_dropped": str(len(statements))}


def run_validate(
    study: str, campaign: str, units: dict[str, list[dict[str, Any]]] | None
) -> list[ValidationFailure]:
    from benchcamp.pipeline.validation import validate_campaign

    spec = load_spec(study)
    records = archive.load_campaign_records(study, campaign)
    if units is not None:  # the adaptive rounds' repetitions are expected too (archived by each round)
        adaptive.finish(units, spec.thresholds.min_ok_repetitions)  # why the last ones stopped
        units = {**units, "adaptive": adaptive.added_units(study, campaign)}
    expected = expected_cells(units) if units is not None else None
    failures = validate_campaign(
        records,
        expected,
        spec.thresholds.max_stddev_pct,
        study,
        campaign,
        min_ok_repetitions=spec.thresholds.min_ok_repetitions,
    )
    archive.save_validation(study, campaign, failures)
    return failures


@dataclass(frozen=True)
class RunInfo:
    """The Airflow run behind a campaign: kept so backfills can be told from the runs they re-did."""

    run_id: str
    run_type: str
    logical_date: datetime | None
    settings: dict[str, Any] | None = None  # the resolved campaign settings (`run_settings`)


@dataclass(frozen=True)
class LoadResult:
    """What a load wrote, and the targets whose hardware changed since their previous campaign."""

    records: int
    inserted: int
    replaced: int
    hardware_changes: list[HardwareChange]

    def summary(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "inserted": self.inserted,
            "replaced": self.replaced,
            "hardware_changes": [change.environment for change in self.hardware_changes],
        }


def run_load(
    study: str, campaign: str, warehouse: Path | None = None, run: RunInfo | None = None
) -> LoadResult:
    """Load the campaign's archive into the warehouse, then compare each target's hardware with its last campaign."""
    from benchcamp.pipeline import warehouse as wh

    spec = load_spec(study)
    path = warehouse or default_warehouse()
    records = archive.load_campaign_records(study, campaign)
    # The archive is the whole campaign: rows of an earlier attempt it no longer holds go.
    summary = wh.load_records(path, records, replace_campaign=(study, campaign))
    wh.replace_validation_failures(path, study, campaign, archive.load_validation(study, campaign))
    wh.replace_run_order(
        path, study, campaign, run_order.load_run_order(archive.campaign_dir(study, campaign))
    )
    wh.replace_repetition_load(
        path, study, campaign, host_load.load_rows(archive.campaign_dir(study, campaign))
    )
    for snapshot in archive.load_campaign_environments(study, campaign):
        wh.load_environment(path, snapshot)
    wh.upsert_study_thresholds(path, study, spec.thresholds.max_stddev_pct)
    wh.upsert_study_claims(path, study, load_claims(study))  # what the scorecard mart scores
    wh.replace_adaptive_stops(path, study, campaign, adaptive.stops(study, campaign))
    wh.upsert_study_history(path, study, spec.history)
    wh.upsert_axis_comparisons(path, study, spec.axes)
    if run is not None and records:  # a run that measured nothing (target unreachable) is no campaign
        wh.record_campaign_run(
            path, study, campaign, run.run_id, run.run_type, run.logical_date,
            None if run.settings is None else json.dumps(run.settings, sort_keys=True, default=str),
        )  # fmt: skip
    changes = wh.detect_hardware_changes(path, study, campaign)
    return LoadResult(len(records), summary.inserted, summary.replaced, changes)


def gate(study: str, campaign: str, fail_on_validation: bool) -> str:
    """Fail the run (after everything is loaded and reported) when expectations failed."""
    failures = archive.load_validation(study, campaign)
    failed = [
        record for record in archive.load_campaign_records(study, campaign) if record.status == "failed"
    ]
    summary = f"{len(failures)} failed expectation(s), {len(failed)} failed record(s)"
    if failures and fail_on_validation:
        details = "\n".join(
            f"- {failure.cell_key}: {failure.expectation}: {failure.details}" for failure in failures
        )
        raise ssh.StepFailed(f"campaign {campaign} did not pass validation: {summary}\n{details}")
    return summary
