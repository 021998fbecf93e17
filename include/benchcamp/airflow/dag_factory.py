# Over 600 lines on purpose: one study DAG's whole task graph reads as one piece; its steps live in pipeline/.
"""Build one Airflow DAG per study spec: clean → generate → execute → validate → load → dbt → report.

Parse time reads only the bundled spec and the committed dbt manifest: no
connection, no heavy import (GX, dbt, pandas and DuckDB are imported inside tasks).
Repetitions are dynamically mapped per target environment, each target's steps in
its own 1-slot pool, with upstream-first weights so the scheduler finishes one
repetition (clean, generate, execute) before it starts the next.
"""

# Over 600 lines: the DAG's shape with its TaskFlow callables, which close over the spec and call pipeline/.

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from airflow.sdk import (
    DAG,
    Asset,
    AssetAlias,
    Param,
    TaskGroup,
    TriggerRule,
    WeightRule,
    get_current_context,
    task,
    task_group,
)

from benchcamp.core.matrix import LADDERS
from benchcamp.core.spec import MAX_WARMUP_REPETITIONS, RUN_ORDERS, StudySpec, load_spec
from benchcamp.core.study import study_plugins
from benchcamp.pipeline.adaptive import adaptive_rounds
from benchcamp.pipeline.campaign.conf import (
    CAMPAIGN_PATTERN,
    DEFAULT_CONNECTIONS_ENV,
    MAX_REPETITIONS,
    SCHEDULED_START_GRACE,
    WAREHOUSE_POOL,
    check_conf,
    conf_summary,
    default_environment,
    implemented_workloads,
    resolve_campaign,
    target_pool,
)
from benchcamp.pipeline.campaign.plan import plan_units
from benchcamp.pipeline.campaign.unit import Plan, RepetitionUnit

START_DATE = datetime(2026, 1, 1)
# The load task emits, through this alias, one event on `hardware_asset(environment)` per target
# whose hardware fingerprint changed since that target's previous campaign (none otherwise).
HARDWARE_CHANGE_ALIAS = AssetAlias("benchcamp_hardware_change")
# The alert_regressions task emits, through this alias, one event on
# `regression_asset(study, environment)` per regression the campaign makes known (none otherwise).
REGRESSION_ALIAS = AssetAlias("benchcamp_regression")
# Airflow retries a step whose command failed on a reachable target (a job killed by a dying
# DataNode, a NameNode restarting): 10 s, then 20 s. A target that refused or stayed unreachable
# through the transport's own bounded tries (about 14 s) fails the step at once (`fail_fast`).
STEP_RETRIES = 2
T = TypeVar("T")
# The form's schemas name their draft. Without it jsonschema checks each schema against draft
# 2020-12's meta-schema, and Airflow validates every parameter on every task whenever it
# serializes a DAG (87 tasks x 14 parameters for HiBench): 4.4 CPU-s for the five DAGs, paid by
# the dag processor on each parse and by every `airflow dags test`; with draft-07, 1.8 s. The
# keywords used here mean the same in both drafts.
JSON_SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#"


def _param(default: Any, **schema: Any) -> Param:
    """A trigger-form parameter whose JSON schema names its draft (JSON_SCHEMA_DRAFT)."""
    schema["$schema"] = JSON_SCHEMA_DRAFT
    return Param(default, **schema)


