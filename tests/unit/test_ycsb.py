"""YCSB: the pure parser on outputs recorded from YCSB 0.17.0 (tests/data/ycsb/basicdb/README.md),
the commands built from the spec, and the checks that refuse a bad cell before anything runs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from benchcamp.core.records import ResultRecord
from benchcamp.core.spec import AxisValue, StudySpec, load_spec, parse_spec, spec_files
from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ArchivedStep, GenerateError, ParseError, RunContext, render
from benchcamp.workloads.ycsb import (
    BINDINGS,
    EXPORTER,
    JAVA_OPTIONS,
    RESET_JIT,
    RESET_TABLE_CLASS,
    YCSB_CLASSPATH,
    YcsbSummary,
    cross_check,
    parse_ycsb_json,
    parse_ycsb_text,
    summary_metrics,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "ycsb" / "basicdb"
SPEC = load_spec("ycsb_hbase_cassandra")
SPEC_TEXT = next(path for path in spec_files() if path.parent.name == SPEC.study).read_text(encoding="utf-8")
START = datetime(2026, 11, 23, 7, 1, 0, tzinfo=UTC)
END = datetime(2026, 11, 23, 7, 1, 1, 500000, tzinfo=UTC)
COMPLETE = ["load_a", "load_c", "load_e", "load_f", "run_a", "run_c", "run_e", "run_f", "run_c_verbose"]
COMPLETE += ["run_a_errors"]
RUNS = ["run_a", "run_c", "run_e", "run_f", "run_c_verbose"]
LETTER = {
    "run_a": "a",
    "run_c": "c",
    "run_c_killed": "c",
    "run_e": "e",
    "run_f": "f",
    "run_c_verbose": "c",
    "run_a_errors": "a",
}


def context(
    workload: str = "ycsb_a", spec: StudySpec = SPEC, ladder: str = "tiny", **params: AxisValue
) -> RunContext:
    cell: dict[str, AxisValue] = {"store": "cassandra", "operationcount": 1000, "threads": 1}
    cell.update(params)
    return RunContext(spec, spec.environment("local_lab"), "c1", workload, cell, 2, ladder)  # type: ignore[arg-type]


def step(directory: Path, exit_code: int = 0) -> ArchivedStep:
    """An execute step: the recorded run, with the recorded load of its workload as `load.*`
    (the load and the run are two client processes there as in the campaign's step)."""
    files: dict[str, Path] = {}
    if match := re.match(r"run_([a-f])", directory.name):
        load = DATA / f"load_{match.group(1)}"
        files = {"load.stdout.log": load / "stdout.log", "load.ycsb.json": load / "ycsb.json"}
    return ArchivedStep(
        directory=directory, exit_code=exit_code, started_at=START, finished_at=END, files=files
    )


def copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(DATA / name, target)
    return target


def parse(name: str, directory: Path | None = None, **params: AxisValue) -> dict[str, ResultRecord]:
    workload = get_workload(f"ycsb_{LETTER[name]}")
    ctx = context(f"ycsb_{LETTER[name]}", **params)
    return {r.metric: r for r in workload.parse(ctx, step(directory or DATA / name))}


# -- the parser, on every recorded file ------------------------------------------------------

MEASUREMENT_SUFFIX = {
    "Operations": "operations",
    "AverageLatency(us)": "avg_latency_us",
    "MinLatency(us)": "min_latency_us",
    "MaxLatency(us)": "max_latency_us",
    "95thPercentileLatency(us)": "p95_latency_us",
    "99thPercentileLatency(us)": "p99_latency_us",
}


def expected_from_the_file(text: str) -> dict[str, float]:
    """What each summary line of the text file says, under the metric name it must get."""
    expected: dict[str, float] = {}
    for line in text.splitlines():
        if not line.startswith("["):
            continue
        section, measurement, value = (part.strip() for part in line.split(","))
        op = section.strip("[]").lower().replace("-", "_")
        if section == "[OVERALL]":
            name = {"RunTime(ms)": "runtime_s", "Throughput(ops/sec)": "throughput_ops_s"}[measurement]
            expected[name] = float(value) / (1000 if measurement == "RunTime(ms)" else 1)
        elif section == "[TOTAL_GCs]":
            expected["client_gc_count"] = float(value)
        elif section == "[TOTAL_GC_TIME]":
            expected["client_gc_time_ms"] = float(value)
        elif section.startswith("[TOTAL_GC"):
            continue  # per collector: the totals above are kept
        elif measurement.startswith("Return="):
            expected[f"{op}_return_{measurement[7:].lower()}"] = float(value)
        else:
            expected[f"{op}_{MEASUREMENT_SUFFIX[measurement]}"] = float(value)
    return expected


@pytest.mark.parametrize("name", RUNS)
def test_every_line_of_the_summary_becomes_its_record(name: str) -> None:
    records = parse(name)
    expected = expected_from_the_file((DATA / name / "stdout.log").read_text())
    computed = {"duration_s", "operations_requested", "operations_ok", "error_returns"}
    computed |= {"loaded_records", "load_throughput_ops_s"}  # from the load's summary
    assert set(records) == set(expected) | computed
    for metric, value in expected.items():
        assert records[metric].value == value, metric
    assert {r.status for r in records.values()} == {"ok"}
    assert records["duration_s"].value == 1.5  # timed by the wrapper
    assert records["operations_requested"].value == 1000
    assert records["operations_ok"].value == 1000 and records["error_returns"].value == 0
    assert records["throughput_ops_s"].artifact == str(DATA / name / "stdout.log")


@pytest.mark.parametrize("name", COMPLETE)
def test_text_summary_and_json_export_of_one_run_agree(name: str) -> None:
    text = parse_ycsb_text((DATA / name / "stdout.log").read_text(), "stdout.log")
    exported = parse_ycsb_json((DATA / name / "ycsb.json").read_text(), "ycsb.json")
    assert text == exported


def test_workload_f_counts_a_read_modify_write_once() -> None:
    """F: 533 reads + 467 read-modify-writes; YCSB also counts each RMW as one READ and one UPDATE."""
    records = parse("run_f")
    value = {metric: record.value for metric, record in records.items()}
    assert value["read_operations"] == 1000 and value["read_return_ok"] == 1000
    assert value["update_operations"] == 467 and value["read_modify_write_operations"] == 467
    assert "read_modify_write_return_ok" not in value  # YCSB reports no status for the composite
    assert value["operations_ok"] == 1000  # 1000 + 467 ok DB calls − 467 composites
    assert value["read_modify_write_avg_latency_us"] == 21.143468950749465
    assert (value["read_modify_write_p95_latency_us"], value["read_modify_write_p99_latency_us"]) == (48, 254)
    assert (value["runtime_s"], value["throughput_ops_s"]) == (1.003, 997.0089730807578)  # -target 1000
    assert (value["cleanup_operations"], value["cleanup_max_latency_us"]) == (1, 6)


def test_workload_e_scans_and_inserts() -> None:
    value = {metric: record.value for metric, record in parse("run_e").items()}
    assert (value["scan_operations"], value["scan_return_ok"]) == (946, 946)
    assert (value["insert_operations"], value["insert_return_ok"]) == (54, 54)
    assert value["scan_avg_latency_us"] == 0.459830866807611 and value["scan_max_latency_us"] == 384
    assert value["cleanup_operations"] == 4  # one per client thread (-threads 4)
    assert value["throughput_ops_s"] == 7751.937984496124


def test_verbose_basicdb_calls_before_the_summary_are_ignored() -> None:
    assert (DATA / "run_c_verbose" / "stdout.log").read_text().count("\nREAD usertable") >= 999
    value = {metric: record.value for metric, record in parse("run_c_verbose").items()}
    assert (value["read_operations"], value["read_avg_latency_us"]) == (1000, 84.641)


def test_error_returns_fail_the_run_and_are_counted_by_status() -> None:
    records = parse("run_a_errors")
    value = {metric: record.value for metric, record in records.items()}
    assert {record.status for record in records.values()} == {"failed"}
    assert (value["update_return_ok"], value["update_return_error"]) == (474, 9)
    assert (value["read_return_ok"], value["read_return_not_found"]) == (512, 5)
    assert value["error_returns"] == 14 and value["operations_ok"] == 986
    # YCSB measures the not-ok calls apart, as UPDATE-FAILED / READ-FAILED
    assert (value["update_failed_operations"], value["update_failed_avg_latency_us"]) == (
        9,
        0.8888888888888888,
    )
    assert value["read_failed_max_latency_us"] == 2


def test_fewer_ok_operations_than_requested_fail_the_run() -> None:
    records = parse("run_c", operationcount=2000)  # the file ran 1000
    assert records["operations_requested"].value == 2000
    assert {record.status for record in records.values()} == {"failed"}


def test_a_killed_client_is_a_failed_repetition() -> None:
    assert (DATA / "run_c_killed" / "exit_code.txt").read_text().strip() == "exit=143"
    (record,) = get_workload("ycsb_c").parse(context("ycsb_c"), step(DATA / "run_c_killed", exit_code=143))
    assert (record.metric, record.status) == ("duration_s", "failed")


def test_output_cut_short_fails_naming_the_archived_file(tmp_path: Path) -> None:
    killed = copy("run_c_killed", tmp_path)  # as if the wrapper had reported exit 0
    with pytest.raises(ParseError, match=re.escape(str(killed / "stdout.log")) + ".*cut short"):
        parse("run_c", killed)
    truncated = DATA / "run_a_truncated"
    with pytest.raises(ParseError, match=re.escape(str(truncated / "stdout.log")) + ": line 28 is cut off"):
        parse("run_a", truncated)
    # the text intact, the JSON cut: the JSON file is named
    json_cut = copy("run_a_truncated", tmp_path / "json")
    shutil.copyfile(DATA / "run_a" / "stdout.log", json_cut / "stdout.log")
    with pytest.raises(ParseError, match=re.escape(str(json_cut / "ycsb.json")) + ": not valid JSON"):
        parse("run_a", json_cut)


def test_a_section_without_its_returns_is_cut_short() -> None:
    text = (DATA / "run_a" / "stdout.log").read_text()
    with pytest.raises(ParseError, match=r"s.log: \[UPDATE\] counts 504 operations but 0 Return="):
        parse_ycsb_text(text.replace("[UPDATE], Return=OK, 504\n", ""), "s.log")
    with pytest.raises(ParseError, match=r"s.log: no \[OVERALL\], Throughput"):
        parse_ycsb_text(text.replace("[OVERALL], Throughput", "[overall], Throughput"), "s.log")
    with pytest.raises(ParseError, match="appears twice"):
        parse_ycsb_text(text + text, "s.log")


def test_text_and_json_that_disagree_fail_naming_both_files(tmp_path: Path) -> None:
    run = copy("run_a", tmp_path)
    log = run / "stdout.log"
    log.write_text(
        log.read_text().replace(
            "[UPDATE], 99thPercentileLatency(us), 2", "[UPDATE], 99thPercentileLatency(us), 3"
        )
    )
    with pytest.raises(ParseError) as failure:
        parse("run_a", run)
    assert str(failure.value) == (
        f"{run / 'ycsb.json'} disagrees with {log}: [UPDATE] p99 latency is 2.0 there, 3.0 in the text"
    )


def test_either_copy_alone_is_enough(tmp_path: Path) -> None:
    json_only = copy("run_f", tmp_path / "json")
    (json_only / "stdout.log").write_text("")  # a plain JSON exporter prints no summary
    records = parse("run_f", json_only)
    assert records["throughput_ops_s"].artifact == str(json_only / "ycsb.json")
    text_only = copy("run_f", tmp_path / "text")
    (text_only / "ycsb.json").unlink()
    assert parse("run_f", text_only)["read_modify_write_operations"].value == 467


# -- measurement options: tests/data/ycsb/measurements/README.md ----------------------------------

MEASUREMENTS = DATA.parent / "measurements"


def measured_run(directory: Path) -> dict[str, ResultRecord]:
    """Records of a recorded workload A run, with basicdb/load_a as its load."""
    load = DATA / "load_a"
    files = {"load.stdout.log": load / "stdout.log", "load.ycsb.json": load / "ycsb.json"}
    archived = ArchivedStep(directory=directory, exit_code=0, started_at=START, finished_at=END, files=files)
    return {r.metric: r for r in get_workload("ycsb_a").parse(context("ycsb_a"), archived)}


@pytest.mark.parametrize("name", ["run_a_hdr_percentiles", "run_a_histogram", "run_a_intended"])
def test_measurement_options_agree_as_text_and_json(name: str) -> None:
    text = parse_ycsb_text((MEASUREMENTS / name / "stdout.log").read_text(), "stdout.log")
    assert text == parse_ycsb_json((MEASUREMENTS / name / "ycsb.json").read_text(), "ycsb.json")
    assert text.ok_operations == 1000 and text.error_returns == 0


def test_every_percentile_name_ycsb_0_17_prints_is_kept() -> None:
    """hdrhistogram.percentiles=1,2,3,11,22,50,90,99.9,99.99: 1st, 2nd, 3rd, 11th, 22nd, 99.9, 99.99."""
    summary = parse_ycsb_text((MEASUREMENTS / "run_a_hdr_percentiles" / "stdout.log").read_text(), "s.log")
    assert summary.operations["READ"].latencies_us == {
        "avg": 1564.340770791075, "min": 0, "max": 4739, "p1": 0, "p2": 0, "p3": 0, "p11": 0,
        "p22": 2, "p50": 1568, "p90": 3097, "p99_9": 4739, "p99_99": 4739,
    }  # fmt: skip
    records = measured_run(MEASUREMENTS / "run_a_hdr_percentiles")
    assert records["update_p99_9_latency_us"].value == 7979 and records["update_p50_latency_us"].value == 1106
    assert records["cleanup_p3_latency_us"].value == 2 and records["update_p99_9_latency_us"].unit == "us"
    assert {r.status for r in records.values()} == {"ok"}


def test_intended_latencies_are_kept_beside_the_measured_ones() -> None:
    records = measured_run(MEASUREMENTS / "run_a_intended")
    assert records["read_p99_latency_us"].value == 3577
    assert records["intended_read_p99_latency_us"].value == 26351
    assert records["intended_update_operations"].value == 485


def test_millisecond_percentiles_and_numeric_return_codes_of_old_ycsb() -> None:
    """old_format is run_a_histogram relabelled as YCSB before its Status class printed it (derived)."""
    old = parse_ycsb_text((MEASUREMENTS / "old_format" / "stdout.log").read_text(), "old.log")
    new = parse_ycsb_text((MEASUREMENTS / "run_a_histogram" / "stdout.log").read_text(), "new.log")
    # ms → µs, Return=0 → OK: the same figures as the same run printed by 0.17, except that a
    # whole-millisecond percentile of 0 (CLEANUP's) says "under 1 ms": a bound, not a latency of 0
    assert new.operations["CLEANUP"].latencies_us["p95"] == 0
    cleanup = old.operations["CLEANUP"]
    assert cleanup.bounds_us == {"p95": 1000, "p99": 1000} and "p95" not in cleanup.latencies_us
    assert {k: v for k, v in old.operations.items() if k != "CLEANUP"} == {
        k: v for k, v in new.operations.items() if k != "CLEANUP"
    }
    assert (old.runtime_ms, old.throughput_ops_s) == (new.runtime_ms, new.throughput_ops_s)
    assert old.operations["READ"].latencies_us["p95"] == 3000 and old.operations["READ"].returns == {
        "OK": 501
    }
    records = measured_run(MEASUREMENTS / "old_format")
    assert records["read_p99_latency_us"].value == 3000 and records["read_p99_latency_us"].unit == "us"
    assert records["update_return_ok"].value == 499 and records["duration_s"].status == "ok"


def test_a_non_zero_old_return_code_is_an_error() -> None:
    text = (MEASUREMENTS / "old_format" / "stdout.log").read_text()
    flaky = parse_ycsb_text(
        text.replace("[UPDATE], Return=0, 499\n", "[UPDATE], Return=0, 490\n[UPDATE], Return=-1, 9\n"),
        "s.log",
    )
    assert flaky.operations["UPDATE"].returns == {"OK": 490, "ERROR_CODE_MINUS_1": 9}
    assert flaky.error_returns == 9 and flaky.ok_operations == 991
    with pytest.raises(ParseError, match=r"s.log: \[READ\], Return=OK counts OK calls a second time"):
        parse_ycsb_text(
            text.replace("[READ], Return=0, 501\n", "[READ], Return=0, 501\n[READ], Return=OK, 1\n"), "s.log"
        )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[READ], 95thPercentileLatency(ns), 3", r"\[READ\], 95thPercentileLatency\(ns\): latency unit 'ns'"),
        ("[READ], MedianLatency(us), 3", r"\[READ\], MedianLatency\(us\): a latency measurement this parser"),
        ("[READ], 101stPercentileLatency(us), 3", r"101stPercentileLatency\(us\): a latency measurement"),
        ("[READ], 95thPercentileLatency(us), 3000", r"repeats the p95 latency in another unit"),
    ],
)
def test_a_latency_the_parser_cannot_place_is_refused_not_dropped(line: str, message: str) -> None:
    text = (MEASUREMENTS / "old_format" / "stdout.log").read_text()
    text = text.replace("[READ], Return=0, 501\n", f"[READ], Return=0, 501\n{line}\n")
    with pytest.raises(ParseError, match="s.log: .*" + message):
        parse_ycsb_text(text, "s.log")


