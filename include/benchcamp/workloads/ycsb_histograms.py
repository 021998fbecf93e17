"""YCSB's HdrHistogram logs: read, merged across clients, and their percentiles as YCSB prints them.

Several clients' latency percentiles do not average (the mean of two clients' 99th percentiles is
not the 99th percentile of their calls): each client writes its interval histograms per operation
(`hdrhistogram.fileoutput`) and the run's percentiles come from their sum, as HdrHistogram's own
log tools merge them. Clients whose logs hardly overlap in time did not run together: they are
refused. Pure: the functions take the logs' text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from hdrh.histogram import HdrHistogram

from benchcamp.workloads.base import ParseError

# YCSB 0.17's Recorder keeps 3 significant digits and resizes itself; this range (1 µs to an
# hour) holds any latency a YCSB run prints, at the same precision.
SIGNIFICANT_DIGITS = 3
HIGHEST_US = 3_600_000_000
_START = re.compile(r"^#\[StartTime: (?P<seconds>\d+(?:\.\d+)?) ")
_PERCENTILE_NAME = re.compile(r"^p(?P<whole>\d+)(?:_(?P<fraction>\d+))?$")


@dataclass(frozen=True)
class HistogramLog:
    """One client's interval histograms of one operation, added up, and the period they cover."""

    histogram: HdrHistogram
    start_s: float  # seconds since the epoch
    end_s: float

    @property
    def count(self) -> int:
        return int(self.histogram.get_total_count())


def empty_histogram() -> HdrHistogram:
    return HdrHistogram(1, HIGHEST_US, SIGNIFICANT_DIGITS)


def read_histogram_log(text: str, source: str) -> HistogramLog:
    """An HdrHistogram log (`#[StartTime: ...]`, then `start,length,max,payload` per interval)."""
    histogram = empty_histogram()
    base: float | None = None
    first: float | None = None
    last = 0.0
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _START.match(line):
            base = float(match.group("seconds"))
        if not line or line.startswith(("#", '"')):
            continue
        fields = line.split(",")
        if fields[0].startswith("Tag="):
            fields = fields[1:]
        try:
            start, length = float(fields[0]), float(fields[1])
            histogram.decode_and_add(fields[3])
        except (IndexError, ValueError, TypeError) as exc:
            raise ParseError(f"{source}: line {number} is not an interval histogram ({exc})") from None
        except Exception as exc:  # hdrh's own decoding errors (a cut payload)
            raise ParseError(f"{source}: line {number}: its histogram cannot be decoded ({exc})") from None
        first = start if first is None else min(first, start)
        last = max(last, start + length)
    if base is None:
        raise ParseError(f"{source}: no #[StartTime: ...] line: not an HdrHistogram log, or cut short")
    if first is None:
        raise ParseError(f"{source}: no interval histogram: the client wrote none (cut short?)")
    return HistogramLog(histogram, base + first, base + last)


def percentile_of(name: str) -> float:
    """`p99_9` → 99.9 (the parser's latency names)."""
    match = _PERCENTILE_NAME.fullmatch(name)
    if not match:
        raise ValueError(f"'{name}' is not a percentile name")
    return float(match.group("whole") + ("." + match.group("fraction") if match.group("fraction") else ""))


def value_at_percentile(histogram: HdrHistogram, percentile: float) -> int:
    """The latency at `percentile` as YCSB prints it (HdrHistogram 2.1.12's getValueAtPercentile):
    the highest value equivalent to the nearest-rank sample, the ceil(p/100 × n)-th. The Python
    package's own method rounds the rank to the nearest instead, one sample lower at times."""
    total = int(histogram.get_total_count())
    if total == 0:
        return 0
    requested = min(max(math.nextafter(percentile, -math.inf), 0.0), 100.0)
    rank = max(1, math.ceil(requested / 100.0 * total))
    seen = 0
    for index in range(histogram.counts_len):
        seen += histogram.get_count_at_index(index)
        if seen >= rank:
            value = histogram.get_value_from_index(index)
            if percentile == 0:
                return int(histogram.get_lowest_equivalent_value(value))
            return int(histogram.get_highest_equivalent_value(value))
    return int(histogram.get_max_value())


# Clients started together still begin measuring apart (each JVM and store driver starts at its
# own pace; 2 s apart on the lab's two loaded cores): they count as one run while their measured
# periods overlap for at least this share of the shortest client's.
MIN_OVERLAP = 0.5


def period(logs: Sequence[HistogramLog]) -> tuple[float, float]:
    """The period one client measured in: from its first interval to its last, over its operations."""
    return min(log.start_s for log in logs), max(log.end_s for log in logs)


def check_together(periods: Sequence[tuple[float, float]], names: Sequence[str]) -> None:
    """Refuse clients whose measured periods overlap too little to sum their throughputs as one run."""
    overlap = min(end for _, end in periods) - max(start for start, _ in periods)
    shortest = min(end - start for start, end in periods)
    if shortest <= 0 or overlap < MIN_OVERLAP * shortest:
        spans = ", ".join(
            f"{name} {start:.3f}-{end:.3f}" for name, (start, end) in zip(names, periods, strict=True)
        )
        raise ParseError(
            f"the clients did not run together (their histograms overlap {max(overlap, 0.0):.1f} s, less "
            f"than {MIN_OVERLAP:.0%} of the shortest client's {shortest:.1f} s), so they are not "
            f"merged: {spans} (seconds since the epoch)"
        )


def merge_logs(logs: Sequence[HistogramLog]) -> HistogramLog:
    """The logs of one operation from several clients as one histogram."""
    merged = empty_histogram()
    for log in logs:
        merged.add(log.histogram)
    return HistogramLog(merged, *period(logs))