def study_params(spec: StudySpec) -> dict[str, Param]:
    """Trigger-form parameters with JSON schemas: bad values are refused before a run exists."""
    workloads = implemented_workloads(spec)
    environment = default_environment(spec)
    return {
        "ladder": _param(
            spec.default_ladder,
            type="string",
            enum=list(LADDERS),
            title="Size ladder",
            description="tiny: seconds (CI); small: minutes; paper: the published sizes (hours).",
        ),
        # Exclusive bounds: the form clamps a number to `minimum`/`maximum` silently on blur; with
        # exclusive ones it sends what was typed and the schema refuses it with its message.
        "repetitions": _param(
            spec.repetitions,
            type="integer",
            exclusiveMinimum=0,
            exclusiveMaximum=MAX_REPETITIONS + 1,
            title="Repetitions per cell",
            description=f"1 to {MAX_REPETITIONS}. "
            + (
                "Each repetition deletes and regenerates its data first."
                if spec.regenerate_data
                else "The data is generated once per cell and kept for its repetitions."
            ),
        ),
        "environment": _param(
            environment,
            type="string",
            enum=[env.name for env in spec.environments],
            title="Target environment",
            description=_environment_description(spec, environment),
        ),
        # `examples` makes the form a multi-select of the implemented workloads (Airflow's way:
        # JSON schema has no enum for arrays); `items.enum` still refuses others through the API.
        "workloads": _param(
            workloads,
            type="array",
            items={"type": "string", "enum": workloads},
            examples=workloads,
            minItems=1,
            uniqueItems=True,
            title="Workloads",
            description="Subset of the study's implemented workloads.",
        ),
        # Optional fields accept null: the form leaves an empty field null, and a field whose
        # schema has no null type is marked required (the form then refuses its own defaults).
        "cells": _param(
            None,
            type=["null", "array"],
            items={"type": "string"},
            title="Cells",
            description="Optional subset of cell keys, one per line, e.g. "
            f"'{_example_cell(spec, workloads)}'; empty = the whole matrix.",
        ),
        "campaign": _param(
            None,
            type=["null", "string"],
            pattern=CAMPAIGN_PATTERN,
            maxLength=120,
            title="Campaign name",
            description="Optional; starts with a letter or digit, then letters, digits, _ . + -; "
            "default: the run id. Re-running a named campaign replaces its rows.",
        ),
        "fail_on_validation": _param(
            True,
            type="boolean",
            title="Fail the run on failed expectations",
            description="Results are loaded and reported either way.",
        ),
        "note": _param(
            None,
            type=["null", "string"],
            maxLength=1000,
            title="Note",
            description="Optional free text kept with the run.",
        ),
        "warmup_repetitions": _param(
            None,
            type=["null", "integer"],
            exclusiveMinimum=-1,
            exclusiveMaximum=MAX_WARMUP_REPETITIONS + 1,
            title="Warm-up repetitions per cell",
            description=f"0 to {MAX_WARMUP_REPETITIONS}, run first, archived, left out of every figure. "
            "Empty: the study's own "
            f"({_warmup_summary(spec)}).",
        ),
        "target_ci_pct": _param(
            spec.target_ci_pct,
            type=["null", "number"],
            exclusiveMinimum=0,
            exclusiveMaximum=100,
            title="Target CI half-width (% of the mean)",
            description="Adaptive repetitions: after the minimum, a cell gets more until the 95 % "
            "confidence interval of its mean is within this % of the mean, up to max_repetitions. "
            + (
                f"Up to {adaptive_rounds(spec)} more per cell (the spec's max_repetitions "
                f"{spec.max_repetitions}). Empty: "
                + (f"the spec's {spec.target_ci_pct} %." if spec.target_ci_pct else "no target.")
                if adaptive_rounds(spec)
                else "This study declares no max_repetitions: leave empty."
            ),
        ),
        "max_repetitions": _param(
            None,
            type=["null", "integer"],
            exclusiveMinimum=0,
            exclusiveMaximum=MAX_REPETITIONS + 1,
            title="Maximum repetitions per cell (with a target)",
            description=(
                f"At most repetitions + {adaptive_rounds(spec)} here. "
                f"Empty: the spec's ({spec.max_repetitions})."
                if adaptive_rounds(spec)
                else "This study declares no max_repetitions (no adaptive repetitions): leave empty."
            ),
        ),
        "budget_s": _param(
            None,
            type=["null", "number"],
            minimum=1,
            title="Budget for the adaptive repetitions (seconds, with a target)",
            description="The campaign's wall time, counted from its start, that the adaptive "
            "repetitions must fit in: each round gives them to the cells furthest from the target "
            "first, at what a repetition of the cell took so far; the cells left out stop with the "
            "reason budget. The planned repetitions always run. Empty: no budget.",
        ),
        "order": _param(
            spec.order,
            type="string",
            enum=list(RUN_ORDERS),
            title="Run order",
            description="Order of the measured repetitions on the target (warm-ups first): sequential "
            "(cell by cell), randomised (seeded shuffle of cells x repetitions), blocked (repetition 1 "
            "of every cell in a shuffled order, then repetition 2, ...) or interleaved (every "
            "environment of the target's interleave group in this campaign, taking turns repetition "
            "by repetition in a balanced ABBA order; docs/fair-comparisons.md).",
        ),
        "resume": _param(
            False,
            type="boolean",
            title="Resume the named campaign",
            description="With a campaign name used before: keep its repetitions archived as ok and run "
            "the rest. Off: the earlier attempt is moved aside (results/<study>/<campaign>/attempts/) "
            "and the whole plan runs again.",
        ),
        "order_seed": _param(
            spec.order_seed,
            type=["null", "integer"],
            exclusiveMinimum=-1,
            exclusiveMaximum=2**32,
            title="Run order seed",
            description="Seed of a randomised or blocked order; empty: derived from the campaign name "
            "(reproducible; recorded with every repetition).",
        ),
    }


def _environment_description(spec: StudySpec, default: str) -> str:
    """Which target the form opens on and why: the lab's on a lab stack, else the spec's baseline."""
    text = "Named target from the study spec (an Airflow connection)."
    baseline = spec.default_environment()
    if default != baseline:
        connection = spec.environment(default).transport.connection
        text += (
            f" Default {default}: this stack reaches {connection} ({DEFAULT_CONNECTIONS_ENV}), not the "
            f"spec's baseline {baseline}, which stays selectable."
        )
    return text


def _example_cell(spec: StudySpec, workloads: list[str]) -> str:
    """The first cell key of the study's default ladder on its default environment: the Cells
    field's example."""
    cells = spec.cells(spec.default_ladder, workloads, spec.environment(spec.default_environment()))
    return cells[0].key if cells else "workload|axis=value"


def _warmup_summary(spec: StudySpec) -> str:
    if isinstance(spec.warmup_repetitions, int):
        return f"{spec.warmup_repetitions} per cell"
    listed = ", ".join(f"{workload} {count}" for workload, count in spec.warmup_repetitions.items())
    return f"{listed}; 0 for the rest"


