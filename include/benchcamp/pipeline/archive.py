"""The raw archive: every step's exact command and outputs, before anything is parsed.

Layout: ``<results>/<study>/<campaign>/<cell>/rep<N>/<step>/try<T>/`` holds the
wrapper and command scripts, stdout.log, stderr.log, the exit code and the
timestamps taken on the target; ``rep<N>/records.jsonl`` holds the records parsed
from the latest execute try and ``rep<N>/environment.json`` the target's facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from benchcamp.core.paths import child, results_root
from benchcamp.core.records import (
    EnvironmentSnapshot,
    ResultRecord,
    ValidationFailure,
    read_jsonl,
    write_jsonl,
)
from benchcamp.workloads.base import slug

RECORDS_FILE = "records.jsonl"
ENVIRONMENT_FILE = "environment.json"
VALIDATION_FILE = "validation.json"


def campaign_dir(study: str, campaign: str, root: Path | None = None) -> Path:
    """The campaign's folder; a name that would resolve outside the results root is refused."""
    return child(root or results_root(), slug(study), slug(campaign), what="study/campaign")


def cell_dir(study: str, campaign: str, cell_key: str, root: Path | None = None) -> Path:
    return child(campaign_dir(study, campaign, root), slug(cell_key), what="cell")


def repetition_dir(
    study: str, campaign: str, cell_key: str, repetition: int, root: Path | None = None
) -> Path:
    return child(cell_dir(study, campaign, cell_key, root), f"rep{repetition}", what="cell")


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
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


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
