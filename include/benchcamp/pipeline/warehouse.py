# Over 600 lines: every raw table's schema beside its one idempotent writer, which the pipeline
# and `benchcamp import` share; the hardware comparison lives in pipeline/hardware_changes.py.
"""The DuckDB warehouse: the raw tables that the pipeline and `benchcamp import` load, idempotently.

Result rows are keyed by (study, campaign, environment, cell_key, repetition, metric).
Loading the same records again replaces them, so a re-run task never duplicates a row.
DuckDB allows one writer process at a time, so every function here opens the file,
writes in one transaction and closes it. DAG tasks that write share a 1-slot pool.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from benchcamp.core.paths import default_warehouse
from benchcamp.core.records import RECORD_FIELDS, EnvironmentSnapshot, ResultRecord, ValidationFailure
from benchcamp.pipeline.noise_floor import BELOW_RESOLUTION_COLUMNS
from benchcamp.pipeline.run_facts import RUN_FACTS_SCHEMA

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from benchcamp.core.claims import Claim
    from benchcamp.core.spec import Axis, History

__all__ = [
    "DEFAULT_MAX_STDDEV_PCT",
    "RESULT_KEY",
    "WAIT_ENV",
    "LoadSummary",
    "WarehouseBusy",
    "connect",
    "wait_for_warehouse",
    "default_warehouse",
    "ensure_schema",
    "load_environment",
    "load_records",
    "record_campaign_run",
    "replace_validation_failures",
    "replace_below_resolution",
    "upsert_study_claims",
    "write_study_claims",
    "replace_adaptive_stops",
    "replace_repetition_load",
    "replace_run_order",
    "upsert_study_thresholds",
    "upsert_study_history",
    "write_study_history",
    "upsert_axis_comparisons",
    "write_axis_comparisons",
]

DEFAULT_MAX_STDDEV_PCT = 10.0  # the marts' fallback when a study has no row in raw.study_thresholds

# Environment is part of the key: the same cell measured on two targets under one campaign
# name (e.g. an import of bare-metal and container runs) must never overwrite each other.
RESULT_KEY = ("study", "campaign", "environment", "cell_key", "repetition", "metric")

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
    primary key (study, campaign, environment, cell_key, repetition, metric)
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
create table if not exists raw.study_history_metrics (
    study varchar not null,
    metric varchar not null,
    better varchar not null,
    regression_pct double not null,
    min_magnitude_pct double not null,
    max_pvalue double not null,
    window_campaigns bigint not null,
    primary key (study, metric)
);
create table if not exists raw.axis_comparisons (
    study varchar not null,
    axis varchar not null,
    value varchar not null,
    against varchar not null,
    primary key (study, axis, value, against)
);
create table if not exists raw.regression_alerts (
    study varchar not null,
    environment varchar not null,
    hardware_epoch bigint not null,
    cell_key varchar not null,
    metric varchar not null,
    campaign_after varchar not null,
    alerted_by varchar not null,
    alerted_at timestamptz not null,
    primary key (study, environment, hardware_epoch, cell_key, metric, campaign_after)
);
create table if not exists raw.campaign_runs (
    study varchar not null,
    campaign varchar not null,
    run_id varchar not null,
    run_type varchar not null,
    logical_date timestamptz,
    recorded_at timestamptz not null,
    settings varchar,
    primary key (study, campaign)
);
create table if not exists raw.hardware_changes (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    previous_study varchar not null,
    previous_campaign varchar not null,
    previous_fingerprint varchar not null,
    fingerprint varchar not null,
    changed_facts json not null,
    detected_at timestamptz not null,
    primary key (study, campaign, environment)
);
"""

# The record's fields, with the derived cell key stored next to the workload.
RESULT_COLUMNS = tuple(
    column for field in RECORD_FIELDS for column in ((field, "cell_key") if field == "workload" else (field,))
)
FAILURE_COLUMNS = tuple(ValidationFailure.model_fields)


@dataclass(frozen=True)
class LoadSummary:
    """What a load did: keys seen for the first time, keys whose row was replaced, rows removed."""

    inserted: int
    replaced: int
    removed: int = 0  # rows of the campaign the load did not name (replace_campaign only)

    def __str__(self) -> str:
        removed = f", {self.removed} left over from an earlier attempt removed" if self.removed else ""
        return f"{self.inserted} new, {self.replaced} replaced{removed}"


