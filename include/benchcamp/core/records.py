"""The one result record every workload produces and `benchcamp import` accepts.

JSON Lines use exactly the field names of :class:`ResultRecord`; CSV uses the same
columns with the `params` object spread into one `param.<axis>` column per axis.
Readers fail on the first bad line with its number and the offending field, and
load nothing, so a half-read file can never enter the warehouse. A line is what
`wc -l`, `sed -n` and editors count: it ends at a line feed (CRLF counts as one line
end); a UTF-8 byte-order mark at the start of a file is skipped.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

ParamValue = bool | int | float | str  # smart union: 4 stays an int, 0.012 a float
Status = Literal["ok", "failed", "warmup", "warmup_failed"]
# Warm-up repetitions run before the measured ones (numbered 0, -1, ...: never a measured
# repetition's number); they are archived and loaded, and excluded from every statistic and gate.
WARMUP_STATUSES: frozenset[str] = frozenset({"warmup", "warmup_failed"})
RECORD_FIELDS: tuple[str, ...] = (
    "study",
    "campaign",
    "environment",
    "workload",
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
PARAM_COLUMN_PREFIX = "param."
BYTE_ORDER_MARK = "\ufeff"


class ParseError(ValueError):
    """Raw output that cannot be understood; the message names the archived file."""


class RecordError(ValueError):
    """A record file that cannot be read; names the source, line and field."""


MAX_REPETITION = 1_000_000
"""The largest repetition number a record may carry."""

CAMPAIGN_NAME = r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,119}"
"""A campaign's name, run or imported: it names an archive folder, a results-page URL and a
download's file name, so `.` and `..`, separators, spaces, quotes and control characters are out."""
CAMPAIGN_RULE = (
    "must start with a letter or digit and hold only letters, digits and _ . + - (at most 120 characters)"
)


