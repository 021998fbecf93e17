"""Faults on the analysis side (issue 26): failed, partial or leftover repetitions never break the
dbt build, and never leave a wrong or stale figure unexplained."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.ops.cli import main
from benchcamp.pipeline import transform
from benchcamp.pipeline.transform import DbtBuildError, build_marts
from benchcamp.pipeline.warehouse import WAIT_ENV
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
    assert main(["import", str(killed), "--warehouse", str(warehouse)]) == ExitCode.VALIDATION_FAILED
    good = _write(tmp_path / "good.jsonl", hive_good("good"))
    assert main(["import", str(good), "--warehouse", str(warehouse)]) == ExitCode.OK
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


WORDCOUNT: dict[str, Any] = {
    "study": "hibench_dse",
    "environment": "local_lab",
    "workload": "wordcount",
    "params": {"data_size_gb": 1, "maps": 4, "reduces": 2},
    "metric": "duration_s",
    "unit": "s",
    "status": "ok",
}
BAD_NODE = "expression_is_true_stg_results__repetition_1_not_is_warmup"


def wordcount(campaign: str) -> list[dict[str, Any]]:
    return [{**WORDCOUNT, "campaign": campaign, "repetition": rep, "value": 10.0 + rep} for rep in (1, 2, 3)]


def _spoil(warehouse: Path, campaign: str) -> None:
    """What no record file allows, as a cancelled attempt's leftovers did: an ok repetition 0."""
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update raw.results set repetition = 0 where campaign = ? and repetition = 1", [campaign])


def benchcamp(*args: str, wait_s: float = 60) -> subprocess.CompletedProcess[str]:
    """The `benchcamp` command in its own process, as a user runs it."""
    command = [str(Path(sys.executable).parent / "benchcamp"), *args]
    env = {**os.environ, WAIT_ENV: str(wait_s)}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)


