"""The Great Expectations suite on per-cell statistics: each defect gives exactly its one failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from benchcamp.core.records import ResultRecord, ValidationFailure
from benchcamp.pipeline.validation import (
    EXPECTATION_IDS,
    export_suite,
    suite_definition,
    validate_campaign,
    validate_campaign_cells,
)

SUITE_FILE = Path(__file__).resolve().parents[2] / "expectations" / "campaign_suite.json"


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


def key(size: int) -> str:
    return f"wordcount|data_size_gb={size}"


def expected(*sizes: int, reps: int = 3) -> list[tuple[str, str, str, int]]:
    return [("local_lab", "wordcount", key(size), reps) for size in sizes]


def clean(size: int) -> list[ResultRecord]:
    return [
        rec(size, 1, 10.0),
        rec(size, 2, 10.1),
        rec(size, 3, 9.9),
        rec(size, 1, 5.0, metric="input_bytes"),
    ]


def only(records: list[ResultRecord], threshold: float = 10.0, reps: int = 3) -> ValidationFailure:
    """The single failure a campaign of one defective cell (size 1) must give."""
    (failure,) = validate_campaign(records, expected(1, reps=reps), threshold, "hibench_dse", "c")
    assert (failure.study, failure.campaign, failure.environment) == ("hibench_dse", "c", "local_lab")
    assert (failure.workload, failure.cell_key) == ("wordcount", key(1))
    return failure


def test_a_clean_campaign_gives_no_failure() -> None:
    records = clean(1) + clean(2)
    assert validate_campaign(records, expected(1, 2), 10.0, "hibench_dse", "c") == []
    assert validate_campaign(records, None, 10.0, "hibench_dse", "c") == []
    assert validate_campaign([], None, 10.0, "hibench_dse", "c") == []


def test_missing_repetition() -> None:
    failure = only([rec(1, 1, 10.0), rec(1, 3, 10.1)])
    assert failure.expectation == "repetitions_complete"
    assert (failure.observed, failure.threshold) == (2, 3)
    assert failure.details == "2 of 3 repetitions present (missing: 2)"


def test_min_ok_repetitions_tolerates_failures_down_to_the_minimum_and_marks_fewer_incomplete() -> None:
    """`thresholds.min_ok_repetitions: 3` of 4: one failed repetition is counted, not a failure;
    two make the cell incomplete."""
    one_failed = [rec(1, 1, 10.0), rec(1, 2, 10.1), rec(1, 3, 0.0, "failed"), rec(1, 4, 10.0)]
    assert (
        validate_campaign(one_failed, expected(1, reps=4), 10.0, "hibench_dse", "c", min_ok_repetitions=3)
        == []
    )
    two_failed = [*one_failed[:3], rec(1, 4, 0.0, "failed")]
    (failure,) = validate_campaign(
        two_failed, expected(1, reps=4), 10.0, "hibench_dse", "c", min_ok_repetitions=3
    )
    assert failure.expectation == "repetitions_ok" and (failure.observed, failure.threshold) == (2, 1)
    assert failure.details == "2 of 4 repetitions failed (repetition 3, 4); cell incomplete: 3 must be ok"
    # a cell planned with fewer repetitions than the minimum needs all of them
    found = validate_campaign(
        [rec(1, 1, 10.0), rec(1, 2, 0.0, "failed")], expected(1, reps=2), 10.0, "s", "c", min_ok_repetitions=3
    )
    assert [(f.expectation, f.threshold) for f in found][0] == ("repetitions_ok", 0)


def test_failed_repetition() -> None:
    failure = only([rec(1, 1, 10.0), rec(1, 2, 10.1), rec(1, 3, 0.0, "failed"), rec(1, 4, 10.0)], reps=4)
    assert failure.expectation == "repetitions_ok"
    assert (failure.observed, failure.threshold) == (1, 0)
    assert failure.details == "1 of 4 repetitions failed (repetition 3)"


def test_zero_duration() -> None:
    failure = only([rec(1, 1, 0.0), rec(1, 2, 0.0), rec(1, 3, 0.0)])  # mean 0: σ% undefined
    assert failure.expectation == "duration_positive"
    # one zero among 10 s runs is also a σ% of 87: at a threshold of 100 only the zero is reported
    failure = only([rec(1, 1, 10.0), rec(1, 2, 0.0), rec(1, 3, 10.0)], threshold=100)
    assert failure.expectation == "duration_positive"
    assert (failure.observed, failure.threshold) == (0, 0)
    assert failure.details == "smallest ok duration 0 s is not > 0 s"


def test_stddev_above_threshold() -> None:
    failure = only([rec(1, 1, 10.0), rec(1, 2, 12.0), rec(1, 3, 14.0)])
    assert failure.expectation == "stddev_within_threshold"
    assert failure.observed == pytest.approx(2 / 12 * 100)  # sample σ (n−1) = 2, mean 12
    assert failure.threshold == 10.0
    assert failure.details == "σ% 16.7 > 10 (n=3)"
    assert (
        validate_campaign(  # the study's own threshold decides
            [rec(1, 1, 10.0), rec(1, 2, 12.0), rec(1, 3, 14.0)], expected(1), 20.0, "hibench_dse", "c"
        )
        == []
    )


def test_stddev_uncheckable_only_when_two_repetitions_were_planned() -> None:
    found = validate_campaign([rec(1, 1, 10.0), rec(1, 2, 9.0, "failed")], expected(1, reps=2), 10, "s", "c")
    assert [f.expectation for f in found] == ["repetitions_ok", "stddev_uncheckable"]
    assert found[1].details == "σ% cannot be checked: 1 ok repetition(s) of 2 (needs 2)"
    found = validate_campaign([rec(1, 1, 10.0)], expected(1, reps=2), 10, "hibench_dse", "c")
    assert [f.expectation for f in found] == ["repetitions_complete", "stddev_uncheckable"]
    assert validate_campaign([rec(1, 1, 10.0)], expected(1, reps=1), 10, "hibench_dse", "c") == []


def test_duplicate_duration_record() -> None:
    failure = only([rec(1, 1, 10.0), rec(1, 2, 10.0), rec(1, 2, 10.1), rec(1, 3, 10.0)])
    assert failure.expectation == "record_count"
    assert (failure.observed, failure.threshold) == (1, 0)


def test_cell_never_run_and_cell_without_duration_are_incomplete() -> None:
    records = clean(1) + [rec(2, 1, 5.0, metric="input_bytes")]
    found = validate_campaign(records, expected(1, 2, 9), 10, "hibench_dse", "c")
    assert [(f.cell_key, f.expectation, f.observed) for f in found] == [
        (key(2), "repetitions_complete", 0),
        (key(2), "stddev_uncheckable", 0),
        (key(9), "repetitions_complete", 0),
        (key(9), "stddev_uncheckable", 0),
    ]


def test_imports_expect_the_highest_repetition_seen() -> None:
    found = validate_campaign([rec(1, 1, 10.0), rec(1, 4, 10.0)], None, 10, "hibench_dse", "c")
    assert [(f.expectation, f.details) for f in found] == [
        ("repetitions_complete", "2 of 4 repetitions present (missing: 2, 3)")
    ]


def test_failures_never_remove_or_change_records() -> None:
    records = [rec(1, 1, 10.0), rec(1, 2, 30.0), rec(1, 3, 0.0, "failed"), rec(2, 1, 0.0)]
    before = [record.model_copy() for record in records]
    assert validate_campaign(records, expected(1, 2), 10, "hibench_dse", "c")
    assert records == before


def test_every_failure_in_one_campaign_is_reported_per_cell() -> None:
    records = (
        clean(1)
        + [rec(2, 1, 10.0), rec(2, 2, 10.1)]
        + [rec(3, 1, 10.0), rec(3, 2, 10.1), rec(3, 3, 0.0, "failed")]
        + [rec(4, 1, 10.0), rec(4, 2, 20.0), rec(4, 3, 30.0)]
        + [rec(5, 1, 0.0), rec(5, 2, 0.0), rec(5, 3, 0.0)]
    )
    found = validate_campaign(records, expected(1, 2, 3, 4, 5), 10.0, "hibench_dse", "c")
    assert [(f.cell_key, f.expectation) for f in found] == [
        (key(2), "repetitions_complete"),
        (key(3), "repetitions_ok"),
        (key(4), "stddev_within_threshold"),
        (key(5), "duration_positive"),
    ]


def test_the_committed_suite_is_the_one_validation_runs(tmp_path: Path) -> None:
    definition = suite_definition()
    ids = [expectation["meta"]["benchcamp_id"] for expectation in definition["expectations"]]
    assert ids == list(EXPECTATION_IDS)
    exported = export_suite(tmp_path / "suite.json")
    assert json.loads(exported.read_text()) == definition
    assert json.loads(SUITE_FILE.read_text()) == definition, "run benchcamp.pipeline.validation.export_suite"


def test_importing_the_module_does_not_import_great_expectations() -> None:
    code = "import sys, benchcamp.pipeline.validation; print('great_expectations' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_warmups_are_in_no_expectation() -> None:
    """A cold warm-up (10x slower) and a failed one leave a clean cell clean: none is counted,
    averaged, gated or reported as surplus; without them the same slow run fails the σ gate."""
    warmups = [rec(240, 0, 100.0, status="warmup"), rec(240, -1, 1.0, status="warmup_failed")]
    assert validate_campaign(clean(240) + warmups, expected(240), 10, "hibench_dse", "c") == []
    as_measured = [rec(240, 1, 10.0), rec(240, 2, 10.1), rec(240, 3, 100.0)]
    failures = validate_campaign(as_measured, expected(240), 10, "hibench_dse", "c")
    assert [failure.expectation for failure in failures] == ["stddev_within_threshold"]


def test_a_cell_below_its_targets_resolution_is_reported_not_gated() -> None:
    """σ% 16.7 at a mean of 12 s: judged at a resolution of 11 s, reported below one of 13 s."""
    noisy = [rec(1, 1, 10.0), rec(1, 2, 12.0), rec(1, 3, 14.0)]
    failures, below = validate_campaign_cells(
        noisy, expected(1), 10.0, "hibench_dse", "c", resolutions={("local_lab", "wordcount"): 13.0}
    )
    assert failures == []
    assert below == [
        {
            "environment": "local_lab", "workload": "wordcount", "cell_key": key(1), "mean_s": 12.0,
            "stddev_pct": pytest.approx(2 / 12 * 100), "n": 3, "resolution_s": 13.0,
        }
    ]  # fmt: skip
    failures, below = validate_campaign_cells(
        noisy, expected(1), 10.0, "hibench_dse", "c", resolutions={("local_lab", "wordcount"): 11.0}
    )
    assert [failure.expectation for failure in failures] == ["stddev_within_threshold"]
    assert below == []
    # a floor of another workload or target excuses nothing; every other expectation still judges
    failures, below = validate_campaign_cells(
        noisy[:2], expected(1), 10.0, "hibench_dse", "c",
        resolutions={("local_lab", "hive_aggregation"): 60.0, ("cluster", "wordcount"): 60.0},
    )  # fmt: skip
    assert [failure.expectation for failure in failures] == [
        "repetitions_complete",
        "stddev_within_threshold",
    ]
    failures, _ = validate_campaign_cells(
        noisy[:2], expected(1), 10.0, "hibench_dse", "c", resolutions={("local_lab", "wordcount"): 60.0}
    )
    assert [failure.expectation for failure in failures] == ["repetitions_complete"]
