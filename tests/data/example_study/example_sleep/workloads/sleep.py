"""`sleep <seconds>` as the timed job: the smallest workload a study can bring in its own folder.

The job prints what it slept (`slept_s=<seconds>`) after sleeping, so the parser reads the
output like any benchmark's, and the step's duration beyond it is the harness's overhead.
"""

from __future__ import annotations

import re

from benchcamp.core.records import ResultRecord
from benchcamp.workloads import register
from benchcamp.workloads.base import ArchivedStep, Command, ParseError, RunContext, Shell, Workload

SLEPT = re.compile(r"^slept_s=(?P<seconds>\d+(?:\.\d+)?)$", re.MULTILINE)


def parse_slept(text: str, source: str) -> float:
    """The seconds the job says it slept; ParseError naming `source` when it says nothing."""
    found = SLEPT.findall(text)
    if len(found) != 1:
        raise ParseError(f"{source}: expected one 'slept_s=<seconds>' line, found {len(found)}")
    return float(found[0])


@register
class Sleep(Workload):
    name = "sleep"
    family = "example_sleep"
    description = "sleep <seconds>, timed"
    axes = ("seconds",)
    uses_data_fs = False  # no data: nothing to generate, clean or size

    def clean_paths(self, ctx: RunContext) -> list[Shell]:
        return []

    def estimated_bytes(self, ctx: RunContext) -> int:
        return 0

    def generate(self, ctx: RunContext) -> list[Command]:
        return []

    def execute(self, ctx: RunContext) -> list[Command]:
        seconds = str(ctx.param("seconds"))
        return [["sleep", seconds], ["echo", f"slept_s={seconds}"]]

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        ok = step.exit_code == 0
        records = [self.duration_record(ctx, step, ok)]
        if ok:
            slept = parse_slept(step.text("stdout.log"), str(step.directory / "stdout.log"))
            records.append(self.record(ctx, step, "slept_s", slept, "s"))
        return records
