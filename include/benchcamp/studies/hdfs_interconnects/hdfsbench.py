"""Parser of lab/hdfsbench's output: the study-5 HDFS micro-benchmarks as typed measurements.

``hadoop jar hdfsbench.jar <bench> ...`` prints one line per measurement on standard output and a
final ``done`` line (lab/hdfsbench/README.md)::

    hdfsbench: bench=swl size_bytes=1048576 seconds=0.046505 mb_s=21.503 block_size=... replication=1 buffer=65536
    hdfsbench: bench=srl size_bytes=1048576 seconds=0.005452 mb_s=183.404 block_size=... replication=1 buffer=...
    hdfsbench: bench=rrl kind=read size_bytes=1048576 read=1 offset=67241 read_bytes=4096 seconds=0.002099
    hdfsbench: bench=rrl kind=mean size_bytes=1048576 reads=10 read_bytes=4096 seconds=0.001578 min_seconds=...
        max_seconds=... seed=7 block_size=... replication=1 buffer=65536
    hdfsbench: bench=swt clients=4 total_bytes=33554432 seconds=0.094249 aggregate_mb_s=339.526
        min_client_seconds=... max_client_seconds=... block_size=... replication=1 buffer=65536
    hdfsbench: done bench=swl measurements=3 seconds=0.097789 fs=file:///

(each measurement is one line; they are wrapped here). MB is 2^20 bytes. Lines that do not start
with ``hdfsbench: `` (Hadoop's log lines, which its log4j configuration prints on standard output
too) are skipped. Fields beyond the required ones are ignored, so the tool may add some.

Refused with :class:`HdfsBenchOutputError` naming the 1-based line number: an unknown bench name
(or rrl ``kind``), a token that is not ``key=value``, a repeated or missing field, a number that is
not a finite non-negative decimal (integers for byte counts and counts), lines of two benchmarks in
one output, anything after the ``done`` line, a ``done`` count that differs from the lines read, an
rrl mean whose ``reads`` differs from its read lines, no measurement, and a missing ``done`` line
(the error names the line after the last one: the output was cut there).

Pure Python, no third-party imports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, TypeAlias

PREFIX: Final = "hdfsbench: "
BENCHES: Final = ("swl", "srl", "rrl", "swt", "srt")
MB: Final = 1 << 20
"""The tool's MB (mb_s, aggregate_mb_s): 2^20 bytes."""

Bench: TypeAlias = Literal["swl", "srl", "rrl", "swt", "srt"]

_INT = re.compile(r"\d+")
_FLOAT = re.compile(r"\d+(\.\d+)?([eE][+-]?\d+)?")


