"""The pure parts of a BigBench run: query orders, per-query outcomes, and the records they make.

A run's execute step (`run.py`) writes one `outcomes.json` into its archive: the load phase, each
power-test query, each throughput stream's queries and the phase's wall time, every entry with
its status, seconds, error and the archived directory of its raw outputs. Records are built from
that file only (`records_from_outcomes`), so a run can be parsed again from its archive.

Records (the study's record contract): `bigbench_load` {cluster_nodes, scale_factor_gb}
duration_s = T_load; `bigbench_power` {..., query} duration_s per query; `bigbench_throughput`
{..., query, stream} duration_s per stream and query, and the phase record {..., query: all,
stream: all} with duration_s = T_throughput and the counts `streams` and `queries`. A failed
query is a `failed` record holding its elapsed time; its run is invalid (`invalid_reasons`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

QUERIES: tuple[str, ...] = tuple(f"q{number:02d}" for number in range(1, 31))
TEXT_QUERIES = frozenset({"q10", "q18", "q19", "q27"})
ML_QUERIES = frozenset({"q05", "q20", "q25", "q26", "q28"})
SQL_QUERIES = frozenset(QUERIES) - TEXT_QUERIES - ML_QUERIES
ALL = "all"
OUTCOMES_FILE = "outcomes.json"
OUTCOMES_FORMAT = "benchcamp-bigbench-run/1"
LOAD, POWER, THROUGHPUT = "bigbench_load", "bigbench_power", "bigbench_throughput"
_QUERY_NAME = re.compile(r"q(0[1-9]|[12][0-9]|30)\Z")

Status = Literal["ok", "failed"]


class OutcomesError(ValueError):
    """An outcomes file that cannot be read as a run's results; names the file."""


def check_query_names(names: Sequence[str]) -> list[str]:
    """The names as given, or ValueError naming the unknown ones (before anything runs)."""
    unknown = [name for name in names if not _QUERY_NAME.fullmatch(str(name))]
    if unknown:
        raise ValueError(f"unknown BigBench queries {', '.join(map(str, unknown))}: known are q01..q30")
    repeated = sorted({name for name in names if list(names).count(name) > 1})
    if repeated:
        raise ValueError(f"queries listed twice: {', '.join(repeated)}")
    return list(names)


def check_streams(streams: object) -> int:
    """S, the throughput test's stream count: a whole number of at least 1."""
    if isinstance(streams, bool) or not isinstance(streams, int) or streams < 1:
        raise ValueError(
            f"settings.bigbench_throughput.streams must be a whole number of at least 1, not {streams!r}"
        )
    return streams


def stream_seed(campaign: str, repetition: int, stream: int) -> int:
    """A stream's shuffle seed: the same campaign, run and stream always give the same order."""
    digest = hashlib.sha256(f"bigbench|{campaign}|{repetition}|{stream}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def stream_orders(
    campaign: str, repetition: int, streams: int, queries: Sequence[str] = QUERIES
) -> list[list[str]]:
    """The throughput test's streams, 1..S: each a seeded shuffle (a permutation) of the queries."""
    check_streams(streams)
    names = check_query_names(queries)
    orders = []
    for stream in range(1, streams + 1):
        order = list(names)
        random.Random(stream_seed(campaign, repetition, stream)).shuffle(order)
        orders.append(order)
    return orders


@dataclass
class QueryOutcome:
    """One query's run: its time (the server's own, plus the Spark step for ML queries)."""

    query: str
    status: Status
    seconds: float
    artifact: str
    stream: int | None = None  # None: the power test
    error: str = ""
    hive_s: float | None = None
    spark_s: float | None = None
    result_rows: int | None = None
    checked: str = ""  # how the result was checked (DuckDB fingerprint, non-empty, Spark result)


@dataclass
class PhaseOutcome:
    """A phase's wall time (load: T_load; throughput: T_throughput) and its status."""

    status: Status
    seconds: float
    artifact: str
    error: str = ""


@dataclass
class RunOutcomes:
    """Everything a run measured, as written to (and read from) `outcomes.json`."""

    load: PhaseOutcome
    power: list[QueryOutcome] = field(default_factory=list)
    throughput: PhaseOutcome | None = None
    streams: list[list[QueryOutcome]] = field(default_factory=list)
    queries: int = len(QUERIES)
    orders: list[list[str]] = field(default_factory=list)

    def invalid_reasons(self) -> list[str]:
        """Why the run cannot give a BBQpm (empty: it can)."""
        reasons = []
        if self.load.status != "ok":
            reasons.append(f"load failed: {self.load.error}".rstrip(": "))
        failed = [outcome.query for outcome in self.power if outcome.status != "ok"]
        if failed:
            reasons.append(f"power test: {', '.join(failed)} failed")
        if self.load.status == "ok" and len(self.power) != self.queries:
            reasons.append(f"power test has {len(self.power)} of {self.queries} queries")
        if self.load.status == "ok" and self.throughput is None:
            reasons.append("no throughput phase")
        for number, stream in enumerate(self.streams, start=1):
            failed = [outcome.query for outcome in stream if outcome.status != "ok"]
            reasons += [f"{query} failed in stream {number}" for query in failed]
            if len(stream) != self.queries:
                reasons.append(f"stream {number} has {len(stream)} of {self.queries} queries")
        return reasons

    def to_json(self) -> str:
        document = {"format": OUTCOMES_FORMAT, **asdict(self), "invalid_reasons": self.invalid_reasons()}
        return json.dumps(document, indent=1)


