"""The text report's pieces: how a number, a size, a delta or a verdict reads, and the pipe table.

Shared by the generic sections, the blocks (`Block.lines`) and the studies' own sections, so a
number reads the same in every table of every report.
"""

from __future__ import annotations

from typing import Any


def number(value: Any) -> str:
    """A table's number: two decimals, `-` for none (public: study plugins print with it too)."""
    return "-" if value is None else f"{value:.2f}"


def gb_text(value: Any) -> str:
    """Published tables give GB with two decimals; below 1 GB keep three significant figures."""
    if value is None:
        return "-"
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"


def data_size(value: Any) -> str:
    """A data size as given (`0.012`, `240`), `-` for none."""
    return "-" if value is None else f"{value:g}"


def delta(value: Any, baseline: bool) -> str:
    """A signed % (`+41.67`); none reads `baseline` on the baseline's row, else `-`."""
    if value is None:
        return "baseline" if baseline else "-"
    return f"{value:+.2f}"


def verdict(row: dict[str, Any]) -> str:
    """`yes`, or `no: ` and why: σ% above the study's threshold, failed expectations, failed runs;
    a cell below its target's resolution otherwise fine says so instead of `yes`."""
    reasons = []
    if row["within_threshold"] is False:
        reasons.append("σ% above threshold")
    if not row["passed_validation"]:
        reasons.append("failed validation")
    if row["n_failed"]:
        reasons.append(f"{row['n_failed']} failed run(s)")
    if not row["n"]:
        reasons.append("no ok run")
    if reasons:
        return "no: " + ", ".join(reasons)
    if row.get("below_resolution"):  # its σ% was not judged (pipeline.noise_floor)
        return f"below resolution (mean < {row['resolution_s']:.3g} s): σ% not judged"
    return "yes"


def grid(headers: list[str], body: list[list[str]], text_columns: int = 0) -> str:
    """A pipe table, numbers right-aligned; the last `text_columns` columns are left-aligned text."""
    widths = [max([len(header), *(len(row[i]) for row in body)]) for i, header in enumerate(headers)]
    first_text = len(headers) - text_columns
    lines = [
        "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    for row in body:
        cells = [
            cell.ljust(width) if index >= first_text else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def warmup_note(cells: list[dict[str, Any]]) -> list[str]:
    """How many warm-up repetitions ran before the measured ones (in no figure above)."""
    counts = sorted({int(cell.get("n_warmup") or 0) for cell in cells} - {0})
    if not counts:
        return []
    per_cell = " or ".join(str(count) for count in counts)
    return [
        f"warm-ups: {per_cell} per cell, run first and left out of every figure (status warmup in the raw data)"
    ]


def left_align(headers: list[str], body: list[list[str]], columns: int) -> None:
    """Pad the first `columns` cells of every row to their column's width (text, not numbers)."""
    for column in range(columns):
        width = max(len(headers[column]), *(len(line[column]) for line in body))
        for line in body:
            line[column] = line[column].ljust(width)