class HdfsBenchOutputError(ValueError):
    """Output that is not what hdfsbench prints; ``line`` is its 1-based line number."""

    def __init__(self, line: int, message: str, source: str = "hdfsbench output") -> None:
        super().__init__(f"{source}, line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True)
class FileSettings:
    """How the benchmark's files were written."""

    block_size: int
    replication: int
    buffer: int


@dataclass(frozen=True)
class SequentialLatency:
    """swl or srl: the time to write (create, write, hflush, close) or read one file end to end."""

    bench: Literal["swl", "srl"]
    size_bytes: int
    seconds: float
    mb_s: float
    settings: FileSettings
    line: int


@dataclass(frozen=True)
class RandomRead:
    """rrl ``kind=read``: one positioned read (pread) of ``read_bytes`` at ``offset``."""

    size_bytes: int
    read: int
    offset: int
    read_bytes: int
    seconds: float
    line: int


@dataclass(frozen=True)
class RandomReadMean:
    """rrl ``kind=mean``: the mean (``seconds``), min and max of a file's ``reads`` random reads."""

    size_bytes: int
    reads: int
    read_bytes: int
    seconds: float
    min_seconds: float
    max_seconds: float
    seed: int
    settings: FileSettings
    line: int


@dataclass(frozen=True)
class Throughput:
    """swt or srt: ``clients`` concurrent clients moving ``total_bytes`` in ``seconds`` of wall time."""

    bench: Literal["swt", "srt"]
    clients: int
    total_bytes: int
    seconds: float
    aggregate_mb_s: float
    min_client_seconds: float
    max_client_seconds: float
    settings: FileSettings
    line: int


Measurement: TypeAlias = SequentialLatency | RandomRead | RandomReadMean | Throughput


@dataclass(frozen=True)
class Done:
    """The final line: the benchmark, its number of measurement lines, its wall time, the file system."""

    bench: Bench
    measurements: int
    seconds: float
    fs: str
    line: int


@dataclass(frozen=True)
class HdfsBenchOutput:
    """One run of hdfsbench: its measurements in output order and its done line."""

    bench: Bench
    measurements: tuple[Measurement, ...]
    done: Done

    @property
    def latencies(self) -> tuple[SequentialLatency, ...]:
        return tuple(m for m in self.measurements if isinstance(m, SequentialLatency))

    @property
    def random_reads(self) -> tuple[RandomRead, ...]:
        return tuple(m for m in self.measurements if isinstance(m, RandomRead))

    @property
    def random_read_means(self) -> tuple[RandomReadMean, ...]:
        return tuple(m for m in self.measurements if isinstance(m, RandomReadMean))

    @property
    def throughputs(self) -> tuple[Throughput, ...]:
        return tuple(m for m in self.measurements if isinstance(m, Throughput))


class _Fields:
    """The key=value fields of one line, read with typed, line-numbered refusals."""

    def __init__(self, line: int, fields: Mapping[str, str]) -> None:
        self.line = line
        self.fields = fields

    def text(self, key: str) -> str:
        try:
            return self.fields[key]
        except KeyError:
            raise HdfsBenchOutputError(self.line, f"missing field {key!r}") from None

    def int(self, key: str) -> int:
        value = self.text(key)
        if not _INT.fullmatch(value):
            raise HdfsBenchOutputError(self.line, f"field {key}={value!r} is not a non-negative integer")
        return int(value)

    def float(self, key: str) -> float:
        value = self.text(key)
        number = float(value) if _FLOAT.fullmatch(value) else math.nan
        if not math.isfinite(number) or number < 0:
            raise HdfsBenchOutputError(
                self.line, f"field {key}={value!r} is not a finite non-negative number"
            )
        return number

    def settings(self) -> FileSettings:
        return FileSettings(self.int("block_size"), self.int("replication"), self.int("buffer"))

    def bench(self) -> Bench:
        name = self.text("bench")
        for bench in BENCHES:
            if name == bench:
                return bench
        raise HdfsBenchOutputError(self.line, f"unknown bench {name!r} (one of {', '.join(BENCHES)})")


def _split(line: int, tokens: list[str]) -> _Fields:
    fields: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key or not value:
            raise HdfsBenchOutputError(line, f"{token!r} is not key=value")
        if key in fields:
            raise HdfsBenchOutputError(line, f"field {key!r} repeated")
        fields[key] = value
    return _Fields(line, fields)


def _measurement(f: _Fields, bench: Bench) -> Measurement:
    if bench == "swl" or bench == "srl":
        return SequentialLatency(
            bench, f.int("size_bytes"), f.float("seconds"), f.float("mb_s"), f.settings(), f.line
        )
    if bench == "swt" or bench == "srt":
        return Throughput(
            bench,
            f.int("clients"),
            f.int("total_bytes"),
            f.float("seconds"),
            f.float("aggregate_mb_s"),
            f.float("min_client_seconds"),
            f.float("max_client_seconds"),
            f.settings(),
            f.line,
        )
    kind = f.text("kind")
    if kind == "read":
        return RandomRead(
            f.int("size_bytes"),
            f.int("read"),
            f.int("offset"),
            f.int("read_bytes"),
            f.float("seconds"),
            f.line,
        )
    if kind == "mean":
        return RandomReadMean(
            f.int("size_bytes"),
            f.int("reads"),
            f.int("read_bytes"),
            f.float("seconds"),
            f.float("min_seconds"),
            f.float("max_seconds"),
            f.int("seed"),
            f.settings(),
            f.line,
        )
    raise HdfsBenchOutputError(f.line, f"unknown rrl kind {kind!r} (read or mean)")


def parse_hdfsbench_output(text: str) -> HdfsBenchOutput:
    """Parses one run's standard output (see the module's docstring for the format and refusals)."""
    measurements: list[Measurement] = []
    done: Done | None = None
    bench: Bench | None = None
    reads_since_mean = 0
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        if not raw.startswith(PREFIX):
            continue
        if done is not None:
            raise HdfsBenchOutputError(number, f"output after the done line (line {done.line})")
        tokens = raw[len(PREFIX) :].split()
        is_done = tokens[:1] == ["done"]
        f = _split(number, tokens[1:] if is_done else tokens)
        line_bench = f.bench()
        if bench is not None and line_bench != bench:
            raise HdfsBenchOutputError(number, f"bench {line_bench!r} in the output of bench {bench!r}")
        bench = line_bench
        if is_done:
            done = Done(line_bench, f.int("measurements"), f.float("seconds"), f.text("fs"), number)
            continue
        m = _measurement(f, line_bench)
        if isinstance(m, RandomRead):
            reads_since_mean += 1
        elif isinstance(m, RandomReadMean):
            if m.reads != reads_since_mean:
                raise HdfsBenchOutputError(
                    number, f"rrl mean over reads={m.reads} follows {reads_since_mean} read lines"
                )
            reads_since_mean = 0
        measurements.append(m)
    if done is None:
        raise HdfsBenchOutputError(
            len(lines) + 1, "no 'hdfsbench: done' line: the output is cut short (the run failed?)"
        )
    if done.measurements != len(measurements):
        raise HdfsBenchOutputError(
            done.line, f"done says measurements={done.measurements} but {len(measurements)} lines were read"
        )
    if not measurements:
        raise HdfsBenchOutputError(done.line, "no measurement before the done line")
    if reads_since_mean:
        raise HdfsBenchOutputError(done.line, f"{reads_since_mean} rrl read lines without their mean line")
    return HdfsBenchOutput(done.bench, tuple(measurements), done)


def parse_hdfsbench_file(path: Path) -> HdfsBenchOutput:
    """Parses a file holding one run's standard output; errors also name the file."""
    try:
        return parse_hdfsbench_output(path.read_text(encoding="utf-8"))
    except HdfsBenchOutputError as e:
        raise HdfsBenchOutputError(e.line, e.message, source=str(path)) from None
