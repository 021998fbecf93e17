"""The stack modules' `mark_failed`: it presses again only when PostgreSQL logged a deadlock
during the api-server's request, and fails at once, with both logs, on any other error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import stack as helper

DEADLOCK_LINES = (
    "2026-12-03 13:38:20.101 UTC [4242] ERROR:  deadlock detected\n"
    "2026-12-03 13:38:20.101 UTC [4242] DETAIL:  Process 4242 waits for ShareLock on transaction 901\n"
)
ANSWER = {
    "detail": {
        "reason": "Database error",
        "message": "Serious error when handling your request. Check logs for more details - "
        "you will find it in api server when you look for ID K6Pk0fJh",
    }
}


class Recorded(helper.Api):
    """An api-server whose answers are given, each also appending its PostgreSQL lines."""

    def __init__(self, home: Path, answers: list[tuple[int, Any, str]]) -> None:
        super().__init__("http://127.0.0.1:1", home=home)
        self.answers, self.calls = answers, 0

    def call(self, method: str, path: str, body: object | None = None) -> tuple[int, Any]:
        status, answer, postgres = self.answers[self.calls]
        self.calls += 1
        with (self.home / "logs" / "metadb.log").open("a") as log:  # type: ignore[operator]
            log.write(postgres)
        return status, answer

    def diagnosis(self) -> str:
        return ""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "metadb.log").write_text(DEADLOCK_LINES)  # an old one: not this request's
    (tmp_path / "logs" / "api-server.log").write_text(
        "ERROR - Error with id K6Pk0fJh, statement: UPDATE task_instance SET state=%(state)s\n"
    )
    return tmp_path


def test_a_deadlocked_request_is_pressed_again(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helper.time, "sleep", lambda _s: None)
    api = Recorded(home, [(500, ANSWER, DEADLOCK_LINES), (200, {"state": "running"}, "")])
    helper.mark_failed(api, "ycsb_hbase_cassandra", "manual__2026-12-03T13:38:08+00:00")
    assert api.calls == 2


def test_another_database_error_fails_at_once_with_both_logs(home: Path) -> None:
    api = Recorded(home, [(500, ANSWER, "2026-12-03 UTC [4242] FATAL:  sorry, too many clients\n")])
    with pytest.raises(AssertionError) as failed:
        helper.mark_failed(api, "ycsb_hbase_cassandra", "manual__1")
    assert api.calls == 1
    assert "too many clients" in str(failed.value)
    assert "UPDATE task_instance" in str(failed.value)


def test_deadlocks_are_pressed_again_only_so_often(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helper.time, "sleep", lambda _s: None)
    api = Recorded(home, [(500, ANSWER, DEADLOCK_LINES)] * 3)
    with pytest.raises(AssertionError, match="attempt 3 of 3"):
        helper.mark_failed(api, "ycsb_hbase_cassandra", "manual__1")
    assert api.calls == 3
