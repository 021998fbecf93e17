"""HBase against Cassandra: per workload, operation type and test condition (pair_params, the
cells' axes other than store), both stores' figures side by side, each with the two-sided
p-value of Welch's unequal-variance t-test across the usable repetitions.

A dbt-duckdb Python model because the p-value needs the t distribution, which DuckDB lacks:
scipy computes it from int_ycsb_ops_summarised's per-cell mean, sample σ and n
(`scipy.stats.ttest_ind_from_stats`, Welch–Satterthwaite degrees of freedom), the same
statistics every other figure uses. Welch rather than Mann–Whitney U: with three repetitions a
side the smallest two-sided exact U p-value is 2/20 = 0.1, so U could never reach α = 0.05.
The marts (ycsb_comparison) read the p-values; tests/studies/ycsb_hbase_cassandra/test_ycsb_marts.py checks them
against t tables.

Where a figure's test is not significant (p ≥ 0.05), <figure>_repetitions_to_decide is the
repetitions per store at which Welch's two-sided test at α = 0.05 would find the observed
difference with power 0.8 at both stores' measured σ (benchcamp.pipeline.power: the noncentral t
on Welch–Satterthwaite degrees of freedom): NULL when decided, untested, or with no difference.

"No significant difference" is not "the same": throughput_equivalence_p_value is the p-value of
two one-sided Welch tests (TOST; Schuirmann 1987) that HBase's mean throughput lies within
±EQUIVALENCE_MARGIN_PCT % of Cassandra's, H0: |μ_HBase − μ_Cassandra| ≥ δ with δ that % of
Cassandra's mean: the larger of the two one-sided p-values (`equivalence_p_values`). Below α the
stores' throughputs are equivalent within the margin: a verdict an undecided difference test
cannot give. NULL where the difference test is NULL.
"""

from typing import Any

import numpy as np
import pandas as pd
from benchcamp.pipeline.power import ALPHA, repetitions_two_sided
from scipy import stats

# The HBase–Cassandra pairs: one row per pair of cells with equal pair_params and op type.
PAIRS_SQL = """
select
    h.study,
    h.campaign,
    h.environment,
    h.workload,
    h.op_type,
    h.pair_params,
    h.operationcount,
    h.target_ops,
    h.threads,
    h.throughput_n as hbase_n,
    c.throughput_n as cassandra_n,
    h.throughput_ops_s as hbase_throughput_ops_s,
    h.throughput_stddev as hbase_throughput_stddev,
    c.throughput_ops_s as cassandra_throughput_ops_s,
    c.throughput_stddev as cassandra_throughput_stddev,
    h.served_n as hbase_served_n,
    c.served_n as cassandra_served_n,
    h.served_throughput_ops_s as hbase_served_throughput_ops_s,
    h.served_throughput_stddev as hbase_served_throughput_stddev,
    c.served_throughput_ops_s as cassandra_served_throughput_ops_s,
    c.served_throughput_stddev as cassandra_served_throughput_stddev,
    h.latency_n as hbase_latency_n,
    c.latency_n as cassandra_latency_n,
    h.avg_latency_us as hbase_avg_latency_us,
    h.avg_latency_stddev_us as hbase_avg_latency_stddev_us,
    c.avg_latency_us as cassandra_avg_latency_us,
    c.avg_latency_stddev_us as cassandra_avg_latency_stddev_us,
    h.p95_latency_us as hbase_p95_latency_us,
    h.p95_latency_stddev_us as hbase_p95_latency_stddev_us,
    c.p95_latency_us as cassandra_p95_latency_us,
    c.p95_latency_stddev_us as cassandra_p95_latency_stddev_us,
    h.p99_latency_us as hbase_p99_latency_us,
    h.p99_latency_stddev_us as hbase_p99_latency_stddev_us,
    c.p99_latency_us as cassandra_p99_latency_us,
    c.p99_latency_stddev_us as cassandra_p99_latency_stddev_us,
    h.passed_validation and c.passed_validation as passed_validation
from ops as h
inner join ops as c
    on h.study = c.study
    and h.campaign = c.campaign
    and h.environment = c.environment
    and h.workload = c.workload
    and h.pair_params = c.pair_params
    and h.op_type = c.op_type
where h.op_type is not null and h.store = 'hbase' and c.store = 'cassandra'
"""

# p-value column: the figure's mean column, its σ column and its n column, after the store prefix
FIGURES = {
    "throughput_p_value": ("throughput_ops_s", "throughput_stddev", "n"),
    # the rate over the period the clients' histogram logs cover: without each store client's
    # start (its connection), which YCSB's throughput holds and which differs between the stores
    "served_throughput_p_value": ("served_throughput_ops_s", "served_throughput_stddev", "served_n"),
    "avg_latency_p_value": ("avg_latency_us", "avg_latency_stddev_us", "latency_n"),
    "p95_latency_p_value": ("p95_latency_us", "p95_latency_stddev_us", "latency_n"),
    "p99_latency_p_value": ("p99_latency_us", "p99_latency_stddev_us", "latency_n"),
}


EQUIVALENCE_MARGIN_PCT = 10.0  # "the same throughput": within ±10 % of Cassandra's mean


