"""YCSB client output: the text summary on stdout and the JSON array exporter, parsed purely.

YCSB prints one `[SECTION], measurement, value` line per figure (`[OVERALL], RunTime(ms)`,
`[READ], 95thPercentileLatency(us)`, `[UPDATE], Return=OK`, ...); the JSON exporter writes the
same triples as objects. Both parse into one `YcsbReport`. A summary that lacks the overall
figures, or an operation type whose latency lines stop part-way, is an output cut short: the
parse fails naming the archived file instead of returning partial numbers.

A READ-MODIFY-WRITE is one operation of the workload but YCSB also counts its read in READ and
its write in UPDATE, so the operations the client completed are the sum over the types minus
the READ-MODIFY-WRITE count.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from benchcamp.workloads.base import ParseError

# Sections that are not operations of the workload.
_NOT_OPERATIONS = ("OVERALL", "CLEANUP")
_LATENCIES = {
    "AverageLatency(us)": "average_us",
    "MinLatency(us)": "min_us",
    "MaxLatency(us)": "max_us",
    "95thPercentileLatency(us)": "p95_us",
    "99thPercentileLatency(us)": "p99_us",
}
RMW = "READ-MODIFY-WRITE"


@dataclass
class OperationStats:
    """One operation type's count, latencies (µs) and return codes (OK, ERROR, NOT_FOUND, ...)."""

    operations: int = 0
    average_us: float | None = None
    min_us: float | None = None
    max_us: float | None = None
    p95_us: float | None = None
    p99_us: float | None = None
    returns: dict[str, int] = field(default_factory=dict)

    def missing(self) -> list[str]:
        return [name for name, attribute in _LATENCIES.items() if getattr(self, attribute) is None]


@dataclass
class YcsbReport:
    """A YCSB phase's summary: run time, throughput and per-operation statistics."""

    runtime_ms: float
    throughput_ops_s: float
    operations: dict[str, OperationStats]
    client_errors: list[str] = field(default_factory=list)

    def completed(self) -> int:
        """Workload operations the client completed (a read-modify-write counts once)."""
        total = sum(stats.operations for name, stats in self.operations.items() if name != RMW)
        return total - (self.operations[RMW].operations if RMW in self.operations else 0)

    def returned(self, status: str) -> int:
        """Operations that returned `status`; the read and write inside a read-modify-write count once."""
        total = sum(stats.returns.get(status, 0) for name, stats in self.operations.items() if name != RMW)
        if status == "OK" and RMW in self.operations:
            total -= self.operations[RMW].operations
        return total

    def problems(self, requested: int) -> list[str]:
        """Why this phase cannot count as a measurement: errors, or fewer OK operations than requested."""
        reasons = [f"client: {line}" for line in dict.fromkeys(self.client_errors)]
        errors = {
            name: stats.returns["ERROR"]
            for name, stats in self.operations.items()
            if stats.returns.get("ERROR")
        }
        if errors:
            reasons.append("Return=ERROR: " + ", ".join(f"{name} {count}" for name, count in errors.items()))
        ok = self.returned("OK")
        if ok < requested:
            reasons.append(f"{ok} operations returned OK of {requested} requested")
        return reasons


def _number(text: str, source: Path, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ParseError(f"{source}: {where}: '{text}' is not a number") from None
    return value


def _add(
    report: dict[str, OperationStats], section: str, measurement: str, value: float, source: Path
) -> None:
    stats = report.setdefault(section, OperationStats())
    if measurement == "Operations":
        stats.operations = int(value)
    elif measurement in _LATENCIES:
        setattr(stats, _LATENCIES[measurement], None if math.isnan(value) else value)
    elif measurement.startswith("Return="):
        stats.returns[measurement.removeprefix("Return=")] = int(value)


def _build(triples: list[tuple[str, str, float]], source: Path) -> YcsbReport:
    overall = {measurement: value for section, measurement, value in triples if section == "OVERALL"}
    for needed in ("RunTime(ms)", "Throughput(ops/sec)"):
        if needed not in overall:
            raise ParseError(f"{source}: no [OVERALL] {needed}: the YCSB output is cut short or not YCSB's")
    sections: dict[str, OperationStats] = {}
    for section, measurement, value in triples:
        if section in _NOT_OPERATIONS or section.startswith("TOTAL_GC"):
            continue
        _add(sections, section, measurement, value, source)
    for name, stats in sections.items():
        if name.endswith("-FAILED"):
            continue  # YCSB's per-failure latency series; the Return= counts carry the failures
        missing = stats.missing() if stats.operations else []
        if missing:
            raise ParseError(f"{source}: [{name}] lacks {', '.join(missing)}: the YCSB output is cut short")
    operations = {name: stats for name, stats in sections.items() if not name.endswith("-FAILED")}
    return YcsbReport(overall["RunTime(ms)"], overall["Throughput(ops/sec)"], operations)


def parse_text(text: str, source: Path) -> YcsbReport:
    """The `[SECTION], measurement, value` summary YCSB prints on stdout.

    A client thread whose binding cannot start prints its DBException there too (YCSB 0.17.0 then
    still exits 0, with a summary of no operations): those lines are kept as `client_errors`.
    """
    triples: list[tuple[str, str, float]] = []
    client_errors: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("site.ycsb.DBException"):
            client_errors.append(line.removeprefix("site.ycsb.DBException: ")[:300])
            continue
        if not line.startswith("["):
            continue
        parts = [part.strip() for part in line.split(",")]
        if len(parts) != 3 or not parts[0].endswith("]"):
            raise ParseError(
                f"{source}: line {number} is not '[SECTION], measurement, value': {line[:120]!r}"
            )
        section = parts[0][1:-1]
        triples.append((section, parts[1], _number(parts[2], source, f"line {number}")))
    report = _build(triples, source)
    report.client_errors = client_errors
    return report


def parse_json(text: str, source: Path) -> YcsbReport:
    """The JSONArrayMeasurementsExporter's file: `[{"metric", "measurement", "value"}, ...]`."""
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{source}: not JSON ({exc}): the YCSB export is cut short") from exc
    if not isinstance(items, list):
        raise ParseError(f"{source}: a JSON array of measurements was expected")
    triples = []
    for item in items:
        try:
            triples.append((str(item["metric"]), str(item["measurement"]), float(item["value"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ParseError(
                f"{source}: measurement {item!r} lacks metric/measurement/value ({exc})"
            ) from exc
    return _build(triples, source)
