"""`benchcamp import --from`: real HiBench reports, TestDFSIO results logs and YCSB outputs from
public repositories (tests/data/native/README.md names each), every figure checked against the
file's own text; then one warehouse, imported through the CLI and built once, for the marts.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import statistics
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.records import ResultRecord
from benchcamp.core.spec import load_spec
from benchcamp.ops.cli import main
from benchcamp.pipeline.native import NativeError, NativeImport, NativeRead, read_native
from benchcamp.presentation import report
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ArchivedStep, RunContext

DATA = Path(__file__).resolve().parents[1] / "data" / "native"
HIWALKER = DATA / "hibench" / "hiswalker_my-hibench.report"
ISIRATC = DATA / "hibench" / "isiratc_HiBench-GCP.report"
SERRANOBLE = DATA / "testdfsio" / "serranoble_mxor_hadoop_0.20.log"
WHALE = DATA / "testdfsio" / "rabbitKnow_whale.log"
ANDROID = DATA / "testdfsio" / "dustinmcafee_Hadoop_On_Android.log"
PKB = DATA / "ycsb_pkb"
WORDCOUNT_AXES = {"maps": 4, "reduces": 2}


def hibench(**options: Any) -> NativeImport:
    return NativeImport("hibench_dse", "native", "dse_cluster", **options)


def ycsb(**options: Any) -> NativeImport:
    return NativeImport("ycsb_hbase_cassandra", "native", "single_node", **options)


def runs(read: NativeRead) -> list[tuple[str, dict[str, Any], int, str, str, dict[str, float]]]:
    """(workload, params, repetition, status, artifact, {metric: value}) per run, in file order."""
    grouped: dict[str, list[ResultRecord]] = {}
    for record in read.records:
        grouped.setdefault(record.artifact or "", []).append(record)
    out = []
    for artifact, records in grouped.items():
        first = records[0]
        assert all(
            (r.workload, r.params, r.repetition, r.status)
            == (first.workload, first.params, first.repetition, first.status)
            for r in records
        )
        out.append(
            (
                first.workload,
                first.params,
                first.repetition,
                first.status,
                artifact,
                {r.metric: r.value for r in records},
            )
        )
    return out


def refusal(paths: list[Path], options: NativeImport, native_format: str | None = None) -> str:
    with pytest.raises(NativeError) as caught:
        read_native(native_format, paths, options)
    return str(caught.value)


# -- HiBench ------------------------------------------------------------------------------------


def test_hibench_report_lines_become_wordcount_repetitions() -> None:
    """HiBench 7's HadoopWordcount at four sizes; its HadoopPrepareWordcount lines left out by name."""
    read = read_native(
        "hibench-report",
        [HIWALKER],
        hibench(params=WORDCOUNT_AXES, skip=frozenset({"HadoopPrepareWordcount"}), timezone="Asia/Shanghai"),
    )
    assert read.skipped == {"HadoopPrepareWordcount": 6} and read.runs == 5
    # Input_data_size in GiB to three significant digits: 37045 B, 328498494 B, ... (lines 3 to 12)
    expected = [
        (3, 3.45e-05, 37.229, 37045, 995, 331),
        (5, 0.306, 58.245, 328498494, 5639943, 1879981),
        (7, 3.06, 177.766, 3284937410, 18478997, 6159665),
        (10, 30.6, 811.455, 32849109972, 40481739, 13493913),
        (12, 306.0, 7923.550, 328491529716, 41457620, 13819206),
    ]
    assert runs(read) == [
        ("wordcount", {"data_size_gb": size, **WORDCOUNT_AXES}, 1, "ok", f"{HIWALKER}:{line}", {
            "duration_s": seconds, "input_bytes": size_bytes, "throughput_bytes_s": rate,
            "throughput_per_node_bytes_s": per_node,
        })
        for line, size, seconds, size_bytes, rate, per_node in expected
    ]  # fmt: skip
    first = read.records[0]
    shanghai = ZoneInfo("Asia/Shanghai")
    assert first.finished_at == datetime(2018, 12, 27, 10, 54, 37, tzinfo=shanghai)
    assert first.started_at == datetime(2018, 12, 27, 10, 54, 37, tzinfo=shanghai) - timedelta(seconds=37.229)
    assert {r.unit for r in read.records if r.metric.startswith("throughput")} == {"B/s"}


def test_a_spark_run_counts_as_a_workload_only_when_mapped_by_name() -> None:
    """Seven ScalaSparkWordcount runs of 37988 B, then two of 3258300507 B (no final line feed)."""
    refused = refusal([ISIRATC], hibench(params=WORDCOUNT_AXES, timezone="Asia/Kolkata"))
    assert refused.startswith(
        f"{ISIRATC}:2: HiBench type 'ScalaSparkWordcount' is no workload of study 'hibench_dse'"
    )
    assert refused.endswith(
        "map it with --name ScalaSparkWordcount=WORKLOAD or leave it out with --skip ScalaSparkWordcount"
    )
    options = hibench(
        params=WORDCOUNT_AXES, names={"ScalaSparkWordcount": "wordcount"}, timezone="Asia/Kolkata"
    )
    read = read_native(None, [ISIRATC], options)
    small = [
        (58.145, 653),
        (51.614, 736),
        (52.952, 717),
        (52.062, 729),
        (53.381, 711),
        (54.083, 702),
        (60.578, 627),
    ]
    large = [(180.330, 18068543), (169.809, 19188031)]
    expected = [(3.54e-05, rep, 37988, seconds, rate) for rep, (seconds, rate) in enumerate(small, start=1)]
    expected += [(3.03, rep, 3258300507, seconds, rate) for rep, (seconds, rate) in enumerate(large, start=1)]
    assert runs(read) == [
        ("wordcount", {"data_size_gb": size, **WORDCOUNT_AXES}, rep, "ok", f"{ISIRATC}:{line}", {
            "duration_s": seconds, "input_bytes": size_bytes, "throughput_bytes_s": rate,
            "throughput_per_node_bytes_s": rate,
        })
        for line, (size, rep, size_bytes, seconds, rate) in enumerate(expected, start=2)
    ]  # fmt: skip
    assert read.records[-1].finished_at == datetime(2024, 3, 16, 14, 3, 14, tzinfo=ZoneInfo("Asia/Kolkata"))


