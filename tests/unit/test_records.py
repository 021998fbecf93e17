from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchcamp.core.records import (
    RecordError,
    ResultRecord,
    cell_key,
    read_csv,
    read_jsonl,
    read_records,
    write_csv,
    write_jsonl,
)

GOOD = {
    "study": "hibench_dse",
    "campaign": "c1",
    "environment": "local_lab",
    "workload": "wordcount",
    "params": {"data_size_gb": 240, "maps": 4, "reduces": 2},
    "repetition": 1,
    "metric": "duration_s",
    "value": 4068.22,
    "unit": "s",
    "status": "ok",
}


def test_jsonl_round_trip_keeps_every_field() -> None:
    record = ResultRecord.model_validate(
        {**GOOD, "artifact": "results/x", "started_at": "2026-11-01T00:00:00Z"}
    )
    (again,) = read_jsonl(write_jsonl([record]))
    assert again == record
    assert set(json.loads(write_jsonl([record]))) == set(GOOD) | {"artifact", "started_at", "finished_at"}


def test_csv_spreads_params_into_param_columns_and_back() -> None:
    record = ResultRecord.model_validate(GOOD)
    text = write_csv([record])
    header = text.splitlines()[0].split(",")
    assert {"param.data_size_gb", "param.maps", "param.reduces"} <= set(header)
    (again,) = read_csv(text)
    assert again.params == {"data_size_gb": 240, "maps": 4, "reduces": 2}
    assert again.value == 4068.22


def test_cell_key_is_order_independent_and_normalises_whole_floats() -> None:
    assert cell_key("wordcount", {"maps": 4, "data_size_gb": 240.0}) == cell_key(
        "wordcount", {"data_size_gb": 240, "maps": 4}
    )
    assert cell_key("wordcount", {"data_size_gb": 240}) == "wordcount|data_size_gb=240"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"value": "fast"}, "in.jsonl, line 2: field 'value'"),
        ({"repetition": 0}, "in.jsonl, line 2: field 'repetition'"),
        (
            {"repetition": 10_000_000_000},
            "in.jsonl, line 2: field 'repetition': Input should be less than or equal to 1000000",
        ),
        ({"status": "meh"}, "in.jsonl, line 2: field 'status'"),
        (
            {"status": "warmup"},
            "in.jsonl, line 2: field 'repetition': a warmup record is numbered 0 or below",
        ),
        ({"repetition": -100, "status": "warmup"}, "in.jsonl, line 2: field 'repetition'"),
        ({"surprise": 1}, "in.jsonl, line 2: field 'surprise'"),
    ],
)
def test_bad_jsonl_line_names_line_and_field(change: dict[str, object], message: str) -> None:
    text = json.dumps(GOOD) + "\n" + json.dumps({**GOOD, **change}) + "\n"
    with pytest.raises(RecordError, match=message):
        read_jsonl(text, "in.jsonl")


def test_missing_field_is_named() -> None:
    bad = dict(GOOD)
    del bad["metric"]
    with pytest.raises(RecordError, match=r"in.jsonl, line 1: missing field 'metric'"):
        read_jsonl(json.dumps(bad), "in.jsonl")


def test_non_numeric_csv_value_names_line_and_field() -> None:
    text = write_csv([ResultRecord.model_validate(GOOD)]).replace("4068.22", "n/a")
    with pytest.raises(RecordError, match=r"x.csv, line 2: field 'value'"):
        read_csv(text, "x.csv")


def test_csv_missing_column_is_named() -> None:
    text = write_csv([ResultRecord.model_validate(GOOD)])
    header, row = text.splitlines()
    columns = header.split(",")
    index = columns.index("unit")
    text = (
        ",".join(c for i, c in enumerate(columns) if i != index)
        + "\n"
        + ",".join(v for i, v in enumerate(row.split(",")) if i != index)
    )
    with pytest.raises(RecordError, match="missing column 'unit'"):
        read_csv(text, "x.csv")


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        read_records(tmp_path / "absent.jsonl")


def test_warmup_records_are_numbered_from_zero_down_and_known_as_warmups() -> None:
    warmup = ResultRecord.model_validate({**GOOD, "repetition": 0, "status": "warmup"})
    failed = ResultRecord.model_validate({**GOOD, "repetition": -1, "status": "warmup_failed"})
    assert warmup.is_warmup and failed.is_warmup
    assert not ResultRecord.model_validate(GOOD).is_warmup
    (again,) = read_csv(write_csv([failed]))
    assert again == failed