# How long a writer waits for another process to let go of the warehouse file (seconds).
WAIT_ENV = "BENCHCAMP_WAREHOUSE_WAIT_S"
DEFAULT_WAIT_S = 300.0
_HOLDER_PID = re.compile(r"\(PID (\d+)\)")
T = TypeVar("T")


class WarehouseBusy(RuntimeError):
    """Another process held the warehouse file for the whole wait; the message names it."""

    def __init__(self, path: Path, holder: str, waited_s: float) -> None:
        super().__init__(f"warehouse {path} is held by {holder}; gave up after waiting {waited_s:g} s")
        self.path = path
        self.holder = holder


def _lock_conflict(exc: BaseException) -> bool:
    """DuckDB's error for a file another process has open (one writer per file)."""
    import duckdb

    return isinstance(exc, duckdb.IOException) and "Could not set lock on file" in str(exc)


def _holder(exc: BaseException) -> str:
    """`PID <pid> (<command line>)` of the process DuckDB names in its lock error, as far as known."""
    found = _HOLDER_PID.search(str(exc))
    if found is None:
        return "another process"
    pid = found.group(1)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = " ".join(part.decode(errors="replace") for part in handle.read().split(b"\0") if part)
    except OSError:
        return f"PID {pid}"
    command = " ".join(command.split())  # one line, however the holder was started
    if len(command) > 200:
        command = command[:199] + "…"
    return f"PID {pid} ({command})" if command else f"PID {pid}"


def wait_s() -> float:
    """BENCHCAMP_WAREHOUSE_WAIT_S, else DEFAULT_WAIT_S."""
    return float(os.environ.get(WAIT_ENV) or DEFAULT_WAIT_S)


def wait_for_warehouse(open_: Callable[[], T], path: Path) -> T:
    """`open_()` (a connect or an attach of `path`), retried while another process holds the file,
    for up to BENCHCAMP_WAREHOUSE_WAIT_S s; says once on stderr who holds it, then raises
    WarehouseBusy naming the holder. A writer that failed at once lost a whole campaign's load."""
    from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_delay, wait_exponential

    limit = wait_s()
    told = False

    def tell(state: RetryCallState) -> None:
        nonlocal told
        if not told and state.outcome is not None:
            told = True
            holder = _holder(state.outcome.exception() or RuntimeError())
            print(
                f"warehouse {path} is held by {holder}; waiting up to {limit:g} s",
                file=sys.stderr,
                flush=True,
            )

    try:
        return Retrying(
            retry=retry_if_exception(_lock_conflict),
            stop=stop_after_delay(limit),
            wait=wait_exponential(multiplier=0.1, max=2.0),
            before_sleep=tell,
            reraise=True,
        )(open_)
    except Exception as exc:
        if _lock_conflict(exc):
            raise WarehouseBusy(path, _holder(exc), limit) from None
        raise


@contextmanager
def staged_warehouse(path: Path) -> Iterator[Path]:
    """A private copy of the warehouse at `path` to load and build in: it replaces `path` when the
    block ends without error and is deleted otherwise, so a failed import leaves the warehouse as
    it was (its records, marts and build record; no file where there was none).

    `path` stays open the whole time, so other writers wait for it as for any load, and none can
    write there between the copy and the replace. The copy is taken after a checkpoint (nothing
    left in the write-ahead log) and has the warehouse's file name, which dbt's relations carry.
    """
    import duckdb

    target = path.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    existed = target.exists()
    holder = wait_for_warehouse(lambda: duckdb.connect(str(target)), target)
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.import-", dir=target.parent))
    staged = folder / target.name
    replaced = False
    try:
        if existed:
            holder.execute("checkpoint")
            shutil.copyfile(target, staged)
        yield staged
        wal = staged.with_name(staged.name + ".wal")
        if wal.exists():  # a connection left open in this process would keep it: fold it in
            with duckdb.connect(str(staged)) as con:
                con.execute("checkpoint")
        os.replace(staged, target)
        replaced = True
    finally:
        # closed only after the replace: no other writer reaches the file in between
        holder.close()
        shutil.rmtree(folder, ignore_errors=True)
        if not existed and not replaced:
            target.unlink(missing_ok=True)
            target.with_name(target.name + ".wal").unlink(missing_ok=True)


