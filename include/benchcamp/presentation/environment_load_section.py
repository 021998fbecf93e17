"""The report's "Environment load" section, from the `environment_load` mart: for each pair of
environments a campaign ran on, each side's time window and the target's load during its
repetitions, and a flag when the sides ran under different load (docs/fair-comparisons.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from benchcamp.presentation.blocks import Block, Cell, Row, num

MART = "environment_load"
HEADERS = ("Environment", "Window (UTC)", "Repetitions", "With load", "Load before", "Load after", "Cores")


def _time(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if isinstance(value, datetime) else "–"


def _number(value: Any, digits: int = 2) -> str:
    return "–" if value is None or value != value else f"{value:.{digits}f}"


def load_verdict(row: dict[str, Any]) -> str:
    """Whether the pair's sides ran under the same load, by the mart's rule."""
    gap, limit = row.get("load_gap_per_core"), row.get("load_gap_limit_per_core")
    if gap is None or gap != gap:
        return "load not recorded on a side: the sides' load cannot be compared"
    if row.get("load_differs"):
        return (
            f"WARNING: the sides ran under different load (mean load before the repetitions differs by "
            f"{gap:.2f} per core, above {limit:.2f}); the comparison may reflect the load, not the environments"
        )
    return f"the sides ran under similar load ({gap:.2f} per core apart, at most {limit:.2f})"


def _side(row: dict[str, Any], prefix: str) -> Row:
    environment = str(row[f"{prefix}environment"])
    window = f"{_time(row[f'{prefix}first_started_at'])} – {_time(row[f'{prefix}last_finished_at'])}"
    return Row(
        key=(environment,),
        cells=(
            Cell(environment),
            Cell(window),
            num(str(row[f"{prefix}n_repetitions"]), row[f"{prefix}n_repetitions"]),
            num(str(row[f"{prefix}n_load"]), row[f"{prefix}n_load"]),
            num(_number(row[f"{prefix}load1_before_mean"]), row[f"{prefix}load1_before_mean"]),
            num(_number(row[f"{prefix}load1_after_mean"]), row[f"{prefix}load1_after_mean"]),
            num(_number(row["cores"], 0), row["cores"]),
        ),
    )


def environment_load_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """One block per pair of environments of the campaign."""
    out = []
    for row in rows:
        how = (
            "interleaved (ABBA turns)"
            if row.get("interleaved")
            else ("overlapping windows" if row.get("windows_overlap") else "one after the other")
        )
        out.append(
            Block(
                f"Environment load, {row['environment']} vs {row['other_environment']} ({how}): {load_verdict(row)}",
                headers=HEADERS,
                rows=(_side(row, ""), _side(row, "other_")),
                text_columns=2,
                lead_text_columns=2,
                notes=(
                    "Load before / after: the mean over the side's measured repetitions of the target's "
                    "1-minute load average read right before each timed step and right after it. Different "
                    "load: the means before differ by more than "
                    f"{_number(row.get('load_gap_limit_per_core'))} per core (docs/fair-comparisons.md).",
                ),
                kind="environment_load",
            )
        )
    return out
