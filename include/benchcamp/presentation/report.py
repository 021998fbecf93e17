"""Campaign reports: the marts printed as the study prints them, or as CSV / JSON.

Reports read the dbt marts only and never recompute a statistic, so the CLI, the
DAG's report task and the results page always agree with the warehouse. The
DuckDB file is opened read-only and closed before returning: a report never
holds the single-writer lock that loads and dbt need.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from benchcamp.core.claims import MIN_RUNS_PER_SIDE
from benchcamp.core.paths import default_warehouse
from benchcamp.core.spec import LADDERS, load_spec
from benchcamp.core.study import Mart, study_plugin, study_plugins
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign import implemented_workloads
from benchcamp.pipeline.transform import read_last_build
from benchcamp.pipeline.warehouse import wait_for_warehouse
from benchcamp.presentation.blocks import Block, Cell, Row, num
from benchcamp.presentation.environment_load_section import environment_load_blocks
from benchcamp.presentation.run_order_section import run_order_blocks
from benchcamp.presentation.text import (
    data_size,
    delta,
    gb_text,
    number,
    verdict,
    warmup_note,
)

# The generic marts, in every study's report; a study's own marts come from its plugin
# (`core.study`), in its report (all formats) only when the campaign has rows in them.
MARTS = ("scaling", "phase_times", "hardware_changes", "validation")
# Besides the marts, what the results page and the HTML report read, copied into the read
# snapshot after each build.
_SNAPSHOT_EXTRAS = ("campaigns", "campaign_history", "int_environment_fingerprints")
HISTORY_CAMPAIGNS = 60  # the time series shows a study's latest campaigns
Format = Literal["table", "csv", "json"]
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


def full_matrix_cells(study: str) -> int:
    """Cells of the study's smallest full matrix (its implemented workloads at the ladder with the
    fewest cells): a campaign with fewer cells on a target ran a subset (some workloads or cells)
    or was interrupted."""

    spec = load_spec(study)
    return min(len(spec.cells(ladder, implemented_workloads(spec))) for ladder in LADDERS)


def mark_complete(study: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each campaign row (`cells` over its comma-separated `environments`) with `complete`: at
    least the study's smallest full matrix on each of its targets (`full_matrix_cells`)."""
    full = full_matrix_cells(study)
    marked = []
    for row in rows:
        targets = max(len(str(row.get("environments") or "").split(",")), 1)
        per_target = int(row.get("cells") or 0) / targets
        marked.append({**row, "complete": per_target >= full, "full_cells": full})
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


# -- rendering -------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """JSON/CSV-safe scalars: ISO timestamps, NaN/inf as null."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _scaling_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Per workload, environment and series: each data size's time, spread, deltas and verdict."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["environment"], row["series_params"]), []).append(row)
    out = []
    for (workload, environment, series), cells in groups.items():
        processed = any(cell.get("processed_gb") is not None for cell in cells)
        headers = ["Data (GB)", "Time (s)", "σ (s)", "σ (%)", "Data Δ (%)", "Time Δ (%)"]
        headers += ["Throughput (MB/s)", "Linear (s)", "ok"]
        if processed:
            headers.insert(1, "Processed (GB)")
        body = []
        for cell in cells:
            baseline = cell["data_delta_pct"] is None
            line = [
                num(data_size(cell["data_size_gb"]), cell["data_size_gb"]),
                num(number(cell["mean_s"]), cell["mean_s"]),
                num(number(cell["stddev_s"]), cell["stddev_s"]),
                num(number(cell["stddev_pct"]), cell["stddev_pct"]),
                num(delta(cell["data_delta_pct"], baseline), cell["data_delta_pct"]),
                num(delta(cell["time_delta_pct"], baseline), cell["time_delta_pct"]),
                num(number(cell["throughput_mb_s"]), cell["throughput_mb_s"]),
                num(number(cell["linear_projection_s"]), cell["linear_projection_s"]),
                Cell(verdict(cell)),
            ]
            if processed:
                line.insert(1, num(gb_text(cell.get("processed_gb")), cell.get("processed_gb")))
            body.append(Row((data_size(cell["data_size_gb"]),), tuple(line)))
        title = f"{workload} on {environment}" + (f" ({series.replace('|', ', ')})" if series else "")
        out.append(
            Block(
                title,
                tuple(headers),
                tuple(body),
                text_columns=1,
                notes=(
                    *warmup_note(cells),
                    *([SCALING_THROUGHPUT] if _has(cells, "throughput_mb_s") else []),
                ),
                kind="scaling",
            )
        )
    return out


