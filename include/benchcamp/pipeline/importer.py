# Over 600 lines: one bulk path (read, check in SQL, trace, load staged) whose checks must stay
# equivalent to the per-record readers line for line; split, that equivalence is harder to read.
"""`benchcamp import` in bulk: a file of result records read, checked and loaded by DuckDB.

A million records as pydantic objects cost minutes; here the file goes straight into an
in-memory DuckDB table and every check runs vectorised. Equivalence with the per-record
readers of `benchcamp.core.records` is kept by one rule: a line is taken by SQL only when it is
in the plain form the SQL checks fully cover (a JSON object with exactly the record's
fields, strings without escapes, a whole repetition, a finite value, ISO timestamps with
an offset). Every other line, and there are none in files the pipeline writes, goes
through `records.parse_jsonl_line`, which accepts exactly what it accepted before and
names the file, line and field of the first bad one. Nothing touches the warehouse until
every line, every spec check, the repeated-key check and the expectations have passed; then
one transaction loads the results, the campaigns' validation failures and the study thresholds
into a staged copy of the warehouse (`warehouse.staged_warehouse`), which replaces it only once
the marts built there: a failed data test is traced to the file's lines (`trace_failed_tests`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchcamp.core.claims import load_claims
from benchcamp.core.records import (
    CAMPAIGN_NAME,
    PARAM_COLUMN_PREFIX,
    RECORD_FIELDS,
    RecordError,
    ResultRecord,
    ValidationFailure,
    cell_key,
    csv_columns,
    parse_jsonl_line,
)
from benchcamp.core.study import CellCheck, cell_checks
from benchcamp.pipeline.warehouse import (
    CLAIMS_SCHEMA,
    FAILURE_COLUMNS,
    RESULT_COLUMNS,
    RESULT_KEY,
    SCHEMA,
    wait_for_warehouse,
    write_axis_comparisons,
    write_study_claims,
    write_study_history,
    write_study_threshold,
)

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from benchcamp.core.spec import StudySpec

REQUIRED = RECORD_FIELDS[:10]
# A comma before a closing bracket (yyjson allows it, Python's json does not), a byte-order mark
# past the file's start, NaN or Infinity (Python reads them): such lines are left to Python (a
# false alarm inside a string only costs that line a per-line parse). One pattern and plain
# scans: an alternation in one regular expression is 3x slower over 400 MB. Lines are split at
# line feeds, as `records.read_jsonl_numbered` splits them; the CR of a CRLF and the characters
# `str.splitlines` would also break at (U+2028, form feeds, ...) are judged alike by DuckDB's
# JSON reader and Python's: as whitespace, valid string characters or errors.
_SUSPECT = (
    r"regexp_matches(line, ',[ \t]*[\]}]') or contains(line, chr(65279)) "
    "or contains(line, 'NaN') or contains(line, 'Infinity')"
)
# Hours, minutes, seconds and offsets in range: DuckDB and pydantic differ on 24:00 and leap seconds.
_CLOCK = r"([01]\d|2[0-3]):[0-5]\d"
_TIMESTAMP = rf"\d{{4}}-\d{{2}}-\d{{2}}T{_CLOCK}:[0-5]\d(\.\d{{1,6}})?(Z|[+-]{_CLOCK})"
_NUMBER = r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?"
_VALUE_COLUMNS = tuple(name for name in RESULT_COLUMNS if name not in RESULT_KEY)


class SpecMismatch(ValueError):
    """A readable record the study spec does not declare (exit 2, nothing loaded)."""


@dataclass(frozen=True)
class CampaignLoad:
    """One campaign of an import: its records in the file, and what the load did with their keys.

    `repeats` are the (line, earlier line) pairs of records that repeat an earlier record exactly:
    counted in `records`, loaded once.
    """

    study: str
    campaign: str
    records: int
    inserted: int = 0
    replaced: int = 0
    repeats: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Repeat:
    """A record whose key and values an earlier line of the same file already holds."""

    study: str
    campaign: str
    line: int
    first_line: int


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _string(column: str, *, empty: bool = False, nullable: bool = False) -> tuple[str, str]:
    """(check, value) SQL for a JSON string field's text without escapes: the text between its quotes."""
    check = f"(starts_with({column}, '\"') and not contains({column}, '\\') and strlen({column}) >= {2 if empty else 3})"
    value = f"substr({column}, 2, length({column}) - 2)"
    if nullable:
        check = f"({column} is null or {column} = 'null' or {check})"
        value = f"case when {column} is null or {column} = 'null' then null else {value} end"
    return check, value