def test_hibench_refusals_name_the_line_and_the_fix() -> None:
    skip = frozenset({"HadoopPrepareWordcount"})
    assert refusal([HIWALKER], hibench(params=WORDCOUNT_AXES, skip=skip)) == (
        f"{HIWALKER}:3: HiBench prints local times without a zone: give --timezone (an IANA zone such as "
        "UTC or Europe/Berlin)"
    )
    assert refusal([HIWALKER], hibench(skip=skip, timezone="UTC")) == (
        f"{HIWALKER}:3: the file does not say the maps, reduces of this run ('wordcount', series "
        "'wordcount_tuning'): give --param maps=VALUE --param reduces=VALUE"
    )
    conflict = hibench(params={**WORDCOUNT_AXES, "data_size_gb": 240}, skip=skip, timezone="UTC")
    assert (
        refusal([HIWALKER], conflict)
        == f"{HIWALKER}:3: data_size_gb is 3.45e-05 in the file, --param says 240"
    )
    assert (
        refusal([HIWALKER], hibench(params={"nodes": 8}))
        == "--param nodes: study 'hibench_dse' has no axis 'nodes'"
    )
    assert refusal([HIWALKER], NativeImport("hibench_dse", "c", "moon")).startswith(
        "study 'hibench_dse' has no environment 'moon'"
    )


def with_columns(tmp_path: Path, extra: dict[str, list[str]]) -> Path:
    """isiratc's report with columns beyond HiBench's seven, as a version or a script adding them writes."""
    lines = ISIRATC.read_text().splitlines()
    rows = [[*lines[0].split(), *extra]]
    rows += [[*line.split(), *(values[n] for values in extra.values())] for n, line in enumerate(lines[1:])]
    path = tmp_path / "hibench.report"
    path.write_text("\n".join("  ".join(row) for row in rows) + "\n")
    return path


SPARK = {"params": WORDCOUNT_AXES, "names": {"ScalaSparkWordcount": "wordcount"}, "timezone": "Asia/Kolkata"}


def test_a_report_with_more_columns_imports_its_figures_and_keeps_the_rest_as_facts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cores = [str(4 + n % 2) for n in range(9)]
    path = with_columns(tmp_path, {"Cores": cores, "Scheduler": ["fair"] * 9})
    read, plain = read_native(None, [path], hibench(**SPARK)), read_native(None, [ISIRATC], hibench(**SPARK))
    strip = [record.model_copy(update={"artifact": None}) for record in read.records]
    assert strip == [record.model_copy(update={"artifact": None}) for record in plain.records]
    assert [(f.repetition, f.name, f.value, f.source) for f in read.facts[:4]] == [
        (1, "Cores", "4", f"{path}:2"),
        (1, "Scheduler", "fair", f"{path}:2"),
        (2, "Cores", "5", f"{path}:3"),
        (2, "Scheduler", "fair", f"{path}:3"),
    ]
    assert len(read.facts) == 18 and {f.cell_key for f in read.facts} == {r.cell_key for r in read.records}
    # through the CLI: the facts land in raw.run_facts beside the records (marts not built here)
    from benchcamp.pipeline import transform

    target = tmp_path / "w.duckdb"
    args = ["import", str(path), "--study", "hibench_dse", "--campaign", "wide", "--environment", "dse_cluster",
            "--name", "ScalaSparkWordcount=wordcount", "--timezone", "Asia/Kolkata", "--param", "maps=4",
            "--param", "reduces=2", "--warehouse", str(target)]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transform, "build_marts", lambda *args, **kwargs: None)
        patch.setattr(report, "export_snapshot", lambda *args, **kwargs: None)
        assert main(args) == ExitCode.OK
        assert main(args) == ExitCode.OK  # again: replaced, not doubled
    capsys.readouterr()
    con = duckdb.connect(str(target), read_only=True)
    stored = con.execute(
        "select repetition, name, value, source from raw.run_facts where campaign = 'wide' "
        "and cell_key like 'wordcount|data_size_gb=3.03|%' order by repetition, name"
    ).fetchall()
    con.close()
    assert stored == [
        (1, "Cores", "5", f"{path}:9"), (1, "Scheduler", "fair", f"{path}:9"),
        (2, "Cores", "4", f"{path}:10"), (2, "Scheduler", "fair", f"{path}:10"),
    ]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:  # the same runs from HiBench's own seven columns
        patch.setattr(transform, "build_marts", lambda *args, **kwargs: None)
        patch.setattr(report, "export_snapshot", lambda *args, **kwargs: None)
        assert main([args[0], str(ISIRATC), *args[2:]]) == ExitCode.OK
    con = duckdb.connect(str(target), read_only=True)
    assert con.execute("select count(*) from raw.run_facts").fetchone() == (0,)  # replaced: none now
    con.close()