def test_the_load_is_verified_against_recordcount(tmp_path: Path) -> None:
    records = parse("run_a")
    assert (records["loaded_records"].value, records["load_throughput_ops_s"].value) == (
        1000.0,
        10204.081632653062,
    )
    assert records["loaded_records"].artifact == str(DATA / "load_a" / "stdout.log")
    with pytest.raises(GenerateError, match=r"loaded 1000 of 10000 records .* see .*load_a/stdout.log"):
        get_workload("ycsb_a").parse(context(ladder="small"), step(DATA / "run_a"))
    unloaded = copy("run_a", tmp_path).rename(tmp_path / "other")  # no load summary: cut short
    message = re.escape(
        f"{unloaded / 'load.stdout.log'}: no YCSB summary ([OVERALL] lines) and no load.ycsb.json"
    )
    with pytest.raises(ParseError, match=message):
        parse("run_a", unloaded)


def test_a_load_the_store_refused_fails_naming_its_address(tmp_path: Path) -> None:
    run = copy("run_a", tmp_path)
    (run / "load.stdout.log").write_text(
        "site.ycsb.DBException: cannot connect to Cassandra at [/127.0.0.1:9042]: Could not reach any contact point\n"
        "[OVERALL], RunTime(ms), 12\n[OVERALL], Throughput(ops/sec), 0.0\n"
    )
    failing = ArchivedStep(directory=run, exit_code=0, started_at=START, finished_at=END)
    with pytest.raises(GenerateError, match=r"loaded 0 of 1000 records .*127.0.0.1:9042.*load.stdout.log"):
        get_workload("ycsb_a").parse(context(), failing)


