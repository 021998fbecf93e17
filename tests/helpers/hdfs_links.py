"""hdfs_interconnects' recorded lab runs parsed into records (its tests' and the study contract's
recorded warehouse)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.spec import load_spec
from benchcamp.core.steps import ArchivedStep, RunContext
from benchcamp.studies.hdfs_interconnects import links_hadoop
from benchcamp.workloads import get_workload

RECORDED = Path(links_hadoop.__file__).parent / "recorded" / "lab"
SPEC = load_spec("hdfs_interconnects")


def recorded_records(campaign: str = "recorded") -> list[Any]:
    """Every recorded run parsed as two repetitions, one campaign per level (`<campaign>_<env>`,
    the unshaped one last, so it is the latest and its improvements over 1gbe are shown)."""
    records = []
    for environment, hour in (("lab_1gbe", 7), ("lab_unshaped", 8)):
        for cell_file in sorted((RECORDED / environment).glob("*/cell.json")):
            cell = json.loads(cell_file.read_text())
            for repetition in (1, 2):
                started = datetime(2026, 11, 25, hour, repetition, tzinfo=UTC)
                step = ArchivedStep(cell_file.parent, 0, started, started)
                ctx = RunContext(
                    SPEC, SPEC.environment(environment), f"{campaign}_{environment}", cell["workload"],
                    cell["params"], repetition, "tiny",
                )  # fmt: skip
                records += get_workload(cell["workload"]).parse(ctx, step)
    return records
