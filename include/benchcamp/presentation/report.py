"""Campaign reports: the marts printed as the study prints them, or as CSV / JSON.

The concerns live apart: reading the marts (`presentation.marts`), the sections the text report,
the page and the HTML report share (`presentation.sections`) and how a number or a table reads
(`presentation.text`). This module renders them in a format and runs the DAG's report task; its
`__all__` also gives the names the CLI, the results page and the tests read a report by, so they
import one module.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from benchcamp.core.paths import default_warehouse
from benchcamp.pipeline import archive
from benchcamp.presentation.blocks import Block
from benchcamp.presentation.marts import (
    MARTS,
    ReportError,
    Tables,
    build_note,
    campaign_of,
    campaigns,
    default_campaign,
    environments_of,
    export_snapshot,
    few_runs_warning,
    fingerprints,
    for_environment,
    full_matrix_cells,
    latest_campaign,
    mark_complete,
    read_change_points,
    read_history,
    read_tables,
    readable,
    settings_line,
    snapshot_path,
    study_of,
)
from benchcamp.presentation.sections import (
    DIFFERENCE_NOTE,
    GAIN_NOTE,
    SCALING_THROUGHPUT,
    SIGN_CONVENTIONS,
    study_sections,
)

__all__ = [
    "DIFFERENCE_NOTE",
    "GAIN_NOTE",
    "SCALING_THROUGHPUT",
    "SIGN_CONVENTIONS",
    "Format",
    "ReportError",
    "Tables",
    "build_note",
    "campaign_of",
    "campaigns",
    "default_campaign",
    "environments_of",
    "export_snapshot",
    "few_runs_warning",
    "fingerprints",
    "for_environment",
    "full_matrix_cells",
    "latest_campaign",
    "mark_complete",
    "read_change_points",
    "read_history",
    "read_tables",
    "readable",
    "render",
    "render_csv",
    "render_json",
    "render_table",
    "run_report",
    "settings_line",
    "snapshot_path",
    "study_of",
    "study_sections",
]

Format = Literal["table", "csv", "json"]


def _plain(value: Any) -> Any:
    """JSON/CSV-safe scalars: ISO timestamps, NaN/inf as null."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


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
