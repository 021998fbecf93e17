"""The example_sleep study's presentation: its mart as a report section and a page section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchcamp.core.study import Mart, Study, Tables
from benchcamp.presentation.blocks import Block, Cell, Row, TableSection, num
from benchcamp.presentation.templating import TemplateSection
from benchcamp.presentation.text import number

MART = "example_sleep_overhead"


def overhead_blocks(tables: Tables) -> list[Block]:
    """Per environment, each sleep's mean step time and the overhead beyond the sleep."""
    rows = tables.get(MART, [])
    headers = ("Cell", "n", "Slept (s)", "Step (s)", "Overhead (s)")
    return [
        Block(
            f"Sleep overhead on {environment}",
            headers,
            tuple(
                Row(
                    (row["cell_key"],),
                    (
                        Cell(row["cell_key"]),
                        num(str(row["n"]), row["n"]),
                        num(number(row["slept_s"]), row["slept_s"]),
                        num(number(row["duration_s"]), row["duration_s"]),
                        num(number(row["overhead_s"]), row["overhead_s"]),
                    ),
                )  # fmt: skip
                for row in rows
                if row["environment"] == environment
            ),
            kind="example-sleep",
        )
        for environment in dict.fromkeys(row["environment"] for row in rows)
    ]


# The report section as data: the text report prints its lines, the page renders its rows.
overhead_section = TableSection(overhead_blocks)


def worst_cell(tables: Tables) -> dict[str, Any]:
    """The page section's data: the cell with the most overhead (None before any was measured)."""
    rows = [row for row in tables.get(MART, []) if row["overhead_s"] is not None]
    return {"worst": max(rows, key=lambda row: row["overhead_s"]) if rows else None}


# The page's one-line summary, a template fragment in the study's folder rendered with its data.
largest_overhead = TemplateSection(
    Path(__file__).with_name("templates") / "largest_overhead.html", worst_cell
)


STUDY = Study(
    "example_sleep",
    marts=(Mart(MART, "environment, cell_key"),),
    report_sections=(overhead_section,),
    page_sections=(largest_overhead,),
)