def _doc(spec: StudySpec) -> str:
    ladder_lines = []
    for ladder in LADDERS:
        cells = spec.cells(ladder, implemented_workloads(spec), spec.environment(spec.default_environment()))
        duration = spec.campaign_durations.get(ladder, "not measured yet")
        ladder_lines.append(f"| {ladder} | {len(cells)} | {len(cells) * spec.repetitions} | {duration} |")
    return textwrap.dedent(
        f"""
        # {spec.title} (`{spec.study}`)

        {spec.description}

        Source: {spec.source}

        Per target: preflight (HDFS safe mode, free space, Hive reachable) → each repetition: clean
        (drop its Hive tables, delete its data, drop caches) → generate → execute (timed on the target,
        or by HiveServer2) → cleanup of the whole campaign's data (always runs);
        then validate (Great Expectations) → load (DuckDB) → dbt marts → report.
        Implemented workloads: {", ".join(implemented_workloads(spec))}.

        Schedule: `{spec.schedule or "manual only"}` (catchup off). A run triggered while the study is
        paused waits queued until it is unpaused (tick "Unpause on trigger" to start it at once).
        Unpausing starts no catch-up campaign: Airflow still creates the latest scheduled date's
        run, and its plan skips it (a scheduled run starting over {SCHEDULED_START_GRACE.seconds // 60} min late measures nothing).
        Re-run past dates on new hardware with a backfill (README: "Hardware changes and backfills").

        | ladder | cells | repetitions at default | a campaign takes |
        |---|---|---|---|
        """
    ) + "\n".join(ladder_lines)


def schedule_for(spec: StudySpec) -> str | None:
    """The study's cron schedule, or none when BENCHCAMP_SCHEDULES=off.

    Unpausing a scheduled DAG makes Airflow create its latest interval's run at once (catchup off
    still creates one; its plan skips it, `campaign.conf.late_scheduled_run`); a test or demo stack
    that wants no scheduled run at all turns schedules off.
    """
    return None if os.environ.get("BENCHCAMP_SCHEDULES", "on").lower() == "off" else spec.schedule


def study_dags(only: str | None = None) -> list[DAG]:
    """Every registered study's DAGs (`core.study`): its plugin's, or the factory's one from its spec.

    A study whose spec has no implemented workload yet has none (it cannot run). `only`: the DAG
    Airflow is parsing the file for (a task's process, `airflow dags test`: Airflow's parsing
    context); then only the study of that id is built, when there is one, which saves each task
    the other studies' DAGs.
    """
    dags: list[DAG] = []
    plugins = study_plugins()
    if only is not None and any(plugin.id == only for plugin in plugins):
        plugins = [plugin for plugin in plugins if plugin.id == only]
    for plugin in plugins:
        if plugin.build_dags is not None:
            dags += plugin.build_dags(plugin.id)
        elif implemented_workloads(load_spec(plugin.id)):
            dags.append(build_study_dag(plugin.id))
    return dags