def _timestamp(name: str) -> str:
    """`<name>_ts`: the field as timestamptz when it is an ISO 8601 string with an offset, else NULL."""
    check, text = _string(name)
    return (
        f"case when {check} and regexp_full_match({text}, '{_TIMESTAMP}') "
        f"then try_cast({text} as timestamptz) end as {name}_ts"
    )


@contextmanager
def staging() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB for one import; the warehouse is attached only to load."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute("set TimeZone = 'UTC'")
        # Every query that needs an order says so (line_no): unordered scans and inserts are
        # about a quarter faster over a million lines.
        con.execute("set preserve_insertion_order = false")
        yield con
    finally:
        con.close()


def _stage_records(
    con: duckdb.DuckDBPyConnection, numbered: list[tuple[int, ResultRecord]], table: str
) -> None:
    """Validated records (with their line numbers) as rows of `table`, converted as `load_records` does."""
    from benchcamp.pipeline.warehouse import _results_frame

    frame = _results_frame([record for _, record in numbered])
    frame.insert(0, "line_no", [number for number, _ in numbered])
    con.register("python_records", frame)
    try:
        con.execute(f"insert into {table} select line_no, {', '.join(RESULT_COLUMNS)} from python_records")
    finally:
        con.unregister("python_records")


def _create_incoming(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        """
        create or replace temp table incoming (
            line_no bigint, study varchar, campaign varchar, environment varchar, workload varchar,
            cell_key varchar, params varchar, repetition integer, metric varchar, value double,
            unit varchar, status varchar, started_at timestamptz, finished_at timestamptz, artifact varchar
        )
        """
    )


