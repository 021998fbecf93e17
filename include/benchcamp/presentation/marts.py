"""Reading a campaign's marts: which marts a report shows, their rows, the campaigns, the snapshot.

Reports read the dbt marts only and never recompute a statistic, so the CLI, the DAG's report
task and the results page always agree with the warehouse. The DuckDB file is opened read-only
and closed before returning: a report never holds the single-writer lock that loads and dbt need.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchcamp.core.claims import MIN_RUNS_PER_SIDE
from benchcamp.core.matrix import LADDERS
from benchcamp.core.spec import load_spec
from benchcamp.core.study import Mart, study_plugin, study_plugins
from benchcamp.pipeline.campaign.conf import implemented_workloads
from benchcamp.pipeline.transform import read_last_build
from benchcamp.pipeline.warehouse import wait_for_warehouse

# The generic marts, in every study's report; a study's own marts come from its plugin
# (`core.study`), in its report (all formats) only when the campaign has rows in them.
MARTS = ("scaling", "phase_times", "hardware_changes", "validation")
# Besides the marts, what the results page and the HTML report read, copied into the read
# snapshot after each build.
_SNAPSHOT_EXTRAS = ("campaigns", "campaign_history", "int_environment_fingerprints")
HISTORY_CAMPAIGNS = 60  # the time series shows a study's latest campaigns
Tables = dict[str, list[dict[str, Any]]]

_ORDER = {
    "scaling": "environment, workload, series_params, data_size_gb",
    "phase_times": "environment, workload, series_params, data_size_gb",
    "hardware_changes": "environment",
    "validation": "environment, workload, cell_key, expectation",
    "repetition_adequacy": "environment, workload, cell_key",
    "run_order_drift": "environment, workload",
    "environment_load": "environment, other_environment",
    "scorecard": "environment, claim_position",
}
# Generic marts shown only for campaigns with rows in them (and read only where built: a warehouse
# built before them lacks them): the achieved CI of campaigns run with adaptive repetitions.
# The reproduction scorecard likewise: rows only for studies that declare claims (claims.yaml).
OPTIONAL_MARTS = ("repetition_adequacy", "scorecard", "run_order_drift", "environment_load")
# Change points are the study's, across campaigns: every report of a study that has some lists them.
HISTORY_MART = "change_points"


class ReportError(LookupError):
    """Nothing to report: no warehouse, marts not built, or no rows for that study or campaign."""


@contextmanager
def _read_only(warehouse: Path) -> Iterator[Any]:
    """A read-only connection, retried while a writer holds the lock, always closed afterwards."""
    import duckdb

    if not warehouse.exists():
        raise ReportError(f"no warehouse at {warehouse} (run a campaign or `benchcamp import` first)")

    def open_connection() -> Any:
        try:
            return duckdb.connect(str(warehouse), read_only=True)
        except duckdb.ConnectionException:
            # This process already holds the file read-write (Cosmos runs dbt in-process,
            # e.g. under `airflow dags test`): share that instance; we only run selects.
            return duckdb.connect(str(warehouse))

    # a writer (a load, a dbt build) holds the file: wait, bounded, then WarehouseBusy naming it
    con = wait_for_warehouse(open_connection, warehouse)
    try:
        yield con
    finally:
        con.close()


def _rows(con: Any, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _built(con: Any) -> set[str]:
    return {
        name
        for (name,) in con.execute(
            "select table_name from information_schema.tables where table_schema = 'main'"
        ).fetchall()
    }


def _check_marts(con: Any, warehouse: Path, study_marts: tuple[Mart, ...] = ()) -> None:
    built = _built(con)
    wanted = (*MARTS, *(mart.name for mart in study_marts), "campaigns")
    missing = [name for name in wanted if name not in built]
    if missing:
        raise ReportError(
            f"the marts {', '.join(missing)} are not built in {warehouse} (run dbt: `benchcamp import` "
            "or the DAG's dbt tasks build them)"
        )


def latest_campaign(warehouse: Path, study: str) -> str:
    """The study's campaign with the latest finished repetition (ties: the greatest name)."""
    with _read_only(warehouse) as con:
        _check_marts(con, warehouse)
        return _latest_campaign(con, study)


def _latest_campaign(con: Any, study: str) -> str:
    row = con.execute(
        """
        select campaign from main.campaigns where study = ?
        order by last_finished_at desc nulls last, campaign desc
        limit 1
        """,
        [study],
    ).fetchone()
    if row is None:
        raise ReportError(f"no campaign of study '{study}' in the marts")
    return str(row[0])


def campaigns(warehouse: Path, study: str) -> list[dict[str, Any]]:
    """The study's campaigns, latest first (the picker's choices): name, last finished time, its
    cells and environments, and whether it is complete (`mark_complete`)."""
    with _read_only(warehouse) as con:
        _check_marts(con, warehouse)
        rows = _rows(
            con,
            "select campaign, last_finished_at, cells, environments, settings from main.campaigns where study = ? "
            "order by last_finished_at desc nulls last, campaign desc",
            [study],
        )
    return mark_complete(study, rows)


