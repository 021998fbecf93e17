"""The raw archive: every step's exact command and outputs, before anything is parsed.

Layout: ``<results>/<study>/<campaign>/<cell>/rep<N>/<step>/try<T>/`` holds the
wrapper and command scripts, stdout.log, stderr.log, the exit code and the
timestamps taken on the target; ``rep<N>/records.jsonl`` holds the records parsed
from the latest execute try and ``rep<N>/environment.json`` the target's facts. A failed
repetition's ``rep<N>/failure.json`` says why (a step's try folder holds one too when the step
failed), so the reason is in the archive, not only in Airflow's log.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchcamp.core import paths
from benchcamp.core.paths import child, results_root, slug
from benchcamp.core.records import (
    EnvironmentSnapshot,
    ResultRecord,
    ValidationFailure,
    cell_key,
    read_jsonl,
    write_jsonl,
)
from benchcamp.pipeline.campaign.unit import RepetitionUnit

RECORDS_FILE = "records.jsonl"
ENVIRONMENT_FILE = "environment.json"
VALIDATION_FILE = "validation.json"
FAILURE_FILE = "failure.json"
# The steps an interrupted repetition can be in before its records are written (an interrupted
# `remove_data` or `cleanup` comes after them: the measurement stands).
MEASURING_STEPS = frozenset({"clean", "generate", "execute", "jobhistory", "environment"})


def campaign_dir(study: str, campaign: str, root: Path | None = None) -> Path:
    """The campaign's folder; a name that would resolve outside the results root is refused."""
    return child(root or results_root(), slug(study), slug(campaign), what="study/campaign")


def cell_dir(study: str, campaign: str, cell_key: str, root: Path | None = None) -> Path:
    return child(campaign_dir(study, campaign, root), slug(cell_key), what="cell")


def repetition_dir(
    study: str,
    campaign: str,
    cell_key: str,
    repetition: int,
    root: Path | None = None,
    environment: str | None = None,
) -> Path:
    """`<campaign>/<cell>/rep<N>`; with `environment` (a unit of an interleaved campaign, where
    every environment of the group runs the same cells), `<campaign>/<cell>@<environment>/rep<N>`."""
    cell = slug(cell_key) + (f"@{slug(environment)}" if environment else "")
    return child(campaign_dir(study, campaign, root), cell, f"rep{repetition}", what="cell")


def unit_environment(unit: RepetitionUnit) -> str | None:
    """The environment a unit's archive folder names: an interleaved campaign's units only (see
    `repetition_dir`); a campaign on one environment keeps `<cell>/rep<N>`."""
    return str(unit["environment"]) if unit.get("order") == "interleaved" else None


def unit_repetition_dir(unit: RepetitionUnit, root: Path | None = None) -> Path:
    """A planned unit's repetition folder."""
    return repetition_dir(
        unit["study"],
        unit["campaign"],
        cell_key(unit["workload"], unit["params"]),
        int(unit["repetition"]),
        root,
        unit_environment(unit),
    )


def step_dir(parent: Path, step: str, try_number: int) -> Path:
    """`<parent>/<step>/try<N>`: every try of a step archived apart, so a retried task never
    overwrites what an earlier try left. `parent` is a repetition's folder, or a campaign's
    preflight or cleanup folder (where `step` names the target)."""
    return parent / step / f"try{try_number}"


def step_tries(parent: Path, step: str) -> list[Path]:
    """The tries of a step that got as far as writing meta.json, oldest first (see `step_dir`)."""
    metas = sorted((parent / step).glob("try*/meta.json"), key=lambda path: int(path.parent.name[3:]))
    return [meta.parent for meta in metas]


def write_atomically(path: Path, text: str) -> None:
    """`core.paths.write_atomically`, where the archive's writers look for it."""
    paths.write_atomically(path, text)


def save_records(rep_dir: Path, records: list[ResultRecord]) -> Path:
    """Replace the repetition's records: re-running a task never duplicates rows."""
    path = rep_dir / RECORDS_FILE
    write_atomically(path, write_jsonl(records))
    return path


def save_environment(rep_dir: Path, snapshot: EnvironmentSnapshot) -> Path:
    path = rep_dir / ENVIRONMENT_FILE
    write_atomically(path, snapshot.model_dump_json(indent=2))
    return path


def iter_record_files(study: str, campaign: str, root: Path | None = None) -> Iterator[Path]:
    yield from sorted(campaign_dir(study, campaign, root).glob(f"*/rep*/{RECORDS_FILE}"))


def load_campaign_records(study: str, campaign: str, root: Path | None = None) -> list[ResultRecord]:
    records: list[ResultRecord] = []
    for path in iter_record_files(study, campaign, root):
        records.extend(read_jsonl(path.read_text(encoding="utf-8"), str(path)))
    return records


