"""Validate a campaign's repetitions with Great Expectations 1.x before they are loaded.

Per-cell statistics are computed first with pandas (one row per cell), then one
expectation suite runs on that frame in an ephemeral GX context (the pandas route:
GX's SQL route on DuckDB does not work, see LAB.md). Failures are built from GX's
own results (unexpected row indices and values, resolved thresholds), so the suite
is the single source of truth. Nothing is removed: failures are only reported. The suite is the
generic expectations, then every study's own checks (`core.study.CellCheck`, from its plugin).
GX and pandas are imported inside the functions: importing GX takes 5-8 s and must
never happen at DAG parse time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcamp.core.records import ResultRecord, ValidationFailure
from benchcamp.core.study import CellCheck, cell_checks

if TYPE_CHECKING:
    import pandas as pd
    from great_expectations.expectations import Expectation

SUITE_NAME = "benchcamp_campaign"
DURATION_METRIC = "duration_s"
THRESHOLD_PARAMETER = "max_stddev_pct"
ID_KEY = "benchcamp_id"  # the expectation id carried in each expectation's meta
# The generic expectations, in report order; the studies' own (`core.study.CellCheck`) follow.
GENERIC_EXPECTATION_IDS: tuple[str, ...] = (
    "repetitions_complete",
    "repetitions_ok",
    "duration_positive",
    "stddev_within_threshold",
    "stddev_uncheckable",
    "record_count",
    "no_error_returns",
)
# A metric with a meaning across workloads (YCSB records it): calls the store answered with a
# not-ok status.
ERROR_RETURNS_METRIC = "error_returns"
_CELL = ["environment", "workload", "cell_key"]

ExpectedCells = list[tuple[str, str, str, int]]


def expectation_ids() -> tuple[str, ...]:
    """The suite's expectation ids in report order: the generic ones, then the studies' checks."""
    return GENERIC_EXPECTATION_IDS + tuple(check.id for check in cell_checks())


def __getattr__(name: str) -> tuple[str, ...]:
    """`EXPECTATION_IDS`: computed when asked, since the studies' checks are found at run time."""
    if name == "EXPECTATION_IDS":
        return expectation_ids()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cell_statistics(
    records: list[ResultRecord],
    expected: ExpectedCells | None,
    duration_metric: str = DURATION_METRIC,
    resolutions: dict[tuple[str, str], float] | None = None,
) -> pd.DataFrame:
    """One row per cell: what the suite checks, plus the repetition lists its messages name.

    Cells come from `expected` and from every record (a cell with records but no
    duration record is reported incomplete). Without `expected` (imports), a cell
    expects as many repetitions as the highest repetition number seen in it.
    σ is the sample standard deviation (n−1) over the ok durations.
    `resolutions` ({(environment, workload): seconds}, `pipeline.noise_floor`): a cell whose
    gated metric is its duration and whose mean is below it is `below_resolution`: its σ% is
    kept in `measured_stddev_pct` and left out of `stddev_pct`, which the σ% gate judges.
    """
    import pandas as pd

    all_rows = pd.DataFrame(
        [(r.environment, r.workload, r.cell_key, r.repetition) for r in records],
        columns=[*_CELL, "repetition"],
    )
    seen = all_rows.groupby(_CELL, as_index=False)["repetition"].max()
    seen = seen.rename(columns={"repetition": "expected_reps"})
    if expected is not None:
        planned = pd.DataFrame(expected, columns=[*_CELL, "expected_reps"]).drop_duplicates(
            _CELL, keep="last"
        )
        unplanned = seen.merge(planned[_CELL], on=_CELL, how="left", indicator=True)
        seen = unplanned[unplanned["_merge"] == "left_only"].drop(columns="_merge")
        cells = pd.concat([planned, seen], ignore_index=True)
    else:
        cells = seen
    cells = cells.sort_values(_CELL, ignore_index=True)

    durations = pd.DataFrame(
        [
            (r.environment, r.workload, r.cell_key, r.repetition, r.value, r.status == "ok")
            for r in records
            if r.metric == duration_metric
        ],
        columns=[*_CELL, "repetition", "value", "ok"],
    ).astype({"repetition": "int64", "value": "float64", "ok": "bool"})
    durations = durations.merge(cells, on=_CELL, how="inner")
    in_plan = durations[durations["repetition"] <= durations["expected_reps"]]
    ok = durations[durations["ok"]]

    def per_cell(frame: pd.DataFrame, column: str, how: str | Callable[[pd.Series], Any]) -> pd.Series:
        return frame.groupby(_CELL)[column].agg(how)

    def rep_list(reps: pd.Series) -> str:
        return ", ".join(str(rep) for rep in sorted(set(reps)))

    gated_metric = {workload: stddev_metric_of(workload, duration_metric) for workload in cells["workload"]}
    gated = pd.DataFrame(
        [
            (r.environment, r.workload, r.cell_key, r.value, r.is_usable)
            for r in records
            if r.status == "ok" and r.metric == gated_metric.get(r.workload, duration_metric)
        ],
        columns=[*_CELL, "value", "usable"],
    ).astype({"value": "float64", "usable": "bool"})
    # σ over what the marts average (stg_results.is_usable): a non-positive duration is flagged by
    # min_duration, never part of the σ it gates; whether σ can be checked counts every ok value
    usable = gated[gated["usable"]]

    stats = cells.set_index(_CELL)
    stats["present_reps"] = per_cell(in_plan, "repetition", "nunique")
    stats["failed_reps"] = per_cell(durations[~durations["ok"]], "repetition", "nunique")
    stats["failed_list"] = per_cell(durations[~durations["ok"]], "repetition", rep_list)
    stats["duration_records"] = per_cell(durations, "repetition", "size")
    stats["min_duration"] = per_cell(ok, "value", "min")
    stats["stddev_metric"] = [gated_metric.get(workload, duration_metric) for _, workload, _ in stats.index]
    stats["ok_n"] = per_cell(usable, "value", "size")
    stats["ok_all_n"] = per_cell(gated, "value", "size")
    stats["gated_mean"] = per_cell(usable, "value", "mean")
    stats["gated_stddev"] = per_cell(usable, "value", "std")  # pandas: ddof=1, the sample σ
    for column in ("present_reps", "failed_reps", "duration_records", "ok_n", "ok_all_n"):
        stats[column] = stats[column].fillna(0).astype(int)
    stats["failed_list"] = stats["failed_list"].fillna("")
    have = in_plan.groupby(_CELL)["repetition"].agg(set).reindex(stats.index)
    stats["missing_list"] = [
        ", ".join(str(rep) for rep in range(1, wanted + 1) if not isinstance(reps, set) or rep not in reps)
        for wanted, reps in zip(stats["expected_reps"], have, strict=True)
    ]
    positive_mean = stats["gated_mean"] > 0
    stats["stddev_pct"] = (stats["gated_stddev"] / stats["gated_mean"] * 100).where(
        positive_mean & (stats["ok_n"] >= 2)
    )
    stats["resolution_s"] = [
        (resolutions or {}).get((environment, workload)) if metric == duration_metric else None
        for (environment, workload, _), metric in zip(stats.index, stats["stddev_metric"], strict=True)
    ]
    stats["resolution_s"] = stats["resolution_s"].astype("float64")
    stats["below_resolution"] = (stats["gated_mean"] < stats["resolution_s"]).fillna(False).astype(bool)
    stats["measured_stddev_pct"] = stats["stddev_pct"]
    stats["stddev_pct"] = stats["stddev_pct"].where(~stats["below_resolution"])
    stats["stddev_checkable"] = (stats["expected_reps"] < 2) | (stats["ok_all_n"] >= 2)
    stats["surplus_records"] = stats["duration_records"] - stats["present_reps"]

    errors: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for r in records:
        if r.metric == ERROR_RETURNS_METRIC and r.value > 0:
            errors.setdefault((r.environment, r.workload, r.cell_key), []).append((r.repetition, r.value))
    stats["error_returns"] = [sum(value for _, value in errors.get(cell, [])) for cell in stats.index]
    stats["error_list"] = [
        ", ".join(f"repetition {rep}: {value:g}" for rep, value in sorted(errors.get(cell, [])))
        for cell in stats.index
    ]
    for check in cell_checks():
        problems = check.find(records)
        stats[check.count_column] = [len(problems.get(cell, [])) for cell in stats.index]
        stats[check.details_column] = ["; ".join(problems.get(cell, [])) for cell in stats.index]
    return stats.reset_index()


