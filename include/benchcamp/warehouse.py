"""The DuckDB warehouse: raw tables the pipeline and `benchcamp import` load, idempotently.

Rows are keyed by (study, campaign, cell_key, repetition, metric): loading the same
records again replaces them, so a cleared and re-run task never duplicates a row.
DuckDB allows one writer process at a time; DAG tasks that write share a 1-slot pool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchcamp.paths import default_warehouse
from benchcamp.records import EnvironmentSnapshot, ResultRecord, ValidationFailure

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "LoadSummary",
    "connect",
    "default_warehouse",
    "ensure_schema",
    "load_environment",
    "load_records",
    "replace_validation_failures",
    "upsert_study_thresholds",
]

SCHEMA = """
create schema if not exists raw;
create table if not exists raw.results (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    workload varchar not null,
    cell_key varchar not null,
    params json not null,
    repetition integer not null,
    metric varchar not null,
    value double not null,
    unit varchar not null,
    status varchar not null,
    started_at timestamptz,
    finished_at timestamptz,
    artifact varchar,
    primary key (study, campaign, cell_key, repetition, metric)
);
create table if not exists raw.validation_failures (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    workload varchar not null,
    cell_key varchar not null,
    expectation varchar not null,
    details varchar not null,
    observed double,
    threshold double
);
create table if not exists raw.environments (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    host varchar not null,
    fingerprint varchar not null,
    facts json not null,
    captured_at timestamptz not null,
    primary key (study, campaign, environment, host)
);
create table if not exists raw.study_thresholds (
    study varchar primary key,
    max_stddev_pct double not null
);
"""
_COLUMNS = (
    "study",
    "campaign",
    "environment",
    "workload",
    "cell_key",
    "params",
    "repetition",
    "metric",
    "value",
    "unit",
    "status",
    "started_at",
    "finished_at",
    "artifact",
)


@dataclass(frozen=True)
class LoadSummary:
    inserted: int
    replaced: int

    def __str__(self) -> str:
        return f"{self.inserted} new, {self.replaced} replaced"


def connect(path: Path | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    import duckdb

    target = path or default_warehouse()
    if read_only:
        return duckdb.connect(str(target), read_only=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(target))
    ensure_schema(con)
    return con


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(SCHEMA)


def _cell_columns(records: list[ResultRecord]) -> tuple[list[str], list[str]]:
    """Cell keys and params JSON, computed once per distinct cell (records share cells)."""
    cache: dict[tuple[object, ...], tuple[str, str]] = {}
    keys: list[str] = []
    params: list[str] = []
    for record in records:
        signature = (record.workload, *sorted(record.params.items()))
        known = cache.get(signature)
        if known is None:
            known = cache[signature] = (record.cell_key, json.dumps(record.params, sort_keys=True))
        keys.append(known[0])
        params.append(known[1])
    return keys, params


def _records_frame(records: list[ResultRecord], keys: list[str], params: list[str]) -> object:
    import pandas as pd

    frame = pd.DataFrame(
        {
            "study": [r.study for r in records],
            "campaign": [r.campaign for r in records],
            "environment": [r.environment for r in records],
            "workload": [r.workload for r in records],
            "cell_key": keys,
            "params": params,
            "repetition": pd.array([r.repetition for r in records], dtype="int32"),
            "metric": [r.metric for r in records],
            "value": pd.array([r.value for r in records], dtype="float64"),
            "unit": [r.unit for r in records],
            "status": [r.status for r in records],
            "started_at": pd.to_datetime([r.started_at for r in records], utc=True),
            "finished_at": pd.to_datetime([r.finished_at for r in records], utc=True),
            "artifact": pd.array([r.artifact for r in records], dtype="string"),
        }
    )
    return frame


def load_records(path: Path | None, records: list[ResultRecord]) -> LoadSummary:
    """Upsert records by key in one transaction; the last record of a duplicated key wins."""
    if not records:
        return LoadSummary(0, 0)
    keys, params = _cell_columns(records)
    unique: dict[tuple[str, str, str, int, str], int] = {}
    for index, record in enumerate(records):
        unique[(record.study, record.campaign, keys[index], record.repetition, record.metric)] = index
    rows = sorted(unique.values())
    incoming = _records_frame([records[i] for i in rows], [keys[i] for i in rows], [params[i] for i in rows])  # noqa: F841  (read by DuckDB's replacement scan)
    with connect(path) as con:
        con.execute("begin transaction")
        try:
            con.execute("create temp table incoming as select * from incoming")
            (replaced,) = con.execute(
                """
                select count(*) from raw.results r join incoming i
                using (study, campaign, cell_key, repetition, metric)
                """
            ).fetchone() or (0,)
            con.execute(
                """
                delete from raw.results r using incoming i
                where r.study = i.study and r.campaign = i.campaign and r.cell_key = i.cell_key
                  and r.repetition = i.repetition and r.metric = i.metric
                """
            )
            con.execute(
                f"insert into raw.results ({', '.join(_COLUMNS)}) select {', '.join(_COLUMNS)} from incoming"
            )
            con.execute("drop table incoming")
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise
    return LoadSummary(inserted=len(unique) - int(replaced), replaced=int(replaced))


def replace_validation_failures(
    path: Path | None, study: str, campaign: str, failures: list[ValidationFailure]
) -> None:
    """The campaign's failures are exactly the latest validation's (re-validation replaces them)."""
    with connect(path) as con:
        con.execute("begin transaction")
        con.execute("delete from raw.validation_failures where study = ? and campaign = ?", [study, campaign])
        if failures:
            con.executemany(
                "insert into raw.validation_failures values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [
                        f.study,
                        f.campaign,
                        f.environment,
                        f.workload,
                        f.cell_key,
                        f.expectation,
                        f.details,
                        f.observed,
                        f.threshold,
                    ]
                    for f in failures
                ],
            )
        con.execute("commit")


def load_environment(path: Path | None, snapshot: EnvironmentSnapshot) -> None:
    with connect(path) as con:
        con.execute(
            "insert or replace into raw.environments values (?, ?, ?, ?, ?, ?, ?)",
            [
                snapshot.study,
                snapshot.campaign,
                snapshot.environment,
                snapshot.host,
                snapshot.fingerprint,
                json.dumps(snapshot.facts, sort_keys=True),
                snapshot.captured_at,
            ],
        )


def upsert_study_thresholds(path: Path | None, study: str, max_stddev_pct: float) -> None:
    with connect(path) as con:
        con.execute("insert or replace into raw.study_thresholds values (?, ?)", [study, max_stddev_pct])
