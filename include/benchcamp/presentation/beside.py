"""One campaign's times beside another environment's for the same cells (`benchcamp report
--beside ENV`): a campaign on a cluster read next to the same cells on the lab, or on yesterday's
hardware, without merging them into one table whose statistics would mix two targets.

The other side is, per cell, the latest campaign that measured that cell on ENV (the `scaling`
mart's rows: mean and σ of the cell's valid repetitions); cells ENV never measured are listed
with a dash, never left out. The ratio is this campaign's mean over ENV's: above 1 is slower
here. The two sides' fingerprints (environment facts) are shown, since they differ by design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchcamp.presentation import report, text

CellKey = tuple[str, float, str]


def _key(row: dict[str, Any]) -> CellKey:
    return (str(row["workload"]), float(row["data_size_gb"]), str(row.get("series_params") or ""))


def _mean(row: dict[str, Any] | None) -> str:
    if row is None or row.get("mean_s") is None:
        return "-"
    spread = f" ± {text.number(row['stddev_s'])}" if row.get("stddev_s") is not None else ""
    return f"{text.number(row['mean_s'])}{spread} (n={row['n']})"


def latest_rows(warehouse: Path, study: str, environment: str, skip: str) -> dict[CellKey, dict[str, Any]]:
    """Per cell, the `scaling` row of the latest campaign (not `skip`) that measured it on
    `environment`."""
    found: dict[CellKey, dict[str, Any]] = {}
    for known in report.campaigns(warehouse, study):  # latest first
        if known["campaign"] == skip or environment not in str(known.get("environments") or "").split(","):
            continue
        tables = report.for_environment(report.read_tables(warehouse, study, known["campaign"]), environment)
        for row in tables.get("scaling", []):
            if row.get("n") and row.get("mean_s") is not None:
                found.setdefault(_key(row), row)
    return found


def render_beside(warehouse: Path, study: str, campaign: str, environment: str) -> str:
    """A table: each cell of `campaign` (every environment it ran on) beside `environment`'s."""
    ours = [row for row in report.read_tables(warehouse, study, campaign).get("scaling", []) if row.get("n")]
    if not ours:
        return f"{campaign}: no measured cell to set beside {environment}"
    theirs = latest_rows(warehouse, study, environment, skip=campaign)
    headers = [
        "workload",
        "settings",
        "environment",
        "size GiB",
        "mean s",
        f"{environment} mean s",
        "ratio",
        "campaign",
    ]
    body = []
    for row in sorted(ours, key=lambda each: (str(each["environment"]), _key(each))):
        other = theirs.get(_key(row))
        ratio = "-"
        if other is not None and other["mean_s"]:
            ratio = f"{float(row['mean_s']) / float(other['mean_s']):.2f}x"
        body.append([
            str(row["workload"]), str(row.get("series_params") or "").replace("|", " "), str(row["environment"]),
            f"{float(row['data_size_gb']):g}", _mean(row), _mean(other), ratio, str(other["campaign"]) if other else "-",
        ])  # fmt: skip
    title = f"{campaign} beside {environment} (per cell, its latest campaign there; ratio = here / there)"
    text.left_align(headers, body, 3)
    lines = [title, text.grid(headers, body, text_columns=1)]
    if not theirs:
        lines.append(f"no campaign of {study} on {environment} in {warehouse}: run it there first")
    prints = {str(row["environment"]): row.get("fingerprint") for row in ours}
    prints |= {environment: next(iter(theirs.values())).get("fingerprint")} if theirs else {}
    lines.append("fingerprints: " + ", ".join(f"{name} {value}" for name, value in sorted(prints.items())))
    return "\n".join(lines)
