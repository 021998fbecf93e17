"""Waiting, with a deadline, for something to stop being so: tenacity's stop and wait policies.

Used where the lab and the Airflow stack wait for processes to exit or services to settle;
a call that fails and is retried (e.g. a locked warehouse) uses tenacity's `Retrying` directly.
"""

from __future__ import annotations

from collections.abc import Callable

from tenacity import Retrying, retry_if_result, stop_after_delay, stop_never, wait_fixed


def wait_while(busy: Callable[[], bool], timeout_s: float | None, interval_s: float) -> bool:
    """Ask `busy()` every `interval_s` s until it answers False or `timeout_s` s have passed
    (None: no limit); its last answer, so True means the deadline came first."""
    retrying = Retrying(
        retry=retry_if_result(bool),
        stop=stop_never if timeout_s is None else stop_after_delay(timeout_s),
        wait=wait_fixed(interval_s),
        retry_error_callback=lambda state: True,
    )
    return bool(retrying(busy))
