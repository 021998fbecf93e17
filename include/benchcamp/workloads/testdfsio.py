"""TestDFSIO write and read (HiBench's I/O-bound DFSIO), one map per file.

The number of files follows the study: ceil(data size / file size), e.g. 400 MB
files × 615 ≈ 240 GiB. Read needs files to read, so its generate step writes them
(untimed); write generates nothing. TestDFSIO's own figures are kept next to the
duration timed on the target: Throughput = Σ size / Σ time, Average I/O rate =
Σ(size/time) / N over the N map tasks.

TestDFSIO prints its summary block twice, to the `-resFile` and to its log (stderr.log): the
parser reads both and refuses a repetition whose copies differ or where one was cut short, so
a file cut mid-number never becomes a record with the wrong throughput.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from benchcamp.core.records import ResultRecord
from benchcamp.platforms.hadoop import TESTS_JAR, empty_job_probe
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    NoiseProbe,
    ParseError,
    RunContext,
    Shell,
    Workload,
    data_path,
    env_ref,
    job_path,
)

RESULT_FILE = "dfsio_result.txt"
LOG_FILE = "stderr.log"
_FIELDS = {
    "Number of files": ("files", "files"),
    "Total MBytes processed": ("total_mb", "MB"),
    "Throughput mb/sec": ("throughput_mb_s", "MB/s"),
    "Average IO rate mb/sec": ("avg_io_rate_mb_s", "MB/s"),
    "IO rate std deviation": ("io_rate_stddev_mb_s", "MB/s"),
    "Test exec time sec": ("test_exec_time_s", "s"),
}
UNITS = dict(_FIELDS.values())  # metric → unit of the summary's figures
# not a figure, but it tells the two copies come from the same run (and an appended log's runs apart)
DATE_LABEL = "Date & time"
_DATE = DATE_LABEL
_REQUIRED = ("throughput_mb_s", "total_mb", "files")
# What Java's DecimalFormat prints for a rate it cannot compute (a map timed at 0 ms): '?' or
# U+FFFD for NaN depending on the JVM's charset, and ∞ for a division by zero.
_UNDEFINED = frozenset({"?", "\ufffd", "NaN", "∞", "-∞", "Infinity", "-Infinity"})
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:E-?\d+)?")
# The client logs each line of the block through log4j ("… INFO fs.TestDFSIO: <line>"); the
# result file holds the bare lines.
_LOG_PREFIX = re.compile(r"^.*?\bTestDFSIO: ")
_FIELD_LINE = re.compile(r"^\s*(?P<label>[^:]+?):\s*(?P<value>.*?)\s*$")
_MODE = re.compile(r"^----- TestDFSIO ----- : (?P<mode>\w+)\s*$")


def file_count(data_size_gb: float, file_size_mb: int) -> int:
    return max(1, math.ceil(float(data_size_gb) * 1024 / file_size_mb))


@dataclass(frozen=True)
class DFSIOSummary:
    """One TestDFSIO summary block: each known line's value as printed, whether the block's
    closing empty line was printed too, and whether the file ended inside its last line (no line
    feed after it: that line may be cut short, its number too)."""

    printed: dict[str, str]
    complete: bool
    cut: bool = False

    @property
    def date(self) -> str | None:
        """The block's `Date & time` as printed (Java's Date.toString: `Mon Jun 20 14:11:51 AEST 2016`)."""
        return self.printed.get(_DATE)

    @property
    def missing(self) -> list[str]:
        """The lines TestDFSIO always prints that this block lacks (a whitespace-only last line
        of a file cut inside a line's indentation looks like the closing empty line)."""
        return [label for label in (_DATE, *_FIELDS) if label not in self.printed]

    def figures(self, source: str) -> dict[str, float]:
        """Metric → value; a rate TestDFSIO could not compute ('?', NaN) is left out."""
        figures: dict[str, float] = {}
        for label, (metric, _unit) in _FIELDS.items():
            value = self.printed.get(label)
            if value is None or value in _UNDEFINED:
                continue
            if not _NUMBER.fullmatch(value):
                raise ParseError(f"{source}: TestDFSIO '{label}' is {value!r}, not a number")
            figures[metric] = float(value)
        return figures


@dataclass(frozen=True)
class DFSIOBlock:
    """One summary block of a results log, where it starts (its header's 1-based line) and its mode."""

    mode: str
    line: int
    summary: DFSIOSummary


def parse_testdfsio_blocks(text: str) -> list[DFSIOBlock]:
    """Every TestDFSIO summary block of a log or result file, in file order.

    TestDFSIO appends one block per run to its results file (`-resFile`, by default
    TestDFSIO_results.log), so one file may hold many; a block another header interrupts, or
    the file's end, is incomplete (no closing empty line)."""
    blocks: list[DFSIOBlock] = []
    open_block: tuple[str, int, dict[str, str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        body = _LOG_PREFIX.sub("", line, count=1)
        if match := _MODE.match(body.strip()):
            if open_block is not None:  # a new block before the open one was closed
                blocks.append(DFSIOBlock(open_block[0], open_block[1], DFSIOSummary(open_block[2], False)))
            open_block = (match.group("mode"), number, {})
        elif open_block is None:
            continue
        elif not body.strip():  # TestDFSIO closes its block with an empty line
            blocks.append(DFSIOBlock(open_block[0], open_block[1], DFSIOSummary(open_block[2], True)))
            open_block = None
        elif (match := _FIELD_LINE.match(body)) and match.group("label") in (*_FIELDS, _DATE):
            open_block[2][match.group("label")] = match.group("value")
    if open_block is not None:
        cut = not text.endswith(("\n", "\r"))
        blocks.append(DFSIOBlock(open_block[0], open_block[1], DFSIOSummary(open_block[2], False, cut)))
    return blocks


def parse_testdfsio_summary(text: str, expected_mode: str) -> DFSIOSummary | None:
    """The last TestDFSIO summary block of `expected_mode` (write/read) in a log or result file."""
    found = [block.summary for block in parse_testdfsio_blocks(text) if block.mode == expected_mode]
    return found[-1] if found else None


def cross_check(result: DFSIOSummary, log: DFSIOSummary, result_source: str, log_source: str) -> None:
    """TestDFSIO prints its block to the result file and to its log: both must say the same."""
    for label in sorted(set(result.printed) | set(log.printed)):
        ours, theirs = result.printed.get(label), log.printed.get(label)
        if ours != theirs:
            raise ParseError(
                f"{result_source} disagrees with {log_source}: TestDFSIO '{label}' is "
                f"{ours!r} in the result file, {theirs!r} in the log"
            )


def read_step_summary(step: ArchivedStep, mode: str) -> tuple[dict[str, float], Path]:
    """The figures of the step's summary, from the result file and the log (cross-checked), and the
    file they came from. Either copy alone is accepted (a quiet log4j prints no block), a copy cut
    short or two copies that differ fail the parse naming the archived file."""
    result_file = step.files.get(RESULT_FILE, step.directory / RESULT_FILE)
    log_file = step.files.get(LOG_FILE, step.directory / LOG_FILE)
    result = parse_testdfsio_summary(step.text(RESULT_FILE), mode)
    log = parse_testdfsio_summary(step.text(LOG_FILE), mode)
    if result is None and result_file.exists():
        raise ParseError(f"{result_file}: no TestDFSIO {mode} summary in the result file: cut short")
    for summary, path in ((result, result_file), (log, log_file)):
        if summary is not None and not summary.complete:
            raise ParseError(f"{path}: the TestDFSIO {mode} summary has no closing line: cut short")
        if summary is not None and summary.missing:
            raise ParseError(
                f"{path}: the TestDFSIO {mode} summary has no '{summary.missing[0]}' line: cut short"
            )
    if result is not None and log is not None:
        cross_check(result, log, str(result_file), str(log_file))
    summary, source = (result, result_file) if result is not None else (log, log_file)
    figures = summary.figures(str(source)) if summary is not None else {}
    missing = [name for name in _REQUIRED if name not in figures]
    if missing:
        raise ParseError(f"{source}: no TestDFSIO {mode} summary line for '{missing[0]}'")
    return figures, source


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

    def noise_probe(self, ctx: RunContext) -> NoiseProbe:
        return empty_job_probe(ctx)  # the same client, job set-up and commit as a DFSIO job

    def execute(self, ctx: RunContext) -> list[Command]:
        return [self._command(ctx, self.mode, result_file=True)]

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        if step.exit_code != 0:
            return [self.duration_record(ctx, step, ok=False)]
        # TestDFSIO prints "Average IO rate mb/sec: ?" and a NaN deviation when a map's measured
        # time is 0 ms (small cached files): that rate is undefined, so it is not recorded, while
        # the run, its duration and its throughput are valid.
        summary, source = read_step_summary(step, self.mode)
        records = [self.duration_record(ctx, step, ok=True)]
        units = dict(_FIELDS.values())
        for metric, value in summary.items():
            records.append(self.record(ctx, step, metric, value, units[metric], artifact=source))
        return records


@register
class DFSIOWrite(_TestDFSIO):
    name = "dfsio_write"
    generates_once_per_cell = True  # nothing is generated: the timed write makes its own data
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


MODE_WORKLOADS = {cls.mode: cls.name for cls in (DFSIOWrite, DFSIORead)}  # -write → dfsio_write