def connect(path: Path | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse (default: `default_warehouse()`); a writable one gets its folder and schema.

    A writable one waits, bounded, while another process holds the file (`wait_for_warehouse`)."""
    import duckdb

    target = path or default_warehouse()
    if read_only:
        return duckdb.connect(str(target), read_only=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    con = wait_for_warehouse(lambda: duckdb.connect(str(target)), target)
    try:
        ensure_schema(con)
    except Exception:
        con.close()
        raise
    return con


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the `raw` schema and its tables if missing (never alters existing ones, but for
    `_drop_history_metrics_with_alpha` and columns added since: `campaign_runs.settings`,
    `builds.project_digest` and `builds.selection`)."""
    _drop_history_metrics_with_alpha(con)
    con.execute(SCHEMA)
    con.execute("alter table raw.campaign_runs add column if not exists settings varchar")
    con.execute(CLAIMS_SCHEMA)
    con.execute(ADAPTIVE_STOPS_SCHEMA)
    con.execute(RUN_ORDER_SCHEMA)
    con.execute(REPETITION_LOAD_SCHEMA)
    con.execute(BELOW_RESOLUTION_SCHEMA)
    con.execute(RUN_FACTS_SCHEMA)
    con.execute(BUILDS_SCHEMA)
    con.execute("alter table raw.builds add column if not exists project_digest varchar")
    con.execute("alter table raw.builds add column if not exists selection varchar")


def _drop_history_metrics_with_alpha(con: duckdb.DuckDBPyConnection) -> None:
    """A warehouse from before issue 28 has `alpha` (Benjamini–Hochberg) where the table now has
    Otava's settings: its rows are copies of the specs, rewritten by every load and import, so
    the table is dropped and created anew (empty until then: no change points meanwhile)."""
    found = con.execute(
        "select count(*) from information_schema.columns where table_schema = 'raw' "
        "and table_name = 'study_history_metrics' and column_name = 'alpha'"
    ).fetchone()
    if found and found[0]:
        con.execute("drop table raw.study_history_metrics")


# Each dbt build's outcome (`transform.build_marts`, the DAG's dbt_build task), so that a report
# can say its figures are from an older build, and why the last one failed.
BUILDS_SCHEMA = """
create table if not exists raw.builds (
    started_at timestamptz not null,
    finished_at timestamptz not null,
    ok boolean not null,
    origin varchar not null,
    campaigns json not null,
    failed_nodes json not null,
    project_digest varchar,  -- the build's state: the project and its models' imports (transform.build_digests)
    selection varchar         -- the build's --select; null: the whole project
);
"""
KEPT_BUILDS = 200  # the newest builds kept in raw.builds; older ones say nothing a report needs


def record_build(
    path: Path,
    started_at: datetime,
    ok: bool,
    origin: str,
    campaigns: list[str],
    failed_nodes: list[str],
    project_digest: str | None = None,
    selection: str | None = None,
) -> None:
    """Append one build's outcome to raw.builds (and drop all but the newest KEPT_BUILDS): the
    project's digest and the build's dbt selection (None: everything) say what it brought up to date."""
    with connect(path) as con:
        con.execute(
            "insert into raw.builds (started_at, finished_at, ok, origin, campaigns, failed_nodes, "
            "project_digest, selection) values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                started_at, datetime.now(UTC), ok, origin, json.dumps(campaigns), json.dumps(failed_nodes),
                project_digest, selection,
            ],
        )  # fmt: skip
        con.execute(
            "delete from raw.builds where finished_at < "
            f"(select min(finished_at) from (select finished_at from raw.builds order by finished_at desc limit {KEPT_BUILDS}))"
        )


# Each repetition's planned place in its target's run order (pipeline.run_order), beside the
# result records (whose contract it leaves alone); the actual order is their started_at.
RUN_ORDER_SCHEMA = """
create table if not exists raw.run_order (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    workload varchar not null,
    cell_key varchar not null,
    repetition integer not null,
    planned_position integer not null,
    "order" varchar not null,
    seed bigint not null,
    primary key (study, campaign, environment, cell_key, repetition)
);
"""
RUN_ORDER_COLUMNS = (
    "study", "campaign", "environment", "workload", "cell_key", "repetition", "planned_position", "order", "seed",
)  # fmt: skip