def test_a_report_whose_lines_do_not_match_its_header_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = with_columns(tmp_path, {"Cores": ["4"] * 9, "Options": ["-Dx=1 -Dy=2"] * 9})
    lines = path.read_text().splitlines()
    lines[2] = lines[2].rsplit(maxsplit=2)[0]  # the second run prints no Options: it has none
    path.write_text("\n".join(lines) + "\n")
    facts = [(f.repetition, f.name, f.value) for f in read_native(None, [path], hibench(**SPARK)).facts[:5]]
    assert facts == [(1, "Cores", "4"), (1, "Options", "-Dx=1 -Dy=2"), (2, "Cores", "4"), (3, "Cores", "4"),
                     (3, "Options", "-Dx=1 -Dy=2")]  # fmt: skip
    lines[3] = lines[3].rsplit(maxsplit=3)[0]  # the third run's Cores and Options lost
    path.write_text("\n".join(lines) + "\n")
    assert refusal([path], hibench(**SPARK)) == (
        f"{path}:4: 7 columns where the header at line 1 names 9 (Type Date Time Input_data_size Duration(s) "
        "Throughput(bytes/s) Throughput/node Cores Options): a line cut short or a value with a space; mend "
        "the line or delete it"
    )
    short = ISIRATC.read_text().splitlines()
    short[2] = short[2].rsplit(maxsplit=1)[0]
    path.write_text("\n".join(short))
    assert refusal([path], hibench(**SPARK)).startswith(
        f"{path}:3: 6 columns where the header at line 1 names 7"
    )
    for header, what in (
        ("Type Date Time Input_data_size Duration(s) Throughput(bytes/s)", "no column Throughput/node"),
        (
            "Type Date Time Input_data_size Duration(s) Throughput(bytes/s) Throughput/node Date",
            "the column Date twice",
        ),
    ):
        path.write_text(header + "\n" + "\n".join(ISIRATC.read_text().splitlines()[1:]))
        assert refusal([path], hibench(**SPARK), "hibench-report").startswith(
            f"{path}:1: HiBench's report header with {what}: it names {header}; HiBench writes Type Date"
        )
    assert not read_native(None, [ISIRATC], hibench(**SPARK)).facts  # HiBench's own seven: no facts


# -- TestDFSIO ----------------------------------------------------------------------------------


def test_every_block_of_an_appended_testdfsio_log_is_a_repetition_with_its_date() -> None:
    """Nine -write runs appended by Hadoop 0.20's TestDFSIO: one of 1 MB, eight of 10 MB."""
    refused = refusal([SERRANOBLE], hibench())
    assert refused == (
        f"{SERRANOBLE}:1: TestDFSIO printed the zone 'AEST', which names no single offset: give "
        "--timezone (an IANA zone such as UTC or Europe/Berlin)"
    )
    read = read_native("testdfsio-log", [SERRANOBLE], hibench(timezone="Australia/Sydney"))
    # (Total MBytes, throughput, average IO rate, IO rate σ, exec time, date) as each block prints them
    blocks = [
        (1, 5.376344086021505, 5.376344203948975, 1.3691206366575406e-4, 29.603, (6, 20, 14, 11, 51)),
        (10, 10.604453870625663, 10.604454040527344, 7.825616911596112e-4, 26.639, (6, 20, 14, 24, 32)),
        (10, 2.024701356549909, 2.0247013568878174, 4.410560062812206e-4, 47.689, (6, 22, 14, 59, 19)),
        (10, 2.9967036260113873, 2.996703624725342, 6.129212599585644e-4, 37.429, (6, 22, 15, 16, 45)),
        (10, 3.5410764872521248, 3.541076421737671, 6.789518594477992e-4, 28.427, (6, 24, 12, 26, 0)),
        (10, 4.203446826397646, 4.203446865081787, 8.635792130288303e-4, 51.812, (6, 27, 3, 31, 19)),
        (10, 4.393673110720562, 4.393672943115234, 7.6660230660858e-4, 27.222, (6, 27, 4, 26, 48)),
        (10, 4.703668861712136, 4.70366907119751, 7.411701614711163e-4, 40.652, (6, 28, 11, 5, 4)),
        (10, 3.5001750087504373, 3.5001749992370605, 6.679913361948279e-4, 34.165, (6, 28, 11, 42, 44)),
    ]
    assert runs(read) == [
        ("dfsio_write", {"data_size_gb": total / 1024}, rep, "ok", f"{SERRANOBLE}:{1 + 9 * index}", {
            "duration_s": seconds, "files": 1, "total_mb": total, "throughput_mb_s": throughput,
            "avg_io_rate_mb_s": rate, "io_rate_stddev_mb_s": sigma, "test_exec_time_s": seconds,
        })
        for index, (rep, (total, throughput, rate, sigma, seconds, _)) in enumerate(
            zip([1, 1, 2, 3, 4, 5, 6, 7, 8], blocks, strict=True)
        )
    ]  # fmt: skip
    sydney = ZoneInfo("Australia/Sydney")
    finished = [r.finished_at for r in read.records if r.metric == "duration_s"]
    assert finished == [datetime(2016, *date, tzinfo=sydney) for *_, date in blocks]
    assert finished[0] is not None and finished[0].utcoffset() == timedelta(hours=10)  # AEST


def test_a_zone_named_utc_needs_no_timezone_and_hkt_does() -> None:
    assert refusal([WHALE], hibench()).startswith(f"{WHALE}:1: TestDFSIO printed the zone 'HKT'")
    read = read_native(None, [WHALE], hibench(timezone="Asia/Hong_Kong"))
    assert [(params["data_size_gb"], rep, figures["throughput_mb_s"], figures["duration_s"]) for _, params, rep, *_, figures in runs(read)] == [
        (10 / 1024, 1, 52.63157894736842, 35.782),
        (1 / 1024, 1, 11.764705882352942, 31.56),
        (1 / 1024, 2, 11.363636363636363, 32.567),
    ]  # fmt: skip


def test_an_appended_block_the_next_header_follows_directly_is_a_run() -> None:
    """dustinmcafee's log: block 8 (read, 8 files) runs straight into the next run's header, every
    line of it printed: it is a run like the other 43."""
    read = read_native(None, [ANDROID], hibench(timezone="America/New_York"))
    found = runs(read)
    assert len(found) == 44
    workload, params, _, status, artifact, figures = found[7]
    assert (workload, params, status, artifact) == (
        "dfsio_read",
        {"data_size_gb": 1.0},
        "ok",
        f"{ANDROID}:64",
    )
    assert figures["duration_s"] == 90.69 and figures["throughput_mb_s"] == 65.19 and figures["files"] == 8


