"""The ycsb_hbase_cassandra study's extra expectation: no latency anomaly in an offered-load sweep.

Joins the campaign suite through the study's plugin (`core.study.CellCheck`); the suite runs it
on every campaign's cells, as it did when it lived in `pipeline.validation`.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from benchcamp.core.records import ResultRecord
from benchcamp.core.study import CellCheck

# Within an offered-load sweep (cells differing only in OFFERED_LOAD_AXIS): the achieved
# throughput and each operation type's average latency, as YCSB records them.
OFFERED_LOAD_AXIS = "target_ops"
THROUGHPUT_METRIC = "throughput_ops_s"
# The rate over the period the clients' histogram logs cover, without each client's start (which
# YCSB's throughput holds): a sweep whose every ok repetition has it is judged on it.
SERVED_METRIC = "served_throughput_ops_s"
AVG_LATENCY_SUFFIX = "_avg_latency_us"
NOISE_SIGMAS = 2.0
INTENDED_PREFIX = "intended_"


@dataclass(frozen=True)
class _LoadPoint:
    cell_key: str
    offered: float
    throughput: float
    throughput_sigma: float
    latency: float
    latency_sigma: float


def _mean_sigma(values: list[float]) -> tuple[float, float]:
    """Mean and sample σ; σ is 0 for one value (noise unknown: any change then counts)."""
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def latency_anomalies(records: list[ResultRecord]) -> dict[tuple[str, str, str], list[str]]:
    """Points of an offered-load sweep where average latency fell while throughput rose, beyond noise.

    A sweep is the cells of one environment and workload whose params differ only in
    OFFERED_LOAD_AXIS (so: one store and thread count), per operation type. Over the ok
    repetitions, point j is anomalous against point i when its achieved throughput is higher
    by more than NOISE_SIGMAS × √(σT_i² + σT_j²) and its average latency lower by more than
    NOISE_SIGMAS × √(σL_i² + σL_j²): past that margin the fall is not repetition noise, and
    latency falling as load rises contradicts queueing (the YCSB study's published caveat).
    Returns, per (environment, workload, cell_key) of each point j, one line per violation.
    Unthrottled sweeps (operationcount) are not checked: one closed-loop client thread's
    throughput is the inverse of its latency there, so a fall is warm-up, not an anomaly.
    The achieved throughput is the served rate (SERVED_METRIC) where every ok repetition of the
    sweep has one, else YCSB's own throughput for the whole sweep, never a mix of the two.
    """
    values: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    sweep_of: dict[tuple[str, str, str], tuple[str, str, str, float]] = {}
    for record in records:
        offered = record.params.get(OFFERED_LOAD_AXIS)
        if record.status != "ok" or not isinstance(offered, int | float) or isinstance(offered, bool):
            continue
        is_latency = record.metric.endswith(AVG_LATENCY_SUFFIX)
        op = record.metric.removesuffix(AVG_LATENCY_SUFFIX)
        # the study's caveat is about the latency from each call's actual start: the intended
        # latency (intended_<op>, under a target) also holds the client's lag behind its schedule
        if record.metric not in (THROUGHPUT_METRIC, SERVED_METRIC) and (
            not is_latency or op == "cleanup" or op.endswith("_failed") or op.startswith(INTENDED_PREFIX)
        ):
            continue
        cell = (record.environment, record.workload, record.cell_key)
        others = "|".join(f"{k}={v}" for k, v in sorted(record.params.items()) if k != OFFERED_LOAD_AXIS)
        sweep_of[cell] = (record.environment, record.workload, others, float(offered))
        values.setdefault(cell, {}).setdefault(record.metric, []).append(record.value)
    sweeps: dict[tuple[str, str, str, str], list[tuple[tuple[str, str, str], str]]] = {}
    for cell, metrics in values.items():
        if THROUGHPUT_METRIC not in metrics:
            continue
        environment, workload, others, _ = sweep_of[cell]
        for metric in metrics:
            if metric.endswith(AVG_LATENCY_SUFFIX):
                op = metric.removesuffix(AVG_LATENCY_SUFFIX)
                sweeps.setdefault((environment, workload, others, op), []).append((cell, metric))
    found: dict[tuple[str, str, str], list[str]] = {}
    for (environment, workload, _, op), members in sorted(sweeps.items()):
        served = all(
            len(values[cell].get(SERVED_METRIC, [])) == len(values[cell][THROUGHPUT_METRIC])
            for cell, _ in members
        )
        rate, unit = (SERVED_METRIC, "ops/s served") if served else (THROUGHPUT_METRIC, "ops/s")
        points = sorted(
            (
                _LoadPoint(
                    cell[2],
                    sweep_of[cell][3],
                    *_mean_sigma(values[cell][rate]),
                    *_mean_sigma(values[cell][metric]),
                )
                for cell, metric in members
            ),
            key=lambda point: point.throughput,
        )
        for j, high in enumerate(points):
            for low in points[:j]:
                rise = high.throughput - low.throughput
                fall = low.latency - high.latency
                if rise > NOISE_SIGMAS * math.hypot(low.throughput_sigma, high.throughput_sigma) and (
                    fall > NOISE_SIGMAS * math.hypot(low.latency_sigma, high.latency_sigma)
                ):
                    found.setdefault((environment, workload, high.cell_key), []).append(
                        f"{op} average latency fell from {low.latency:.1f} ± {low.latency_sigma:.1f} µs at "
                        f"{low.throughput:.1f} {unit} ({OFFERED_LOAD_AXIS}={low.offered:g}) to "
                        f"{high.latency:.1f} ± {high.latency_sigma:.1f} µs at {high.throughput:.1f} {unit} "
                        f"({OFFERED_LOAD_AXIS}={high.offered:g})"
                    )
    return found


LATENCY_ANOMALY = CellCheck(
    id="latency_anomaly",
    notes="within an offered-load sweep, average latency does not fall as achieved throughput rises "
    f"(each beyond {NOISE_SIGMAS:g} × the combined σ of the repetitions)",
    count_column="latency_anomalies",
    details_column="anomaly_list",
    find=latency_anomalies,
    # what an import hands `find`: the ok throughput and average latencies of cells with an offered load
    records_sql=f"""status = 'ok'
        and json_type(params, '$.{OFFERED_LOAD_AXIS}') in ('UBIGINT', 'BIGINT', 'DOUBLE')
        and (metric in ('{THROUGHPUT_METRIC}', '{SERVED_METRIC}') or ends_with(metric, '{AVG_LATENCY_SUFFIX}'))""",
)
