"""Each study's `published/template.csv` through the real `benchcamp import`, into a warehouse of
its own (one import, one dbt build per study), with exact figures checked in the marts.

The templates hold what the studies publish (STUDIES.md) and leave empty what they do not; the
empty values are filled here with made-up numbers, chosen where the study states a derived figure
(the interconnects' % improvements) so that the marts must give exactly that figure. BigBench's
template is imported by tests/studies/bigbench_containers/test_bigbench_analysis.py and HiBench's by
tests/studies/hibench_dse/test_marts_golden.py (its records are the template's rows); not again here.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.ops.cli import main
from benchcamp.presentation import report

STUDIES = Path(__file__).resolve().parents[2] / "include" / "benchcamp" / "studies"
YCSB = "ycsb_hbase_cassandra"
COUNTS = [1000, 2000, 3000, 4000, 5000, 7500, 10000, 20000, 50000, 100000, 300000]
WORKLOADS = ["ycsb_a", "ycsb_b", "ycsb_c", "ycsb_d", "ycsb_e", "ycsb_f"]


def template_rows(study: str) -> list[dict[str, str]]:
    text = (STUDIES / study / "published" / "template.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def filled(study: str, value_of: Callable[[dict[str, str]], float]) -> str:
    """The study's template with every empty value given by `value_of(row)`, as CSV text."""
    rows = template_rows(study)
    for row in rows:
        if not row["value"]:
            row["value"] = repr(value_of(row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def run_import(path: Path, warehouse: Path) -> tuple[int, str, str]:
    """`benchcamp import` as a user runs it: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["import", str(path), "--warehouse", str(warehouse), "--strict-environment"])
    return code, out.getvalue(), err.getvalue()


def rows_of(warehouse: Path, sql: str) -> list[dict[str, Any]]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


ALL_STUDIES = sorted(folder.name for folder in STUDIES.iterdir() if (folder / "spec.yaml").is_file())
DOCS = Path(__file__).resolve().parents[2] / "docs" / "importing-published.md"


@pytest.mark.parametrize("study", ALL_STUDIES)
def test_every_study_has_a_published_template_its_spec_accepts(study: str, tmp_path: Path) -> None:
    """A template and README in published/, a section of docs/importing-published.md, and rows
    (empty values filled) that the import's reader and spec checks accept: no dbt, milliseconds."""
    from benchcamp.pipeline import importer

    assert (STUDIES / study / "published" / "README.md").is_file()
    assert f"(`{study}`)" in DOCS.read_text(encoding="utf-8")
    source = tmp_path / "filled.csv"
    source.write_text(filled(study, lambda row: 1.0), encoding="utf-8")
    with importer.staging() as con:
        count = importer.stage_file(con, source)
        importer.check_spec(con, source, strict_environment=True)
        importer.check_repeats(con, source)
    assert count == len(template_rows(study)) > 0
    assert {row["study"] for row in template_rows(study)} == {study}


# -- YCSB: throughput and average latencies per store, workload and operation count, one run each


def ycsb_throughput(store: str, workload: str, count: int) -> float:
    """Made-up: HBase ahead of Cassandra, more ops/s at larger operation counts."""
    return {"cassandra": 800.0, "hbase": 1200.0}[store] + 10 * WORKLOADS.index(workload) + COUNTS.index(count)


def ycsb_latency(store: str, op: str, count: int) -> float:
    """Made-up: latency falling as the operation count rises (the study's own caveat)."""
    return {"cassandra": 900.0, "hbase": 700.0}[store] + len(op) - 5 * COUNTS.index(count)


def ycsb_value(row: dict[str, str]) -> float:
    store, workload, count = row["param.store"], row["workload"], int(row["param.operationcount"])
    if row["metric"] == "throughput_ops_s":
        return ycsb_throughput(store, workload, count)
    return ycsb_latency(store, row["metric"].removesuffix("_avg_latency_us"), count)


@pytest.fixture(scope="module")
def ycsb_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("ycsb_published")
    source = tmp / "published.csv"
    source.write_text(filled(YCSB, ycsb_value), encoding="utf-8")
    warehouse = tmp / "warehouse.duckdb"
    code, out, err = run_import(source, warehouse)
    assert code == ExitCode.OK, out + err
    assert "Traceback" not in err
    return warehouse


def test_the_ycsb_template_is_the_studys_matrix_without_a_figure() -> None:
    """132 tests (2 stores x 6 workloads x 11 operation counts), one run each: a throughput and
    each operation type's average latency, every value left for the publication's figure."""
    rows = template_rows(YCSB)
    assert len(rows) == 132 + 2 * 11 * 11 and not any(row["value"] for row in rows)
    tests = {(row["param.store"], row["workload"], int(row["param.operationcount"])) for row in rows}
    assert len(tests) == 132 and {row["repetition"] for row in rows} == {"1"}
    assert {row["param.threads"] for row in rows} == {"1"}


def test_published_ycsb_figures_without_durations_load_and_report(ycsb_warehouse: Path) -> None:
    """No duration_s: each test is one ok run (n 1), its figures the published ones."""
    summary = rows_of(ycsb_warehouse, "select * from ycsb_summary where campaign = 'published_study3'")
    assert len(summary) == 2 * 11 * 11
    assert {(row["n"], row["n_failed"], row["n_warmup"]) for row in summary} == {(1, 0, 0)}
    assert len({(row["store"], row["workload"], row["operationcount"]) for row in summary}) == 132
    for row in summary:
        assert row["throughput_ops_s"] == ycsb_throughput(
            row["store"], row["workload"], row["operationcount"]
        )
        assert row["avg_latency_us"] == ycsb_latency(row["store"], row["op_type"], row["operationcount"])
        assert row["throughput_stddev"] is None and row["p95_latency_us"] is None
    (pair,) = rows_of(
        ycsb_warehouse,
        "select * from ycsb_comparison where workload = 'ycsb_f' and op_type = 'read_modify_write' "
        "and pair_params = 'operationcount=300000|threads=1'",
    )
    assert pair["throughput_ratio"] == pytest.approx(1260.0 / 860.0, abs=1e-12)
    assert pair["avg_latency_ratio"] == pytest.approx((700.0 + 17 - 50) / (900.0 + 17 - 50), abs=1e-12)
    assert pair["throughput_verdict"] is None  # one run a side: no test
    text = report.render(report.read_tables(ycsb_warehouse, YCSB, "published_study3"), "table", YCSB)
    line = next(line for line in text.splitlines() if "operationcount=1000, threads=1" in line)
    cells = [cell.strip() for cell in line.split("|")[1:-1]]
    assert cells == [
        "cassandra",
        "operationcount=1000, threads=1",
        "read",
        "1",
        "800.00",
        "-",
        "904.00",
        "-",
        "-",
        "yes",
    ]


def test_an_import_whose_build_fails_is_refused_naming_the_check_and_lines_and_changes_nothing(
    ycsb_warehouse: Path, tmp_path: Path
) -> None:
    """A throughput of -5 ops/s passes the record checks but fails a data test of ycsb_summary: the
    import exits 2 naming the test and the file's lines of that cell, and the warehouse (records,
    marts, build record) and its read snapshot stay byte for byte what they were."""
    snapshot = report.snapshot_path(ycsb_warehouse)
    before = (ycsb_warehouse.read_bytes(), snapshot.read_bytes())
    bad = tmp_path / "bad.csv"
    header = "study,campaign,environment,workload,param.store,param.operationcount,param.threads"
    bad.write_text(
        f"{header},repetition,metric,value,unit,status\n"
        + "".join(
            f"{YCSB},pub_bad,single_node,ycsb_c,{store},1000,1,1,{metric},{value},{unit},ok\n"
            for store, metric, value, unit in [
                ("hbase", "throughput_ops_s", -5, "ops/s"),
                ("hbase", "read_avg_latency_us", 700, "us"),
                ("cassandra", "throughput_ops_s", 900, "ops/s"),
                ("cassandra", "read_avg_latency_us", 800, "us"),
            ]
        ),
        encoding="utf-8",
    )
    code, out, err = run_import(bad, ycsb_warehouse)
    assert code == ExitCode.BAD_INPUT, out + err
    lines = err.strip().splitlines()
    # the first model whose rules it breaks (the marts after it are skipped)
    assert lines[0].startswith(f"{bad}: dbt test column_rules_int_ycsb_ops_summarised_"), err
    assert lines[0].endswith(" failed for 1 row(s):"), err
    assert lines[1:] == [
        f"  {YCSB} pub_bad single_node ycsb_c|operationcount=1000|store=hbase|threads=1 "
        "(non_negative(throughput_ops_s)): line(s) 2, 3",
        "error: the records fail the marts' checks above; nothing was loaded",
    ], err
    assert "Traceback" not in err and "records (" not in out
    assert (ycsb_warehouse.read_bytes(), snapshot.read_bytes()) == before
    assert not list(ycsb_warehouse.parent.glob(".*.import-*"))  # the staged copy is gone


# -- HDFS interconnects: the study states % improvements only ("SWT up to +108 % over IPoIB,
# +151 % over 10GigE; RRL time -64.8 % / -69.5 %"); the made-up figures give exactly those.
HDFS = "hdfs_interconnects"
SWT_16 = {"tengige": 208.0, "ipoib": 251.0, "rdma_ib": 522.08}  # MB/s at 16 clients: x2.51, x2.08
RRL_64 = {"tengige": 0.352, "ipoib": 0.305, "rdma_ib": 0.10736}  # s at 64 MB: -69.5 %, -64.8 %


def hdfs_value(row: dict[str, str]) -> float:
    if row["workload"] == "swt" and row["param.clients"] == "16":
        return SWT_16[row["environment"]]
    if row["workload"] == "rrl" and row["param.file_size_mb"] == "64":
        return RRL_64[row["environment"]]
    return 100.0 if row["metric"] == "mb_s" else 0.5  # everywhere else the interconnects tie


@pytest.fixture(scope="module")
def hdfs_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("hdfs_published")
    source = tmp / "published.csv"
    source.write_text(filled(HDFS, hdfs_value), encoding="utf-8")
    warehouse = tmp / "warehouse.duckdb"
    code, out, err = run_import(source, warehouse)
    assert code == ExitCode.OK, out + err
    return warehouse


def test_the_interconnects_published_improvements_come_out_of_the_marts(hdfs_warehouse: Path) -> None:
    improvement = {
        (row["workload"], row["environment"], row["other_environment"]): row["up_to_pct"]
        for row in rows_of(
            hdfs_warehouse, "select * from hdfs_micro_improvement where environment = 'rdma_ib'"
        )
    }
    assert improvement[("swt", "rdma_ib", "ipoib")] == pytest.approx(108.0, abs=1e-9)
    assert improvement[("swt", "rdma_ib", "tengige")] == pytest.approx(151.0, abs=1e-9)
    assert improvement[("rrl", "rdma_ib", "ipoib")] == pytest.approx(64.8, abs=1e-9)
    assert improvement[("rrl", "rdma_ib", "tengige")] == pytest.approx(69.5, abs=1e-9)
    assert improvement[("srt", "rdma_ib", "tengige")] == 0.0
    throughput = rows_of(
        hdfs_warehouse, "select * from hdfs_micro_throughput where campaign = 'published_study5'"
    )
    assert len(throughput) == 3 * 2 * 4 and {(row["n"], row["n_failed"]) for row in throughput} == {(1, 0)}
    latency = rows_of(hdfs_warehouse, "select * from hdfs_micro_latency where campaign = 'published_study5'")
    assert len(latency) == 3 * 3 * 6 and {(row["n"], row["n_failed"]) for row in latency} == {(1, 0)}
    text = report.render(report.read_tables(hdfs_warehouse, HDFS, "published_study5"), "table", HDFS)
    assert "rdma_ib" in text and "108.00" in text


# -- MapReduce on SSD vs HDD: per-job phase times of the YouTube graph, per drive and set (Tables 13, 14)
GRAPH = "mapreduce_ssd_hdd"
PHASES = ["map", "shuffle", "merge", "reduce"]


def graph_seconds(environment: str, workload: str, config_set: str, job: str, phase: str) -> float:
    """Made-up: the SSD 20 s faster in every phase, custom 10 s faster than containers."""
    base = 100.0 + 50 * PHASES.index(phase) + (7 if job.startswith("2-") else 0) + len(workload)
    return base - (20 if environment == "ssd_a" else 0) - (10 if config_set == "custom" else 0)


def graph_value(row: dict[str, str]) -> float:
    job, _, metric = row["metric"].partition(":")
    phase = metric.removeprefix("phase_").removesuffix("_s")
    return graph_seconds(row["environment"], row["workload"], row["param.config_set"], job, phase)


@pytest.fixture(scope="module")
def graph_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("graph_published")
    source = tmp / "published.csv"
    source.write_text(filled(GRAPH, graph_value), encoding="utf-8")
    warehouse = tmp / "warehouse.duckdb"
    code, out, err = run_import(source, warehouse)
    assert code == ExitCode.OK, out + err
    return warehouse


def test_published_phase_times_without_chain_times_load_with_one_run(graph_warehouse: Path) -> None:
    rows = rows_of(
        graph_warehouse, "select * from graph_phase_times where campaign = 'published_bakratsas_2018'"
    )
    assert len(rows) == 2 * 2 * 2 * 2
    for row in rows:
        assert (row["graph"], row["n"], row["n_failed"], row["chain_s"]) == ("youtube", 1, 0, None)
        for phase in PHASES:
            assert row[f"{phase}_s"] == graph_seconds(
                row["environment"], row["workload"], row["config_set"], row["job"], phase
            )
    deltas = rows_of(
        graph_warehouse,
        "select * from graph_config_deltas where comparison = 'storage' and environment = 'ssd_a' "
        "and workload = 'triangle_counting' and config_set = 'custom' and job = '2-close' and phase = 'shuffle'",
    )
    (delta,) = deltas
    hdd = graph_seconds("hdd", "triangle_counting", "custom", "2-close", "shuffle")
    assert delta["baseline_environment"] == "hdd"
    assert delta["delta_pct"] == pytest.approx(-20 / hdd * 100, abs=1e-9)
    text = report.render(
        report.read_tables(graph_warehouse, GRAPH, "published_bakratsas_2018"), "table", GRAPH
    )
    assert "youtube" in text and "2-close" in text


# -- an import's dbt build selects what its records can change (transform.loaded_selection)


def _tables(warehouse: Path) -> list[str]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        found = con.execute("select table_name from duckdb_tables() where schema_name = 'main'").fetchall()
    return sorted(name for (name,) in found)


def _built(warehouse: Path) -> set[str]:
    """The models dbt's latest build of the warehouse ran (its run_results.json, beside the file)."""
    results = json.loads((warehouse.parent / ".dbt" / warehouse.stem / "run_results.json").read_text())
    return {result["unique_id"].removeprefix("model.benchcamp.") for result in results["results"]
            if result["unique_id"].startswith("model.")}  # fmt: skip


def _contents(warehouse: Path, tables: list[str]) -> dict[str, list[tuple[Any, ...]]]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return {
            name: sorted(con.execute(f'select * from main."{name}"').fetchall(), key=repr) for name in tables
        }


def test_an_import_builds_its_studys_marts_and_the_shared_ones_leaving_the_others_as_a_full_build_would(
    ycsb_warehouse: Path, tmp_path: Path
) -> None:
    """After the YCSB import (a whole build: the warehouse's first), the interconnects' import
    builds the project's own models (every study's rows) and the interconnects' marts, and not
    YCSB's or any other study's; every mart is then exactly what a build of the whole project
    gives on the same records."""
    import shutil

    from benchcamp.pipeline.transform import build_marts

    warehouse = tmp_path / "warehouse.duckdb"
    shutil.copy(ycsb_warehouse, warehouse)
    (first,) = rows_of(
        warehouse, "select selection from raw.builds where ok order by finished_at desc limit 1"
    )
    assert first["selection"] is None  # the warehouse's first build: the whole project
    source = tmp_path / "published.csv"
    source.write_text(filled(HDFS, hdfs_value), encoding="utf-8")
    code, out, err = run_import(source, warehouse)
    assert code == ExitCode.OK, out + err
    (latest,) = rows_of(warehouse, "select selection from raw.builds order by finished_at desc limit 1")
    assert latest["selection"] == "path:models path:studies/hdfs_interconnects"
    built = _built(warehouse)
    assert {"campaigns", "scorecard", "scaling", "validation", "stg_results"} <= built  # every study's rows
    assert {"hdfs_micro_throughput", "hdfs_micro_latency", "hdfs_micro_improvement"} <= built
    assert not built & {"ycsb_summary", "ycsb_comparison", "ycsb_latency_throughput", "bigbench_qpm"}
    # the incremental Python model's new rows went through a table dbt-duckdb does not drop itself
    assert not [name for name in _tables(warehouse) if "__dbt_tmp" in name]
    whole = tmp_path / "whole.duckdb"
    shutil.copy(warehouse, whole)
    build_marts(whole, unit_tests=False)
    assert {"ycsb_summary", "bigbench_qpm", "dfsio_read_write"} <= _built(whole)
    assert _tables(whole) == _tables(warehouse)
    assert _contents(whole, _tables(whole)) == _contents(warehouse, _tables(warehouse))
