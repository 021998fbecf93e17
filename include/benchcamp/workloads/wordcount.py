"""Hadoop WordCount on RandomTextWriter input (HiBench's CPU-bound micro benchmark).

Generate writes `data_size_gb` GiB of random text with one writer map per input
split (maps per node × nodes), execute counts the words with reduces per node ×
nodes reducers, timed on the target around the `hadoop jar` call.
"""

from __future__ import annotations

from benchcamp.core.records import ResultRecord
from benchcamp.platforms.hadoop import EXAMPLES_JAR, empty_job_probe, parse_job_reports
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    GenerateError,
    NoiseProbe,
    ParseError,
    RunContext,
    Workload,
    data_path,
    env_ref,
    input_path,
)

BYTES_PER_GIB = 1024**3
WRITER_COUNTERS = "org.apache.hadoop.examples.RandomTextWriter$Counters"
DEFAULT_MAPS_PER_NODE = 4
DEFAULT_REDUCES_PER_NODE = 2


def total_bytes(data_size_gb: float) -> int:
    return round(float(data_size_gb) * BYTES_PER_GIB)


def task_counts(ctx: RunContext) -> tuple[int, int]:
    """(maps, reduces) for the whole cluster: per-node values from the cell × nodes."""
    maps = int(ctx.params.get("maps", DEFAULT_MAPS_PER_NODE))
    reduces = int(ctx.params.get("reduces", DEFAULT_REDUCES_PER_NODE))
    return maps * ctx.environment.transport.nodes, reduces * ctx.environment.transport.nodes


@register
class WordCount(Workload):
    name = "wordcount"
    family = "hadoop_mapreduce"
    description = "WordCount over RandomTextWriter text"
    axes = ("data_size_gb", "maps", "reduces")
    generates_once_per_cell = True  # reads input_path("input"), writes data_path("output")

    def generate(self, ctx: RunContext) -> list[Command]:
        size = total_bytes(float(ctx.param("data_size_gb")))
        maps, _ = task_counts(ctx)
        if ctx.environment.hadoop.mapreduce_local:
            maps = 1  # LocalJobRunner runs one writer map whatever we ask: let it write everything
        return [
            [
                *ctx.hadoop, "jar", env_ref(EXAMPLES_JAR), "randomtextwriter",
                "-D", f"mapreduce.randomtextwriter.totalbytes={size}",
                # RandomTextWriter runs totalbytes // bytespermap maps, each writing just past
                # its budget: rounding down gives exactly `maps` maps that together cover the size
                "-D", f"mapreduce.randomtextwriter.bytespermap={size // maps}",
                "-D", f"mapreduce.job.maps={maps}",
                input_path("input"),
            ]
        ]  # fmt: skip

    def verify_generate(self, ctx: RunContext, step: ArchivedStep) -> dict[str, float]:
        """RandomTextWriter stops each map just past its byte budget: accept up to 1% (+64 KiB) more."""
        wanted = total_bytes(float(ctx.param("data_size_gb")))
        reports = parse_job_reports(step.text("stderr.log") + "\n" + step.text("stdout.log"))
        written = reports[-1].counter(WRITER_COUNTERS, "BYTES_WRITTEN") if reports else None
        if written is None:
            raise ParseError(
                f"{step.directory / 'stderr.log'}: no BYTES_WRITTEN counter from randomtextwriter"
            )
        if not wanted <= written <= wanted * 1.01 + 65536:
            raise GenerateError(
                f"randomtextwriter wrote {written} bytes, the cell asks for {wanted} "
                f"(data_size_gb={ctx.param('data_size_gb')}); see {step.directory / 'stderr.log'}"
            )
        return {"generated_bytes": float(written)}

    def noise_probe(self, ctx: RunContext) -> NoiseProbe:
        return empty_job_probe(ctx)

    def execute(self, ctx: RunContext) -> list[Command]:
        _, reduces = task_counts(ctx)
        return [
            [
                *ctx.hadoop, "jar", env_ref(EXAMPLES_JAR), "wordcount",
                "-D", f"mapreduce.job.reduces={reduces}",
                input_path("input"), data_path("output"),
            ]
        ]  # fmt: skip

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        return parse_wordcount(self, ctx, step)


def parse_wordcount(workload: Workload, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
    """Duration (timed on the target) plus the job's input bytes and records."""
    log_path = step.directory / "stderr.log"
    reports = parse_job_reports(step.text("stderr.log") + "\n" + step.text("stdout.log"))
    if step.exit_code != 0:
        return [workload.duration_record(ctx, step, ok=False)]
    if not reports or not reports[-1].succeeded:
        raise ParseError(f"{log_path}: exit code 0 but no 'Job … completed successfully' line")
    job = reports[-1]
    bytes_read = job.counter("File Input Format Counters", "Bytes Read")
    input_records = job.counter("Map-Reduce Framework", "Map input records")
    if bytes_read is None or input_records is None:
        raise ParseError(f"{log_path}: job counters 'Bytes Read' / 'Map input records' not found")
    return [
        workload.duration_record(ctx, step, ok=True),
        workload.record(ctx, step, "input_bytes", float(bytes_read), "B"),
        workload.record(ctx, step, "map_input_records", float(input_records), "records"),
    ]
