"""One repetition's steps on its target: clean → generate → execute, archive first.

Each step writes what it ran and printed to the repetition's archive before judging it; a
repetition that cannot be measured is archived as failed with its reason, never dropped.
Also the helpers the per-target steps (`target`) share: Hive statements, failures, step facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.paths import slug
from benchcamp.core.records import EnvironmentSnapshot, ResultRecord, cell_key
from benchcamp.pipeline import archive, host_load, run_order
from benchcamp.pipeline.campaign.conf import CampaignConfError
from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
from benchcamp.pipeline.campaign.unit import RepetitionUnit
from benchcamp.platforms import webhdfs
from benchcamp.platforms.hadoop import parse_job_reports
from benchcamp.platforms.hive import HiveStatement
from benchcamp.platforms.jobhistory import fetch_script, parse_job_history
from benchcamp.transport import environment as env_facts
from benchcamp.transport import ssh
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import (
    ArchivedStep,
    ParseError,
    RunContext,
    Shell,
    Workload,
    data_path,
    render,
)


class EnvironmentCaptureFailed(RuntimeError):
    """The target's facts could not be captured; names the target and the archived output."""


def uses_webhdfs(ctx: RunContext) -> bool:
    return bool(ctx.environment.hadoop.webhdfs_url and ctx.environment.hadoop.data_root)


def remove_data_script(ctx: RunContext, verify: bool, what: str = "clean") -> str:
    """Shell lines that delete the repetition's data (WebHDFS where configured, else `hadoop fs`)."""
    workload = get_workload(ctx.workload)
    paths = workload.clean_paths(ctx)
    if not paths:
        return ""
    if uses_webhdfs(ctx) and paths == [data_path()]:
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


