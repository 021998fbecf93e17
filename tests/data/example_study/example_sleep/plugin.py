"""The example_sleep study's presentation: its mart as a report section and a page section."""

from __future__ import annotations

import html

from benchcamp.core.study import Mart, Study, Tables
from benchcamp.presentation.report import grid, number

MART = "example_sleep_overhead"


def overhead_section(tables: Tables) -> list[str]:
    """Per environment, each sleep's mean step time and the overhead beyond the sleep."""
    rows = tables.get(MART, [])
    out = []
    for environment in dict.fromkeys(row["environment"] for row in rows):
        body = [
            [row["cell_key"], str(row["n"]), number(row["slept_s"]), number(row["duration_s"]),
             number(row["overhead_s"])]
            for row in rows
            if row["environment"] == environment
        ]  # fmt: skip
        headers = ["Cell", "n", "Slept (s)", "Step (s)", "Overhead (s)"]
        out += ["", f"Sleep overhead on {environment}", grid(headers, body)]
    return out


def largest_overhead(tables: Tables) -> str:
    """The page's one-line summary: the cell with the most overhead."""
    rows = [row for row in tables.get(MART, []) if row["overhead_s"] is not None]
    if not rows:
        return "<p class='example-sleep'>No sleep measured yet.</p>"
    worst = max(rows, key=lambda row: row["overhead_s"])
    return (
        f"<p class='example-sleep'>Largest overhead: {html.escape(worst['cell_key'])}, "
        f"{number(worst['overhead_s'])} s</p>"
    )


STUDY = Study(
    "example_sleep",
    marts=(Mart(MART, "environment, cell_key"),),
    report_sections=(overhead_section,),
    page_sections=(largest_overhead,),
)
