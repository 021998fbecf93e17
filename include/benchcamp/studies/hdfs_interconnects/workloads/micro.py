"""The study's five HDFS micro-benchmarks, each run by lab/hdfsbench on the NameNode's host.

One repetition is one hdfsbench invocation in the execute step (a fresh JVM): the latency
benchmarks (`swl`, `srl`, `rrl`) time one file of the cell's `file_size_mb` after a 64 kB
warm-up file whose line is discarded (the first file of a JVM pays class loading and JIT);
the throughput benchmarks (`swt`, `srt`) move the cell's `data_size_gb` with its `clients`.
The tool creates its own directory under the repetition's data directory and deletes it at the
end, so every repetition writes its files anew (the study's `regenerate_data`). File settings
(block size, replication, buffer) come from the spec's settings, and each record is checked to
have been written with them.

Records: `duration_s` (the measured time: one file's write or read, the mean positioned read,
or the aggregate transfer) and `mb_s` (size over time; aggregate for the throughput tests);
`rrl` adds `min_read_s` and `max_read_s`. A failed run (no `done` line, e.g. a DataNode down
mid-run) is a failed repetition: its stderr, archived, names the DataNode the client gave up on.
"""

from __future__ import annotations

from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.core.records import ResultRecord
from benchcamp.studies.hdfs_interconnects.hdfsbench import (
    HdfsBenchOutput,
    HdfsBenchOutputError,
    RandomReadMean,
    SequentialLatency,
    Throughput,
    parse_hdfsbench_output,
)
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    ParseError,
    RunContext,
    Workload,
    data_path,
    tool_path,
)

HDFSBENCH_JAR = "hdfsbench.jar"
WARMUP_BYTES = 64 * 1024
MB = 1 << 20
SETTING_DEFAULTS: dict[str, int] = {"block_size_mb": 128, "replication": 3, "buffer_kb": 64, "rrl_reads": 100}


def file_settings(ctx: RunContext) -> dict[str, int]:
    """block_size_mb, replication, buffer_kb, rrl_reads: the spec's settings over HDFS's defaults."""
    given = ctx.spec.settings.get(ctx.workload, {})
    settings = dict(SETTING_DEFAULTS)
    for name, value in given.items():
        if name not in SETTING_DEFAULTS:
            raise ValueError(
                f"settings.{ctx.workload}.{name} is not an hdfsbench setting ({', '.join(SETTING_DEFAULTS)})"
            )
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(
                f"settings.{ctx.workload}.{name} must be a whole number of at least 1, not {value!r}"
            )
        settings[name] = value
    return settings


class HdfsMicroBenchmark(Workload):
    """One hdfsbench benchmark per repetition (see the module docstring)."""

    family = "hdfs_micro"
    bench: str

    def tools(self, ctx: RunContext) -> list[Path]:
        return [repo_root() / "lab" / "hdfsbench" / "target" / HDFSBENCH_JAR]

    def check_cell(self, ctx: RunContext) -> None:
        file_settings(ctx)

    def generate(self, ctx: RunContext) -> list[Command]:
        # Nothing but a check that the tool arrived: the benchmark writes its own files (the
        # write tests are the benchmark; the read tests write theirs untimed, just before reading).
        return [["test", "-s", tool_path(HDFSBENCH_JAR)]]

    def _options(self, ctx: RunContext) -> list[str]:
        settings = file_settings(ctx)
        return [
            "--buffer", f"{settings['buffer_kb']}k",
            "--block-size", f"{settings['block_size_mb']}m",
            "--replication", str(settings["replication"]),
        ]  # fmt: skip

    def execute(self, ctx: RunContext) -> list[Command]:
        return [
            [*ctx.hadoop, "jar", tool_path(HDFSBENCH_JAR), self.bench, "--dir", data_path("hdfsbench"),
             *self._options(ctx), *self.bench_options(ctx)],
        ]  # fmt: skip

    def bench_options(self, ctx: RunContext) -> list[str]:
        raise NotImplementedError

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        if step.exit_code != 0:
            return [self.duration_record(ctx, step, ok=False)]
        source = step.directory / "stdout.log"
        try:
            output = parse_hdfsbench_output(step.text("stdout.log"))
        except HdfsBenchOutputError as exc:
            raise ParseError(f"{source}: {exc}") from exc
        if output.bench != self.bench:
            raise ParseError(f"{source}: output of {output.bench}, expected {self.bench}")
        return self.records(ctx, step, output, source)

    def records(
        self, ctx: RunContext, step: ArchivedStep, output: HdfsBenchOutput, source: Path
    ) -> list[ResultRecord]:
        raise NotImplementedError

    def _check_settings(self, ctx: RunContext, settings: object, source: Path, line: int) -> None:
        wanted = file_settings(ctx)
        expected = (wanted["block_size_mb"] * MB, wanted["replication"], wanted["buffer_kb"] * 1024)
        got = (settings.block_size, settings.replication, settings.buffer)  # type: ignore[attr-defined]
        if got != expected:
            raise ParseError(
                f"{source}, line {line}: written with block_size, replication, buffer = {got}, "
                f"the spec asks for {expected}"
            )


