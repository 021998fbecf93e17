"""Once per campaign, after its repetitions: validate the archive, load it into the
warehouse, and fail the run when expectations failed (`gate`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcamp.core.claims import load_claims
from benchcamp.core.paths import default_warehouse
from benchcamp.core.records import ValidationFailure
from benchcamp.core.spec import load_spec
from benchcamp.pipeline import adaptive, archive, host_load, noise_floor, run_order
from benchcamp.pipeline.campaign.plan import expected_cells
from benchcamp.pipeline.campaign.unit import Plan
from benchcamp.pipeline.outcome import validation_lines

if TYPE_CHECKING:
    from benchcamp.pipeline.hardware_changes import HardwareChange


def run_validate(study: str, campaign: str, units: Plan | None) -> list[ValidationFailure]:
    """Validate the archive; the cells below their target's resolution (`pipeline.noise_floor`)
    are archived beside the failures, each with the floor that put it there."""
    from benchcamp.pipeline.validation import validate_campaign_cells

    spec = load_spec(study)
    records = archive.load_campaign_records(study, campaign)
    if units is not None:  # the adaptive rounds' repetitions are expected too (archived by each round)
        adaptive.finish(units, spec.thresholds.min_ok_repetitions)  # why the last ones stopped
        units = {**units, "adaptive": adaptive.added_units(study, campaign)}
    expected = expected_cells(units) if units is not None else None
    max_pct = spec.thresholds.max_stddev_pct
    folder = archive.campaign_dir(study, campaign)
    floors = noise_floor.resolutions(noise_floor.load_floors(folder), max_pct)
    failures, below = validate_campaign_cells(
        records,
        expected,
        max_pct,
        study,
        campaign,
        min_ok_repetitions=spec.thresholds.min_ok_repetitions,
        resolutions={key: floor.resolution_s(max_pct) or 0.0 for key, floor in floors.items()},
    )
    archive.save_validation(study, campaign, failures)
    noise_floor.save_below_resolution(
        folder,
        [
            {
                "study": study,
                "campaign": campaign,
                **row,
                **noise_floor.floor_columns(floors[(row["environment"], row["workload"])]),
            }
            for row in below
        ],
    )
    return failures


@dataclass(frozen=True)
class RunInfo:
    """The Airflow run behind a campaign: kept so backfills can be told from the runs they re-did."""

    run_id: str
    run_type: str
    logical_date: datetime | None
    settings: dict[str, Any] | None = None  # the resolved campaign settings (`run_settings`)


@dataclass(frozen=True)
class LoadResult:
    """What a load wrote, and the targets whose hardware changed since their previous campaign."""

    records: int
    inserted: int
    replaced: int
    hardware_changes: list[HardwareChange]

    def summary(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "inserted": self.inserted,
            "replaced": self.replaced,
            "hardware_changes": [change.environment for change in self.hardware_changes],
        }


def run_load(
    study: str, campaign: str, warehouse: Path | None = None, run: RunInfo | None = None
) -> LoadResult:
    """Load the campaign's archive into the warehouse, then compare each target's hardware with its last campaign."""
    from benchcamp.pipeline import warehouse as wh
    from benchcamp.pipeline.hardware_changes import detect_hardware_changes

    spec = load_spec(study)
    path = warehouse or default_warehouse()
    records = archive.load_campaign_records(study, campaign)
    # The archive is the whole campaign: rows of an earlier attempt it no longer holds go.
    summary = wh.load_records(path, records, replace_campaign=(study, campaign))
    wh.replace_validation_failures(path, study, campaign, archive.load_validation(study, campaign))
    wh.replace_below_resolution(
        path, study, campaign, noise_floor.load_below_resolution(archive.campaign_dir(study, campaign))
    )
    wh.replace_run_order(
        path, study, campaign, run_order.load_run_order(archive.campaign_dir(study, campaign))
    )
    wh.replace_repetition_load(
        path, study, campaign, host_load.load_rows(archive.campaign_dir(study, campaign))
    )
    for snapshot in archive.load_campaign_environments(study, campaign):
        wh.load_environment(path, snapshot)
    wh.upsert_study_thresholds(path, study, spec.thresholds.max_stddev_pct)
    wh.upsert_study_claims(path, study, load_claims(study))  # what the scorecard mart scores
    wh.replace_adaptive_stops(path, study, campaign, adaptive.stops(study, campaign))
    wh.upsert_study_history(path, study, spec.history)
    wh.upsert_axis_comparisons(path, study, spec.axes)
    if run is not None and records:  # a run that measured nothing (target unreachable) is no campaign
        wh.record_campaign_run(
            path, study, campaign, run.run_id, run.run_type, run.logical_date,
            None if run.settings is None else json.dumps(run.settings, sort_keys=True, default=str),
        )  # fmt: skip
    changes = detect_hardware_changes(path, study, campaign)
    return LoadResult(len(records), summary.inserted, summary.replaced, changes)


class ValidationGateFailed(RuntimeError):
    """Expectations failed and the run was asked to fail on them: a verdict, not a fault (the
    task is not retried; its message is one line, the cells are printed above it)."""


def gate(study: str, campaign: str, fail_on_validation: bool) -> str:
    """Fail the run (after everything is loaded and reported) when expectations failed: the
    failed cells first, each with why its adaptive repetitions stopped, as the console says them."""
    failures = archive.load_validation(study, campaign)
    failed = [
        record for record in archive.load_campaign_records(study, campaign) if record.status == "failed"
    ]
    summary = f"{len(failures)} failed expectation(s), {len(failed)} failed record(s)"
    if failures and fail_on_validation:
        message = f"campaign {campaign} did not pass validation: {summary}"
        lines = validation_lines(failures, adaptive.stops(study, campaign))
        print("\n".join([f"{message} (cells marked in the report):", *lines]))
        raise ValidationGateFailed(message)
    return summary