def settings_line(settings: str | None) -> str | None:
    """A campaign's settings (`campaigns.settings`, JSON) as one line for the page: what it ran
    with, defaults filled in; None for an imported campaign (no Airflow run)."""
    if not settings:
        return None
    try:
        given = json.loads(settings)
    except ValueError:
        return None
    repetitions = given.get("repetitions")
    parts = [
        f"ladder {given.get('ladder')}",
        f"{repetitions} repetition{'s' if repetitions != 1 else ''} per cell",
        "the spec's warm-ups" if given.get("warmups") is None else f"{given['warmups']} warm-up(s) per cell",
        "workloads " + ", ".join(given.get("workloads") or []),
        "cells " + (", ".join(given["cells"]) if given.get("cells") else "all"),
        f"order {given.get('order')}"
        + (f" (seed {given['order_seed']})" if given.get("order_seed") is not None else ""),
    ]
    if given.get("target_ci_pct") is not None:
        parts.append(
            f"adaptive: more repetitions until the 95 % CI is within {given['target_ci_pct']} % of the mean, "
            f"at most {given.get('max_repetitions')}"
        )
    if given.get("note"):
        parts.append(f"note: {given['note']}")
    return " · ".join(parts)


def full_matrix_cells(study: str, environment: str | None = None) -> int:
    """Cells of the study's smallest full matrix on `environment` (its implemented workloads at
    the ladder with the fewest cells there): a campaign with fewer cells on a target ran a subset
    (some workloads or cells) or was interrupted. On one of the spec's environments an axis that
    is an environment's fact (`environment_key`) has that one value, as `spec.cells` plans it;
    on another name (an imported campaign's target) the matrix is the ladders' own."""

    spec = load_spec(study)
    target = next((env for env in spec.environments if env.name == environment), None)
    workloads = implemented_workloads(spec)
    return min(len(spec.cells(ladder, workloads, target)) for ladder in LADDERS)


def mark_complete(study: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each campaign row (`cells` over its comma-separated `environments`) with `complete`: at
    least the study's smallest full matrix on each of its targets, `full_cells` in all
    (`full_matrix_cells` of each target, summed)."""
    per_target: dict[str | None, int] = {}  # a picker lists hundreds of campaigns on a few targets
    marked = []
    for row in rows:
        targets: list[str | None] = [name for name in str(row.get("environments") or "").split(",") if name]
        for name in targets or [None]:
            if name not in per_target:
                per_target[name] = full_matrix_cells(study, name)
        full = sum(per_target[name] for name in targets or [None])
        marked.append({**row, "complete": int(row.get("cells") or 0) >= full, "full_cells": full})
    return marked


def fewest_runs(tables: Tables) -> int | None:
    """The fewest measured repetitions behind any cell of a campaign's marts (their `n` column;
    None: no mart has one)."""
    counts = [
        int(row["n"])
        for rows in tables.values()
        for row in rows
        if isinstance(row.get("n"), int | float) and not isinstance(row.get("n"), bool)
    ]
    return min(counts) if counts else None


def few_runs_warning(campaign: str, tables: Tables) -> str | None:
    """A warning when a comparison with this campaign rests on fewer repetitions than the
    scorecard needs to judge a difference (`claims.MIN_RUNS_PER_SIDE`)."""

    fewest = fewest_runs(tables)
    if fewest is None or fewest >= MIN_RUNS_PER_SIDE:
        return None
    return (
        f"Campaign {campaign} has cells measured {fewest} time(s): the scorecard needs at least "
        f"{MIN_RUNS_PER_SIDE} repetitions a side to call a difference, so a % difference there is "
        "one measurement against another, not evidence of one."
    )


def default_campaign(known: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The campaign a page opens on: the latest complete one, else the latest (None: none)."""
    return next((row for row in known if row.get("complete")), known[0] if known else None)


def read_tables(warehouse: Path, study: str, campaign: str | None = None) -> Tables:
    """The rows of the generic marts, and of the study's own marts that have any, for one campaign.

    `campaign` None means the study's latest campaign. Rows keep the marts' column names.
    """
    study_marts = study_plugin(study).marts
    order = {**_ORDER, **{mart.name: mart.order_by for mart in study_marts}}
    with _read_only(warehouse) as con:
        _check_marts(con, warehouse, study_marts)
        chosen = campaign or _latest_campaign(con, study)
        built = _built(con)
        order = {mart: by for mart, by in order.items() if mart not in OPTIONAL_MARTS or mart in built}
        tables = {
            mart: _rows(
                con,
                f"select * from main.{mart} where study = ? and campaign = ? order by {order[mart]}",
                [study, chosen],
            )
            for mart in order
        }
        # the study's change points across its campaigns (not one campaign's rows): shown with any
        # campaign's report when there are some
        shifts = _change_point_rows(con, study) if HISTORY_MART in built else []
    if not any(tables.values()):
        raise ReportError(f"no rows for campaign '{chosen}' of study '{study}' in the marts")
    if shifts:
        tables[HISTORY_MART] = shifts
    return {mart: rows for mart, rows in tables.items() if rows or mart in MARTS}


