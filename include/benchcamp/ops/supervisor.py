"""The one supervisor of the project's long-running processes: the lab's services and the Airflow stack.

Whoever asks (`benchcamp lab up|down|status`, `make up|down|status`), a process is handled the same way:

- start: detached in a session of its own, so it leads a process group that also holds every
  worker it forks (Airflow's executors, Hive's local task JVMs); stdin closed; output appended to
  its log after a line naming the time and the command; its PID written to its PID file;
- running: the PID file names a live process that is not a zombie (a file naming a dead one is
  stale: the process crashed or was killed, which status reports and the next start repairs);
- healthy: the caller's probe, asked with a deadline (`benchcamp.core.waiting`) while it runs;
- stop: SIGTERM, or the service's own stop request when it has a cleaner one, to every process
  of its group; SIGKILL to those left after a grace period; then the PID file goes.

psutil reads the processes (liveness without zombies, group members, memory): it is locked
already (Airflow needs it) and is what the /proc parsing of the two former supervisors did by hand.
A daemon that writes its own PID file (sshd) is supervised the same way once the file is there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from benchcamp.core.waiting import wait_while


def _running(process: psutil.Process) -> bool:
    """Alive and not a zombie (an exited process its parent has not collected yet)."""
    try:
        return bool(process.is_running()) and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def alive(pid: int) -> bool:
    """A live process, not a zombie, has this PID."""
    try:
        return _running(psutil.Process(pid))
    except psutil.Error:
        return False


def group(leader: psutil.Process) -> list[psutil.Process]:
    """The running processes of the group `leader` leads: itself (while it runs) and every process
    whose group id is its PID, including workers it left behind when it exited."""
    members = [leader] if _running(leader) else []
    for process in psutil.process_iter():
        if process.pid == leader.pid:
            continue
        try:
            if os.getpgid(process.pid) == leader.pid and _running(process):
                members.append(process)
        except (ProcessLookupError, psutil.Error):
            continue  # gone meanwhile
    return members


def _send(processes: list[psutil.Process], signum: signal.Signals) -> None:
    for process in processes:
        try:
            process.send_signal(signum)  # psutil refuses a PID reused by another process
        except psutil.Error:
            continue


def reap(pid: int) -> None:
    """Collect the exit status when this process started it, so no zombie remains."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # started by another process (e.g. an earlier `lab up`): init collects it


def rss_mb(pid: int | None) -> float:
    """Resident memory of one process in MiB; 0 for none (or one that has just gone)."""
    if pid is None:
        return 0.0
    try:
        return float(psutil.Process(pid).memory_info().rss) / 2**20
    except psutil.Error:
        return 0.0


@dataclass(frozen=True)
class Supervised:
    """One long-running process, known by its name, its PID file and its log."""

    name: str
    pid_file: Path
    log_file: Path

    def pid(self) -> int | None:
        """The PID of the running process, or None (no PID file, or a stale one)."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if alive(pid) else None

    @property
    def stale(self) -> bool:
        """A PID file whose process is gone: crashed or killed, not stopped."""
        return self.pid_file.exists() and self.pid() is None

    def start(
        self, command: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> int:
        """Start it detached (see the module's docstring) unless it runs already; its PID."""
        running = self.pid()
        if running is not None:
            return running
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("ab") as log:
            log.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(command)}\n".encode())
            log.flush()
            process = subprocess.Popen(
                list(command),
                cwd=cwd,
                env=None if env is None else dict(env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.pid_file.write_text(f"{process.pid}\n")
        return process.pid

    def wait_healthy(self, healthy: Callable[[], bool], timeout_s: float, interval_s: float = 0.2) -> bool:
        """Ask `healthy()` until it answers True (then True), or the process exits or `timeout_s`
        passes (then False). A probe that raises (a port not open yet) means not yet."""
        answer = False

        def not_yet() -> bool:
            nonlocal answer
            if self.pid() is None:
                answer = False
                return False  # it exited: waiting longer cannot help
            try:
                answer = bool(healthy())
            except Exception:  # any failure of a probe means "not healthy yet"
                answer = False
            return not answer

        wait_while(not_yet, timeout_s, interval_s)
        return answer

    def stop(self, grace_s: float, request_stop: Callable[[], bool] | None = None) -> None:
        """SIGTERM to its group (or `request_stop()`, when it returns True: the request got
        through), SIGKILL to what is left after `grace_s`, then remove the PID file."""
        pid = self.pid()
        if pid is not None:
            try:
                self._end(psutil.Process(pid), grace_s, request_stop)
            except psutil.NoSuchProcess:
                pass  # it exited between the two looks
            reap(pid)
        self.pid_file.unlink(missing_ok=True)

    @staticmethod
    def _end(leader: psutil.Process, grace_s: float, request_stop: Callable[[], bool] | None) -> None:
        if request_stop is None or not request_stop():
            _send(group(leader), signal.SIGTERM)
        if wait_while(lambda: bool(group(leader)), grace_s, 0.1):
            _send(group(leader), signal.SIGKILL)
            wait_while(lambda: bool(group(leader)), None, 0.05)
