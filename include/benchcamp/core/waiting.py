"""Waiting, with a deadline, for something to stop being so: tenacity's stop and wait policies.

Used where the process supervisor (`benchcamp.ops.supervisor`) waits for processes to exit and
where the lab and the Airflow stack wait for their services to be healthy;
a call that fails and is retried (e.g. a locked warehouse) uses tenacity's `Retrying` directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_result, stop_after_delay, stop_never, wait_fixed

T = TypeVar("T")


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


def wait_until(
    read: Callable[[], T], done: Callable[[T], bool], timeout_s: float, interval_s: float
) -> tuple[T, bool]:
    """Call `read()` every `interval_s` s until `done(answer)` or `timeout_s` s have passed: the last
    answer and whether it was done. `read` may raise to end the wait early (a process that exited);
    the caller words the failure, with the last answer in hand (the lab's and the stack's status)."""

    def last_answer(state: RetryCallState) -> T:
        assert state.outcome is not None
        answer: T = state.outcome.result()
        return answer

    answer = Retrying(
        retry=retry_if_result(lambda value: not done(value)),
        stop=stop_after_delay(timeout_s),
        wait=wait_fixed(interval_s),
        retry_error_callback=last_answer,
    )(read)
    return answer, done(answer)