def test_a_block_cut_inside_its_lines_is_refused_naming_it(tmp_path: Path) -> None:
    """A line missing from block 8, or the file ending inside its last line (its number may be
    cut: 68.89 read as 68.8), refuses the whole log, naming the block and what is cut."""
    lines = ANDROID.read_text().splitlines(keepends=True)
    assert lines[70].strip() == "Test exec time sec: 90.69"
    missing = tmp_path / "missing.log"
    missing.write_text("".join(lines[:70] + lines[71:]))
    assert refusal([missing], hibench(timezone="America/New_York")) == (
        f"{missing}: 1 of 44 TestDFSIO blocks are incomplete: block 8 at line 64 (Sat Apr 21 15:37:58 "
        "EDT 2018, read): cut short, no 'Test exec time sec' line"
    )
    ended = tmp_path / "ended.log"
    ended.write_text(ANDROID.read_text().rstrip("\n")[:-1])
    assert ended.read_text().endswith("Test exec time sec: 68.8")
    assert refusal([ended], hibench(timezone="America/New_York")) == (
        f"{ended}: 1 of 44 TestDFSIO blocks are incomplete: block 44 at line 396 (Thu May 03 22:37:02 "
        "EDT 2018, read): cut short, the file ends inside its last line (no line feed after it)"
    )


def test_a_log_with_two_blocks_of_the_same_time_is_refused_naming_both(tmp_path: Path) -> None:
    """The whale log's last block pasted again (one run counted twice), or given another run's
    figures at the same second: refused either way, naming the two blocks."""
    text = WHALE.read_text()
    blocks = text.split("----- TestDFSIO ----- :")
    twice = tmp_path / "twice.log"
    twice.write_text(text + "----- TestDFSIO ----- :" + blocks[-1])
    found = refusal([twice], hibench(timezone="Asia/Hong_Kong"))
    assert re.fullmatch(
        rf"{re.escape(str(twice))}:\d+: block 4 ends at .+, as block 3 at line \d+ does: the same run "
        r"twice \(every line alike\): delete one of them",
        found,
    ), found
    other = tmp_path / "other.log"
    other.write_text(
        text + "----- TestDFSIO ----- :" + blocks[-1].replace("Number of files: 1", "Number of files: 2")
    )
    assert refusal([other], hibench(timezone="Asia/Hong_Kong")).endswith(
        "two runs cannot end in the same second of one appended log: keep one log's blocks per file"
    )


# -- YCSB ---------------------------------------------------------------------------------------


def test_a_folder_of_ycsb_outputs_is_one_repetition_per_file_with_the_echoed_axes() -> None:
    """Two YCSB 0.1 outputs (workloada): BasicDB, all under 1 ms; HBase with 6 threads, every READ -1."""
    refused = refusal([PKB], ycsb())
    assert refused == (
        f"{PKB / 'ycsb-test-run-2.dat'}:2: the file does not say the operationcount of this run ('ycsb_a', "
        "series 'operationcount_sweep'): give --param operationcount=VALUE"
    )
    assert refusal([PKB], ycsb(params={"operationcount": 1000})) == (
        f"{PKB / 'ycsb-test-run.dat'}:2: the file does not say the store of this run ('ycsb_a', series "
        "'operationcount_sweep'): give --param store=VALUE"
    )
    assert refusal([PKB], ycsb(params={"operationcount": 1000, "store": "cassandra"})) == (
        f"{PKB / 'ycsb-test-run-2.dat'}:2: store is 'hbase' in the file, --param says 'cassandra'"
    )
    read = read_native("ycsb-output", [PKB], ycsb(params={"operationcount": 1000, "store": "hbase"}))
    (hbase, basic) = runs(read)
    assert hbase[:5] == (
        "ycsb_a", {"store": "hbase", "operationcount": 1000, "threads": 6}, 1, "failed", f"{PKB / 'ycsb-test-run-2.dat'}:2"
    )  # fmt: skip
    assert hbase[5] == {
        "duration_s": 1800.413, "runtime_s": 1800.413, "throughput_ops_s": 2740.503428935472,
        "operations_ok": 2468054, "error_returns": 2465984, "operations_requested": 1000,
        "update_operations": 2468054, "update_avg_latency_us": 2218.8513395574005,
        "update_min_latency_us": 554, "update_max_latency_us": 352634,
        "update_p95_latency_us": 4000, "update_p99_latency_us": 7000, "update_return_ok": 2468054,
        "read_operations": 2465984, "read_avg_latency_us": 2148.281973443461,
        "read_min_latency_us": 514, "read_max_latency_us": 352714,
        "read_p95_latency_us": 4000, "read_p99_latency_us": 7000,
        "read_return_error_code_minus_1": 2465984,
        "cleanup_operations": 12, "cleanup_avg_latency_us": 174563.25, "cleanup_min_latency_us": 5,
        "cleanup_max_latency_us": 385844, "cleanup_p95_latency_us": 385000, "cleanup_p99_latency_us": 385000,
    }  # fmt: skip
    assert basic[:5] == (
        "ycsb_a", {"store": "hbase", "operationcount": 1000, "threads": 1}, 1, "ok", f"{PKB / 'ycsb-test-run.dat'}:2"
    )  # fmt: skip
    # "95thPercentileLatency(ms), 0" beside a 65.98 µs average: under 1 ms, kept as that bound
    assert basic[5] == {
        "duration_s": 0.08, "runtime_s": 0.08, "throughput_ops_s": 12500.0, "operations_ok": 1000,
        "error_returns": 0, "operations_requested": 1000,
        "update_operations": 531, "update_avg_latency_us": 65.9774011299435, "update_min_latency_us": 42,
        "update_max_latency_us": 345, "update_p95_latency_below_us": 1000,
        "update_p99_latency_below_us": 1000, "update_return_ok": 531,
        "read_operations": 469, "read_avg_latency_us": 38.47761194029851, "read_min_latency_us": 34,
        "read_max_latency_us": 102, "read_p95_latency_below_us": 1000, "read_p99_latency_below_us": 1000,
        "read_return_ok": 469,
        "cleanup_operations": 1, "cleanup_avg_latency_us": 1.0, "cleanup_min_latency_us": 1,
        "cleanup_max_latency_us": 1, "cleanup_p95_latency_below_us": 1000,
        "cleanup_p99_latency_below_us": 1000,
    }  # fmt: skip
    assert {r.started_at for r in read.records} == {None}  # YCSB 0.1 prints no time of day


