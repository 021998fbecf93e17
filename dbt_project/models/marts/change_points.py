"""Change points over campaign history: per study, environment, hardware fingerprint, cell and
tracked metric, each significant shift in the campaign means, with the campaigns either side.

A dbt-duckdb Python model because the detection (e-divisive means, Welch's t-test adjusted for
the choice of the split and Otava's merge, Benjamini–Hochberg over the study) is Python and scipy:
`benchcamp.pipeline.change_points`, which documents the method. It reads int_history_series
(series never cross a hardware change) and the study's `history:` settings carried on each row
(better direction, regression_pct, alpha). A stable series gives no row.
"""

from typing import Any

import pandas as pd
from benchcamp.pipeline.change_points import study_change_points

SERIES_KEY = ["environment", "fingerprint", "hardware_epoch", "workload", "cell_key", "metric"]

COLUMNS = {
    "study": "varchar",
    "environment": "varchar",
    "fingerprint": "varchar",
    "hardware_epoch": "bigint",
    "workload": "varchar",
    "cell_key": "varchar",
    "metric": "varchar",
    "unit": "varchar",
    "better": "varchar",
    "first_campaign": "varchar",
    "campaign_before": "varchar",
    "campaign_before_at": "timestamptz",
    "campaign_after": "varchar",
    "campaign_after_at": "timestamptz",
    "last_campaign": "varchar",
    "campaigns_before": "bigint",
    "campaigns_after": "bigint",
    "mean_before": "double",
    "mean_after": "double",
    "change_pct": "double",
    "p_value": "double",
    "p_split": "double",
    "p_adjusted": "double",
    "direction": "varchar",
    "is_regression": "boolean",
    "regression_pct": "double",
    "alpha": "double",
}


def change_rows(series: pd.DataFrame) -> list[dict[str, Any]]:
    """The change points of every series in `series` (int_history_series' rows), one dict each."""
    rows: list[dict[str, Any]] = []
    for study, of_study in series.groupby("study", sort=True):
        settings = of_study.iloc[0]
        by_series = {
            key: group.sort_values("position")
            for key, group in of_study.groupby(SERIES_KEY, sort=True, dropna=False)
        }
        found = study_change_points(
            {key: group["mean"].tolist() for key, group in by_series.items()}, float(settings["alpha"])
        )
        for key, points in found.items():
            group = by_series[key]
            campaigns = group["campaign"].tolist()
            started = group["campaign_started_at"].tolist()
            first = group.iloc[0]
            for point in points:
                worse = (point.mean_after > point.mean_before) == (first["better"] == "lower")
                change = point.change_pct
                rows.append(
                    {
                        "study": study,
                        **dict(zip(SERIES_KEY, key, strict=True)),
                        "unit": first["unit"],
                        "better": first["better"],
                        "first_campaign": campaigns[point.start],
                        "campaign_before": campaigns[point.index - 1],
                        "campaign_before_at": started[point.index - 1],
                        "campaign_after": campaigns[point.index],
                        "campaign_after_at": started[point.index],
                        "last_campaign": campaigns[point.end - 1],
                        "campaigns_before": point.index - point.start,
                        "campaigns_after": point.end - point.index,
                        "mean_before": point.mean_before,
                        "mean_after": point.mean_after,
                        "change_pct": change,
                        "p_value": point.p_value,
                        "p_split": point.p_split,
                        "p_adjusted": point.p_adjusted,
                        "direction": "worse" if worse else "better",
                        "is_regression": bool(worse and abs(change) > float(first["regression_pct"])),
                        "regression_pct": float(first["regression_pct"]),
                        "alpha": float(first["alpha"]),
                    }
                )
    return rows


def model(dbt: Any, session: Any) -> Any:
    dbt.config(materialized="table")
    series: pd.DataFrame = dbt.ref("int_history_series").df()
    frame = pd.DataFrame(change_rows(series), columns=list(COLUMNS))
    # typed even when empty (no study tracks anything yet, or every series is stable)
    return session.from_df(frame).project(
        ", ".join(f"{name}::{kind} as {name}" for name, kind in COLUMNS.items())
    )
