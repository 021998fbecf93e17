"""The one result record every workload produces and `benchcamp import` accepts.

JSON Lines use exactly the field names of :class:`ResultRecord`; CSV uses the same
columns with the `params` object spread into one `param.<axis>` column per axis.
Readers fail on the first bad line with its number and the offending field, and
load nothing, so a half-read file can never enter the warehouse.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable
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


class RecordError(ValueError):
    """A record file that cannot be read; names the source, line and field."""


class ResultRecord(BaseModel):
    """One measured value of one repetition of one cell of one campaign."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = Field(min_length=1)
    campaign: str = Field(min_length=1)
    environment: str = Field(min_length=1)
    workload: str = Field(min_length=1)
    params: dict[str, ParamValue]
    repetition: int = Field(ge=-99)
    metric: str = Field(min_length=1)
    value: float
    unit: str
    status: Status
    started_at: datetime | None = None
    finished_at: datetime | None = None
    artifact: str | None = None

    @field_validator("value")
    @classmethod
    def _finite_value(cls, value: float) -> float:
        if math.isnan(value) or math.isinf(value):
            raise ValueError("value must be a finite number")
        return value

    @model_validator(mode="after")
    def _warmups_before_one(self) -> ResultRecord:
        if self.status in WARMUP_STATUSES and self.repetition > 0:
            raise ValueError(f"field 'repetition': a {self.status} record is numbered 0 or below")
        if self.status not in WARMUP_STATUSES and self.repetition < 1:
            raise ValueError("field 'repetition': must be 1 or more (0 and below are warm-ups)")
        return self

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
    if not first["loc"]:  # a whole-record check names its field in its own message
        return str(first["msg"]).removeprefix("Value error, ")
    field = ".".join(str(part) for part in first["loc"])
    return f"field '{field}': {first['msg']}"


def parse_jsonl_line(line: str, number: int, source: str = "<input>") -> ResultRecord | None:
    """One line of a JSON Lines file: its record, None for a blank line, RecordError naming line and field."""
    if not line.strip():
        return None
    try:
        payload = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source}, line {number}: not valid JSON ({exc.msg})") from exc
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
    """(line number, record) of every non-blank line; lines as `str.splitlines` splits them."""
    numbered: list[tuple[int, ResultRecord]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        record = parse_jsonl_line(line, number, source)
        if record is not None:
            numbered.append((number, record))
    return numbered


def read_jsonl(text: str, source: str = "<input>") -> list[ResultRecord]:
    return [record for _, record in read_jsonl_numbered(text, source)]


def _coerce_param(raw: str) -> ParamValue:
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw


def read_csv(text: str, source: str = "<input>") -> list[ResultRecord]:
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    missing = [name for name in RECORD_FIELDS[:10] if name != "params" and name not in header]
    if missing:
        raise RecordError(f"{source}, line 1: missing column '{missing[0]}'")
    unknown = [
        name for name in header if name not in RECORD_FIELDS and not name.startswith(PARAM_COLUMN_PREFIX)
    ]
    if unknown:
        raise RecordError(f"{source}, line 1: unknown column '{unknown[0]}'")
    records: list[ResultRecord] = []
    for number, row in enumerate(reader, start=2):
        params = {
            name.removeprefix(PARAM_COLUMN_PREFIX): _coerce_param(raw)
            for name, raw in row.items()
            if name.startswith(PARAM_COLUMN_PREFIX) and raw not in (None, "")
        }
        payload: dict[str, Any] = {
            name: (row.get(name) or None) for name in RECORD_FIELDS if name != "params"
        }
        payload["params"] = params
        for required in ("value", "repetition"):
            if payload[required] is None:
                raise RecordError(f"{source}, line {number}: field '{required}': empty")
        payload["unit"] = row.get("unit") or ""
        try:
            records.append(ResultRecord.model_validate(payload))
        except ValidationError as exc:
            raise RecordError(f"{source}, line {number}: {_describe(exc)}") from exc
    return records


def read_records(path: Path) -> list[ResultRecord]:
    """Read a `.jsonl`/`.json` or `.csv` file of result records, all or nothing."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read ({exc})") from exc
    if path.suffix.lower() == ".csv":
        return read_csv(text, str(path))
    return read_jsonl(text, str(path))


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
