"""Each history series' change-point analysis, kept between builds so a new campaign only
re-examines its window (issue 28): one row per (study, environment, hardware_epoch, cell_key,
metric) of int_history_series with Apache Otava's result (`benchcamp.pipeline.change_points`).

Incremental (delete+insert on the series key): a build re-analyses only the series whose
campaigns changed. A series that grew, with its earlier campaigns and the study's settings as
they were (`series_hash` of the campaigns analysed then), resumes from its kept weak change
points (Otava's incremental split: about the last four windows); any other change (a campaign
inserted or re-measured, new settings) analyses it afresh. `dbt build --full-refresh` starts over.
"""

import hashlib
import json
from typing import Any

import pandas as pd
from benchcamp.pipeline.change_points import Analysis, ChangePoint, Settings, analyse

SERIES_KEY = ["study", "environment", "hardware_epoch", "cell_key", "metric"]

# what a change point row says of its series besides the numbers: a change in any of them (a new
# regression_pct, say) analyses the series afresh, as its hash covers them
CONTEXT = ["fingerprint", "workload", "unit", "better", "regression_pct"]

COLUMNS = {
    "study": "varchar",
    "environment": "varchar",
    "hardware_epoch": "bigint",
    "cell_key": "varchar",
    "metric": "varchar",
    "fingerprint": "varchar",
    "workload": "varchar",
    "unit": "varchar",
    "better": "varchar",
    "regression_pct": "double",
    "campaigns": "bigint",
    "series_hash": "varchar",
    "min_magnitude_pct": "double",
    "max_pvalue": "double",
    "window_campaigns": "bigint",
    "resumed_from": "bigint",
    "weak_json": "varchar",
    "points_json": "varchar",
    "note": "varchar",
}


def series_hash(context: list[Any], campaigns: list[str], started: list[Any], means: list[float]) -> str:
    """What the analysis saw: the series' context, then the campaigns in order, when they
    started and their means, exactly."""
    digest = hashlib.sha256(repr(context).encode())
    for campaign, at, mean in zip(campaigns, started, means, strict=True):
        digest.update(f"{campaign}\x1f{at}\x1f{float(mean).hex()}\x1e".encode())
    return digest.hexdigest()


def earlier(row: Any) -> Analysis:
    """A kept row back as the Analysis it recorded (its change points only matter as weak ones)."""
    settings = Settings(
        min_magnitude_pct=float(row.min_magnitude_pct),
        max_pvalue=float(row.max_pvalue),
        window=int(row.window_campaigns),
    )
    return Analysis((), tuple(json.loads(row.weak_json)), int(row.campaigns), str(row.note or ""), settings)


def point_json(point: ChangePoint, campaigns: list[str], started: list[Any]) -> dict[str, Any]:
    """A change point with the campaigns either side (so the mart joins nothing)."""
    return {
        "at_index": point.index,
        "seg_start": point.start,
        "seg_end": point.end,
        "first_campaign": campaigns[point.start],
        "campaign_before": campaigns[point.index - 1],
        "campaign_before_at": None if pd.isna(started[point.index - 1]) else str(started[point.index - 1]),
        "campaign_after": campaigns[point.index],
        "campaign_after_at": None if pd.isna(started[point.index]) else str(started[point.index]),
        "last_campaign": campaigns[point.end - 1],
        "mean_before": point.mean_before,
        "mean_after": point.mean_after,
        "stddev_before": point.stddev_before,
        "stddev_after": point.stddev_after,
        "p_value": point.p_value,
    }


def analysed_rows(series: pd.DataFrame, kept: pd.DataFrame | None) -> list[dict[str, Any]]:
    """The rows of the series that changed since `kept` (this model's rows), analysed."""
    before = (
        {} if kept is None else {tuple(row[:5]): row for row in kept.itertuples(index=False)}
    )  # SERIES_KEY
    rows: list[dict[str, Any]] = []
    for key, group in series.sort_values("position").groupby(SERIES_KEY, sort=True, dropna=False):
        campaigns, means = group["campaign"].tolist(), group["mean"].astype(float).tolist()
        started = group["campaign_started_at"].tolist()
        first = group.iloc[0]
        context = [
            None if pd.isna(first[name]) else getattr(first[name], "item", lambda v=first[name]: v)()
            for name in CONTEXT
        ]
        settings = Settings(
            min_magnitude_pct=float(first["min_magnitude_pct"]),
            max_pvalue=float(first["max_pvalue"]),
            window=int(first["window_campaigns"]),
        )
        digest = series_hash(context, campaigns, started, means)
        previous = before.get(tuple(key))
        if previous is not None and previous.series_hash == digest and earlier(previous).settings == settings:
            continue  # nothing new: the kept row stays
        resume = None
        if previous is not None and int(previous.campaigns) < len(campaigns):
            grown_from = int(previous.campaigns)
            prefix = series_hash(context, campaigns[:grown_from], started[:grown_from], means[:grown_from])
            if prefix == previous.series_hash:
                resume = earlier(previous)
        result = analyse(means, settings, resume)
        rows.append(
            {
                **dict(zip(SERIES_KEY, key, strict=True)),
                **dict(zip(CONTEXT, context, strict=True)),
                "campaigns": len(campaigns),
                "series_hash": digest,
                "min_magnitude_pct": settings.min_magnitude_pct,
                "max_pvalue": settings.max_pvalue,
                "window_campaigns": settings.window,
                "resumed_from": resume.campaigns if resume is not None and resume.settings == settings else 0,
                "weak_json": json.dumps(list(result.weak)),
                "points_json": json.dumps([point_json(point, campaigns, started) for point in result.points]),
                "note": result.note,
            }
        )
    return rows


def model(dbt: Any, session: Any) -> Any:
    dbt.config(
        materialized="incremental",
        incremental_strategy="delete+insert",
        unique_key=["study", "environment", "hardware_epoch", "cell_key", "metric"],  # SERIES_KEY
    )
    series: pd.DataFrame = dbt.ref("int_history_series").df()
    kept = session.sql(f"select * from {dbt.this}").df() if dbt.is_incremental else None
    frame = pd.DataFrame(analysed_rows(series, kept), columns=list(COLUMNS))
    return session.from_df(frame).project(
        ", ".join(f"{name}::{kind} as {name}" for name, kind in COLUMNS.items())
    )
