"""ycsb_hbase_cassandra's shared test data: constructed and recorded records (the marts' and the
study contract's), and the offered-load sweeps its validation and its marts read."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchcamp.core.records import ResultRecord, cell_key
from benchcamp.core.spec import load_spec
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ArchivedStep, RunContext

STUDY = "ycsb_hbase_cassandra"
CAMPAIGN = "golden"
DATA = Path(__file__).resolve().parents[1] / "data" / "ycsb" / "basicdb"
SIGMA = 30.0
SHIFT = math.sqrt(2 / 3) * SIGMA  # m_H − m_C = t × SHIFT gives Welch's t
# two-sided Student t quantiles at 4 degrees of freedom (any t table)
T_P01, T_P05, T_P10 = 4.604095, 2.776445, 2.131847


def records() -> list[ResultRecord]:
    out: list[ResultRecord] = []

    def add(
        store: str, params: dict[str, Any], rep: int, figures: dict[str, float], status: str = "ok"
    ) -> None:
        for metric, value in {"duration_s": 4.0, "operations_requested": 1000.0, **figures}.items():
            out.append(
                ResultRecord(
                    study=STUDY,
                    campaign=CAMPAIGN,
                    environment="local_lab",
                    workload="ycsb_a",
                    params={"store": store, **params},
                    repetition=rep,
                    metric=metric,
                    value=value,
                    unit="",
                    status=status,  # type: ignore[arg-type]
                )
            )

    counted = {"operationcount": 1000, "threads": 1}
    for rep, offset in enumerate((-SIGMA, 0.0, SIGMA), start=1):
        # throughput: HBase higher at p = 0.01; read latency: no difference at p = 0.10;
        # update latency: Cassandra's higher, t on the table's p = 0.05 line
        # served rate (without the clients' start): both stores equal, twice YCSB's Cassandra figure
        add("cassandra", counted, rep, {
            "throughput_ops_s": 1000 + offset, "served_throughput_ops_s": 2000 + 2 * offset,
            "read_operations": 500, "read_avg_latency_us": 900 + offset,
            "read_p95_latency_us": 2000 + offset, "read_p99_latency_us": 4000 + offset,
            "update_operations": 500, "update_avg_latency_us": 1500 + offset,
            "cleanup_avg_latency_us": 7.0, "error_returns": 0,
        })  # fmt: skip
        add("hbase", counted, rep, {
            "throughput_ops_s": 1000 + T_P01 * SHIFT + offset, "served_throughput_ops_s": 2000 + 2 * offset,
            "read_operations": 500,
            "read_avg_latency_us": 900 + T_P10 * SHIFT + offset,
            "read_p95_latency_us": 1000 + offset, "read_p99_latency_us": 4000 + offset,
            "update_operations": 500, "update_avg_latency_us": 1500 - T_P05 * SHIFT + offset,
            "error_returns": 0,
        })  # fmt: skip
    add("hbase", counted, 4, {"throughput_ops_s": 10.0, "error_returns": 3}, status="failed")
    for target, achieved, latency in ((250, 250.0, 400.0), (500, 499.0, 420.0), (2000, 1300.0, 2500.0)):
        for rep, offset in enumerate((-1.0, 0.0, 1.0), start=1):
            add("hbase", {"target_ops": target, "threads": 16}, rep, {
                "throughput_ops_s": achieved + offset, "read_operations": 500,
                "read_avg_latency_us": latency + 10 * offset, "read_p95_latency_us": 2 * latency,
                "read_p99_latency_us": 3 * latency, "error_returns": 0,
            })  # fmt: skip
    return out


def parsed_recording() -> list[ResultRecord]:
    """The recorded workload F run, parsed as the execute step would: one repetition."""
    spec = load_spec(STUDY)
    params = {"store": "cassandra", "operationcount": 1000, "threads": 1}
    ctx = RunContext(spec, spec.environment("local_lab"), CAMPAIGN, "ycsb_f", params, 1, "tiny")  # type: ignore[arg-type]
    now = datetime(2026, 11, 23, tzinfo=UTC)
    load = {
        "load.stdout.log": DATA / "load_f" / "stdout.log",
        "load.ycsb.json": DATA / "load_f" / "ycsb.json",
    }
    # the step's own timing (its duration_s): a 0 s duration would fail duration_positive and be
    # counted as not usable (n 0), as any ok record failing a record-level expectation is
    finished = now + timedelta(seconds=1.5)
    step = ArchivedStep(
        directory=DATA / "run_f", exit_code=0, started_at=now, finished_at=finished, files=load
    )
    return get_workload("ycsb_f").parse(ctx, step)


def parsed_two_clients() -> list[ResultRecord]:
    """The recorded lab step of two clients at 250 ops/s each on Cassandra, parsed as the execute
    step would: one repetition (no HBase partner: the comparison's rows stay the constructed ones)."""
    spec = load_spec(STUDY)
    now = datetime(2026, 11, 27, 23, 17, tzinfo=UTC)
    out: list[ResultRecord] = []
    for store in ("cassandra",):
        params = {"store": store, "clients": 2, "target_ops": 500, "threads": 8}
        ctx = RunContext(spec, spec.environment("local_lab"), CAMPAIGN, "ycsb_a", params, 1, "tiny")  # type: ignore[arg-type]
        directory = DATA.parent / "pipeline" / f"{store}_a_two_clients"
        step = ArchivedStep(directory, 0, now, now + timedelta(seconds=12), {})
        out += get_workload("ycsb_a").parse(ctx, step)
    return out


# The lab's recorded execute steps of both stores (tests/data/ycsb/pipeline/README.md): one
# repetition of each cell, from campaigns makerun1 (2026-11-23) and rec_clients (2026-11-27).
RECORDED_STEPS = {
    "hbase_a": ("ycsb_a", {"store": "hbase", "operationcount": 1000, "threads": 1}),
    "cassandra_a": ("ycsb_a", {"store": "cassandra", "operationcount": 1000, "threads": 1}),
    "hbase_c_target1000": ("ycsb_c", {"store": "hbase", "target_ops": 1000, "threads": 16}),
    "cassandra_c_target1000": ("ycsb_c", {"store": "cassandra", "target_ops": 1000, "threads": 16}),
    "hbase_a_two_clients": ("ycsb_a", {"store": "hbase", "clients": 2, "target_ops": 500, "threads": 8}),
    "cassandra_a_two_clients": (
        "ycsb_a",
        {"store": "cassandra", "clients": 2, "target_ops": 500, "threads": 8},
    ),
}


def recorded_steps(campaign: str = "recorded_steps") -> list[ResultRecord]:
    """Every recorded pipeline step of both stores, parsed as the execute step would (its own
    meta.json timing), as one campaign: one repetition a cell, both stores in three conditions."""
    import json

    spec = load_spec(STUDY)
    out: list[ResultRecord] = []
    for name, (workload, params) in RECORDED_STEPS.items():
        directory = DATA.parent / "pipeline" / name
        meta = json.loads((directory / "meta.json").read_text())
        ctx = RunContext(spec, spec.environment("local_lab"), campaign, workload, params, 1, "tiny")  # type: ignore[arg-type]
        started, finished = (datetime.fromisoformat(meta[key]) for key in ("started_at", "finished_at"))
        out += get_workload(workload).parse(ctx, ArchivedStep(directory, 0, started, finished, {}))
    return out


def run(
    params: dict[str, object],
    repetition: int,
    throughput: float,
    latency: float,
    duration: float = 5.0,
    errors: float = 0,
    workload: str = "ycsb_a",
) -> list[ResultRecord]:
    """One repetition's records as the YCSB parser writes them (a failed run when it had errors)."""
    status = "failed" if errors else "ok"

    def rec(metric: str, value: float, unit: str) -> ResultRecord:
        return ResultRecord(
            study=STUDY,
            campaign="c",
            environment="local_lab",
            workload=workload,
            params=params,  # type: ignore[arg-type]
            repetition=repetition,
            metric=metric,
            value=value,
            unit=unit,
            status=status,
        )

    return [
        rec("duration_s", duration, "s"),
        rec("throughput_ops_s", throughput, "ops/s"),
        rec("read_avg_latency_us", latency, "us"),
        rec("cleanup_avg_latency_us", 5000.0 / throughput, "us"),  # not an operation of the mix
        rec("error_returns", errors, "operations"),
    ]


def sweep(points: list[tuple[int, list[float], list[float]]], store: str = "hbase") -> list[ResultRecord]:
    """An offered-load sweep: (target_ops, throughputs per repetition, read latencies per repetition)."""
    records = []
    for target, throughputs, latencies in points:
        params = {"store": store, "target_ops": target, "threads": 16}
        for repetition, (throughput, latency) in enumerate(zip(throughputs, latencies, strict=True), start=1):
            records += run(params, repetition, throughput, latency)
    return records


def expected(records: list[ResultRecord]) -> list[tuple[str, str, str, int]]:
    cells = {(r.environment, r.workload, r.cell_key) for r in records}
    return [(*cell, 3) for cell in sorted(cells)]


def key(store: str, target: int) -> str:
    return cell_key("ycsb_a", {"store": store, "target_ops": target, "threads": 16})


# What the study published: latency *falling* as the achieved throughput rises.
PUBLISHED_ANOMALY = [
    (250, [249.0, 250.0, 251.0], [905.0, 900.0, 895.0]),
    (500, [498.0, 500.0, 502.0], [705.0, 700.0, 695.0]),
    (1000, [990.0, 995.0, 1000.0], [505.0, 500.0, 495.0]),
]