# -- commands ----------------------------------------------------------------------------------


def argv(command: list[object]) -> list[str]:
    """The words bash passes to the program: quoting checked by a real shell."""
    line = render(command)  # type: ignore[arg-type]
    script = f'JOB=/job; {YCSB_CLASSPATH}=/cp; printf "%s\\n" {line}'
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=True
    ).stdout.splitlines()


def properties(words: list[str]) -> dict[str, str]:
    pairs = [words[i + 1] for i, word in enumerate(words) if word == "-p"]
    names = [pair.split("=", 1)[0] for pair in pairs]
    assert len(names) == len(set(names)), "a property is passed twice"
    return dict(pair.split("=", 1) for pair in pairs)


def test_run_phase_command_from_settings_and_axes() -> None:
    ctx = context("ycsb_e", store="hbase", operationcount=5000, threads=16)
    *_, execute = get_workload("ycsb_e").execute(ctx)
    words = argv(execute)
    assert words[:8] == [
        "java",
        *JAVA_OPTIONS,
        "-cp",
        "/cp",
        "site.ycsb.Client",
        "-t",
        "-db",
        BINDINGS["hbase"],
    ]
    assert words[words.index("-threads") + 1] == "16" and "-target" not in words and words[-1] == "-s"
    assert properties(words) == {
        "workload": "site.ycsb.workloads.CoreWorkload",
        "recordcount": "1000",
        "operationcount": "5000",  # the cell's axis overrides the setting (1000 at tiny)
        "readproportion": "0",
        "updateproportion": "0",
        "scanproportion": "0.95",
        "insertproportion": "0.05",
        "maxscanlength": "100",
        "scanlengthdistribution": "uniform",
        "requestdistribution": "zipfian",
        "table": "usertable",
        "exporter": EXPORTER,
        "exportfile": "/job/ycsb.json",  # archived with the job directory
        # its HdrHistogram logs (/job/READ.hdr, ...): the period they cover gives the served rate
        "hdrhistogram.fileoutput": "true",
        "hdrhistogram.output.path": "/job/",
    }


