"""Validate a campaign's repetitions with Great Expectations 1.x before they are loaded.

Per-cell statistics are computed first (one row per cell), then an expectation
suite runs on that frame with an ephemeral GX context (the pandas route: GX's SQL
route on DuckDB does not work). The failures come from GX's own results
(unexpected row indices), so the suite is the single source of truth. Nothing
is removed: failures are reported, and the records are loaded marked.
GX is imported inside the functions: importing it takes seconds, never at DAG parse time.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchcamp.records import ResultRecord, ValidationFailure

SUITE_NAME = "benchcamp_campaign"
DURATION_METRIC = "duration_s"


def cell_statistics(
    records: list[ResultRecord],
    expected: list[tuple[str, str, str, int]] | None,
    duration_metric: str = DURATION_METRIC,
) -> list[dict[str, Any]]:
    """One row per cell: repetitions expected/present/ok, duration records, min duration, σ%."""
    by_cell: dict[tuple[str, str, str], list[ResultRecord]] = defaultdict(list)
    for record in records:
        if record.metric == duration_metric:
            by_cell[(record.environment, record.workload, record.cell_key)].append(record)
    wanted: dict[tuple[str, str, str], int] = {}
    if expected is not None:
        wanted = {(env, workload, key): reps for env, workload, key, reps in expected}
    else:
        wanted = {key: max(r.repetition for r in rows) for key, rows in by_cell.items()}
    for seen in by_cell:
        wanted.setdefault(seen, max(r.repetition for r in by_cell[seen]))
    rows = []
    for (environment, workload, key), expected_reps in sorted(wanted.items()):
        cell = by_cell.get((environment, workload, key), [])
        reps = {r.repetition for r in cell}
        ok = [r for r in cell if r.status == "ok"]
        ok_values = [r.value for r in ok]
        mean = statistics.fmean(ok_values) if ok_values else None
        stddev_pct = (
            statistics.stdev(ok_values) / mean * 100 if len(ok_values) >= 2 and mean and mean > 0 else None
        )
        per_rep: dict[int, int] = defaultdict(int)
        for r in cell:
            per_rep[r.repetition] += 1
        rows.append(
            {
                "environment": environment,
                "workload": workload,
                "cell_key": key,
                "expected_reps": expected_reps,
                "present_reps": len(reps & set(range(1, expected_reps + 1))),
                "ok_reps": len({r.repetition for r in ok}),
                "max_records_per_rep": max(per_rep.values(), default=0),
                "min_duration": min((r.value for r in ok), default=None),
                "stddev_pct": stddev_pct,
                "stddev_checkable": expected_reps < 2 or len(ok_values) >= 2,
            }
        )
    return rows


def _expectations(max_stddev_pct: float) -> list[tuple[str, Any]]:
    import great_expectations as gx

    e = gx.expectations
    return [
        (
            "repetitions_complete",
            e.ExpectColumnPairValuesToBeEqual(column_A="present_reps", column_B="expected_reps"),
        ),
        ("repetitions_ok", e.ExpectColumnPairValuesToBeEqual(column_A="ok_reps", column_B="expected_reps")),
        (
            "duration_positive",
            e.ExpectColumnValuesToBeBetween(column="min_duration", min_value=0, strict_min=True),
        ),
        (
            "stddev_within_threshold",
            e.ExpectColumnValuesToBeBetween(column="stddev_pct", min_value=0, max_value=max_stddev_pct),
        ),
        ("stddev_uncheckable", e.ExpectColumnValuesToBeInSet(column="stddev_checkable", value_set=[True])),
        (
            "record_count",
            e.ExpectColumnValuesToBeBetween(column="max_records_per_rep", min_value=0, max_value=1),
        ),
    ]


def _details(
    expectation: str, row: dict[str, Any], threshold: float
) -> tuple[str, float | None, float | None]:
    if expectation == "repetitions_complete":
        return (
            f"{row['present_reps']} of {row['expected_reps']} repetitions present",
            row["present_reps"],
            None,
        )
    if expectation == "repetitions_ok":
        failed = row["present_reps"] - row["ok_reps"]
        return (
            f"{failed} failed repetition(s); {row['ok_reps']} of {row['expected_reps']} ok",
            row["ok_reps"],
            None,
        )
    if expectation == "duration_positive":
        return f"smallest duration {row['min_duration']} s is not > 0", row["min_duration"], 0.0
    if expectation == "stddev_within_threshold":
        return (
            f"σ% {row['stddev_pct']:.2f} > {threshold:g} (n={row['ok_reps']})",
            row["stddev_pct"],
            threshold,
        )
    if expectation == "stddev_uncheckable":
        return f"σ% cannot be checked: only {row['ok_reps']} ok repetition(s)", float(row["ok_reps"]), 2.0
    return (
        f"{row['max_records_per_rep']} duration records in one repetition (expected 1)",
        row["max_records_per_rep"],
        1.0,
    )


def validate_campaign(
    records: list[ResultRecord],
    expected: list[tuple[str, str, str, int]] | None,
    max_stddev_pct: float,
    study: str,
    campaign: str,
    duration_metric: str = DURATION_METRIC,
) -> list[ValidationFailure]:
    """Run the suite over the campaign's cells; one ValidationFailure per failed cell × expectation."""
    import great_expectations as gx
    import pandas as pd

    rows = cell_statistics(records, expected, duration_metric)
    if not rows:
        return []
    frame = pd.DataFrame(rows)
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = context.data_sources.add_pandas(name="campaign")
    asset = source.add_dataframe_asset(name="cells")
    batch = asset.add_batch_definition_whole_dataframe("all_cells").get_batch(
        batch_parameters={"dataframe": frame}
    )
    suite = gx.ExpectationSuite(name=SUITE_NAME)
    named = _expectations(max_stddev_pct)
    for _, expectation in named:
        suite.add_expectation(expectation)
    result = batch.validate(suite, result_format={"result_format": "COMPLETE"})
    failures: list[ValidationFailure] = []
    for (name, _), outcome in zip(named, result.results, strict=True):
        if outcome.success:
            continue
        indices = outcome.result.get("unexpected_index_list") or []
        for index in indices:
            position = index if isinstance(index, int) else int(index.get("index", index))  # type: ignore[union-attr]
            row = rows[position]
            details, observed, threshold = _details(name, row, max_stddev_pct)
            failures.append(
                ValidationFailure(
                    study=study,
                    campaign=campaign,
                    environment=row["environment"],
                    workload=row["workload"],
                    cell_key=row["cell_key"],
                    expectation=name,
                    details=details,
                    observed=None if observed is None else float(observed),
                    threshold=threshold,
                )
            )
    return failures


def suite_definition(max_stddev_pct: float = 10.0) -> dict[str, Any]:
    import great_expectations as gx

    gx.get_context(mode="ephemeral")
    suite = gx.ExpectationSuite(name=SUITE_NAME)
    for _, expectation in _expectations(max_stddev_pct):
        suite.add_expectation(expectation)
    definition = suite.to_json_dict()
    definition["meta"] = {"ids": [name for name, _ in _expectations(max_stddev_pct)]}
    return definition


def export_suite(path: Path) -> Path:
    path.write_text(json.dumps(suite_definition(), indent=2, default=str) + "\n", encoding="utf-8")
    return path
