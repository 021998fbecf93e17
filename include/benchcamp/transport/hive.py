"""Run HiveQL on a target's HiveServer2 through Airflow's Hive connection, and archive it.

The same path serves the lab's HiveServer2 and a real cluster's: only the Airflow
connection (`hive_connection` in the study spec) differs. Statements run one by one,
asynchronously, while the server's operation log is collected; the log, the
statements and the rows of checking queries are written to the raw archive before
anything is parsed. The benchmark's time is the server's own ("Time taken" of
compiling and executing the query), so the Thrift round trips are not measured.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.paths import write_atomically
from benchcamp.core.steps import ArchivedStep
from benchcamp.platforms.hive import (
    COMPLETED_EXECUTING,
    OPERATION_LOG,
    RESULTS_FILE,
    STATEMENT_MARK,
    HiveStatement,
)
from benchcamp.transport.ssh import TargetRefused, connect_with_retries


def _hook(conn_id: str) -> Any:
    from airflow.providers.apache.hive.hooks.hive import HiveServer2Hook

    return HiveServer2Hook(hiveserver2_conn_id=conn_id)


def _connect(conn_id: str) -> Any:
    """An open HiveServer2 session; transient failures (a server starting, a reset) are retried
    within the SSH transport's budget (`ssh.connect_with_retries`), permanent ones refused at once."""
    try:
        hook = _hook(conn_id)
        connection = hook.get_connection(conn_id)
    except Exception as exc:  # the connection's definition, not the network: waiting cannot help
        raise TargetRefused(
            f"HiveServer2 connection '{conn_id}' cannot be used: {type(exc).__name__}: {exc}"
        ) from exc
    where = f"HiveServer2 {connection.host}:{connection.port} through connection '{conn_id}'"

    def connect() -> Any:
        try:
            return hook.get_conn()
        except Exception as exc:
            if _METASTORE_CLIENT in str(exc).lower():  # the server answered; what it needs did not
                raise MetastoreUnreachable(
                    f"HiveServer2 answers but cannot reach its Hive metastore (hive.metastore.uris "
                    f"in the server's hive-site.xml): {_error_message(exc)}"
                ) from exc
            raise

    return connect_with_retries(connect, where)


# what HiveServer2 names when a session cannot get a metastore client (the metastore is down or
# unreachable from the server): "Unable to instantiate ...SessionHiveMetaStoreClient"
_METASTORE_CLIENT = "metastoreclient"


# HiveServer2's message for a statement naming a table the metastore does not hold (error 10001)
_TABLE_NOT_FOUND = "Table not found"


class MetastoreUnreachable(ConnectionError):
    """HiveServer2 is up, its metastore is not: transient (a metastore restarting), retried."""


def _error_message(exc: Exception) -> str:
    """The server's own message out of a Thrift status (`errorMessage='...'`), else the text."""
    text = str(exc)
    marker = "errorMessage='"
    if marker in text:
        return text.split(marker, 1)[1].split("'", 1)[0]
    return text


def _await_completion_line(cursor: Any, lines: list[str], poll_s: float, wait_s: float) -> list[str]:
    """The operation log can trail the FINISHED state (seen under load): wait for the time line.

    A timed statement's benchmark figure is HiveServer2's "Completed executing command …
    Time taken" line; without it the repetition could only be marked failed.
    """
    lines = list(lines)
    deadline = time.monotonic() + wait_s
    while not any(COMPLETED_EXECUTING in line for line in lines) and time.monotonic() < deadline:
        time.sleep(poll_s)
        lines += cursor.fetch_logs()
    return lines


def _run_one(
    cursor: Any, statement: HiveStatement, log: Any, poll_s: float, log_wait_s: float = 30.0
) -> list[list[Any]]:
    from TCLIService.ttypes import TOperationState

    running = (
        TOperationState.INITIALIZED_STATE,
        TOperationState.PENDING_STATE,
        TOperationState.RUNNING_STATE,
    )
    log.write(f"{STATEMENT_MARK} {statement.label}\n")
    cursor.execute(statement.sql, async_=True)
    timed_line_seen = False
    while True:
        for line in cursor.fetch_logs():
            log.write(line + "\n")
            timed_line_seen = timed_line_seen or COMPLETED_EXECUTING in line
        state = cursor.poll().operationState
        if state not in running:
            break
        time.sleep(poll_s)
    lines = cursor.fetch_logs()
    # Wait for the time line only when no fetch has brought it yet (it usually came with the
    # last poll: waiting for it again cost 30 s per timed statement).
    if statement.timed and state == TOperationState.FINISHED_STATE and not timed_line_seen:
        lines = _await_completion_line(cursor, lines, poll_s, log_wait_s)
    for line in lines:
        log.write(line + "\n")
    log.flush()
    if state != TOperationState.FINISHED_STATE:
        status = cursor.poll()
        raise RuntimeError(
            f"{statement.label}: {status.errorMessage or 'operation ended in state ' + str(state)}"
        )
    return [list(row) for row in cursor.fetchall()] if statement.fetch else []


def run_statements(
    conn_id: str, statements: list[HiveStatement], archive_dir: Path, poll_s: float = 0.1
) -> ArchivedStep:
    """Run the statements in order, stopping at the first failure; archive log, rows and status.

    Returns the archived step whatever happened to the statements (exit code 1 and the
    error in meta.json on failure); raises TargetUnreachable when no session opens
    (TargetRefused when none can).
    """
    archive_dir.mkdir(parents=True, exist_ok=True)
    (archive_dir / "statements.sql").write_text(
        "".join(f"{STATEMENT_MARK} {s.label}\n{s.sql};\n" for s in statements), encoding="utf-8"
    )
    started = datetime.now(UTC)
    connection = _connect(conn_id)
    results: dict[str, list[list[Any]]] = {}
    error = ""
    with (archive_dir / OPERATION_LOG).open("w", encoding="utf-8") as log:
        try:
            cursor = connection.cursor()
            for statement in statements:
                try:
                    results[statement.label] = _run_one(cursor, statement, log, poll_s)
                except Exception as exc:
                    if not (statement.missing_ok and _TABLE_NOT_FOUND in str(exc)):
                        raise
                    log.write(f"BENCHCAMP_SKIPPED {statement.label}: {_error_message(exc)}\n")
                    results[statement.label] = []
        except Exception as exc:  # a failed statement fails the step; the message is archived
            error = f"{type(exc).__name__}: {exc}"
            log.write(f"BENCHCAMP_ERROR {error}\n")
        finally:
            try:
                connection.close()
            except Exception as exc:  # the results are in; a session that cannot close is only logged
                log.write(f"BENCHCAMP_WARNING closing the session failed: {type(exc).__name__}: {exc}\n")
    finished = datetime.now(UTC)
    (archive_dir / RESULTS_FILE).write_text(json.dumps(results, default=str, indent=1), encoding="utf-8")
    meta = {
        "step": archive_dir.parent.name,
        "connection": conn_id,
        "exit_code": 1 if error else 0,
        "error": error,
        "started_at": started.isoformat(),
        "finished_at": finished.isoformat(),
        "duration_s": (finished - started).total_seconds(),
    }
    (archive_dir / "stderr.log").write_text(error + "\n" if error else "", encoding="utf-8")
    write_atomically(archive_dir / "meta.json", json.dumps(meta, indent=2))  # last: the step's end
    files = {path.name: path for path in archive_dir.iterdir() if path.is_file()}
    return ArchivedStep(archive_dir, 1 if error else 0, started, finished, files)
