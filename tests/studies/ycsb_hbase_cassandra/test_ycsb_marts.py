"""YCSB marts from records loaded into a real warehouse and one real dbt build.

Repetitions m − σ, m, m + σ have sample σ exactly σ, so with three a side and equal σ Welch's
t is (m_H − m_C) / (σ √(2/3)) on 4 degrees of freedom: placing the means at the t table's
critical values checks the p-value (scipy's, in the Python model int_ycsb_stores_compared)
against published quantiles (p = 0.01, 0.05, 0.10).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.transform import build_marts, project_dir
from benchcamp.presentation import report
from helpers.ycsb import CAMPAIGN, SHIFT, SIGMA, STUDY, T_P01, parsed_recording, parsed_two_clients, records
from scipy import stats


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    target = tmp_path_factory.mktemp("ycsb") / "benchcamp.duckdb"
    wh.load_records(target, records() + parsed_recording() + parsed_two_clients())
    wh.upsert_study_thresholds(target, STUDY, 10)
    build_marts(target, unit_tests=False)  # dbt's unit tests: test_marts_golden's scenario
    return report.read_tables(target, STUDY, CAMPAIGN)


def one(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    (row,) = [row for row in rows if all(row[k] == v for k, v in match.items())]
    return row


def test_summary_per_store_and_operation_type(tables: dict[str, list[dict[str, Any]]]) -> None:
    summary = tables["ycsb_summary"]
    hbase_read = one(summary, store="hbase", op_type="read", operationcount=1000, workload="ycsb_a")
    assert (hbase_read["n"], hbase_read["n_failed"], hbase_read["threads"]) == (3, 1, 1)
    assert hbase_read["throughput_ops_s"] == pytest.approx(1000 + T_P01 * SHIFT)  # the failed run left out
    assert hbase_read["throughput_stddev"] == pytest.approx(SIGMA)
    assert hbase_read["throughput_stddev_pct"] == pytest.approx(SIGMA / (1000 + T_P01 * SHIFT) * 100)
    assert hbase_read["within_threshold"] is True and hbase_read["target_ops"] is None
    assert hbase_read["p95_latency_us"] == pytest.approx(1000) and hbase_read["p99_latency_us"] == 4000
    assert {row["op_type"] for row in summary if row["workload"] == "ycsb_a"} == {"read", "update"}
    # the recorded BasicDB run, through the parser and the marts: the file's numbers
    rmw = one(summary, workload="ycsb_f", op_type="read_modify_write")
    assert (rmw["n"], rmw["operations"], rmw["avg_latency_us"]) == (1, 467, 21.143468950749465)
    assert (rmw["p95_latency_us"], rmw["p99_latency_us"], rmw["throughput_ops_s"]) == (
        48,
        254,
        997.0089730807578,
    )
    assert rmw["throughput_stddev"] is None and rmw["fingerprint"] == "unknown"


def test_two_clients_served_rate_is_carried_beside_ycsbs_throughput(
    tables: dict[str, list[dict[str, Any]]],
) -> None:
    """The recorded two-client steps through the parser and the marts: the served rate is the
    record's, on each operation type's row, and the report prints it; one client has none."""
    served = {
        r.params["store"]: r.value for r in parsed_two_clients() if r.metric == "served_throughput_ops_s"
    }
    for store, value in served.items():
        for op in ("read", "update"):
            row = one(tables["ycsb_summary"], store=store, op_type=op, clients=2)
            assert row["served_throughput_ops_s"] == pytest.approx(value)
            assert row["served_throughput_ops_s"] > 2 * row["throughput_ops_s"]
    assert one(tables["ycsb_summary"], workload="ycsb_f", op_type="read")["served_throughput_ops_s"] is None
    text = report.render_table(tables, STUDY)
    assert "Served (ops/s)" in text and f"{served['cassandra']:.2f}" in text


def test_latency_throughput_curve_points(tables: dict[str, list[dict[str, Any]]]) -> None:
    points = [row for row in tables["ycsb_latency_throughput"] if row["op_type"] == "read"]
    curve = [row for row in points if row["clients"] == 1]
    assert [row["target_ops"] for row in curve] == [250, 500, 2000]
    assert {row["served_pct"] for row in curve} == {None}
    (two,) = [row for row in points if row["clients"] == 2]  # the recorded two-client step
    assert two["served_pct"] == pytest.approx(two["served_throughput_ops_s"] / 5) and two["served_pct"] > 90
    assert two["achieved_pct"] < 35  # YCSB's throughput, its RunTime holding the clients' start
    assert [round(row["achieved_pct"], 2) for row in curve] == [100.0, 99.8, 65.0]
    assert [row["avg_latency_us"] for row in curve] == [pytest.approx(v) for v in (400, 420, 2500)]
    assert curve[0]["avg_latency_stddev_us"] == pytest.approx(10)
    assert {(row["store"], row["threads"]) for row in curve} == {("hbase", 16)}


def test_comparison_p_values_match_the_t_table(tables: dict[str, list[dict[str, Any]]]) -> None:
    read = one(tables["ycsb_comparison"], op_type="read")
    assert (read["hbase_n"], read["cassandra_n"], read["pair_params"]) == (
        3,
        3,
        "operationcount=1000|threads=1",
    )
    assert read["throughput_ratio"] == pytest.approx((1000 + T_P01 * SHIFT) / 1000)
    assert read["throughput_p_value"] == pytest.approx(0.01, abs=1e-5)
    assert read["throughput_verdict"] == "HBase higher"
    assert read["avg_latency_p_value"] == pytest.approx(0.10, abs=1e-5)
    assert read["avg_latency_verdict"] == "no significant difference"
    assert (
        read["p95_latency_ratio"] == pytest.approx(0.5) and read["p95_latency_verdict"] == "Cassandra higher"
    )
    assert read["p95_latency_p_value"] < 0.001
    assert (read["p99_latency_p_value"], read["p99_latency_verdict"]) == (
        pytest.approx(1.0),
        "no significant difference",
    )
    # the served rates are equal a side (the stores' clients started at different speeds): the
    # same Welch test on them finds no difference where YCSB's throughputs differ at p = 0.01
    assert (read["hbase_served_throughput_ops_s"], read["cassandra_served_throughput_ops_s"]) == (2000, 2000)
    assert read["served_throughput_ratio"] == 1 and read["served_throughput_p_value"] == pytest.approx(1.0)
    assert read["served_throughput_verdict"] == "no significant difference"
    update = one(tables["ycsb_comparison"], op_type="update")
    assert update["avg_latency_p_value"] == pytest.approx(0.05, abs=1e-5)
    assert update["avg_latency_ratio"] < 1
    # the offered-load points and workload F have no Cassandra partner: no comparison rows
    assert len(tables["ycsb_comparison"]) == 2


def test_report_prints_the_comparison_as_the_study_would(tables: dict[str, list[dict[str, Any]]]) -> None:
    text = report.render(tables, "table", STUDY)
    assert "ycsb_a: HBase vs Cassandra on local_lab (Welch's t-test over repetitions)" in text
    lines = text.splitlines()
    (throughput,) = [line for line in lines if "throughput (ops/s)" in line and "| all " in line]
    cells = [cell.strip() for cell in throughput.strip("|").split("|")]
    assert cells[:4] == ["all", "operationcount=1000, threads=1", "throughput (ops/s)", "3/3"]
    assert cells[-2:] == ["0.010", "HBase higher"]
    assert cells[6] == f"{(1000 + T_P01 * SHIFT) / 1000:.2f}"
    (served,) = [line for line in lines if "served (ops/s)" in line and "| all " in line]
    cells = [cell.strip() for cell in served.strip("|").split("|")]
    assert cells[2:] == [
        "served (ops/s)",
        "3/3",
        "2000.00",
        "2000.00",
        "1.00",
        "1.000",
        "no significant difference",
    ]
    (p95,) = [line for line in lines if line.lstrip("| ").startswith("read") and "p95 latency" in line]
    assert p95.rstrip(" |").endswith("Cassandra higher") and "< 0.001" in p95
    csv_blocks = [
        block.splitlines()[0] for block in report.render(tables, "csv", STUDY).split("\n\n") if block
    ]
    assert csv_blocks == ["# scaling", "# phase_times", "# hardware_changes", "# validation", "# ycsb_summary",
                          "# ycsb_latency_throughput", "# ycsb_comparison"]  # fmt: skip


def test_an_anomalous_sweep_is_marked_on_its_curve_and_listed_under_it(tmp_path: Path) -> None:
    """The published anomaly through the whole path: records → validation → warehouse → dbt →
    the latency-throughput figure (red crosses at the refused points) and the page's caption."""
    from benchcamp.pipeline.validation import validate_campaign
    from benchcamp.presentation import figures
    from benchcamp.presentation.results_page import study_body
    from helpers.results_page import plotted
    from helpers.ycsb import PUBLISHED_ANOMALY, expected, key, sweep

    records = sweep(PUBLISHED_ANOMALY)
    failures = validate_campaign(records, expected(records), 10.0, STUDY, "c")
    target = tmp_path / "benchcamp.duckdb"
    wh.load_records(target, records)
    wh.replace_validation_failures(target, STUDY, "c", failures)
    wh.upsert_study_thresholds(target, STUDY, 10)
    build_marts(target, unit_tests=False)  # dbt's unit tests: test_marts_golden's scenario
    tables = report.read_tables(target, STUDY, "c")
    assert len(tables["ycsb_latency_throughput"]) == 3
    (curve,) = [f for f in figures.study_figures(tables) if f.id == "latency-throughput-ycsb-a"]
    flagged = {row["target_ops"]: row["anomaly"] for row in plotted(curve.spec)}
    assert flagged[250] == "" and flagged[500].startswith("read average latency fell from 900.0")
    # one unit per measure: the figure's latency is in µs, as the tables' (not ms)
    assert curve.spec["layer"][0]["encoding"]["y"]["title"] == "Average latency (µs)"
    assert {row["avg_latency_us"] for row in plotted(curve.spec)} == {
        row["avg_latency_us"] for row in tables["ycsb_latency_throughput"]
    }
    assert flagged[1000].count("read average latency fell") == 2
    assert [note.split(": ")[0] for note in curve.notes] == [
        f"anomaly, {key('hbase', 500)}",
        f"anomaly, {key('hbase', 1000)}",
    ]
    body = study_body(target, STUDY, tables, downloads=None)
    assert "<figure id='latency-throughput-ycsb-a'><svg" in body
    assert "<figcaption class='anomalies'><ul><li>anomaly, ycsb_a|store=hbase|target_ops=500" in body


