"""HiveQL safety, the HiveServer2 operation-log parser and HiveBench parsing, on a real recorded log.

tests/data/hive/aggregation_probe/ was archived by `benchcamp.transport.hive.run_statements`
against the lab's HiveServer2 4.0.1 (an aggregation over a two-row uservisits table).
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from benchcamp.core.spec import load_spec
from benchcamp.platforms.hive import (
    HiveParameterError,
    identifier,
    server_timing,
    statement_logs,
    string_literal,
)
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ArchivedStep, ParseError, RunContext
from benchcamp.workloads.hivebench import row_counts, table_name

RECORDED = Path(__file__).parents[1] / "data" / "hive" / "aggregation_probe"
SPEC = load_spec("hibench_dse")


def context(workload: str, size: float = 0.012, data_root: str | None = "/benchcamp") -> RunContext:
    environment = SPEC.environment("local_lab").replace(data_root=data_root)
    return RunContext(SPEC, environment, "c1", workload, {"data_size_gb": size}, 1, "tiny")


@pytest.mark.parametrize(
    "value", ["x'; DROP TABLE t; --", 'a"b', "back\\slash", "semi;colon", "tick`", "line\nbreak"]
)
def test_literals_refuse_quotes_semicolons_and_breaks(value: str) -> None:
    with pytest.raises(HiveParameterError, match="refusing"):
        string_literal(value)


def test_identifiers_are_letters_digits_underscores() -> None:
    assert identifier("bc_0123_rankings") == "bc_0123_rankings"
    for bad in ("t;drop", "t t", "1t", "t-x", ""):
        with pytest.raises(HiveParameterError):
            identifier(bad)


def test_a_data_path_with_a_quote_never_reaches_hiveql() -> None:
    ctx = context("hive_join", data_root="/bench'; DROP TABLE x; --")
    with pytest.raises(HiveParameterError):
        get_workload("hive_join").hive_setup(ctx)


def test_statements_use_the_repetition_tables_and_the_study_filter() -> None:
    ctx = context("hive_join")
    setup = get_workload("hive_join").hive_setup(ctx)
    rankings = table_name(ctx, "rankings")
    assert any(
        s.sql.startswith(f"CREATE EXTERNAL TABLE {rankings} (pageURL STRING")
        and s.sql.endswith(f"LOCATION '/benchcamp/{ctx.unit_path}/rankings'")
        for s in setup
    )
    (query, check) = get_workload("hive_join").hive_execute(ctx)
    assert query.timed and not check.timed and check.fetch
    assert "datediff(UV.visitDate, '1999-01-01') >= 0" in query.sql and "LIMIT 1" in query.sql
    other = RunContext(SPEC, ctx.environment, "c1", "hive_join", {"data_size_gb": 0.012}, 2, "tiny")
    assert table_name(other, "rankings") != rankings


def test_row_counts_follow_pages_and_uservisits_per_gb() -> None:
    assert row_counts(context("hive_aggregation", 240)) == (132_000_000, 1_099_999_920)
    assert row_counts(context("hive_aggregation", 0.012)) == (6_600, 55_000)


def test_server_timing_from_the_recorded_operation_log() -> None:
    logs = statement_logs((RECORDED / "operation.log").read_text())
    assert list(logs) == ["query", "check_rows"]
    timing = server_timing(logs["query"])
    assert timing is not None
    assert (timing.compile_s, timing.execute_s, timing.hdfs_read_bytes) == (0.645, 2.806, 1054)
    assert timing.total_s == pytest.approx(3.451)
    assert server_timing("INFO  : Compiling command(queryId=x)") is None


def _archived(tmp_path: Path, stats: dict[str, int]) -> ArchivedStep:
    execute = tmp_path / "rep1" / "execute" / "try1"
    shutil.copytree(RECORDED, execute)
    generate = tmp_path / "rep1" / "generate" / "try1"
    generate.mkdir(parents=True)
    (generate / "stats.json").write_text(json.dumps(stats))
    now = datetime(2026, 11, 22, tzinfo=UTC)
    return ArchivedStep(execute, 0, now, now)


def test_aggregation_records_server_time_processed_data_and_checked_rows(tmp_path: Path) -> None:
    step = _archived(
        tmp_path, {"distinct_source_ips": 2, "uservisits_bytes": 1073741824, "rankings_bytes": 5}
    )
    records = {r.metric: r for r in get_workload("hive_aggregation").parse(context("hive_aggregation"), step)}
    assert records["duration_s"].value == pytest.approx(3.451) and records["duration_s"].status == "ok"
    assert records["compile_s"].value == 0.645
    assert records["processed_gb"].value == 1.0  # uservisits only: what the aggregation reads
    assert records["result_rows"].value == 2
    assert "hdfs_read_bytes" not in records  # cumulative in local mode, so not reported


def test_a_wrong_row_count_fails_the_repetition_naming_the_archive(tmp_path: Path) -> None:
    step = _archived(tmp_path, {"distinct_source_ips": 3, "uservisits_bytes": 10, "rankings_bytes": 5})
    with pytest.raises(
        ParseError, match=r"produced 2 rows, 3 expected.*results.json|results.json.*produced 2 rows"
    ):
        get_workload("hive_aggregation").parse(context("hive_aggregation"), step)


def test_a_log_without_the_query_time_is_a_parse_error_naming_the_file(tmp_path: Path) -> None:
    step = _archived(tmp_path, {"distinct_source_ips": 2, "uservisits_bytes": 10, "rankings_bytes": 5})
    (step.directory / "operation.log").write_text("-- BENCHCAMP_STATEMENT query\nINFO  : cut short\n")
    with pytest.raises(ParseError, match="operation.log"):
        get_workload("hive_aggregation").parse(context("hive_aggregation"), step)


def _hive_connection_to_a_closed_port(monkeypatch: pytest.MonkeyPatch, conn_id: str) -> int:
    """Point the Airflow connection `conn_id` at a loopback port nothing listens on; return the port."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    connection = {"conn_type": "hiveserver2", "host": "127.0.0.1", "port": port, "login": "x"}
    monkeypatch.setenv(f"AIRFLOW_CONN_{conn_id.upper()}", json.dumps(connection))
    from benchcamp.transport import ssh

    monkeypatch.setattr(ssh, "CONNECT_FIRST_WAIT_S", 0.05)  # the same tries, with short waits
    return port