def build_study_dag(study: str) -> DAG:
    spec = load_spec(study)
    with DAG(
        dag_id=spec.study,
        description=spec.title,
        doc_md=_doc(spec),
        schedule=schedule_for(spec),
        start_date=START_DATE,
        catchup=False,
        max_active_runs=1,
        params=study_params(spec),
        user_defined_macros={"benchcamp_unit_label": task_unit_label},
        tags=["benchcamp", "study"],
        default_args={"retries": 0, "on_failure_callback": record_task_failure},
    ) as dag:

        @task
        def plan() -> Plan:
            from benchcamp.pipeline.attempts import begin_attempt, save_plan

            context = get_current_context()
            late = _late_scheduled_run(context)
            if late:  # every later task is skipped too: nothing is cleaned, run, loaded or reported
                from airflow.sdk.exceptions import AirflowSkipException

                raise AirflowSkipException(late)
            conf = check_conf(spec, dict(context["params"]))
            run_type, _logical_date = _run_kind(context)
            for line in conf_summary(run_type, getattr(context["dag_run"], "conf", None), conf, spec):
                print(line)
            campaign = _campaign(context)
            context["ti"].xcom_push(PLANNED_CAMPAIGN, campaign)
            units, attempt = begin_attempt(
                plan_units(spec, conf, campaign), spec.study, campaign, conf.resume
            )
            if attempt.moved_to is not None:
                print(
                    f"campaign {campaign} ran before: its earlier attempt moved to {attempt.moved_to}; "
                    f"attempt {attempt.number} ({'resumed: ' + str(attempt.kept) + ' ok repetition(s) kept' if conf.resume else 'restarted'})"
                )
            save_plan(units, spec.study, campaign)
            return units

        units = plan()
        target_steps = [repetition_group(env.name, units, adaptive_rounds(spec)) for env in spec.environments]

        @task(trigger_rule=TriggerRule.ALL_DONE)
        def validate(units: Plan | None) -> int:
            from benchcamp.pipeline.campaign.finish import run_validate

            skip_unless_planned(units)
            context = get_current_context()
            failures = run_validate(spec.study, _campaign(context), units)
            for failure in failures:
                print(f"FAILED {failure.expectation} {failure.cell_key}: {failure.details}")
            return len(failures)

        @task(pool=WAREHOUSE_POOL, outlets=[HARDWARE_CHANGE_ALIAS])
        def load() -> dict[str, Any]:
            from benchcamp.pipeline.campaign.conf import check_conf, run_settings
            from benchcamp.pipeline.campaign.finish import RunInfo, run_load

            context = get_current_context()
            run_type, logical_date = _run_kind(context)
            settings = run_settings(check_conf(spec, dict(context["params"])))
            loaded = run_load(
                spec.study,
                _campaign(context),
                run=RunInfo(context["run_id"], run_type, logical_date, settings),
            )
            for change in loaded.hardware_changes:
                print(
                    f"HARDWARE CHANGE on {change.environment}: {change.previous_fingerprint} "
                    f"({change.previous_study}/{change.previous_campaign}) -> {change.fingerprint}: "
                    f"{change.changed_facts}"
                )
                context["outlet_events"][HARDWARE_CHANGE_ALIAS].add(
                    hardware_asset(change.environment),
                    extra={
                        "study": change.study,
                        "campaign": change.campaign,
                        "previous_campaign": change.previous_campaign,
                        "previous_fingerprint": change.previous_fingerprint,
                        "fingerprint": change.fingerprint,
                    },
                )
            return loaded.summary()

        @task(pool=WAREHOUSE_POOL, outlets=[REGRESSION_ALIAS])
        def alert_regressions() -> list[str]:
            """Regressions this campaign makes known (change_points mart): an Asset event each, and
            the user's notifier (Airflow Variable benchcamp_regression_notifier) called once."""
            from benchcamp.core.paths import default_warehouse
            from benchcamp.pipeline.regressions import new_regressions

            context = get_current_context()
            campaign = _campaign(context)
            regressions = new_regressions(default_warehouse(), spec.study, campaign)
            for regression in regressions:
                print(regression.summary())
                context["outlet_events"][REGRESSION_ALIAS].add(
                    regression_asset(spec.study, regression.environment), extra=regression.extra(campaign)
                )
            if regressions:
                notify_regressions(context, [regression.extra(campaign) for regression in regressions])
            return [regression.summary() for regression in regressions]

        @task(trigger_rule=TriggerRule.ALL_DONE)
        def report(units: Plan | None) -> None:
            from benchcamp.presentation.report import run_report

            skip_unless_planned(units)
            print(run_report(spec.study, _campaign(get_current_context())))

        # every upstream succeeded or was skipped (another target's steps), at least one succeeded
        @task(trigger_rule=TriggerRule.NONE_FAILED_MIN_ONE_SUCCESS)
        def publish() -> str:
            from airflow.sdk.exceptions import AirflowFailException

            from benchcamp.pipeline.campaign.finish import ValidationGateFailed, gate

            context = get_current_context()
            try:
                return gate(spec.study, _campaign(context), bool(context["params"]["fail_on_validation"]))
            except ValidationGateFailed as exc:  # the cells are in the log above: one line, no chain
                raise AirflowFailException(str(exc)) from None

        validated = validate(units)  # type: ignore[arg-type]  # an XComArg resolves at run time
        loaded = load()
        transformed = dbt_build_task()
        alerted = alert_regressions()
        reported = report(units)  # type: ignore[arg-type]
        [cleaned for _checked, cleaned in target_steps] >> validated
        published = publish()
        validated >> loaded >> transformed >> alerted >> reported >> published
        # A target that could not be prepared or cleaned (unreachable, full, left dirty) fails the
        # run whatever fail_on_validation says: its failed repetitions are loaded and reported
        # first, but such a campaign is not a measurement to publish.
        [step for steps in target_steps for step in steps] >> published
    return dag


def record_task_failure(context: Any) -> None:
    """Every failed task's reason, archived with its campaign (`pipeline.outcome`): the CLI's
    exit code and console summary read it, so the cause is not only in Airflow's log."""
    from benchcamp.pipeline.outcome import save_task_failure

    try:
        campaign = _campaign(context)
    except Exception:  # a refused campaign name: nothing to archive under
        return
    ti = context["ti"]
    map_index = getattr(ti, "map_index", None)
    save_task_failure(
        context["dag"].dag_id, campaign, ti.task_id, -1 if map_index is None else int(map_index),
        int(getattr(ti, "try_number", 1) or 1), context.get("exception"),
    )  # fmt: skip


def skip_unless_planned(units: Any) -> None:
    """Skip a task that runs whatever happened upstream (ALL_DONE) when there is no plan.

    A refused run (bad conf, unsafe campaign name) has a failed `plan` and so no plan to pull:
    nothing ran, so there is nothing to clean, validate, load or report, and the run ends failed
    with the refusal in `plan`'s log (`publish` is upstream-failed through the preflight).
    """
    if units is None:
        from airflow.sdk.exceptions import AirflowSkipException

        raise AirflowSkipException("the plan refused this run (see the plan task's log): nothing ran")


