"""The YCSB output parser on real client outputs recorded here (tests/data/ycsb/basicdb)."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchcamp.workloads._ycsb_output import RMW, parse_json, parse_text
from benchcamp.workloads.base import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "ycsb" / "basicdb"


def text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_the_text_summary_of_a_load() -> None:
    report = parse_text(text("workloada-load-text.stdout.log"), DATA / "workloada-load-text.stdout.log")
    assert (report.runtime_ms, report.throughput_ops_s) == (180, pytest.approx(5555.555555555556))
    insert = report.operations["INSERT"]
    assert (insert.operations, insert.average_us, insert.min_us, insert.max_us) == (1000, 1.057, 0, 536)
    assert (insert.p95_us, insert.p99_us, insert.returns) == (0, 2, {"OK": 1000})
    assert "CLEANUP" not in report.operations and report.completed() == 1000
    assert report.problems(requested=1000) == []


def test_a_scan_workload_and_its_inserts() -> None:
    report = parse_text(text("workloade-run-text.stdout.log"), DATA / "e")
    assert {name: stats.operations for name, stats in report.operations.items()} == {
        "INSERT": 51,
        "SCAN": 949,
    }
    assert report.operations["SCAN"].max_us == 12951 and report.operations[
        "SCAN"
    ].average_us == pytest.approx(14.00526870389884)
    assert report.completed() == report.returned("OK") == 1000


def test_a_read_modify_write_counts_once() -> None:
    report = parse_text(text("workloadf-run-text.stdout.log"), DATA / "f")
    assert (report.operations["READ"].operations, report.operations[RMW].operations) == (1000, 516)
    assert report.operations["UPDATE"].operations == 516  # the writes of the read-modify-writes
    assert report.completed() == 1000 and report.returned("OK") == 1000
    assert report.operations[RMW].p99_us == 2191 and report.operations[RMW].returns == {}


def test_the_json_export_matches_the_numbers_it_holds() -> None:
    for workload in "acef":
        name = f"workload{workload}-run.json"
        report = parse_json(text(name), DATA / name)
        assert report.completed() == 1000 and report.problems(requested=1000) == [], workload
    report = parse_json(text("workloadc-run.json"), DATA / "c.json")
    assert (report.runtime_ms, report.throughput_ops_s) == (79, pytest.approx(12658.227848101265))
    assert set(report.operations) == {"READ"}


def test_a_throttled_run_reports_the_offered_load_it_achieved() -> None:
    report = parse_text(text("workloada-target1000.stdout.log"), DATA / "t")
    assert report.runtime_ms == 2008 and report.throughput_ops_s == pytest.approx(996.01593625498)
    assert report.completed() == 2000


def test_a_run_killed_mid_way_fails_naming_the_raw_file() -> None:
    path = DATA / "workloada-killed.stdout.log"
    with pytest.raises(ParseError, match=r"workloada-killed.stdout.log: no \[OVERALL\] RunTime"):
        parse_text(text("workloada-killed.stdout.log"), path)


def test_a_summary_cut_short_inside_an_operation_fails(tmp_path: Path) -> None:
    lines = text("workloada-run-text.stdout.log").splitlines()
    cut = next(i for i, line in enumerate(lines) if "95thPercentileLatency" in line)
    path = tmp_path / "cut.log"
    with pytest.raises(ParseError, match="cut.log: .* lacks 95thPercentileLatency"):
        parse_text("\n".join(lines[:cut]), path)
    with pytest.raises(ParseError, match="cut.json: not JSON"):
        parse_json(text("workloada-run.json")[:500], tmp_path / "cut.json")


def test_errors_and_missing_operations_make_a_repetition_failed() -> None:
    lines = text("workloada-run-text.stdout.log")
    broken = lines.replace("[UPDATE], Return=OK, ", "[UPDATE], Return=ERROR, 3\n[UPDATE], Return=OK, ", 1)
    report = parse_text(broken, DATA / "x")
    problems = report.problems(requested=1000)
    assert problems and problems[0] == "Return=ERROR: UPDATE 3"
    assert parse_text(lines, DATA / "x").problems(requested=2000) == [
        "1000 operations returned OK of 2000 requested"
    ]


CASSANDRA = DATA.parent / "cassandra"


def test_real_cassandra_outputs_through_our_binding() -> None:
    load = parse_text((CASSANDRA / "workloada-load-text.stdout.log").read_text(), CASSANDRA / "load")
    assert load.operations["INSERT"].returns == {"OK": 1000} and load.runtime_ms == 9508
    run = parse_text((CASSANDRA / "workloada-run-text.stdout.log").read_text(), CASSANDRA / "run")
    assert (run.operations["READ"].operations, run.operations["UPDATE"].operations) == (502, 498)
    assert run.operations["UPDATE"].p99_us == 134015 and run.problems(requested=1000) == []
    read_only = parse_json((CASSANDRA / "workloadc-run.json").read_text(), CASSANDRA / "c.json")
    assert read_only.operations["READ"].operations == 1000
    assert read_only.operations["READ"].average_us == pytest.approx(7538.633)
