"""One campaign per target, from the CLI as in the stack: a lock file per target environment.

The stack's 1-slot pools (`campaign.conf.target_pool`) keep its own runs apart, but `benchcamp run`
runs `airflow dags test` on a metadata database of its own, where no pool sees another run: two
runs of one study on one target were both accepted and measured each other. `benchcamp run`
now holds `<locks>/target-<connection>.lock` (an flock, released when the process ends, even
killed) for its whole campaign, with who holds it written inside; a second run refuses (or
waits, bounded) naming the running campaign, and a preflight in any DAG run (the stack's too)
refuses a target that a CLI run other than its own holds.

The lock is the target's SSH connection's, not its environment name's: environments that reach one
machine through one connection (the lab's `local_lab` and `local_lab_yarn`, two storage devices or
link levels of one HDFS) share its data file system, and the preflight of one campaign removes what
another campaign of the study left there.

The lock folder is `$BENCHCAMP_LOCKS`, else `<results>/.locks`: it goes with the results, so
runs that share results share locks, and a test with private results has private locks.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from benchcamp.core import holder_lock
from benchcamp.core.paths import check_component, results_root, slug

LOCKS_ENV = "BENCHCAMP_LOCKS"
TOKEN_ENV = "BENCHCAMP_LOCK_TOKEN"  # set for the Airflow run a lock holder starts


class TargetBusy(RuntimeError):
    """Another campaign holds the target; the message names it (study, campaign, PID, since)."""


def lock_dir() -> Path:
    return Path(os.environ.get(LOCKS_ENV) or results_root() / ".locks")


def lock_path(connection: str) -> Path:
    return lock_dir() / f"target-{check_component(slug(connection), 'connection')}.lock"


def describe(holder: dict[str, Any]) -> str:
    return (
        f"campaign {holder.get('campaign', '?')} of {holder.get('study', '?')} "
        f"({holder.get('command', 'benchcamp run')}, PID {holder.get('pid', '?')} on {holder.get('host', '?')}, "
        f"since {holder.get('since', '?')})"
    )


@dataclass
class TargetLock:
    """A held target lock (keep the object: the lock lasts as long as its open file)."""

    connection: str
    token: str
    handle: IO[str]

    def release(self) -> None:
        self.handle.close()


def acquire(
    environment: str,
    connection: str,
    holder: dict[str, Any],
    wait_s: float = 0.0,
    on_wait: Callable[[str], None] | None = None,
) -> TargetLock:
    """Take the lock of the target `environment` reaches through `connection`, waiting up to
    `wait_s` seconds; TargetBusy naming the holder after that."""
    path = lock_path(connection)
    token = f"{os.getpid()}-{time.time_ns()}"

    def entry() -> dict[str, Any]:
        return {
            **holder,
            "environment": environment,
            "token": token,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    def waiting(current: dict[str, Any]) -> None:
        if on_wait is not None and wait_s > 0:
            on_wait(f"target {environment} is busy with {describe(current)}; waiting up to {wait_s:.0f} s")

    try:
        handle = holder_lock.take(path, entry, wait_s, 1.0, waiting)
    except holder_lock.Held as busy:
        raise TargetBusy(
            f"target {environment} (connection {connection}) is busy: {describe(busy.holder)} holds it "
            f"({path}); wait for it to end or stop it, or pass --wait SECONDS"
        ) from None
    return TargetLock(connection, token, handle)


def check_free(environment: str, connection: str) -> None:
    """In a DAG run: TargetBusy when a `benchcamp run` other than the one that started this run
    holds the target (the holder's token is in this process's environment when it is ours)."""
    path = lock_path(connection)
    if not path.exists():
        return
    with path.open("r", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return  # nobody holds it
        except BlockingIOError:
            current = holder_lock.read_holder(handle)
    # an interleaved campaign's run holds one lock per connection of its group: tokens, comma-separated
    if current.get("token") and current.get("token") in os.environ.get(TOKEN_ENV, "").split(","):
        return
    raise TargetBusy(
        f"target {environment} (connection {connection}) is busy: {describe(current)} holds it ({path})"
    )
