"""Reports read the marts only (never recompute statistics) and print them as the study does."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

MARTS = ("scaling", "dfsio_read_write", "validation")
Format = Literal["table", "csv", "json"]


class ReportError(LookupError):
    """Nothing to report (no warehouse, no marts, or no campaign of that study)."""


def _connect(warehouse: Path) -> Any:
    import duckdb

    if not warehouse.exists():
        raise ReportError(f"no warehouse at {warehouse}")
    try:
        return duckdb.connect(str(warehouse), read_only=True)
    except duckdb.ConnectionException:
        # This process already holds the file read-write (dbt run in-process by Cosmos):
        # share that instance; we still only run selects.
        return duckdb.connect(str(warehouse))


def latest_campaign(con: Any, study: str) -> str | None:
    row = con.execute(
        """
        select campaign from main.scaling where study = ?
        group by campaign order by max(last_finished_at) desc nulls last, campaign desc limit 1
        """,
        [study],
    ).fetchone()
    return row[0] if row else None


def _rows(con: Any, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, list(params))
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def read_tables(warehouse: Path, study: str, campaign: str | None = None) -> dict[str, Any]:
    """The study's marts for one campaign (default: the latest), opened read-only and released."""
    with _connect(warehouse) as con:
        try:
            chosen = campaign or latest_campaign(con, study)
        except Exception as exc:  # marts not built yet
            raise ReportError(f"the marts are not built in {warehouse}: {exc}") from exc
        tables: dict[str, Any] = {"study": study, "campaign": chosen}
        order = {
            "scaling": "environment, workload, series_params, data_size_gb",
            "dfsio_read_write": "environment, data_size_gb",
            "validation": "environment, workload, cell_key, expectation",
        }
        for mart in MARTS:
            tables[mart] = _rows(
                con,
                f"select * exclude (study) from main.{mart} where study = ? and campaign = ? order by {order[mart]}",
                [study, chosen],
            )
    return tables


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _delta(value: Any) -> str:
    return "baseline" if value is None else f"{value:+.2f}"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(header), *(len(row[i]) for row in rows)) if rows else len(header)
        for i, header in enumerate(headers)
    ]
    line = "| " + " | ".join(header.ljust(widths[i]) for i, header in enumerate(headers)) + " |"
    rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    body = ["| " + " | ".join(cell.rjust(widths[i]) for i, cell in enumerate(row)) + " |" for row in rows]
    return "\n".join([line, rule, *body])


def _size(value: float) -> str:
    return f"{value:g}"


def render_table(tables: dict[str, Any]) -> str:
    out = [f"Study {tables['study']} — campaign {tables['campaign']}"]
    scaling = tables["scaling"]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in scaling:
        groups.setdefault((row["environment"], row["workload"], row["series_params"]), []).append(row)
    for (environment, workload, series), rows in groups.items():
        title = f"\n{workload} on {environment}" + (f" ({series})" if series else "")
        headers = [
            "Data (GB)",
            "Time (s)",
            "σ (s)",
            "σ (%)",
            "Data Δ (%)",
            "Time Δ (%)",
            "MB/s",
            "Linear (s)",
            "n",
            "ok",
        ]
        has_processed = any(row.get("processed_gb") is not None for row in rows)
        if has_processed:
            headers.insert(1, "Processed (GB)")
        body = []
        for row in rows:
            cells = [
                _size(row["data_size_gb"]),
                _fmt(row["mean_s"]),
                _fmt(row["stddev_s"]),
                _fmt(row["stddev_pct"]),
                _delta(row["data_delta_pct"]),
                _delta(row["time_delta_pct"]),
                _fmt(row["throughput_mb_s"]),
                _fmt(row["linear_projection_s"]),
                f"{row['n']}" + (f" (+{row['n_failed']} failed)" if row["n_failed"] else ""),
                "yes" if row["passed_validation"] and row["within_threshold"] is not False else "NO",
            ]
            if has_processed:
                cells.insert(1, _fmt(row.get("processed_gb")))
            body.append(cells)
        out += [title, _table(headers, body)]
    if tables["dfsio_read_write"]:
        out.append("\nTestDFSIO read vs write")
        headers = [
            "Data (GB)",
            "Read (s)",
            "Write (s)",
            "R/W Δ (%)",
            "Read MB/s",
            "Write MB/s",
            "Read IO rate",
            "Write IO rate",
        ]
        body = [
            [
                _size(row["data_size_gb"]),
                _fmt(row["read_s"]),
                _fmt(row["write_s"]),
                _delta(row["read_write_delta_pct"]) if row["read_write_delta_pct"] is not None else "-",
                _fmt(row["read_throughput_mb_s"]),
                _fmt(row["write_throughput_mb_s"]),
                _fmt(row["read_avg_io_rate_mb_s"]),
                _fmt(row["write_avg_io_rate_mb_s"]),
            ]
            for row in tables["dfsio_read_write"]
        ]
        out += [_table(headers, body)]
    failures = tables["validation"]
    if failures:
        out.append(f"\nValidation: {len(failures)} failed expectation(s) (results kept and marked)")
        out += [f"- {row['cell_key']}: {row['expectation']}: {row['details']}" for row in failures]
    else:
        out.append("\nValidation: all expectations passed")
    return "\n".join(out)


def render(tables: dict[str, Any], fmt: Format, study: str | None = None) -> str:
    if fmt == "json":
        payload = {
            "study": tables["study"],
            "campaign": tables["campaign"],
            "tables": {
                mart: [{k: _plain(v) for k, v in row.items()} for row in tables[mart]] for mart in MARTS
            },
        }
        return json.dumps(payload, indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        for mart in MARTS:
            rows = tables[mart]
            buffer.write(f"# {mart}\n")
            if rows:
                writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
                writer.writeheader()
                writer.writerows({k: _plain(v) for k, v in row.items()} for row in rows)
            buffer.write("\n")
        return buffer.getvalue()
    return render_table(tables)
