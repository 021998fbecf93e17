"""bigbench_containers' shared test data: synthetic lab records (the analysis's and the study
contract's), the ML queries' recorded results, review texts the generator never writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchcamp.core.records import ResultRecord
from benchcamp.studies.bigbench_containers import ml

STUDY = "bigbench_containers"
M, S = 30, 2
QUERIES = [f"q{i:02d}" for i in range(1, M + 1)]
LAB = {"cluster_nodes": 1, "scale_factor_gb": 0.01}
START = datetime(2026, 11, 25, 8, tzinfo=UTC)


# lab runs: (load, power scale, throughput) per environment and repetition
LAB_RUNS = {
    ("local_lab", 1): (100.0, 1.0, 400.0),
    ("local_lab", 2): (110.0, 1.0, 420.0),
    ("local_lab", 3): (120.0, 1.1, 380.0),
    ("lab_container", 1): (90.0, 1.2, 440.0),
    ("lab_container", 2): (95.0, 1.0, 400.0),
    ("lab_container", 3): (80.0, 1.0, 300.0),
}


def power_time(query: str, scale: float) -> float:
    return scale * (5.0 + int(query[1:]))


def record(
    campaign: str, environment: str, workload: str, params: dict[str, Any], repetition: int,
    metric: str, value: float, unit: str = "s", status: str = "ok", offset_s: float = 0,
) -> dict[str, Any]:  # fmt: skip
    at = START + timedelta(seconds=offset_s)
    return ResultRecord(
        study=STUDY, campaign=campaign, environment=environment, workload=workload, params=params,
        repetition=repetition, metric=metric, value=value, unit=unit, status=status,  # type: ignore[arg-type]
        started_at=at, finished_at=at + timedelta(seconds=1),
    ).to_json_dict()  # fmt: skip


def lab_records(campaign: str = "lab1") -> list[dict[str, Any]]:
    """Three runs on each lab environment; local_lab's run 2 lacks q30 in its power test and
    has q07 failed in stream 2 (its time kept, status failed)."""
    out = []
    for (env, rep), (load, scale, throughput) in LAB_RUNS.items():

        def add(
            workload: str, params: dict[str, Any], metric: str, value: float,
            env: str = env, rep: int = rep, **kw: Any,
        ) -> None:  # fmt: skip
            out.append(
                record(campaign, env, workload, {**LAB, **params}, rep, metric, value, offset_s=rep, **kw)
            )

        broken = (env, rep) == ("local_lab", 2)
        add("bigbench_load", {}, "duration_s", load)
        for query in QUERIES:
            if not (broken and query == "q30"):
                add("bigbench_power", {"query": query}, "duration_s", power_time(query, scale))
        add("bigbench_throughput", {"query": "all", "stream": "all"}, "duration_s", throughput)
        add("bigbench_throughput", {"query": "all", "stream": "all"}, "streams", S, unit="count")
        add("bigbench_throughput", {"query": "all", "stream": "all"}, "queries", M, unit="count")
        for stream in range(1, S + 1):
            for query in QUERIES:
                failed = broken and stream == 2 and query == "q07"
                add("bigbench_throughput", {"query": query, "stream": str(stream)}, "duration_s",
                    12.0, status="failed" if failed else "ok")  # fmt: skip
    return out


RECORDED = Path(ml.__file__).with_name("recorded") / "ml"


# Text the generator never writes: negations, contractions, clause breaks, case, punctuation runs.
TRICKY_REVIEWS = [
    "It isn't great, but it is sturdy. Not flimsy at all! I would never call it awful.",
    "AWFUL. Simply awful?! The lid is not very reliable; the handle is excellent.",
    "Granite bay's price beats IRONLEAF. I can't say it is perfect: it's cheap and broken.",
    "Dunmore Goods sells 2 similar kits. Ironleafy is no brand. Nothing is superb here.",
]
