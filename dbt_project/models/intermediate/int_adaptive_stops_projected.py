"""Each adaptive stop (stg_adaptive_stops) with the repetitions its target would need at the noise
measured: the smallest n whose 95 % t interval, t(0.975, n − 1) · σ / √n, is within target_ci_pct
of the mean (benchcamp.pipeline.power.repetitions_for_precision), taking the measured σ as the
cell's own. A cell that stopped at max_repetitions short of its target shows how far the cap was
from enough; NULL without a σ (fewer than two ok repetitions) or a mean of 0.

A Python model because the t quantile is scipy's (DuckDB has none); repetition_adequacy reads it.
"""

from typing import Any

import numpy as np
import pandas as pd
from benchcamp.pipeline.power import repetitions_for_precision


def needed(mean: float, stddev: float, target_pct: float, confidence: float) -> float:
    """repetitions_for_precision for one row, NaN (NULL) when it has none."""
    if any(pd.isna(value) for value in (mean, stddev, target_pct, confidence)):
        return np.nan
    found = repetitions_for_precision(float(mean), float(stddev), float(target_pct), float(confidence))
    return np.nan if found is None else float(found)


def model(dbt: Any, session: Any) -> Any:
    dbt.config(materialized="table")
    stops = dbt.ref("stg_adaptive_stops")
    frame: pd.DataFrame = stops.df()
    frame["repetitions_for_target"] = [
        needed(row.mean, row.stddev, row.target_ci_pct, row.confidence) for row in frame.itertuples()
    ]
    # back with the stops' own column types (an empty frame would lose them); NaN is read as NULL
    typed = [f"{name}::{dtype} as {name}" for name, dtype in zip(stops.columns, stops.types, strict=True)]
    return session.from_df(frame).project(
        ", ".join([*typed, "repetitions_for_target::integer as repetitions_for_target"])
    )