def stddev_metric_of(workload: str, default: str = DURATION_METRIC) -> str:
    """The metric whose σ% the study's threshold gates for this workload (its duration by default)."""
    from benchcamp.workloads import get_workload, is_implemented

    if not is_implemented(workload):
        return default
    metric = get_workload(workload).stddev_metric
    return default if metric == DURATION_METRIC else metric


def _expectations() -> list[Expectation]:
    """The suite, in report order; each expectation carries its id in `meta`."""
    import great_expectations as gx

    e = gx.expectations

    def tagged(expectation_id: str, expectation: Expectation, notes: str) -> Expectation:
        expectation.meta = {ID_KEY: expectation_id}
        expectation.notes = notes
        return expectation

    return [
        tagged(
            "repetitions_complete",
            e.ExpectColumnPairValuesToBeEqual(column_A="present_reps", column_B="expected_reps"),
            "every planned repetition left a duration record",
        ),
        tagged(
            "repetitions_ok",
            e.ExpectColumnPairValuesAToBeGreaterThanB(
                column_A="allowed_failures", column_B="failed_reps", or_equal=True
            ),
            "enough repetitions are ok: all of them, or the spec's thresholds.min_ok_repetitions "
            "(failed ones are loaded and counted, never averaged; a cell with fewer is incomplete)",
        ),
        tagged(
            "duration_positive",
            e.ExpectColumnValuesToBeBetween(column="min_duration", min_value=0, strict_min=True),
            "every ok duration is greater than 0 s",
        ),
        tagged(
            "stddev_within_threshold",
            e.ExpectColumnValuesToBeBetween(
                column="stddev_pct", min_value=0, max_value={"$PARAMETER": THRESHOLD_PARAMETER}
            ),
            "σ% (sample σ over ok repetitions / mean × 100) within the study's threshold; a cell "
            "below its target's measured resolution (pipeline.noise_floor) is reported, not judged",
        ),
        tagged(
            "stddev_uncheckable",
            e.ExpectColumnValuesToBeInSet(column="stddev_checkable", value_set=[True]),
            "a cell planned with 2+ repetitions has 2+ ok ones, so its σ% can be checked",
        ),
        tagged(
            "record_count",
            e.ExpectColumnValuesToBeBetween(column="surplus_records", min_value=0, max_value=0),
            "exactly one duration record per planned repetition (no duplicates, none unplanned)",
        ),
        tagged(
            "no_error_returns",
            e.ExpectColumnValuesToBeBetween(column="error_returns", min_value=0, max_value=0),
            "no call was answered with a not-ok status (error_returns records, e.g. YCSB's Return=ERROR)",
        ),
    ] + [
        tagged(
            check.id,
            e.ExpectColumnValuesToBeBetween(column=check.count_column, min_value=0, max_value=0),
            check.notes,
        )
        for check in cell_checks()
    ]


