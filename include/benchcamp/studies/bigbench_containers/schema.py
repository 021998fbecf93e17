"""The 23 tables of the bigbench_containers study, and how Hive and DuckDB read them.

One place for the schema, so the generator (`datagen/`), the Hive load, the queries and the
DuckDB checks agree on every column and type. 20 tables keep their TPC-DS columns (no catalog_*
tables, no call_center); 3 are BigBench's: item_marketprices, web_clickstreams, product_reviews.

Types are Hive types: surrogate keys and date/time keys are ``bigint``, counts ``int``, money
``decimal(7,2)`` (``decimal(15,2)`` for promotion cost, ``decimal(5,2)`` for offsets and rates),
TPC-DS char/varchar columns are ``string``, calendar dates ``date`` (written ``YYYY-MM-DD``).
Choices of ours for the BigBench tables: ``imp_start_date``/``imp_end_date`` are ``d_date_sk``
keys (so they join date_dim and the sales' date keys directly), ``wcs_sales_sk`` is the
``ws_order_number`` of the purchase a click ended in (NULL when none), ``pr_review_date`` is a
``date``, ``pr_review_time`` a ``HH:MM:SS`` string, ``pr_order_sk`` a ``ws_order_number``.

Data layout: one directory per table ``<dir>/<table>/`` of ``*.dat`` files, ``|`` between fields,
``\\n`` after each row, NULL written ``\\N`` (Hive's text default), no header.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Final

__all__ = [
    "DUCKDB_TYPES",
    "TABLES",
    "TPCDS_TABLES",
    "BIGBENCH_TABLES",
    "SchemaError",
    "columns",
    "duckdb_type",
    "duckdb_view_sql",
    "hive_ddl",
]


class SchemaError(ValueError):
    """A name or path that cannot be put into DDL safely."""


def _parse(spec: str) -> tuple[tuple[str, str], ...]:
    """`name type` per line, so the table definitions below read like DDL."""
    pairs = []
    for line in spec.strip().splitlines():
        name, hive_type = line.split(maxsplit=1)
        pairs.append((name, hive_type.strip()))
    return tuple(pairs)


_MONEY = "decimal(7,2)"

_TPCDS: dict[str, str] = {
    "customer": """
        c_customer_sk bigint
        c_customer_id string
        c_current_cdemo_sk bigint
        c_current_hdemo_sk bigint
        c_current_addr_sk bigint
        c_first_shipto_date_sk bigint
        c_first_sales_date_sk bigint
        c_salutation string
        c_first_name string
        c_last_name string
        c_preferred_cust_flag string
        c_birth_day int
        c_birth_month int
        c_birth_year int
        c_birth_country string
        c_login string
        c_email_address string
        c_last_review_date_sk bigint
    """,
    "customer_address": """
        ca_address_sk bigint
        ca_address_id string
        ca_street_number string
        ca_street_name string
        ca_street_type string
        ca_suite_number string
        ca_city string
        ca_county string
        ca_state string
        ca_zip string
        ca_country string
        ca_gmt_offset decimal(5,2)
        ca_location_type string
    """,
    "customer_demographics": """
        cd_demo_sk bigint
        cd_gender string
        cd_marital_status string
        cd_education_status string
        cd_purchase_estimate int
        cd_credit_rating string
        cd_dep_count int
        cd_dep_employed_count int
        cd_dep_college_count int
    """,
    "date_dim": """
        d_date_sk bigint
        d_date_id string
        d_date date
        d_month_seq int
        d_week_seq int
        d_quarter_seq int
        d_year int
        d_dow int
        d_moy int
        d_dom int
        d_qoy int
        d_fy_year int
        d_fy_quarter_seq int
        d_fy_week_seq int
        d_day_name string
        d_quarter_name string
        d_holiday string
        d_weekend string
        d_following_holiday string
        d_first_dom int
        d_last_dom int
        d_same_day_ly int
        d_same_day_lq int
        d_current_day string
        d_current_week string
        d_current_month string
        d_current_quarter string
        d_current_year string
    """,
    "household_demographics": """
        hd_demo_sk bigint
        hd_income_band_sk bigint
        hd_buy_potential string
        hd_dep_count int
        hd_vehicle_count int
    """,
    "income_band": """
        ib_income_band_sk bigint
        ib_lower_bound int
        ib_upper_bound int
    """,
    "item": f"""
        i_item_sk bigint
        i_item_id string
        i_rec_start_date date
        i_rec_end_date date
        i_item_desc string
        i_current_price {_MONEY}
        i_wholesale_cost {_MONEY}
        i_brand_id int
        i_brand string
        i_class_id int
        i_class string
        i_category_id int
        i_category string
        i_manufact_id int
        i_manufact string
        i_size string
        i_formulation string
        i_color string
        i_units string
        i_container string
        i_manager_id int
        i_product_name string
    """,
    "promotion": """
        p_promo_sk bigint
        p_promo_id string
        p_start_date_sk bigint
        p_end_date_sk bigint
        p_item_sk bigint
        p_cost decimal(15,2)
        p_response_target int
        p_promo_name string
        p_channel_dmail string
        p_channel_email string
        p_channel_catalog string
        p_channel_tv string
        p_channel_radio string
        p_channel_press string
        p_channel_event string
        p_channel_demo string
        p_channel_details string
        p_purpose string
        p_discount_active string
    """,
    "reason": """
        r_reason_sk bigint
        r_reason_id string
        r_reason_desc string
    """,
    "ship_mode": """
        sm_ship_mode_sk bigint
        sm_ship_mode_id string
        sm_type string
        sm_code string
        sm_carrier string
        sm_contract string
    """,
    "store": """
        s_store_sk bigint
        s_store_id string
        s_rec_start_date date
        s_rec_end_date date
        s_closed_date_sk bigint
        s_store_name string
        s_number_employees int
        s_floor_space int
        s_hours string
        s_manager string
        s_market_id int
        s_geography_class string
        s_market_desc string
        s_market_manager string
        s_division_id int
        s_division_name string
        s_company_id int
        s_company_name string
        s_street_number string
        s_street_name string
        s_street_type string
        s_suite_number string
        s_city string
        s_county string
        s_state string
        s_zip string
        s_country string
        s_gmt_offset decimal(5,2)
        s_tax_precentage decimal(5,2)
    """,
    "time_dim": """
        t_time_sk bigint
        t_time_id string
        t_time int
        t_hour int
        t_minute int
        t_second int
        t_am_pm string
        t_shift string
        t_sub_shift string
        t_meal_time string
    """,
    "warehouse": """
        w_warehouse_sk bigint
        w_warehouse_id string
        w_warehouse_name string
        w_warehouse_sq_ft int
        w_street_number string
        w_street_name string
        w_street_type string
        w_suite_number string
        w_city string
        w_county string
        w_state string
        w_zip string
        w_country string
        w_gmt_offset decimal(5,2)
    """,
    "web_site": """
        web_site_sk bigint
        web_site_id string
        web_rec_start_date date
        web_rec_end_date date
        web_name string
        web_open_date_sk bigint
        web_close_date_sk bigint
        web_class string
        web_manager string
        web_mkt_id int
        web_mkt_class string
        web_mkt_desc string
        web_market_manager string
        web_company_id int
        web_company_name string
        web_street_number string
        web_street_name string
        web_street_type string
        web_suite_number string
        web_city string
        web_county string
        web_state string
        web_zip string
        web_country string
        web_gmt_offset decimal(5,2)
        web_tax_percentage decimal(5,2)
    """,
    "web_page": """
        wp_web_page_sk bigint
        wp_web_page_id string
        wp_rec_start_date date
        wp_rec_end_date date
        wp_creation_date_sk bigint
        wp_access_date_sk bigint
        wp_autogen_flag string
        wp_customer_sk bigint
        wp_url string
        wp_type string
        wp_char_count int
        wp_link_count int
        wp_image_count int
        wp_max_ad_count int
    """,
    "inventory": """
        inv_date_sk bigint
        inv_item_sk bigint
        inv_warehouse_sk bigint
        inv_quantity_on_hand int
    """,
    "store_sales": f"""
        ss_sold_date_sk bigint
        ss_sold_time_sk bigint
        ss_item_sk bigint
        ss_customer_sk bigint
        ss_cdemo_sk bigint
        ss_hdemo_sk bigint
        ss_addr_sk bigint
        ss_store_sk bigint
        ss_promo_sk bigint
        ss_ticket_number bigint
        ss_quantity int
        ss_wholesale_cost {_MONEY}
        ss_list_price {_MONEY}
        ss_sales_price {_MONEY}
        ss_ext_discount_amt {_MONEY}
        ss_ext_sales_price {_MONEY}
        ss_ext_wholesale_cost {_MONEY}
        ss_ext_list_price {_MONEY}
        ss_ext_tax {_MONEY}
        ss_coupon_amt {_MONEY}
        ss_net_paid {_MONEY}
        ss_net_paid_inc_tax {_MONEY}
        ss_net_profit {_MONEY}
    """,
    "store_returns": f"""
        sr_returned_date_sk bigint
        sr_return_time_sk bigint
        sr_item_sk bigint
        sr_customer_sk bigint
        sr_cdemo_sk bigint
        sr_hdemo_sk bigint
        sr_addr_sk bigint
        sr_store_sk bigint
        sr_reason_sk bigint
        sr_ticket_number bigint
        sr_return_quantity int
        sr_return_amt {_MONEY}
        sr_return_tax {_MONEY}
        sr_return_amt_inc_tax {_MONEY}
        sr_fee {_MONEY}
        sr_return_ship_cost {_MONEY}
        sr_refunded_cash {_MONEY}
        sr_reversed_charge {_MONEY}
        sr_store_credit {_MONEY}
        sr_net_loss {_MONEY}
    """,
    "web_sales": f"""
        ws_sold_date_sk bigint
        ws_sold_time_sk bigint
        ws_ship_date_sk bigint
        ws_item_sk bigint
        ws_bill_customer_sk bigint
        ws_bill_cdemo_sk bigint
        ws_bill_hdemo_sk bigint
        ws_bill_addr_sk bigint
        ws_ship_customer_sk bigint
        ws_ship_cdemo_sk bigint
        ws_ship_hdemo_sk bigint
        ws_ship_addr_sk bigint
        ws_web_page_sk bigint
        ws_web_site_sk bigint
        ws_ship_mode_sk bigint
        ws_warehouse_sk bigint
        ws_promo_sk bigint
        ws_order_number bigint
        ws_quantity int
        ws_wholesale_cost {_MONEY}
        ws_list_price {_MONEY}
        ws_sales_price {_MONEY}
        ws_ext_discount_amt {_MONEY}
        ws_ext_sales_price {_MONEY}
        ws_ext_wholesale_cost {_MONEY}
        ws_ext_list_price {_MONEY}
        ws_ext_tax {_MONEY}
        ws_coupon_amt {_MONEY}
        ws_ext_ship_cost {_MONEY}
        ws_net_paid {_MONEY}
        ws_net_paid_inc_tax {_MONEY}
        ws_net_paid_inc_ship {_MONEY}
        ws_net_paid_inc_ship_tax {_MONEY}
        ws_net_profit {_MONEY}
    """,
    "web_returns": f"""
        wr_returned_date_sk bigint
        wr_returned_time_sk bigint
        wr_item_sk bigint
        wr_refunded_customer_sk bigint
        wr_refunded_cdemo_sk bigint
        wr_refunded_hdemo_sk bigint
        wr_refunded_addr_sk bigint
        wr_returning_customer_sk bigint
        wr_returning_cdemo_sk bigint
        wr_returning_hdemo_sk bigint
        wr_returning_addr_sk bigint
        wr_web_page_sk bigint
        wr_reason_sk bigint
        wr_order_number bigint
        wr_return_quantity int
        wr_return_amt {_MONEY}
        wr_return_tax {_MONEY}
        wr_return_amt_inc_tax {_MONEY}
        wr_fee {_MONEY}
        wr_return_ship_cost {_MONEY}
        wr_refunded_cash {_MONEY}
        wr_reversed_charge {_MONEY}
        wr_account_credit {_MONEY}
        wr_net_loss {_MONEY}
    """,
}

_BIGBENCH: dict[str, str] = {
    "item_marketprices": f"""
        imp_sk bigint
        imp_item_sk bigint
        imp_competitor string
        imp_competitor_price {_MONEY}
        imp_start_date bigint
        imp_end_date bigint
    """,
    "web_clickstreams": """
        wcs_click_date_sk bigint
        wcs_click_time_sk bigint
        wcs_sales_sk bigint
        wcs_item_sk bigint
        wcs_web_page_sk bigint
        wcs_user_sk bigint
    """,
    "product_reviews": """
        pr_review_sk bigint
        pr_review_date date
        pr_review_time string
        pr_review_rating int
        pr_item_sk bigint
        pr_user_sk bigint
        pr_order_sk bigint
        pr_review_content string
    """,
}

TPCDS_TABLES: Final = tuple(_TPCDS)
BIGBENCH_TABLES: Final = tuple(_BIGBENCH)
TABLES: Final = MappingProxyType({name: _parse(spec) for name, spec in {**_TPCDS, **_BIGBENCH}.items()})
"""table -> ((column, hive_type), ...), in DDL order; dimensions first, then facts, then BigBench's."""

