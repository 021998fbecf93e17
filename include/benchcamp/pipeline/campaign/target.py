"""Once per campaign and target: the preflight before any repetition (safe mode, leftovers of
earlier campaigns, free space), the cleanup after all of them, and stopping its running jobs.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shlex
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from benchcamp.core.paths import check_component, child, repo_root, slug
from benchcamp.core.spec import load_spec
from benchcamp.pipeline import archive, hive_leftovers, noise_floor
from benchcamp.pipeline.campaign import leftovers
from benchcamp.pipeline.campaign.plan import by_environment, context_for
from benchcamp.pipeline.campaign.steps import (
    failure_recorded,
    forget_shared_inputs,
    preflight_root,
    run_hive,
    step_facts,
    uses_webhdfs,
)
from benchcamp.pipeline.campaign.unit import RepetitionUnit
from benchcamp.platforms import webhdfs
from benchcamp.platforms.hive import OPERATION_LOG, HiveStatement
from benchcamp.transport import ssh
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import (
    ArchivedStep,
    Endpoint,
    NoiseProbe,
    RunContext,
    Shell,
    Word,
    host_login,
    render,
)

# Exit codes by which a step refuses what waiting cannot change (see preflight_body):
# the task fails at once (ssh.TargetRefused), no retry.
# safe mode after its wait, too little space, reformat failed, a service the cells need is down
PREFLIGHT_REFUSALS = frozenset({5, 7, 8, 10})
ENDPOINT_WAIT_S = 5  # a TCP connect from the target to each of the cells' services (`Endpoint`)


def stop_campaign(
    study: str,
    campaign: str,
    signal_name: str,
    environments: list[str] | None = None,
    grace_s: float = ssh.STOP_GRACE_S,
    unreached: list[str] | None = None,
) -> list[ssh.StoppedJob]:
    """For `benchcamp run`'s SIGINT/SIGTERM handler, once Airflow's process is stopped: stop the
    campaign's running jobs on each target (`environments`, default every one of the study) and
    mark the repetitions they measured interrupted (`archive.mark_interrupted`).

    A target that cannot be reached within a short budget is logged and skipped: nothing can be
    stopped there (its name and why are appended to `unreached`). Returns the jobs stopped.
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
            if unreached is not None:
                unreached.append(f"{environment.name} ({ssh.last_line(str(exc))[:200]})")
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


def _uses_data_fs(units: list[RepetitionUnit]) -> bool:
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
    if data_fs and uses_webhdfs(ctx) and root:
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


def endpoint_lines(endpoints: list[Endpoint]) -> list[str]:
    """A TCP connect from the target to every service the cells need (bash's /dev/tcp, bounded);
    all that do not answer are named at once, then the preflight refuses (exit 10)."""
    if not endpoints:
        return []
    lines = ['down=""']
    for endpoint in endpoints:
        if endpoint.over_ssh:  # a host the cells log in to: a login that runs `true`, bounded
            name = f"{endpoint.service} {endpoint.host} over SSH ({endpoint.setting})"
            probe = f"timeout {ENDPOINT_WAIT_S * 3} {host_login(shlex.quote(endpoint.host))}"
        else:
            name = f"{endpoint.service} at {endpoint.host}:{endpoint.port} ({endpoint.setting})"
            probe = (
                f"timeout {ENDPOINT_WAIT_S} bash -c 'exec 3<>\"/dev/tcp/$1/$2\"' _ "
                f"{shlex.quote(endpoint.host)} {endpoint.port} 2>/dev/null"
            )
        lines.append(f'{probe} || down="$down"{shlex.quote("; " + name)}')
    return [
        *lines,
        'if [ -n "$down" ]; then echo "preflight: not answering from the target: ${down#; }: '
        'start it, or point the environment at where it runs" >&2; exit 10; fi',
        f"echo endpoints_answered={len(endpoints)}",
    ]