class ResultRecord(BaseModel):
    """One measured value of one repetition of one cell of one campaign."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = Field(min_length=1)
    campaign: str = Field(min_length=1)
    environment: str = Field(min_length=1)
    workload: str = Field(min_length=1)
    params: dict[str, ParamValue]
    # a million repetitions of one cell is beyond any campaign; the warehouse's column is a 32-bit
    # integer, so a larger number would otherwise fail the load, not name its line
    repetition: int = Field(ge=-99, le=MAX_REPETITION)
    metric: str = Field(min_length=1)
    value: float
    unit: str
    status: Status
    started_at: datetime | None = None
    finished_at: datetime | None = None
    artifact: str | None = None

    @field_validator("campaign")
    @classmethod
    def _campaign_name(cls, campaign: str) -> str:
        if not re.fullmatch(CAMPAIGN_NAME, campaign):
            raise ValueError(f"{campaign!r} {CAMPAIGN_RULE}")
        return campaign

    @field_validator("value")
    @classmethod
    def _finite_value(cls, value: float) -> float:
        if math.isnan(value) or math.isinf(value):
            raise ValueError("value must be a finite number")
        return value

    @field_validator("params")
    @classmethod
    def _finite_params(cls, params: dict[str, ParamValue]) -> dict[str, ParamValue]:
        # NaN is no cell coordinate (NaN != NaN) and JSON cannot store it in the warehouse
        for name, value in params.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"axis '{name}' must be a finite number, not {value}")
        return params

    @model_validator(mode="after")
    def _warmups_before_one(self) -> ResultRecord:
        if self.status in WARMUP_STATUSES and self.repetition > 0:
            raise ValueError(f"field 'repetition': a {self.status} record is numbered 0 or below")
        if self.status not in WARMUP_STATUSES and self.repetition < 1:
            raise ValueError("field 'repetition': must be 1 or more (0 and below are warm-ups)")
        return self

    @property
    def is_usable(self) -> bool:
        """An ok record the statistics may use, as the marts' `stg_results.is_usable` says: a
        duration must be positive (every value is finite by construction)."""
        return self.status == "ok" and (self.metric != "duration_s" or self.value > 0)

    @property
    def is_warmup(self) -> bool:
        return self.status in WARMUP_STATUSES

    @property
    def cell_key(self) -> str:
        """Stable identity of the cell: workload plus the sorted axis values."""
        return cell_key(self.workload, self.params)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def cell_key(workload: str, params: dict[str, Any]) -> str:
    """`wordcount|data_size_gb=240|maps=4` — the same params always give the same key."""
    parts = [workload] + [f"{name}={_format_param(params[name])}" for name in sorted(params)]
    return "|".join(parts)


def _format_param(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    if not first["loc"]:  # a whole-record check names its field in its own message
        return message
    field = ".".join(str(part) for part in first["loc"])
    return f"field '{field}': {message}"


def parse_jsonl_line(line: str, number: int, source: str = "<input>") -> ResultRecord | None:
    """One line of a JSON Lines file: its record, None for a blank line, RecordError naming line and field."""
    if not line.strip():
        return None
    try:
        payload = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source}, line {number}: not valid JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise RecordError(f"{source}, line {number}: not valid JSON (nested too deeply)") from exc
    if not isinstance(payload, dict):
        raise RecordError(f"{source}, line {number}: expected a JSON object")
    missing = [name for name in RECORD_FIELDS[:10] if name not in payload]
    if missing:
        raise RecordError(f"{source}, line {number}: missing field '{missing[0]}'")
    try:
        return ResultRecord.model_validate(payload)
    except ValidationError as exc:
        raise RecordError(f"{source}, line {number}: {_describe(exc)}") from exc


def read_jsonl_numbered(text: str, source: str = "<input>") -> list[tuple[int, ResultRecord]]:
    """(line number, record) of every non-blank line, numbered as the file's lines (see the module).

    Not `str.splitlines`: it also breaks at U+2028 and U+0085 (which a JSON string may hold)
    and at form feeds, none of which `sed -n` or an editor counts as a line end, so its numbers
    drift. The CR of a CRLF is JSON whitespace and needs no stripping.
    """
    numbered: list[tuple[int, ResultRecord]] = []
    for number, line in enumerate(text.removeprefix(BYTE_ORDER_MARK).split("\n"), start=1):
        record = parse_jsonl_line(line, number, source)
        if record is not None:
            numbered.append((number, record))
    return numbered


def read_jsonl(text: str, source: str = "<input>") -> list[ResultRecord]:
    return [record for _, record in read_jsonl_numbered(text, source)]


def coerce_param(raw: str) -> ParamValue:
    """An axis value written as text (a CSV cell, `--param axis=value`): int, else float, else the text."""
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw


def _csv_rows(text: str, source: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of every non-blank CSV row; a malformed one is a RecordError with its line.

    Lines end at line feeds only (as in JSON Lines), so a row's number is the line it starts
    on even after blank lines and quoted fields that span lines; strict quoting turns a stray
    quote into an error instead of a silently merged field.
    """
    reader = csv.reader(io.StringIO(text.removeprefix(BYTE_ORDER_MARK)), strict=True)
    previous = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            reason = str(exc)
            if reason.startswith("new-line character seen in unquoted field"):
                reason = "a carriage return that does not end the line, outside quotes"
            raise RecordError(f"{source}, line {reader.line_num}: not valid CSV ({reason})") from exc
        first, previous = previous + 1, reader.line_num
        if row and not (len(row) == 1 and not row[0].strip()):
            yield first, row


def _csv_header(rows: Iterator[tuple[int, list[str]]], source: str) -> tuple[int, list[str]]:
    """The header row (its line and columns), checked: every required column once, nothing unknown."""
    number, header = next(rows, (1, []))
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise RecordError(f"{source}, line {number}: column '{name}' appears twice")
        seen.add(name)
    missing = [name for name in RECORD_FIELDS[:10] if name != "params" and name not in seen]
    if missing:
        raise RecordError(f"{source}, line {number}: missing column '{missing[0]}'")
    unknown = [
        name
        for name in header
        # `params` is spread into param.<axis> columns; a bare `param.` names no axis
        if (name not in RECORD_FIELDS and not name.startswith(PARAM_COLUMN_PREFIX))
        or name in ("params", PARAM_COLUMN_PREFIX)
    ]
    if unknown:
        raise RecordError(f"{source}, line {number}: unknown column '{unknown[0]}'")
    return number, header