def test_offered_load_cells_throttle_the_run_not_the_load() -> None:
    cell = next(c for c in SPEC.cells("small", ["ycsb_a"]) if "target_ops" in c.params)
    ctx = RunContext(SPEC, SPEC.environment("local_lab"), "c", "ycsb_a", cell.params, 1, "small")
    assert get_workload("ycsb_a").generate(ctx) == []  # execute loads, right before its run
    reset, load, run = get_workload("ycsb_a").execute(ctx)
    assert render(load[-2:]) == '> "$JOB"/load.stdout.log'
    load = load[:-2]
    assert argv(load)[argv(load).index("-threads") + 1] == "16"  # the cell's, when above LOAD_THREADS
    assert argv(reset) == [
        "java",
        *JAVA_OPTIONS,
        RESET_JIT,
        "-cp",
        "/cp",
        RESET_TABLE_CLASS,
        "cassandra",
        "usertable",
    ]
    assert argv(load)[5:8] == ["-load", "-db", BINDINGS["cassandra"]] and "-target" not in argv(load)
    words = argv(run)
    assert words[words.index("-target") + 1] == str(cell.params["target_ops"])
    assert properties(words)["operationcount"] == "10000"  # no axis: the small ladder's setting
    assert "target_ops" not in properties(words) and "store" not in properties(words)


