"""An exclusive flock on a file in which its holder writes who it is: one mechanism for the
project's locks (a campaign's target, `pipeline.target_lock`; the lab's start and stop,
`ops.lab.services.lab_lock`), so a second caller can wait for it, bounded, and name the holder.

The kernel releases the lock when the holder's file closes, even when the process is killed; the
file itself stays, and its last holder's words with it (read only while someone holds the lock).
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from benchcamp.core.waiting import wait_while


class Held(Exception):
    """The lock was still held when the wait ended; `holder` is what its holder wrote."""

    def __init__(self, holder: dict[str, Any]) -> None:
        super().__init__(holder)
        self.holder = holder


def read_holder(handle: IO[str]) -> dict[str, Any]:
    """What the lock's holder wrote in it ({} while it has not written yet)."""
    handle.seek(0)
    try:
        holder = json.loads(handle.read() or "{}")
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


def take(
    path: Path,
    entry: Callable[[], dict[str, Any]],
    wait_s: float,
    interval_s: float,
    on_wait: Callable[[dict[str, Any]], None] | None = None,
) -> IO[str]:
    """Hold the lock on `path`, trying every `interval_s` s for up to `wait_s` s, and write
    `entry()` (made once it is held) in it; keep the returned file open as long as the lock is
    needed. `on_wait(holder)` is called once, on the first busy try (it may raise to end the
    wait); Held after the wait, the file closed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a+", encoding="utf-8")
    holder: dict[str, Any] = {}
    told = False

    def busy() -> bool:
        nonlocal holder, told
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            holder = read_holder(handle)
        if on_wait is not None and not told:
            told = True
            on_wait(holder)
        return True

    try:
        if wait_while(busy, wait_s, interval_s):
            raise Held(holder)
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(entry()) + "\n")
        handle.flush()
    except BaseException:
        handle.close()
        raise
    return handle
