"""mapreduce_ssd_hdd's recorded lab runs parsed into records (its tests' and the study contract's
recorded warehouse)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.spec import StudySpec, load_spec
from benchcamp.core.steps import ArchivedStep, RunContext
from benchcamp.studies.mapreduce_ssd_hdd import device_hadoop
from benchcamp.workloads import get_workload

RECORDED = Path(device_hadoop.__file__).parent / "recorded"
SPEC = load_spec("mapreduce_ssd_hdd")


def recorded_spec(cell: dict[str, Any]) -> StudySpec:
    """The spec a recording ran under: today's, with the settings its cell.json says it ran with
    then (`settings_then`: a recording from before a set's definition changed)."""
    then = cell.get("settings_then", {})
    settings = {workload: {**values, **then} for workload, values in SPEC.settings.items()}
    return SPEC.model_copy(update={"settings": settings})


def recorded_records(campaign: str = "recorded") -> list[Any]:
    """Every recorded chain parsed as two repetitions of one campaign on lab_disk (the study
    contract's recorded warehouse shows them)."""
    records = []
    for cell_file in sorted(RECORDED.glob("*/cell.json")):
        cell = json.loads(cell_file.read_text())
        for repetition in (1, 2):
            started = datetime(2026, 11, 25, 6, repetition, tzinfo=UTC)
            step = ArchivedStep(cell_file.parent, 0, started, started)
            params: dict[str, Any] = {"graph": cell["graph"], "config_set": cell["config_set"]}
            spec = recorded_spec(cell)
            ctx = RunContext(
                spec, spec.environment("lab_disk"), campaign, cell["workload"], params, repetition, "tiny"
            )
            records += get_workload(cell["workload"]).parse(ctx, step)
    return records