def _run_kind(context: Any) -> tuple[str, datetime | None]:
    """The run's type (manual, scheduled, backfill, ...) and logical date, from the task context."""
    dag_run = context["dag_run"]
    run_type = getattr(dag_run.run_type, "value", dag_run.run_type)
    return str(run_type), getattr(dag_run, "logical_date", None)


def _late_scheduled_run(context: Any) -> str | None:
    """`campaign.conf.late_scheduled_run` for this run: its type, scheduled time (`run_after`) and start."""
    from datetime import UTC

    from benchcamp.pipeline.campaign.conf import late_scheduled_run

    dag_run = context["dag_run"]
    run_type, _logical_date = _run_kind(context)
    started = getattr(dag_run, "start_date", None) or datetime.now(UTC)
    cleared = bool(getattr(dag_run, "clear_number", 0))  # cleared by a user to run again
    return late_scheduled_run(run_type, getattr(dag_run, "run_after", None), started, cleared)


PLANNED_CAMPAIGN = "campaign"  # the XCom key under which `plan` keeps the run's campaign name


def _campaign(context: Any) -> str:
    """The run's campaign (`campaign.conf.resolve_campaign`). A backfill run's name counts how often its
    run was cleared, so every task after `plan` reads the name `plan` fixed: clearing one task of
    the run later (which counts as a clear) must not move that task to another campaign."""
    run_type, logical_date = _run_kind(context)
    ti = context.get("ti")
    if run_type == "backfill" and ti is not None and getattr(ti, "task_id", "plan") != "plan":
        planned = ti.xcom_pull(task_ids="plan", key=PLANNED_CAMPAIGN)
        if planned:
            return str(planned)
    reruns = int(getattr(context["dag_run"], "clear_number", 0) or 0)
    return resolve_campaign(dict(context["params"]), context["run_id"], run_type, logical_date, reruns)


def hardware_asset(environment: str) -> Asset:
    """The asset whose events mark a hardware change on one target (DAGs may schedule on it)."""
    return Asset(
        name=f"benchcamp_hardware_{environment}", uri=f"benchcamp://hardware/{environment}", group="hardware"
    )


def regression_asset(study: str, environment: str) -> Asset:
    """The asset whose events are a study's regressions on one target (DAGs may schedule on it)."""
    return Asset(
        name=f"benchcamp_regression_{study}_{environment}",
        uri=f"benchcamp://regressions/{study}/{environment}",
        group="regressions",
    )


def notify_regressions(context: Any, regressions: list[dict[str, Any]]) -> None:
    """Call the notifier named by the Airflow Variable `benchcamp_regression_notifier` (also set as
    the environment variable AIRFLOW_VAR_BENCHCAMP_REGRESSION_NOTIFIER), `module:attribute` of a
    BaseNotifier instance (SmtpNotifier, SlackNotifier, ...) or a callable, with the task context
    plus `regressions` (the events' extras, for its templates). A failing notifier is logged, not
    raised: the Asset events, which a DAG scheduled on them also receives, are still emitted."""
    from airflow.sdk import Variable

    from benchcamp.pipeline.regressions import NOTIFIER_VARIABLE, load_notifier

    path = Variable.get(NOTIFIER_VARIABLE, default=None)
    if not path:
        return
    try:
        load_notifier(path)({**context, "regressions": regressions})
    except Exception:  # the events matter more than one channel
        import logging

        logging.getLogger(__name__).exception("regression notifier %s failed", path)


def fail_fast(step: Callable[[], T]) -> T:
    """Run a step; a refused target (changed host key, refused key, too little space, ...) or
    one still unreachable after the transport's tries fails the task without Airflow retries:
    waiting longer cannot help, and a campaign on a dead target should fail in seconds."""
    from airflow.sdk.exceptions import AirflowFailException

    from benchcamp.pipeline.campaign.conf import CampaignConfError
    from benchcamp.transport.ssh import TargetRefused, TargetUnreachable

    try:
        return step()
    except (TargetRefused, TargetUnreachable, CampaignConfError) as exc:
        raise AirflowFailException(str(exc)) from exc


def wait_for_turn(ti: Any) -> None:
    """Hold a repetition until every repetition mapped before it in its group has ended
    (`pipeline.run_order.units_ahead`): it is rescheduled, its try not spent, and asks again
    (`turn_wait_s`). Its clean comes first in the repetition, so clean, generate and execute
    run together, in the planned order, under `airflow dags test` as under the scheduler."""
    if ti.map_index is None or ti.map_index <= 0:
        return
    from airflow.sdk.exceptions import AirflowRescheduleException

    from benchcamp.pipeline.run_order import turn_wait_s, units_ahead

    execute_id = f"{ti.task_id.rpartition('.')[0]}.execute"
    states = ti.get_task_states(dag_id=ti.dag_id, task_ids=[execute_id], run_ids=[ti.run_id])
    ahead = units_ahead(states.get(ti.run_id, {}), execute_id, ti.map_index)
    if ahead:
        wait = turn_wait_s(ahead)
        print(
            f"waiting for its turn: {ahead} repetition(s) planned before it have not ended; asks again in {wait:g} s"
        )
        raise AirflowRescheduleException(datetime.now(UTC) + timedelta(seconds=wait))


