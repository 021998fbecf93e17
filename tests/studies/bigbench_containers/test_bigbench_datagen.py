"""The bigbench_containers schema and data generator, on a tiny generated data set read by DuckDB.

One data set (SF 0.001, the minimum sizes) is generated once for the module and read through the
schema's own DuckDB views, so the checks go through the same column types Hive gets: determinism,
sizes, referential integrity, and the shapes the 30 queries rely on (baskets, sessions, reviews,
price changes, returns, channel shifts, inventory variation).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.studies.bigbench_containers import schema
from benchcamp.studies.bigbench_containers.datagen import parameters, scaling, writing
from benchcamp.studies.bigbench_containers.datagen.parameters import DATA_PARAMETERS

SF = 0.001
SEED = 7


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bigbench") / "data"
    summary = writing.generate(directory, SF, SEED, processes=1)
    assert set(summary.tables) == set(schema.TABLES)
    return directory


@pytest.fixture(scope="module")
def con(data_dir: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """The schema's views (schema `files`), read once into tables of the same names (schema `main`)."""
    connection = duckdb.connect()
    connection.execute("create schema files; use files")
    for table in schema.TABLES:
        connection.execute(schema.duckdb_view_sql(table, str(data_dir)))
    connection.execute("use main")
    for table in schema.TABLES:
        connection.execute(f"create table main.{table} as select * from files.{table}")
    yield connection
    connection.close()


def scalar(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


def digests(directory: Path) -> dict[str, str]:
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*.dat"))
    }


# ---------------------------------------------------------------------------------------------
# schema


def test_schema_has_the_23_tables_with_tpcds_and_bigbench_columns() -> None:
    assert len(schema.TABLES) == 23
    assert schema.columns("item_marketprices") == (
        "imp_sk",
        "imp_item_sk",
        "imp_competitor",
        "imp_competitor_price",
        "imp_start_date",
        "imp_end_date",
    )
    assert schema.columns("web_clickstreams")[2] == "wcs_sales_sk"
    assert schema.columns("product_reviews")[-1] == "pr_review_content"
    assert len(schema.columns("store_sales")) == 23 and len(schema.columns("web_sales")) == 34
    assert not {"catalog_sales", "call_center"} & set(schema.TABLES)


def test_hive_ddl_quotes_the_location_and_refuses_other_names() -> None:
    ddl = schema.hive_ddl("bigbench", "reason", "hdfs:///data/it's\\here")
    assert ddl.startswith("CREATE EXTERNAL TABLE `bigbench`.`reason` (\n  `r_reason_sk` bigint,")
    assert "FIELDS TERMINATED BY '|'" in ddl
    assert ddl.endswith("LOCATION 'hdfs:///data/it\\'s\\\\here'")
    for database, table in (
        ("big bench", "reason"),
        ("db", "reason; DROP TABLE x"),
        ("db", "`x`"),
        ("db", "nope"),
    ):
        with pytest.raises(schema.SchemaError):
            schema.hive_ddl(database, table, "/data")
    with pytest.raises(schema.SchemaError):
        schema.hive_ddl("db", "reason", "/data\nLOCATION '/elsewhere'")


def test_duckdb_view_quotes_the_directory_and_refuses_globs(tmp_path: Path) -> None:
    directory = tmp_path / "it's here"
    (directory / "reason").mkdir(parents=True)
    (directory / "reason" / "part-00000.dat").write_text('1|R1|a "quoted" reason\n2|\\N|x\n')
    with duckdb.connect() as connection:
        connection.execute(schema.duckdb_view_sql("reason", str(directory)))
        assert connection.execute("select * from reason order by 1").fetchall() == [
            (1, "R1", 'a "quoted" reason'),
            (2, None, "x"),
        ]
    with pytest.raises(schema.SchemaError):
        schema.duckdb_view_sql("reason", str(tmp_path / "*"))
    with pytest.raises(schema.SchemaError):
        schema.duckdb_view_sql("no_such_table", str(tmp_path))


def test_views_read_every_column_with_the_schema_types(con: duckdb.DuckDBPyConnection) -> None:
    for table, columns in schema.TABLES.items():
        described = con.execute(f"describe files.{table}").fetchall()
        assert [(name, kind) for name, kind, *_ in described] == [
            (name, schema.duckdb_type(hive_type)) for name, hive_type in columns
        ]
        counts = ", ".join(f"count({name})" for name, _ in columns)
        assert con.execute(f"select count(*), {counts} from {table}").fetchone()[0] > 0  # type: ignore[index]


