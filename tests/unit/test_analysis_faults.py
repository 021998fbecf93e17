"""Faults on the analysis side (issue 26): failed, partial or leftover repetitions never break the
dbt build, and never leave a wrong or stale figure unexplained."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.ops.cli import EXIT_EXPECTATIONS_FAILED, EXIT_OK, main
from benchcamp.presentation import report

HIVE: dict[str, Any] = {
    "study": "hibench_dse",
    "environment": "local_lab",
    "workload": "hive_aggregation",
    "unit": "s",
}
SIZES = (240, 340)


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def hive_killed_after_warmup(campaign: str) -> list[dict[str, Any]]:
    """HiveServer2 killed after each cell's warm-up: the warm-up wrote duration_s and
    processed_gb, the three measured repetitions failed and wrote duration_s only."""
    rows = []
    for size in SIZES:
        cell = {**HIVE, "campaign": campaign, "params": {"data_size_gb": size}}
        rows.append({**cell, "repetition": 0, "metric": "duration_s", "value": 60.0, "status": "warmup"})
        rows.append({**cell, "repetition": 0, "metric": "processed_gb", "value": 1.5, "unit": "GB",
                     "status": "warmup"})  # fmt: skip
        rows += [
            {**cell, "repetition": rep, "metric": "duration_s", "value": 0.5, "status": "failed"}
            for rep in (1, 2, 3)
        ]
    return rows


def hive_good(campaign: str) -> list[dict[str, Any]]:
    rows = []
    for size in SIZES:
        cell = {**HIVE, "campaign": campaign, "params": {"data_size_gb": size}}
        for rep, value in zip((1, 2, 3), (size - 1.0, float(size), size + 1.0), strict=True):
            rows.append({**cell, "repetition": rep, "metric": "duration_s", "value": value, "status": "ok"})
            rows.append({**cell, "repetition": rep, "metric": "processed_gb", "value": 1.5, "unit": "GB",
                         "status": "ok"})  # fmt: skip
    return rows


def test_measured_repetitions_that_all_failed_are_cells_with_no_result_and_the_build_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A metric seen only in warm-ups (processed_gb) fails no data test: its cells are 'no
    result' (NULL mean, n 0, n_failed 3), and a good campaign imported after it reaches the marts."""
    warehouse = tmp_path / "w.duckdb"
    killed = _write(tmp_path / "killed.jsonl", hive_killed_after_warmup("killed"))
    assert main(["import", str(killed), "--warehouse", str(warehouse)]) == EXIT_EXPECTATIONS_FAILED
    good = _write(tmp_path / "good.jsonl", hive_good("good"))
    assert main(["import", str(good), "--warehouse", str(warehouse)]) == EXIT_OK
    capsys.readouterr()

    with duckdb.connect(str(warehouse), read_only=True) as con:
        cells = con.execute(
            "select metric, n, n_failed, n_warmup, mean from main.int_cells_summarised "
            "where campaign = 'killed' and data_size_gb = 240 order by metric"
        ).fetchall()
    assert cells == [("duration_s", 0, 3, 1, None), ("processed_gb", 0, 3, 1, None)]

    scaling = report.read_tables(warehouse, "hibench_dse", "killed")["scaling"]
    assert [(row["data_size_gb"], row["n"], row["n_failed"], row["n_warmup"]) for row in scaling] == [
        (240, 0, 3, 1),
        (340, 0, 3, 1),
    ]
    assert all(row["mean_s"] is None and row["processed_gb"] is None for row in scaling)
    text = report.render(report.read_tables(warehouse, "hibench_dse", "killed"), "table", "hibench_dse")
    assert text.count("no: failed validation, 3 failed run(s), no ok run") == 2, text

    scaling = report.read_tables(warehouse, "hibench_dse", "good")["scaling"]
    assert [(row["data_size_gb"], row["n"], row["n_failed"], row["mean_s"]) for row in scaling] == [
        (240, 3, 0, 240.0),
        (340, 3, 0, 340.0),
    ]
    assert all(row["processed_gb"] == 1.5 for row in scaling)