@pytest.fixture(scope="module")
def imported_old(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse with `wordcount("old")` imported from old.jsonl, made once: each import costs a
    whole dbt build, and tests that start from this state take a copy (`_copy_of`), never it."""
    folder = tmp_path_factory.mktemp("imported-old")
    source = _write(folder / "old.jsonl", wordcount("old"))
    assert main(["import", str(source), "--warehouse", str(folder / "w.duckdb")]) == ExitCode.OK
    return folder


def _copy_of(imported: Path, into: Path) -> Path:
    """The warehouse of `imported` (and its snapshot) and its source file, copied into `into`."""
    for item in [*imported.glob("w.*"), imported / "old.jsonl"]:
        shutil.copyfile(item, into / item.name)
    return into / "w.duckdb"


def test_an_old_campaigns_bad_rows_never_fail_a_later_build(tmp_path: Path) -> None:
    """The data tests of an import's build judge the campaigns it loaded: leftovers of an old
    campaign fail only a build of that campaign (or a whole-warehouse build, e.g. make test). The
    old campaign's name has a quote and a slash, as a warehouse loaded before names were checked
    may hold (no run or import makes one now): the scope is split at the study's slash only."""
    warehouse = tmp_path / "w.duckdb"
    old = "week 1/it's old"
    assert (
        main(["import", str(_write(tmp_path / "old.jsonl", wordcount("old"))), "--warehouse", str(warehouse)])
        == 0
    )
    with duckdb.connect(str(warehouse)) as con:
        tables = con.execute(
            "select table_name from information_schema.columns where table_schema = 'raw' and column_name = 'campaign'"
        ).fetchall()
        for (table,) in tables:
            con.execute(f'update raw."{table}" set campaign = ? where campaign = ?', [old, "old"])
    _spoil(warehouse, old)
    assert (
        main(["import", str(_write(tmp_path / "new.jsonl", wordcount("new"))), "--warehouse", str(warehouse)])
        == 0
    )
    (row,) = report.read_tables(warehouse, "hibench_dse", "new")["scaling"]
    assert (row["n"], row["mean_s"]) == (3, 12.0)
    with pytest.raises(DbtBuildError) as whole:
        build_marts(warehouse, unit_tests=False)
    assert any(BAD_NODE in node for node in whole.value.failed_nodes)
    with pytest.raises(DbtBuildError):
        build_marts(warehouse, unit_tests=False, campaigns=[("hibench_dse", old)])
    with pytest.raises(DbtBuildError):
        build_marts(warehouse, unit_tests=False, campaigns=[("hibench_dse", "new"), ("hibench_dse", old)])
    build_marts(warehouse, unit_tests=False, campaigns=[("hibench_dse", "new")])


def test_a_failed_build_leaves_the_warehouse_as_it_was_and_import_exits_7_naming_the_check(
    tmp_path: Path, imported_old: Path
) -> None:
    """An import whose build fails on rows already in the warehouse (not the file's) exits 7 naming
    the failed test and those rows (no traceback, no nanobind noise) and changes nothing: the
    build ran on a staged copy. A failed build of the warehouse itself (a DAG's) is recorded, and
    reports date their figures to the last good build."""
    warehouse = _copy_of(imported_old, tmp_path)  # `benchcamp import old.jsonl` done
    old = tmp_path / "old.jsonl"
    good = transform.last_build(warehouse)
    assert good is not None and good.ok and good.stale_note() is None
    assert good.campaigns == ["hibench_dse/old"] and good.origin == "benchcamp import old.jsonl"
    _spoil(warehouse, "old")
    spoiled = warehouse.read_bytes()

    done = benchcamp("import", str(old), "--warehouse", str(warehouse))
    assert done.returncode == ExitCode.ANALYSIS_FAILED, done.stderr
    assert f": dbt test {BAD_NODE} failed for 1 row(s):" in done.stderr
    assert (
        "hibench_dse old local_lab wordcount|data_size_gb=1|maps=4|reduces=2 0 duration_s: rows already in "
        in done.stderr
    )
    assert done.stderr.endswith("nothing was loaded\n"), done.stderr
    assert "Traceback" not in done.stderr and "leaked" not in done.stderr, done.stderr
    assert warehouse.read_bytes() == spoiled
    assert transform.last_build(warehouse) == good

    with pytest.raises(DbtBuildError):
        build_marts(warehouse, unit_tests=False, campaigns=[("hibench_dse", "old")])
    failed = transform.last_build(warehouse)
    assert failed is not None and not failed.ok and failed.last_ok_at == good.finished_at
    assert any(BAD_NODE in node and ": fail: " in node for node in failed.failed_nodes)
    note = failed.stale_note()
    assert note is not None and note.startswith(
        f"figures below are from {good.finished_at.astimezone(transform.UTC):%Y-%m-%d %H:%M:%S} UTC, "
        "the last successful build; the build at "
    )
    assert f"failed: test.benchcamp.{BAD_NODE}" in note
    shown = benchcamp("report", "hibench_dse", "--campaign", "old", "--warehouse", str(warehouse))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"NOTE: {note}\n"), shown.stdout
    assert report.run_report("hibench_dse", "old", warehouse).startswith(f"NOTE: {note}\n")


