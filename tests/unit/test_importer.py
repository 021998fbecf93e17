"""The bulk reader accepts, rejects and converts exactly what the per-record reader does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.records import RecordError, ResultRecord, read_jsonl, read_records, write_csv, write_jsonl
from benchcamp.ops.cli import main
from benchcamp.pipeline import importer
from benchcamp.pipeline import warehouse as wh
from benchcamp.presentation.report import read_tables

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
    json.dumps({**GOOD, "repetition": 10_000_000_000}),  # beyond the warehouse's 32-bit column
    json.dumps({**GOOD, "repetition": True}) + "x",
    json.dumps({**GOOD, "status": "maybe"}),
    json.dumps({**GOOD, "study": ""}),
    json.dumps({**GOOD, "params": {"data_size_gb": [1]}}),
    json.dumps({**GOOD, "started_at": "yesterday"}),
    json.dumps({**GOOD, "finished_at": "2026-02-30T00:00:00Z"}),
    json.dumps({**GOOD, "finished_at": "2026-11-01T24:00:00Z"}),
    json.dumps([GOOD]),
    json.dumps({key: value for key, value in GOOD.items() if key != "unit"}),
    # a campaign names an archive folder, a URL and a download's file name (records.CAMPAIGN_NAME)
    json.dumps({**GOOD, "campaign": "baseline run"}),
    json.dumps({**GOOD, "campaign": "../elsewhere"}),
    json.dumps({**GOOD, "campaign": "M\u00e4rz\u2013Lauf"}),
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


def test_a_file_name_holding_glob_characters_is_read_as_itself(tmp_path: Path) -> None:
    """DuckDB's read_text takes a glob: `runs[1].jsonl` must not read `runs1.jsonl` beside it."""
    named = tmp_path / "runs[1].jsonl"
    named.write_text(json.dumps(GOOD) + "\n")
    (tmp_path / "runs1.jsonl").write_text(json.dumps({**GOOD, "campaign": "other"}) + "\n")
    assert [row[1] for row in staged(named)] == ["c1"]


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