def _suite() -> Any:
    import great_expectations as gx

    suite = gx.ExpectationSuite(name=SUITE_NAME)
    for expectation in _expectations():
        suite.add_expectation(expectation)
    return suite


def _number(value: Any) -> float | None:
    try:
        return None if value is None or value != value else float(value)  # NaN != NaN
    except (TypeError, ValueError):
        return None


def _observed(frame: pd.DataFrame, index: int, kwargs: dict[str, Any]) -> Any:
    """The value(s) the expectation judged in the row GX reported (a pair for pair expectations)."""
    if "column_A" in kwargs:
        return frame.at[index, kwargs["column_A"]], frame.at[index, kwargs["column_B"]]
    return frame.at[index, kwargs["column"]]


def _describe(
    expectation_id: str, observed: Any, kwargs: dict[str, Any], row: Any, checks: dict[str, CellCheck]
) -> tuple[str, Any, Any]:
    """Details, observed and threshold of one failed row, from GX's unexpected value and kwargs
    (a study's check: its details column)."""
    if expectation_id == "repetitions_complete":
        present, wanted = observed
        return (
            f"{present} of {wanted} repetitions present (missing: {row['missing_list']})",
            present,
            wanted,
        )
    if expectation_id == "repetitions_ok":
        allowed, failed = observed
        required = int(row["expected_reps"]) - int(allowed)
        needed = "" if allowed == 0 else f"; cell incomplete: {required} must be ok"
        return (
            f"{failed} of {row['expected_reps']} repetitions failed (repetition {row['failed_list']}){needed}",
            failed,
            allowed,
        )
    if expectation_id == "duration_positive":
        return (
            f"smallest ok duration {observed:g} s is not > {kwargs['min_value']:g} s",
            observed,
            kwargs["min_value"],
        )
    if expectation_id == "stddev_within_threshold":
        threshold = kwargs["max_value"]
        metric = "" if row["stddev_metric"] == DURATION_METRIC else f"{row['stddev_metric']} "
        return f"{metric}σ% {observed:.1f} > {threshold:g} (n={row['ok_n']})", observed, threshold
    if expectation_id == "stddev_uncheckable":
        return (
            f"σ% cannot be checked: {row['ok_n']} ok repetition(s) of {row['expected_reps']} (needs 2)",
            row["ok_n"],
            2,
        )
    if expectation_id == "no_error_returns":
        return f"{observed:g} error returns ({row['error_list']})", observed, kwargs["max_value"]
    if expectation_id in checks:
        return row[checks[expectation_id].details_column], observed, kwargs["max_value"]
    return (
        f"{row['duration_records']} duration records for {row['expected_reps']} planned repetitions "
        f"({observed:g} too many: duplicates or unplanned repetition numbers)",
        observed,
        kwargs["max_value"],
    )