def equivalence_p_values(
    mean_a: np.ndarray, stddev_a: np.ndarray, n_a: np.ndarray,
    mean_b: np.ndarray, stddev_b: np.ndarray, n_b: np.ndarray,
    margin_pct: float = EQUIVALENCE_MARGIN_PCT,
) -> np.ndarray:  # fmt: skip
    """TOST p-values, element-wise: max of Welch's one-sided p for μ_a − μ_b > −δ and for
    μ_a − μ_b < δ, δ = margin_pct % of mean_b; NaN where Welch's test is untestable. Without
    spread on either side the difference is known exactly: p 0 inside the margin, 1 outside."""
    delta = np.abs(mean_b) * margin_pct / 100
    with np.errstate(divide="ignore", invalid="ignore"):
        _, above = stats.ttest_ind_from_stats(
            mean_a, stddev_a, n_a, mean_b - delta, stddev_b, n_b, equal_var=False, alternative="greater"
        )
        _, below = stats.ttest_ind_from_stats(
            mean_a, stddev_a, n_a, mean_b + delta, stddev_b, n_b, equal_var=False, alternative="less"
        )
        p = np.maximum(above, below)
        exact = np.where(np.abs(mean_a - mean_b) < delta, 0.0, 1.0)
        p = np.where(stddev_a**2 / n_a + stddev_b**2 / n_b == 0, exact, p)
    testable = (n_a >= 2) & (n_b >= 2) & ~np.isnan(mean_a + stddev_a + mean_b + stddev_b)
    return np.where(testable, p, np.nan)


def decided_at(p_value: str) -> str:
    """The repetitions column beside a p-value column: throughput_p_value → throughput_repetitions_to_decide."""
    return p_value.removesuffix("p_value") + "repetitions_to_decide"


def welch_p_values(
    mean_a: np.ndarray, stddev_a: np.ndarray, n_a: np.ndarray,
    mean_b: np.ndarray, stddev_b: np.ndarray, n_b: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Two-sided Welch p-values, element-wise; NaN (NULL) without a mean or σ or with n < 2 a side.

    Without spread on either side scipy has no t (0 / 0): a difference is then certain
    (p = 0) and no difference is none (p = 1).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        _, p = stats.ttest_ind_from_stats(mean_a, stddev_a, n_a, mean_b, stddev_b, n_b, equal_var=False)
        p = np.where(stddev_a**2 / n_a + stddev_b**2 / n_b == 0, np.where(mean_a == mean_b, 1.0, 0.0), p)
    testable = (n_a >= 2) & (n_b >= 2) & ~np.isnan(mean_a + stddev_a + mean_b + stddev_b)
    return np.where(testable, p, np.nan)


def repetitions_to_decide(
    p_value: np.ndarray, mean_a: np.ndarray, stddev_a: np.ndarray, mean_b: np.ndarray, stddev_b: np.ndarray
) -> list[float]:
    """Per row, the repetitions per store that would decide an undecided test (p ≥ α) at the
    observed difference and measured σ's; NaN (NULL) where decided, untested or not computable."""
    out = []
    for p, a, sa, b, sb in zip(p_value, mean_a, stddev_a, mean_b, stddev_b, strict=True):
        needed = None
        if np.isfinite(p) and p >= ALPHA:
            needed = repetitions_two_sided(float(a - b), [float(sa) ** 2, float(sb) ** 2])
        out.append(np.nan if needed is None else float(needed))
    return out


def model(dbt: Any, session: Any) -> Any:
    dbt.config(materialized="table")
    pairs = dbt.ref("int_ycsb_ops_summarised").query("ops", PAIRS_SQL)
    frame: pd.DataFrame = pairs.df()

    def column(name: str) -> np.ndarray:
        return frame[name].to_numpy(dtype=float, na_value=np.nan)

    for p_value, (mean, stddev, n) in FIGURES.items():
        frame[p_value] = welch_p_values(
            column(f"hbase_{mean}"), column(f"hbase_{stddev}"), column(f"hbase_{n}"),
            column(f"cassandra_{mean}"), column(f"cassandra_{stddev}"), column(f"cassandra_{n}"),
        )  # fmt: skip
        frame[decided_at(p_value)] = repetitions_to_decide(
            frame[p_value].to_numpy(dtype=float, na_value=np.nan),
            column(f"hbase_{mean}"), column(f"hbase_{stddev}"),
            column(f"cassandra_{mean}"), column(f"cassandra_{stddev}"),
        )  # fmt: skip
    frame["throughput_equivalence_p_value"] = equivalence_p_values(
        column("hbase_throughput_ops_s"), column("hbase_throughput_stddev"), column("hbase_n"),
        column("cassandra_throughput_ops_s"), column("cassandra_throughput_stddev"), column("cassandra_n"),
    )  # fmt: skip
    # back from pandas with the pairs' own column types (an empty frame would lose them: a
    # study without YCSB cells still gets typed, empty tables); NaN is read as NULL
    typed = [f"{name}::{dtype} as {name}" for name, dtype in zip(pairs.columns, pairs.types, strict=True)]
    added = [f"{p}::double as {p}" for p in FIGURES]
    added += [f"{decided_at(p)}::integer as {decided_at(p)}" for p in FIGURES]
    added += ["throughput_equivalence_p_value::double as throughput_equivalence_p_value"]
    return session.from_df(frame).project(", ".join(typed + added))
