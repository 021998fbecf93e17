"""What a native file printed about a run beside the figures the study knows: the run's facts.

A hibench.report of a HiBench version (or a user's script) that adds a column carries a value per
run that no metric of ours names. Refusing the file loses every run for one column; dropping the
column loses what the user had. It is kept instead, as printed, in `raw.run_facts`, keyed by the
repetition the run became, beside the run's file:line (`source`): a string, since a fact may be a
number, a host name or a flag, and the project does not guess its unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

RUN_FACTS_SCHEMA = """
create table if not exists raw.run_facts (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    workload varchar not null,
    cell_key varchar not null,
    repetition integer not null,
    name varchar not null,
    value varchar not null,
    source varchar not null,
    primary key (study, campaign, environment, cell_key, repetition, name)
);
"""
RUN_FACT_COLUMNS = (
    "study",
    "campaign",
    "environment",
    "workload",
    "cell_key",
    "repetition",
    "name",
    "value",
    "source",
)


@dataclass(frozen=True)
class RunFact:
    """One value a native file printed for one repetition, under the column name it printed."""

    study: str
    campaign: str
    environment: str
    workload: str
    cell_key: str
    repetition: int
    name: str
    value: str
    source: str  # file:line of the run


def write_run_facts(
    con: duckdb.DuckDBPyConnection, facts: list[RunFact], repetitions: set[tuple[str, str, str, str, int]]
) -> None:
    """Make the facts of the imported `repetitions` (study, campaign, environment, cell_key,
    repetition) exactly `facts`: a re-import of a run replaces its facts, including a run that
    prints fewer columns now, and a fact is never loaded twice."""
    con.execute(RUN_FACTS_SCHEMA)
    if repetitions:
        keys = "(study, campaign, environment, cell_key, repetition)"
        con.execute(
            f"create temp table imported {keys} as select * from (values "
            + ", ".join("(?, ?, ?, ?, ?)" for _ in repetitions)
            + ")",
            [value for key in sorted(repetitions) for value in key],
        )
        con.execute(f"delete from raw.run_facts where {keys} in (select {keys} from imported)")
        con.execute("drop table imported")
    if facts:
        columns = ", ".join(RUN_FACT_COLUMNS)
        marks = ", ".join("?" for _ in RUN_FACT_COLUMNS)
        con.executemany(
            f"insert into raw.run_facts ({columns}) values ({marks})",
            [[getattr(fact, name) for name in RUN_FACT_COLUMNS] for fact in facts],
        )