# A target's groups on a run that targets another: `units_<env>` skips itself and is the group's
# setup task, its cleanup the teardown, so the scheduler skips every step between them without
# starting a process (a campaign on one of three targets had started eight per other target,
# only for them to skip themselves). Airflow wants a setup's direct downstream steps ALL_SUCCESS:
# the steps that run whatever happened before them (the warm-ups' end, each adaptive decision)
# are not directly downstream and read this target's units from its XCom. Steps outside the group
# (validate, report, ...) come after the teardown, so another target's skipped setup is not theirs.
def target_units(environment: str) -> list[RepetitionUnit] | None:
    """This target's units (`units_<env>`'s XCom) in a task of its group; None without a plan."""
    units = get_current_context()["ti"].xcom_pull(task_ids=f"units_{environment}")
    return None if units is None else list(units)


def repetition_group(environment: str, units: Any, rounds: int = 0) -> Any:
    """clean → generate → execute mapped over the environment's repetition units, in its pool:
    the warm-ups first (their own mapped group, finished before any measured repetition starts),
    then the measured repetitions, then the campaign's cleanup on that target (whatever happened).

    Within a group each repetition waits for its turn (`wait_for_turn`): `airflow dags test`
    runs the ready mapped task instances in any order. Warm-ups are a group of their own, so that
    every warm-up ends before any measured repetition starts. A failed warm-up does not hold the measured ones back
    (`warmups_done_<env>` runs whatever happened to them); a failed preflight does.
    """
    step_args: dict[str, Any] = {"pool": target_pool(environment), "weight_rule": WeightRule.UPSTREAM}
    retrying = {
        **step_args,
        "retries": STEP_RETRIES,
        "retry_delay": timedelta(seconds=10),
        "retry_exponential_backoff": 2.0,
        "max_retry_delay": timedelta(minutes=5),
    }

    def steps(unit: RepetitionUnit) -> None:
        @task(**retrying, map_index_template=UNIT_LABEL)
        def clean(unit: RepetitionUnit) -> dict[str, str]:
            from benchcamp.pipeline.campaign.steps import run_clean

            wait_for_turn(get_current_context()["ti"])
            return fail_fast(lambda: run_clean(unit, get_current_context()["ti"].try_number))

        @task(**retrying, map_index_template=UNIT_LABEL)
        def generate(unit: RepetitionUnit) -> str:
            from benchcamp.pipeline.campaign.steps import run_generate

            return fail_fast(lambda: run_generate(unit, get_current_context()["ti"].try_number))

        @task(**step_args, trigger_rule=TriggerRule.ALL_DONE, map_index_template=UNIT_LABEL)
        def execute(unit: RepetitionUnit) -> dict[str, Any]:
            from airflow.sdk.exceptions import AirflowFailException

            from benchcamp.pipeline.campaign.steps import run_execute

            try:
                return run_execute(unit, get_current_context()["ti"].try_number)
            except Exception as exc:
                # Archived and marked failed with its reason (failure.json): a retry would re-measure
                # it, and an unreachable target was already tried by the transport.
                raise AirflowFailException(str(exc)) from exc

        clean(unit) >> generate(unit) >> execute(unit)

    warmups = task_group(group_id=f"warmups_{environment}")(steps)
    repetitions = task_group(group_id=f"repetitions_{environment}")(steps)

    @task(task_id=f"units_{environment}")
    def units_for(plan: Plan) -> list[RepetitionUnit]:
        """This target's units; skipped when the run targets another: the scheduler then skips
        the whole group (`target_units` above) without starting a process for any of its tasks."""
        if not plan.get(environment):
            from airflow.sdk.exceptions import AirflowSkipException

            raise AirflowSkipException(f"this run targets another environment than {environment}")
        return plan[environment]

    @task(task_id=f"warmup_units_{environment}")
    def warmup_units(environment_units: list[RepetitionUnit]) -> list[RepetitionUnit]:
        return [unit for unit in environment_units if int(unit["repetition"]) <= 0 and not unit.get("kept")]

    @task(task_id=f"measured_units_{environment}")
    def measured_units(environment_units: list[RepetitionUnit]) -> list[RepetitionUnit]:
        return [unit for unit in environment_units if int(unit["repetition"]) >= 1 and not unit.get("kept")]

    @task(task_id=f"warmups_done_{environment}", trigger_rule=TriggerRule.ALL_DONE)
    def warmups_done() -> None:
        """Measured repetitions wait for every warm-up to end, failed or not."""

    @task(task_id=f"cleanup_{environment}", **retrying)  # the teardown of `units_<env>` below
    def cleanup(environment_units: list[RepetitionUnit] | None) -> dict[str, str]:
        from airflow.sdk.exceptions import AirflowSkipException

        from benchcamp.pipeline.campaign.target import run_cleanup, untouched_target

        skip_unless_planned(environment_units)
        units = list(environment_units or [])
        untouched = untouched_target(units)
        if untouched:  # the preflight never reached the target: nothing to clean, no 14 s of tries
            raise AirflowSkipException(untouched)
        if units and rounds:  # the adaptive repetitions' Hive tables are dropped too
            from benchcamp.pipeline.adaptive import added_units

            units += [
                unit
                for unit in added_units(units[0]["study"], units[0]["campaign"])
                if unit["environment"] == environment
            ]
        return fail_fast(lambda: run_cleanup(units, get_current_context()["ti"].try_number))

    @task(task_id=f"preflight_{environment}", **retrying)
    def preflight(environment_units: list[RepetitionUnit]) -> dict[str, str]:
        from airflow.sdk.exceptions import AirflowFailException

        from benchcamp.pipeline.campaign.target import run_preflight
        from benchcamp.pipeline.target_lock import TargetBusy, check_free

        if environment_units:  # one campaign per target: a `benchcamp run` may hold it (no retry)
            from benchcamp.core.spec import load_spec

            spec = load_spec(environment_units[0]["study"])
            # an interleaved campaign's units hold every environment of its group
            for name in dict.fromkeys([environment, *(unit["environment"] for unit in environment_units)]):
                try:
                    check_free(name, spec.environment(name).transport.connection)
                except TargetBusy as exc:
                    raise AirflowFailException(str(exc)) from exc
        return fail_fast(lambda: run_preflight(environment_units, get_current_context()["ti"].try_number))

    # One collapsed row per target in the grid (Airflow 3 opens with every group closed): a run
    # shows its own target's work, not a screen of the other targets' skipped steps. No prefix:
    # the task ids stay `preflight_<env>`, `repetitions_<env>.execute`, ...
    with TaskGroup(
        group_id=f"target_{environment}",
        prefix_group_id=False,
        tooltip=f"Everything this campaign does on {environment}; skipped when the run targets another",
    ):
        environment_units = units_for(units)
        checked = preflight(environment_units)  # type: ignore[arg-type]  # an XComArg resolves at run time
        warmed = warmups.expand(unit=warmup_units(environment_units))  # type: ignore[arg-type]
        done = warmups_done()
        measured = repetitions.expand(unit=measured_units(environment_units))  # type: ignore[arg-type]
        cleaned = cleanup(environment_units).as_teardown(  # type: ignore[arg-type]
            setups=environment_units,  # type: ignore[arg-type]  # Airflow takes an XComArg's task too
            on_failure_fail_dagrun=True,
        )
        checked >> warmed >> done
        [checked, done] >> measured
        adaptive_repetitions(environment, steps, rounds, after=measured) >> cleaned
    return checked, cleaned