# The two kinds of % a comparison table shows, one sign convention each, stated once on the page
# (and named by each table's note): a difference of the value shown, or a gain.
DIFFERENCE_NOTE = (
    "% difference: (this − baseline) / baseline × 100 of the value shown, so for a time negative is faster"
)
GAIN_NOTE = (
    "% gain (improvement): positive is better, whatever the measure (a time: (baseline − this) / "
    "baseline × 100; a rate: (this − baseline) / baseline × 100)"
)
SIGN_CONVENTIONS = (DIFFERENCE_NOTE, GAIN_NOTE)

SCALING_THROUGHPUT = "Throughput (MB/s): the data size over the mean job time (the whole job, start to end)"


def _has(rows: list[dict[str, Any]], column: str) -> bool:
    return any(row.get(column) is not None for row in rows)


def _phase_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Per job, the mean task phase times (JobHistory), as the SSD/HDD study tabulates them."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["environment"], row["series_params"] or ""), []).append(row)
    headers: tuple[str, ...] = (
        "Data (GB)",
        "n",
        "Job (s)",
        "Map (s)",
        "σ",
        "Shuffle (s)",
        "σ",
        "Merge (s)",
        "σ",
    )
    headers += ("Reduce (s)", "σ", "Failed attempts")
    out = []
    for (workload, environment, series), cells in groups.items():
        body = [
            Row(
                (data_size(cell["data_size_gb"]),),
                (
                    num(data_size(cell["data_size_gb"]), cell["data_size_gb"]),
                    num(str(cell["n"] or 0), cell["n"] or 0),
                    num(number(cell["job_elapsed_s"]), cell["job_elapsed_s"]),
                    *(
                        num(number(cell[column]), cell[column])
                        for phase in ("map", "shuffle", "merge", "reduce")
                        for column in (f"{phase}_s", f"{phase}_stddev_s")
                    ),
                    num(
                        "-"
                        if cell["failed_task_attempts"] is None
                        else f"{cell['failed_task_attempts']:.0f}",
                        cell["failed_task_attempts"],
                    ),
                ),
            )
            for cell in cells
        ]
        title = f"{workload} task phases (JobHistory) on {environment}"
        title += f" ({series.replace('|', ', ')})" if series else ""
        out.append(Block(title, headers, tuple(body), kind="phases"))
    return out


def _hardware_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """A campaign that first ran on new hardware says so: it is not comparable with the one before."""
    return [
        Block(
            f"Hardware change on {row['environment']}: this campaign is the first on {row['fingerprint']} "
            f"(before: {row['previous_fingerprint']}, campaign {row['previous_campaign']}); "
            f"changed: {row['changed_facts']}",
            kind="hardware",
        )
        for row in rows
    ]


def _change_point_blocks(rows: list[dict[str, Any]], campaign: str | None) -> list[Block]:
    """The study's change points (`change_points`): when a tracked metric moved, by how much, how sure."""
    if not rows:
        return []
    body = tuple(
        Row(
            (row["environment"], row["cell_key"], row["metric"], row["campaign_after"]),
            (
                Cell(row["environment"]),
                Cell(row["cell_key"]),
                Cell(row["metric"]),
                Cell(f"{row['campaign_before']} ({row['campaigns_before']})"),
                Cell(
                    f"{row['campaign_after']} ({row['campaigns_after']})"
                    + (" = this campaign" if row["campaign_after"] == campaign else "")
                ),
                num(f"{row['mean_before']:.4g}", row["mean_before"]),
                num(f"{row['mean_after']:.4g}", row["mean_after"]),
                num(delta(row["change_pct"], False), row["change_pct"]),
                num(f"{row['change']:+.4g}", row["change"]),
                num(f"{row['p_value']:.2g}", row["p_value"]),
                Cell(
                    f"regression (worse by more than {row['regression_pct']:g} %)"
                    if row["is_regression"]
                    else f"{row['direction']} ({row['better']} is better)"
                ),
            ),
        )
        for row in rows
    )
    settings = rows[0]
    return [
        Block(
            "Change points: where a tracked metric moved across the study's campaigns",
            (
                "environment",
                "cell",
                "metric",
                "last before (campaigns)",
                "first after (campaigns)",
                "mean before",
                "mean after",
                "change (%)",
                "change",
                "p",
                "verdict",
            ),
            body,
            text_columns=1,
            lead_text_columns=5,
            notes=(
                "Per environment, hardware fingerprint, cell and metric (never across a hardware change): "
                "Apache Otava's analysis (e-divisive means in windows of "
                f"{settings['window_campaigns']} campaigns, t-test p below {settings['max_pvalue']:g}, "
                f"magnitude above {settings['min_magnitude_pct']:g} %). Means are of the campaigns' means; "
                "change is after − before in the metric's unit (a change from 0 has no %).",
            ),
            kind="change_points",
        )
    ]


