"""The Hive side of what campaigns leave on a target: the preflight drops the tables over the
study's data path (`leftover_tables`) and runs the drops earlier cleanups recorded as not run
(`replay_record`); a cleanup whose drops HiveServer2 could not run records them (`record_left`,
the record itself in `pipeline.hive_leftovers`). The file-system side is `target.leftovers_lines`.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.paths import check_component, slug
from benchcamp.pipeline import hive_leftovers
from benchcamp.pipeline.campaign.steps import run_hive
from benchcamp.pipeline.campaign.unit import RepetitionUnit
from benchcamp.platforms.hive import RESULTS_FILE, HiveStatement, identifier
from benchcamp.transport import ssh
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import RunContext


def table_location(rows: list[list[Any]]) -> str:
    """The path of a table's data from DESCRIBE FORMATTED's rows (`Location:`, then
    `hdfs://host:port/path`), without scheme and authority; empty when there is none."""
    for row in rows:
        if len(row) >= 2 and str(row[0]).strip() == "Location:" and row[1]:
            return re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*", "", str(row[1]).strip())
    return ""


def leftover_tables(ctx: RunContext, units: list[RepetitionUnit], archive_dir: Path) -> dict[str, list[str]]:
    """Drop the Hive tables campaigns of this study left (their data under `<data_root>/<study>/`);
    {campaign: [tables]}.

    Only tables named as the campaign's workloads name theirs are looked at (SHOW TABLES, then
    DESCRIBE FORMATTED each for its location): a shared HiveServer2's other tables cost nothing
    and are never dropped, and one another client drops between the two is passed over.
    """
    root = ctx.environment.hadoop.data_root
    patterns = {get_workload(unit["workload"]).hive_table_pattern for unit in units} - {None}
    statements = [HiveStatement("ping", "SELECT 1", fetch=True)]
    if root and patterns:
        statements.append(HiveStatement("tables", "SHOW TABLES", fetch=True))
    listed = run_hive(ctx, statements, archive_dir / "hive", "preflight")
    if len(statements) == 1:
        return {}
    names = [str(row[0]) for row in json.loads(listed.text(RESULTS_FILE))["tables"] if row]
    candidates = [name for name in names if any(re.fullmatch(p or "", name) for p in patterns)]
    if not candidates:
        return {}
    described = run_hive(
        ctx,
        [
            HiveStatement(name, f"DESCRIBE FORMATTED {identifier(name)}", fetch=True, missing_ok=True)
            for name in candidates
        ],
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
        run_hive(ctx, drops, archive_dir / "hive_drop", "preflight")
    return found


def replay_record(ctx: RunContext, archive_dir: Path) -> hive_leftovers.LeftoversRecord | None:
    """Run the drops an earlier cleanup of the study on this environment could not
    (`pipeline.hive_leftovers`), archived in the try's `hive_leftovers/` with the record as read;
    the record goes once they all ran. HiveServer2 still unreachable or failing them: the
    preflight fails as for any unreachable HiveServer2, and the record stays for the next one.
    A corrupt record refuses the preflight, naming the file and the fix."""
    path = hive_leftovers.record_path(ctx.spec.study, ctx.environment.name)
    try:
        record = hive_leftovers.read_record(path, ctx.spec.study, ctx.environment.name)
    except hive_leftovers.RecordCorrupt as exc:
        raise ssh.TargetRefused(f"preflight on '{ctx.environment.name}' refused: {exc}") from None
    if record is None:
        return None
    folder = archive_dir / "hive_leftovers"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "record.json").write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    try:
        run_hive(ctx, hive_leftovers.replay_statements(record), folder, "preflight")
    except (ssh.StepFailed, ssh.TargetUnreachable, ssh.TargetRefused) as exc:
        raise type(exc)(
            f"preflight on '{ctx.environment.name}': HiveServer2 ({ctx.environment.hive.connection}) did "
            f"not run the {len(record.drops())} drop(s) that earlier cleanups left ({', '.join(record.names())}; "
            f"kept in {path} for the next preflight). {exc}"
        ) from exc
    hive_leftovers.forget(ctx.spec.study, ctx.environment.name, done=record)
    return record


def record_left(ctx: RunContext, statements: list[HiveStatement], hive_dir: Path, failure: Exception) -> str:
    """Record the drops a failed cleanup did not run (those not in its archived results:
    none ran when no session opened); the sentence that says where, for the task's message."""
    results = hive_dir / RESULTS_FILE
    ran = set(json.loads(results.read_text(encoding="utf-8"))) if results.is_file() else set()
    not_run = [statement for statement in statements if statement.label not in ran]
    drops = [drop for drop in map(hive_leftovers.drop_of, not_run) if drop is not None]
    unrecorded = [statement.label for statement in not_run if hive_leftovers.drop_of(statement) is None]
    also = (
        f" (not recorded, not a product's DROP ... IF EXISTS: {', '.join(unrecorded)})" if unrecorded else ""
    )
    if not drops:
        return f"none of the statements not run can be recorded{also}."
    entry = hive_leftovers.LeftCampaign(
        campaign=ctx.campaign,
        at=datetime.now(UTC),
        why=" ".join(str(failure).split())[:500],
        hive_connection=str(ctx.environment.hive.connection),
        cleanup_archive=str(hive_dir),
        drops=drops,
    )
    names = ", ".join(f"{drop.kind} {drop.name}" for drop in drops)
    try:
        path = hive_leftovers.save(ctx.spec.study, ctx.environment.name, entry)
    except hive_leftovers.RecordCorrupt as exc:
        return f"they could not be recorded ({names}){also}: {exc}."
    return (
        f"recorded what is left ({names}){also} in {path}: the next campaign of {ctx.spec.study} on "
        f"this target drops them at its preflight."
    )


def forget_own(ctx: RunContext) -> None:
    """A cleanup that ran its drops (a retried try) takes its campaign out of the record."""
    try:
        hive_leftovers.forget(ctx.spec.study, ctx.environment.name, campaign=ctx.campaign)
    except hive_leftovers.RecordCorrupt as exc:  # the next preflight refuses it, naming the fix
        logging.getLogger(__name__).warning("%s", exc)
