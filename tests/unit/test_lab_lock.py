"""The lab lock (issue 53): `lab up`, `lab down` and `stack.up` wait for another process's, and
refuse naming it; no service is started or stopped here (a child process holds the lock)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from benchcamp.ops import cli, lab, metadb, stack
from benchcamp.ops.lab import services
from benchcamp.ops.lab.services import LabBusy

# Takes the flock as `lab_lock` does, writes its holder line, says "held", then sleeps until killed.
HOLDER = """
import fcntl, json, os, socket, sys, time
handle = open(sys.argv[1], "a+", encoding="utf-8")
fcntl.flock(handle, fcntl.LOCK_EX)
handle.seek(0)
handle.truncate()
holder = {"action": "lab up", "command": "benchcamp lab up", "pid": os.getpid(),
          "host": socket.gethostname(), "since": "2025-01-01T00:00:00+00:00"}
handle.write(json.dumps(holder) + "\\n")
handle.flush()
print("held", flush=True)
time.sleep(600)
"""


def _never(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("reached past the lab lock")


@pytest.fixture
def holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[subprocess.Popen[str]]:
    """A child process holding the lab lock of a lab in `tmp_path`; killed at the end."""
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.setenv("BENCHCAMP_LAB_YARN", "0")
    path = services.lab_lock_file()
    path.parent.mkdir(parents=True)
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 20.0)
        assert ready and child.stdout.readline().strip() == "held", "the holder did not take the lock"
        yield child
    finally:
        child.kill()
        child.wait(timeout=10)


def test_lab_up_waits_then_refuses_naming_the_holder_before_starting_anything(
    holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("ensure_installed", "write_configuration", "lab_services", "lab_status"):
        monkeypatch.setattr(services, name, _never)
    started = time.monotonic()
    with pytest.raises(LabBusy, match=rf"PID {holder.pid} .*benchcamp lab down` once it is done"):
        lab.lab_up(lock_timeout_s=1)
    assert 0.9 <= time.monotonic() - started < 10
    waited = capsys.readouterr().err
    assert waited.count("waiting up to 1 s") == 1 and f"PID {holder.pid}" in waited, waited
    assert not list(services.lab_lock_file().parent.glob("*.pid"))


def test_stack_up_is_under_the_same_lock_as_lab_up(
    holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`benchcamp up` beside another's `lab up`: it refuses before its metadata database starts."""
    monkeypatch.setattr(services, "LAB_LOCK_TIMEOUT_S", 1.0)
    monkeypatch.setattr(services, "ensure_installed", _never)
    monkeypatch.setattr(metadb, "start", _never)
    with pytest.raises(
        LabBusy, match=rf"lab up: the lab is busy with `lab up` \(benchcamp lab up, PID {holder.pid} "
    ):
        stack.up()


def test_lab_down_waits_too_and_the_cli_exits_busy(
    holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`lab down` during another's `lab up` stops nothing it waits on; `benchcamp lab down` says so, exit 6."""
    from benchcamp.core import study
    from benchcamp.core.outcomes import ExitCode

    monkeypatch.setattr(study, "study_lab_teardowns", _never)
    monkeypatch.setattr(services, "SERVICES", ())
    with pytest.raises(LabBusy, match=rf"lab down: .*PID {holder.pid} "):
        lab.lab_down(lock_timeout_s=1)
    monkeypatch.setattr(services, "LAB_LOCK_TIMEOUT_S", 0.5)
    assert cli.main(["lab", "down"]) == ExitCode.BUSY
    assert f"error: lab down: the lab is busy with `lab up` (benchcamp lab up, PID {holder.pid}" in (
        capsys.readouterr().err
    )


def test_a_killed_holders_lock_is_free_at_once_and_names_the_new_holder(
    holder: subprocess.Popen[str],
) -> None:
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    started = time.monotonic()
    with services.lab_lock("lab up", timeout_s=0):  # one try: no wait for a timeout
        written = json.loads(services.lab_lock_file().read_text(encoding="utf-8"))
        assert written["pid"] == os.getpid() and written["action"] == "lab up" and written["since"]
        # the same process nesting a second lab up or down is refused at once, not left waiting on itself
        with pytest.raises(lab.LabError, match="nested in this process's own `lab up`"):
            lab.lab_down(lock_timeout_s=60)
    assert time.monotonic() - started < 5