def validate_campaign(
    records: list[ResultRecord],
    expected: ExpectedCells | None,
    max_stddev_pct: float,
    study: str,
    campaign: str,
    duration_metric: str = DURATION_METRIC,
    min_ok_repetitions: int | None = None,
) -> list[ValidationFailure]:
    """Run the suite over the campaign's cells: one ValidationFailure per failed cell × expectation.

    `expected` lists (environment, workload, cell_key, repetitions) planned for the
    campaign; None for imports. Records are only read, never changed; warm-up repetitions are
    left out (no expectation counts, gates or averages them).
    """
    failures, _ = validate_campaign_cells(
        records, expected, max_stddev_pct, study, campaign, duration_metric, min_ok_repetitions
    )
    return failures


def validate_campaign_cells(
    records: list[ResultRecord],
    expected: ExpectedCells | None,
    max_stddev_pct: float,
    study: str,
    campaign: str,
    duration_metric: str = DURATION_METRIC,
    min_ok_repetitions: int | None = None,
    resolutions: dict[tuple[str, str], float] | None = None,
) -> tuple[list[ValidationFailure], list[dict[str, Any]]]:
    """`validate_campaign`, and the cells below their target's resolution (`cell_statistics`):
    one row each (environment, workload, cell_key, mean_s, stddev_pct, n, resolution_s)."""
    records = [record for record in records if not record.is_warmup]
    if not records and not expected:
        return [], []
    frame = cell_statistics(records, expected, duration_metric, resolutions)
    failures = [
        failure for _, failure in validate_cells(frame, max_stddev_pct, study, campaign, min_ok_repetitions)
    ]
    below = frame[frame["below_resolution"]]
    rows = [
        {
            "environment": row["environment"],
            "workload": row["workload"],
            "cell_key": row["cell_key"],
            "mean_s": _number(row["gated_mean"]),
            "stddev_pct": _number(row["measured_stddev_pct"]),
            "n": int(row["ok_n"]),
            "resolution_s": _number(row["resolution_s"]),
        }
        for _, row in below.iterrows()
    ]
    return failures, rows


