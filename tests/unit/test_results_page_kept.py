"""The results page keeps its drawn figures per state of the warehouse: drawn once, however many
requests ask at once, and drawn again once a build has replaced what they were drawn from."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from benchcamp.presentation.results_page import Kept, warehouse_state


def test_a_value_is_made_once_for_requests_asking_at_once() -> None:
    kept: Kept[int] = Kept(2)
    calls: list[int] = []
    gate = threading.Event()

    def make() -> int:
        calls.append(1)
        gate.wait(5)
        return 7

    answers: list[int] = []
    threads = [threading.Thread(target=lambda: answers.append(kept.get("k", make))) for _ in range(5)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)  # the four others are waiting on the first one's making, not making their own
    gate.set()
    for thread in threads:
        thread.join(5)
    assert answers == [7] * 5 and len(calls) == 1


def test_the_oldest_value_goes_and_a_failure_is_not_kept() -> None:
    kept: Kept[str] = Kept(2)
    for key in ("a", "b", "a", "c"):  # "a" asked again: "b" is then the oldest
        kept.get(key, lambda key=key: key * 2)
    assert kept.get("a", lambda: "new") == "aa"
    assert kept.get("b", lambda: "new") == "new"

    def fail() -> str:
        raise RuntimeError("the warehouse went away")

    with pytest.raises(RuntimeError):
        kept.get("d", fail)
    assert kept.get("d", lambda: "made") == "made"


def test_the_state_changes_when_a_build_replaces_the_snapshot_or_writes_the_file(tmp_path: Path) -> None:
    snapshot = tmp_path / "benchcamp.snapshot.duckdb"
    snapshot.write_bytes(b"one")
    first = warehouse_state(snapshot)
    assert warehouse_state(snapshot) == first
    scratch = tmp_path / ".scratch"
    scratch.write_bytes(b"two")  # the same size: a new file all the same (export_snapshot's os.replace)
    os.replace(scratch, snapshot)
    second = warehouse_state(snapshot)
    assert second != first
    (tmp_path / "benchcamp.snapshot.duckdb.wal").write_bytes(b"w")  # a warehouse read in place, written
    assert warehouse_state(snapshot) != second