def preflight_body(
    ctx: RunContext, needed_bytes: int, data_fs: bool = True, endpoints: list[Endpoint] | None = None
) -> str:
    """Before anything runs on a target: the services the cells need answer there
    (`endpoint_lines`), HDFS out of safe mode (bounded wait), what earlier campaigns of the study
    left removed (`leftovers_lines`), then enough free space.

    Without `data_fs` (no workload of the campaign keeps data on a Hadoop file system) only
    the work directory is made and its staging leftovers removed: the target may have no Hadoop.
    """
    hadoop = ctx.hadoop
    lines = ["set -u", *endpoint_lines(endpoints or [])]
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
    wait_s = int(ctx.environment.hadoop.safemode_wait_s or 0)
    still_safe = f'echo "preflight: HDFS is still in safe mode after {wait_s} s" >&2'
    if uses_webhdfs(ctx):
        # the NameNode's HTTP address answers all three (safe mode, the data root, free space)
        # without a JVM: `dfsadmin`, `fs -mkdir` and `fs -df` cost two seconds each
        url, root_path = ctx.environment.hadoop.webhdfs_url or "", ctx.environment.hadoop.data_root or ""
        ask = webhdfs.namenode_info_lines(url)
        safe_mode_off = "{ " + "; ".join([*ask, webhdfs.SAFE_MODE_OFF]) + "; }"
        gave_up = (
            f'if [ -z "$info" ]; then echo "preflight: the NameNode did not answer at $base within {wait_s} s" >&2; '
            f"else {still_safe}; fi"
        )
        make_root = ['mkdir -p "$WORK"', *webhdfs.mkdir_lines(url, root_path, "preflight")]
        read_free = [*ask, f"available=$({webhdfs.FREE_BYTES})"]
        unread = " (the NameNode at $base gave no NameNodeInfo)"
    else:
        root = (
            Shell(shlex.quote(ctx.environment.hadoop.data_root))
            if ctx.environment.hadoop.data_root
            else Shell('"$WORK"')
        )
        safe_mode_off = (
            f"{render([*hadoop, 'dfsadmin', '-safemode', 'get'])} 2>/dev/null | grep -q 'Safe mode is OFF'"
        )
        gave_up = still_safe
        make_root = [f'mkdir -p "$WORK"; {render([*hadoop, "fs", "-mkdir", "-p", root])} 2>/dev/null || true']
        read_free = [
            f"available=$({render([*hadoop, 'fs', '-df', root])} 2>/dev/null | awk 'NR==2 {{print $4}}')"
        ]
        unread = ""
    if wait_s:
        lines += [
            f"deadline=$(( $(date +%s) + {wait_s} ))",
            f"until {safe_mode_off}; do",
            f'  if [ "$(date +%s)" -ge "$deadline" ]; then {gave_up}; exit 5; fi',
            "  sleep 5",
            "done",
            "echo safemode=off",
        ]
    lines += leftovers_lines(ctx, data_fs)  # before the free space is read: they held some of it
    lines += [
        *make_root,
        *read_free,
        f'if [ -z "$available" ]; then echo "preflight: cannot read the free space of the data file system{unread}" >&2; exit 6; fi',
        "echo data_available_bytes=$available",
        f"echo data_needed_bytes={needed_bytes}",
        f'if [ "$available" -lt {needed_bytes} ]; then echo "preflight: the largest cell needs {needed_bytes} bytes '
        f"(its data x {SPACE_HEADROOM} headroom) but the data file system has $available bytes free: choose a "
        'smaller ladder or free space" >&2; exit 7; fi',
    ]
    return "\n".join(lines) + "\n"


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


