"""The SQL queries of bigbench_containers: parameters, their refusals, the fingerprint, DuckDB runs."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from benchcamp.studies.bigbench_containers import queries
from benchcamp.studies.bigbench_containers.datagen.parameters import DATA_PARAMETERS
from benchcamp.studies.bigbench_containers.datagen.writing import generate
from benchcamp.studies.bigbench_containers.queries import (
    Fingerprint,
    QueryParameterError,
    duckdb_query,
    hive_query,
    load_parameters,
    result_fingerprint,
    rows_from_hive_text,
    run_duckdb,
)
from benchcamp.studies.bigbench_containers.schema import TABLES, duckdb_view_sql

SQL_QUERIES = "q01 q02 q03 q04 q06 q07 q08 q09 q11 q12 q13 q14 q15 q16 q17 q21 q22 q23 q24 q29 q30".split()
SINGLE_ROW_QUERIES = {"q14", "q17"}  # one aggregate row: no order to fix
HIVEVAR = re.compile(r"\$\{hivevar:(\w+)\}")
GETVARIABLE = re.compile(r"getvariable\('(\w+)'\)")


@pytest.mark.parametrize("name", SQL_QUERIES)
def test_both_dialects_use_exactly_the_query_parameters(name: str) -> None:
    parameters = load_parameters()[name]
    hive_text = hive_query(name).text
    duckdb_sql = duckdb_query(name).sql
    assert set(HIVEVAR.findall(hive_text)) == set(parameters)
    assert set(GETVARIABLE.findall(duckdb_sql)) == set(parameters)
    if name not in SINGLE_ROW_QUERIES:
        assert "ORDER BY" in hive_text and "ORDER BY" in duckdb_sql, "results come in a total order"
    assert hive_text.lstrip().startswith("--"), "each query says in a comment what it answers"


def test_hive_parameters_render_as_hivevar_arguments() -> None:
    q01 = hive_query("q01")
    assert q01.hivevar_args() == [
        "--hivevar", "store_ids=1,2,3,4,5,6",
        "--hivevar", "min_tickets=2",
        "--hivevar", "top_n=100",
    ]  # fmt: skip
    assert hive_query("q09").hivevars == (
        ("year", "2002"),
        ("min_price", "50.0"),
        ("max_price", "200.0"),
        ("country", "United States"),
    )
    assert "SET hivevar:change_date=2002-06-01" in hive_query("q16").set_statements()
    assert ("gmt_offset", "-5") in hive_query("q17").hivevars


def test_parameters_are_typed_for_duckdb() -> None:
    variables = dict(duckdb_query("q24").variables)
    assert variables == {"item_ids": (3, 10, 17), "days_around": 30}
    q16 = dict(duckdb_query("q16").variables)
    assert q16["change_date"] == date(2002, 6, 1)
    assert q16["min_price"] == Decimal("50.00")


def test_parameters_follow_the_generated_data() -> None:
    parameters = load_parameters()
    assert str(parameters["q16"]["change_date"]) == DATA_PARAMETERS["price_change_date"]
    assert str(parameters["q22"]["change_date"]) == DATA_PARAMETERS["price_change_date"]
    assert set(parameters["q01"]["store_ids"]) <= set(DATA_PARAMETERS["stores"])
    assert parameters["q17"]["gmt_offset"] in DATA_PARAMETERS["gmt_offsets"]
    assert parameters["q04"]["cart_page_type"] in DATA_PARAMETERS["web_page_types"]
    assert parameters["q08"]["review_page_type"] in DATA_PARAMETERS["web_page_types"]
    assert all(item % 7 == 3 for item in parameters["q24"]["item_ids"])  # items whose price changes


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        ("Books'; DROP TABLE item; --", "strings may hold only"),
        ("${hivevar:other}", "strings may hold only"),
        ("back\\slash", "strings may hold only"),
        (" padded", "strings may hold only"),
        ("x" * 1001, "strings may hold only"),
        ("2002-13-01", "not a valid date"),
        (True, "booleans are not accepted"),
        (["a", "b"], "lists must be non-empty lists of integers"),
        ([], "lists must be non-empty lists of integers"),
        (1e300, "not a plain decimal number"),
        (10**19, "integer out of range"),
        ({"nested": 1}, "unsupported type dict"),
    ],
)
def test_unsafe_values_are_refused_naming_query_and_parameter(value: object, complaint: str) -> None:
    with pytest.raises(QueryParameterError, match=re.escape(complaint)) as raised:
        hive_query("q09", {"year": 2002, "min_price": 1, "max_price": 2, "country": value})
    assert "q09: parameter 'country'" in str(raised.value)
    with pytest.raises(QueryParameterError, match="q09: parameter 'country'"):
        duckdb_query("q09", {"year": 2002, "min_price": 1, "max_price": 2, "country": value})


def test_a_missing_parameter_or_an_unknown_query_is_refused() -> None:
    with pytest.raises(QueryParameterError, match=r"q09: no value for \$\{hivevar:\.\.\.\} country"):
        hive_query("q09", {"year": 2002, "min_price": 1, "max_price": 2})
    with pytest.raises(QueryParameterError, match=r"q09: no value for getvariable\(\.\.\.\) country"):
        duckdb_query("q09", {"year": 2002, "min_price": 1, "max_price": 2})
    with pytest.raises(QueryParameterError, match="unknown query 'q31'"):
        hive_query("q31")
    with pytest.raises(QueryParameterError, match="unknown query '../q01'"):
        hive_query("../q01")


def test_params_file_must_be_a_mapping_of_queries(tmp_path: Path) -> None:
    bad = tmp_path / "params.yaml"
    bad.write_text("q01: [1, 2]\n")
    with pytest.raises(QueryParameterError, match="q01 must map parameter names to values"):
        load_parameters(bad)
    bad.write_text("q99: {a: 1}\n")
    with pytest.raises(QueryParameterError, match="unknown query 'q99'"):
        load_parameters(bad)


def test_extra_hive_values_such_as_an_output_directory_are_checked_too() -> None:
    query = hive_query("q29", extra={"output_dir": "/tmp/bigbench/q29"})
    assert ("output_dir", "/tmp/bigbench/q29") in query.hivevars
    with pytest.raises(QueryParameterError, match="q29: parameter 'output_dir'"):
        hive_query("q29", extra={"output_dir": "/tmp/x'; --"})


def test_fingerprint_ignores_row_order_and_engine_spelling() -> None:
    duckdb_rows = [
        (1, "Books", Decimal("12.50"), 0.30833333, None, date(2002, 6, 1)),
        (2, "Music", Decimal("-3.10"), 1e-05, 7, date(2003, 1, 2)),
    ]
    hive_text = "2\tMusic\t-3.1\t1.0E-5\t7\t2003-01-02\n1\tBooks\t12.5\t0.3083\t\\N\t2002-06-01\n"
    assert result_fingerprint(duckdb_rows) == result_fingerprint(rows_from_hive_text(hive_text))
    assert result_fingerprint(duckdb_rows).rows == 2


def test_fingerprint_sees_a_changed_value_a_lost_row_and_a_duplicate() -> None:
    rows = [(1, "a", Decimal("1.00")), (2, "b", Decimal("2.00"))]
    base = result_fingerprint(rows)
    assert result_fingerprint([(1, "a", Decimal("1.01")), rows[1]]) != base
    assert result_fingerprint(rows[:1]) != base
    duplicated = result_fingerprint([*rows, rows[0]])
    assert duplicated.rows == 3 and duplicated.checksum != base.checksum
    assert result_fingerprint([(None,)]) != result_fingerprint([("",)])
    assert result_fingerprint([]) == Fingerprint(0, "0000000000000000")


def test_fingerprint_rounds_to_the_given_places() -> None:
    assert result_fingerprint([(0.123449,)]) == result_fingerprint([("0.12",)])
    assert result_fingerprint([(0.123449,)], places=4) != result_fingerprint([("0.12",)], places=4)
    assert result_fingerprint([(-0.001,)]) == result_fingerprint([(0,)])


@pytest.fixture(scope="module")
def tiny_warehouse(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    data_dir = tmp_path_factory.mktemp("bigbench_data")
    generate(data_dir, 0.002, seed=1)
    connection = duckdb.connect()
    for table in TABLES:
        connection.execute(duckdb_view_sql(table, str(data_dir)))
    return connection


@pytest.mark.parametrize("name", SQL_QUERIES)
def test_every_sql_query_selects_rows_on_generated_data(
    tiny_warehouse: duckdb.DuckDBPyConnection, name: str
) -> None:
    rows = run_duckdb(tiny_warehouse, duckdb_query(name))
    assert rows, f"{name} returned no rows at SF 0.002"


def test_duckdb_parameters_are_bound_not_pasted(tiny_warehouse: duckdb.DuckDBPyConnection) -> None:
    parameters = {**load_parameters()["q09"], "country": "Nowhere"}
    assert run_duckdb(tiny_warehouse, duckdb_query("q09", parameters)) == []
    wider = {**load_parameters()["q01"], "store_ids": list(DATA_PARAMETERS["stores"]), "top_n": 5}
    rows = run_duckdb(tiny_warehouse, duckdb_query("q01", wider))
    assert len(rows) == 5 and rows == sorted(rows, key=lambda row: (-row[2], row[0], row[1]))


def test_module_names_its_query_folder() -> None:
    assert queries.QUERY_DIR.name == "queries" and (queries.DUCKDB_DIR / "q01.sql").is_file()


def test_hive_text_splits_into_statements_for_one_call_each() -> None:
    query = queries.HiveQuery(
        "q01", "-- what it answers\nSET x=1;\nSELECT 1\nFROM t;  \n-- trailing note\n", ()
    )
    assert query.statements() == ["SET x=1", "SELECT 1\nFROM t"]
    assert all(len(hive_query(name).statements()) == 1 for name in SQL_QUERIES)
