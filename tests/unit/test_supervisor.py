"""The process supervisor of the lab and the Airflow stack, with real short-lived processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from benchcamp.core.waiting import wait_until
from benchcamp.ops.supervisor import Supervised, alive, rss_mb

IGNORES_SIGTERM = (
    "import signal, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.fixture
def supervised(tmp_path: Path) -> Iterator[Supervised]:
    process = Supervised("probe", tmp_path / "run" / "probe.pid", tmp_path / "logs" / "probe.log")
    yield process
    process.stop(0.5)  # whatever a test left running


def _log_says(process: Supervised, line: str) -> bool:
    """The process printed this line (the log's first line names the command, which may quote it)."""
    return process.log_file.exists() and line in process.log_file.read_text().splitlines()[1:]


def test_start_records_the_pid_and_logs_the_command_then_the_output(supervised: Supervised) -> None:
    pid = supervised.start([sys.executable, "-u", "-c", "print('hello'); import time; time.sleep(60)"])
    assert supervised.pid_file.read_text() == f"{pid}\n"
    assert supervised.pid() == pid and alive(pid) and not supervised.stale
    assert supervised.wait_healthy(lambda: _log_says(supervised, "hello"), 10, 0.05)
    first, output = supervised.log_file.read_text().splitlines()[1:3]
    assert first.startswith("==== ") and first.endswith(
        f"{sys.executable} -u -c print('hello'); import time; time.sleep(60)"
    )
    assert output == "hello"
    assert os.getpgid(pid) == pid, "it leads a process group of its own"
    assert rss_mb(pid) > 1
    assert supervised.start(["sleep", "60"]) == pid, "a running process is not started twice"


def test_health_is_the_callers_probe_asked_until_it_answers(supervised: Supervised) -> None:
    """A tiny HTTP server on an ephemeral port: healthy once it answers, not before."""
    supervised.start(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
        cwd=supervised.log_file.parent,
    )

    def answers() -> bool:
        found = re.search(r"port (\d+)", supervised.log_file.read_text())
        if found is None:
            raise OSError("no port yet")  # a probe that raises means: not yet
        with urllib.request.urlopen(f"http://127.0.0.1:{found[1]}/", timeout=2) as answer:  # noqa: S310
            return bool(answer.status == 200)

    assert supervised.wait_healthy(answers, 20, 0.05)


def test_health_wait_ends_when_the_process_exits(supervised: Supervised) -> None:
    supervised.start([sys.executable, "-c", "raise SystemExit(3)"])
    started = time.monotonic()
    assert not supervised.wait_healthy(lambda: False, 30, 0.05)
    assert time.monotonic() - started < 10
    assert supervised.pid() is None and supervised.stale


def test_stop_ends_the_process_with_sigterm_within_the_grace(supervised: Supervised) -> None:
    pid = supervised.start(["sleep", "60"])
    started = time.monotonic()
    supervised.stop(20)
    assert time.monotonic() - started < 5, "SIGTERM ends sleep: no wait for the grace period"
    assert not alive(pid) and not supervised.pid_file.exists()


def test_stop_kills_a_process_that_ignores_sigterm_after_the_grace(supervised: Supervised) -> None:
    pid = supervised.start([sys.executable, "-u", "-c", IGNORES_SIGTERM])
    assert supervised.wait_healthy(lambda: _log_says(supervised, "ready"), 10, 0.05)
    started = time.monotonic()
    supervised.stop(1.0)
    elapsed = time.monotonic() - started
    assert not alive(pid) and not supervised.pid_file.exists()
    assert 1.0 <= elapsed < 10, elapsed


def test_stop_ends_the_whole_process_group(supervised: Supervised) -> None:
    """Workers a process forks (Airflow's executors) go with it, even those it would leave behind."""
    pid = supervised.start(["sh", "-c", "sleep 60 & sleep 60 & wait"])
    (workers, _) = wait_until(lambda: psutil.Process(pid).children(), lambda found: len(found) == 2, 10, 0.05)
    assert len(workers) == 2
    supervised.stop(5)
    assert not alive(pid) and not any(alive(worker.pid) for worker in workers)


def test_a_stop_request_that_gets_through_replaces_sigterm(supervised: Supervised) -> None:
    pid = supervised.start([sys.executable, "-u", "-c", IGNORES_SIGTERM])
    assert supervised.wait_healthy(lambda: _log_says(supervised, "ready"), 10, 0.05)
    asked: list[int] = []

    def request_stop() -> bool:
        asked.append(pid)
        os.kill(pid, 9)  # the service's own clean stop, here: it is gone
        return True

    started = time.monotonic()
    supervised.stop(30, request_stop)
    assert asked == [pid] and time.monotonic() - started < 5 and not alive(pid)


def test_a_stale_pid_file_is_reported_and_the_next_start_replaces_it(supervised: Supervised) -> None:
    exited = subprocess.Popen(["true"])
    exited.wait()
    supervised.pid_file.parent.mkdir(parents=True)
    supervised.pid_file.write_text(f"{exited.pid}\n")
    assert supervised.pid() is None and supervised.stale
    supervised.stop(1)  # nothing to stop: the stale file goes
    assert not supervised.pid_file.exists() and not supervised.stale
    supervised.pid_file.write_text("not a pid\n")
    assert supervised.pid() is None and supervised.stale
    pid = supervised.start(["sleep", "60"])
    assert supervised.pid() == pid != exited.pid and not supervised.stale


def test_no_pid_file_means_not_running(supervised: Supervised) -> None:
    assert supervised.pid() is None and not supervised.stale
    supervised.stop(1)
    assert rss_mb(None) == 0.0


def test_the_airflow_stack_and_the_lab_run_their_processes_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchcamp.ops import stack
    from benchcamp.ops.lab import services

    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "airflow"))
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.setattr(stack, "_command", lambda component: ["sh", "-c", "sleep 60 & sleep 60 & wait"])
    pid = stack._start("scheduler", {})  # noqa: SLF001 (what `make up` does for each component)
    assert (tmp_path / "airflow" / "run" / "scheduler.pid").read_text() == f"{pid}\n"
    assert stack.log_file("scheduler") == tmp_path / "airflow" / "logs" / "scheduler.log"
    (workers, _) = wait_until(lambda: psutil.Process(pid).children(), lambda found: len(found) == 2, 10, 0.05)
    assert next(row for row in stack.status() if row.name == "scheduler").pid == pid
    stack._stop("scheduler", 5)  # noqa: SLF001 (what `make down` does)
    assert not alive(pid) and not any(alive(worker.pid) for worker in workers)
    assert stack._read_pid("scheduler") is None  # noqa: SLF001

    lab_service = services.supervised("namenode")
    assert (lab_service.pid_file, lab_service.log_file) == (
        services.pid_file("namenode"),
        services.log_file("namenode"),
    )
    assert lab_service.pid_file.parent == tmp_path / "lab" / "run"