def read_outcomes(path: Path) -> RunOutcomes:
    """`outcomes.json` back into a RunOutcomes; OutcomesError naming the file when it is not one."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OutcomesError(f"{path}: missing or not JSON ({exc})") from exc
    if not isinstance(document, dict) or document.get("format") != OUTCOMES_FORMAT:
        raise OutcomesError(f"{path}: not a {OUTCOMES_FORMAT} file")
    try:
        throughput = document.get("throughput")
        return RunOutcomes(
            load=PhaseOutcome(**document["load"]),
            power=[_query(item) for item in document["power"]],
            throughput=PhaseOutcome(**throughput) if throughput else None,
            streams=[[_query(item) for item in stream] for stream in document["streams"]],
            queries=int(document["queries"]),
            orders=[list(order) for order in document.get("orders", [])],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise OutcomesError(f"{path}: malformed outcomes ({type(exc).__name__}: {exc})") from exc


def _query(item: dict[str, Any]) -> QueryOutcome:
    outcome = QueryOutcome(**item)
    check_query_names([outcome.query])
    if outcome.status not in ("ok", "failed"):
        raise ValueError(f"status {outcome.status!r} of {outcome.query}")
    return outcome


def bbqpm(outcomes: RunOutcomes, scale_factor_gb: float) -> float | None:
    """BBQpm@SF of a valid run, as the bigbench_qpm mart computes it from the records:
    SF · 60 · M / (0.1 · T_load + sqrt(T_PT · T_throughput / S)), T_PT = M × the geometric mean of
    the power test's query times. None for a run the mart gives no Qpm (invalid, or a time not
    above 0 s). A record of its own so that a claim can compare it across environments."""
    phases = [outcomes.load, outcomes.throughput, *outcomes.power, *(q for s in outcomes.streams for q in s)]
    if outcomes.invalid_reasons() or not outcomes.streams or outcomes.throughput is None:
        return None
    if any(phase is None or phase.status != "ok" or not phase.seconds > 0 for phase in phases):
        return None
    m, streams = outcomes.queries, len(outcomes.streams)
    t_pt = m * math.exp(sum(math.log(query.seconds) for query in outcomes.power) / len(outcomes.power))
    return (
        scale_factor_gb
        * 60
        * m
        / (0.1 * outcomes.load.seconds + math.sqrt(t_pt * outcomes.throughput.seconds / streams))
    )


@dataclass(frozen=True)
class RecordSpec:
    """One record to make: workload, extra params over the run's cell, metric, value, unit, status."""

    workload: str
    params: dict[str, str]
    metric: str
    value: float
    unit: str
    status: Status
    artifact: str


def record_specs(outcomes: RunOutcomes) -> list[RecordSpec]:
    """The records of a run, in order: load, power per query, throughput per stream and query,
    then the throughput phase's duration and counts (only when the phase ran)."""
    specs = [
        RecordSpec(LOAD, {}, "duration_s", outcomes.load.seconds, "s", outcomes.load.status,
                   outcomes.load.artifact)
    ]  # fmt: skip
    for outcome in outcomes.power:
        specs.append(
            RecordSpec(POWER, {"query": outcome.query}, "duration_s", outcome.seconds, "s", outcome.status,
                       outcome.artifact)
        )  # fmt: skip
    for number, stream in enumerate(outcomes.streams, start=1):
        for outcome in stream:
            specs.append(
                RecordSpec(THROUGHPUT, {"query": outcome.query, "stream": str(number)}, "duration_s",
                           outcome.seconds, "s", outcome.status, outcome.artifact)
            )  # fmt: skip
    if outcomes.throughput is not None:
        phase = {"query": ALL, "stream": ALL}
        artifact = outcomes.throughput.artifact
        specs += [
            RecordSpec(THROUGHPUT, phase, "duration_s", outcomes.throughput.seconds, "s",
                       outcomes.throughput.status, artifact),
            RecordSpec(THROUGHPUT, phase, "streams", float(len(outcomes.streams)), "count", "ok", artifact),
            RecordSpec(THROUGHPUT, phase, "queries", float(outcomes.queries), "count", "ok", artifact),
        ]  # fmt: skip
    return specs