def _change_point_rows(con: Any, study: str) -> list[dict[str, Any]]:
    return _rows(
        con,
        f"select * from main.{HISTORY_MART} where study = ? "
        "order by campaign_after_at nulls last, campaign_after, environment, cell_key, metric",
        [study],
    )


def read_change_points(warehouse: Path, study: str) -> list[dict[str, Any]]:
    """The study's change points (`change_points`; none in a warehouse built before the mart)."""
    with _read_only(warehouse) as con:
        return _change_point_rows(con, study) if HISTORY_MART in _built(con) else []


def read_history(warehouse: Path, study: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The study's time series (`campaign_history`, latest campaigns) and its hardware changes."""
    with _read_only(warehouse) as con:
        _check_marts(con, warehouse)
        history = _rows(
            con,
            """
            select * from main.campaign_history
            where study = ? and campaign in (
                select campaign from main.campaigns where study = ?
                order by last_finished_at desc nulls last limit ?
            )
            order by last_finished_at, environment, workload, series_params, data_size_gb
            """,
            [study, study, HISTORY_CAMPAIGNS],
        )
        changes = _rows(
            con, "select * from main.hardware_changes where study = ? order by marker_at", [study]
        )
    return history, changes


def fingerprints(warehouse: Path, study: str, campaign: str) -> list[dict[str, Any]]:
    """Each environment's hardware fingerprint in one campaign."""
    with _read_only(warehouse) as con:
        return _rows(
            con,
            "select environment, fingerprint, hosts from main.int_environment_fingerprints "
            "where study = ? and campaign = ? order by environment",
            [study, campaign],
        )


def snapshot_path(warehouse: Path) -> Path:
    """Where the read snapshot of `warehouse` lives (next to it)."""
    return warehouse.with_name(warehouse.stem + ".snapshot.duckdb")


def readable(warehouse: Path) -> Path:
    """The file readers that must never wait on a writer use: the snapshot when there is one."""
    snapshot = snapshot_path(warehouse)
    return snapshot if snapshot.exists() else warehouse


def export_snapshot(warehouse: Path) -> Path:
    """Copy what the page reads into a separate file, replaced atomically.

    DuckDB lets one process write a file while nobody else even reads it. The results page
    reads this copy instead, so it never waits on a load or a dbt build, and never holds a
    lock they need. Called after every build (the DAG's report task, `benchcamp import`);
    readers holding the previous copy open keep reading it until they close it.
    """
    target = snapshot_path(warehouse)
    scratch = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    scratch.unlink(missing_ok=True)
    try:
        with _read_only(warehouse) as source:
            _check_marts(source, warehouse)
            # Copied inside DuckDB (a mart holds a row per cell: hundreds of thousands after a big import).
            source.execute(f"attach '{str(scratch).replace(chr(39), chr(39) * 2)}' as snapshot (read_write)")
            try:
                for name in _snapshot_tables(_built(source)):
                    source.execute(f"create table snapshot.main.{name} as select * from main.{name}")
            finally:
                source.execute("detach snapshot")
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)
    return target


def _snapshot_tables(built: set[str]) -> list[str]:
    """The generic marts and extras, and every study's marts that are built (all studies share the page)."""
    study_marts = [mart.name for plugin in study_plugins() for mart in plugin.marts if mart.name in built]
    optional = [name for name in (*OPTIONAL_MARTS, HISTORY_MART) if name in built]
    return [*MARTS, *optional, *dict.fromkeys(study_marts), *_SNAPSHOT_EXTRAS]


def _first_row(tables: Tables) -> dict[str, Any] | None:
    for mart in dict.fromkeys([*MARTS, *tables]):
        for row in tables.get(mart, []):
            return row
    return None


def campaign_of(tables: Tables) -> str | None:
    """The campaign the rows belong to (read_tables returns one campaign's rows)."""
    row = _first_row(tables)
    return None if row is None else str(row["campaign"])


def environments_of(tables: Tables) -> list[str]:
    """The environments a campaign's rows name (its targets), sorted."""
    return sorted(
        {str(row["environment"]) for rows in tables.values() for row in rows if row.get("environment")}
    )


def for_environment(tables: Tables, environment: str) -> Tables:
    """One environment's rows of a campaign's tables, for comparing the targets of one campaign;
    a mart's rows without an `environment` (a comparison across environments) stay on both sides."""
    return {
        mart: [row for row in rows if str(row.get("environment", environment)) == environment]
        for mart, rows in tables.items()
    }


def study_of(tables: Tables) -> str | None:
    """The study the rows belong to (every mart row names it)."""
    row = _first_row(tables)
    return None if row is None else str(row["study"])


def build_note(warehouse: Path) -> str | None:
    """When the warehouse's latest dbt build failed: "figures below are from <time>, the last
    successful build; the build at <time> failed: <node>: <message>" (None when it succeeded, or
    no build is recorded), so a stale figure is never shown as current."""
    with _read_only(warehouse) as con:
        status = read_last_build(con)
    return None if status is None else status.stale_note()
