"""The study's queries with their parameters, for Hive and for DuckDB, and a result fingerprint.

Each query lives in ``queries/qNN.hql`` (HiveQL, parameters as ``${hivevar:name}``) and, for the
SQL queries, in ``queries/duckdb/qNN.sql`` (the same question in DuckDB SQL, parameters as
``getvariable('name')``); ``queries/params.yaml`` maps ``qNN`` to ``{name: value}``. Values are
checked before they reach either engine: Hive substitutes ``${hivevar:...}`` textually, so only
integers, decimals, ISO dates, lists of integers and short strings from a safe character set are
accepted; DuckDB gets them as typed ``SET VARIABLE name = ?`` parameters, never as SQL text.

`result_fingerprint` turns a result into (row count, order-free checksum) with numbers rounded to
a fixed number of places, so Hive's text output and DuckDB's typed rows compare equal.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Final, NamedTuple

import yaml

__all__ = [
    "DUCKDB_DIR",
    "QUERY_DIR",
    "DuckDBQuery",
    "Fingerprint",
    "HiveQuery",
    "QueryParameterError",
    "duckdb_query",
    "hive_query",
    "load_parameters",
    "result_fingerprint",
    "rows_from_hive_text",
    "run_duckdb",
]

QUERY_DIR: Final = Path(__file__).with_name("queries")
DUCKDB_DIR: Final = QUERY_DIR / "duckdb"
PARAMS_FILE: Final = QUERY_DIR / "params.yaml"

ParameterValue = int | Decimal | date | str | tuple[int, ...]

_QUERY_NAME = re.compile(r"q(0[1-9]|[12][0-9]|30)\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INTEGER = re.compile(r"-?[0-9]{1,18}\Z")
_DECIMAL = re.compile(r"-?[0-9]{1,18}\.[0-9]{1,18}\Z")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
# Letters, digits, space and _ . - / : (names, words, paths); nothing that ends a Hive string
# literal ('), starts a substitution ($), escapes (\) or ends a statement (;).
# '=' as the repository's path components hold it (cell keys: `scale_factor_gb=0.01`); up to 1000
# characters, as an HDFS path under the repetition's data path may take
_SAFE_STRING = re.compile(r"[A-Za-z0-9_./:=-](?:[A-Za-z0-9 _./:=-]{0,998}[A-Za-z0-9_./:=-])?\Z")
_NUMBER_TEXT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_STATEMENT_END = re.compile(r";[ \t]*(?:\n|\Z)")
_HIVEVAR = re.compile(r"\$\{hivevar:([A-Za-z_][A-Za-z0-9_]*)\}")
_DUCKDB_VARIABLE = re.compile(r"getvariable\('([A-Za-z_][A-Za-z0-9_]*)'\)")


class QueryParameterError(ValueError):
    """A query or parameter that cannot be handed to an engine safely."""


@dataclass(frozen=True)
class HiveQuery:
    """HiveQL text and its `--hivevar name=value` pairs (values already checked)."""

    name: str
    text: str
    hivevars: tuple[tuple[str, str], ...]

    def hivevar_args(self) -> list[str]:
        """Beeline/hive command-line arguments: ``--hivevar name=value`` per parameter."""
        args: list[str] = []
        for name, value in self.hivevars:
            args += ["--hivevar", f"{name}={value}"]
        return args

    def set_statements(self) -> list[str]:
        """The same parameters as ``SET hivevar:name=value`` statements, for a JDBC session."""
        return [f"SET hivevar:{name}={value}" for name, value in self.hivevars]

    def statements(self) -> list[str]:
        """The query's statements one by one (no comment lines, no final ``;``), for runners that
        send one statement per call (JDBC, HiveServer2's Thrift API) instead of ``beeline -f``."""
        code = "\n".join(line for line in self.text.splitlines() if not line.lstrip().startswith("--"))
        return [statement.strip() for statement in _STATEMENT_END.split(code) if statement.strip()]


@dataclass(frozen=True)
class DuckDBQuery:
    """DuckDB SQL reading its parameters with getvariable(), and their typed values."""

    name: str
    sql: str
    variables: tuple[tuple[str, ParameterValue], ...]


class Fingerprint(NamedTuple):
    """Row count and an order-independent checksum of the normalised rows."""

    rows: int
    checksum: str


def load_parameters(path: Path = PARAMS_FILE) -> dict[str, dict[str, Any]]:
    """params.yaml as a mapping query -> {name: raw value}, refusing anything but that shape."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when built with it
    loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
    if not isinstance(loaded, dict):
        raise QueryParameterError(f"{path}: expected a mapping of queries, got {type(loaded).__name__}")
    parameters: dict[str, dict[str, Any]] = {}
    for query, entry in loaded.items():
        _require_query_name(str(query))
        if not isinstance(entry, dict):
            raise QueryParameterError(f"{path}: {query} must map parameter names to values")
        parameters[str(query)] = {str(name): value for name, value in entry.items()}
    return parameters


def hive_query(
    name: str,
    parameters: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    query_dir: Path = QUERY_DIR,
) -> HiveQuery:
    """`qNN.hql` with its parameters from params.yaml (or `parameters`) plus `extra` ones
    (e.g. an output directory), every value checked; refuses a ${hivevar:x} left without a value."""
    _require_query_name(name)
    text = (query_dir / f"{name}.hql").read_text(encoding="utf-8")
    values = _checked_values(name, parameters, extra, query_dir)
    _require_all_bound(name, set(_HIVEVAR.findall(text)), values, "${hivevar:...}")
    return HiveQuery(name, text, tuple((key, _hive_text(value)) for key, value in values.items()))


def duckdb_query(
    name: str,
    parameters: Mapping[str, Any] | None = None,
    query_dir: Path = QUERY_DIR,
) -> DuckDBQuery:
    """`duckdb/qNN.sql` with the same checked parameters as its Hive twin, typed for DuckDB."""
    _require_query_name(name)
    sql = (query_dir / "duckdb" / f"{name}.sql").read_text(encoding="utf-8")
    values = _checked_values(name, parameters, None, query_dir)
    _require_all_bound(name, set(_DUCKDB_VARIABLE.findall(sql)), values, "getvariable(...)")
    return DuckDBQuery(name, sql, tuple(values.items()))


def run_duckdb(connection: Any, query: DuckDBQuery) -> list[tuple[Any, ...]]:
    """Bind the variables as prepared-statement parameters, then run the query's SQL."""
    for name, value in query.variables:
        bound: Any = list(value) if isinstance(value, tuple) else value
        connection.execute(f"SET VARIABLE {name} = ?", [bound])
    return [tuple(row) for row in connection.execute(query.sql).fetchall()]


def rows_from_hive_text(text: str, null: str = "\\N") -> list[tuple[str | None, ...]]:
    """Tab-separated result lines (as a Hive export or our JDBC runner writes them) as rows."""
    return [
        tuple(None if field == null else field for field in line.split("\t"))
        for line in text.splitlines()
        if line
    ]


def result_fingerprint(rows: Iterable[Sequence[Any]], places: int = 2) -> Fingerprint:
    """(row count, checksum independent of row order), numbers rounded half-even to `places`.

    Numbers compare by value whether they come as int, Decimal, float or numeric text (Hive's
    `1.0E-5` and DuckDB's 1e-05 agree); NULL, dates and booleans have one spelling each."""
    quantum = Decimal(1).scaleb(-places)
    total = 0
    count = 0
    for row in rows:
        normalised = "\x1f".join(_normalise(value, quantum) for value in row)
        digest = hashlib.sha256(normalised.encode("utf-8")).digest()
        total = (total + int.from_bytes(digest[:8], "big")) % 2**64
        count += 1
    return Fingerprint(count, f"{total:016x}")


def _normalise(value: Any, quantum: Decimal) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int | Decimal):
        return _number(Decimal(value), quantum)
    if isinstance(value, float):
        return _number(Decimal(repr(value)), quantum) if math.isfinite(value) else repr(value)
    text = str(value)
    if text in ("true", "false"):
        return text
    if _NUMBER_TEXT.match(text):
        try:
            return _number(Decimal(text), quantum)
        except InvalidOperation:
            return text
    return text