# A mapped repetition's name in the grid: its cell and repetition instead of its index.
UNIT_LABEL = "{{ benchcamp_unit_label(task) }}"


def task_unit_label(task: Any) -> str:
    """The label of the unit a repetition step runs (`campaign.plan.unit_label`), from its rendered
    arguments (the steps take the unit positionally: `op_args`); empty when it has none (never
    raises, see `unit_label`)."""
    from benchcamp.pipeline.campaign.plan import unit_label

    keywords = getattr(task, "op_kwargs", None)
    positional = getattr(task, "op_args", None)
    if isinstance(keywords, dict) and "unit" in keywords:
        return unit_label(keywords["unit"])
    if isinstance(positional, list | tuple) and positional:
        return unit_label(positional[0])
    return ""


def adaptive_repetitions(environment: str, steps: Any, rounds: int, after: Any) -> Any:
    """Adaptive rounds on one target (`pipeline.adaptive`): `adapt_<env>_<k>` decides from the
    archive which cells need one more repetition, `adaptive_<env>_<k>` runs them (mapped, like the
    measured ones), `rounds` times; validate records why the last round's cells stopped.

    `rounds` is the spec's max_repetitions − repetitions (none: no task, the DAG as without the
    option). A round with nothing to add maps over nothing, and its group is skipped. Each adapt
    step runs whatever happened before it: failed repetitions are counted, not hidden (it reads
    the target's units from `units_<env>`, the group's setup, see `target_units`).
    """
    if rounds == 0:
        return after

    def adapt(round_number: int) -> Any:
        @task(task_id=f"adapt_{environment}_{round_number}", trigger_rule=TriggerRule.ALL_DONE)
        def adapt_round() -> list[RepetitionUnit]:
            from benchcamp.core.spec import load_spec
            from benchcamp.pipeline.adaptive import run_round
            from benchcamp.pipeline.campaign.conf import check_conf

            environment_units = target_units(environment)
            skip_unless_planned(environment_units)
            units = environment_units or []
            if not units:
                return []
            spec = load_spec(units[0]["study"])
            conf = check_conf(spec, dict(get_current_context()["params"]))
            return run_round(
                units, round_number, False, conf.target_ci_pct, conf.max_repetitions,
                spec.thresholds.min_ok_repetitions, conf.repetitions, budget_s=conf.budget_s,
            )  # fmt: skip

        return adapt_round()

    previous = after
    for round_number in range(1, rounds + 1):
        added = adapt(round_number)
        group = task_group(group_id=f"adaptive_{environment}_{round_number}")(steps)
        ran = group.expand(unit=added)
        previous >> added
        previous = ran
    return previous