HOLDER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@contextmanager
def held(warehouse: Path, seconds: float) -> Iterator[subprocess.Popen[str]]:
    """Another process with the warehouse open (as a DAG's load or dbt build has) for `seconds`."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(warehouse), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_import_waits_for_a_held_warehouse_then_exits_6_naming_the_holder(tmp_path: Path) -> None:
    warehouse = tmp_path / "w.duckdb"
    source = _write(tmp_path / "c.jsonl", wordcount("c"))
    with held(warehouse, 120) as holder:
        done = benchcamp("import", str(source), "--warehouse", str(warehouse), wait_s=2)
    assert done.returncode == ExitCode.BUSY, done.stderr
    lines = done.stderr.strip().splitlines()
    assert (
        f"warehouse {warehouse} is held by PID {holder.pid} (" in lines[0] and "waiting up to 2 s" in lines[0]
    )
    assert any(line.startswith(f"error: warehouse {warehouse} is held by PID {holder.pid}") for line in lines)
    assert "Traceback" not in done.stderr and "leaked" not in done.stderr, done.stderr
    with duckdb.connect(str(warehouse), read_only=True) as con:  # the holder's empty file: nothing loaded
        assert con.execute(
            "select count(*) from information_schema.tables where table_schema = 'raw'"
        ).fetchone() == (0,)


class _Watched(io.StringIO):
    """A stderr that calls `then()` once `text` has been written to it."""

    def __init__(self, text: str, then: Callable[[], object]) -> None:
        super().__init__()
        self._text, self._then = text, then

    def write(self, s: str) -> int:
        written = super().write(s)
        if self._text and self._text in self.getvalue():
            self._text = ""
            self._then()
        return written


def test_import_succeeds_when_the_holder_lets_go_during_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder lets go as soon as the import says it waits (not after a fixed delay, which a
    loaded machine could outlast before the import even tried). In this process: the wait is the
    warehouse's, not the command's (exit codes and stderr noise: the tests around this one)."""
    warehouse = tmp_path / "w.duckdb"
    source = _write(tmp_path / "c.jsonl", wordcount("c"))
    monkeypatch.setenv(WAIT_ENV, "120")
    with held(warehouse, 600) as holder:
        stderr = _Watched("is held by", holder.kill)
        with redirect_stderr(stderr):
            code = main(["import", str(source), "--warehouse", str(warehouse)])
    assert code == ExitCode.OK, stderr.getvalue()
    assert f"is held by PID {holder.pid}" in stderr.getvalue(), stderr.getvalue()
    assert "waiting up to 120 s" in stderr.getvalue(), stderr.getvalue()
    (row,) = report.read_tables(warehouse, "hibench_dse", "c")["scaling"]
    assert row["n"] == 3


def test_the_dags_load_makes_the_campaigns_rows_exactly_its_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imported_old: Path
) -> None:
    """A cancelled attempt left a warm-up and a fourth repetition in the warehouse; the re-run's
    load (run_load: its archive is the whole campaign) removes them in its transaction, leaves
    other campaigns alone, and the build passes. An import still replaces by key only."""
    from benchcamp.core.records import ResultRecord, cell_key
    from benchcamp.pipeline import archive
    from benchcamp.pipeline import warehouse as wh
    from benchcamp.pipeline.campaign.finish import run_load

    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    params = WORDCOUNT["params"]
    key = cell_key("wordcount", params)

    def archived(repetition: int) -> Path:
        rep_dir = archive.repetition_dir("hibench_dse", "c1", key, repetition)
        status = "warmup" if repetition <= 0 else "ok"
        archive.save_records(rep_dir, [ResultRecord.model_validate(
            {**WORDCOUNT, "campaign": "c1", "repetition": repetition, "value": 10.0 + repetition, "status": status}
        )])  # fmt: skip
        return rep_dir

    cancelled = [archived(0), archived(4)]
    for repetition in (1, 2, 3):
        archived(repetition)
    warehouse = _copy_of(imported_old, tmp_path)  # another campaign, "old", imported
    assert run_load("hibench_dse", "c1", warehouse).records == 5
    for rep_dir in cancelled:  # the re-run's archive holds only its own repetitions
        shutil.rmtree(rep_dir)
    loaded = run_load("hibench_dse", "c1", warehouse)
    assert (loaded.records, loaded.inserted, loaded.replaced) == (3, 0, 3)

    def repetitions(campaign: str) -> list[tuple[int, str]]:
        with duckdb.connect(str(warehouse), read_only=True) as con:
            return con.execute(
                "select repetition, status from raw.results where campaign = ? order by repetition",
                [campaign],
            ).fetchall()

    assert repetitions("c1") == [(1, "ok"), (2, "ok"), (3, "ok")]
    assert repetitions("old") == [(1, "ok"), (2, "ok"), (3, "ok")]
    build_marts(warehouse, unit_tests=False, campaigns=[("hibench_dse", "c1")])
    (row,) = report.read_tables(warehouse, "hibench_dse", "c1")["scaling"]
    assert (row["n"], row["n_failed"], row["n_warmup"], row["mean_s"]) == (3, 0, 0, 12.0)

    summary = wh.load_records(
        warehouse,
        [ResultRecord.model_validate({**WORDCOUNT, "campaign": "c1", "repetition": 9, "value": 1.0})],
    )
    assert (summary.inserted, summary.removed) == (1, 0) and len(repetitions("c1")) == 4  # by key: kept
    assert wh.load_records(warehouse, [], replace_campaign=("hibench_dse", "c1")).removed == 4
    with pytest.raises(ValueError, match="record of hibench_dse/other passed to replace hibench_dse/c1"):
        wh.load_records(
            warehouse,
            [ResultRecord.model_validate({**WORDCOUNT, "campaign": "other", "repetition": 1, "value": 1.0})],
            replace_campaign=("hibench_dse", "c1"),
        )