def test_hostile_setting_values_reach_ycsb_as_one_word() -> None:
    hostile = "zipfian; touch /tmp/benchcamp-pwned $(id) 'x"
    spec = parse_spec(
        SPEC_TEXT.replace("requestdistribution: zipfian", f'requestdistribution: "{hostile}"', 1)
    )
    *_, execute = get_workload("ycsb_a").execute(context(spec=spec))
    words = argv(execute)
    assert properties(words)["requestdistribution"] == hostile
    assert not Path("/tmp/benchcamp-pwned").exists()


def test_every_cell_of_every_ladder_passes_the_checks() -> None:
    for ladder in ("tiny", "small", "paper"):
        assert check_conf(SPEC, {"ladder": ladder, "environment": "local_lab"}).workloads == SPEC.workloads


@pytest.mark.parametrize(
    ("conf", "message"),
    [
        ({"workloads": ["ycsb_g"]}, "has no workload 'ycsb_g'"),
        ({"cells": ["ycsb_a|operationcount=0|store=cassandra|threads=1"]}, "is not in the small matrix"),
        ({"cells": ["ycsb_a|operationcount=-5|store=hbase|threads=1"]}, "is not in the small matrix"),
        ({"cells": ["ycsb_a|operationcount=1000|store=mongodb|threads=1"]}, "is not in the small matrix"),
    ],
)
def test_bad_trigger_input_is_refused_before_anything_runs(conf: dict[str, object], message: str) -> None:
    with pytest.raises(CampaignConfError, match=message):
        check_conf(SPEC, conf)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "operationcount: {tiny: 1000,",
            "operationcount: {tiny: 0,",
            "operationcount must be a whole number above 0, got '0'",
        ),
        (
            "operationcount: {tiny: 1000,",
            "operationcount: {tiny: -3,",
            "operationcount must be a whole number above 0",
        ),
        (
            "operationcount: {tiny: 1000,",
            "operationcount: {tiny: 1.5,",
            "operationcount must be a whole number",
        ),
        ("recordcount: {tiny: 1000,", "recordcount: {tiny: 0,", "recordcount must be a whole number above 0"),
        ("readproportion: 0.5\n", "readproportion: 1.5\n", "readproportion must be between 0 and 1"),
        ("readproportion: 0.5\n", "readproportion: half\n", "readproportion must be a number, got 'half'"),
        (
            "    maxscanlength: 100\n",
            "    maxscanlength: 100\n    db: site.ycsb.BasicDB\n",
            "setting 'db' of ycsb_e",
        ),
    ],
)
def test_a_spec_setting_ycsb_cannot_run_is_refused_by_the_plan(old: str, new: str, message: str) -> None:
    assert old in SPEC_TEXT
    spec = parse_spec(SPEC_TEXT.replace(old, new, 1))
    with pytest.raises(CampaignConfError, match=re.escape(message)):
        check_conf(spec, {"ladder": "tiny", "environment": "local_lab"})