def _adequacy_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """A campaign run with a target_ci_pct: the achieved 95 % CI of each cell's mean, and why its
    repetitions stopped (`repetition_adequacy`)."""
    if not rows:
        return []
    reasons = {
        "target_reached": "target reached",
        "max_repetitions": "max_repetitions reached",
        "too_many_failures": "too many failed repetitions",
    }
    body = tuple(
        Row(
            (row["environment"], row["cell_key"]),
            (
                Cell(row["environment"]),
                Cell(row["cell_key"]),
                Cell(row["metric"]),
                num(str(row["n"]), row["n"]),
                num(str(row["n_failed"]), row["n_failed"]),
                num(number(row["mean"]), row["mean"]),
                num(number(row["half_width"]), row["half_width"]),
                num(number(row["half_width_pct"]), row["half_width_pct"]),
                num(number(row["target_ci_pct"]), row["target_ci_pct"]),
                Cell(f"{reasons.get(row['stop_reason'], row['stop_reason'])} at n = {row['n_planned']}"),
            ),
        )
        for row in rows
    )
    first = rows[0]
    return [
        Block(
            f"Repetitions: achieved {first['confidence'] * 100:g} % confidence interval of each cell's mean "
            f"(Student's t; target: half-width within {number(first['target_ci_pct'])} % of the mean, "
            f"at most {first['max_repetitions']} repetitions)",
            (
                "environment",
                "cell",
                "metric",
                "n",
                "failed",
                "mean",
                "half-width",
                "half-width (%)",
                "target (%)",
                "stopped",
            ),
            body,
            text_columns=1,
            lead_text_columns=3,
            kind="adequacy",
        )
    ]


def _validation_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """The validation verdicts: all passed, or each failed expectation."""
    if not rows:
        return [Block("Validation: all expectations passed", kind="validation")]
    items = tuple(
        f"{row['environment']} {row['cell_key'] or 'whole campaign'}: {row['expectation']}: {row['details']}"
        for row in rows
    )
    title = f"Validation: {len(rows)} failed expectation(s); the results are kept and marked ok = no"
    return [Block(title, items=items, kind="validation")]


def _ci(row: dict[str, Any]) -> str:
    if row["ci_low"] is None or row["ci_high"] is None:
        return "-"
    return f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


_SCORECARD_HEADERS = (
    "Claim",
    "Claimed",
    "Ratio",
    "95 % CI",
    "n",
    "Comparisons",
    "Verdict",
    "Deciding comparison",
)


def _scorecard_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """The reproduction scorecard (`scorecard`): each published claim's verdict on this campaign,
    with the deciding comparison's ratio, its 95 % CI, the repetitions per side and the method."""
    out = []
    for environment in dict.fromkeys(row["environment"] for row in rows):
        scored = [row for row in rows if row["environment"] == environment]
        body = tuple(
            Row(
                (row["claim_id"],),
                (
                    Cell(row["claim_id"]),
                    Cell(row["claimed"]),
                    num(f"{row['estimate']:.3f}" if row["estimate"] is not None else "-", row["estimate"]),
                    Cell(_ci(row)),
                    Cell(row["n_per_side"] or "-"),
                    Cell(f"{row['n_reproduced']}/{row['n_contradicted']}/{row['n_inconclusive']}"),
                    Cell(row["verdict"]),
                    Cell(row["deciding_comparison"] or "no cell of the claim in this campaign"),
                ),
            )
            for row in scored
        )
        notes = (
            *(f'{row["claim_id"]}: "{row["paper"]}"' for row in scored),
            "Ratio: of the cells' mean metric (scaling: divided by the data ratio, 1 = linear). "
            "Comparisons: reproduced/contradicted/inconclusive. Reproduced: every comparison's 95 % CI "
            "inside the claimed region; contradicted: one outside it after Benjamini–Hochberg over the "
            "claim's comparisons; inconclusive: a CI spans the region's edge (or n < 2).",
            "Method: ratio of means, 95 % CI by the delta method on the log scale (Welch–Satterthwaite t); "
            "Benjamini–Hochberg over each claim's comparisons (the mart's `method` and `evidence` columns).",
        )
        out.append(
            Block(
                f"Reproduction scorecard on {environment}: the study's published claims",
                _SCORECARD_HEADERS,
                body,
                text_columns=2,
                lead_text_columns=2,
                notes=notes,
                kind="scorecard",
            )
        )
    return out


