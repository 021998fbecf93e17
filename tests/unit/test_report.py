"""Reports on a real warehouse built by one real dbt build: marts only, read-only, three formats."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from benchcamp.core.records import ValidationFailure
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.transform import build_marts
from benchcamp.presentation import report
from helpers.report import LATE, STUDY, records

EARLY = datetime(2026, 3, 1, tzinfo=UTC)
SCALING_COLUMNS = [
    "study",
    "campaign",
    "environment",
    "workload",
    "data_size_gb",
    "series_params",
    "n",
    "n_failed",
    "n_warmup",
    "mean_s",
    "stddev_s",
    "stddev_pct",
    "data_delta_pct",
    "time_delta_pct",
    "throughput_mb_s",
    "linear_projection_s",
    "within_threshold",
    "below_resolution",
    "resolution_s",
    "passed_validation",
    "processed_gb",
    "fingerprint",
]
DFSIO_COLUMNS = [
    "study",
    "campaign",
    "environment",
    "data_size_gb",
    "read_s",
    "write_s",
    "read_write_delta_pct",
    "read_throughput_mb_s",
    "write_throughput_mb_s",
    "read_avg_io_rate_mb_s",
    "write_avg_io_rate_mb_s",
    "fingerprint",
]
VALIDATION_COLUMNS = [
    "study",
    "campaign",
    "environment",
    "workload",
    "cell_key",
    "expectation",
    "details",
    "observed",
    "threshold",
]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "benchcamp.duckdb"
    # "zzz_old" sorts last but finished first: the latest campaign is chosen by time, not name.
    wh.load_records(path, records("zzz_old", EARLY))
    wh.load_records(path, records("new", LATE))
    wh.load_records(path, records("elsewhere", LATE + timedelta(days=1), study="other_study"))
    failure = ValidationFailure(
        study=STUDY,
        campaign="new",
        environment="local_lab",
        workload="wordcount",
        cell_key="wordcount|data_size_gb=0.022|maps=4|reduces=2",
        expectation="repetitions_ok",
        details="1 of 4 repetitions failed",
        observed=3,
        threshold=4,
    )
    wh.replace_validation_failures(path, STUDY, "new", [failure])
    wh.upsert_study_thresholds(path, STUDY, 10)
    build_marts(path, unit_tests=False)  # dbt's unit tests: test_marts_golden's scenario
    return path


def test_the_latest_campaign_is_the_one_that_finished_last(warehouse: Path) -> None:
    tables = report.read_tables(warehouse, STUDY)
    assert {row["campaign"] for rows in tables.values() for row in rows} == {"new"}
    assert report.latest_campaign(warehouse, STUDY) == "new"
    old = report.read_tables(warehouse, STUDY, "zzz_old")
    assert {row["campaign"] for row in old["scaling"]} == {"zzz_old"} and old["validation"] == []


def test_rows_carry_the_mart_columns_in_order(warehouse: Path) -> None:
    tables = report.read_tables(warehouse, STUDY, "new")
    assert set(tables) == {"scaling", "dfsio_read_write", "phase_times", "hardware_changes", "validation"}
    assert list(tables["scaling"][0]) == SCALING_COLUMNS
    assert list(tables["dfsio_read_write"][0]) == DFSIO_COLUMNS
    assert list(tables["validation"][0]) == VALIDATION_COLUMNS
    assert len(tables["scaling"]) == 9 and len(tables["dfsio_read_write"]) == 3
    assert [row["data_size_gb"] for row in tables["phase_times"]] == [0.012, 0.017, 0.022]


def test_json_is_study_campaign_and_the_three_marts(warehouse: Path) -> None:
    tables = report.read_tables(warehouse, STUDY, "new")
    payload = json.loads(report.render(tables, "json", STUDY))
    assert list(payload) == ["study", "campaign", "tables"]
    assert (payload["study"], payload["campaign"]) == (STUDY, "new")
    assert list(payload["tables"]) == [
        "scaling",
        "phase_times",
        "hardware_changes",
        "validation",
        "dfsio_read_write",  # the study's own mart (its plugin's), after the generic ones
    ]
    assert payload["tables"]["scaling"] == tables["scaling"]
    (dfsio,) = [row for row in payload["tables"]["dfsio_read_write"] if row["data_size_gb"] == 0.017]
    assert dfsio["read_write_delta_pct"] == pytest.approx(25.0)
    assert payload["tables"]["validation"][0]["expectation"] == "repetitions_ok"


def test_table_prints_like_the_published_study(warehouse: Path) -> None:
    text = report.render(report.read_tables(warehouse, STUDY), "table", STUDY)
    header = "| Data (GB) | Time (s) | σ (s) | σ (%) | Data Δ (%) | Time Δ (%) | Throughput (MB/s) | Linear (s) | ok"
    assert text.startswith(f"Study {STUDY}, campaign new")
    assert "wordcount on local_lab (maps=4, reduces=2)" in text
    assert header in text
    lines = text.splitlines()
    (baseline,) = [line for line in lines if line.startswith("|     0.012 |  ") and "40.68" in line]
    assert baseline.count("baseline") == 2 and baseline.rstrip(" |").endswith("yes")
    (middle,) = [line for line in lines if "57.85" in line]
    assert "+41.67" in middle and "+42.21" in middle
    (largest,) = [line for line in lines if "74.71" in line]
    assert "no: failed validation, 1 failed run(s)" in largest
    assert "TestDFSIO read vs write on local_lab" in text and "+25.00" in text
    assert "Validation: 1 failed expectation(s)" in text
    assert "wordcount task phases (JobHistory) on local_lab (maps=4, reduces=2)" in text
    # 0.012 GB: 3 ok repetitions (the failed fourth has no phases), job 35.68 s, map 9.2 ± 0.1 s
    (phases,) = [line for line in lines if line.startswith("|     0.012 |") and "35.68" in line]
    cells = [cell.strip() for cell in phases.strip("|").split("|")]
    assert cells[:5] == ["0.012", "3", "35.68", "9.20", "0.10"] and cells[-3:] == ["1.00", "0.00", "-"]
    assert "- local_lab wordcount|data_size_gb=0.022|maps=4|reduces=2: repetitions_ok: 1 of 4" in text
    old = report.render(report.read_tables(warehouse, STUDY, "zzz_old"), "table", STUDY)
    assert "Validation: all expectations passed" in old


def test_csv_has_one_block_per_mart(warehouse: Path) -> None:
    text = report.render(report.read_tables(warehouse, STUDY, "new"), "csv", STUDY)
    blocks = text.split("\n\n")
    assert [block.splitlines()[0] for block in blocks if block] == [
        "# scaling",
        "# phase_times",
        "# hardware_changes",
        "# validation",
        "# dfsio_read_write",
    ]
    scaling = list(csv.DictReader(io.StringIO(blocks[0].split("\n", 1)[1])))
    assert list(scaling[0]) == SCALING_COLUMNS and len(scaling) == 9


def test_reading_neither_writes_nor_holds_the_file(warehouse: Path) -> None:
    modified = warehouse.stat().st_mtime_ns
    report.read_tables(warehouse, STUDY)
    assert warehouse.stat().st_mtime_ns == modified
    with duckdb.connect(str(warehouse)) as con:  # a writer in this process can open it at once
        con.execute("select 1")
    probe = f"import duckdb; duckdb.connect({str(warehouse)!r}).close()"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


def test_a_report_waits_for_a_writer_to_finish(warehouse: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, time; c = duckdb.connect({str(warehouse)!r}); print('held', flush=True); "
            "time.sleep(1.5); c.close()",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        assert report.read_tables(warehouse, STUDY)["scaling"]
        assert time.monotonic() - started > 0.5
    finally:
        holder.wait(timeout=30)


def test_nothing_to_report_says_why(warehouse: Path, tmp_path: Path) -> None:
    with pytest.raises(report.ReportError, match="no warehouse"):
        report.read_tables(tmp_path / "missing.duckdb", STUDY)
    empty = tmp_path / "empty.duckdb"
    wh.connect(empty).close()
    with pytest.raises(report.ReportError, match="not built"):
        report.read_tables(empty, STUDY)
    with pytest.raises(report.ReportError, match="no campaign of study 'nobody'"):
        report.read_tables(warehouse, "nobody")
    with pytest.raises(report.ReportError, match="no rows for campaign 'nope'"):
        report.read_tables(warehouse, STUDY, "nope")
    with pytest.raises(ValueError, match="unknown report format"):
        report.render({}, "html", STUDY)  # type: ignore[arg-type]