def test_recorded_commands_are_what_the_readme_says() -> None:
    """Provenance: each recording's command line is the one its directory name claims."""
    for name in RUNS + ["run_a_errors", "run_c_killed"]:
        command = (DATA / name / "command.txt").read_text()
        assert f"-P workload{LETTER[name]} " in command and " -t " in command
        assert f"exporter={EXPORTER}" in command
    assert "-threads 2 -target 2000" in (DATA / "run_a" / "command.txt").read_text()
    assert json.loads((DATA / "run_f" / "ycsb.json").read_text())[0]["metric"] == "OVERALL"


def test_the_targets_store_addresses_reach_the_reset_and_the_client() -> None:
    environment = SPEC.environment("local_lab").replace(
        ycsb_properties={"cassandra.hosts": "10.0.0.7", "cassandra.port": 19042}
    )
    ctx = RunContext(SPEC, environment, "c", "ycsb_a", {"store": "cassandra", "threads": 1}, 1, "tiny")
    reset, load, run = get_workload("ycsb_a").execute(ctx)
    load = load[:-2]  # the redirection of its summary
    threads = {argv(command)[argv(command).index("-threads") + 1] for command in (load, run)}
    assert threads == {"4", "1"}  # the untimed load uses 4 client threads, the run the cell's one
    assert argv(reset) == [
        "java", *JAVA_OPTIONS, RESET_JIT, "-cp", "/cp", RESET_TABLE_CLASS, "cassandra", "usertable",
        "-p", "cassandra.hosts=10.0.0.7", "-p", "cassandra.port=19042",
    ]  # fmt: skip
    assert properties(argv(load))["cassandra.port"] == "19042"