DUCKDB_TYPES: Final = MappingProxyType(
    {"bigint": "BIGINT", "int": "INTEGER", "string": "VARCHAR", "date": "DATE"}
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)\Z")
_GLOB_CHARACTERS = frozenset("*?[]{}")


def columns(table: str) -> tuple[str, ...]:
    """The column names of `table`, in file order."""
    return tuple(name for name, _ in _table(table))


def duckdb_type(hive_type: str) -> str:
    """The DuckDB type that reads what Hive's type holds, value for value."""
    decimal = _DECIMAL.match(hive_type)
    if decimal:
        return f"DECIMAL({decimal.group(1)},{decimal.group(2)})"
    try:
        return DUCKDB_TYPES[hive_type]
    except KeyError:
        raise SchemaError(f"no DuckDB type for Hive type {hive_type!r}") from None


def hive_ddl(database: str, table: str, location: str) -> str:
    """`CREATE EXTERNAL TABLE` over `location` (a directory of `|`-separated text files).

    Names must be plain identifiers (refused otherwise, never escaped into something else);
    the location goes in as a Hive string literal with `\\` and `'` escaped."""
    _require_identifier(database, "database")
    columns_sql = ",\n".join(f"  `{name}` {hive_type}" for name, hive_type in _table(table))
    return (
        f"CREATE EXTERNAL TABLE `{database}`.`{table}` (\n{columns_sql}\n)\n"
        "ROW FORMAT DELIMITED FIELDS TERMINATED BY '|' LINES TERMINATED BY '\\n'\n"
        "STORED AS TEXTFILE\n"
        f"LOCATION {_hive_string(location)}"
    )