def run_preflight(units: list[RepetitionUnit], try_number: int = 1) -> dict[str, str]:
    """Reject a campaign a target cannot hold, before any data is generated; check Hive answers;
    remove what earlier campaigns of the study left on the target (`leftovers_lines`), the Hive
    drops their cleanups recorded as not run (`pipeline.hive_leftovers`) and the Hive tables
    over their data.

    Safe only because one campaign runs on a target at a time (the CLI's lock per target;
    Airflow's 1-slot pool per target in the stack): whatever the study has there is a leftover.
    The facts say what went: `leftovers_removed` (paths), `leftovers_files`, `leftovers_bytes`,
    `leftover_campaigns` (comma-separated) and, for a campaign with Hive workloads,
    `leftover_tables` (tables dropped) and `hive_leftovers_dropped` (the recorded drops' names,
    comma-separated; "0" when none was recorded). A campaign without Hive workloads leaves a
    record for the next one that has them, naming it in `hive_leftovers_pending`.
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
    cells = [(get_workload(unit["workload"]), context_for(unit)) for unit in units]
    needed = max(workload.estimated_bytes(cell) for workload, cell in cells)
    data_fs = _uses_data_fs(units)
    endpoints = list(dict.fromkeys(node for workload, cell in cells for node in workload.endpoints(cell)))
    archive_dir = archive.step_dir(preflight_root(ctx), slug(ctx.environment.name), try_number)
    forget_shared_inputs(ctx)  # a re-run campaign (same name) generates its cells' input anew
    with failure_recorded("preflight", archive_dir):
        if ctx.environment.transport.controller_setup:
            run_controller_setup(ctx.environment.transport.controller_setup, archive_dir / "controller_setup")
        step = ssh.run_step(
            ctx, ctx.environment.transport.connection, "preflight",
            preflight_body(ctx, int(needed * SPACE_HEADROOM), data_fs, endpoints),
            archive_dir, try_number,
        )  # fmt: skip
        ssh.raise_if_failed("preflight", step, PREFLIGHT_REFUSALS)
        facts = step_facts(step.text("stdout.log"))
        if any(get_workload(unit["workload"]).uses_hive for unit in units):
            recorded = leftovers.replay_record(ctx, archive_dir)  # first: nothing else finds them
            tables = leftovers.leftover_tables(ctx, units, archive_dir)
            facts["hive"] = "reachable"
            facts["leftover_tables"] = str(sum(len(names) for names in tables.values()))
            facts["hive_leftovers_dropped"] = ",".join(recorded.names()) if recorded else "0"
            campaigns = {name for name in facts.get("leftover_campaigns", "").split(",") if name} | set(
                tables
            )
            campaigns |= set(recorded.campaigns() if recorded else [])
            facts["leftover_campaigns"] = ",".join(sorted(campaigns))
        elif hive_leftovers.record_path(ctx.spec.study, ctx.environment.name).exists():
            facts["hive_leftovers_pending"] = str(
                hive_leftovers.record_path(ctx.spec.study, ctx.environment.name)
            )
        facts.update(measure_noise_floors(units, archive_dir, try_number))
    return {"archive": str(step.directory), **facts}


def measure_noise_floors(units: list[RepetitionUnit], archive_dir: Path, try_number: int) -> dict[str, str]:
    """Time each probe kind the target's workloads name (`pipeline.noise_floor`) when the spec
    asks for `thresholds.noise_floor_runs`; archive the floors. A probe that fails is said in
    the facts and in its floor, never fails the preflight: its cells are then gated as always."""
    ctx = context_for(units[0])
    runs = ctx.spec.thresholds.noise_floor_runs
    if not runs:
        return {}
    probes: dict[str, tuple[NoiseProbe, RunContext, list[str]]] = {}
    for unit in units:
        cell = context_for(unit)
        found = get_workload(unit["workload"]).noise_probe(cell)
        if found is not None:
            probes.setdefault(found.kind, (found, cell, []))[2].append(unit["workload"])
    drop_caches = bool(ctx.spec.drop_caches and ctx.environment.transport.drop_caches)
    floors = []
    for kind, (probe, cell, workloads) in probes.items():
        logging.getLogger(__name__).info(
            "preflight: timing %s %d times (the noise floor)", probe.description, runs + 1
        )
        folder = archive_dir / f"noise_floor_{kind}"
        untimed: float | None
        durations: list[float]
        if probe.hive_job:
            try:
                step = run_hive(cell, noise_floor.hive_probe_statements(probe, runs), folder, "noise_floor")
            except ssh.StepFailed as exc:
                untimed, durations, problem = None, [], f"HiveServer2 failed it: {str(exc).splitlines()[0]}"
            else:
                untimed, durations, problem = noise_floor.parse_hive_probe(step.text(OPERATION_LOG), runs)
        else:
            step = ssh.run_step(
                cell, ctx.environment.transport.connection, "noise_floor",
                noise_floor.probe_body(probe, runs, drop_caches), folder, try_number,
            )  # fmt: skip
            untimed, durations, problem = noise_floor.parse_probe_output(step.text("stdout.log"), runs)
            if step.exit_code != 0 and not problem:
                problem = f"the probe's script exited {step.exit_code}"
        floors.append(
            noise_floor.NoiseFloor(
                environment=ctx.environment.name,
                kind=kind,
                description=probe.description,
                workloads=list(dict.fromkeys(workloads)),
                durations_s=durations,
                untimed_s=untimed,
                problem=problem,
                archive=str(folder),
                max_stddev_pct=ctx.spec.thresholds.max_stddev_pct,
            )
        )
    noise_floor.save_floors(archive.campaign_dir(ctx.spec.study, ctx.campaign), ctx.environment.name, floors)
    return {f"noise_floor_{floor.kind}": floor.line() for floor in floors}


def _campaign_part(ctx: RunContext) -> str:
    """`<study>/<campaign>`: the campaign's folder under the target's work and data roots."""
    return "/".join(check_component(slug(name), "path part") for name in (ctx.spec.study, ctx.campaign))


def untouched_target(units: list[RepetitionUnit]) -> str | None:
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
    root, target = preflight_root(ctx), slug(ctx.environment.name)
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
    if uses_webhdfs(ctx) and root:
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


def run_cleanup(units: list[RepetitionUnit], try_number: int = 1) -> dict[str, str]:
    """After every repetition, failed or not: delete the campaign's data on the target, then run
    its workloads' Hive drops (tables, databases).

    Idempotent; runs with trigger rule ALL_DONE so a failed campaign never leaves the next
    one a dirty cluster. The data goes first and without HiveServer2: when HiveServer2 cannot
    run the drops the data is still gone (verified), the drops not run are recorded for the
    target (`pipeline.hive_leftovers`), and the task fails naming HiveServer2 and the record: the
    next campaign of the study on this target runs them at its preflight.
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
    labels: dict[str, int] = {}
    for unit in units:
        unit_ctx = context_for(unit)
        for statement in get_workload(unit_ctx.workload).hive_clean(unit_ctx):
            if statement.sql not in seen:
                seen.add(statement.sql)
                # unique labels: the archived results then say which statements ran
                labels[statement.label] = labels.get(statement.label, 0) + 1
                count = labels[statement.label]
                label = statement.label if count == 1 else f"{statement.label}_{count}"
                statements.append(dataclasses.replace(statement, label=label))
    forget_shared_inputs(ctx)
    step = ssh.run_step(
        ctx, ctx.environment.transport.connection, "cleanup",
        cleanup_body(ctx, _uses_data_fs(units)),
        archive_dir, try_number,
    )  # fmt: skip
    hive_failure: Exception | None = None
    if statements:
        try:
            run_hive(ctx, statements, archive_dir / "hive", "cleanup")
        except (ssh.StepFailed, ssh.TargetUnreachable, ssh.TargetRefused) as exc:
            hive_failure = exc
    left = leftovers.record_left(ctx, statements, archive_dir / "hive", hive_failure) if hive_failure else ""
    if not hive_failure and statements:
        leftovers.forget_own(ctx)
    ssh.raise_if_failed("cleanup", step)
    if hive_failure is not None:
        failed = ssh.TargetRefused if isinstance(hive_failure, ssh.TargetRefused) else ssh.StepFailed
        raise failed(
            f"cleanup on '{ctx.environment.name}': the campaign's data is deleted (verified gone) but "
            f"HiveServer2 ({ctx.environment.hive.connection}) did not run its {len(statements)} Hive "
            f"drop(s); {left} {hive_failure}"
        ) from hive_failure
    return {"archive": str(step.directory), "hive_tables_dropped": str(len(statements))}