def test_the_preflight_checks_every_store_node_the_clients_reach_first() -> None:
    """Every Cassandra contact point at its port, or each ZooKeeper of HBase's quorum, as the
    bindings read the environment's properties (their defaults without them); a port that is
    none is refused with the cell, before anything runs."""
    ring = SPEC.environment("local_lab").replace(
        ycsb_properties={"cassandra.hosts": "10.0.0.1, 10.0.0.2,10.0.0.3", "cassandra.port": 19042}
    )
    cells = [
        RunContext(SPEC, ring, "c", "ycsb_a", {"store": store, "threads": 1}, 1, "tiny")
        for store in ("cassandra", "hbase")
    ]
    cassandra, hbase = (get_workload("ycsb_a").endpoints(ctx) for ctx in cells)
    assert [(node.service, node.host, node.port) for node in cassandra] == [
        ("Cassandra", host, 19042) for host in ("10.0.0.1", "10.0.0.2", "10.0.0.3")
    ]
    assert "ycsb_properties cassandra.hosts / cassandra.port" in cassandra[0].setting
    assert [(node.service, node.host, node.port) for node in hbase] == [
        ("HBase's ZooKeeper", "127.0.0.1", 2181)
    ]
    wrong = ring.replace(ycsb_properties={"cassandra.port": "90x"})
    with pytest.raises(ValueError, match="cassandra.port '90x' is not a port number"):
        get_workload("ycsb_a").check_cell(
            RunContext(SPEC, wrong, "c", "ycsb_a", {"store": "cassandra", "threads": 1}, 1, "tiny")
        )


def test_a_property_name_that_is_not_one_is_refused_in_the_spec() -> None:
    broken = SPEC_TEXT.replace(
        "    connection: benchcamp_lab_ssh\n",
        "    connection: benchcamp_lab_ssh\n    ycsb_properties: {'cassandra.port; rm -rf /': 1}\n",
        1,
    )
    with pytest.raises(ValueError, match="is not a YCSB property name"):
        parse_spec(broken)


PIPELINE = DATA.parent / "pipeline"


@pytest.mark.parametrize(
    ("name", "workload", "params", "mix"),
    [
        ("cassandra_a", "ycsb_a", {"store": "cassandra", "operationcount": 1000, "threads": 1}, {"READ": 478, "UPDATE": 522}),
        ("hbase_a", "ycsb_a", {"store": "hbase", "operationcount": 1000, "threads": 1}, {"READ": 480, "UPDATE": 520}),
        ("cassandra_c_target1000", "ycsb_c", {"store": "cassandra", "target_ops": 1000, "threads": 16}, {"READ": 1000}),
        ("hbase_c_target1000", "ycsb_c", {"store": "hbase", "target_ops": 1000, "threads": 16}, {"READ": 1000}),
    ],
)  # fmt: skip
def test_real_execute_steps_of_both_stores_parse_into_ok_records(
    name: str, workload: str, params: dict[str, AxisValue], mix: dict[str, int]
) -> None:
    """Execute steps archived by a real campaign on the lab's Cassandra and HBase (tests/data/ycsb/pipeline)."""
    directory = PIPELINE / name
    ctx = context(workload, **params)
    records = {r.metric: r for r in get_workload(workload).parse(ctx, step(directory))}
    assert {r.status for r in records.values()} == {"ok"}
    assert records["loaded_records"].value == 1000
    assert records["loaded_records"].artifact == str(directory / "load.stdout.log")
    assert records["operations_ok"].value == 1000 and records["error_returns"].value == 0
    for op, count in mix.items():
        assert records[f"{op.lower()}_return_ok"].value == count
        latency = [records[f"{op.lower()}_{k}_latency_us"].value for k in ("min", "avg", "p95", "p99", "max")]
        assert latency == sorted(latency) and latency[0] >= 0
    summary = parse_ycsb_text((directory / "stdout.log").read_text(), "stdout.log")
    assert records["throughput_ops_s"].value == summary.throughput_ops_s > 0
    command = (directory / "command.sh").read_text()
    assert f"benchcamp.ycsb.ResetTable {params['store']} usertable" in command


# -- real HBase outputs (tests/data/ycsb/hbase/README.md) ---------------------------------------

HBASE = DATA.parent / "hbase"
HBASE_STEPS = ["load_a", "run_a", "load_c", "run_c", "load_e", "run_e", "load_f", "run_f"]


def hbase_summaries(name: str) -> tuple[YcsbSummary, YcsbSummary]:
    text_file, json_file = HBASE / name / "stdout.log", HBASE / name / "ycsb.json"
    text = parse_ycsb_text(text_file.read_text(), str(text_file))
    exported = parse_ycsb_json(json_file.read_text(), str(json_file))
    cross_check(text, exported, str(text_file), str(json_file))
    return text, exported


@pytest.mark.parametrize("name", HBASE_STEPS)
def test_hbase_recordings_agree_as_text_and_json_with_no_error(name: str) -> None:
    text, exported = hbase_summaries(name)
    assert text == exported
    assert (text.ok_operations, text.error_returns, text.client_errors) == (1000, 0, ())
    assert text.throughput_ops_s == pytest.approx(1000 / (text.runtime_ms / 1000))  # ops over the whole run
    assert text.operations["CLEANUP"].operations == 1  # one client thread, one binding cleanup
    for operation, stats in text.operations.items():
        latency = stats.latencies_us
        assert 0 < latency["min"] <= latency["avg"] <= latency["p95"] <= latency["p99"] <= latency["max"], (
            operation
        )
    if name.startswith("load_"):
        assert set(text.operations) == {"INSERT", "CLEANUP"} and text.insert_ok == 1000


