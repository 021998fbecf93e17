"""TestDFSIO write and read (HiBench's I/O-bound DFSIO), one map per file.

The number of files follows the study: ceil(data size / file size), e.g. 400 MB
files × 615 ≈ 240 GiB. Read needs files to read, so its generate step writes them
(untimed); write generates nothing. TestDFSIO's own figures are kept next to the
duration timed on the target: Throughput = Σ size / Σ time, Average I/O rate =
Σ(size/time) / N over the N map tasks.
"""

from __future__ import annotations

import math
import re

from benchcamp.records import ResultRecord
from benchcamp.workloads import register
from benchcamp.workloads._hadoop import TESTS_JAR
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    ParseError,
    RunContext,
    Shell,
    Workload,
    data_path,
    env_ref,
    job_path,
)

RESULT_FILE = "dfsio_result.txt"
_FIELDS = {
    "Number of files": ("files", "files"),
    "Total MBytes processed": ("total_mb", "MB"),
    "Throughput mb/sec": ("throughput_mb_s", "MB/s"),
    "Average IO rate mb/sec": ("avg_io_rate_mb_s", "MB/s"),
    "IO rate std deviation": ("io_rate_stddev_mb_s", "MB/s"),
    "Test exec time sec": ("test_exec_time_s", "s"),
}
_LINE = re.compile(
    r"^\s*(?:.*TestDFSIO: )?\s*(?P<name>[A-Za-z][A-Za-z/ ]+?):\s+(?P<value>-?[\d.]+(?:E-?\d+)?)\s*$"
)
_MODE = re.compile(r"----- TestDFSIO ----- : (?P<mode>\w+)")


def file_count(data_size_gb: float, file_size_mb: int) -> int:
    return max(1, math.ceil(float(data_size_gb) * 1024 / file_size_mb))


def parse_testdfsio_result(text: str, expected_mode: str) -> dict[str, float]:
    """The last TestDFSIO summary of `expected_mode` (write/read) in a log or result file."""
    summary: dict[str, float] = {}
    mode: str | None = None
    for line in text.splitlines():
        if match := _MODE.search(line):
            mode = match.group("mode")
            if mode == expected_mode:
                summary = {}
            continue
        if mode != expected_mode:
            continue
        if (match := _LINE.match(line)) and match.group("name").strip() in _FIELDS:
            summary[_FIELDS[match.group("name").strip()][0]] = float(match.group("value"))
    return summary


class _TestDFSIO(Workload):
    family = "hadoop_dfsio"
    axes = ("data_size_gb",)
    mode: str = ""

    def _command(self, ctx: RunContext, mode: str, result_file: bool) -> Command:
        file_mb = int(ctx.setting("file_size_mb", 400))
        files = file_count(float(ctx.param("data_size_gb")), file_mb)
        command: Command = [
            *ctx.hadoop, "jar", env_ref(TESTS_JAR), "TestDFSIO",
            Shell("-Dtest.build.data=" + data_path("dfsio")),
            f"-{mode}", "-nrFiles", str(files), "-fileSize", f"{file_mb}MB",
        ]  # fmt: skip
        if result_file:
            command += ["-resFile", job_path(RESULT_FILE)]
        return command

    def execute(self, ctx: RunContext) -> list[Command]:
        return [self._command(ctx, self.mode, result_file=True)]

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        if step.exit_code != 0:
            return [self.duration_record(ctx, step, ok=False)]
        source = step.directory / RESULT_FILE
        summary = parse_testdfsio_result(step.text(RESULT_FILE), self.mode)
        if not summary:
            source = step.directory / "stderr.log"
            summary = parse_testdfsio_result(step.text("stderr.log"), self.mode)
        # TestDFSIO prints "Average IO rate mb/sec: ?" and a NaN deviation when a map's measured
        # time is 0 ms (small cached files): that rate is undefined, so it is not recorded, while
        # the run, its duration and its throughput are valid.
        missing = [name for name in ("throughput_mb_s", "total_mb", "files") if name not in summary]
        if missing:
            raise ParseError(f"{source}: no TestDFSIO {self.mode} summary line for '{missing[0]}'")
        records = [self.duration_record(ctx, step, ok=True)]
        units = dict(_FIELDS.values())
        for metric, value in summary.items():
            records.append(self.record(ctx, step, metric, value, units[metric], artifact=source))
        return records


@register
class DFSIOWrite(_TestDFSIO):
    name = "dfsio_write"
    description = "TestDFSIO -write"
    mode = "write"

    def generate(self, ctx: RunContext) -> list[Command]:
        return []


@register
class DFSIORead(_TestDFSIO):
    name = "dfsio_read"
    description = "TestDFSIO -read of files written (untimed) by the generate step"
    mode = "read"

    def generate(self, ctx: RunContext) -> list[Command]:
        return [self._command(ctx, "write", result_file=False)]