def test_a_cell_without_durations_is_counted_and_gated_by_its_one_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A published summary figure (a cell with one metric, no `duration_s`) is a run per
    repetition: complete runs pass every expectation, a missing one is named."""
    base = {"study": "hibench_dse", "campaign": "s", "environment": "local_lab", "workload": "wordcount",
            "params": {"data_size_gb": 240, "maps": 4, "reduces": 2}, "metric": "throughput_mb_s",
            "unit": "MB/s", "status": "ok"}  # fmt: skip
    complete = [{**base, "repetition": rep, "value": 50.0 + rep} for rep in (1, 2, 3)]
    code, out, _, _ = _import(_write(tmp_path / "complete.jsonl", complete), tmp_path / "a", capsys)
    assert code == 0, out
    gap = [row for row in complete if row["repetition"] != 2]
    (tmp_path / "b").mkdir()
    code, out, _, _ = _import(_write(tmp_path / "gap.jsonl", gap), tmp_path / "b", capsys)
    assert code == ExitCode.VALIDATION_FAILED
    (failure,) = [line for line in out.splitlines() if line.startswith("FAILED repetitions_complete")]
    assert failure.endswith("2 of 3 repetitions present (missing: 2)"), failure


# -- what a record file may hold: repeated keys, the spec's axes, BOMs, CRLF, malformed rows ---------


def _import(path: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, Path]:
    """`benchcamp import path` into a new warehouse: exit code, stdout, stderr, the warehouse path."""
    target = tmp / "imported.duckdb"
    code = main(["import", str(path), "--warehouse", str(target)])
    out = capsys.readouterr()
    return code, out.out, out.err, target


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    """The records as JSON Lines or, for a .csv path, as CSV (records.write_csv's columns)."""
    records = [ResultRecord.model_validate(row) for row in rows]
    path.write_text(write_csv(records) if path.suffix == ".csv" else write_jsonl(records), encoding="utf-8")
    return path


def _refused(path: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Import `path`, which must exit 2 and load nothing; returns the error message."""
    code, _, err, target = _import(path, tmp, capsys)
    assert code == ExitCode.BAD_INPUT and err.endswith("nothing was loaded\n"), err
    assert not target.exists()
    return err


@pytest.mark.parametrize(("suffix", "lines"), [(".jsonl", (3, 1)), (".csv", (4, 2))])
def test_a_key_repeated_with_different_values_is_refused_naming_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str, lines: tuple[int, int]
) -> None:
    path = _write(tmp_path / f"repeated{suffix}", [GOOD, {**GOOD, "repetition": 2}, {**GOOD, "value": 19.25}])
    later, earlier = lines
    err = _refused(path, tmp_path, capsys)
    assert (
        f"{path}, line {later}: field 'value': 19.25, but line {earlier} gives 18.5 for the same record"
        in err
    )
    assert "campaign c1, environment local_lab, cell wordcount|data_size_gb=0.012|maps=4|reduces=2" in err
    # any stored field counts: the same key and value with another status is no repeat either
    _write(path, [GOOD, {**GOOD, "status": "failed"}])
    assert f"line {earlier + 1}: field 'status': failed, but line {earlier} gives ok" in _refused(
        path, tmp_path, capsys
    )


def test_identical_repeats_are_loaded_once_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    second = {**GOOD, "repetition": 2, "value": 18.6}
    path = _write(tmp_path / "twice.jsonl", [GOOD, second, GOOD, GOOD])
    code, out, _, target = _import(path, tmp_path, capsys)
    assert code == 0, out
    assert (
        "hibench_dse / c1: 4 records (2 new, 0 replaced; 2 identical repeat(s) loaded once: "
        "line 3 = line 1, line 4 = line 1)" in out
    )
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute("select repetition, value from raw.results order by all").fetchall() == [
            (1, 18.5),
            (2, 18.6),
        ]
    (row,) = read_tables(target, "hibench_dse", "c1")["scaling"]
    assert (row["n"], row["n_failed"]) == (2, 0)  # counted once, as validation saw them


def test_a_csv_without_the_column_of_a_needed_axis_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dfsio = {**GOOD, "workload": "dfsio_read", "params": {"data_size_gb": 0.012}}
    path = _write(tmp_path / "records.csv", [dfsio, GOOD])
    header, *rows = path.read_text().splitlines()
    columns = header.split(",")
    drop = columns.index("param.maps")
    path.write_text(
        "\n".join(",".join(v for i, v in enumerate(line.split(",")) if i != drop) for line in [header, *rows])
    )
    err = _refused(path, tmp_path, capsys)
    assert (
        f"{path}, line 1: missing column 'param.maps' (record 2 on line 3: workload 'wordcount' needs" in err
    )
    # a record that may belong to either of two series: either column would do
    ycsb = {
        **GOOD,
        "study": "ycsb_hbase_cassandra",
        "workload": "ycsb_a",
        "params": {"store": "hbase", "threads": 1},
    }
    _write(path, [ycsb])
    assert f"{path}, line 1: missing column 'param.operationcount' or 'param.target_ops'" in _refused(
        path, tmp_path, capsys
    )
    # a file whose records need no such axis needs no such column
    _write(path, [dfsio])
    assert "param.maps" not in path.read_text()
    with importer.staging() as con:
        assert importer.stage_file(con, path) == 1
        importer.check_spec(con, path, strict_environment=False)


@pytest.mark.parametrize(
    ("study", "workload", "params", "message"),
    [
        (
            "bigbench_containers",
            "bigbench_power",
            {"cluster_nodes": 10, "scale_factor_gb": 10},
            "workload 'bigbench_power' needs axis 'query' "
            "(series 'power_test': cluster_nodes, scale_factor_gb, query)",
        ),
        (
            "hibench_dse",
            "wordcount",
            {"data_size_gb": 1, "reduces": 2},
            "workload 'wordcount' needs axis 'maps' (series 'wordcount_tuning': data_size_gb, maps, reduces)",
        ),
        (
            "ycsb_hbase_cassandra",
            "ycsb_a",
            {"store": "hbase", "threads": 16},
            "workload 'ycsb_a' needs axis 'operationcount' (series 'operationcount_sweep': store, "
            "operationcount, threads) or 'target_ops' (series 'offered_load_sweep': store, target_ops, threads)",
        ),
        (
            "bigbench_containers",
            "bigbench_load",
            {"cluster_nodes": 10, "scale_factor_gb": 10, "query": "q01"},
            "axis 'query' is in no series of workload 'bigbench_load'",
        ),
        (
            "ycsb_hbase_cassandra",
            "ycsb_a",
            {"store": "hbase", "threads": 1, "operationcount": 1000, "target_ops": 500},
            "axes operationcount, store, target_ops, threads are not those of one series of workload "
            "'ycsb_a' (series 'operationcount_sweep': store, operationcount, threads; "
            "series 'offered_load_sweep': store, target_ops, threads; "
            "series 'clients_sweep': store, target_ops, threads, clients)",
        ),
    ],
)
def test_a_record_needs_exactly_the_axes_of_one_series_of_its_workload(
    tmp_path: Path, study: str, workload: str, params: dict[str, Any], message: str
) -> None:
    bad = {**GOOD, "study": study, "workload": workload, "params": params}
    path = _write(tmp_path / "axes.jsonl", [GOOD, bad])
    with importer.staging() as con:
        importer.stage_file(con, path)
        with pytest.raises(importer.SpecMismatch) as refused:
            importer.check_spec(con, path, strict_environment=False)
    text = str(refused.value)
    refused.value.__traceback__ = None  # let the staging connection go now
    assert text == f"{path}: record 2 (line 2): {message}"


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
@pytest.mark.parametrize(("bom", "newline"), [("\ufeff", "\n"), ("", "\r\n"), ("\ufeff", "\r\n")])
def test_a_byte_order_mark_and_crlf_lines_are_accepted(
    tmp_path: Path, suffix: str, bom: str, newline: str
) -> None:
    plain = _write(tmp_path / f"plain{suffix}", [GOOD, {**GOOD, "repetition": 2}, {**GOOD, "repetition": 3}])
    text = plain.read_text(encoding="utf-8")
    variant = tmp_path / f"variant{suffix}"
    variant.write_bytes((bom + text.replace("\n", newline)).encode())
    assert len(staged(plain)) == 3 and staged(variant) == staged(plain)
    assert read_records(variant) == read_records(plain)
    # and a bad line is still named by its own number
    bad_line = 3 if suffix == ".jsonl" else 4
    lines = text.splitlines()
    value, bad = (",18.5,", ",fast,") if suffix == ".csv" else ('"value": 18.5', '"value": "fast"')
    lines[bad_line - 1] = lines[bad_line - 1].replace(value, bad)
    variant.write_bytes((bom + newline.join(lines) + newline).encode())
    with pytest.raises(RecordError, match=f"line {bad_line}: field 'value'"), importer.staging() as con:
        importer.stage_file(con, variant)


def _csv_lines(tmp: Path) -> tuple[Path, list[str]]:
    path = _write(tmp / "rows.csv", [GOOD, {**GOOD, "repetition": 2}])
    return path, path.read_text().splitlines()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda row: row + ",surplus", "line 3: 16 fields where the header has 15: field 16 ('surplus') has no column"),
        (lambda row: row.rsplit(",", 1)[0], "line 3: 14 fields where the header has 15: no field for column 'param.reduces'"),
        (lambda row: row + ',"open', "line 3: not valid CSV (unexpected end of data)"),
        (lambda row: row.replace(",s,", ',"s"x,'), "line 3: not valid CSV (',' expected after '\"')"),
        (lambda row: row.replace(",s,", ",s\r,"), "line 3: not valid CSV (a carriage return that does not end the line"),
        (lambda row: row.replace(",4,2", ",nan,2"), "line 3: field 'params': axis 'maps' must be a finite number, not nan"),
    ],
    ids=["extra field", "missing field", "open quote", "stray quote", "lone CR", "NaN axis"],
)  # fmt: skip
def test_a_malformed_csv_row_exits_2_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    path, lines = _csv_lines(tmp_path)
    lines[2] = change(lines[2])
    path.write_text("\n".join(lines) + "\n")
    assert f"{path}, {message}" in _refused(path, tmp_path, capsys)


def test_a_csv_header_naming_a_column_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, lines = _csv_lines(tmp_path)
    lines[0] = lines[0].replace("artifact", "value")
    path.write_text("\n".join(lines) + "\n")
    assert f"{path}, line 1: column 'value' appears twice" in _refused(path, tmp_path, capsys)


def test_line_numbers_are_the_files_own_lines(tmp_path: Path) -> None:
    """Blank lines, a quoted CSV field over two lines and a U+2028 in a JSON string (a line break
    to str.splitlines, to no editor) leave every later line its own number."""
    quoted = {**GOOD, "repetition": 2, "artifact": "two\nlines"}
    sort = {**GOOD, "repetition": 3, "workload": "sort"}
    path = _write(tmp_path / "spread.csv", [GOOD, quoted, sort])
    header, first, *rest = path.read_text().split("\n")
    path.write_text("\n".join([header, first, "", *rest]))  # sort's record: line 6
    with importer.staging() as con:
        assert importer.stage_file(con, path) == 3
        with pytest.raises(
            importer.SpecMismatch, match=r"spread.csv: record 3 \(line 6\): .*no workload 'sort'"
        ):
            importer.check_spec(con, path, strict_environment=False)
    path.write_text(
        path.read_text().replace("sort", "wordcount").replace(",3,duration_s,18.5", ",3,duration_s,fast")
    )
    with pytest.raises(RecordError, match=r"spread.csv, line 6: field 'value'"), importer.staging() as con:
        importer.stage_file(con, path)
    separated = {**GOOD, "artifact": "a\u2028b"}
    path = tmp_path / "separator.jsonl"
    path.write_text(
        json.dumps(separated, ensure_ascii=False) + "\n\n" + json.dumps({**GOOD, "value": "x"}) + "\n"
    )
    with (
        pytest.raises(RecordError, match=r"separator.jsonl, line 3: field 'value'"),
        importer.staging() as con,
    ):
        importer.stage_file(con, path)
    path.write_text(json.dumps(separated, ensure_ascii=False) + "\n")
    ((*_, artifact),) = staged(path)
    assert artifact == "a\u2028b"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"\xff\xfe{}", "line 2: not UTF-8 (byte 0xff at byte 1 of the line)"),
        (b"[" * 100_000, "line 2: not valid JSON (nested too deeply)"),
        (json.dumps({**GOOD, "params": {"maps": float("inf")}}).encode(), "line 2: field 'params': axis 'maps' must be a finite number, not inf"),
    ],
    ids=["not UTF-8", "nested", "infinite axis"],
)  # fmt: skip
def test_a_malformed_json_line_exits_2_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: bytes, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n" + line + b"\n")
    assert f"{path}, {message}" in _refused(path, tmp_path, capsys)


def test_a_suite_that_breaks_during_the_load_leaves_the_warehouse_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite runs beside the records' insert and its failures join the same transaction: when
    it raises after the records went in, the load rolls back and the warehouse keeps what it had."""
    first = _write(
        tmp_path / "first.jsonl", [{**GOOD, "repetition": n, "value": 18.0 + n} for n in (1, 2, 3)]
    )
    warehouse = tmp_path / "kept.duckdb"
    assert main(["import", str(first), "--warehouse", str(warehouse)]) == 0
    with duckdb.connect(str(warehouse), read_only=True) as con:
        before = con.execute("select * from raw.results order by all").fetchall()
        failures_before = con.execute("select count(*) from raw.validation_failures").fetchall()
    inserted = []
    real_load = importer.load

    def load_then_watch(con: Any, *args: Any) -> Any:
        # the records are in the open transaction when the suite's failures are asked for
        def failures() -> Any:
            inserted.append(con.execute("select count(*) from raw.results").fetchone()[0])
            raise RuntimeError("the suite broke")

        return real_load(con, args[0], args[1], failures, args[3])

    monkeypatch.setattr(importer, "load", load_then_watch)
    second = _write(
        tmp_path / "second.jsonl",
        [{**GOOD, "campaign": "c2", "repetition": n, "value": 30.0 + n} for n in (1, 2, 3)]
        + [{**GOOD, "repetition": 1, "value": 99.0}],
    )
    with pytest.raises(RuntimeError, match="the suite broke"):
        main(["import", str(second), "--warehouse", str(warehouse)])
    assert inserted == [len(before) + 3]  # c2's three records new, c1's repetition 1 replaced
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert con.execute("select * from raw.results order by all").fetchall() == before
        assert con.execute("select count(*) from raw.validation_failures").fetchall() == failures_before