def load_campaign_environments(
    study: str, campaign: str, root: Path | None = None
) -> list[EnvironmentSnapshot]:
    """One snapshot per (environment, host, fingerprint): the latest captured."""
    latest: dict[tuple[str, str, str], EnvironmentSnapshot] = {}
    for path in sorted(campaign_dir(study, campaign, root).glob(f"*/rep*/{ENVIRONMENT_FILE}")):
        snapshot = EnvironmentSnapshot.model_validate_json(path.read_text(encoding="utf-8"))
        key = (snapshot.environment, snapshot.host, snapshot.fingerprint)
        if key not in latest or latest[key].captured_at < snapshot.captured_at:
            latest[key] = snapshot
    return list(latest.values())


def save_validation(
    study: str, campaign: str, failures: list[ValidationFailure], root: Path | None = None
) -> Path:
    path = campaign_dir(study, campaign, root) / VALIDATION_FILE
    write_atomically(path, json.dumps([failure.model_dump() for failure in failures], indent=2))
    return path


def load_validation(study: str, campaign: str, root: Path | None = None) -> list[ValidationFailure]:
    path = campaign_dir(study, campaign, root) / VALIDATION_FILE
    if not path.exists():
        return []
    return [ValidationFailure.model_validate(item) for item in json.loads(path.read_text(encoding="utf-8"))]


FailureKind = Literal["refused", "unreachable", "failed", "interrupted"]


class Failure(BaseModel):
    """Why a repetition, or a campaign's preflight or cleanup on a target, failed: what a user
    needs without Airflow's log. `message` is one line naming the target (host:port) or a path."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: str
    kind: FailureKind
    message: str
    exit_code: int | None = None
    exception: str | None = None
    stderr_tail: str = ""
    archive: str | None = None
    at: datetime
    where: str = ""  # set by `failure_reasons`: the folder, relative to the campaign's

    @classmethod
    def now(cls, step: str, kind: FailureKind, message: str, **details: object) -> Failure:
        return cls.model_validate(
            {"step": step, "kind": kind, "message": message, "at": datetime.now(UTC), **details}
        )

    def line(self) -> str:
        """One console line: where, which step, why."""
        place = f"{self.where}: " if self.where else ""
        return f"{place}{self.step} {self.kind}: {self.message}"


def write_failure(directory: Path, failure: Failure) -> Path:
    path = directory / FAILURE_FILE
    write_atomically(path, failure.model_dump_json(indent=2))
    return path


def read_failure(directory: Path) -> Failure | None:
    path = directory / FAILURE_FILE
    if not path.exists():
        return None
    return Failure.model_validate_json(path.read_text(encoding="utf-8"))


def clear_failure(directory: Path) -> None:
    """A repetition measured after all (a retry, a resumed campaign) keeps no stale reason."""
    (directory / FAILURE_FILE).unlink(missing_ok=True)


def step_failure(parent: Path, step: str) -> Failure | None:
    """The failure of a step's latest try, if it failed; a try that failed before its meta.json
    (an unreachable target) counts too, unlike `step_tries`."""
    tries = sorted((parent / step).glob("try*"), key=lambda path: int(path.name[3:] or 0))
    return read_failure(tries[-1]) if tries else None


def mark_interrupted(rep_dir: Path, signal_name: str, step: str = "") -> Path:
    """Mark a repetition a signal interrupted (`benchcamp run`'s SIGINT/SIGTERM handler): its reason
    in failure.json, and any records it has marked failed (the interrupted try supersedes them)."""
    message = f"interrupted by {signal_name}" + (f" during its {step} step" if step else "")
    path = write_failure(rep_dir, Failure.now(step or "run", "interrupted", message, archive=str(rep_dir)))
    records_file = rep_dir / RECORDS_FILE
    if records_file.exists():
        records = read_jsonl(records_file.read_text(encoding="utf-8"), str(records_file))
        failed = [record.model_copy(update={"status": _failed_status(record.status)}) for record in records]
        save_records(rep_dir, failed)
    return path


def _failed_status(status: str) -> str:
    return "warmup_failed" if status in ("warmup", "warmup_failed") else "failed"


def failure_reasons(study: str, campaign: str, root: Path | None = None) -> list[Failure]:
    """Every recorded failure of a campaign: the preflight's and cleanup's per target (their latest
    try), then each failed repetition's, in folder order; each with `where` set."""
    folder = campaign_dir(study, campaign, root)
    found: list[Failure] = []
    for stage in ("preflight", "cleanup"):
        for target in sorted(path for path in (folder / stage).glob("*") if path.is_dir()):
            failure = step_failure(folder / stage, target.name)
            if failure is not None:
                found.append(failure.model_copy(update={"where": f"{stage}/{target.name}"}))
    for path in sorted(folder.glob(f"*/rep*/{FAILURE_FILE}")):
        failure = read_failure(path.parent)
        if failure is not None:
            found.append(failure.model_copy(update={"where": str(path.parent.relative_to(folder))}))
    return found


def first_failure_per_step(failures: Iterable[Failure]) -> dict[str, Failure]:
    """The first failure of each failing step, in the order met: what the console prints."""
    first: dict[str, Failure] = {}
    for failure in failures:
        first.setdefault(failure.step, failure)
    return first