# ---------------------------------------------------------------------------------------------
# files, sizes, determinism


def test_every_row_has_exactly_its_fields(data_dir: Path) -> None:
    """A `|` or line break inside a field would show as a row with the wrong number of separators."""
    for table, columns in schema.TABLES.items():
        for path in (data_dir / table).glob("*.dat"):
            data = path.read_bytes()
            assert data.endswith(b"\n") and b"\r" not in data and b"\0" not in data
            separators = {line.count(b"|") for line in data.split(b"\n")[:-1]}
            assert separators == {len(columns) - 1}, (table, path.name)


def test_same_scale_and_seed_give_the_same_bytes_whatever_the_processes_and_files(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut into files of 700 tickets/orders/sessions and written by 2 processes, every table holds
    the same bytes, in the same order, as written whole by one process."""
    monkeypatch.setattr(writing, "PART_KEYS", 700)  # read by the parent, which plans the files
    again = tmp_path / "again"
    summary = writing.generate(again, SF, SEED, processes=2)
    assert summary.tables["store_sales"].files > 3 and summary.tables["web_clickstreams"].files > 6

    def joined(directory: Path, table: str) -> bytes:
        return b"".join(path.read_bytes() for path in sorted((directory / table).glob("part-*.dat")))

    for table in schema.TABLES:
        assert (
            hashlib.sha256(joined(again, table)).digest() == hashlib.sha256(joined(data_dir, table)).digest()
        ), table


def test_another_seed_gives_other_facts(data_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    summary = writing.generate(other, SF, SEED + 1, processes=1, tables=["store_sales", "date_dim"])
    assert set(summary.tables) == {"store_sales", "date_dim"}
    first, second = digests(data_dir), digests(other)
    assert set(second) == {"store_sales/part-00000.dat", "date_dim/part-00000.dat"}
    assert first["store_sales/part-00000.dat"] != second["store_sales/part-00000.dat"]
    assert first["date_dim/part-00000.dat"] == second["date_dim/part-00000.dat"]


def test_rows_and_bytes_follow_the_scale(data_dir: Path) -> None:
    expected = scaling.expected_rows(scaling.scale_for(SF))
    written = {
        table: sum(len(p.read_bytes().splitlines()) for p in (data_dir / table).glob("*.dat"))
        for table in schema.TABLES
    }
    for table, rows in expected.items():
        assert abs(written[table] - rows) <= 0.05 * rows + 5, table
    total = sum(p.stat().st_size for p in data_dir.rglob("*.dat"))
    assert abs(total - scaling.estimate_bytes(SF)) < 0.05 * total
    small, large = scaling.expected_rows(scaling.scale_for(1)), scaling.expected_rows(scaling.scale_for(10))
    for table in ("store_sales", "web_sales", "web_clickstreams", "product_reviews", "store_returns"):
        assert large[table] / small[table] == pytest.approx(10, rel=0.1)
    for table in ("item", "customer", "store", "promotion"):
        assert 1 < large[table] / small[table] < 7
    for sf in (0.1, 1, 10, 100):
        assert scaling.estimate_bytes(sf) == pytest.approx(sf * 1e9, rel=0.05)


def test_refuses_before_writing_when_the_disk_is_too_small(tmp_path: Path) -> None:
    target = tmp_path / "too_big"
    with pytest.raises(scaling.InsufficientSpaceError, match=r"needs about .* GB .* has .* GB .* free"):
        writing.generate(target, 1e7, SEED)
    assert not target.exists()
    assert scaling.check_free_space(tmp_path, SF) > scaling.estimate_bytes(SF)


def test_cli_refuses_a_bad_scale_factor_and_a_disk_too_small(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        writing.main(["--data-dir", str(tmp_path / "a"), "--scale-factor", "0"])
    assert exit_info.value.code == 2 and "positive" in capsys.readouterr().err
    assert writing.main(["--data-dir", str(tmp_path / "b"), "--scale-factor", "1e7", "--seed", "3"]) == 2
    assert "refused: BigBench data at SF 1e+07 needs about" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_cli_writes_the_chosen_tables_and_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        writing.main(["--data-dir", str(tmp_path), "--scale-factor", "0.001", "--tables", "reason", "store"])
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert {name: table["rows"] for name, table in summary["tables"].items()} == {"reason": 35, "store": 12}
    assert summary["total_bytes"] == sum(path.stat().st_size for path in tmp_path.rglob("*.dat"))


# ---------------------------------------------------------------------------------------------
# referential integrity

FOREIGN_KEYS = {
    "store_sales": {
        "ss_sold_date_sk": "date_dim.d_date_sk",
        "ss_sold_time_sk": "time_dim.t_time_sk",
        "ss_item_sk": "item.i_item_sk",
        "ss_customer_sk": "customer.c_customer_sk",
        "ss_cdemo_sk": "customer_demographics.cd_demo_sk",
        "ss_hdemo_sk": "household_demographics.hd_demo_sk",
        "ss_addr_sk": "customer_address.ca_address_sk",
        "ss_store_sk": "store.s_store_sk",
        "ss_promo_sk": "promotion.p_promo_sk",
    },
    "store_returns": {
        "sr_returned_date_sk": "date_dim.d_date_sk",
        "sr_return_time_sk": "time_dim.t_time_sk",
        "sr_item_sk": "item.i_item_sk",
        "sr_customer_sk": "customer.c_customer_sk",
        "sr_store_sk": "store.s_store_sk",
        "sr_reason_sk": "reason.r_reason_sk",
    },
    "web_sales": {
        "ws_sold_date_sk": "date_dim.d_date_sk",
        "ws_sold_time_sk": "time_dim.t_time_sk",
        "ws_ship_date_sk": "date_dim.d_date_sk",
        "ws_item_sk": "item.i_item_sk",
        "ws_bill_customer_sk": "customer.c_customer_sk",
        "ws_bill_cdemo_sk": "customer_demographics.cd_demo_sk",
        "ws_bill_hdemo_sk": "household_demographics.hd_demo_sk",
        "ws_bill_addr_sk": "customer_address.ca_address_sk",
        "ws_web_page_sk": "web_page.wp_web_page_sk",
        "ws_web_site_sk": "web_site.web_site_sk",
        "ws_ship_mode_sk": "ship_mode.sm_ship_mode_sk",
        "ws_warehouse_sk": "warehouse.w_warehouse_sk",
        "ws_promo_sk": "promotion.p_promo_sk",
    },
    "web_returns": {
        "wr_returned_date_sk": "date_dim.d_date_sk",
        "wr_returned_time_sk": "time_dim.t_time_sk",
        "wr_item_sk": "item.i_item_sk",
        "wr_refunded_customer_sk": "customer.c_customer_sk",
        "wr_web_page_sk": "web_page.wp_web_page_sk",
        "wr_reason_sk": "reason.r_reason_sk",
    },
    "inventory": {
        "inv_date_sk": "date_dim.d_date_sk",
        "inv_item_sk": "item.i_item_sk",
        "inv_warehouse_sk": "warehouse.w_warehouse_sk",
    },
    "web_clickstreams": {
        "wcs_click_date_sk": "date_dim.d_date_sk",
        "wcs_click_time_sk": "time_dim.t_time_sk",
        "wcs_item_sk": "item.i_item_sk",
        "wcs_web_page_sk": "web_page.wp_web_page_sk",
        "wcs_user_sk": "customer.c_customer_sk",
        "wcs_sales_sk": "web_sales.ws_order_number",
    },
    "product_reviews": {
        "pr_item_sk": "item.i_item_sk",
        "pr_user_sk": "customer.c_customer_sk",
        "pr_order_sk": "web_sales.ws_order_number",
    },
    "item_marketprices": {
        "imp_item_sk": "item.i_item_sk",
        "imp_start_date": "date_dim.d_date_sk",
        "imp_end_date": "date_dim.d_date_sk",
    },
    "customer": {
        "c_current_cdemo_sk": "customer_demographics.cd_demo_sk",
        "c_current_hdemo_sk": "household_demographics.hd_demo_sk",
        "c_current_addr_sk": "customer_address.ca_address_sk",
    },
    "household_demographics": {"hd_income_band_sk": "income_band.ib_income_band_sk"},
    "promotion": {"p_item_sk": "item.i_item_sk", "p_start_date_sk": "date_dim.d_date_sk"},
}


@pytest.mark.parametrize("fact", sorted(FOREIGN_KEYS))
def test_every_foreign_key_exists_in_its_dimension(con: duckdb.DuckDBPyConnection, fact: str) -> None:
    for column, target in FOREIGN_KEYS[fact].items():
        dimension, key = target.split(".")
        orphans = scalar(
            con,
            f"select count(*) from {fact} f where f.{column} is not null "
            f"and not exists (select 1 from {dimension} d where d.{key} = f.{column})",
        )
        assert orphans == 0, f"{fact}.{column} -> {target}"
        assert scalar(con, f"select count({column}) from {fact}") > 0, column


def test_primary_keys_are_unique(con: duckdb.DuckDBPyConnection) -> None:
    keys = {
        "store_sales": "ss_ticket_number, ss_item_sk",
        "web_sales": "ws_order_number, ws_item_sk",
        "store_returns": "sr_ticket_number, sr_item_sk",
        "web_returns": "wr_order_number, wr_item_sk",
        "inventory": "inv_date_sk, inv_item_sk, inv_warehouse_sk",
        "product_reviews": "pr_review_sk",
        "item_marketprices": "imp_sk",
        "item": "i_item_sk",
        "customer": "c_customer_sk",
        "date_dim": "d_date_sk",
        "time_dim": "t_time_sk",
    }
    for table, key in keys.items():
        assert scalar(con, f"select count(*) - count(distinct ({key})) from {table}") == 0, table


def test_returns_match_their_sale(con: duckdb.DuckDBPyConnection) -> None:
    store = scalar(
        con,
        "select count(*) from store_returns r left join store_sales s "
        "on s.ss_ticket_number = r.sr_ticket_number and s.ss_item_sk = r.sr_item_sk "
        "where s.ss_item_sk is null or r.sr_returned_date_sk <= s.ss_sold_date_sk "
        "or r.sr_return_quantity > s.ss_quantity or r.sr_customer_sk <> s.ss_customer_sk "
        "or r.sr_store_sk <> s.ss_store_sk",
    )
    web = scalar(
        con,
        "select count(*) from web_returns r left join web_sales s "
        "on s.ws_order_number = r.wr_order_number and s.ws_item_sk = r.wr_item_sk "
        "where s.ws_item_sk is null or r.wr_returned_date_sk <= s.ws_sold_date_sk "
        "or r.wr_return_quantity > s.ws_quantity or r.wr_returning_customer_sk <> s.ws_bill_customer_sk",
    )
    assert (store, web) == (0, 0)
    assert scalar(con, "select count(*) from store_returns") > 100
    assert scalar(con, "select count(*) from web_returns") > 20


def test_purchase_clicks_name_their_order_item_and_buyer(con: duckdb.DuckDBPyConnection) -> None:
    mismatched = scalar(
        con,
        "select count(*) from web_clickstreams c where c.wcs_sales_sk is not null and not exists ("
        " select 1 from web_sales s where s.ws_order_number = c.wcs_sales_sk and s.ws_item_sk = c.wcs_item_sk"
        " and s.ws_bill_customer_sk = c.wcs_user_sk and s.ws_sold_date_sk = c.wcs_click_date_sk)",
    )
    assert mismatched == 0
    # every web order line has its purchase click
    assert scalar(con, "select count(*) from web_clickstreams where wcs_sales_sk is not null") == scalar(
        con, "select count(*) from web_sales"
    )


def test_reviews_are_by_the_buyer_of_an_ordered_item(con: duckdb.DuckDBPyConnection) -> None:
    mismatched = scalar(
        con,
        "select count(*) from product_reviews r where not exists (select 1 from web_sales s "
        "join date_dim d on d.d_date_sk = s.ws_sold_date_sk "
        "where s.ws_order_number = r.pr_order_sk and s.ws_item_sk = r.pr_item_sk "
        "and s.ws_bill_customer_sk = r.pr_user_sk and r.pr_review_date > d.d_date)",
    )
    assert mismatched == 0
    assert scalar(con, "select min(pr_review_rating) * 10 + max(pr_review_rating) from product_reviews") == 15
    assert scalar(con, "select count(*) from product_reviews where pr_review_sk // 10 <> pr_order_sk") == 0


# ---------------------------------------------------------------------------------------------
# what the queries need


def test_baskets_hold_several_items_that_co_occur(con: duckdb.DuckDBPyConnection) -> None:
    tickets = con.execute(
        "select count(*), count(*) filter (where n >= 2), max(n) from "
        "(select ss_ticket_number, count(*) n from store_sales group by 1)"
    ).fetchone()
    assert tickets is not None and tickets[1] > 0.8 * tickets[0] and tickets[2] == 12
    top_pair = scalar(
        con,
        "select max(n) from (select a.ss_item_sk, b.ss_item_sk, count(*) n from store_sales a "
        "join store_sales b on a.ss_ticket_number = b.ss_ticket_number and a.ss_item_sk < b.ss_item_sk "
        "where a.ss_store_sk in (1, 2, 3) group by 1, 2)",
    )
    assert top_pair >= 10
    web_pair = scalar(
        con,
        "select max(n) from (select a.ws_item_sk, b.ws_item_sk, count(*) n from web_sales a "
        "join web_sales b on a.ws_order_number = b.ws_order_number and a.ws_item_sk < b.ws_item_sk group by 1, 2)",
    )
    assert web_pair >= 5


SESSIONS = """
with clicks as (
  select *, wcs_click_date_sk * 86400 + wcs_click_time_sk as ts from web_clickstreams where wcs_user_sk is not null
), marked as (
  select *, case when ts - lag(ts) over (partition by wcs_user_sk order by ts) > 3600 then 1 else 0 end as new_session
  from clicks
), numbered as (
  select *, sum(new_session) over (partition by wcs_user_sk order by ts rows unbounded preceding) as session_no
  from marked
)
select wcs_user_sk, session_no,
  count(*) as clicks,
  count(wcs_sales_sk) as purchases,
  count(*) filter (where p.wp_type = 'order') as order_pages,
  count(*) filter (where p.wp_type = 'review') as review_pages
from numbered join web_page p on p.wp_web_page_sk = wcs_web_page_sk
group by 1, 2
"""


def test_sessions_end_in_purchases_or_abandoned_carts(con: duckdb.DuckDBPyConnection) -> None:
    counts = con.execute(
        f"select count(*) filter (where purchases > 0), "
        f"count(*) filter (where purchases = 0 and order_pages > 0), "
        f"count(*) filter (where purchases > 0 and review_pages > 0), "
        f"count(*) filter (where clicks >= 5) from ({SESSIONS})"
    ).fetchone()
    assert counts is not None
    purchased, abandoned, reviewed_then_bought, long_sessions = counts
    assert purchased > 500 and abandoned > 200 and reviewed_then_bought > 100 and long_sessions > 500
    assert scalar(con, "select count(*) from web_clickstreams where wcs_user_sk is null") > 0


def test_items_viewed_online_are_bought_in_store_later(con: duckdb.DuckDBPyConnection) -> None:
    viewed_then_bought = scalar(
        con,
        "select count(distinct (c.wcs_user_sk, c.wcs_item_sk)) from web_clickstreams c join store_sales s "
        "on s.ss_customer_sk = c.wcs_user_sk and s.ss_item_sk = c.wcs_item_sk "
        "and s.ss_sold_date_sk between c.wcs_click_date_sk + 1 and c.wcs_click_date_sk + 30 "
        "where c.wcs_sales_sk is null",
    )
    assert viewed_then_bought > 300


def test_store_customers_buy_online_the_next_year_and_rebuy_returned_items(
    con: duckdb.DuckDBPyConnection,
) -> None:
    shifted = scalar(
        con,
        "with s as (select distinct ss_customer_sk c, d_year y from store_sales join date_dim on d_date_sk = ss_sold_date_sk),"
        " w as (select distinct ws_bill_customer_sk c, d_year y from web_sales join date_dim on d_date_sk = ws_sold_date_sk)"
        " select count(*) from s join w on s.c = w.c and w.y = s.y + 1",
    )
    assert shifted > 100
    rebought = scalar(
        con,
        "select count(*) from store_returns r join store_sales s on s.ss_ticket_number = r.sr_ticket_number "
        "and s.ss_item_sk = r.sr_item_sk join web_sales w on w.ws_bill_customer_sk = s.ss_customer_sk "
        "and w.ws_item_sk = s.ss_item_sk and w.ws_sold_date_sk > r.sr_returned_date_sk "
        "and w.ws_sold_date_sk <= s.ss_sold_date_sk + 3 * 365 "
        "and w.ws_order_number % 5 = 1 where r.sr_returned_date_sk <= s.ss_sold_date_sk + 182",
    )
    assert rebought > 50


def words(name: str) -> list[str]:
    return list(parameters.word_list(name))


def test_reviews_carry_sentiment_competitors_and_store_names(con: duckdb.DuckDBPyConnection) -> None:
    texts = [
        row[0]
        for row in con.execute(
            "select pr_review_content || ' ' || pr_review_rating from product_reviews"
        ).fetchall()
    ]

    def share(pattern_words: list[str], rating: str | None = None) -> float:
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, pattern_words)) + r")\b")
        chosen = [text for text in texts if rating is None or text.endswith(rating)]
        return sum(1 for text in chosen if pattern.search(text)) / len(chosen)

    assert share(words("positive"), "5") > 0.9 and share(words("negative"), "1") > 0.9
    assert share(words("negative"), "5") < 0.01 and share(words("positive"), "1") < 0.01
    assert share(words("competitors")) > 0.1 and share(words("store_names")) > 0.1
    imp_competitors = {
        row[0] for row in con.execute("select distinct imp_competitor from item_marketprices").fetchall()
    }
    assert imp_competitors == set(DATA_PARAMETERS["competitors"])
    store_names = {row[0] for row in con.execute("select s_store_name from store").fetchall()}
    assert store_names == set(DATA_PARAMETERS["store_names"])
    # some items draw mostly bad reviews, some mostly good ones
    spread = con.execute(
        "select min(r), max(r) from (select avg(pr_review_rating) r from product_reviews "
        "group by pr_item_sk having count(*) >= 5)"
    ).fetchone()
    assert spread is not None and spread[0] < 2.5 and spread[1] > 3.5


def test_prices_change_on_the_known_date(con: duckdb.DuckDBPyConnection) -> None:
    change_sk = DATA_PARAMETERS["price_change_date_sk"]
    assert (
        scalar(con, f"select d_date from date_dim where d_date_sk = {change_sk}").isoformat()
        == DATA_PARAMETERS["price_change_date"]
    )
    rows = con.execute(
        f"""select i_item_sk, i_current_price,
               max(ss_list_price) filter (where ss_sold_date_sk < {change_sk}) before,
               min(ss_list_price) filter (where ss_sold_date_sk >= {change_sk}) after_min,
               max(ss_list_price) filter (where ss_sold_date_sk >= {change_sk}) after_max
            from store_sales join item on i_item_sk = ss_item_sk
            where i_item_sk % 7 = 3 group by 1, 2 having before is not null and after_min is not null"""
    ).fetchall()
    assert len(rows) > 10
    for _item, current, before, after_min, after_max in rows:
        assert after_min == after_max == current and before != current
    competitor_changes = scalar(
        con,
        f"select count(*) from item_marketprices where imp_start_date = {change_sk} and imp_item_sk % 7 = 3",
    )
    assert competitor_changes == 3 * scalar(con, "select count(*) from item where i_item_sk % 7 = 3")
    unchanged = scalar(
        con,
        "select count(distinct (ss_item_sk, ss_list_price)) - count(distinct ss_item_sk) from store_sales where ss_item_sk % 7 <> 3",
    )
    assert unchanged == 0


def test_dimensions_follow_the_documented_rules(con: duckdb.DuckDBPyConnection) -> None:
    assert scalar(con, "select count(*) from item where i_category_id <> (i_item_sk - 1) % 10 + 1") == 0
    categories = dict(con.execute("select distinct i_category_id, i_category from item").fetchall())
    assert categories == DATA_PARAMETERS["categories"]
    types = DATA_PARAMETERS["web_page_types"]
    for sk, page_type in con.execute("select wp_web_page_sk, wp_type from web_page").fetchall():
        assert page_type == types[(sk - 1) % len(types)]
    assert scalar(con, "select count(*) from time_dim") == 86400
    dates = con.execute("select min(d_date), max(d_date), count(*) from date_dim").fetchone()
    assert dates is not None and (dates[0].isoformat(), dates[1].isoformat()) == (
        DATA_PARAMETERS["date_dim_first"],
        DATA_PARAMETERS["date_dim_last"],
    )
    first, last = DATA_PARAMETERS["first_date_sk"], DATA_PARAMETERS["last_date_sk"]
    assert con.execute("select min(ss_sold_date_sk), max(ss_sold_date_sk) from store_sales").fetchone() == (
        first,
        last,
    )
    assert [
        row[0] for row in con.execute("select s_store_sk from store order by 1").fetchall()
    ] == DATA_PARAMETERS["stores"]


def test_inventory_varies_by_item_and_warehouse(con: duckdb.DuckDBPyConnection) -> None:
    spread = con.execute(
        "select min(cov), max(cov) from (select stddev_samp(inv_quantity_on_hand) / avg(inv_quantity_on_hand) cov "
        "from inventory join date_dim on d_date_sk = inv_date_sk where d_year = 2001 and d_moy = 1 "
        "group by inv_item_sk, inv_warehouse_sk having avg(inv_quantity_on_hand) > 0)"
    ).fetchone()
    assert spread is not None and spread[0] < 0.3 and spread[1] > 1.0