def study_sections(tables: Tables, study: str) -> list[Block | list[str]]:
    """The report's parts in order: generic blocks, the study's sections, the validation verdicts.

    A study section given as data (`blocks.TableSection`) contributes its blocks; one that only
    prints lines contributes those lines (the page shows them as preformatted text).
    """
    parts: list[Block | list[str]] = [
        *_scaling_blocks(tables.get("scaling", [])),
        *_phase_blocks(tables.get("phase_times", [])),
        *_hardware_blocks(tables.get("hardware_changes", [])),
        *_change_point_blocks(tables.get(HISTORY_MART, []), campaign_of(tables)),
        *_adequacy_blocks(tables.get("repetition_adequacy", [])),
        *run_order_blocks(tables.get("run_order_drift", [])),
        *environment_load_blocks(tables.get("environment_load", [])),
    ]
    for section in study_plugin(study).report_sections:
        blocks = getattr(section, "blocks", None)
        if callable(blocks):
            parts += blocks(tables)
        else:
            parts.append(section(tables))
    parts += _scorecard_blocks(tables.get("scorecard", []))
    parts += _validation_blocks(tables.get("validation", []))
    return parts


def render_table(tables: Tables, study: str) -> str:
    """The report as the study prints it: a title line, then every section's lines."""
    lines = [f"Study {study}, campaign {campaign_of(tables)}"]
    for part in study_sections(tables, study):
        lines += part.lines() if isinstance(part, Block) else part
    return "\n".join(lines)


def _shown(tables: Tables) -> list[str]:
    """The generic marts always, a study's own only with rows (as `read_tables` keeps them)."""
    return [*MARTS, *(mart for mart in tables if mart not in MARTS and tables[mart])]


def render_csv(tables: Tables) -> str:
    """One CSV block per mart, each after a `# <mart>` line, separated by a blank line."""
    buffer = io.StringIO()
    for mart in _shown(tables):
        rows = tables.get(mart, [])
        buffer.write(f"# {mart}\n")
        if rows:
            writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows({name: _plain(value) for name, value in row.items()} for row in rows)
        buffer.write("\n")
    return buffer.getvalue()


def render_json(tables: Tables, study: str) -> str:
    """`{"study", "campaign", "tables": {mart: [rows with the mart's column names]}}`."""
    payload = {
        "study": study,
        "campaign": campaign_of(tables),
        "tables": {
            mart: [{name: _plain(value) for name, value in row.items()} for row in tables.get(mart, [])]
            for mart in _shown(tables)
        },
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


_RENDERERS: dict[str, Callable[[Tables, str], str]] = {
    "table": render_table,
    "csv": lambda tables, _study: render_csv(tables),
    "json": render_json,
}


def render(tables: Tables, fmt: Format, study: str) -> str:
    """The report in one format: `table` (as the study prints it), `csv` or `json`."""
    try:
        renderer = _RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown report format {fmt!r} (table, csv, json)") from None
    return renderer(tables, study)


def build_note(warehouse: Path) -> str | None:
    """When the warehouse's latest dbt build failed: "figures below are from <time>, the last
    successful build; the build at <time> failed: <node>: <message>" (None when it succeeded, or
    no build is recorded), so a stale figure is never shown as current."""

    with _read_only(warehouse) as con:
        status = read_last_build(con)
    return None if status is None else status.stale_note()


def run_report(study: str, campaign: str, warehouse: Path | None = None) -> str:
    """The DAG's report task: the campaign's table, archived as `report.txt`, and a fresh snapshot.

    (Was `pipeline.campaign.run_report`: it renders, so it lives here, above the pipeline.)
    The table starts with `build_note` when the latest build failed.
    """

    path = warehouse or default_warehouse()
    tables = read_tables(path, study, campaign)
    note = build_note(path)
    text = render(tables, "table", study)
    if note:
        text = f"NOTE: {note}\n\n{text}"
    export_snapshot(path)  # what the results page reads: it never waits on the next writer
    archive.write_atomically(archive.campaign_dir(study, campaign) / "report.txt", text)
    return text
