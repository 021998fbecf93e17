"""YCSB campaign validation on constructed records: repetitions, throughput σ%, error returns, and
the latency/throughput anomaly of an offered-load sweep (the published study's caveat)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from benchcamp.core.records import ResultRecord
from benchcamp.pipeline.validation import validate_campaign
from benchcamp.studies.ycsb_hbase_cassandra.validation import latency_anomalies
from helpers.ycsb import PUBLISHED_ANOMALY, STUDY, expected, key, run, sweep

# Latency rises with the load, as queueing says it must: 250 → 500 → 1000 → 2000 (saturated).
CLEAN_CURVE = [
    (250, [249.0, 250.0, 251.0], [410.0, 400.0, 390.0]),
    (500, [498.0, 500.0, 502.0], [430.0, 420.0, 410.0]),
    (1000, [990.0, 995.0, 1000.0], [600.0, 650.0, 700.0]),
    (2000, [1280.0, 1300.0, 1320.0], [2400.0, 2500.0, 2600.0]),
]


def test_a_clean_curve_and_a_clean_operationcount_sweep_pass() -> None:
    records = sweep(CLEAN_CURVE)
    for repetition, (throughput, latency) in enumerate([(1000.0, 950.0), (1010.0, 940.0), (990.0, 960.0)], 1):
        records += run(
            {"store": "cassandra", "operationcount": 1000, "threads": 1}, repetition, throughput, latency
        )
    assert latency_anomalies(records) == {}
    assert validate_campaign(records, expected(records), 10.0, STUDY, "c") == []


def test_the_published_anomaly_is_flagged_with_its_points() -> None:
    records = sweep(PUBLISHED_ANOMALY)
    found = validate_campaign(records, expected(records), 10.0, STUDY, "c")
    assert [(f.cell_key, f.expectation, f.observed, f.threshold) for f in found] == [
        (key("hbase", 1000), "latency_anomaly", 2, 0),
        (key("hbase", 500), "latency_anomaly", 1, 0),
    ]
    assert found[1].details == (
        "read average latency fell from 900.0 ± 5.0 µs at 250.0 ops/s (target_ops=250) "
        "to 700.0 ± 5.0 µs at 500.0 ops/s (target_ops=500)"
    )
    assert found[0].details.split("; ") == [
        "read average latency fell from 900.0 ± 5.0 µs at 250.0 ops/s (target_ops=250) "
        "to 500.0 ± 5.0 µs at 995.0 ops/s (target_ops=1000)",
        "read average latency fell from 700.0 ± 5.0 µs at 500.0 ops/s (target_ops=500) "
        "to 500.0 ± 5.0 µs at 995.0 ops/s (target_ops=1000)",
    ]


def test_a_fall_within_the_noise_is_not_an_anomaly() -> None:
    # 420 → 400 µs is a fall of 20, under 2 × √(15² + 15²) ≈ 42.4: noise
    noisy = [
        (250, [249.0, 250.0, 251.0], [405.0, 420.0, 435.0]),
        (500, [498.0, 500.0, 502.0], [385.0, 400.0, 415.0]),
    ]
    assert latency_anomalies(sweep(noisy)) == {}
    # the same fall with tight repetitions is one
    tight = [
        (250, [249.0, 250.0, 251.0], [419.0, 420.0, 421.0]),
        (500, [498.0, 500.0, 502.0], [399.0, 400.0, 401.0]),
    ]
    assert list(latency_anomalies(sweep(tight))) == [("local_lab", "ycsb_a", key("hbase", 500))]
    # a throughput that does not rise beyond its noise (saturation) cannot make an anomaly
    flat = [
        (2000, [1200.0, 1300.0, 1400.0], [900.0, 901.0, 902.0]),
        (4000, [1250.0, 1300.0, 1350.0], [700.0, 701.0, 702.0]),
    ]
    assert latency_anomalies(sweep(flat)) == {}


def test_stores_and_thread_counts_are_separate_sweeps() -> None:
    records = sweep(PUBLISHED_ANOMALY[:1], store="hbase") + sweep(PUBLISHED_ANOMALY[2:], store="cassandra")
    assert latency_anomalies(records) == {}


def test_throughput_sigma_is_the_gate_not_the_duration() -> None:
    params = {"store": "cassandra", "operationcount": 1000, "threads": 1}
    # noisy JVM start-up in the durations (σ% 40) but a steady throughput: passes
    steady = [
        record
        for rep, d in enumerate((3.0, 5.0, 7.0), 1)
        for record in run(params, rep, 1000.0 + rep, 900.0, d)
    ]
    assert validate_campaign(steady, expected(steady), 10.0, STUDY, "c") == []
    noisy = [
        record for rep, t in enumerate((1000.0, 1200.0, 1400.0), 1) for record in run(params, rep, t, 900.0)
    ]
    (failure,) = validate_campaign(noisy, expected(noisy), 10.0, STUDY, "c")
    assert failure.expectation == "stddev_within_threshold"
    assert failure.details == "throughput_ops_s σ% 16.7 > 10 (n=3)"
    assert failure.observed == pytest.approx(200 / 1200 * 100)


def test_error_returns_fail_the_repetition_and_are_named() -> None:
    params = {"store": "hbase", "operationcount": 1000, "threads": 1}
    records = (
        run(params, 1, 1000.0, 900.0)
        + run(params, 2, 1000.0, 900.0, errors=14)
        + run(params, 3, 1001.0, 901.0)
    )
    found = validate_campaign(records, expected(records), 10.0, STUDY, "c")
    assert [(f.expectation, f.details) for f in found] == [
        ("repetitions_ok", "1 of 3 repetitions failed (repetition 2)"),
        ("no_error_returns", "14 error returns (repetition 2: 14)"),
    ]


def test_every_repetition_must_be_present() -> None:
    params = {"store": "hbase", "operationcount": 1000, "threads": 1}
    records = run(params, 1, 1000.0, 900.0) + run(params, 3, 1001.0, 901.0)
    (failure,) = validate_campaign(records, expected(records), 10.0, STUDY, "c")
    assert (failure.expectation, failure.details) == (
        "repetitions_complete",
        "2 of 3 repetitions present (missing: 2)",
    )


def test_the_intended_latency_is_not_checked_for_the_anomaly() -> None:
    """A clean curve whose intended latencies fall as the load rises (made so here): no anomaly.
    The study's caveat is about the latency from each call's actual start; the intended one also
    holds how far the client lagged behind its schedule."""
    records = sweep(CLEAN_CURVE)
    falling = {250: 90_000.0, 500: 60_000.0, 1000: 30_000.0, 2000: 10_000.0}
    records += [
        r.model_copy(
            update={"metric": "intended_read_avg_latency_us", "value": falling[int(r.params["target_ops"])]}
        )
        for r in records
        if r.metric == "read_avg_latency_us"
    ]
    assert latency_anomalies(records) == {}
    assert [r.metric for r in records].count("intended_read_avg_latency_us") == 12


def _with_served(
    records: list[ResultRecord], rate: Callable[[ResultRecord], float | None]
) -> list[ResultRecord]:
    """The sweep's records, each repetition with a served rate `rate(its throughput record)`."""
    served = [
        record.model_copy(update={"metric": "served_throughput_ops_s", "value": value})
        for record in records
        if record.metric == "throughput_ops_s" and (value := rate(record)) is not None
    ]
    return records + served


def test_a_sweep_with_served_rates_is_judged_on_them_and_says_so() -> None:
    """YCSB's throughput holds each client's start: where every repetition of the sweep has its
    served rate, the check uses that rate; the published anomaly's falling latencies against a
    served rate that stays flat (saturated) are no anomaly, and a rising one is, named as served."""
    records = sweep(PUBLISHED_ANOMALY)
    assert latency_anomalies(records)
    flat = _with_served(records, lambda record: 1000.0 + record.repetition)
    assert latency_anomalies(flat) == {}
    rising = _with_served(records, lambda record: 2 * record.value)
    found = latency_anomalies(rising)
    assert list(found) == list(latency_anomalies(records))
    assert all("ops/s served" in line for lines in found.values() for line in lines)
    # one repetition without its served rate (archived before the logs): YCSB's, for the whole sweep
    partial = _with_served(
        records, lambda record: None if record.repetition == 3 else 1000.0 + record.repetition
    )
    assert latency_anomalies(partial) == latency_anomalies(records)