def test_a_hiveserver2_that_is_down_fails_naming_host_and_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchcamp.platforms.hive import HiveStatement
    from benchcamp.transport.hive import run_statements
    from benchcamp.transport.ssh import TargetUnreachable

    port = _hive_connection_to_a_closed_port(monkeypatch, "hive_down")
    with pytest.raises(
        TargetUnreachable, match=f"HiveServer2 127.0.0.1:{port} through connection 'hive_down': .*4 tries"
    ):
        run_statements("hive_down", [HiveStatement("q", "SELECT 1")], tmp_path / "step")
    assert (tmp_path / "step" / "statements.sql").exists()  # what was to run is archived


def test_an_unreachable_hiveserver2_at_execute_leaves_a_failed_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchcamp.core.records import read_records
    from benchcamp.pipeline.campaign.steps import run_execute
    from benchcamp.transport.ssh import TargetUnreachable

    port = _hive_connection_to_a_closed_port(monkeypatch, "benchcamp_lab_hive")
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path))
    unit = {
        "study": "hibench_dse", "campaign": "down", "environment": "local_lab", "workload": "hive_aggregation",
        "params": {"data_size_gb": 0.012}, "repetition": 1, "ladder": "tiny",
    }  # fmt: skip
    rep = tmp_path / "hibench_dse" / "down" / "hive_aggregation_data_size_gb=0.012" / "rep1"
    for step in ("clean", "generate"):
        (rep / step / "try1").mkdir(parents=True)
        (rep / step / "try1" / "meta.json").write_text('{"exit_code": 0}')
    (rep / "generate" / "try1" / "verified.json").write_text("{}")
    with pytest.raises(TargetUnreachable, match=f"127.0.0.1:{port}"):
        run_execute(unit)
    (record,) = read_records(rep / "records.jsonl")
    assert (record.metric, record.status) == ("duration_s", "failed")