def test_a_ycsb_output_of_standard_output_alone_imports_with_its_workload_and_axes_given(
    tmp_path: Path,
) -> None:
    """YCSB 0.17 echoes its command line on standard error, so `bin/ycsb run ... > run1.txt` holds
    the summary alone (tests/data/ycsb/basicdb/run_a, recorded here: workload A, 2 threads, -target
    2000): refused naming --name and --param while they are missing, imported once they are given."""
    run = tmp_path / "run1.txt"
    shutil.copy(
        Path(__file__).resolve().parents[1] / "data" / "ycsb" / "basicdb" / "run_a" / "stdout.log", run
    )
    assert "Command line" not in run.read_text()
    assert refusal([run], ycsb()) == (
        f"{run}: YCSB echoed no 'Command line:' (0.17 writes it on standard error: keep both, "
        "`> run1.txt 2>&1`), so the run's workload and axes are unknown: give them with --name "
        "run1.txt=WORKLOAD (one of ycsb_a, ycsb_b, ycsb_c, ycsb_d, ycsb_e, ycsb_f) and --param AXIS=VALUE"
    )
    named = {"run1.txt": "ycsb_a"}
    assert refusal([run], ycsb(names={"run1.txt": "workloada"})) == (
        f"{run}: --name run1.txt=workloada: no such workload in study 'ycsb_hbase_cassandra' "
        "(one of ycsb_a, ycsb_b, ycsb_c, ycsb_d, ycsb_e, ycsb_f)"
    )
    assert refusal([run], ycsb(names=named, params={"target_ops": 2000})) == (
        f"{run}:1: the file does not say the store, threads of this run ('ycsb_a', series "
        "'offered_load_sweep'): give --param store=VALUE --param threads=VALUE"
    )
    given = {"store": "hbase", "threads": 2, "target_ops": 2000}
    read = read_native(None, [run], ycsb(names=named, params=given))
    ((workload, params, repetition, status, artifact, figures),) = runs(read)
    assert (workload, params, repetition, status, artifact) == ("ycsb_a", given, 1, "ok", f"{run}:1")
    assert figures["duration_s"] == 0.506 and figures["throughput_ops_s"] == 1976.2845849802372
    assert figures["operations_ok"] == 1000 and figures["error_returns"] == 0


def test_a_ycsb_output_of_a_client_that_crashed_mid_run_is_refused_naming_where_it_ends(
    tmp_path: Path,
) -> None:
    """The recorded output cut inside its [UPDATE] section: between two lines, and inside one."""
    lines = (
        Path(__file__).resolve().parents[1] / "data" / "ycsb" / "basicdb" / "run_a" / "stdout.log"
    ).read_text()
    lines = lines.splitlines(keepends=True)
    assert lines[26] == "[UPDATE], MinLatency(us), 0\n"
    fix = "its client stopped before printing its whole summary (crashed or killed); leave the file out, or run "
    options = ycsb(names={"run1.txt": "ycsb_a"}, params={"store": "hbase", "threads": 2, "target_ops": 2000})
    run = tmp_path / "run1.txt"
    run.write_text("".join(lines[:27]))
    assert refusal([run], options) == (
        f"{run}: [UPDATE] has no max latency: YCSB output cut short (the file ends at line 27): {fix}"
        "that repetition again"
    )
    run.write_text("".join(lines[:27]) + "[UPDATE], Ma")
    assert refusal([run], options) == (
        f"{run}: line 28 is cut off ('[UPDATE], Ma'): YCSB output cut short (the file ends at line 28): {fix}"
        "that repetition again"
    )


# -- detection and the command line -------------------------------------------------------------


def test_unknown_and_ambiguous_content_is_refused_naming_the_file(tmp_path: Path) -> None:
    readme = DATA / "README.md"
    assert refusal([readme], hibench()) == (
        f"{readme}: neither a hibench.report, a TestDFSIO results log nor a YCSB output: give its format "
        "with --from (hibench-report, testdfsio-log, ycsb-output)"
    )
    both = tmp_path / "both.log"
    both.write_text(WHALE.read_text() + (PKB / "ycsb-test-run.dat").read_text())
    assert (
        refusal([both], hibench())
        == f"{both}: reads as testdfsio-log and as ycsb-output: give its format with --from"
    )
    assert refusal([tmp_path / "none"], hibench()) == f"{tmp_path / 'none'}: no such file or directory"


