"""A campaign run again under its name: the earlier attempt is moved aside, never mixed in.

A backfill re-running its dates, a trigger naming a campaign used before, or `benchcamp run
--campaign X` again all reach a campaign folder that already holds an attempt. Loading what that
attempt left beside the new one mixed two attempts into one set (a cancelled attempt's warm-ups
and run-order positions beside the re-run's), so the plan starts each attempt by moving the
earlier one to `<campaign>/attempts/<k>/` (kept, never overwritten, never loaded):

- restart (the default for Airflow runs): everything moves; the attempt measures the whole plan.
- resume (`benchcamp run` again under the same name, unless `--restart`): measured repetitions
  the earlier attempt archived as ok stay and are not run again; failed, interrupted and
  missing ones move aside and run, with their cells' warm-ups; campaign-level steps
  (preflight, cleanup, environment capture, adaptive rounds, validation) move aside and run
  anew, so no archived try is overwritten.

The CLI's logs (`logs/`) stay where they are: every attempt appends its own.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchcamp.core.records import ResultRecord, cell_key, read_jsonl
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.unit import Plan, RepetitionUnit

ATTEMPTS_DIR = "attempts"
LOGS_DIR = "logs"
ATTEMPT_FILE = "attempt.json"
PLAN_FILE = "plan.json"
_STAYS = frozenset({ATTEMPTS_DIR, LOGS_DIR})


class ArchiveClash(ValueError):
    """Another campaign's archive is in the folder this campaign's name maps to."""


def archive_owner(campaign_dir: Path) -> str | None:
    """The campaign whose attempt the folder holds: `attempt.json`'s name, else (an archive made
    before it was written there) the one its saved plan's units carry; None for an empty folder."""
    attempt = _json_or_none(campaign_dir / ATTEMPT_FILE)
    if isinstance(attempt, dict) and attempt.get("campaign"):
        return str(attempt["campaign"])
    plan = _json_or_none(campaign_dir / PLAN_FILE)
    units = [unit for group in plan.values() for unit in group] if isinstance(plan, dict) else []
    return next(
        (str(unit["campaign"]) for unit in units if isinstance(unit, dict) and unit.get("campaign")), None
    )


def attempt_started(campaign_dir: Path) -> datetime | None:
    """When the folder's attempt began (`attempt.json`), None without one: a campaign's budget
    counts from there."""
    attempt = _json_or_none(campaign_dir / ATTEMPT_FILE)
    if not isinstance(attempt, dict):
        return None
    try:
        started = datetime.fromisoformat(str(attempt.get("started_at")))
    except ValueError:
        return None
    return started if started.tzinfo else started.replace(tzinfo=UTC)


def _json_or_none(path: Path) -> object:
    """The file's JSON, or None when it is missing or not JSON (an interrupted write's leftover)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def check_archive_owner(study: str, campaign: str, root: Path | None = None) -> None:
    """Refuse a campaign whose folder holds another campaign's attempt: names differing only in
    what a folder name cannot keep (`nightly+ssd` and `nightly_ssd`, `run_` and `run`) map to one
    folder, where the second would take the first's archive for an earlier attempt of its own
    (moving it aside, or resuming from its repetitions)."""
    campaign_dir = archive.campaign_dir(study, campaign, root)
    owner = archive_owner(campaign_dir)
    if owner is not None and owner != campaign:
        raise ArchiveClash(
            f"campaign {campaign!r} would share the archive folder {campaign_dir} with campaign "
            f"{owner!r} (both names map to it): name the campaign otherwise"
        )


@dataclass(frozen=True)
class Attempt:
    """What `begin_attempt` did: this attempt's number, the repetitions kept, where the rest went."""

    number: int
    kept: int
    moved_to: Path | None


def _rep_dir(unit: RepetitionUnit, root: Path | None) -> Path:
    return archive.unit_repetition_dir(unit, root)


def repetition_ok(rep_dir: Path) -> bool:
    """Whether a repetition's archive holds records, all of them measured ok (or a good warm-up)."""
    path = rep_dir / archive.RECORDS_FILE
    if not path.is_file():
        return False
    try:
        records = read_jsonl(path.read_text(encoding="utf-8"), str(path))
    except ValueError:
        return False
    return records_ok(records)