def stores_compared_model() -> Any:
    """The Python model's module, imported from its file as dbt-duckdb runs it."""
    path = project_dir() / "studies" / "ycsb_hbase_cassandra" / "marts" / "int_ycsb_stores_compared.py"
    spec = importlib.util.spec_from_file_location("int_ycsb_stores_compared", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_welch_p_values_are_scipy_s_on_the_repetitions() -> None:
    """The model's p-value from (mean, σ, n) equals scipy's Welch test on repetitions m − σ, m, m + σ,
    and its edge cases are the ones the verdicts rely on."""
    welch = stores_compared_model().welch_p_values

    def p(mean_a: float, sd_a: float, n_a: float, mean_b: float, sd_b: float, n_b: float) -> float:
        args = [np.array([value], dtype=float) for value in (mean_a, sd_a, n_a, mean_b, sd_b, n_b)]
        return float(welch(*args)[0])

    for mean_a, sd_a, mean_b, sd_b in (
        (1300, 10, 1000, 10),
        (1000, 200, 800, 200),
        (1000, 10, 2000, 10),
        (900, 30, 1000, 5),
    ):
        a, b = [mean_a - sd_a, mean_a, mean_a + sd_a], [mean_b - sd_b, mean_b, mean_b + sd_b]
        expected = stats.ttest_ind(a, b, equal_var=False).pvalue
        assert p(mean_a, sd_a, 3, mean_b, sd_b, 3) == pytest.approx(expected, rel=1e-9)
    assert p(1000, 200, 3, 800, 200, 3) == pytest.approx(0.2879, abs=1e-4)  # t = 1.22 on ν = 4
    assert (p(3000, 0, 3, 3000, 0, 3), p(3001, 0, 3, 3000, 0, 3)) == (1.0, 0.0)  # no spread either side
    # one side without spread: t on that side's n − 1 degrees of freedom
    assert p(5, 1, 3, 7, 0, 3) == pytest.approx(2 * stats.t.sf(2 / math.sqrt(1 / 3), 2), rel=1e-9)
    assert math.isnan(p(1300, 10, 3, 1000, float("nan"), 1))  # one repetition: no σ, no test
    assert math.isnan(p(1300, 10, 3, float("nan"), 10, 3))


def test_equivalence_is_two_one_sided_welch_tests_within_ten_percent() -> None:
    """TOST by hand: t = (|Δ| − δ) / √(σa²/na + σb²/nb) on Welch–Satterthwaite ν, p = T_ν(t);
    worked from the t distribution alone, not from scipy's two-sample test the model calls."""
    tost = stores_compared_model().equivalence_p_values

    def p(mean_a: float, sd_a: float, n_a: float, mean_b: float, sd_b: float, n_b: float) -> float:
        args = [np.array([value], dtype=float) for value in (mean_a, sd_a, n_a, mean_b, sd_b, n_b)]
        return float(tost(*args)[0])

    def by_hand(mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float, n_b: int) -> float:
        va, vb = sd_a**2 / n_a, sd_b**2 / n_b
        nu = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
        delta = 0.10 * mean_b
        return float(stats.t.cdf((abs(mean_a - mean_b) - delta) / math.sqrt(va + vb), nu))

    # the same throughput, 2 % noise, 4 a side: equivalent within ±10 % although no difference shows
    assert p(1010, 20, 4, 1000, 20, 4) == pytest.approx(by_hand(1010, 20, 4, 1000, 20, 4), rel=1e-9)
    assert p(1010, 20, 4, 1000, 20, 4) < 0.001
    # HBase 5 % lower with 8 % noise on 3 a side: neither different nor shown equivalent
    assert p(950, 80, 3, 1000, 80, 3) == pytest.approx(by_hand(950, 80, 3, 1000, 80, 3), rel=1e-9)
    assert p(950, 80, 3, 1000, 80, 3) > 0.05
    # a difference beyond the margin is never equivalent, however precise
    assert p(1200, 1, 5, 1000, 1, 5) > 0.999
    assert (p(1050, 0, 3, 1000, 0, 3), p(1150, 0, 3, 1000, 0, 3)) == (0.0, 1.0)  # no spread: exact
    assert math.isnan(p(1000, 10, 1, 1000, 10, 3))  # one repetition: no test