def run_hive(
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


# Exit codes by which a step refuses what waiting cannot change (see clean_body):
# the task fails at once (ssh.TargetRefused), no retry.
CLEAN_REFUSALS = frozenset({4})  # the study requires dropping the page cache; not permitted here


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


def run_clean(unit: RepetitionUnit, try_number: int = 1) -> dict[str, str]:
    ctx = context_for(unit)
    archive_dir = archive.step_dir(
        rep_dir_for(ctx, None, archive.unit_environment(unit)), "clean", try_number
    )
    with failure_recorded("clean", archive_dir):
        hive_statements = get_workload(ctx.workload).hive_clean(ctx)
        if hive_statements:
            run_hive(ctx, hive_statements, archive_dir / "hive", "clean")
        step = ssh.run_step(
            ctx, ctx.environment.transport.connection, "clean", clean_body(ctx), archive_dir, try_number
        )
        ssh.raise_if_failed("clean", step, CLEAN_REFUSALS)
    facts = step_facts(step.text("stdout.log"))
    return {"archive": str(step.directory), **facts}


def run_generate(unit: RepetitionUnit, try_number: int = 1) -> str:
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
            run_hive(ctx, hive_statements, archive_dir / "hive", "generate")
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


def forget_shared_inputs(ctx: RunContext) -> None:
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
    failure = archive.step_failure(preflight_root(ctx), target)
    if failure is not None:
        return failure
    code, directory = _latest_step_status(preflight_root(ctx), target)
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


def run_execute(unit: RepetitionUnit, try_number: int = 1, keep_data: bool = False) -> dict[str, Any]:
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
    outside = bool(hive_statements) or type(workload).run_own_step is not Workload.run_own_step
    outside_wrapper = not ctx.is_warmup and outside
    load_before = host_load.sample(ctx.environment.transport.connection) if outside_wrapper else None
    # recheck_facts: the facts just before a step the wrapper does not time (the wrapper writes
    # its own on the target, around the timed body)
    facts_before = _facts_now(ctx) if outside else None
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
    if facts_before is not None and (own_step or hive_statements):
        env_facts.write_facts_around(step.directory, facts_before, _facts_now(ctx) or "")
    changed = _target_change(ctx, step)
    if changed:
        # measured on a target that changed under it (a worker lost mid-job), whether or not the
        # job survived: failed, never counted (like every failed execute, not retried: its data
        # is gone); the repetitions after it run on the target as it now is
        message = (
            f"the target changed during the repetition: {changed} (facts_command just before and "
            f"after the timed step, exit {step.exit_code}: {step.directory / env_facts.FACTS_BEFORE}, "
            f"{env_facts.FACTS_AFTER})"
        )
        (step.directory / TARGET_CHANGED_FILE).write_text(message + "\n", encoding="utf-8")
        changed_error = TargetChanged(message)
        _mark_failed(ctx, rep_dir, step, failure_of("execute", changed_error, step.directory))
        raise changed_error
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
        _capture_environment(ctx, rep_dir, try_number, since=_hardware_before(ctx, step))
    except Exception as exc:
        # Numbers whose machine is unknown cannot be compared: the repetition is marked failed
        # (its raw outputs stay archived) and the task fails with the capture's message.
        if step.exit_code != 0:
            _fail_execute(ctx, rep_dir, step)  # the job's own failure is the reason to give
        _mark_failed(ctx, rep_dir, step, failure_of("environment", exc))
        raise
    archive.save_records(rep_dir, records)
    failed_by_parser = step.exit_code == 0 and any(r.status in ("failed", "warmup_failed") for r in records)
    if (hive_statements or own_step) and remove_data:
        # HiveServer2 ran the query: the repetition's data goes in a short session of its own
        # (a failure is archived; the campaign's cleanup checks nothing is left)
        ssh.run_step(
            ctx, ctx.environment.transport.connection, "remove_data", "set -u\n" + remove_data_script(ctx, False, "remove"),
            archive.step_dir(rep_dir, "remove_data", try_number), try_number,
        )  # fmt: skip
    if step.exit_code != 0:
        _fail_execute(ctx, rep_dir, step, records)
    if failed_by_parser:
        # the job ended well but its output says the run cannot count (a YCSB store's error
        # returns): the repetition is failed, with the workload's reason, never without one
        try:
            reason = workload.failure_reason(ctx, step, records)
        except Exception as exc:  # the reason is a courtesy: the records already say failed
            reason = f"{Workload.failure_reason(workload, ctx, step, records)} (no finer reason: {exc})"
        archive.write_failure(
            rep_dir, archive.Failure.now("execute", "failed", reason, archive=str(step.directory))
        )
    else:
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
    records += [
        workload.record(ctx, step, metric, float(count), "attempts", artifact=source)
        for metric, count in (
            ("failed_task_attempts", job.failed_attempts),
            ("killed_task_attempts", job.killed_attempts),
        )
    ]
    return records


class TargetChanged(RuntimeError):
    """A hardware fact of the target changed over a timed step (`recheck_facts`)."""


# in the step's try folder: why its numbers were not counted (beside the repetition's failure.json,
# which a later run's resume replaces when it measures the repetition again)
TARGET_CHANGED_FILE = "target_changed.txt"


def _facts_now(ctx: RunContext) -> str | None:
    """facts_command's output now, for an environment with `recheck_facts` (None otherwise); a
    session that fails gives its error as the output: no fact is read from it, so it counts as a
    change and the repetition is not counted."""
    transport = ctx.environment.transport
    if not (transport.recheck_facts and transport.facts_command):
        return None
    try:
        return ssh.read_output(transport.connection, transport.facts_command)
    except Exception as exc:
        return f"facts_command could not run: {exc}\n"


def _target_change(ctx: RunContext, step: ArchivedStep) -> str:
    """The hardware facts that changed over the timed step (`recheck_facts`), or ''."""
    transport = ctx.environment.transport
    if not transport.recheck_facts:
        return ""
    paths = [step.directory / name for name in (env_facts.FACTS_BEFORE, env_facts.FACTS_AFTER)]
    if not any(path.is_file() for path in paths):
        return ""  # the step never reached its timed body (its own failure is the reason)
    texts = [path.read_text(encoding="utf-8", errors="replace") if path.is_file() else "" for path in paths]
    return env_facts.hardware_change(transport.hardware_facts, texts[0], texts[1])


def _hardware_before(ctx: RunContext, step: ArchivedStep) -> dict[str, str] | None:
    """The hardware facts as they were just before the timed step (`recheck_facts`), else None."""
    transport = ctx.environment.transport
    path = step.directory / env_facts.FACTS_BEFORE
    if not transport.recheck_facts or not path.is_file():
        return None
    facts = env_facts.parse_target_facts(path.read_text(encoding="utf-8", errors="replace"))
    return {name: facts.get(name, "") for name in transport.hardware_facts}


def _capture_environment(
    ctx: RunContext, rep_dir: Path, try_number: int, since: dict[str, str] | None = None
) -> EnvironmentSnapshot:
    """The target's facts for this repetition: captured once per campaign and target, reused after.

    The first repetition on a target captures them (archived under
    `<campaign>/environment/<target>/capture<N>/`); later repetitions get a copy of that snapshot
    (same `captured_at`), which saves an SSH session and a JVM per repetition. A retried step
    (try > 1) captures again, since whatever failed may have changed the target, and so does a
    repetition whose hardware facts just before its timed step (`since`, from `recheck_facts`)
    are not the snapshot's: a worker lost between repetitions changes the fingerprint from the
    next one on. A Hive workload adds HiveServer2's facts the first time one runs.
    """
    cache_dir = (
        archive.campaign_dir(ctx.spec.study, ctx.campaign) / "environment" / slug(ctx.environment.name)
    )
    cached_file = cache_dir / archive.ENVIRONMENT_FILE
    wants_hive = bool(ctx.environment.hive.connection) and get_workload(ctx.workload).uses_hive
    snapshot: EnvironmentSnapshot | None = None
    if try_number == 1 and cached_file.exists():
        snapshot = EnvironmentSnapshot.model_validate_json(cached_file.read_text(encoding="utf-8"))
        hardware = snapshot.facts.get("target_hardware")
        if since is not None and isinstance(hardware, dict) and hardware != since:
            snapshot = None  # the target is not the one captured: capture it again
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


def preflight_root(ctx: RunContext) -> Path:
    """The campaign's preflight folder: one step folder per target, named by its slug."""
    return archive.campaign_dir(ctx.spec.study, ctx.campaign) / "preflight"


def step_facts(stdout: str) -> dict[str, str]:
    """The `key=value` lines a clean or preflight script prints (e.g. `drop_caches=done`)."""
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


def _preflight_facts(ctx: RunContext) -> dict[str, str]:
    """The `key=value` lines of the target's latest successful preflight (e.g. when its storage was
    reformatted), for the environment facts."""
    code, step_dir = _latest_step_status(preflight_root(ctx), slug(ctx.environment.name))
    if code != 0 or step_dir is None:
        return {}
    return step_facts((step_dir / "stdout.log").read_text(encoding="utf-8"))
