"""Every public file under tests/data/native (README.md names its repository, path and commit)
imported through `read_native` with the options a user would give, the figures checked against
the file's own text; the refusals of files that cannot be imported, asserted or marked xfail."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest
from benchcamp.pipeline.native import NativeError, NativeImport, read_native

DATA = Path(__file__).resolve().parents[1] / "data" / "native"
WORDCOUNT = {"maps": 4, "reduces": 2}
# HiBench 7 types no study has (shchenxi/web-eng runs the whole suite three times)
SHCHENXI_SKIP = frozenset(
    "ALS GradientBoostingTree HadoopBayes HadoopKmeans HadoopPagerank HadoopScan HadoopSleep "
    "HadoopSort HadoopTerasort LDA LinearRegression LogisticRegression PCA RandomForest SVD SVM "
    "ScalaSparkAggregation ScalaSparkBayes ScalaSparkJoin ScalaSparkKmeans ScalaSparkPagerank "
    "ScalaSparkScan ScalaSparkSleep ScalaSparkSort ScalaSparkTerasort ScalaSparkWordcount".split()
)


def hibench(**options: Any) -> NativeImport:
    return NativeImport("hibench_dse", "native", "dse_cluster", **options)


def ycsb(file: str | None = None, workload: str = "ycsb_a", **params: Any) -> NativeImport:
    """YCSB standard output alone names no workload: --name FILE=WORKLOAD and every axis as --param."""
    names = {file: workload} if file else {}
    return NativeImport("ycsb_hbase_cassandra", "native", "single_node", names=names, params=params)


class Case(NamedTuple):
    path: str
    options: NativeImport
    runs: int | str  # the number of runs, or the refusal's text after "<path>"
    first: tuple[str, dict[str, Any], str, dict[str, float]] | None = (
        None  # workload, params, status, figures
    )
    skipped: int = 0
    native_format: str | None = None


A1000 = {"store": "cassandra", "threads": 1, "operationcount": 1000}
NEITHER = (
    ": neither a hibench.report, a TestDFSIO results log nor a YCSB output: give its format with --from "
    "(hibench-report, testdfsio-log, ycsb-output)"
)

CASES = [
    # -- hibench.report (the first two, and the first three logs and both PKB outputs, were recorded first)
    Case("hibench/hiswalker_my-hibench.report",
         hibench(params=WORDCOUNT, skip=frozenset({"HadoopPrepareWordcount"}), timezone="Asia/Shanghai"), 5,
         ("wordcount", {"data_size_gb": 3.45e-05, **WORDCOUNT}, "ok", {"duration_s": 37.229, "input_bytes": 37045}),
         skipped=6),
    Case("hibench/isiratc_HiBench-GCP.report",
         hibench(params=WORDCOUNT, names={"ScalaSparkWordcount": "wordcount"}, timezone="Asia/Kolkata"), 9,
         ("wordcount", {"data_size_gb": 3.54e-05, **WORDCOUNT}, "ok", {"duration_s": 58.145, "throughput_bytes_s": 653})),
    Case("hibench/tarun6285_Big-Data-Hadoop-HiBench.report", hibench(params=WORDCOUNT, timezone="UTC"), 1,
         ("wordcount", {"data_size_gb": 3.45e-05, **WORDCOUNT}, "ok",
          {"duration_s": 26.635, "input_bytes": 37043, "throughput_bytes_s": 1390})),
    Case("hibench/shchenxi_web-eng.report",
         hibench(params=WORDCOUNT, skip=SHCHENXI_SKIP, timezone="Asia/Shanghai"), 15,
         ("wordcount", {"data_size_gb": 3.34e-05, **WORDCOUNT}, "ok",
          {"duration_s": 44.899, "input_bytes": 35829, "throughput_per_node_bytes_s": 265}), skipped=69),
    # a fork's eighth column, Options: the job's space-separated -D flags, the rest of the line (a fact)
    Case("hibench/piotrszul_HiBench.report",
         hibench(names={"DFSIO-WRITE": "dfsio_write", "DFSIO-READ": "dfsio_read"},
                 skip=frozenset({"HIVEAGGR", "HIVEJOIN"}), timezone="Australia/Brisbane"), 27,
         ("dfsio_write", {"data_size_gb": 1250.0}, "ok",
          {"duration_s": 231.428, "throughput_bytes_s": 5799545839}), skipped=17),
    # HiBench 2 printed Type Date Time Duration when it could not read the input size: the size is --param's
    Case("hibench/brownsys_HiBench.report",
         hibench(params={**WORDCOUNT, "data_size_gb": 240}, timezone="America/New_York"), 33,
         ("wordcount", {"data_size_gb": 240, **WORDCOUNT}, "ok", {"duration_s": 121.45})),
    # a `tail` of a report with tail's own error line, no header: not what HiBench writes (CRLF)
    Case("hibench/mayanktiwari09_spark-k8s.report", hibench(names={"ScalaSparkJoin": "hive_join"}, timezone="UTC"),
         NEITHER),
    # 1,000 ScalaSparkWordcount runs of one 3.8 GiB input in five hours of 2019-10-28 (the zone is
    # the user's to give: the report prints none)
    Case("hibench/chaoqin-li1123_SparkExperiment_wordcount.report",
         hibench(params=WORDCOUNT, names={"ScalaSparkWordcount": "wordcount"}, timezone="America/Chicago"), 1000,
         ("wordcount", {"data_size_gb": 3.82, **WORDCOUNT}, "ok",
          {"duration_s": 15.373, "input_bytes": 4106136489, "throughput_bytes_s": 267100532})),
    # the same repository's ScalaSparkSort runs: a type no study has, refused naming both ways out
    Case("hibench/chaoqin-li1123_SparkExperiment_sort.report", hibench(timezone="America/Chicago"),
         ":2: HiBench type 'ScalaSparkSort' is no workload of study 'hibench_dse' (it maps: "),
    # HiBench 2 on CDH5 with HDFS paths where the size belongs and two foreign lines: no report
    Case("hibench/yanghaogn_HiBench-CDH5.report", hibench(params=WORDCOUNT, timezone="Asia/Shanghai"), NEITHER),
    # -- TestDFSIO results logs
    Case("testdfsio/serranoble_mxor_hadoop_0.20.log", hibench(timezone="Australia/Sydney"), 9,
         ("dfsio_write", {"data_size_gb": 1 / 1024}, "ok", {"duration_s": 29.603, "throughput_mb_s": 5.376344086021505})),
    Case("testdfsio/rabbitKnow_whale.log", hibench(timezone="Asia/Hong_Kong"), 3,
         ("dfsio_write", {"data_size_gb": 10 / 1024}, "ok", {"duration_s": 35.782, "throughput_mb_s": 52.63157894736842})),
    Case("testdfsio/dustinmcafee_Hadoop_On_Android.log", hibench(timezone="America/New_York"), 44,
         ("dfsio_write", {"data_size_gb": 1.0}, "ok", {"duration_s": 65.69, "throughput_mb_s": 48.23, "files": 1})),
    Case("testdfsio/Intel-bigdata_SSM.log", hibench(timezone="Asia/Shanghai"), 1,
         ("dfsio_write", {"data_size_gb": 10000 / 1024}, "ok",
          {"duration_s": 346.93, "files": 100, "throughput_mb_s": 81.64, "io_rate_stddev_mb_s": 52.28})),
    Case("testdfsio/JochemTSR_TachyonStudy.log", hibench(timezone="Europe/Amsterdam"), 1,
         ("dfsio_write", {"data_size_gb": 1 / 1024}, "ok", {"duration_s": 2.1, "throughput_mb_s": 20})),
    Case("testdfsio/yudnkuku_SpringMvcDemo.log", hibench(timezone="Asia/Shanghai"), 2,
         ("dfsio_write", {"data_size_gb": 100 / 1024}, "ok", {"duration_s": 340.42, "avg_io_rate_mb_s": 434.7})),
    Case("testdfsio/piotrszul_HiBench.log", hibench(timezone="Australia/Brisbane"), 4,
         ("dfsio_write", {"data_size_gb": 1250.0}, "ok",
          {"duration_s": 231.528, "files": 128, "throughput_mb_s": 66.18597721837298})),
    Case("testdfsio/serranoble_mxor_hadoop_0.20_bin.log", hibench(timezone="Australia/Sydney"), 2,
         ("dfsio_write", {"data_size_gb": 640 / 1024}, "ok",
          {"duration_s": 97.669, "io_rate_stddev_mb_s": 0.0017826680720851166})),
    Case("testdfsio/aditsinha_Hobbes.log", hibench(), 135,  # dated UTC: no --timezone
         ("dfsio_write", {"data_size_gb": 900 / 1024}, "ok",
          {"duration_s": 60.521, "files": 9, "throughput_mb_s": 21.16650987770461})),
    # -- YCSB outputs
    Case("ycsb_pkb/ycsb-test-run.dat", ycsb(store="hbase", operationcount=1000), 1,
         ("ycsb_a", {"store": "hbase", "operationcount": 1000, "threads": 1}, "ok",
          {"duration_s": 0.08, "throughput_ops_s": 12500.0, "update_p95_latency_below_us": 1000})),
    Case("ycsb_pkb/ycsb-test-run-2.dat", ycsb(operationcount=1000), 1,
         ("ycsb_a", {"store": "hbase", "operationcount": 1000, "threads": 6}, "failed",
          {"duration_s": 1800.413, "throughput_ops_s": 2740.503428935472, "error_returns": 2465984})),
    Case("ycsb/Depdx_LOG8430.txt", ycsb("Depdx_LOG8430.txt", **A1000), 1,
         ("ycsb_a", A1000, "ok", {"duration_s": 0.675, "throughput_ops_s": 1481.4814814814815,
                                  "read_p95_latency_us": 319, "update_operations": 527})),
    Case("ycsb/PlayerGhost_ycsb-0.17.0-with-custom-workloads.txt",
         ycsb("PlayerGhost_ycsb-0.17.0-with-custom-workloads.txt", **A1000), 1,
         ("ycsb_a", A1000, "ok", {"duration_s": 0.195, "throughput_ops_s": 5128.205128205128,
                                  "update_p99_latency_us": 238})),
    Case("ycsb/rodrigotnoronha_ic-2016.txt", ycsb("rodrigotnoronha_ic-2016.txt", **A1000), 1,
         ("ycsb_a", A1000, "ok", {"duration_s": 0.594, "read_operations": 508, "update_max_latency_us": 65439})),
    Case("ycsb/GlobalDataPlane_YCSB.dat", ycsb("GlobalDataPlane_YCSB.dat", **A1000), 1,
         ("ycsb_a", A1000, "ok", {"duration_s": 0.663, "read_p99_latency_us": 37695})),
    Case("ycsb/lesslyrics_YCSB.dat", ycsb("lesslyrics_YCSB.dat", **A1000), 1,
         ("ycsb_a", A1000, "ok", {"duration_s": 0.05, "throughput_ops_s": 20000.0, "cleanup_operations": 10})),
    # MongoDB's binding (-db ...AsyncMongoDbClient): a --param store cannot make it HBase or Cassandra
    Case("ycsb/Junyi1995_YCSB-and-collected-data.txt", ycsb(store="cassandra", operationcount=1000),
         ":2: -db com.yahoo.ycsb.db.AsyncMongoDbClient drives a store that study 'ycsb_hbase_cassandra' "
         "does not measure (its stores: cassandra, hbase): its figures are that store's; leave the file out"),
    Case("ycsb/GoogleCloudPlatform_PerfKitBenchmarker_4.dat",
         ycsb("GoogleCloudPlatform_PerfKitBenchmarker_4.dat", "ycsb_c", store="cassandra", threads=1,
              operationcount=100), 1,
         ("ycsb_c", {"store": "cassandra", "threads": 1, "operationcount": 100}, "failed",
          {"duration_s": 29.77, "read_return_ok": 4, "read_return_error": 96, "read_p95_latency_us": 22735})),
    # YCSB 0.9.0 against Redis, stack traces and no summary: the client never finished
    Case("ycsb/GoogleCloudPlatform_PerfKitBenchmarker_3.dat", ycsb(store="cassandra"),
         ": no [OVERALL], RunTime(ms) line: YCSB output cut short (the file ends at line 64): its client "
         "stopped before printing its whole summary (crashed or killed); leave the file out, or run that "
         "repetition again", native_format="ycsb-output"),
    # the same file told by its content: the Client's echo says YCSB, cut before its summary
    Case("ycsb/GoogleCloudPlatform_PerfKitBenchmarker_3.dat", ycsb(store="cassandra"),
         ": no [OVERALL], RunTime(ms) line: YCSB output cut short"),
    # the client printed its usage (a bad -p), no run at all
    Case("ycsb/brianfrankcooper_YCSB.dat", ycsb(store="cassandra"), NEITHER),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.path.split("/")[-1])
def test_a_public_file_imports_with_its_printed_figures(case: Case) -> None:
    path = DATA / case.path
    if isinstance(case.runs, str):
        with pytest.raises(NativeError) as caught:
            read_native(case.native_format, [path], case.options)
        assert str(caught.value).startswith(f"{path}{case.runs}"), str(caught.value)
        return
    read = read_native(case.native_format, [path], case.options)
    assert read.runs == case.runs and sum(read.skipped.values()) == case.skipped
    assert case.first is not None
    workload, params, status, figures = case.first
    first = [r for r in read.records if r.artifact == read.records[0].artifact]
    assert (first[0].workload, first[0].params, first[0].status) == (workload, params, status)
    assert {r.metric: r.value for r in first if r.metric in figures} == figures


def test_a_forks_options_column_is_kept_whole_as_each_runs_fact() -> None:
    names = {"DFSIO-WRITE": "dfsio_write", "DFSIO-READ": "dfsio_read"}
    options = hibench(names=names, skip=frozenset({"HIVEAGGR", "HIVEJOIN"}), timezone="Australia/Brisbane")
    read = read_native(None, [DATA / "hibench" / "piotrszul_HiBench.report"], options)
    assert len(read.facts) == 27 and {fact.name for fact in read.facts} == {"Options"}
    assert read.facts[0].value == (
        "-Ddfs.blocksize=128M -Ddfs.replication=1 -Dmapred.reduce.slowstart.completed.maps=0.95"
    )


def test_a_hibench_2_line_without_its_size_keeps_its_duration_and_needs_the_size_given() -> None:
    path = DATA / "hibench" / "brownsys_HiBench.report"
    refused = refusal_of(path, hibench(params=WORDCOUNT, timezone="America/New_York"))
    assert refused == (
        f"{path}:2: the file does not say the data_size_gb of this run ('wordcount', series "
        "'wordcount_tuning'): give --param data_size_gb=VALUE"
    )
    read = read_native(
        None, [path], hibench(params={**WORDCOUNT, "data_size_gb": 240}, timezone="America/New_York")
    )
    assert {record.metric for record in read.records} == {"duration_s"}  # no throughput made up
    assert read.notes == (
        "HiBench 2 printed no input size for some runs: their duration kept, data_size_gb from --param (33 runs)",
    )


def refusal_of(path: Path, options: NativeImport) -> str:
    with pytest.raises(NativeError) as caught:
        read_native(None, [path], options)
    return str(caught.value)