def test_the_dags_dbt_build_fails_and_is_recorded_when_another_process_holds_the_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cosmos's dbtRunner result for a build that could not lock the file fails the task, and
    the outcome reaches raw.builds once the holder lets go (the record waits for it)."""
    from datetime import UTC, datetime

    from benchcamp.airflow.dag_factory import dbt_build_task
    from benchcamp.pipeline import warehouse as wh
    from cosmos.dbt import runner
    from cosmos.exceptions import CosmosDbtRunError

    warehouse = tmp_path / "w.duckdb"
    wh.connect(warehouse).close()
    monkeypatch.setenv("BENCHCAMP_WAREHOUSE", str(warehouse))
    monkeypatch.setenv(WAIT_ENV, "120")
    operator = dbt_build_task()
    operator._started, operator._campaigns = datetime.now(UTC), ["hibench_dse/c1"]
    project = str(transform.project_dir())
    command = ["dbt", "build", "--project-dir", project, "--profiles-dir", project,
               "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]  # fmt: skip
    with held(warehouse, 600) as holder:
        result = runner.run_command(command, dict(os.environ), project)
        assert not result.success
        threading.Timer(2.0, holder.kill).start()  # lets go while the record waits
        with pytest.raises(CosmosDbtRunError, match="Could not set lock on file"):
            operator.handle_exception_dbt_runner(result)
    status = transform.last_build(warehouse)
    assert status is not None and not status.ok and status.campaigns == ["hibench_dse/c1"]
    assert status.origin.endswith(" dbt_build") and "Could not set lock on file" in status.failed_nodes[0]
    note = status.stale_note()
    assert note is not None and note.startswith("no build has succeeded yet")


def test_report_and_snapshot_wait_for_a_held_warehouse_then_exit_6_naming_the_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imported_old: Path
) -> None:
    """Readers wait like writers (bounded, WarehouseBusy naming the holder), never a raw DuckDB
    lock error: `benchcamp report` exits 6, the page's snapshot export raises WarehouseBusy."""
    from benchcamp.pipeline.warehouse import WarehouseBusy

    warehouse = _copy_of(imported_old, tmp_path)
    with held(warehouse, 120) as holder:
        done = benchcamp("report", "hibench_dse", "--warehouse", str(warehouse), wait_s=1)
        assert done.returncode == ExitCode.BUSY, done.stderr
        assert f"error: warehouse {warehouse} is held by PID {holder.pid}" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        monkeypatch.setenv(WAIT_ENV, "1")
        with pytest.raises(WarehouseBusy, match=f"held by PID {holder.pid}"):
            report.export_snapshot(warehouse)