def allowed_failures(expected_reps: pd.Series, min_ok_repetitions: int | None) -> pd.Series:
    """Failed repetitions a cell may have and still be complete: none unless the spec sets
    `thresholds.min_ok_repetitions` (a cell planned with fewer repetitions needs all of them)."""
    if min_ok_repetitions is None:
        return expected_reps * 0
    return (expected_reps - min_ok_repetitions).clip(lower=0)


def validate_cells(
    frame: pd.DataFrame,
    max_stddev_pct: float,
    study: str | None = None,
    campaign: str | None = None,
    min_ok_repetitions: int | None = None,
) -> list[tuple[int, ValidationFailure]]:
    """Run the suite once over `frame` (one row per cell, as `cell_statistics` gives): (row, failure) pairs.

    One GX batch for every cell in the frame, however many campaigns it holds: a frame with
    `study` and `campaign` columns (`benchcamp import`) names each failure's campaign from its
    row, otherwise `study` and `campaign` do. Failures come in row order, then suite order.
    """
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    frame = frame.assign(allowed_failures=allowed_failures(frame["expected_reps"], min_ok_repetitions))
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    asset = context.data_sources.add_pandas(name="campaign").add_dataframe_asset(name="cells")
    batch = asset.add_batch_definition_whole_dataframe("all_cells").get_batch(
        batch_parameters={"dataframe": frame}
    )
    result = batch.validate(
        _suite(),
        result_format={"result_format": "COMPLETE"},
        expectation_parameters={THRESHOLD_PARAMETER: max_stddev_pct},
    )
    per_row = "study" in frame.columns and "campaign" in frame.columns
    order = expectation_ids()
    checks = {check.id: check for check in cell_checks()}
    found: list[tuple[int, int, ValidationFailure]] = []
    for outcome in result.results:
        if outcome.success:
            continue
        config = outcome.expectation_config
        expectation_id = config.meta[ID_KEY]
        # unexpected_list is capped at 200 values by GX; the index list is complete under COMPLETE
        indices = outcome.result.get("unexpected_index_list") or []
        if len(indices) != outcome.result.get("unexpected_count"):
            raise RuntimeError(f"GX could not evaluate '{expectation_id}': {outcome.exception_info}")
        for index in indices:
            observed = _observed(frame, index, config.kwargs)
            row = frame.loc[index]
            details, value, threshold = _describe(expectation_id, observed, config.kwargs, row, checks)
            failure = ValidationFailure(
                study=str(row["study"]) if per_row else str(study),
                campaign=str(row["campaign"]) if per_row else str(campaign),
                environment=row["environment"],
                workload=row["workload"],
                cell_key=row["cell_key"],
                expectation=expectation_id,
                details=details,
                observed=_number(value),
                threshold=_number(threshold),
            )
            found.append((int(index), order.index(expectation_id), failure))
    return [(index, failure) for index, _, failure in sorted(found, key=lambda item: item[:2])]


def suite_definition() -> dict[str, Any]:
    """The suite as GX JSON; the σ% threshold stays a `$PARAMETER` each study fills in."""
    import great_expectations as gx

    gx.get_context(mode="ephemeral")  # expectations need an active context to serialise
    definition: dict[str, Any] = _suite().to_json_dict()
    definition["meta"] = {
        "description": "benchcamp per-cell campaign checks on the statistics of benchcamp.pipeline.validation.cell_statistics",
        "parameters": {THRESHOLD_PARAMETER: "thresholds.max_stddev_pct of the study spec"},
    }
    return definition


def export_suite(path: Path) -> Path:
    """Write the suite to `path` (expectations/campaign_suite.json) so it is reviewable in the repo."""
    path.write_text(json.dumps(suite_definition(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