def duckdb_view_sql(table: str, directory: str) -> str:
    """`CREATE VIEW <table>` over `<directory>/<table>/*.dat` with the schema's types.

    No type sniffing, no quote or escape characters: the files are read exactly as Hive reads
    them. Directories holding glob characters are refused, since read_csv would expand them."""
    columns_sql = ", ".join(f"'{name}': '{duckdb_type(hive_type)}'" for name, hive_type in _table(table))
    if _GLOB_CHARACTERS.intersection(directory):
        raise SchemaError(
            f"directory {directory!r} holds glob characters ({''.join(sorted(_GLOB_CHARACTERS))})"
        )
    _refuse_control_characters(directory, "directory")
    pattern = f"{directory.rstrip('/')}/{table}/*.dat"
    return (
        f'CREATE OR REPLACE VIEW "{table}" AS SELECT * FROM read_csv('
        f"{_sql_string(pattern)}, delim = '|', header = false, nullstr = '\\N', quote = '', escape = '', "
        f"auto_detect = false, dateformat = '%Y-%m-%d', columns = {{{columns_sql}}})"
    )


def _table(table: str) -> tuple[tuple[str, str], ...]:
    _require_identifier(table, "table")
    try:
        return TABLES[table]
    except KeyError:
        raise SchemaError(f"unknown table {table!r}; the schema has {', '.join(TABLES)}") from None


def _require_identifier(name: str, what: str) -> None:
    if not _IDENTIFIER.match(name):
        raise SchemaError(f"{what} name {name!r} is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)")


def _refuse_control_characters(text: str, what: str) -> None:
    if any(ord(character) < 32 or ord(character) == 127 for character in text):
        raise SchemaError(f"{what} {text!r} holds control characters")


def _hive_string(text: str) -> str:
    """A Hive single-quoted literal: Hive unescapes backslash sequences inside it."""
    _refuse_control_characters(text, "location")
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _sql_string(text: str) -> str:
    """A standard SQL single-quoted literal (DuckDB): quotes doubled, backslashes literal."""
    return "'" + text.replace("'", "''") + "'"