def _number(value: Decimal, quantum: Decimal) -> str:
    rounded = value.quantize(quantum, rounding=ROUND_HALF_EVEN)
    return "0" if rounded.is_zero() else f"{rounded:f}"


def _checked_values(
    query: str,
    parameters: Mapping[str, Any] | None,
    extra: Mapping[str, Any] | None,
    query_dir: Path,
) -> dict[str, ParameterValue]:
    if parameters is None:
        parameters = load_parameters(query_dir / "params.yaml").get(query, {})
    combined = {**parameters, **(extra or {})}
    return {name: _checked(query, name, value) for name, value in combined.items()}


def _checked(query: str, name: str, value: Any) -> ParameterValue:
    """The value as the type it will be bound with, or QueryParameterError naming query and name."""
    where = f"{query}: parameter {name!r}"
    if not _IDENTIFIER.match(name):
        raise QueryParameterError(f"{where} is not a plain identifier")
    if isinstance(value, bool):
        raise QueryParameterError(f"{where} = {value!r}: booleans are not accepted (use 0/1)")
    if isinstance(value, int):
        if not _INTEGER.match(str(value)):
            raise QueryParameterError(f"{where} = {value!r}: integer out of range")
        return value
    if isinstance(value, float | Decimal):
        text = format(Decimal(repr(value)) if isinstance(value, float) else value, "f")
        if not _DECIMAL.match(text) and not _INTEGER.match(text):
            raise QueryParameterError(f"{where} = {value!r}: not a plain decimal number")
        return Decimal(text)
    if isinstance(value, datetime):
        raise QueryParameterError(f"{where} = {value!r}: give a date (YYYY-MM-DD), not a timestamp")
    if isinstance(value, date):
        return value
    if isinstance(value, list | tuple):
        if not value or not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
            raise QueryParameterError(f"{where} = {value!r}: lists must be non-empty lists of integers")
        return tuple(_checked(query, name, item) for item in value)  # type: ignore[misc]
    if isinstance(value, str):
        if _ISO_DATE.match(value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                raise QueryParameterError(f"{where} = {value!r}: not a valid date") from None
        if _SAFE_STRING.match(value):
            return value
        raise QueryParameterError(
            f"{where} = {value!r}: strings may hold only letters, digits, space and _ . - / : = "
            "(1..1000 characters, no leading or trailing space)"
        )
    raise QueryParameterError(f"{where} = {value!r}: unsupported type {type(value).__name__}")


def _hive_text(value: ParameterValue) -> str:
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _require_query_name(name: str) -> None:
    if not _QUERY_NAME.match(name):
        raise QueryParameterError(f"unknown query {name!r}: queries are q01..q30")


def _require_all_bound(query: str, used: set[str], values: Mapping[str, object], form: str) -> None:
    missing = sorted(used - set(values))
    if missing:
        raise QueryParameterError(f"{query}: no value for {form} {', '.join(missing)} in params.yaml")