def test_the_cli_refuses_with_exit_2_and_loads_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "w.duckdb"
    assert (
        main(["import", str(ANDROID), "--study", "hibench_dse", "--warehouse", str(target)])
        == ExitCode.BAD_INPUT
    )
    assert "native files need --campaign, --environment" in capsys.readouterr().err
    common = [
        "--study",
        "hibench_dse",
        "--campaign",
        "c",
        "--environment",
        "dse_cluster",
        "--warehouse",
        str(target),
    ]
    cut = tmp_path / "cut.log"
    cut.write_text(ANDROID.read_text().rstrip("\n")[:-1])
    assert main(["import", str(cut), "--timezone", "America/New_York", *common]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err.endswith("(no line feed after it)\nnothing was loaded\n")
    assert main(["import", str(WHALE), "--param", "maps", *common]) == ExitCode.BAD_INPUT
    assert "--param 'maps': write NAME=VALUE" in capsys.readouterr().err
    assert main(["import", str(WHALE), str(SERRANOBLE), "--warehouse", str(target)]) == ExitCode.BAD_INPUT
    assert "one record file at a time" in capsys.readouterr().err
    assert not target.exists()


# -- one warehouse: the CLI's imports, one dbt build -----------------------------------------------


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[int], str]]:
    """Three imports through `benchcamp import`; only the last builds the marts (one dbt build)."""
    from benchcamp.pipeline import transform

    target = tmp_path_factory.mktemp("native") / "benchcamp.duckdb"
    common = ["--warehouse", str(target)]
    hibench_args = [
        "import", str(ISIRATC), "--study", "hibench_dse", "--campaign", "native_hibench",
        "--environment", "dse_cluster", "--name", "ScalaSparkWordcount=wordcount", "--timezone", "Asia/Kolkata",
        "--param", "maps=4", "--param", "reduces=2", *common,
    ]  # fmt: skip
    dfsio_args = [
        "import", str(SERRANOBLE), "--from", "testdfsio-log", "--study", "hibench_dse", "--campaign",
        "native_dfsio", "--environment", "dse_cluster", "--timezone", "Australia/Sydney", *common,
    ]  # fmt: skip
    ycsb_args = [
        "import", str(PKB), "--study", "ycsb_hbase_cassandra", "--campaign", "native_ycsb",
        "--environment", "single_node", "--param", "store=hbase", "--param", "operationcount=1000", *common,
    ]  # fmt: skip
    codes = []
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(transform, "build_marts", lambda *args, **kwargs: None)
        patch.setattr(report, "export_snapshot", lambda *args, **kwargs: None)
        codes.append(main(hibench_args))
        codes.append(main(dfsio_args))
        patch.undo()
        codes.append(main(ycsb_args))
    tables = report.read_tables(target, "ycsb_hbase_cassandra", "native_ycsb")
    yield target, codes, printed.getvalue() + report.render(tables, "table", "ycsb_hbase_cassandra")


def test_imports_pass_the_same_gate_as_record_files(imported: tuple[Path, list[int], str]) -> None:
    """The Spark WordCount runs pass the σ gate; the eight 10 MB TestDFSIO writes (their exec times'
    σ% 25.8) and the YCSB folder (a failed repetition) are loaded and marked, as a record file's."""
    _, codes, text = imported
    assert codes == [ExitCode.OK, ExitCode.VALIDATION_FAILED, ExitCode.VALIDATION_FAILED]
    times = [26.639, 47.689, 37.429, 28.427, 51.812, 27.222, 40.652, 34.165]
    sigma_pct = statistics.stdev(times) / statistics.mean(times) * 100
    lines = text.splitlines()
    assert lines[:3] == [
        "1 file(s): 9 runs, 36 records",
        "hibench_dse / native_hibench: 36 records (36 new, 0 replaced)",
        f"all expectations passed; warehouse: {imported[0]}",
    ]
    assert lines[3:9] == [
        "1 file(s): 9 runs, 63 records",
        "hibench_dse / native_dfsio: 63 records (63 new, 0 replaced)",
        "FAILED stddev_within_threshold [hibench_dse/native_dfsio] dfsio_write|data_size_gb=0.009765625: "
        f"σ% {sigma_pct:.1f} > 10 (n=8)",
        "1 file(s): 2 runs, 52 records",
        "ycsb_hbase_cassandra / native_ycsb: 52 records (52 new, 0 replaced)",
        "FAILED repetitions_ok [ycsb_hbase_cassandra/native_ycsb] ycsb_a|operationcount=1000|store=hbase|"
        "threads=6: 1 of 1 repetitions failed (repetition 1)",
    ]


def test_the_marts_hold_the_files_figures(imported: tuple[Path, list[int], str]) -> None:
    target, _, _ = imported
    scaling = report.read_tables(target, "hibench_dse", "native_hibench")["scaling"]
    small = [58.145, 51.614, 52.952, 52.062, 53.381, 54.083, 60.578]
    (row,) = [r for r in scaling if r["data_size_gb"] == 3.54e-05]
    assert row["n"] == 7 and row["mean_s"] == pytest.approx(statistics.mean(small), abs=1e-9)
    assert row["stddev_s"] == pytest.approx(statistics.stdev(small), abs=1e-9)
    ycsb_rows = report.read_tables(target, "ycsb_hbase_cassandra", "native_ycsb")["ycsb_summary"]
    update = [r for r in ycsb_rows if r["op_type"] == "update" and r["threads"] == 1]
    assert [
        (r["avg_latency_us"], r["p95_latency_us"], r["p95_latency_below_us"], r["p95_below_n"])
        for r in update
    ] == [(65.9774011299435, None, 1000, 1)]


def test_the_report_shows_a_sub_millisecond_percentile_as_its_bound(
    imported: tuple[Path, list[int], str],
) -> None:
    _, _, text = imported
    # the condition (operationcount=1000, threads=1) is printed on its first row, read's
    (read, update) = [row for row in text.splitlines() if "| read " in row or "| update " in row][:2]
    assert "threads=1" in read and "38.48" in read and read.count("< 1000") == 2
    assert "65.98" in update and update.count("< 1000") == 2  # p95 and p99, never 0.00


# -- YCSB's histogram logs: the served rate ------------------------------------------------------

ONE_CLIENT = (
    Path(__file__).resolve().parents[1] / "data" / "ycsb" / "pipeline" / "cassandra_a_target500_one_client"
)