def stage_file(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Read `path` (JSON Lines or CSV) into temp table `incoming`; RecordError names the first bad line.

    Returns the number of records. Rows keep their line number (`line_no`) and duplicates.
    """
    import duckdb

    _create_incoming(con)
    # DuckDB's read_text takes a glob: `runs[1].jsonl` would read `runs1.jsonl` beside it
    if path.suffix.lower() == ".csv" or not path.is_file() or any(c in str(path) for c in "*?[]{}"):
        return _stage_slowly(con, path)
    try:
        con.execute(
            "create or replace temp table lines as select generate_subscripts(l, 1)::bigint as line_no, "
            f"unnest(l) as line from (select string_split(content, chr(10)) as l from read_text({_literal(str(path))}))"
        )
    except duckdb.Error:
        return _stage_slowly(con, path)  # unreadable or not UTF-8: the reader says so precisely
    # a byte-order mark opens the file, not its first record (Python: records.BYTE_ORDER_MARK)
    con.execute("update lines set line = substr(line, 2) where line_no = 1 and starts_with(line, chr(65279))")
    struct = json.dumps({name: "JSON" for name in RECORD_FIELDS})
    # Missing required fields fail their value checks (a missing field and a JSON null both
    # read as NULL); unknown and repeated keys are judged once per distinct key list.
    checks = [
        "keys in (select keys from key_lists)",
        "starts_with(params, '{')",
        r"regexp_full_match(repetition, '0|-?[1-9]\d{0,8}') and try_cast(repetition as integer) >= -99",
        f"regexp_full_match(value, '{_NUMBER}') and isfinite(value::double)",
    ]
    values = {"params": "params", "repetition": "repetition::integer", "value": "value::double"}
    for name in ("study", "campaign", "environment", "workload", "metric", "unit", "status", "artifact"):
        check, value = _string(name, empty=name == "unit", nullable=name == "artifact")
        checks.append(check)
        values[name] = value
    checks.append(f"{values['status']} in ('ok', 'failed', 'warmup', 'warmup_failed')")
    checks.append(f"regexp_full_match({values['campaign']}, '{CAMPAIGN_NAME}')")  # else named per line
    # measured repetitions are numbered 1, 2, ...; warm-ups 0, -1, ... (ResultRecord's rule)
    checks.append(f"(try_cast(repetition as integer) >= 1) = ({values['status']} in ('ok', 'failed'))")
    for name in ("started_at", "finished_at"):
        checks.append(f"{name} is null or {name} = 'null' or {name}_ts is not null")
        values[name] = f"{name}_ts"
    texts = ", ".join(f"{name}::varchar as {name}" for name in RECORD_FIELDS)
    stamps = ", ".join(_timestamp(name) for name in ("started_at", "finished_at"))
    selected = ", ".join(f"{expression} as {name}" for name, expression in values.items())
    con.execute(
        f"""
        create or replace temp table parsed as
        with parsed as (
            select line_no, json_keys(line) as keys, unnest(from_json(line, {_literal(struct)}))
            from lines
            where json_valid(line) and not ({_SUSPECT})
        )
        select line_no, keys, {texts} from parsed
        """
    )
    allowed = set(RECORD_FIELDS)
    key_lists = [
        (keys,)
        for (keys,) in con.execute("select distinct keys from parsed").fetchall()
        if len(keys) == len(set(keys)) and set(keys) <= allowed
    ]
    con.execute("create or replace temp table key_lists (keys varchar[])")
    if key_lists:
        con.executemany("insert into key_lists values (?)", key_lists)
    con.execute(
        f"""
        create or replace temp table clean as
        with stamped as (select *, {stamps} from parsed)
        select line_no, {selected} from stamped
        where {" and ".join(f"({check})" for check in checks)}
        """
    )
    con.execute("drop table parsed")
    _cells(con)
    columns = ", ".join(
        "m.canonical"
        if name == "params"
        else f"m.{name}"
        if name in ("workload", "cell_key")
        else f"c.{name}"
        for name in RESULT_COLUMNS
    )
    con.execute(
        f"""
        insert into incoming select c.line_no, {columns} from clean c
        join cell_map m on c.workload = m.workload and c.params = m.params
        """
    )
    con.execute("drop table clean")
    flagged = con.execute(
        "select line_no, line from lines where line_no not in (select line_no from incoming) order by line_no"
    ).fetchall()
    con.execute("drop table lines")
    numbered: list[tuple[int, ResultRecord]] = []
    for number, line in flagged:
        record = parse_jsonl_line(line, number, str(path))
        if record is not None:
            numbered.append((number, record))
    if numbered:
        _stage_records(con, numbered, "incoming")
    row = con.execute("select count(*) from incoming").fetchone()
    return int(row[0]) if row else 0


def _cells(con: duckdb.DuckDBPyConnection) -> None:
    """cell_map: per distinct (workload, params JSON), the cell key and canonical params text.

    Params are decoded by Python's json (as the per-record reader does); a params object
    whose values are not all plain scalars is left out, so its lines go to the per-line reader.
    """
    import pandas as pd

    rows = con.execute("select distinct workload, params from clean").fetchall()
    mapped: list[tuple[str, str, str, str]] = []
    for workload, text in rows:
        params = json.loads(text)
        if not isinstance(params, dict) or not all(
            isinstance(value, bool | int | float | str)
            and not (isinstance(value, float) and not math.isfinite(value))
            for value in params.values()
        ):
            continue
        mapped.append((workload, text, cell_key(workload, params), json.dumps(params, sort_keys=True)))
    frame = pd.DataFrame(mapped, columns=["workload", "params", "cell_key", "canonical"])
    con.register("cell_frame", frame)
    try:
        con.execute("create or replace temp table cell_map as select * from cell_frame")
    finally:
        con.unregister("cell_frame")


def _stage_slowly(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """The per-record readers: for CSV, and for a JSON Lines file DuckDB cannot read (not UTF-8, no file)."""
    from benchcamp.core.records import read_csv_numbered, read_jsonl_numbered, read_text

    text = read_text(path)
    if path.suffix.lower() == ".csv":
        numbered = read_csv_numbered(text, str(path))
    else:
        numbered = read_jsonl_numbered(text, str(path))
    if numbered:
        _stage_records(con, numbered, "incoming")
    return len(numbered)


def check_spec(con: duckdb.DuckDBPyConnection, path: Path, strict_environment: bool) -> None:
    """Every record's study, workload, axes (and environment, if strict) are in its study's spec,
    and it has every axis of its series.

    Each distinct combination is checked once; the first failing record in the file is
    reported as `record N (line L)` with the spec's message, or, when a CSV has no column
    for the axis that record lacks, as that missing column of the header.
    """
    from benchcamp.core.spec import MissingAxis, SpecError, load_spec

    bad: list[tuple[str, str, str, str]] = []
    combos = con.execute("select distinct study, workload, params, environment from incoming").fetchall()
    checked: dict[tuple[str, str, str], str | None] = {}
    for study, workload, params, environment in combos:
        key = (study, workload, params)
        if key not in checked:
            try:
                load_spec(study).validate_record_params(workload, json.loads(params))
                checked[key] = None
            except SpecError as exc:
                checked[key] = str(exc)
        message = checked[key]
        if message is None and strict_environment:
            try:
                load_spec(study).environment(environment)
            except SpecError as exc:
                message = str(exc)
        if message is not None:
            bad.append((study, workload, params, environment))
    if not bad:
        return
    frame_rows = ", ".join("(" + ", ".join(_literal(part) for part in combo) + ")" for combo in bad)
    row = con.execute(
        f"""
        select min(line_no) from incoming
        where (study, workload, params, environment) in (select (a, b, c, d) from (values {frame_rows}) v(a, b, c, d))
        """
    ).fetchone()
    line = int(row[0]) if row and row[0] is not None else 0
    study, workload, params, environment = con.execute(
        "select study, workload, params, environment from incoming where line_no = ?", [line]
    ).fetchone() or ("", "", "{}", "")
    ordinal = con.execute("select count(*) from incoming where line_no <= ?", [line]).fetchone()
    try:
        spec = load_spec(study)
        spec.validate_record_params(workload, json.loads(params))
        spec.environment(environment)
    except SpecError as exc:
        number = int(ordinal[0]) if ordinal else line
        if isinstance(exc, MissingAxis) and path.suffix.lower() == ".csv":
            columns = [PARAM_COLUMN_PREFIX + axis for axis in exc.axes]
            if not set(columns) & set(csv_columns(path)):  # the cause is the header, not the record
                missing = " or ".join(f"'{column}'" for column in columns)
                raise SpecMismatch(
                    f"{path}, line 1: missing column {missing} (record {number} on line {line}: {exc})"
                ) from exc
        raise SpecMismatch(f"{path}: record {number} (line {line}): {exc}") from exc
    raise SpecMismatch(f"{path}: record on line {line} does not match its study spec")


def check_repeats(con: duckdb.DuckDBPyConnection, path: Path) -> list[Repeat]:
    """Refuse a record key (warehouse.RESULT_KEY) that two lines give different values; keep one of identical ones.

    Last-wins would load one record while the expectations judged both. A RecordError names
    the later line, the earlier one, the key and the first field that differs; records that
    repeat an earlier line exactly are removed from `incoming` and returned, in file order.
    Keys are grouped by their hash first, so a file without repeats costs one pass.
    """
    key = ", ".join(RESULT_KEY)
    con.execute(
        "create or replace temp table repeated_keys as "
        f"select hash({key}) as key_hash from incoming group by key_hash having count(*) > 1"
    )
    row = con.execute("select count(*) from repeated_keys").fetchone()
    if not row or not row[0]:
        return []
    differing = ", ".join(
        f"case when a.{name} is distinct from b.{name} then '{name}' end" for name in _VALUE_COLUMNS
    )
    con.execute(
        f"""
        create or replace temp table repeats as
        with candidates as (
            select * from incoming where hash({key}) in (select key_hash from repeated_keys)
        ),
        ranked as (select *, min(line_no) over (partition by {key}) as first_line from candidates)
        select a.study, a.campaign, a.line_no, a.first_line,
            list_filter([{differing}], lambda name: name is not null) as differs
        from ranked a join candidates b on b.line_no = a.first_line
        where a.line_no <> a.first_line
        """
    )
    conflict = con.execute(
        "select line_no, first_line, differs[1] from repeats where len(differs) > 0 order by line_no limit 1"
    ).fetchone()
    if conflict:
        line, first, field = conflict
        query = f"select {key}, {field} from incoming where line_no = ?"
        *record, value = con.execute(query, [line]).fetchone() or ()
        *_, earlier = con.execute(query, [first]).fetchone() or ()
        study, campaign, environment, cell, repetition, metric = record
        raise RecordError(
            f"{path}, line {line}: field '{field}': {_shown(value)}, but line {first} gives "
            f"{_shown(earlier)} for the same record (study {study}, campaign {campaign}, environment "
            f"{environment}, cell {cell}, repetition {repetition}, metric {metric}); a record may "
            "repeat only with identical values"
        )
    repeats = [
        Repeat(study, campaign, int(line), int(first))
        for study, campaign, line, first in con.execute(
            "select study, campaign, line_no, first_line from repeats order by line_no"
        ).fetchall()
    ]
    con.execute("delete from incoming where line_no in (select line_no from repeats)")
    con.execute("drop table repeats")
    return repeats


def _shown(value: object) -> str:
    """A stored value as a message quotes it: timestamps in ISO 8601, JSON and text as written."""
    if isinstance(value, datetime):
        return value.isoformat()
    return "null" if value is None else str(value)


def campaigns(con: duckdb.DuckDBPyConnection, repeats: list[Repeat] | None = None) -> list[CampaignLoad]:
    """The file's campaigns in order of first appearance, with their record counts (exact repeats included)."""
    rows = con.execute(
        "select study, campaign, count(*) from incoming group by study, campaign order by min(line_no)"
    ).fetchall()
    repeated: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for repeat in repeats or []:
        repeated.setdefault((repeat.study, repeat.campaign), []).append((repeat.line, repeat.first_line))
    return [
        CampaignLoad(
            study,
            campaign,
            int(count) + len(repeated.get((study, campaign), [])),
            repeats=tuple(repeated.get((study, campaign), [])),
        )
        for study, campaign, count in rows
    ]


def cell_statistics(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """`validation.cell_statistics` for imports (no plan), for every campaign of `incoming` at once.

    One row per (study, campaign, environment, workload, cell_key), in that order, with the
    columns the suite checks and its messages name; computed in SQL over the records that will
    be loaded (after `check_repeats`: each key once, as the warehouse will hold it).
    """
    import pandas as pd

    from benchcamp.pipeline.validation import DURATION_METRIC, ERROR_RETURNS_METRIC, stddev_metric_of

    # warm-ups are in no expectation (validation.validate_campaign leaves them out the same way)
    con.execute(
        "create or replace temp view measured as select * from incoming where status in ('ok', 'failed')"
    )
    workloads = [row[0] for row in con.execute("select distinct workload from measured").fetchall()]
    gated = pd.DataFrame(
        [(workload, stddev_metric_of(workload, DURATION_METRIC)) for workload in workloads],
        columns=["workload", "stddev_metric"],
    )
    con.register("gated_metrics", gated)
    try:
        frame = con.execute(
            f"""
            with cells as (
                select study, campaign, environment, workload, cell_key, max(repetition) as expected_reps
                from measured group by all
            ),
            counted as (
                -- a cell's repetitions are counted by its durations; a cell without any (published
                -- figures: a T_PT, a throughput and latencies) by the metric the workload's σ
                -- is gated on, else by its first metric
                select m.study, m.campaign, m.environment, m.workload, m.cell_key,
                    case when bool_or(m.metric = '{DURATION_METRIC}') then '{DURATION_METRIC}'
                        when bool_or(m.metric = g.stddev_metric) then g.stddev_metric
                        else min(m.metric) end as counted_metric
                from measured m join gated_metrics g on m.workload = g.workload
                group by m.study, m.campaign, m.environment, m.workload, m.cell_key, g.stddev_metric
            ),
            durations as (
                select study, campaign, environment, workload, cell_key,
                    count(distinct repetition) as present_reps,
                    count(distinct repetition) filter (where status <> 'ok') as failed_reps,
                    array_to_string(list_sort(list_distinct(
                        list(repetition) filter (where status <> 'ok'))), ', ') as failed_list,
                    count(*) as duration_records,
                    min(value) filter (where status = 'ok') as min_duration,
                    list_distinct(list(repetition)) as reps
                from measured join counted using (study, campaign, environment, workload, cell_key)
                where metric = counted_metric group by all
            ),
            gated as (
                select i.study, i.campaign, i.environment, i.workload, i.cell_key,
                    -- σ over what the marts average (stg_results.is_usable): a non-positive
                    -- duration is flagged by min_duration, never part of the σ it gates; whether
                    -- σ can be checked counts every ok repetition
                    count(*) filter (where usable) as ok_n,
                    avg(value) filter (where usable) as gated_mean,
                    stddev_samp(value) filter (where usable) as gated_stddev,
                    count(*) as ok_all_n
                from (
                    select *, isfinite(value) and (metric <> '{DURATION_METRIC}' or value > 0) as usable
                    from measured
                ) i
                join counted k using (study, campaign, environment, workload, cell_key)
                join gated_metrics g on i.workload = g.workload
                where i.status = 'ok' and i.metric = case when k.counted_metric = '{DURATION_METRIC}'
                    then g.stddev_metric else k.counted_metric end
                group by all
            ),
            errors as (
                select study, campaign, environment, workload, cell_key, sum(value) as error_returns
                from measured where metric = '{ERROR_RETURNS_METRIC}' and value > 0 group by all
            )
            select c.study, c.campaign, c.environment, c.workload, c.cell_key, c.expected_reps,
                coalesce(d.present_reps, 0) as present_reps,
                coalesce(d.failed_reps, 0) as failed_reps,
                coalesce(d.failed_list, '') as failed_list,
                coalesce(d.duration_records, 0) as duration_records,
                d.min_duration,
                case when k.counted_metric = '{DURATION_METRIC}' then g.stddev_metric
                    else k.counted_metric end as stddev_metric,
                coalesce(s.ok_n, 0) as ok_n,
                s.gated_mean,
                s.gated_stddev,
                array_to_string(list_filter(range(1, c.expected_reps + 1),
                    lambda rep: not list_contains(coalesce(d.reps, []), rep)), ', ') as missing_list,
                case when s.gated_mean > 0 and coalesce(s.ok_n, 0) >= 2
                    then s.gated_stddev / s.gated_mean * 100 end as stddev_pct,
                c.expected_reps < 2 or coalesce(s.ok_all_n, 0) >= 2 as stddev_checkable,
                coalesce(d.duration_records, 0) - coalesce(d.present_reps, 0) as surplus_records,
                coalesce(e.error_returns, 0) as error_returns
            from cells c
            join gated_metrics g on c.workload = g.workload
            join counted k
                    on k.study = c.study and k.campaign = c.campaign and k.environment = c.environment
                    and k.workload = c.workload and k.cell_key = c.cell_key
            left join durations d
                    on d.study = c.study and d.campaign = c.campaign and d.environment = c.environment
                    and d.workload = c.workload and d.cell_key = c.cell_key
            left join gated s
                    on s.study = c.study and s.campaign = c.campaign and s.environment = c.environment
                    and s.workload = c.workload and s.cell_key = c.cell_key
            left join errors e
                    on e.study = c.study and e.campaign = c.campaign and e.environment = c.environment
                    and e.workload = c.workload and e.cell_key = c.cell_key
            order by c.study, c.campaign, c.environment, c.workload, c.cell_key
            """
        ).df()
    finally:
        con.unregister("gated_metrics")
    for column in (
        "expected_reps",
        "present_reps",
        "failed_reps",
        "duration_records",
        "ok_n",
        "surplus_records",
    ):
        frame[column] = frame[column].astype(int)
    frame["stddev_pct"] = frame["stddev_pct"].astype("float64")
    frame["min_duration"] = frame["min_duration"].astype("float64")
    frame["error_returns"] = frame["error_returns"].astype("float64")
    errors: dict[tuple[str, ...], list[str]] = {}
    for *cell, repetition, value in con.execute(
        f"""
        select study, campaign, environment, workload, cell_key, repetition, value from measured
        where metric = '{ERROR_RETURNS_METRIC}' and value > 0
        order by study, campaign, environment, workload, cell_key, repetition, value
        """
    ).fetchall():
        errors.setdefault(tuple(cell), []).append(f"repetition {repetition}: {value:g}")
    keys = list(
        zip(
            frame["study"],
            frame["campaign"],
            frame["environment"],
            frame["workload"],
            frame["cell_key"],
            strict=True,
        )
    )
    frame["error_list"] = [", ".join(errors.get(key, [])) for key in keys]
    for check in cell_checks():
        problems = _cell_problems(con, check)
        frame[check.count_column] = [len(problems.get(key, [])) for key in keys]
        frame[check.details_column] = ["; ".join(problems.get(key, [])) for key in keys]
    return frame


def _cell_problems(
    con: duckdb.DuckDBPyConnection, check: CellCheck
) -> dict[tuple[str, str, str, str, str], list[str]]:
    """A study's check (`core.study.CellCheck`) per campaign, over the records it reads (`records_sql`)."""
    rows = con.execute(
        f"""
        select study, campaign, environment, workload, params, repetition, metric, value, unit, status
        from incoming
        where {check.records_sql}
        order by line_no
        """
    ).fetchall()
    per_campaign: dict[tuple[str, str], list[ResultRecord]] = {}
    for study, campaign, environment, workload, params, repetition, metric, value, unit, status in rows:
        per_campaign.setdefault((study, campaign), []).append(
            ResultRecord.model_construct(
                study=study,
                campaign=campaign,
                environment=environment,
                workload=workload,
                params=json.loads(params),
                repetition=repetition,
                metric=metric,
                value=value,
                unit=unit,
                status=status,
                started_at=None,
                finished_at=None,
                artifact=None,
            )
        )
    found: dict[tuple[str, str, str, str, str], list[str]] = {}
    for (study, campaign), records in per_campaign.items():
        for (environment, workload, key), lines in check.find(records).items():
            found[(study, campaign, environment, workload, key)] = lines
    return found


def validate(
    frame: pd.DataFrame,
    thresholds: dict[str, float],
    min_ok_repetitions: dict[str, int | None] | None = None,
) -> list[ValidationFailure]:
    """The campaign suite over every cell of the import (`cell_statistics`): one GX batch per study
    (its own σ% gate and, when its spec sets one, its own minimum of ok repetitions).

    It reads only `frame`, not the staging database, so it can run while `load` inserts the records.
    """
    from benchcamp.pipeline.validation import validate_cells

    failures: list[ValidationFailure] = []
    for study, threshold in thresholds.items():
        cells = frame[frame["study"] == study].reset_index(drop=True)
        if len(cells):
            min_ok = (min_ok_repetitions or {}).get(study)
            failures.extend(failure for _, failure in validate_cells(cells, threshold, None, None, min_ok))
    return failures


def load(
    con: duckdb.DuckDBPyConnection,
    warehouse: Path,
    loads: list[CampaignLoad],
    failures: Callable[[], list[ValidationFailure]],
    thresholds: dict[str, float],
    specs: dict[str, StudySpec] | None = None,
) -> list[CampaignLoad]:
    """Insert-or-replace `incoming`, the campaigns' validation failures, the study thresholds and
    (when `specs` are given) the studies' tracked history metrics and axis comparisons, all in one
    transaction on the warehouse. `incoming` holds each key once (`check_repeats`);
    a key still repeated fails the insert, and the transaction loads nothing.

    `failures` is asked for only after the records are inserted, so the suite (Python, on the
    other core) runs while DuckDB inserts; an error from it rolls the whole load back."""
    import pandas as pd

    warehouse.parent.mkdir(parents=True, exist_ok=True)
    columns = ", ".join(RESULT_COLUMNS)
    # Another process (a DAG's load or dbt build) may hold the file: wait for it, bounded.
    wait_for_warehouse(lambda: con.execute(f"attach {_literal(str(warehouse))} as warehouse"), warehouse)
    try:
        con.execute("use warehouse")
        con.execute(SCHEMA)
        con.execute(CLAIMS_SCHEMA)
        con.execute("begin transaction")
        try:
            match = " and ".join(f"r.{name} = i.{name}" for name in RESULT_KEY)
            replaced = dict(
                ((study, campaign), int(count))
                for study, campaign, count in con.execute(
                    f"select study, campaign, count(*) from temp.main.incoming i "
                    f"semi join raw.results r on {match} group by all"
                ).fetchall()
            )
            kept = dict(
                ((study, campaign), int(count))
                for study, campaign, count in con.execute(
                    "select study, campaign, count(*) from temp.main.incoming group by all"
                ).fetchall()
            )
            # `insert or replace` checks every row for a conflict: a third of the load's time,
            # spent for nothing when no key is already in the warehouse (a new campaign).
            verb = "insert or replace" if replaced else "insert"
            con.execute(f"{verb} into raw.results ({columns}) select {columns} from temp.main.incoming")
            # the campaigns' earlier failures, in one statement: one delete per campaign (a scan
            # of the table each) cost 13 s for an import of 4,445 small campaigns
            loaded = pd.DataFrame(
                [(item.study, item.campaign) for item in loads], columns=["study", "campaign"], dtype=object
            )
            con.register("loaded_campaigns", loaded)
            try:
                con.execute(
                    "delete from raw.validation_failures "
                    "where (study, campaign) in (select study, campaign from loaded_campaigns)"
                )
            finally:
                con.unregister("loaded_campaigns")
            failure_frame = pd.DataFrame(
                [failure.model_dump() for failure in failures()], columns=list(FAILURE_COLUMNS)
            )
            fields = ", ".join(FAILURE_COLUMNS)
            con.register("failure_frame", failure_frame)
            try:
                con.execute(
                    f"insert into raw.validation_failures ({fields}) select {fields} from failure_frame"
                )
            finally:
                con.unregister("failure_frame")
            for study, threshold in thresholds.items():
                write_study_threshold(con, study, threshold)
                write_study_claims(con, study, load_claims(study))  # what the scorecard scores
            for study, spec in (specs or {}).items():
                write_study_history(con, study, spec.history)
                write_axis_comparisons(con, study, spec.axes)
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
    finally:
        con.execute("use memory")
        con.execute("detach warehouse")
    done = []
    for item in loads:
        total = kept.get((item.study, item.campaign), 0)
        again = replaced.get((item.study, item.campaign), 0)
        done.append(CampaignLoad(item.study, item.campaign, item.records, total - again, again, item.repeats))
    return done


# The columns by which a failed data test's rows are traced back to the records of an import.
_TRACE_COLUMNS = ("study", "campaign", "environment", "cell_key", "repetition", "metric")
_SHOWN = 5  # cells (or rows) named per failed test


@dataclass(frozen=True)
class FailedCheck:
    """A data test of the import's build that failed: its name, its failing rows, and per
    failing cell (or row) the file's lines behind it (none: rows already in the warehouse)."""

    test: str
    rows: int
    labels: int  # distinct failing cells (or rows), of which the first few are traced
    traced: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def from_file(self) -> bool:
        """Whether some of the failing rows come from the imported file's records."""
        return any(lines for _, lines in self.traced)


def trace_failed_tests(
    con: duckdb.DuckDBPyConnection, built: Path, tests: list[tuple[str, str]]
) -> list[FailedCheck]:
    """Run each failed test's SQL on the built copy (`built`) and find the records of `incoming`
    (the import's, in the staging database) with the same key columns as its failing rows."""
    import duckdb

    imported = set(con.execute("select distinct study, campaign from incoming").fetchall())
    found = []
    with duckdb.connect(str(built), read_only=True) as warehouse:
        for unique_id, sql in tests:
            cursor = warehouse.execute(f"select * from (\n{sql}\n) as failing")
            names = [column[0] for column in cursor.description]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            if "study" in names and "campaign" in names:  # the build judged the imported campaigns
                rows = [row for row in rows if (row["study"], row["campaign"]) in imported]
            name = unique_id.split(".")[2] if unique_id.count(".") >= 2 else unique_id
            keys = [column for column in _TRACE_COLUMNS if column in names]
            traced: dict[str, tuple[int, ...]] = {}
            labels: set[str] = set()
            for row in rows:
                label = " ".join(str(row[key]) for key in keys) if keys else json.dumps(row, default=str)
                if keys and "broken_rule" in row:
                    label += f" ({row['broken_rule']})"
                labels.add(label)
                if label in traced or len(traced) >= _SHOWN:
                    continue
                lines: tuple[int, ...] = ()
                if keys:
                    where = " and ".join(f"{key} = ?" for key in keys)
                    lines = tuple(
                        int(line)
                        for (line,) in con.execute(
                            f"select line_no from incoming where {where} order by line_no",
                            [row[key] for key in keys],
                        ).fetchall()
                    )
                traced[label] = lines
            found.append(FailedCheck(name, len(rows), len(labels), tuple(traced.items())))
    return found


def describe_failed_checks(checks: list[FailedCheck], path: Path) -> list[str]:
    """One line per failed check, then one per traced cell or row: `file: lines ...` or where it is."""
    out = []
    for check in checks:
        out.append(f"{path}: dbt test {check.test} failed for {check.rows} row(s):")
        for label, lines in check.traced:
            if lines:
                shown = ", ".join(str(line) for line in lines[:10]) + (" ..." if len(lines) > 10 else "")
                out.append(f"  {label}: line(s) {shown}")
            else:
                out.append(f"  {label}: rows already in the warehouse, none of this file")
        if check.labels > len(check.traced):
            out.append(f"  ... and {check.labels - len(check.traced)} more")
    return out
