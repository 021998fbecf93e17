"""A campaign's outcome, read from its archive: the exit code and what the console says.

`benchcamp run` used to judge a campaign by `airflow dags test`'s exit status, which is 0 when
every repetition failed (their failures are loaded and reported, so the run "succeeded") and
says nothing about why. The archive knows: the plan (`pipeline.attempts`), every repetition's
records, the reason of each failed one, the steps that failed (each task's failure is written
by the DAG's failure callback, `save_task_failure`), validation, and the build of the figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.outcomes import MEANING, ExitCode, worst
from benchcamp.core.records import ValidationFailure, cell_key
from benchcamp.pipeline import adaptive, archive, attempts, noise_floor

FAILURES_DIR = "failures"
FIRST_LINE_CHARS = 400
# Steps whose failure means the figures were not (re)built from this campaign.
ANALYSIS_TASKS = ("validate", "load", "dbt_build", "alert_regressions", "report")
BUSY_ERRORS = ("WarehouseBusy", "TargetBusy")


def _step_name(task_id: str) -> str:
    """`repetitions_local_lab.execute` -> `execute`; `preflight_local_lab` -> `preflight`."""
    last = task_id.rsplit(".", 1)[-1]
    return last.split("_", 1)[0] if last.startswith(("preflight_", "cleanup_")) else last


def save_task_failure(
    study: str, campaign: str, task_id: str, map_index: int, try_number: int, error: BaseException | None
) -> Path:
    """Archive why a task failed (its exception's type and first lines), for the console's summary."""
    cause = error.__cause__ if error is not None and error.__cause__ is not None else error
    message = str(error or "no exception recorded").strip()
    entry = {
        "task_id": task_id,
        "map_index": map_index,
        "try_number": try_number,
        "error": type(cause).__name__ if cause is not None else "unknown",
        "message": message[:4000],
        "failed_at": datetime.now(UTC).isoformat(),
    }
    name = task_id + (f"-{map_index}" if map_index >= 0 else "") + ".json"
    path = archive.campaign_dir(study, campaign) / FAILURES_DIR / name
    archive.write_atomically(path, json.dumps(entry, indent=2))
    return path


def task_failures(study: str, campaign: str, root: Path | None = None) -> list[dict[str, Any]]:
    folder = archive.campaign_dir(study, campaign, root) / FAILURES_DIR
    if not folder.is_dir():
        return []
    entries = [json.loads(path.read_text(encoding="utf-8")) for path in folder.glob("*.json")]
    return sorted(entries, key=lambda entry: str(entry.get("failed_at", "")))


def _first_line(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


@dataclass
class Outcome:
    """The exit code and the console's lines explaining it (most important first)."""

    code: ExitCode
    lines: list[str] = field(default_factory=list)
    measured_ok: int = 0
    measured_failed: int = 0
    planned: int = 0

    def summary(self) -> str:
        return f"exit {int(self.code)}: {MEANING[self.code]}"


def _repetition_reason(rep_dir: Path) -> str:
    """A failed repetition's reason: the first line of its archived `archive.Failure`."""
    failure = archive.read_failure(rep_dir)
    return _first_line(failure.message) if failure is not None else "no reason archived"


def campaign_outcome(
    study: str,
    campaign: str,
    airflow_exit: int,
    analysis_failed: str | None = None,
    root: Path | None = None,
) -> Outcome:
    """Judge one campaign from its archive (see the module's docstring and `core.outcomes`).

    `analysis_failed`: the reason the figures were not built, when the caller knows one the
    archive does not (e.g. the warehouse's last build failed).
    """
    plan = attempts.load_plan(study, campaign, root) or {}
    units = [unit for environment_units in plan.values() for unit in environment_units]
    measured = [unit for unit in units if attempts.is_measured(unit)]
    failures = task_failures(study, campaign, root)
    codes: list[ExitCode] = []
    lines: list[str] = []

    by_step: dict[str, list[dict[str, Any]]] = {}
    for entry in failures:
        by_step.setdefault(_step_name(str(entry["task_id"])), []).append(entry)
    for step, entries in by_step.items():
        first = entries[0]
        more = f" (and {len(entries) - 1} more)" if len(entries) > 1 else ""
        lines.append(f"step {step} failed{more}: {first['error']}: {_first_line(str(first['message']))}")
        if first["error"] in BUSY_ERRORS:
            codes.append(ExitCode.BUSY)
        elif step == "plan":
            codes.append(ExitCode.BAD_INPUT)
        elif step in ANALYSIS_TASKS:
            codes.append(ExitCode.ANALYSIS_FAILED)
        elif step == "preflight":
            codes.append(ExitCode.NOTHING_MEASURED)
        elif step in ("cleanup", "execute", "clean", "generate"):
            codes.append(ExitCode.PARTIAL)
    if analysis_failed:
        lines.append(f"the figures were not built: {analysis_failed}")
        codes.append(ExitCode.ANALYSIS_FAILED)

    ok = failed = 0
    reasons: list[str] = []
    for unit in measured:
        rep_dir = archive.unit_repetition_dir(unit, root)
        if attempts.repetition_ok(rep_dir):
            ok += 1
            continue
        failed += 1
        if len(reasons) < 5:
            where = (
                f"{unit['environment']} {cell_key(unit['workload'], unit['params'])} rep {unit['repetition']}"
            )
            reasons.append(f"  {where}: {_repetition_reason(rep_dir)} ({rep_dir})")
    if failed:
        lines.append(
            f"{failed} of {len(measured)} measured repetition(s) failed, each marked in the archive:"
        )
        lines += reasons
        if failed > len(reasons):
            lines.append(f"  and {failed - len(reasons)} more")
    if measured and ok == 0:
        codes.append(ExitCode.NOTHING_MEASURED)
    elif failed:
        codes.append(ExitCode.PARTIAL)
    if not plan and airflow_exit != 0 and not failures:
        codes.append(ExitCode.INTERNAL_ERROR)
        lines.append("the run ended before it had a plan: see Airflow's log")

    folder = archive.campaign_dir(study, campaign, root)  # the floors carry their gate: no spec read
    lines += [f"noise floor on {floor.line()}" for floor in noise_floor.load_floors(folder)]
    below = noise_floor.load_below_resolution(folder)
    if below:
        lines.append(f"{len(below)} cell(s) below resolution, σ% shown, not judged:")
        lines += [f"  {noise_floor.below_resolution_line(row)}" for row in below[:SHOWN_FAILURES]]
    validation = archive.load_validation(study, campaign, root)
    if validation:
        lines.append(f"{len(validation)} expectation(s) failed (cells marked in the report):")
        lines += validation_lines(validation, adaptive.stops(study, campaign, root))
        codes.append(ExitCode.VALIDATION_FAILED)
    if airflow_exit != 0 and not codes:
        codes.append(ExitCode.INTERNAL_ERROR)
        lines.append(
            f"airflow dags test exited {airflow_exit} without a failed step on record: see Airflow's log"
        )
    return Outcome(worst(codes), lines, ok, failed, len(measured))


SHOWN_FAILURES = 5
_STOPPED = {
    "max_repetitions": "still so at the cap of {max_repetitions} repetitions",
    "budget": "still so after {repetitions} repetitions, when the budget held no more",
    "too_many_failures": "its adaptive repetitions stopped on its failed ones",
    "target_reached": "its mean within the CI target after {repetitions} repetitions",
}


def validation_lines(failures: list[ValidationFailure], stops: list[dict[str, Any]]) -> list[str]:
    """The first failed expectations, one line each, with why the cell's adaptive repetitions
    stopped when it had any (the cap, the budget): the exit status 3 says what more would do."""
    stopped = {(stop["environment"], stop["cell_key"]): stop for stop in stops}
    out = []
    for failure in failures[:SHOWN_FAILURES]:
        where = " ".join(part for part in (failure.environment, failure.cell_key) if part) or "the campaign"
        line = f"  {where}: {failure.expectation}: {_first_line(failure.details)}"
        stop = stopped.get((failure.environment, failure.cell_key))
        if stop is not None and stop.get("reason") in _STOPPED:
            line += f" ({_STOPPED[stop['reason']].format(**stop)})"
        out.append(line)
    if len(failures) > SHOWN_FAILURES:
        out.append(f"  and {len(failures) - SHOWN_FAILURES} more")
    return out


def _in_flight(rep_dir: Path) -> str | None:
    """The step of the repetition that started and did not end: a try folder without meta.json,
    or whose meta.json says an interruption cut it short (a Hive step archives its cancel)."""
    unfinished = (
        path.parent.name
        for path in sorted(rep_dir.glob("*/try*"))
        if not (path / "meta.json").exists()
        or '"interrupted"' in (path / "meta.json").read_text(encoding="utf-8")
    )
    return next(unfinished, None)


def mark_interrupted(study: str, campaign: str, signal_name: str, root: Path | None = None) -> list[Path]:
    """After a stop: every planned repetition with a step that started and did not end, and no
    records yet, gets a failed record and the interruption as its reason (`archive.Failure`); a
    re-run under the campaign's name runs it again. (The jobs stopped on the target mark theirs:
    `campaign.target.stop_campaign`.)"""
    from benchcamp.core.steps import ArchivedStep
    from benchcamp.pipeline.campaign.plan import context_for
    from benchcamp.workloads import get_workload

    plan = attempts.load_plan(study, campaign, root) or {}
    marked: list[Path] = []
    now = datetime.now(UTC)
    for unit in (unit for environment_units in plan.values() for unit in environment_units):
        if unit.get("kept"):
            continue
        rep_dir = archive.unit_repetition_dir(unit, root)
        step = _in_flight(rep_dir)
        if step is None or (rep_dir / archive.RECORDS_FILE).exists():
            continue  # not running, or ended (ok, or failed with its own reason)
        ctx = context_for(unit)
        stopped = ArchivedStep(directory=rep_dir, exit_code=-1, started_at=now, finished_at=now)
        archive.save_records(rep_dir, [get_workload(ctx.workload).duration_record(ctx, stopped, ok=False)])
        archive.mark_interrupted(rep_dir, signal_name, step)
        marked.append(rep_dir)
    return marked
