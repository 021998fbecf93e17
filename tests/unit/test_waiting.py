"""`wait_while`: the deadline-bounded wait the process supervisor uses for processes to exit;
`wait_until`: the one the lab and the Airflow stack use for their services to be healthy."""

from __future__ import annotations

import time

from benchcamp.core.waiting import wait_until, wait_while


def test_it_stops_asking_as_soon_as_the_answer_clears() -> None:
    answers = iter([True, True, False, True])
    asked: list[bool] = []

    def busy() -> bool:
        asked.append(answer := next(answers))
        return answer

    assert wait_while(busy, timeout_s=5.0, interval_s=0.01) is False
    assert asked == [True, True, False]


def test_it_gives_up_at_the_deadline_and_says_so() -> None:
    started = time.monotonic()
    assert wait_while(lambda: True, timeout_s=0.2, interval_s=0.05) is True
    assert 0.2 <= time.monotonic() - started < 2.0


def test_without_a_deadline_it_waits_until_the_answer_clears() -> None:
    answers = iter([True] * 5 + [False])
    assert wait_while(lambda: next(answers), timeout_s=None, interval_s=0.001) is False


def test_wait_until_returns_the_last_answer_and_whether_it_was_done() -> None:
    answers = iter(range(100))
    assert wait_until(lambda: next(answers), lambda value: value >= 3, 10, 0.01) == (3, True)
    assert wait_until(lambda: 1, lambda value: value > 1, 0.05, 0.01) == (1, False)
