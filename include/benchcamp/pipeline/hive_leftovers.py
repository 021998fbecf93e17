"""What a campaign's cleanup could not drop in HiveServer2, kept for the next preflight there.

The cleanup deletes a campaign's data without HiveServer2, then runs every workload's
`hive_clean` drops. When HiveServer2 cannot run them, the next preflight finds again only the
tables its workloads' patterns name over the study's data path
(`campaign.leftovers.leftover_tables`): nothing finds a database (BigBench's `bb_<hash>` and
`bb_<hash>_text`) or a table elsewhere.
So the drops not run are recorded, per study and target environment, in
`<results>/<study>/.hive_leftovers/<environment>.json` (a hidden folder: no campaign is named
so), and the next campaign of the study on that environment runs them first in its preflight,
removing the record once they succeeded.

Only `DROP TABLE|DATABASE IF EXISTS <identifier> [CASCADE]`, as the workloads write them, is
recorded; a replay rebuilds each statement from its kind and name (`platforms.hive.identifier`),
never from the record's text: an edited record can name a table, never run other HiveQL.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from benchcamp.core.paths import check_component, child, results_root, slug, write_atomically
from benchcamp.platforms.hive import HiveParameterError, HiveStatement, identifier

RECORD_DIR = ".hive_leftovers"
_DROP = re.compile(r"DROP (?P<kind>TABLE|DATABASE) IF EXISTS (?P<name>\S+)(?P<cascade> CASCADE)?")
FIX = (
    "fix it (the format: docs/operations/faults.md), or drop what it names in HiveServer2 by hand "
    "(SHOW DATABASES, SHOW TABLES) and delete the file"
)


class RecordCorrupt(ValueError):
    """A record that cannot be read as written: the message names the file and the fix."""


class LeftDrop(BaseModel):
    """One drop the cleanup could not run: `sql` is how it would have run it (for a reader),
    checked on reading to be what `kind`, `name` and `cascade` rebuild."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["table", "database"]
    name: str
    cascade: bool = False
    sql: str

    @model_validator(mode="after")
    def _product_statement(self) -> LeftDrop:
        try:
            identifier(self.name)
        except HiveParameterError as exc:
            raise ValueError(str(exc)) from None
        if self.cascade and self.kind != "database":
            raise ValueError(f"{self.name}: only a database is dropped with CASCADE")
        if self.sql != rebuilt_sql(self.kind, self.name, self.cascade):
            raise ValueError(f"sql {self.sql!r} is not the drop of {self.kind} {self.name}")
        return self


class LeftCampaign(BaseModel):
    """What one campaign's cleanup left: its drops not run, when, why, and where it is archived."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    campaign: str
    at: datetime
    why: str
    hive_connection: str
    cleanup_archive: str
    drops: list[LeftDrop]


class LeftoversRecord(BaseModel):
    """Every campaign of a study whose cleanup left Hive objects on one environment's HiveServer2."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str
    environment: str
    left: list[LeftCampaign]

    def drops(self) -> list[LeftDrop]:
        """Each recorded drop once, in the order recorded."""
        return list({drop.sql: drop for campaign in self.left for drop in campaign.drops}.values())

    def names(self) -> list[str]:
        return [drop.name for drop in self.drops()]

    def campaigns(self) -> list[str]:
        return [campaign.campaign for campaign in self.left]


def rebuilt_sql(kind: str, name: str, cascade: bool = False) -> str:
    """The drop, written from its parts alone (the name through `identifier`)."""
    return f"DROP {kind.upper()} IF EXISTS {identifier(name)}" + (" CASCADE" if cascade else "")


def drop_of(statement: HiveStatement) -> LeftDrop | None:
    """The recordable drop a cleanup statement is, or None: anything but a product's
    `DROP TABLE|DATABASE IF EXISTS <identifier> [CASCADE]` is never recorded."""
    match = _DROP.fullmatch(statement.sql.strip())
    if match is None:
        return None
    kind: Literal["table", "database"] = "table" if match["kind"] == "TABLE" else "database"
    cascade = bool(match["cascade"])
    try:
        return LeftDrop(
            kind=kind, name=match["name"], cascade=cascade, sql=rebuilt_sql(kind, match["name"], cascade)
        )
    except (ValidationError, HiveParameterError):
        return None


def record_path(study: str, environment: str, root: Path | None = None) -> Path:
    """`<results>/<study>/.hive_leftovers/<environment>.json` (the names slugged and checked)."""
    study_dir = child(root or results_root(), slug(study), what="study")
    return study_dir / RECORD_DIR / f"{check_component(slug(environment), 'environment')}.json"


def read_record(path: Path, study: str, environment: str) -> LeftoversRecord | None:
    """The record at `path`, None when there is none; RecordCorrupt naming the file and the fix
    when it is not a record of this study and environment as `save` writes them."""
    if not path.exists():
        return None
    try:
        record = LeftoversRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
        detail = str(exc).replace("\n", "; ")
        raise RecordCorrupt(
            f"{path}: not a record of Hive leftovers ({type(exc).__name__}: {detail[:400]}): {FIX}"
        ) from None
    if (record.study, record.environment) != (study, environment):
        raise RecordCorrupt(
            f"{path}: records study {record.study!r} on {record.environment!r}, not {study!r} on "
            f"{environment!r}: {FIX}"
        )
    return record


def save(study: str, environment: str, left: LeftCampaign, root: Path | None = None) -> Path:
    """Add what a campaign's cleanup left to the record (atomically); a later try of the same
    campaign's cleanup replaces its entry. RecordCorrupt (nothing written) for a corrupt record."""
    path = record_path(study, environment, root)
    current = read_record(path, study, environment)
    others = [entry for entry in (current.left if current else []) if entry.campaign != left.campaign]
    record = LeftoversRecord(study=study, environment=environment, left=[*others, left])
    write_atomically(path, record.model_dump_json(indent=2) + "\n")
    return path


def replay_statements(record: LeftoversRecord) -> list[HiveStatement]:
    """The record's drops as statements, each rebuilt from its kind and name."""
    return [
        HiveStatement(f"leftover_{index}_{drop.name}", rebuilt_sql(drop.kind, drop.name, drop.cascade))
        for index, drop in enumerate(record.drops(), 1)
    ]


def forget(study: str, environment: str, done: LeftoversRecord | None = None, campaign: str = "") -> bool:
    """Remove from the record what has been dropped: the entries of `done` (a replayed record), or
    `campaign`'s (its own cleanup ran its drops after all); the file goes with its last entry.
    Returns whether anything was removed."""
    path = record_path(study, environment)
    current = read_record(path, study, environment)
    if current is None:
        return False
    dropped = {(entry.campaign, entry.at) for entry in (done.left if done else [])}
    kept = [
        entry
        for entry in current.left
        if (entry.campaign, entry.at) not in dropped and entry.campaign != (campaign or None)
    ]
    if len(kept) == len(current.left):
        return False
    if kept:
        write_atomically(path, current.model_copy(update={"left": kept}).model_dump_json(indent=2) + "\n")
    else:
        path.unlink(missing_ok=True)
    return True
