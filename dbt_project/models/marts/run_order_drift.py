"""Does a campaign's duration drift with the position in its run order? One row per campaign,
environment, workload and metric (duration_s).

The position is the actual one: the rank of each measured repetition's start (its records'
earliest started_at) among the target's measured repetitions of the campaign; the planned one
(stg_run_order) is compared with it in `followed_plan`: each repetition waits for the end of
those planned before it (dag_factory.wait_for_turn), but a campaign run before that, or a
repetition re-run by hand, can start out of order. Each value minus its cell's mean (the within-cell residual) is tested
against the position with Spearman's rank correlation, two-sided: its p-value exact for at most
8 repetitions (every one of the n! orderings: scipy.stats.pearsonr's permutation method on the ranks; Student's t
approximation, scipy.stats.spearmanr's, gives ρ = 1 at n = 4 a p of 0 where the exact one is
2/24 = 0.083), the t approximation above that (at n = 9 a perfect order is 2/9! ≈ 6e-6); the
least-squares slope (scipy.stats.linregress) gives the drift's size in seconds and in % of the
workload's mean per position. The p-values of a campaign's tests (its environments x workloads)
are corrected with Holm's step-down method (family-wise error rate 5 %); `drift` is an adjusted
p below 0.05. A workload needs 4 usable repetitions and 3 more than it has cells to be tested.
Only campaigns that recorded a run order have rows (every DAG campaign does, sequential by
default; an imported one, or one run before run orders existed, has none).

A dbt-duckdb Python model, as int_ycsb_stores_compared, because DuckDB has no rank-correlation
p-value. Python models have no dbt unit tests: tests/unit/test_run_order_drift.py checks the
statistics on constructed series (a linear drift found, none in stationary noise, Holm applied).
"""

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

ALPHA = 0.05
CORRECTION = "holm"
METRIC = "duration_s"
MIN_REPETITIONS = 4
MIN_RESIDUAL_DF = 3  # usable repetitions minus cells: what is left to see a drift within cells
EXACT_MAX_N = 8  # 8! = 40,320 orderings, tried at once (about 0.1 s); above, Student's t

KEYS = ["study", "campaign", "environment"]
COLUMNS = {
    "study": "varchar",
    "campaign": "varchar",
    "environment": "varchar",
    "workload": "varchar",
    "metric": "varchar",
    "run_order": "varchar",
    "seed": "bigint",
    "followed_plan": "boolean",
    "n": "integer",
    "n_cells": "integer",
    "first_position": "integer",
    "last_position": "integer",
    "mean_s": "double",
    "rho": "double",
    "p_value": "double",
    "slope_s_per_position": "double",
    "slope_pct_per_position": "double",
    "n_tests": "integer",
    "correction": "varchar",
    "p_adjusted": "double",
    "drift": "boolean",
}


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN stays NaN and is not counted as a test)."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    m = len(tested)
    if m == 0:
        return adjusted
    order = tested[np.argsort(p[tested], kind="stable")]
    steps = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted[order] = np.maximum.accumulate(steps)
    return adjusted


def drift_test(positions: np.ndarray, values: np.ndarray, cells: np.ndarray) -> dict[str, float | None]:
    """Spearman's rho and its p-value of the within-cell residuals against the positions, and the
    least-squares slope; rho, p and slope are None when too few repetitions are left after the
    cell means (fewer than 4, or fewer than 3 more than the cells)."""
    frame = pd.DataFrame({"position": positions, "value": values, "cell": cells})
    residuals = frame["value"] - frame.groupby("cell")["value"].transform("mean")
    n, n_cells = len(frame), frame["cell"].nunique()
    untested: dict[str, float | None] = {"rho": None, "p_value": None, "slope": None}
    if n < MIN_REPETITIONS or n - n_cells < MIN_RESIDUAL_DF or frame["position"].nunique() < 2:
        return untested
    slope = float(stats.linregress(frame["position"], residuals).slope)
    if np.allclose(residuals, 0.0):  # no spread within any cell: nothing drifts
        return {"rho": None, "p_value": 1.0, "slope": slope}
    rho, p_value = spearman(frame["position"].to_numpy(dtype=float), residuals.to_numpy(dtype=float))
    return {"rho": rho, "p_value": p_value, "slope": slope}


def spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Spearman's rho of x and y and its two-sided p-value: exact over every pairing up to
    EXACT_MAX_N values (rho is Pearson's r of the ranks, ties as average ranks: scipy's exact
    permutation test of r on them), Student's t approximation above."""
    if len(x) > EXACT_MAX_N:
        result = stats.spearmanr(x, y)
        return float(result.statistic), float(result.pvalue)
    exact = stats.pearsonr(
        stats.rankdata(x), stats.rankdata(y), method=stats.PermutationMethod(n_resamples=np.inf)
    )
    return float(exact.statistic), float(exact.pvalue)