def records_ok(records: list[ResultRecord]) -> bool:
    """Whether a repetition's records say it was measured: some, all ok or a good warm-up."""
    return bool(records) and all(record.status in ("ok", "warmup") for record in records)


def _has_attempt(campaign_dir: Path) -> bool:
    return campaign_dir.is_dir() and any(entry.name not in _STAYS for entry in campaign_dir.iterdir())


def _move(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(destination))


def begin_attempt(
    plan: Plan, study: str, campaign: str, resume: bool, root: Path | None = None
) -> tuple[Plan, Attempt]:
    """Move an earlier attempt of the campaign aside; return the plan with kept units marked.

    A unit whose repetition is kept gets `"kept": True` (the DAG does not run it, validation
    still expects it). A cell with any repetition to run runs its warm-ups again.
    """
    check_archive_owner(study, campaign, root)
    campaign_dir = archive.campaign_dir(study, campaign, root)
    attempts = campaign_dir / ATTEMPTS_DIR
    earlier = (
        sorted(int(path.name) for path in attempts.iterdir() if path.name.isdigit())
        if attempts.is_dir()
        else []
    )
    if not _has_attempt(campaign_dir):
        number = len(earlier) + 1
        _record(campaign_dir, campaign, number, resume, 0, None)
        return plan, Attempt(number, 0, None)
    destination = attempts / str((earlier[-1] if earlier else 0) + 1)
    kept_dirs: set[Path] = set()
    if resume:
        units = [unit for environment_units in plan.values() for unit in environment_units]
        to_run_cells = {
            cell_key(unit["workload"], unit["params"])
            for unit in units
            if int(unit["repetition"]) >= 1 and not repetition_ok(_rep_dir(unit, root))
        }
        for unit in units:
            key = cell_key(unit["workload"], unit["params"])
            rep_dir = _rep_dir(unit, root)
            if repetition_ok(rep_dir) and (int(unit["repetition"]) >= 1 or key not in to_run_cells):
                kept_dirs.add(rep_dir)
    for entry in sorted(campaign_dir.iterdir()):
        if entry.name in _STAYS:
            continue
        kept_here = {path for path in kept_dirs if path.parent == entry}
        if not kept_here:
            _move(entry, destination / entry.name)
            continue
        for part in sorted(entry.iterdir()):  # a cell with kept repetitions: the rest moves
            if part not in kept_here:
                _move(part, destination / entry.name / part.name)
    marked: Plan = {
        environment: [
            {**unit, "kept": True} if _rep_dir(unit, root) in kept_dirs else unit.copy()
            for unit in environment_units
        ]
        for environment, environment_units in plan.items()
    }
    number = int(destination.name) + 1
    _record(campaign_dir, campaign, number, resume, len(kept_dirs), destination)
    return marked, Attempt(number, len(kept_dirs), destination)


def _record(
    campaign_dir: Path, campaign: str, number: int, resume: bool, kept: int, moved_to: Path | None
) -> None:
    """`attempt.json`: the campaign, which attempt this is and where the one before went (for the
    console, people and `archive_owner`)."""
    archive.write_atomically(
        campaign_dir / ATTEMPT_FILE,
        json.dumps(
            {
                "campaign": campaign,
                "attempt": number,
                "mode": "resume" if resume else "restart",
                "started_at": datetime.now(UTC).isoformat(),
                "kept_repetitions": kept,
                "earlier_attempt": str(moved_to.relative_to(campaign_dir)) if moved_to else None,
            },
            indent=2,
        ),
    )


def save_plan(plan: Plan, study: str, campaign: str, root: Path | None = None) -> Path:
    """The attempt's whole plan (kept units marked), for the run's outcome (`pipeline.outcome`)."""
    path = archive.campaign_dir(study, campaign, root) / PLAN_FILE
    archive.write_atomically(path, json.dumps(plan, indent=2, default=str))
    return path


def load_plan(study: str, campaign: str, root: Path | None = None) -> Plan | None:
    path = archive.campaign_dir(study, campaign, root) / PLAN_FILE
    if not path.is_file():
        return None
    loaded: Plan = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def is_measured(unit: RepetitionUnit) -> bool:
    return int(unit["repetition"]) >= 1