class LatencyBenchmark(HdfsMicroBenchmark):
    axes = ("file_size_mb",)

    def size_bytes(self, ctx: RunContext) -> int:
        size = ctx.param("file_size_mb")
        if isinstance(size, bool) or not isinstance(size, int | float) or size <= 0:
            raise ValueError(f"file_size_mb must be a positive number of MB, not {size!r}")
        return round(float(size) * MB)

    def check_cell(self, ctx: RunContext) -> None:
        super().check_cell(ctx)
        self.size_bytes(ctx)

    def estimated_bytes(self, ctx: RunContext) -> int:
        return (self.size_bytes(ctx) + WARMUP_BYTES) * file_settings(ctx)["replication"]

    def bench_options(self, ctx: RunContext) -> list[str]:
        return ["--sizes", f"{WARMUP_BYTES},{self.size_bytes(ctx)}"]

    def records(
        self, ctx: RunContext, step: ArchivedStep, output: HdfsBenchOutput, source: Path
    ) -> list[ResultRecord]:
        wanted = self.size_bytes(ctx)
        timed = [m for m in output.latencies if m.size_bytes == wanted]
        if len(timed) != 1 or len(output.latencies) != 2:
            raise ParseError(f"{source}: expected the warm-up file and one of {wanted} bytes, got "
                             f"{[m.size_bytes for m in output.latencies]}")  # fmt: skip
        latency: SequentialLatency = timed[0]
        self._check_settings(ctx, latency.settings, source, latency.line)
        return [
            self.record(ctx, step, "duration_s", latency.seconds, "s", artifact=source),
            self.record(ctx, step, "mb_s", latency.mb_s, "MB/s", artifact=source),
        ]


class ThroughputBenchmark(HdfsMicroBenchmark):
    axes = ("data_size_gb", "clients")

    def total_bytes(self, ctx: RunContext) -> int:
        size = ctx.param("data_size_gb")
        if isinstance(size, bool) or not isinstance(size, int | float) or size <= 0:
            raise ValueError(f"data_size_gb must be a positive number of GB, not {size!r}")
        return round(float(size) * 1024 * MB)

    def clients(self, ctx: RunContext) -> int:
        clients = ctx.param("clients")
        if isinstance(clients, bool) or not isinstance(clients, int) or clients < 1:
            raise ValueError(f"clients must be a whole number of at least 1, not {clients!r}")
        return clients

    def check_cell(self, ctx: RunContext) -> None:
        super().check_cell(ctx)
        if self.total_bytes(ctx) < self.clients(ctx):
            raise ValueError(f"data_size_gb {ctx.param('data_size_gb')} is fewer bytes than clients")

    def estimated_bytes(self, ctx: RunContext) -> int:
        return self.total_bytes(ctx) * file_settings(ctx)["replication"]

    def bench_options(self, ctx: RunContext) -> list[str]:
        return ["--total", str(self.total_bytes(ctx)), "--clients", str(self.clients(ctx))]

    def records(
        self, ctx: RunContext, step: ArchivedStep, output: HdfsBenchOutput, source: Path
    ) -> list[ResultRecord]:
        if len(output.throughputs) != 1:
            raise ParseError(f"{source}: expected one throughput line, got {len(output.throughputs)}")
        run: Throughput = output.throughputs[0]
        if (run.clients, run.total_bytes) != (self.clients(ctx), self.total_bytes(ctx)):
            raise ParseError(
                f"{source}, line {run.line}: {run.clients} clients moved {run.total_bytes} bytes, the cell "
                f"asked for {self.clients(ctx)} clients and {self.total_bytes(ctx)} bytes"
            )
        self._check_settings(ctx, run.settings, source, run.line)
        return [
            self.record(ctx, step, "duration_s", run.seconds, "s", artifact=source),
            self.record(ctx, step, "mb_s", run.aggregate_mb_s, "MB/s", artifact=source),
            self.record(ctx, step, "slowest_client_s", run.max_client_seconds, "s", artifact=source),
            self.record(ctx, step, "fastest_client_s", run.min_client_seconds, "s", artifact=source),
        ]


@register
class SequentialWriteLatency(LatencyBenchmark):
    name = "swl"
    bench = "swl"
    description = "Sequential Write Latency: create, write, hflush and close one file"


@register
class SequentialReadLatency(LatencyBenchmark):
    name = "srl"
    bench = "srl"
    description = "Sequential Read Latency: open and read one file end to end"


@register
class RandomReadLatency(LatencyBenchmark):
    name = "rrl"
    bench = "rrl"
    description = "Random Read Latency: positioned reads at seeded offsets of one file"

    def bench_options(self, ctx: RunContext) -> list[str]:
        reads = file_settings(ctx)["rrl_reads"]
        return [*super().bench_options(ctx), "--reads", str(reads), "--read-size", "4k", "--seed", "42"]

    def records(
        self, ctx: RunContext, step: ArchivedStep, output: HdfsBenchOutput, source: Path
    ) -> list[ResultRecord]:
        wanted = self.size_bytes(ctx)
        means = [m for m in output.random_read_means if m.size_bytes == wanted]
        if len(means) != 1:
            raise ParseError(f"{source}: no mean line for the {wanted}-byte file")
        mean: RandomReadMean = means[0]
        self._check_settings(ctx, mean.settings, source, mean.line)
        return [
            self.record(ctx, step, "duration_s", mean.seconds, "s", artifact=source),
            self.record(ctx, step, "min_read_s", mean.min_seconds, "s", artifact=source),
            self.record(ctx, step, "max_read_s", mean.max_seconds, "s", artifact=source),
            self.record(ctx, step, "mb_s", mean.read_bytes / MB / mean.seconds if mean.seconds else 0.0,
                        "MB/s", artifact=source),
        ]  # fmt: skip


@register
class SequentialWriteThroughput(ThroughputBenchmark):
    name = "swt"
    bench = "swt"
    description = "Sequential Write Throughput: concurrent clients each writing its share of a total"


@register
class SequentialReadThroughput(ThroughputBenchmark):
    name = "srt"
    bench = "srt"
    description = "Sequential Read Throughput: concurrent clients each reading its own file"