def test_hbase_runs_hold_the_mix_each_workload_asks_for() -> None:
    counts = {
        name: {
            op: stats.operations
            for op, stats in hbase_summaries(name)[0].operations.items()
            if op != "CLEANUP"
        }
        for name in ("run_a", "run_c", "run_e", "run_f")
    }
    assert counts == {
        "run_a": {"READ": 497, "UPDATE": 503},
        "run_c": {"READ": 1000},
        "run_e": {"SCAN": 953, "INSERT": 47},
        "run_f": {"READ": 1000, "READ-MODIFY-WRITE": 486, "UPDATE": 486},
    }
    scan = hbase_summaries("run_e")[0].operations["SCAN"]
    assert scan.returns == {"OK": 953}
    assert (scan.latencies_us["avg"], scan.latencies_us["p95"], scan.latencies_us["max"]) == (
        2825.345225603358,
        7615,
        50463,
    )


def test_an_hbase_run_becomes_records_of_the_hbase_cell() -> None:
    """Workload F on HBase through the workload's parser, with its own load beside it."""
    run, load = HBASE / "run_f", HBASE / "load_f"
    archived = ArchivedStep(
        directory=run,
        exit_code=0,
        started_at=START,
        finished_at=END,
        files={"load.stdout.log": load / "stdout.log", "load.ycsb.json": load / "ycsb.json"},
    )
    records = get_workload("ycsb_f").parse(context("ycsb_f", store="hbase"), archived)
    value = {record.metric: record.value for record in records}
    assert {record.status for record in records} == {"ok"}
    assert (value["operations_ok"], value["error_returns"], value["operations_requested"]) == (1000, 0, 1000)
    assert (value["read_return_ok"], value["update_return_ok"], value["read_modify_write_operations"]) == (
        1000,
        486,
        486,
    )
    assert value["read_modify_write_p99_latency_us"] == 25343
    assert (value["throughput_ops_s"], value["runtime_s"]) == (269.83270372369134, 3.706)
    assert (value["loaded_records"], value["load_throughput_ops_s"]) == (1000, 464.9000464900046)


def test_the_workload_property_files_hold_the_specs_settings() -> None:
    """lab/ycsb/workloads/workload[a-f] (for running the client by hand) say what the campaign passes."""
    files = Path(__file__).resolve().parents[2] / "lab" / "ycsb" / "workloads"
    for letter in "abcdef":
        pairs = (
            line.split("=", 1)
            for line in (files / f"workload{letter}").read_text().splitlines()
            if line and not line.startswith("#")
        )
        written = dict(pairs)
        assert written.pop("workload") == "site.ycsb.workloads.CoreWorkload"
        assert (written.pop("recordcount"), written.pop("operationcount")) == ("1000", "1000")
        settings = {
            name: value
            for name, value in SPEC.settings[f"ycsb_{letter}"].items()
            if name not in ("recordcount", "operationcount")
        }
        assert set(written) == set(settings), letter
        for name, value in settings.items():
            assert written[name] == str(value) or float(written[name]) == value, (letter, name)


def test_a_sub_millisecond_percentile_of_ycsb_0_1_is_a_bound_not_zero() -> None:
    """YCSB Client 0.1 on BasicDB (PerfKitBenchmarker's recorded run, tests/data/native/README.md):
    '95thPercentileLatency(ms), 0' beside an average of 65.98 µs means under 1 ms."""
    path = Path(__file__).resolve().parents[1] / "data" / "native" / "ycsb_pkb" / "ycsb-test-run.dat"
    summary = parse_ycsb_text(path.read_text(), str(path))
    update = summary.operations["UPDATE"]
    assert update.latencies_us == {"avg": 65.9774011299435, "min": 42, "max": 345}
    assert update.bounds_us == {"p95": 1000, "p99": 1000} and update.returns == {"OK": 531}
    metrics = {metric: (value, unit) for metric, value, unit in summary_metrics(summary)}
    assert metrics["update_p95_latency_below_us"] == (1000, "us") and "update_p95_latency_us" not in metrics
    # a whole-millisecond percentile above 0 is a latency (the HBase run's 4 ms)
    hbase = parse_ycsb_text((path.parent / "ycsb-test-run-2.dat").read_text(), "run-2")
    assert hbase.operations["READ"].latencies_us["p95"] == 4000 and hbase.operations["READ"].bounds_us == {}