class _TrailingLogCursor:
    """A HiveServer2 cursor whose operation log trails its FINISHED state, as seen under load.

    Replays the recorded operation log of the aggregation probe: the first fetches return
    everything but the final "Completed executing command" line, which only comes later.
    """

    def __init__(self, lines: list[str], late_fetches: int) -> None:
        self.early = [line for line in lines if "Completed executing command" not in line]
        self.late = [line for line in lines if "Completed executing command" in line]
        self.late_fetches = late_fetches
        self.fetches = 0

    def execute(self, sql: str, async_: bool) -> None:
        assert async_

    def poll(self) -> object:
        from TCLIService.ttypes import TOperationState

        return type("Status", (), {"operationState": TOperationState.FINISHED_STATE})()

    def fetch_logs(self) -> list[str]:
        self.fetches += 1
        if self.fetches == 1:
            return self.early
        return self.late if self.fetches == 1 + self.late_fetches else []

    def fetchall(self) -> list[tuple[object, ...]]:
        return []


def _query_log_lines() -> list[str]:
    return statement_logs((RECORDED / "operation.log").read_text())["query"].splitlines()


def test_a_timed_statement_waits_for_the_server_time_line_that_trails_the_finished_state() -> None:
    import io

    from benchcamp.platforms.hive import HiveStatement
    from benchcamp.transport.hive import _run_one

    cursor = _TrailingLogCursor(_query_log_lines(), late_fetches=3)
    log = io.StringIO()
    _run_one(cursor, HiveStatement("query", "SELECT 1", timed=True), log, poll_s=0.01)
    assert server_timing(log.getvalue()) is not None
    assert cursor.fetches >= 4


def test_an_untimed_statement_does_not_wait_for_a_time_line() -> None:
    import io

    from benchcamp.platforms.hive import HiveStatement
    from benchcamp.transport.hive import _run_one

    cursor = _TrailingLogCursor(_query_log_lines(), late_fetches=1000)
    log = io.StringIO()
    _run_one(cursor, HiveStatement("setup", "SELECT 1"), log, poll_s=0.01, log_wait_s=60)
    assert cursor.fetches == 2 and server_timing(log.getvalue()) is None


class _EarlyTimeLineCursor(_TrailingLogCursor):
    """A server whose time line came with the poll that saw RUNNING end (the usual case)."""

    def fetch_logs(self) -> list[str]:
        self.fetches += 1
        return self.early + self.late if self.fetches == 1 else []


def test_a_timed_statement_whose_time_line_already_came_does_not_wait_for_it_again() -> None:
    import io

    from benchcamp.platforms.hive import HiveStatement
    from benchcamp.transport.hive import _run_one

    cursor = _EarlyTimeLineCursor(_query_log_lines(), late_fetches=1000)
    log = io.StringIO()
    _run_one(cursor, HiveStatement("query", "SELECT 1", timed=True), log, poll_s=0.01, log_wait_s=60)
    assert server_timing(log.getvalue()) is not None
    assert cursor.fetches == 2  # the loop's fetch and the final one: no wait loop


class _UnreachableOnCancelCursor(_TrailingLogCursor):
    """A query Ctrl-C stops mid-poll, whose server then answers nothing: the cancel blocks."""

    def __init__(self) -> None:
        super().__init__([], late_fetches=0)
        self._operationHandle = object()
        self.polls = 0
        self.cancel_sent = __import__("threading").Event()
        self.release = __import__("threading").Event()

    def poll(self) -> object:
        from TCLIService.ttypes import TOperationState

        self.polls += 1
        if self.polls == 3:
            raise KeyboardInterrupt
        return type("Status", (), {"operationState": TOperationState.RUNNING_STATE})()

    def cancel(self) -> None:
        self.cancel_sent.set()
        self.release.wait(60)  # a socket with no answer (PyHive sets no timeout)


def test_an_interruption_whose_cancel_gets_no_answer_is_raised_again_within_its_bound() -> None:
    import io
    import time

    from benchcamp.platforms.hive import HiveStatement
    from benchcamp.transport.hive import _run_one

    cursor = _UnreachableOnCancelCursor()
    log = io.StringIO()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _run_one(cursor, HiveStatement("query", "SELECT 1", timed=True), log, poll_s=0.01, cancel_wait_s=0.2)
    elapsed = time.monotonic() - started
    cursor.release.set()
    assert cursor.cancel_sent.is_set() and elapsed < 2
    assert log.getvalue().splitlines()[-2:] == [
        "BENCHCAMP_WARNING cancelling query on HiveServer2 failed: no answer from HiveServer2 within 0.2 s",
        "BENCHCAMP_CANCELLED query: KeyboardInterrupt",
    ]
