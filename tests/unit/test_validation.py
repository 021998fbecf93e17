"""The Great Expectations suite on per-cell statistics: each failure names its cell and expectation."""

from __future__ import annotations

import pytest
from benchcamp.records import ResultRecord
from benchcamp.validation import validate_campaign


def rec(
    size: int, repetition: int, value: float, status: str = "ok", metric: str = "duration_s"
) -> ResultRecord:
    return ResultRecord(
        study="hibench_dse",
        campaign="c",
        environment="local_lab",
        workload="wordcount",
        params={"data_size_gb": size},
        repetition=repetition,
        metric=metric,
        value=value,
        unit="s",
        status=status,  # type: ignore[arg-type]
    )


def expected(*sizes: int) -> list[tuple[str, str, str, int]]:
    return [("local_lab", "wordcount", f"wordcount|data_size_gb={size}", 3) for size in sizes]


@pytest.fixture(scope="module")
def failures() -> dict[str, list[str]]:
    records = [
        rec(1, 1, 10.0), rec(1, 2, 10.1), rec(1, 3, 9.9), rec(1, 1, 5.0, metric="input_bytes"),  # clean
        rec(2, 1, 10.0), rec(2, 2, 10.1),  # repetition 3 missing
        rec(3, 1, 10.0), rec(3, 2, 10.1), rec(3, 3, 0.0, "failed"),  # one failed
        rec(4, 1, 10.0), rec(4, 2, 20.0), rec(4, 3, 30.0),  # σ% 50
        rec(5, 1, 0.0), rec(5, 2, 0.0), rec(5, 3, 0.0),  # zero durations
    ]  # fmt: skip
    found = validate_campaign(records, expected(1, 2, 3, 4, 5), 10.0, "hibench_dse", "c")
    by_cell: dict[str, list[str]] = {}
    for failure in found:
        assert failure.study == "hibench_dse" and failure.campaign == "c" and failure.details
        by_cell.setdefault(failure.cell_key, []).append(failure.expectation)
    return by_cell


def test_clean_cell_passes(failures: dict[str, list[str]]) -> None:
    assert "wordcount|data_size_gb=1" not in failures


def test_missing_repetition(failures: dict[str, list[str]]) -> None:
    assert sorted(failures["wordcount|data_size_gb=2"]) == ["repetitions_complete", "repetitions_ok"]


def test_failed_repetition(failures: dict[str, list[str]]) -> None:
    assert failures["wordcount|data_size_gb=3"] == ["repetitions_ok"]


def test_stddev_above_threshold(failures: dict[str, list[str]]) -> None:
    assert failures["wordcount|data_size_gb=4"] == ["stddev_within_threshold"]


def test_zero_duration(failures: dict[str, list[str]]) -> None:
    assert failures["wordcount|data_size_gb=5"] == ["duration_positive"]


def test_cell_never_run_is_reported_incomplete() -> None:
    found = validate_campaign(
        [rec(1, 1, 10.0), rec(1, 2, 10.0), rec(1, 3, 10.0)], expected(1, 9), 10, "s", "c"
    )
    assert [(f.cell_key, f.expectation) for f in found][:1] == [
        ("wordcount|data_size_gb=9", "repetitions_complete")
    ]
