"""The bulk reader accepts, rejects and converts exactly what the per-record reader does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp import importer
from benchcamp import warehouse as wh
from benchcamp.cli import main
from benchcamp.records import RecordError, read_jsonl, read_records
from benchcamp.report import read_tables

GOOD: dict[str, Any] = {
    "study": "hibench_dse",
    "campaign": "c1",
    "environment": "local_lab",
    "workload": "wordcount",
    "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2},
    "repetition": 1,
    "metric": "duration_s",
    "value": 18.5,
    "unit": "s",
    "status": "ok",
    "started_at": "2026-11-01T00:00:00+00:00",
    "finished_at": "2026-11-01T00:00:18.500000Z",
    "artifact": "results/x",
}
# Lines outside the plain form the SQL checks cover, which Python's reader accepts.
ODD_BUT_VALID = [
    "",
    "   ",
    json.dumps({**GOOD, "repetition": 2.0}),
    json.dumps({**GOOD, "repetition": 3, "value": "19.25"}),
    json.dumps({**GOOD, "repetition": 4, "started_at": "2026-11-01T00:00:00", "finished_at": None}),
    json.dumps({**GOOD, "repetition": 5, "artifact": 'dir\\with "quotes"'}),
    json.dumps({**GOOD, "repetition": 6, "params": {"reduces": 2, "maps": 4, "data_size_gb": 0.012}}),
    json.dumps({**GOOD, "campaign": "c2", "status": "failed", "unit": ""}),
    '{"study": "hibench_dse", "study": "hibench_dse", ' + json.dumps(GOOD)[1:].replace('"c1"', '"c3"'),
    json.dumps({key: value for key, value in GOOD.items() if key != "artifact"}).replace('"c1"', '"c4"'),
    json.dumps({**GOOD, "repetition": 7, "value": 12345678901234567890}),
    json.dumps({**GOOD, "repetition": 8, "started_at": "2026-11-01T05:30:00+05:30", "value": 1e-05}),
    json.dumps(
        {**GOOD, "repetition": 9, "params": {"data_size_gb": 1e16, "maps": 4.0}, "study": "hib\u00e9nch"}
    ),
]
BAD = [
    json.dumps(GOOD)[:-1] + ", }",
    json.dumps({**GOOD, "value": float("nan")}),
    json.dumps({**GOOD, "extra": 1}),
    json.dumps({**GOOD, "repetition": 0}),
    json.dumps({**GOOD, "repetition": True}) + "x",
    json.dumps({**GOOD, "status": "maybe"}),
    json.dumps({**GOOD, "study": ""}),
    json.dumps({**GOOD, "params": {"data_size_gb": [1]}}),
    json.dumps({**GOOD, "started_at": "yesterday"}),
    json.dumps({**GOOD, "finished_at": "2026-02-30T00:00:00Z"}),
    json.dumps({**GOOD, "finished_at": "2026-11-01T24:00:00Z"}),
    json.dumps([GOOD]),
    json.dumps({key: value for key, value in GOOD.items() if key != "unit"}),
]


def staged(path: Path) -> list[tuple[Any, ...]]:
    with importer.staging() as con:
        importer.stage_file(con, path)
        return con.execute("select * exclude (line_no) from incoming order by line_no").fetchall()


def loaded_directly(path: Path, tmp: Path) -> list[tuple[Any, ...]]:
    """What `warehouse.load_records` stores for the per-record reader's records, in file order."""
    target = tmp / "direct.duckdb"
    records = read_jsonl(path.read_text(encoding="utf-8"))
    rows = []
    for record in records:  # one by one: a repeated key must not collapse here
        target.unlink(missing_ok=True)
        wh.load_records(target, [record])
        with duckdb.connect(str(target), read_only=True) as con:
            rows.extend(con.execute("select * from raw.results").fetchall())
    return rows


def test_odd_but_valid_lines_give_the_same_rows_as_the_per_record_reader(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join([json.dumps(GOOD), *ODD_BUT_VALID, json.dumps(GOOD)]) + "\n")
    assert staged(path) == loaded_directly(path, tmp_path)


@pytest.mark.parametrize("line", BAD, ids=range(len(BAD)))
def test_a_bad_line_gives_the_per_record_readers_message(tmp_path: Path, line: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([json.dumps(GOOD), "", line, json.dumps(GOOD)]) + "\n")
    with pytest.raises(RecordError) as expected:
        read_jsonl(path.read_text(encoding="utf-8"), str(path))
    with pytest.raises(RecordError) as got, importer.staging() as con:
        importer.stage_file(con, path)
    message, wanted = str(got.value), str(expected.value)
    # The tracebacks hold the staging connection's frame: drop them so DuckDB's objects die now.
    got.value.__traceback__ = expected.value.__traceback__ = None
    del got, expected
    assert message == wanted and "line 3" in message


def test_a_carriage_return_file_is_split_as_python_splits_it(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes((json.dumps(GOOD) + "\r\n" + json.dumps({**GOOD, "repetition": 0}) + "\r\n").encode())
    with pytest.raises(RecordError, match="line 2: field 'repetition'"), importer.staging() as con:
        importer.stage_file(con, path)


def test_spec_errors_name_record_and_line(tmp_path: Path) -> None:
    path = tmp_path / "spec.jsonl"
    path.write_text("\n".join([json.dumps(GOOD), "", json.dumps({**GOOD, "workload": "sort"})]) + "\n")
    with importer.staging() as con:
        importer.stage_file(con, path)
        with pytest.raises(importer.SpecMismatch, match=r"record 2 \(line 3\): .*no workload 'sort'"):
            importer.check_spec(con, path, strict_environment=False)


def test_warmup_records_import_and_stay_out_of_the_expectations(tmp_path: Path) -> None:
    """Warm-ups (status warmup, numbered 0 and below) load as they are; a 10x slower cold run
    fails no σ gate, and a warm-up numbered like a measured repetition is refused by line."""
    base = {"study": "hibench_dse", "campaign": "w", "environment": "local_lab", "workload": "wordcount",
            "params": {"data_size_gb": 240, "maps": 4, "reduces": 2}, "metric": "duration_s", "unit": "s"}  # fmt: skip
    lines = [
        {**base, "repetition": 0, "value": 100.0, "status": "warmup"},
        {**base, "repetition": 1, "value": 10.0, "status": "ok"},
        {**base, "repetition": 2, "value": 10.1, "status": "ok"},
    ]
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(line) + "\n" for line in lines))
    warehouse = tmp_path / "w.duckdb"
    assert main(["import", str(good), "--warehouse", str(warehouse)]) == 0
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert con.execute("select repetition, status from raw.results order by repetition").fetchall() == [
            (0, "warmup"),
            (1, "ok"),
            (2, "ok"),
        ]
    (row,) = read_tables(warehouse, "hibench_dse", "w")["scaling"]
    assert (row["n"], row["n_warmup"], row["n_failed"]) == (2, 1, 0) and row["mean_s"] == pytest.approx(10.05)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**base, "repetition": 1, "value": 1.0, "status": "warmup"}) + "\n")
    with pytest.raises(
        RecordError, match="line 1: field 'repetition': a warmup record is numbered 0 or below"
    ):
        read_records(bad)
    assert main(["import", str(bad), "--warehouse", str(tmp_path / "b.duckdb")]) == 2