def replace_run_order(path: Path | None, study: str, campaign: str, rows: list[dict[str, object]]) -> None:
    """Make the campaign's stored run order exactly `rows` (a re-load replaces, never appends)."""
    _replace_campaign_dicts(path, "raw.run_order", study, campaign, RUN_ORDER_COLUMNS, rows, "run order")


# The target's 1-minute load average right before and right after each measured repetition's
# timed step, and its online CPUs (pipeline.host_load; the execute step's load.txt).
REPETITION_LOAD_SCHEMA = """
create table if not exists raw.repetition_load (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    cell_key varchar not null,
    repetition integer not null,
    cores integer,
    load1_before double,
    load1_after double,
    primary key (study, campaign, environment, cell_key, repetition)
);
"""
REPETITION_LOAD_COLUMNS = (
    "study", "campaign", "environment", "cell_key", "repetition", "cores", "load1_before", "load1_after",
)  # fmt: skip


def replace_repetition_load(
    path: Path | None, study: str, campaign: str, rows: list[dict[str, object]]
) -> None:
    """Make the campaign's stored load readings exactly `rows` (a re-load replaces, never appends)."""
    _replace_campaign_dicts(
        path, "raw.repetition_load", study, campaign, REPETITION_LOAD_COLUMNS, rows, "load readings"
    )


# The cells whose mean was below their target's resolution (pipeline.noise_floor): their σ% was
# reported, not judged; the marts mark them.
BELOW_RESOLUTION_SCHEMA = """
create table if not exists raw.cells_below_resolution (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    workload varchar not null,
    cell_key varchar not null,
    mean_s double,
    stddev_pct double,
    n integer,
    resolution_s double not null,
    floor_stddev_s double,
    floor_mean_s double,
    floor_runs integer,
    floor_probe varchar,
    primary key (study, campaign, environment, cell_key)
);
"""


def replace_below_resolution(
    path: Path | None, study: str, campaign: str, rows: list[dict[str, object]]
) -> None:
    """Make the campaign's stored below-resolution cells exactly `rows` (a re-load replaces)."""
    _replace_campaign_dicts(
        path, "raw.cells_below_resolution", study, campaign, BELOW_RESOLUTION_COLUMNS, rows,
        "below-resolution cells",
    )  # fmt: skip


def _replace_campaign_dicts(
    path: Path | None,
    table: str,
    study: str,
    campaign: str,
    columns: tuple[str, ...],
    rows: list[dict[str, object]],
    what: str,
) -> None:
    """`_replace_campaign_rows` from rows as dicts, refusing a row of another campaign (named as
    `what` of study/campaign) before anything is deleted."""
    strangers = [row for row in rows if (row["study"], row["campaign"]) != (study, campaign)]
    if strangers:
        raise ValueError(
            f"{what} of {strangers[0]['study']}/{strangers[0]['campaign']} passed for {study}/{campaign}"
        )
    _replace_campaign_rows(
        path, table, study, campaign, columns, [[row[name] for name in columns] for row in rows]
    )


def _replace_campaign_rows(
    path: Path | None,
    table: str,
    study: str,
    campaign: str,
    columns: tuple[str, ...],
    rows: list[list[Any]],
) -> None:
    """Make one campaign's rows of a `raw` table exactly `rows` (values in `columns` order), in one
    transaction: a re-load or re-validation replaces them, never appends, and a failure leaves the
    old rows. `table` and `columns` are the module's own names, never a user's."""
    names = ", ".join(f'"{name}"' for name in columns)
    placeholders = ", ".join("?" for _ in columns)
    with connect(path) as con:
        con.execute("begin transaction")
        try:
            con.execute(f"delete from {table} where study = ? and campaign = ?", [study, campaign])
            if rows:
                con.executemany(f"insert into {table} ({names}) values ({placeholders})", rows)
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise


def _results_frame(records: list[ResultRecord]) -> pd.DataFrame:
    """Records as one column-oriented frame; cell keys and params JSON computed once per cell."""
    import pandas as pd

    per_cell: dict[tuple[str, str], tuple[str, str]] = {}
    keys: list[str] = []
    params: list[str] = []
    for record in records:
        # repr, not the dict's items: True == 1 and 4 == 4.0, but they are different params.
        signature = (record.workload, repr(record.params))
        cell = per_cell.get(signature)
        if cell is None:
            cell = per_cell[signature] = (record.cell_key, json.dumps(record.params, sort_keys=True))
        keys.append(cell[0])
        params.append(cell[1])
    return pd.DataFrame(
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


def _repeat_conflict(repeated: pd.DataFrame) -> str | None:
    """For rows whose keys repeat: the first key given two different records, named with its first
    differing column, or None when every repeat is identical (and one of them may be loaded)."""
    import pandas as pd

    keys = list(RESULT_KEY)
    variants = repeated.drop_duplicates()
    conflicting = variants[variants.duplicated(subset=keys, keep=False)]
    if conflicting.empty:
        return None
    first = conflicting.iloc[0]
    same_key = conflicting[(conflicting[keys] == first[keys]).all(axis=1)]
    one, other = (int(index) for index in same_key.index[:2])

    def shown(index: int, column: str) -> object:
        value = repeated.at[index, column]
        return None if pd.isna(value) else value

    column = next(name for name in repeated.columns if shown(one, name) != shown(other, name))
    key = ", ".join(f"{name} {first[name]}" for name in keys)
    return (
        f"records {one + 1} and {other + 1} of the load have the same key ({key}) and a different "
        f"{column}: {shown(one, column)} and {shown(other, column)}; the warehouse keeps one record per key"
    )


def load_records(
    path: Path | None, records: list[ResultRecord], replace_campaign: tuple[str, str] | None = None
) -> LoadSummary:
    """Replace-or-insert result rows by key in one transaction.

    As `benchcamp import`: a key repeated in `records` is loaded once when every value is the
    same, and is a ValueError (nothing loaded) when not, since which one the marts should use
    is unknown. The records go in as one pandas frame, never row by row: a million records
    load in seconds.

    `replace_campaign` (study, campaign), the DAG's load: `records` are that campaign's whole
    archive, so its rows become exactly these, and rows of it they do not name (an earlier
    attempt's warm-ups or extra repetitions) are deleted in the same transaction. An import
    keeps replace-by-key: its file may hold only part of a campaign (some cells re-measured,
    records appended later), so rows it does not name are not known to be leftovers.
    """
    if replace_campaign is not None:
        strangers = [r for r in records if (r.study, r.campaign) != replace_campaign]
        if strangers:
            raise ValueError(
                f"record of {strangers[0].study}/{strangers[0].campaign} passed to replace "
                f"{replace_campaign[0]}/{replace_campaign[1]}"
            )
        if not records:
            return LoadSummary(0, 0, _delete_campaign_results(path, *replace_campaign))
    if not records:
        return LoadSummary(0, 0)
    frame = _results_frame(records)
    repeated = frame.duplicated(subset=list(RESULT_KEY), keep=False)
    if repeated.any():
        conflict = _repeat_conflict(frame[repeated])
        if conflict:
            raise ValueError(conflict)
        frame = frame.drop_duplicates(subset=list(RESULT_KEY), keep="first")
    key_match = " and ".join(f"r.{name} = i.{name}" for name in RESULT_KEY)
    columns = ", ".join(RESULT_COLUMNS)
    with connect(path) as con:
        con.register("incoming_frame", frame)
        con.execute("begin transaction")
        try:
            con.execute(f"create temp table incoming as select {columns} from incoming_frame")
            row = con.execute(
                f"select count(*) from raw.results r semi join incoming i on {key_match}"
            ).fetchone()
            replaced = int(row[0]) if row else 0
            # The primary key is the row key, so this is delete + insert of the matching rows in one
            # statement; DuckDB runs it ~8x faster than an explicit delete (1.3 s vs 11 s for 1M rows).
            con.execute(f"insert or replace into raw.results ({columns}) select {columns} from incoming")
            removed = 0
            if replace_campaign is not None:
                gone = con.execute(
                    f"""
                    delete from raw.results r where r.study = ? and r.campaign = ?
                    and not exists (select 1 from incoming i where {key_match})
                    returning 1
                    """,
                    list(replace_campaign),
                ).fetchall()
                removed = len(gone)
            con.execute("drop table incoming")
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise
        finally:
            con.unregister("incoming_frame")
    return LoadSummary(inserted=len(frame) - replaced, replaced=replaced, removed=removed)


def _delete_campaign_results(path: Path | None, study: str, campaign: str) -> int:
    """Delete a campaign's result rows (its archive has none now); how many there were."""
    with connect(path) as con:
        return len(
            con.execute(
                "delete from raw.results where study = ? and campaign = ? returning 1", [study, campaign]
            ).fetchall()
        )


def replace_validation_failures(
    path: Path | None, study: str, campaign: str, failures: list[ValidationFailure]
) -> None:
    """Make the campaign's stored failures exactly `failures`: re-validation replaces, never appends."""
    strangers = [f for f in failures if (f.study, f.campaign) != (study, campaign)]
    if strangers:
        first = strangers[0]
        raise ValueError(
            f"failure for {first.study}/{first.campaign} passed to replace {study}/{campaign}'s failures"
        )
    rows = [[getattr(failure, name) for name in FAILURE_COLUMNS] for failure in failures]
    _replace_campaign_rows(path, "raw.validation_failures", study, campaign, FAILURE_COLUMNS, rows)


def load_environment(path: Path | None, snapshot: EnvironmentSnapshot) -> None:
    """Store one host's facts for a campaign; a later capture of the same host replaces it."""
    with connect(path) as con:
        con.execute(
            """
            insert or replace into raw.environments
                (study, campaign, environment, host, fingerprint, facts, captured_at)
            values (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                snapshot.study,
                snapshot.campaign,
                snapshot.environment,
                snapshot.host,
                snapshot.fingerprint,
                json.dumps(snapshot.facts, sort_keys=True, default=str),
                snapshot.captured_at,
            ],
        )


def upsert_study_thresholds(path: Path | None, study: str, max_stddev_pct: float) -> None:
    """Record the spec's σ% gate, which the `scaling` mart's `within_threshold` compares against."""
    with connect(path) as con:
        write_study_threshold(con, study, max_stddev_pct)


def write_study_threshold(con: duckdb.DuckDBPyConnection, study: str, max_stddev_pct: float) -> None:
    """`upsert_study_thresholds` on an open connection (e.g. inside the caller's transaction)."""
    if not max_stddev_pct > 0:
        raise ValueError(f"max_stddev_pct must be greater than 0, got {max_stddev_pct}")
    con.execute(
        "insert or replace into raw.study_thresholds (study, max_stddev_pct) values (?, ?)",
        [study, float(max_stddev_pct)],
    )


def upsert_study_history(path: Path | None, study: str, history: History | None) -> None:
    """Record the spec's `history:` section, which the `change_points` mart reads."""
    with connect(path) as con:
        write_study_history(con, study, history)


def write_study_history(con: duckdb.DuckDBPyConnection, study: str, history: History | None) -> None:
    """`upsert_study_history` on an open connection: the study's rows become exactly its spec's
    tracked metrics (none without a `history:` section), so a metric dropped from the spec stops
    getting change points."""
    con.execute("delete from raw.study_history_metrics where study = ?", [study])
    if history is None:
        return
    con.executemany(
        "insert into raw.study_history_metrics (study, metric, better, regression_pct, min_magnitude_pct, "
        "max_pvalue, window_campaigns) values (?, ?, ?, ?, ?, ?, ?)",
        [
            [
                study,
                metric,
                history.better(metric),
                float(history.regression_pct),
                float(settings.min_magnitude_pct),
                float(settings.max_pvalue),
                settings.window,
            ]
            for metric in history.metrics
            for settings in [history.change_points]
        ],
    )


def upsert_axis_comparisons(path: Path | None, study: str, axes: Mapping[str, Axis]) -> None:
    """Record the spec's axis `comparisons`, which a study's marts read (which value against which)."""
    with connect(path) as con:
        write_axis_comparisons(con, study, axes)


def write_axis_comparisons(con: duckdb.DuckDBPyConnection, study: str, axes: Mapping[str, Axis]) -> None:
    """`upsert_axis_comparisons` on an open connection: the study's rows become exactly its spec's
    comparisons, so one dropped from the spec stops being computed."""
    con.execute("delete from raw.axis_comparisons where study = ?", [study])
    rows = [
        [study, name, str(item.value), str(item.against)]
        for name, axis in axes.items()
        for item in axis.comparisons
    ]
    if rows:
        con.executemany(
            "insert into raw.axis_comparisons (study, axis, value, against) values (?, ?, ?, ?)", rows
        )


def record_campaign_run(
    path: Path | None,
    study: str,
    campaign: str,
    run_id: str,
    run_type: str,
    logical_date: datetime | None,
    settings: str | None = None,
) -> None:
    """Remember which Airflow run made a campaign (backfills are told from originals by logical
    date) and the settings it ran with (`settings`: JSON of the resolved campaign settings)."""
    with connect(path) as con:
        con.execute(
            """
            insert or replace into raw.campaign_runs
                (study, campaign, run_id, run_type, logical_date, recorded_at, settings)
            values (?, ?, ?, ?, ?, ?, ?)
            """,
            [study, campaign, run_id, run_type, logical_date, datetime.now(UTC), settings],
        )


# Why each cell of a campaign with adaptive repetitions stopped (pipeline.adaptive), beside the
# result records (whose contract it leaves alone): the 95 % CI the last decision saw, and the reason.
ADAPTIVE_STOPS_SCHEMA = """
create table if not exists raw.adaptive_stops (
    study varchar not null,
    campaign varchar not null,
    environment varchar not null,
    workload varchar not null,
    cell_key varchar not null,
    metric varchar not null,
    repetitions integer not null,
    ok_n integer not null,
    failed_n integer not null,
    mean double,
    stddev double,
    half_width double,
    half_width_pct double,
    target_ci_pct double not null,
    max_repetitions integer not null,
    confidence double not null,
    reason varchar not null,
    decided_round integer not null,
    primary key (study, campaign, environment, cell_key)
);
"""
ADAPTIVE_STOP_COLUMNS = (
    "environment", "workload", "cell_key", "metric", "repetitions", "ok_n", "failed_n", "mean", "stddev",
    "half_width", "half_width_pct", "target_ci_pct", "max_repetitions", "confidence", "reason",
)  # fmt: skip


def replace_adaptive_stops(path: Path | None, study: str, campaign: str, stops: list[dict[str, Any]]) -> None:
    """Make the campaign's stored stops exactly `stops` (`adaptive.stops`): a re-load replaces them."""
    rows = [
        [study, campaign, *(stop[name] for name in ADAPTIVE_STOP_COLUMNS), stop["round"]] for stop in stops
    ]
    columns = ("study", "campaign", *ADAPTIVE_STOP_COLUMNS, "decided_round")
    _replace_campaign_rows(path, "raw.adaptive_stops", study, campaign, columns, rows)


# Each study's published claims (its claims.yaml, `core.claims`), which the `scorecard` mart
# scores every campaign against: written with the thresholds, when a campaign is loaded or imported.
CLAIMS_SCHEMA = """
create table if not exists raw.study_claims (
    study varchar not null,
    claim_id varchar not null,
    position integer not null,
    paper varchar not null,
    kind varchar not null,
    metric varchar not null,
    expect varchar not null,
    tolerance_pct double,
    definition json not null,
    primary key (study, claim_id)
);
"""


def upsert_study_claims(path: Path | None, study: str, claims: list[Claim]) -> None:
    """Record the study's claims (`core.claims.load_claims`): its rows become exactly these."""
    with connect(path) as con:
        write_study_claims(con, study, claims)


def write_study_claims(con: duckdb.DuckDBPyConnection, study: str, claims: list[Claim]) -> None:
    """`upsert_study_claims` on an open connection (e.g. inside the import's transaction)."""
    con.execute("delete from raw.study_claims where study = ?", [study])
    if claims:
        con.executemany(
            "insert into raw.study_claims values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                [study, claim.id, position, claim.paper, claim.kind, claim.metric, claim.expect,
                 claim.tolerance_pct, claim.model_dump_json()]
                for position, claim in enumerate(claims, start=1)
            ],
        )  # fmt: skip
