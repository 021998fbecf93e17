"""The data's fixed facts: dates, categories, page types, the price-change rule, and the word lists.

The queries and queries/params.yaml rely on these (`DATA_PARAMETERS` lists them): keep them stable.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Final

WORDS_DIR: Final = Path(__file__).parent.with_name("words")


def word_list(name: str) -> tuple[str, ...]:
    """A word list of ours (`words/<name>.txt`): one entry per line, `#` lines are comments."""
    lines = (WORDS_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


FIRST_DATE: Final = date(2000, 1, 1)
LAST_DATE: Final = date(2004, 12, 31)
DATE_DIM_FIRST: Final = date(1999, 1, 1)
DATE_DIM_LAST: Final = date(2005, 12, 31)
PRICE_CHANGE_DATE: Final = date(2002, 6, 1)
ACTIVITY_DAYS: Final = (LAST_DATE - FIRST_DATE).days + 1
JULIAN_OFFSET: Final = 1721425  # date.toordinal() + this = Julian day number = d_date_sk
CATEGORIES: Final = (
    "Books",
    "Children",
    "Electronics",
    "Home",
    "Jewelry",
    "Men",
    "Music",
    "Shoes",
    "Sports",
    "Women",
)
WEB_PAGE_TYPES: Final = (
    "welcome",
    "general",
    "dynamic",
    "review",
    "order",
    "feedback",
    "ad",
    "protected",
    "bios",
)
STATES: Final = ("CA", "TX", "NY", "FL", "IL", "PA", "OH", "GA", "WA", "MI")
STATE_GMT_OFFSETS: Final = {"CA": -8, "WA": -8, "TX": -6, "IL": -6}  # others -5
BASKET_SPREAD: Final = 7  # items of a basket are (base + line*7 + 0..6): neighbours co-occur
MAX_TICKET_LINES: Final = 12
MAX_ORDER_LINES: Final = 8
PRICE_CHANGE_MODULUS, PRICE_CHANGE_REMAINDER = 7, 3


def date_sk(day: date) -> int:
    """TPC-DS's date key: the Julian day number."""
    return day.toordinal() + JULIAN_OFFSET


DATA_PARAMETERS: Final[dict[str, Any]] = {
    "first_date": FIRST_DATE.isoformat(),
    "last_date": LAST_DATE.isoformat(),
    "first_date_sk": date_sk(FIRST_DATE),
    "last_date_sk": date_sk(LAST_DATE),
    "date_dim_first": DATE_DIM_FIRST.isoformat(),
    "date_dim_last": DATE_DIM_LAST.isoformat(),
    "years": [2000, 2001, 2002, 2003, 2004],
    "categories": {index + 1: name for index, name in enumerate(CATEGORIES)},
    "item_category_rule": "i_category_id = (i_item_sk - 1) % 10 + 1",
    "min_items": 300,
    "popular_items": "low i_item_sk are the most sold, viewed and reviewed (item 1 most of all)",
    "price_change_date": PRICE_CHANGE_DATE.isoformat(),
    "price_change_date_sk": date_sk(PRICE_CHANGE_DATE),
    "price_change_items_rule": "i_item_sk % 7 == 3",
    "price_change_items_first": [3, 10, 17, 24, 31, 38, 45, 52, 59, 66],
    "price_change_factor_rule": "x1.25 when (i_item_sk // 7) % 2 == 0, else x0.8",
    "stores": list(range(1, 13)),
    "store_names": list(word_list("store_names")),
    "warehouses": list(range(1, 6)),
    "states": list(STATES),
    "gmt_offsets": [-8, -6, -5],
    "competitors": list(word_list("competitors")),
    "web_page_types": list(WEB_PAGE_TYPES),
    "web_page_type_rule": "wp_type = web_page_types[(wp_web_page_sk - 1) % 9]",
    "session_max_click_gap_s": 180,
    "session_timeout_s": 3600,
    "ticket_lines": [1, MAX_TICKET_LINES],
    "order_lines": [1, MAX_ORDER_LINES],
    "returned_first_line_every_n_tickets": 7,
    "store_return_within_days": 150,
    "rebuy_every_n_orders": 5,
    "rebuy_after_days": [180, 540],
    "review_ratings": [1, 2, 3, 4, 5],
    "review_sk_rule": "pr_review_sk = pr_order_sk * 10 + line within the order (0..7)",
    "item_price_before_change": [1.00, 299.99],
    "quantity_per_line": [1, 130],
    "word_lists": {
        "positive": "words/positive.txt",
        "negative": "words/negative.txt",
        "neutral_sentences": "words/neutral.txt",
        "competitors": "words/competitors.txt",
        "store_names": "words/store_names.txt",
    },
    "dependents": [0, 9],
    "inventory_every_days": 7,
}
"""Facts about the generated data that queries/params.yaml chooses its parameters from."""
