"""Run HiveQL on a target's HiveServer2 through Airflow's Hive connection, and archive it.

The same path serves the lab's HiveServer2 and a real cluster's: only the Airflow
connection (`hive_connection` in the study spec) differs. Statements run one by one,
asynchronously, while the server's operation log is collected; the log, the
statements and the rows of checking queries are written to the raw archive before
anything is parsed. The benchmark's time is the server's own ("Time taken" of
compiling and executing the query), so the Thrift round trips are not measured.

An interruption (Ctrl-C, SIGTERM, a task killed) while a statement runs cancels it on the server
(TCancelOperation), closes the session, archives both, and is raised again as it came: closing
the client alone leaves HiveServer2 to notice the lost connection, which it does not over HTTP or
a proxy (docs/operations/faults.md).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


# How long an interruption waits for HiveServer2 to answer the cancel, then the session's close:
# `benchcamp run` SIGKILLs Airflow STOP_GRACE_S (3 s) after its SIGTERM, so both fit in that.
CANCEL_WAIT_S = 1.0
CANCELLED = "BENCHCAMP_CANCELLED"


def interruption_reason(exc: BaseException) -> str:
    """`Interrupted: SIGTERM`, `KeyboardInterrupt`: what stopped a statement, for the archive."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _within(call: Callable[[], object], wait_s: float) -> str | None:
    """Run `call` in a daemon thread for at most `wait_s`: None once it returned, else why not.

    A server that cannot be reached leaves a Thrift call blocked on its socket (PyHive sets no
    timeout): the interruption must not wait for it."""
    failed: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            failed.append(None)
        except BaseException as exc:  # noqa: BLE001  # reported to the interrupted thread
            failed.append(exc)

    worker = threading.Thread(target=run, name="hive-cancel", daemon=True)
    worker.start()
    worker.join(wait_s)
    if not failed:
        return f"no answer from HiveServer2 within {wait_s:g} s"
    error = failed[0]
    return None if error is None else f"{type(error).__name__}: {error}"


def _cancel(cursor: Any, label: str, reason: str, log: Any, wait_s: float) -> None:
    """Cancel the running operation on the server (TCancelOperation), within `wait_s`; archive it.

    The request goes out even when the interruption cut a Thrift call short (its answer may be
    left unread on the socket): the server acts on it, and the session's close follows."""
    if getattr(cursor, "_operationHandle", True) is None:  # interrupted before the server answered execute
        log.write(f"BENCHCAMP_WARNING {label}: no operation to cancel yet; the session's close stops it\n")
    else:
        failure = _within(cursor.cancel, wait_s)
        if failure is not None:
            log.write(f"BENCHCAMP_WARNING cancelling {label} on HiveServer2 failed: {failure}\n")
    log.write(f"{CANCELLED} {label}: {reason}\n")
    log.flush()


def _close_within(connection: Any, log: Any, wait_s: float) -> None:
    """Close the session (TCloseSession) within `wait_s`; else drop the socket, which a server in
    binary mode takes as the session's end (`hive.server2.close.session.on.disconnect`)."""
    failure = _within(connection.close, wait_s)
    if failure is None:
        return
    log.write(f"BENCHCAMP_WARNING closing the session after the cancel failed: {failure}\n")
    transport = getattr(connection, "_transport", None)
    if transport is not None:
        _within(transport.close, wait_s)


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While statements run, SIGTERM raises in them, so that `_run_one` cancels on the server.

    Airflow 3's task runner answers SIGTERM by calling the operator's `on_kill` and returning
    (a `@task` has none): the statement would run on until the SIGKILL that follows, and
    HiveServer2 would be left to notice the lost connection. Its handler still runs first; one
    that raises (`benchcamp run`'s `Interrupted`) is left to. Only in the main thread, and only
    over a Python handler: a process that ignores SIGTERM or dies of it is left so."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        yield
        return

    def terminated(signum: int, frame: Any) -> None:
        previous(signum, frame)
        from airflow.sdk.exceptions import AirflowTaskTerminated

        raise AirflowTaskTerminated(f"{signal.Signals(signum).name} while a Hive statement ran")

    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_one(
    cursor: Any,
    statement: HiveStatement,
    log: Any,
    poll_s: float,
    log_wait_s: float = 30.0,
    cancel_wait_s: float = CANCEL_WAIT_S,
) -> list[list[Any]]:
    from TCLIService.ttypes import TOperationState

    running = (
        TOperationState.INITIALIZED_STATE,
        TOperationState.PENDING_STATE,
        TOperationState.RUNNING_STATE,
    )
    log.write(f"{STATEMENT_MARK} {statement.label}\n")
    try:
        cursor.execute(statement.sql, async_=True)
        timed_line_seen = False
        while True:
            lines = cursor.fetch_logs()
            for line in lines:
                log.write(line + "\n")
                timed_line_seen = timed_line_seen or COMPLETED_EXECUTING in line
            if lines:  # on disk as it comes: a process killed mid-query leaves what the server said
                log.flush()
            state = cursor.poll().operationState
            if state not in running:
                break
            time.sleep(poll_s)
    except BaseException as stop:
        if not isinstance(stop, Exception):  # Ctrl-C, SIGTERM, a killed task: stop it on the server too
            _cancel(cursor, statement.label, interruption_reason(stop), log, cancel_wait_s)
        raise
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
    interrupted: BaseException | None = None
    current = "(before the first statement)"
    with (archive_dir / OPERATION_LOG).open("w", encoding="utf-8") as log, _sigterm_raises():
        try:
            cursor = connection.cursor()
            for statement in statements:
                current = statement.label
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
        except BaseException as stop:  # `_run_one` cancelled it on the server: archived, raised again
            interrupted = stop
            error = f"{CANCELLED} {current}: {interruption_reason(stop)}"
        finally:
            if interrupted is not None:  # bounded: a server that does not answer must not hold it
                _close_within(connection, log, CANCEL_WAIT_S)
            else:
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
    if interrupted is not None:  # a try cut short: `outcome.mark_interrupted` still marks it
        meta["interrupted"] = interruption_reason(interrupted)
    (archive_dir / "stderr.log").write_text(error + "\n" if error else "", encoding="utf-8")
    write_atomically(archive_dir / "meta.json", json.dumps(meta, indent=2))  # last: the step's end
    if interrupted is not None:
        raise interrupted
    files = {path.name: path for path in archive_dir.iterdir() if path.is_file()}
    return ArchivedStep(archive_dir, 1 if error else 0, started, finished, files)