def _followed_plan(group: pd.DataFrame) -> bool | None:
    """Whether the measured repetitions started in their planned order (None: no plan recorded)."""
    planned = group.dropna(subset=["planned_position"]).drop_duplicates(["cell_key", "repetition"])
    if planned.empty:
        return None
    by_plan = planned.sort_values("planned_position")["actual_position"].to_numpy()
    return bool(np.all(np.diff(by_plan) > 0))


def drift_rows(results: pd.DataFrame, run_order: pd.DataFrame) -> pd.DataFrame:
    """The mart's rows from stg_results' and stg_run_order's columns (see the module's docstring)."""
    measured = results[~results["is_warmup"].astype(bool) & results["started_at"].notna()]
    starts = measured.groupby([*KEYS, "cell_key", "repetition"], as_index=False)["started_at"].min()
    starts = starts.sort_values([*KEYS, "started_at", "cell_key", "repetition"])
    starts["actual_position"] = starts.groupby(KEYS).cumcount() + 1
    usable = results[results["is_usable"].astype(bool) & ~results["is_warmup"].astype(bool)]
    usable = usable[usable["metric"] == METRIC].merge(
        starts.drop(columns="started_at"), on=[*KEYS, "cell_key", "repetition"]
    )
    planned = starts.merge(
        run_order[[*KEYS, "cell_key", "repetition", "planned_position", "run_order", "seed"]],
        on=[*KEYS, "cell_key", "repetition"],
        how="left",
    )
    # Only campaigns that recorded a run order get rows: the others (an import of thousands of
    # campaigns records none) are left out before grouping, not one pandas group at a time.
    recorded = planned["run_order"].notna().groupby([planned[key] for key in KEYS]).transform("any")
    planned = planned[recorded.astype(bool)]
    plans = {
        key: (
            group["run_order"].dropna().iloc[0],
            group["seed"].dropna().iloc[0] if group["seed"].notna().any() else None,
            _followed_plan(group),
        )
        for key, group in planned.groupby(KEYS)
    }
    usable = usable[pd.MultiIndex.from_frame(usable[KEYS]).isin(list(plans))]
    rows = []
    for (study, campaign, environment, workload), group in usable.groupby([*KEYS, "workload"]):
        test = drift_test(
            group["actual_position"].to_numpy(),
            group["value"].to_numpy(dtype=float),
            group["cell_key"].to_numpy(),
        )
        mean = float(group["value"].mean())
        order, seed, followed = plans[(study, campaign, environment)]
        rows.append({
            "study": study, "campaign": campaign, "environment": environment, "workload": workload,
            "metric": METRIC, "run_order": order, "seed": seed, "followed_plan": followed,
            "n": len(group), "n_cells": group["cell_key"].nunique(),
            "first_position": int(group["actual_position"].min()),
            "last_position": int(group["actual_position"].max()),
            "mean_s": mean, "rho": test["rho"], "p_value": test["p_value"],
            "slope_s_per_position": test["slope"],
            "slope_pct_per_position": None if test["slope"] is None or mean == 0 else 100 * test["slope"] / mean,
        })  # fmt: skip
    frame = pd.DataFrame(rows, columns=[name for name in COLUMNS if name not in ("n_tests", "correction")])
    frame["p_value"] = frame["p_value"].astype(float)
    frame["p_adjusted"] = np.nan
    frame["n_tests"] = 0
    for _campaign, group in frame.groupby(["study", "campaign"]):
        frame.loc[group.index, "p_adjusted"] = holm(group["p_value"].to_numpy(dtype=float))
        frame.loc[group.index, "n_tests"] = int(group["p_value"].notna().sum())
    frame["correction"] = CORRECTION
    frame["drift"] = frame["p_adjusted"].astype(float) < ALPHA
    return frame[list(COLUMNS)]


def model(dbt: Any, session: Any) -> Any:
    dbt.config(materialized="table")
    run_orders = dbt.ref("stg_run_order")
    # only the targets of campaigns that recorded a run order get rows: read their results alone
    # (whole study/campaign/environment groups, so the positions within them are unchanged),
    # not every imported record into pandas (a million-record import recorded none)
    recorded = run_orders.filter("run_order is not null").project(", ".join(KEYS)).distinct()
    results: pd.DataFrame = dbt.ref("stg_results").join(recorded, ", ".join(KEYS), how="semi").df()
    run_order: pd.DataFrame = run_orders.df()
    frame = drift_rows(results, run_order)
    # back from pandas with fixed column types (an empty frame would lose them); NaN reads as NULL
    typed = ", ".join(f"{name}::{dtype} as {name}" for name, dtype in COLUMNS.items())
    return session.from_df(frame).project(typed)