def csv_columns(path: Path) -> list[str]:
    """The header of a CSV record file (what `read_csv` checks), e.g. to name a missing axis column."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read ({exc})") from exc
    return _csv_header(_csv_rows(text, str(path)), str(path))[1]


def read_csv_numbered(text: str, source: str = "<input>") -> list[tuple[int, ResultRecord]]:
    """(line number, record) of every CSV row; the first bad row is a RecordError naming line and field."""
    rows = _csv_rows(text, source)
    _, header = _csv_header(rows, source)
    numbered: list[tuple[int, ResultRecord]] = []
    for number, row in rows:
        if len(row) > len(header):
            extra = row[len(header)]
            raise RecordError(
                f"{source}, line {number}: {len(row)} fields where the header has {len(header)}: "
                f"field {len(header) + 1} ({extra[:40]!r}) has no column"
            )
        if len(row) < len(header):
            raise RecordError(
                f"{source}, line {number}: {len(row)} fields where the header has {len(header)}: "
                f"no field for column '{header[len(row)]}'"
            )
        fields = dict(zip(header, row, strict=True))
        params = {
            name.removeprefix(PARAM_COLUMN_PREFIX): coerce_param(raw)
            for name, raw in fields.items()
            if name.startswith(PARAM_COLUMN_PREFIX) and raw != ""
        }
        payload: dict[str, Any] = {
            name: (fields.get(name) or None) for name in RECORD_FIELDS if name != "params"
        }
        payload["params"] = params
        for required in ("value", "repetition"):
            if payload[required] is None:
                raise RecordError(f"{source}, line {number}: field '{required}': empty")
        payload["unit"] = fields.get("unit") or ""
        try:
            numbered.append((number, ResultRecord.model_validate(payload)))
        except ValidationError as exc:
            raise RecordError(f"{source}, line {number}: {_describe(exc)}") from exc
    return numbered


def read_csv(text: str, source: str = "<input>") -> list[ResultRecord]:
    return [record for _, record in read_csv_numbered(text, source)]


def read_records(path: Path) -> list[ResultRecord]:
    """Read a `.jsonl`/`.json` or `.csv` file of result records, all or nothing."""
    text = read_text(path)
    if path.suffix.lower() == ".csv":
        return read_csv(text, str(path))
    return read_jsonl(text, str(path))


def read_text(path: Path) -> str:
    """The file as text; bytes that are not UTF-8 are a RecordError naming their line and column."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"{path}: cannot read ({exc})") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RecordError(
            f"{path}, line {line}: not UTF-8 (byte 0x{data[exc.start]:02x} at byte {column} of the line)"
        ) from exc


def write_jsonl(records: Iterable[ResultRecord]) -> str:
    return "".join(json.dumps(record.to_json_dict(), sort_keys=False) + "\n" for record in records)


def write_csv(records: Iterable[ResultRecord]) -> str:
    rows = list(records)
    axes = sorted({name for record in rows for name in record.params})
    columns = [name for name in RECORD_FIELDS if name != "params"] + [
        PARAM_COLUMN_PREFIX + axis for axis in axes
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for record in rows:
        data = record.to_json_dict()
        row = {name: data[name] for name in RECORD_FIELDS if name != "params"}
        row.update({PARAM_COLUMN_PREFIX + axis: record.params.get(axis, "") for axis in axes})
        writer.writerow({key: "" if value is None else value for key, value in row.items()})
    return buffer.getvalue()


class ValidationFailure(BaseModel):
    """One failed expectation for one cell (or the whole campaign when cell_key is empty)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str
    campaign: str
    environment: str
    workload: str
    cell_key: str
    expectation: str
    details: str
    observed: float | None = None
    threshold: float | None = None


class EnvironmentSnapshot(BaseModel):
    """Facts captured on a target for one campaign, plus a fingerprint of the hardware-relevant part."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str
    campaign: str
    environment: str
    host: str
    fingerprint: str
    facts: dict[str, Any]
    captured_at: datetime