def dbt_build_task() -> Any:
    """The study's figures: the dbt project built by Cosmos in one task (`dbt build`: the models
    this campaign's records can change, `transform.loaded_selection`, and their data tests; the
    SQL unit tests run with `make test`).

    One dbt invocation instead of one Airflow task per model and per test: rendered as a task
    group, a campaign's analysis was 37 tasks of 4-5 s each (dbt starting every time), about
    3 minutes even for a one-cell campaign; one build takes seconds. dbt's log, in the task's
    log, still lists every model and test with its status.

    The data tests judge this run's campaign only (the dbt var `benchcamp_campaigns`, set at run
    time: `_campaign` needs the run's params, run id and type), so another campaign's bad rows
    never fail it. Its outcome goes to raw.builds, as `benchcamp import`'s does, for reports and
    `transform.last_build`; any failed node fails the task (Cosmos raises when dbt's result is
    not a success, a lock held by another process included; this checks the nodes as well).
    """
    from cosmos import ProfileConfig
    from cosmos.constants import InvocationMode
    from cosmos.operators.local import DbtBuildLocalOperator

    from benchcamp.core.paths import default_warehouse, repo_root

    class CampaignBuildOperator(DbtBuildLocalOperator):  # type: ignore[misc]  # Cosmos is untyped
        def execute(self, context: Any, **kwargs: Any) -> Any:
            from datetime import UTC

            from benchcamp.pipeline.transform import (
                CAMPAIGNS_VAR,
                build_digests,
                campaign_vars,
                loaded_selection,
            )

            self._started = datetime.now(UTC)
            study = context["dag"].dag_id
            self._campaigns = campaign_vars([(study, _campaign(context))])[CAMPAIGNS_VAR]
            given: dict[str, Any] = getattr(self, "vars", None) or {}
            self.vars = {**given, CAMPAIGNS_VAR: self._campaigns}
            self._recorded = False
            self._digests: tuple[str, str] | None = None
            try:
                self._digests = build_digests()  # read once for the selection, the parse and the record
                # what this campaign's records can change, or everything (`transform.loaded_selection`)
                self.select = loaded_selection(default_warehouse(), [study], self._digests[1])
                return super().execute(context, **kwargs)
            except Exception as exc:
                if not self._recorded:  # failed before dbt had a result (profile, project copy, ...)
                    self._record([f"dbt_build: {' '.join(str(exc).split())}"])
                raise

        def handle_exception_dbt_runner(self, result: Any) -> None:
            from benchcamp.pipeline.transform import DbtBuildError, failed_nodes

            failed = failed_nodes(result.result) if result.result is not None else []
            if not result.success and not failed:
                failed = [f"dbt: could not run: {' '.join(str(result.exception).split())}"]
            self._record(failed)
            super().handle_exception_dbt_runner(result)
            if failed:  # a failed node in a result dbt called a success: fail the task all the same
                raise DbtBuildError("dbt build failed:\n" + "\n".join(f"  {line}" for line in failed), failed)

        def run_dbt_runner(self, command: list[str], env: dict[str, str], cwd: str, **kwargs: Any) -> Any:
            """dbt on the project parsed once per version of it (`transform.parsed_manifest`,
            cached on disk): Cosmos's copy of the project would parse it again in every campaign
            (about 4 s). Without a parse (it failed), Cosmos's own call reports the error."""
            from cosmos.dbt.project import change_working_directory, environ
            from cosmos.dbt.runner import _cleanup_dbt_adapters
            from dbt.cli.main import dbtRunner

            from benchcamp.pipeline.transform import parsed_manifest

            manifest = parsed_manifest(
                default_warehouse(), digests[0] if (digests := getattr(self, "_digests", None)) else None
            )
            if manifest is None:
                return super().run_dbt_runner(command, env, cwd, **kwargs)
            with change_working_directory(cwd), environ(env):
                try:  # command[0] is the dbt executable, as in Cosmos's own call
                    return dbtRunner(manifest=manifest, callbacks=self._dbt_runner_callbacks).invoke(
                        command[1:]
                    )
                finally:
                    _cleanup_dbt_adapters()

        def _record(self, failed: list[str]) -> None:
            from benchcamp.pipeline.transform import record_outcome

            self._recorded = True
            origin = f"airflow {self.dag_id} {self.task_id}"
            digests = getattr(self, "_digests", None)  # None: called before execute read them
            state = digests[1] if digests else None
            record_outcome(
                default_warehouse(), self._started, failed, origin, self._campaigns, self.select, state
            )

    project = repo_root() / "dbt_project"
    return CampaignBuildOperator(
        task_id="dbt_build",
        project_dir=str(project),
        profile_config=ProfileConfig(
            profile_name="benchcamp", target_name="warehouse", profiles_yml_filepath=project / "profiles.yml"
        ),
        invocation_mode=InvocationMode.DBT_RUNNER,
        install_deps=False,
        exclude="resource_type:unit_test",
        env={"BENCHCAMP_WAREHOUSE": str(default_warehouse())},
        append_env=True,
        emit_datasets=False,
        pool=WAREHOUSE_POOL,
    )