def one_client_output(folder: Path, stem: str = "", later_s: float = 0.0) -> Path:
    """The recorded one-client run (tests/data/ycsb/pipeline/README.md) as a user's `bin/ycsb run ...
    > run1.txt 2>&1` leaves it: the run's stderr from its command line on, then its stdout, and its
    HdrHistogram logs beside it. The project's client gives workload a's proportions as -p; a user's
    names its -P file, added to the command line here, and writes its logs to `<stem><OPERATION>.hdr`."""
    stderr = (ONE_CLIENT / "stderr.log").read_text().splitlines(keepends=True)
    start = max(number for number, line in enumerate(stderr) if line.startswith("Command line: -t "))
    command = stderr[start].replace("Command line: -t ", "Command line: -t -P workloads/workloada ", 1)
    if stem:
        command = re.sub(
            r"hdrhistogram\.output\.path=\S+", f"hdrhistogram.output.path=/ycsb/out/{stem}", command
        )
    folder.mkdir(parents=True, exist_ok=True)
    output = folder / f"{stem or 'run'}.txt"
    output.write_text(command + "".join(stderr[start + 1 :]) + (ONE_CLIENT / "stdout.log").read_text())
    for log in ONE_CLIENT.glob("*.hdr"):
        text = log.read_text()
        if later_s:  # another repetition: the same latencies, logged `later_s` after the recorded run
            text = re.sub(
                r"#\[StartTime: (\d+\.\d+)", lambda m: f"#[StartTime: {float(m[1]) + later_s:.3f}", text
            )
        (folder / f"{stem}{log.name}").write_text(text)
    return output


def campaign_figures(step: Path) -> dict[str, float]:
    """What a campaign's parser records from the same archived step (one client at -target 500)."""
    spec = load_spec("ycsb_hbase_cassandra")
    cell = {"store": "cassandra", "target_ops": 500, "threads": 16, "clients": 1}
    ctx = RunContext(spec, spec.environment("local_lab"), "c1", "ycsb_a", cell, 1, "tiny")  # type: ignore[arg-type]
    moment = datetime(2026, 11, 28, tzinfo=ZoneInfo("UTC"))
    archived = ArchivedStep(directory=step, exit_code=0, started_at=moment, finished_at=moment, files={})
    return {r.metric: r.value for r in get_workload("ycsb_a").parse(ctx, archived)}


def test_a_ycsb_output_with_its_histogram_logs_gets_the_served_rate_a_campaign_records(
    tmp_path: Path,
) -> None:
    """YCSB's throughput over its RunTime, which holds the client's store connection, is 273 ops/s;
    over the period its logs cover it served 493, the figure the campaign recorded from the same run."""
    output = one_client_output(tmp_path / "runs")
    read = read_native(None, [output.parent], ycsb())
    ((workload, params, repetition, status, artifact, figures),) = runs(read)
    assert (workload, params, repetition, status) == (
        "ycsb_a", {"store": "cassandra", "target_ops": 500, "threads": 16}, 1, "ok"
    )  # fmt: skip
    # the command line names an operationcount and a -target: a point of the offered-load series
    assert figures["operations_requested"] == 1000
    campaign = campaign_figures(ONE_CLIENT)
    assert figures["served_s"] == pytest.approx(campaign["served_s"])
    assert figures["served_throughput_ops_s"] == pytest.approx(campaign["served_throughput_ops_s"])
    assert (round(figures["throughput_ops_s"]), round(figures["served_throughput_ops_s"])) == (273, 493)
    assert read.notes == ()


def test_histogram_logs_named_by_the_output_path_are_found_beside_their_run(tmp_path: Path) -> None:
    """Two runs in one folder, each with its own hdrhistogram.output.path stem: each reads its own."""
    first = one_client_output(tmp_path, "run1-")
    one_client_output(tmp_path, "run2-", later_s=60)
    read = read_native(None, [tmp_path], ycsb())
    assert [r[2] for r in runs(read)] == [1, 2]
    assert {round(r[5]["served_throughput_ops_s"]) for r in runs(read)} == {493}
    # a log of a run that is not imported, or that no run names, is refused rather than ignored
    (tmp_path / "run2-.txt").unlink()
    stray = sorted(tmp_path.glob("run2-*.hdr"))
    assert refusal([tmp_path], ycsb()) == (
        f"{stray[0]}: an HdrHistogram log that no YCSB output here names (its hdrhistogram.output.path "
        f"and operation); {len(stray)} such log(s): move them out, or add their run"
    )
    assert refusal([stray[0]], ycsb()) == (
        f"{stray[0]}: an HdrHistogram log, not a run: give the YCSB output that wrote it (its logs are "
        "read beside it)"
    )
    assert runs(read_native(None, [first], ycsb()))[0][5]["served_s"] > 0


def test_a_ycsb_run_without_its_logs_keeps_yscb_throughput_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = one_client_output(tmp_path)
    for log in tmp_path.glob("*.hdr"):
        log.unlink()
    read = read_native(None, [output], ycsb())
    figures = runs(read)[0][5]
    assert "served_throughput_ops_s" not in figures and round(figures["throughput_ops_s"]) == 273
    assert read.notes == (
        f"{output}: no served rate: its histogram logs (READ.hdr, CLEANUP.hdr, UPDATE.hdr, Intended-READ.hdr, "
        "Intended-CLEANUP.hdr, Intended-UPDATE.hdr) are not beside it",
    )


def test_logs_of_another_run_or_only_some_logs_are_refused(tmp_path: Path) -> None:
    output = one_client_output(tmp_path)
    (tmp_path / "UPDATE.hdr").unlink()
    assert refusal([output], ycsb()) == (
        f"{output}: the histogram logs UPDATE.hdr are missing beside it, while READ.hdr, CLEANUP.hdr, "
        "Intended-READ.hdr, Intended-CLEANUP.hdr, Intended-UPDATE.hdr are there: copy every log of the run"
    )
    shutil.copy(tmp_path / "READ.hdr", tmp_path / "UPDATE.hdr")  # READ's 517 latencies, not UPDATE's 483
    assert refusal([output], ycsb()) == (
        f"{tmp_path / 'UPDATE.hdr'}: holds 517 latencies, {output} counts 483 UPDATE operations: the log is "
        f"from another run (hdrhistogram.output.path=/work/main/.lab/work/ycsb_hbase_cassandra/rec_one_client/"
        "ycsb_a_store=cassandra_target_ops=500_threads=16/rep1/jobs/execute-try1/)"
    )


# -- several clients of one run -----------------------------------------------------------------

TWO_CLIENTS = Path(__file__).resolve().parents[1] / "data" / "ycsb" / "pipeline" / "cassandra_a_two_clients"


def two_client_run(folder: Path, edit: dict[str, tuple[str, str]] | None = None) -> Path:
    """The recorded two-client run (clients of 8 threads at 250 ops/s each, started together) as
    a user keeps it: `client1.txt` and `client2.txt` (stderr from the command line on, then
    stdout, with the -P workload file named) and each client's HdrHistogram logs beside them.
    `edit` replaces text in a client's output (`{"client2": (old, new)}`)."""
    folder.mkdir(parents=True)
    for client in ("client1", "client2"):
        stderr = (TWO_CLIENTS / f"{client}.stderr.log").read_text().splitlines(keepends=True)
        start = max(number for number, line in enumerate(stderr) if line.startswith("Command line: -t "))
        command = stderr[start].replace("Command line: -t ", "Command line: -t -P workloads/workloada ", 1)
        text = command + "".join(stderr[start + 1 :]) + (TWO_CLIENTS / f"{client}.stdout.log").read_text()
        if edit and client in edit:
            old, new = edit[client]
            assert old in text
            text = text.replace(old, new, 1)
        (folder / f"{client}.txt").write_text(text)
        for log in TWO_CLIENTS.glob(f"{client}.*.hdr"):
            shutil.copy(log, folder / log.name)
    return folder


def test_a_folder_of_client_outputs_is_one_run_with_the_figures_the_campaign_merged(tmp_path: Path) -> None:
    """Throughputs summed and percentiles from the merged histograms, exactly as the campaign's
    parser gave them from the same archived step; the run's target and operations the sums."""
    two_client_run(tmp_path / "runs" / "night1")
    read = read_native(None, [tmp_path / "runs"], ycsb())
    ((workload, params, repetition, status, artifact, figures),) = runs(read)
    assert (workload, params, repetition, status) == (
        "ycsb_a", {"clients": 2, "store": "cassandra", "target_ops": 500, "threads": 8}, 1, "ok"
    )  # fmt: skip
    assert artifact == f"{tmp_path / 'runs' / 'night1'}/ (2 clients)"
    assert figures["operations_requested"] == 1000
    spec = load_spec("ycsb_hbase_cassandra")
    cell = {"store": "cassandra", "target_ops": 500, "threads": 8, "clients": 2}
    ctx = RunContext(spec, spec.environment("local_lab"), "c1", "ycsb_a", cell, 1, "tiny")  # type: ignore[arg-type]
    moment = datetime(2026, 11, 27, tzinfo=ZoneInfo("UTC"))
    archived = ArchivedStep(
        directory=TWO_CLIENTS, exit_code=0, started_at=moment, finished_at=moment, files={}
    )
    campaign = {r.metric: r.value for r in get_workload("ycsb_a").parse(ctx, archived)}
    compared = [
        "throughput_ops_s", "served_s", "served_throughput_ops_s", "read_p95_latency_us",
        "read_p99_latency_us", "update_p95_latency_us", "update_p99_latency_us", "read_avg_latency_us",
    ]  # fmt: skip
    assert {m: figures[m] for m in compared} == pytest.approx({m: campaign[m] for m in compared})
    client_rates = [
        float(line.split(", ")[2])
        for client in ("client1", "client2")
        for line in (TWO_CLIENTS / f"{client}.stdout.log").read_text().splitlines()
        if line.startswith("[OVERALL], Throughput")
    ]
    assert figures["throughput_ops_s"] == pytest.approx(sum(client_rates))
    assert read.notes == ()


def test_clients_of_one_run_given_as_files_are_refused_not_read_as_two_repetitions(tmp_path: Path) -> None:
    """Each alone would show half the run's throughput: their logs cover the same seconds."""
    folder = two_client_run(tmp_path / "night1")
    message = refusal([folder], ycsb())
    assert f"{folder / 'client1.txt'}:1: ran at the same time as {folder / 'client2.txt'}:1" in message
    assert "ran at the same time as" in message and "clients of one run, not two repetitions" in message
    # one run's output given twice is named as such
    one_client_output(tmp_path / "twice", "run1-")
    one_client_output(tmp_path / "twice", "run2-")
    assert "the same run as" in refusal([tmp_path / "twice"], ycsb())


def test_a_run_of_clients_that_cannot_be_merged_is_refused_naming_the_file(tmp_path: Path) -> None:
    # a client without its histogram logs: its percentiles could only be averaged
    folder = two_client_run(tmp_path / "a" / "night1")
    for log in folder.glob("client2.*.hdr"):
        log.unlink()
    assert refusal([folder.parent], ycsb()).startswith(
        f"{folder / 'client2.txt'}: no served rate: its histogram logs"
    )
    assert "since percentiles cannot be averaged" in refusal([folder.parent], ycsb())
    # clients that disagree on a setting other than their shares
    folder = two_client_run(tmp_path / "b" / "night1", {"client2": ("-threads 8", "-threads 4")})
    assert "threads is 4" in refusal([folder.parent], ycsb())
    # a folder deeper down, or a folder with one client, is refused, not skipped
    folder = two_client_run(tmp_path / "c" / "night1")
    (folder / "old").mkdir()
    assert refusal([folder.parent], ycsb()) == (
        f"{folder / 'old'}: a folder inside a run's folder: a folder holds the outputs of one run's "
        "clients, one file each; move it out"
    )
    folder = two_client_run(tmp_path / "d" / "night1")
    (folder / "client2.txt").unlink()
    for log in folder.glob("client2.*.hdr"):
        log.unlink()
    assert "has a single output" in refusal([folder.parent], ycsb())
    # a log in a run's folder that no client names is stray, as beside a single run
    folder = two_client_run(tmp_path / "e" / "night1")
    shutil.copy(folder / "client1.READ.hdr", folder / "client3.READ.hdr")
    assert refusal([folder.parent], ycsb()).startswith(f"{folder / 'client3.READ.hdr'}: an HdrHistogram log")
