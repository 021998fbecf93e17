"""The project's own BigBench data generator: all 23 tables as `|`-separated text files.

Written for this project from the table list and the query descriptions (no code, word list or
generator of the public BigBench kit is used). ``generate(data_dir, scale_factor_gb, seed)``
writes ``<data_dir>/<table>/part-NNNNN.dat`` for every table of `schema.TABLES`, in the layout
`schema` describes: fields separated by ``|``, rows ending in ``\\n``, NULL as ``\\N``, dates
``YYYY-MM-DD``, decimals with 2 places. Same scale factor and seed give byte-identical files:
every value comes from a counter-based hash of (seed, table, stream, row key), and a big table
is cut into files of `PART_KEYS` tickets, orders or sessions, so nothing depends on the number
of worker processes or on timing. Rows are rendered with numpy (digits four at a time from
tables, packed into 8-byte words, the padding dropped once per chunk): about 250 MB/s on 2 cores
here, a tenth of a plain write of the same bytes (`benchmarks/bigbench_datagen.py`).

Sizes: the scale factor SF is GB (10^9 bytes) of text. Fact tables grow linearly with SF,
dimensions sub-linearly (square root or so) with minimums that keep SF 0.001 meaningful;
`estimate_bytes` predicts the total (within a few % for SF >= 0.1), `check_free_space` refuses
before writing anything when the disk cannot hold it with a margin.

What the data holds, so that all 30 queries find something even at SF 0.01 (the constants are
in `DATA_PARAMETERS`, stable: queries/params.yaml picks its values from them):

* Dates: activity from 2000-01-01 to 2004-12-31; date_dim covers 1999-01-01..2005-12-31 (returns
  and shipments run past the last sale); ``d_date_sk`` is the Julian day number (2000-01-01 is
  2451545) as in TPC-DS. time_dim has one row per second, ``t_time_sk`` = seconds since midnight.
* Items: ``i_category_id = (i_item_sk - 1) % 10 + 1`` with TPC-DS's 10 category names. Low
  ``i_item_sk`` are the most popular (bought, viewed, reviewed and returned most). Items with
  ``i_item_sk % 7 == 3`` change their price on 2002-06-01: x1.25 when ``(i_item_sk // 7)`` is even,
  x0.8 when odd; ``i_current_price`` is the price after the change, sales before it use the old
  price, quantities sold and inventory move the other way, and their competitors' prices in
  item_marketprices change on the same date.
* Baskets: a store ticket has 1..12 lines, a web order 1..8, all different items close in
  ``i_item_sk`` (so the same pairs co-occur often). Tickets and orders are numbered in date
  order. Every 7th ticket (ticket_number % 7 == 1) has its first line returned within 150 days;
  other lines are returned at random (store about 1 in 12, web 1 in 10), always on the same
  ticket/order and item, after the sale.
* Customers buy in both channels (the same customers are the most active in both); from mid-2000
  on, web orders with ws_order_number % 5 == 1 re-buy online the item their customer returned
  to a store 180..539 days earlier (same customer, same item), so store purchases in one year
  are followed by web purchases the next.
* Clickstreams: a session is one user's clicks within a day, at most 180 s apart; session
  starts are random over the day, so a user's sessions are usually hours or days apart (a gap
  of more than an hour separates them; rarely two sessions of a user on one day merge). Three
  kinds: a session before every web order
  (views, often a 'review' page, then one click per ordered item on an 'order' page with
  ``wcs_sales_sk`` = the ws_order_number), browse sessions (one in three abandoned on an
  'order' page without a sale; one in ten anonymous, NULL user), and views by a customer 1..30
  days before a store ticket of the items bought there. Page types: ``wp_type`` of page sk is
  ``WEB_PAGE_TYPES[(wp_web_page_sk - 1) % 9]``.
* Reviews: about one web order line in five (``pr_review_sk = pr_order_sk * 10 + line``, line
  0..7 within the order), by the buyer, 3..62 days after the order, rating
  1..5 driven by the item (some items mostly bad, some mostly good), text made of 2..5
  sentences from our word lists in ``words/`` (positive and negative words, neutral filler,
  competitor names that are also ``imp_competitor`` values, store names of ``s_store_name``).
* Prices: an item's price before the change is 1.00..299.99 (uniform), wholesale cost 40..80 %
  of it, sales price 0..30 % below list price; quantities 1..100 per line (up to 70 after a
  price rise, up to 130 after a cut).
* item_marketprices: 3 competitors per item, each with a price before and after a change date
  (the price-change date for the changing items, another date for the rest).
* Inventory: weekly (every 7 days from 2000-01-01) per item and warehouse; per item and
  warehouse the quantity is steady, variable or lumpy (mostly low with rare big restocks), so
  the coefficient of variation over a month ranges from about 0.1 to above 1.5.

CLI: ``python -m benchcamp.studies.bigbench_containers.datagen --data-dir D --scale-factor SF --seed N``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Final, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from benchcamp.studies.bigbench_containers.schema import TABLES

__all__ = [
    "DATA_PARAMETERS",
    "GenerationSummary",
    "InsufficientSpaceError",
    "Scale",
    "TableSummary",
    "check_free_space",
    "estimate_bytes",
    "generate",
    "main",
    "scale_for",
    "word_list",
]

Ints = npt.NDArray[np.int64]
Bytes = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]

WORDS_DIR: Final = Path(__file__).with_name("words")


def word_list(name: str) -> tuple[str, ...]:
    """A word list of ours (`words/<name>.txt`): one entry per line, `#` lines are comments."""
    lines = (WORDS_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


# ---------------------------------------------------------------------------------------------
# Constants the queries rely on (documented above; keep them stable)

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


# ---------------------------------------------------------------------------------------------
# Scale


@dataclass(frozen=True)
class Scale:
    """Row-count drivers for one scale factor; every count below follows from these."""

    scale_factor_gb: float
    items: int
    customers: int
    stores: int
    warehouses: int
    web_pages: int
    promotions: int
    tickets: int
    orders: int
    browse_sessions: int
    warehouses_per_item: int

    @property
    def inventory_weeks(self) -> int:
        return (ACTIVITY_DAYS + 6) // 7


# Expected rows per ticket (orders, sessions and reviews are tied to tickets) and bytes per row,
# measured on data generated at SF 1 (tests/unit/test_bigbench_datagen.py checks the estimate).
ORDERS_PER_TICKET: Final = 0.4
BROWSE_SESSIONS_PER_ORDER: Final = 1.5
AVERAGE_ROW_BYTES: Final = {
    "store_sales": 140.0,
    "store_returns": 114.5,
    "web_sales": 198.7,
    "web_returns": 135.0,
    "web_clickstreams": 30.0,
    "product_reviews": 152.3,
    "inventory": 18.5,
}
_EXPECTED_ROWS_PER_TICKET: Final = {
    "store_sales": 6.5,
    "store_returns": 6.5 / 12 + 1 / 7 * (11 / 12),
    "web_sales": ORDERS_PER_TICKET * 4.5,
    "web_returns": ORDERS_PER_TICKET * 4.5 / 10,
    # per order 2..9 views + 4.5 purchases; per browse session 1..15; per 4th ticket 2..5 views
    "web_clickstreams": ORDERS_PER_TICKET * (5.5 + 4.5 + BROWSE_SESSIONS_PER_ORDER * 8) + 0.25 * 3.5,
    "product_reviews": ORDERS_PER_TICKET * 4.5 / 5,
}
INVENTORY_SHARE: Final = 0.1
MIN_TICKETS: Final = 3000


def _dimension_counts(sf: float) -> dict[str, int]:
    root = math.sqrt(sf)
    return {
        "items": max(300, round(5000 * root)),
        "customers": max(300, round(40000 * sf**0.8)),
        "stores": max(12, round(12 * root)),
        "warehouses": max(5, round(5 * sf**0.25)),
        "web_pages": max(63, round(60 * root)),
        "promotions": max(30, round(300 * root)),
    }


def _fixed_rows(dims: dict[str, int]) -> dict[str, int]:
    return {
        "customer": dims["customers"],
        "customer_address": dims["customers"],
        "customer_demographics": 7840,
        "date_dim": (DATE_DIM_LAST - DATE_DIM_FIRST).days + 1,
        "household_demographics": 7200,
        "income_band": 20,
        "item": dims["items"],
        "promotion": dims["promotions"],
        "reason": 35,
        "ship_mode": 20,
        "store": dims["stores"],
        "time_dim": 86400,
        "warehouse": dims["warehouses"],
        "web_site": 30,
        "web_page": dims["web_pages"],
        "item_marketprices": dims["items"] * 6,
    }


_DIMENSION_ROW_BYTES: Final = {
    "customer": 135.6,
    "customer_address": 106.9,
    "customer_demographics": 38.2,
    "date_dim": 136.1,
    "household_demographics": 19.9,
    "income_band": 15.4,
    "item": 195.0,
    "promotion": 108.6,
    "reason": 31.3,
    "ship_mode": 47.8,
    "store": 218.3,
    "time_dim": 52.9,
    "warehouse": 114.0,
    "web_site": 212.9,
    "web_page": 106.6,
    "item_marketprices": 45.4,
}


def scale_for(scale_factor_gb: float) -> Scale:
    """The row-count drivers that make about `scale_factor_gb` GB of text."""
    if not math.isfinite(scale_factor_gb) or scale_factor_gb <= 0:
        raise ValueError(f"scale factor must be a positive number of GB, not {scale_factor_gb!r}")
    dims = _dimension_counts(scale_factor_gb)
    target = scale_factor_gb * 1e9
    weeks = (ACTIVITY_DAYS + 6) // 7
    per_item_warehouse = weeks * AVERAGE_ROW_BYTES["inventory"]
    warehouses_per_item = min(
        dims["warehouses"], max(1, round(INVENTORY_SHARE * target / (dims["items"] * per_item_warehouse)))
    )
    fixed = sum(_DIMENSION_ROW_BYTES[name] * rows for name, rows in _fixed_rows(dims).items())
    fixed += dims["items"] * warehouses_per_item * per_item_warehouse
    per_ticket = sum(
        _EXPECTED_ROWS_PER_TICKET[name] * AVERAGE_ROW_BYTES[name] for name in _EXPECTED_ROWS_PER_TICKET
    )
    tickets = max(MIN_TICKETS, round((target - fixed) / per_ticket))
    orders = round(tickets * ORDERS_PER_TICKET)
    return Scale(
        scale_factor_gb=scale_factor_gb,
        tickets=tickets,
        orders=orders,
        browse_sessions=round(orders * BROWSE_SESSIONS_PER_ORDER),
        warehouses_per_item=warehouses_per_item,
        **dims,
    )


def expected_rows(scale: Scale) -> dict[str, int]:
    """Rows per table this scale should give (exact for dimensions, expected for facts)."""
    rows = _fixed_rows(
        {
            "items": scale.items,
            "customers": scale.customers,
            "stores": scale.stores,
            "warehouses": scale.warehouses,
            "web_pages": scale.web_pages,
            "promotions": scale.promotions,
        }
    )
    rows["inventory"] = scale.items * scale.warehouses_per_item * scale.inventory_weeks
    for name, per_ticket in _EXPECTED_ROWS_PER_TICKET.items():
        rows[name] = round(per_ticket * scale.tickets)
    return {name: rows[name] for name in TABLES}


def estimate_bytes(scale_factor_gb: float) -> int:
    """Bytes `generate` will write for this scale factor (an estimate from measured row sizes)."""
    rows = expected_rows(scale_for(scale_factor_gb))
    sizes = {**_DIMENSION_ROW_BYTES, **AVERAGE_ROW_BYTES}
    return round(sum(sizes[name] * count for name, count in rows.items()))


class InsufficientSpaceError(RuntimeError):
    """The data would not fit on the disk of the data directory."""


SPACE_MARGIN: Final = 1.1
SPACE_RESERVE_BYTES: Final = 256 * 1024 * 1024


def check_free_space(data_dir: Path, scale_factor_gb: float) -> int:
    """Refuse (before anything is written) when the data and a margin do not fit; return the bytes needed."""
    needed = round(estimate_bytes(scale_factor_gb) * SPACE_MARGIN) + SPACE_RESERVE_BYTES
    existing = Path(data_dir).absolute()
    while not existing.exists():
        existing = existing.parent
    free = shutil.disk_usage(existing).free
    if needed > free:
        raise InsufficientSpaceError(
            f"BigBench data at SF {scale_factor_gb:g} needs about {needed / 1e9:.2f} GB "
            f"({needed} bytes: the estimate x{SPACE_MARGIN} plus {SPACE_RESERVE_BYTES} bytes reserve) "
            f"but {existing} has {free / 1e9:.2f} GB ({free} bytes) free"
        )
    return needed


# ---------------------------------------------------------------------------------------------
# Counter-based random numbers: value = mix(seed, table, stream, row), no state to carry.

_GOLDEN: Final = 0x9E3779B97F4A7C15
_MASK64: Final = (1 << 64) - 1


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser: a bijection on 64 bits whose output bits all depend on all input bits.
    In place (`values` is the caller's scratch array): fewer temporaries, fewer page faults."""
    values ^= values >> np.uint64(30)
    values *= np.uint64(0xBF58476D1CE4E5B9)
    values ^= values >> np.uint64(27)
    values *= np.uint64(0x94D049BB133111EB)
    values ^= values >> np.uint64(31)
    return values


class _Random:
    """Independent streams of pseudo-random numbers for one table, addressed by row keys."""

    def __init__(self, seed: int, table: str) -> None:
        digest = hashlib.blake2b(f"{seed}:{table}".encode(), digest_size=8).digest()
        self._key = int.from_bytes(digest, "little")

    def bits(self, stream: int, keys: Ints) -> npt.NDArray[np.uint64]:
        offset = (self._key + stream * _GOLDEN * 0x632BE59BD9B4E019) & _MASK64
        mixed = keys.astype(np.uint64)
        mixed *= np.uint64(_GOLDEN)
        mixed += np.uint64(offset)
        return _mix(mixed)

    def below(self, stream: int, keys: Ints, bound: int | Ints) -> Ints:
        """Integers in [0, bound), bound < 2^32 and may vary per row: the high 32 bits scaled by the
        bound (a multiply instead of a division; the bias, under bound / 2^32, does not matter here)."""
        scaled = self.bits(stream, keys)
        scaled >>= np.uint64(32)
        scaled *= np.asarray(bound, dtype=np.uint64)
        scaled >>= np.uint64(32)
        return scaled.view(np.int64)  # below 2^32: the same numbers

    def unit(self, stream: int, keys: Ints) -> npt.NDArray[np.float64]:
        """Uniform floats in [0, 1)."""
        # cast: numpy 2.2's stubs (Otava's pin) widen float64 * float to floating[Any]
        return cast(
            npt.NDArray[np.float64],
            (self.bits(stream, keys) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53)),
        )

    def skewed(self, stream: int, keys: Ints, count: int) -> Ints:
        """Integers in [0, count) where low values are much more likely (density ~ 1/sqrt)."""
        return np.minimum((self.unit(stream, keys) ** 2 * count).astype(np.int64), count - 1)


# ---------------------------------------------------------------------------------------------
# Rendering rows as text with numpy. A field is a list of segments; a segment holds up to 8
# bytes of every row's text in one uint64 per row (first character in the lowest byte), with
# NUL bytes where a row's text is shorter than the segment (a number with fewer digits than the
# chunk's largest). `_render` ORs each row's segments one after the other into 8-byte words
# (a shift and an OR per segment over the whole chunk), transposes the words once into rows and
# drops the NULs. Digits come four at a time from tables of the 10^4 four-digit groups, so a
# number costs a few whole-array operations per 4 digits instead of several per digit.
# Generated text never holds a NUL (`_checked`).

Words = npt.NDArray[np.uint64]


class _Segment(NamedTuple):
    """`width` bytes of text per row: one word per row, or one word (an int) for every row."""

    value: Words | int
    width: int


_Field = list[_Segment]


def _digit_tables() -> tuple[Words, Words, Words]:
    """Words of the 4-digit groups 0000..9999: zero-padded, leading zeros as NUL, and leading
    zeros as NUL except the last digit (so 0 is '0')."""
    group = np.arange(10_000, dtype=np.uint64)
    padded = np.zeros(group.size, dtype=np.uint64)
    leading = np.zeros(group.size, dtype=np.uint64)
    unit = np.zeros(group.size, dtype=np.uint64)
    for byte in range(4):  # byte 0 holds the thousands
        power = np.uint64(10 ** (3 - byte))
        char = (group // power % np.uint64(10) + np.uint64(ord("0"))) << np.uint64(8 * byte)
        padded |= char
        leading |= np.where(group >= power, char, np.uint64(0))
        unit |= np.where((group >= power) | (byte == 3), char, np.uint64(0))
    return padded, np.concatenate([leading, padded]), np.concatenate([unit, padded])


# _LEADING[g] and _UNIT[g] are g's leading-NUL forms, [g + 10^4] its padded form
_PADDED, _LEADING, _UNIT = _digit_tables()


Unsigned = npt.NDArray[np.unsignedinteger[Any]]


def _unsigned(magnitude: Ints) -> tuple[Unsigned, int]:
    """Non-negative numbers as uint32 when they fit (a third of the time of 64-bit division
    here), else uint64; and the largest."""
    largest = int(magnitude.max(initial=0))
    return magnitude.astype(np.uint32 if largest < 2**32 else np.uint64), largest


def _digits(number: Unsigned, digits: int, zero_padded: bool) -> _Field:
    """Decimal digits of numbers below 10^digits, in segments of 4 from the left; unless
    `zero_padded`, leading zeros are NUL and 0 is '0'."""
    segments: _Field = []
    rest = number
    groups = -(-digits // 4)
    for group_index in range(groups):  # from the lowest group up
        top = group_index == groups - 1
        if top:  # below 10^4 by now
            group = rest.astype(np.intp)
        else:
            quotient = cast(Unsigned, rest // 10_000)  # numpy 2.2's stubs make it signed
            group = (rest - quotient * 10_000).astype(np.intp)
            if not zero_padded:  # padded when a higher group is not zero
                np.add(group, 10_000, out=group, where=quotient > 0)
            rest = quotient
        table = _PADDED if zero_padded else _UNIT if group_index == 0 else _LEADING
        words = table.take(group)
        width = digits - 4 * group_index if top else 4
        if width < 4:  # a top group narrower than 4: drop its first bytes (NUL or zeros)
            words >>= np.uint64(8 * (4 - width))
        segments.append(_Segment(words, width))
    return segments[::-1]


def _constant(text: str) -> _Field:
    encoded = _checked(text).encode("ascii")
    return [
        _Segment(int.from_bytes(encoded[start : start + 8], "little"), len(encoded[start : start + 8]))
        for start in range(0, len(encoded), 8)
    ]


class _Choices:
    """A fixed list of strings as words (rows: 8-byte slices, columns: choices), gathered by index."""

    def __init__(self, texts: Sequence[str]) -> None:
        encoded = [_checked(text).encode("ascii") for text in texts]
        self.width = max(1, max(len(text) for text in encoded))
        slices = -(-self.width // 8)
        table = np.zeros((len(encoded), slices * 8), dtype=np.uint8)
        for row, text in enumerate(encoded):
            table[row, : len(text)] = np.frombuffer(text, dtype=np.uint8)
        self.words = np.ascontiguousarray(table.view("<u8").T).astype(np.uint64)

    def pick(self, index: Ints) -> _Field:
        return [
            _Segment(words.take(index), min(8, self.width - 8 * slot))
            for slot, words in enumerate(self.words)
        ]


_UNSAFE_TEXT: Final = re.compile(r"[|\\\n\r\0]|[^\x00-\x7f]")


def _checked(text: str) -> str:
    if _UNSAFE_TEXT.search(text):
        raise ValueError(f"generated text must be ASCII without |, \\, NUL or line breaks: {text!r}")
    return text


def _ints(values: Ints) -> _Field:
    """Decimal digits of integers (negative ones get a '-')."""
    return _decimal_text(values, 0)


def _decimal_text(values: Ints, places: int) -> _Field:
    """Digits of integers with a '.' before the last `places` digits (cents -> 12.34, 5 -> 0.05)."""
    values = np.asarray(values, dtype=np.int64)
    negative = values < 0
    magnitude, largest = _unsigned(np.abs(values))
    segments: _Field = []
    if negative.any():
        segments.append(_Segment(negative.astype(np.uint64) * np.uint64(ord("-")), 1))
    if not places:
        return segments + _digits(magnitude, len(str(largest)), zero_padded=False)
    whole = magnitude // 10**places
    segments += _digits(whole, len(str(largest // 10**places)), zero_padded=False)
    segments += _constant(".")
    return segments + _digits(magnitude - whole * 10**places, places, zero_padded=True)


def _fixed_digits(values: Ints, width: int) -> _Field:
    """Zero-padded digits (the cents of a decimal, HH/MM/SS, ids): the last `width` of them."""
    number, largest = _unsigned(np.asarray(values, dtype=np.int64))
    return _digits(number % 10**width if largest >= 10**width else number, width, zero_padded=True)


def _money(cents: Ints) -> _Field:
    """A decimal with 2 places from an integer number of cents."""
    return _decimal_text(cents, 2)


def _concat(*fields: _Field) -> _Field:
    return [segment for field in fields for segment in field]


_NULL_WORD: Final = int.from_bytes(b"\\N", "little")


def _nullable(value: _Field, is_null: Mask) -> _Field:
    """The field, or `\\N` where `is_null`."""
    if not is_null.any():
        return value
    return [_Segment(is_null.astype(np.uint64) * np.uint64(_NULL_WORD), 2), *_blanked(value, is_null)]


def _blanked(value: _Field, blank: Mask) -> _Field:
    """The field with no text (all NUL) where `blank`."""
    zero = np.uint64(0)
    return [
        _Segment(np.where(blank, zero, segment.value).astype(np.uint64), segment.width) for segment in value
    ]


_SEPARATOR: Final = _Segment(ord("|"), 1)
_NEWLINE: Final = _Segment(ord("\n"), 1)


def _render(fields: Sequence[_Field]) -> bytes:
    """Rows of `|`-separated fields, each ending in a newline."""
    segments: _Field = []
    for index, text in enumerate(fields):
        if index:
            segments.append(_SEPARATOR)
        segments += text
    segments.append(_NEWLINE)
    rows = _rows(fields)
    words = np.zeros((-(-sum(segment.width for segment in segments) // 8), rows), dtype=np.uint64)
    constants = [0] * len(words)
    offset = 0
    for value, width in segments:
        word, shift = divmod(offset, 8)
        spills = shift + width > 8
        if isinstance(value, int):
            constants[word] |= (value << 8 * shift) & _MASK64
            if spills:
                constants[word + 1] |= value >> 8 * (8 - shift)
        else:
            words[word] |= value << np.uint64(8 * shift) if shift else value
            if spills:
                words[word + 1] |= value >> np.uint64(8 * (8 - shift))
        offset += width
    for word, constant in enumerate(constants):
        if constant:
            words[word] |= np.uint64(constant)
    return words.T.tobytes().translate(None, b"\0")


def _rows(fields: Sequence[_Field]) -> int:
    """Rows of a chunk: the length of its first per-row segment."""
    for text in fields:
        for segment in text:
            if not isinstance(segment.value, int):
                return int(segment.value.size)
    raise ValueError("a chunk needs at least one field that varies by row")


def _line(values: Sequence[object]) -> str:
    """One row from Python values, for the small dimensions (None -> \\N, _Cents -> 2 places)."""
    texts = [
        "" if value is None else _cents_text(value) if isinstance(value, _Cents) else str(value)
        for value in values
    ]
    _checked("".join(texts))  # once per row: a '|' or a line break in any value shows here too
    return (
        "|".join("\\N" if value is None else text for value, text in zip(values, texts, strict=True)) + "\n"
    )


def _cents_text(value: int) -> str:
    return f"{'-' if value < 0 else ''}{abs(value) // 100}.{abs(value) % 100:02d}"


class _Cents(int):
    """An amount in cents, written as a decimal with 2 places."""


# ---------------------------------------------------------------------------------------------
# The model: every attribute is a pure function of (seed, scale, keys).

_DATE_TEXTS: Final = _Choices(
    [
        (DATE_DIM_FIRST + timedelta(days=offset)).isoformat()
        for offset in range((DATE_DIM_LAST - DATE_DIM_FIRST).days + 1)
    ]
)
_FIRST_DAY_IN_DIM: Final = (FIRST_DATE - DATE_DIM_FIRST).days
_FIRST_SK: Final = date_sk(FIRST_DATE)
_CHANGE_DAY: Final = (PRICE_CHANGE_DATE - FIRST_DATE).days
_DAY_SECONDS: Final = 86400


def _date_text(activity_day: Ints) -> _Field:
    return _DATE_TEXTS.pick(np.asarray(activity_day, dtype=np.int64) + _FIRST_DAY_IN_DIM)


def _time_text(seconds: Ints) -> _Field:
    colon = _constant(":")
    return _concat(
        _fixed_digits(seconds // 3600, 2),
        colon,
        _fixed_digits(seconds // 60 % 60, 2),
        colon,
        _fixed_digits(seconds % 60, 2),
    )


class _Model:
    """Shared attributes of items, customers, tickets and orders for one (seed, scale)."""

    def __init__(self, seed: int, scale: Scale) -> None:
        self.seed = seed
        self.scale = scale
        self.random = _Random(seed, "model")
        items = np.arange(1, scale.items + 1, dtype=np.int64)
        self.old_price = 100 + self.random.below(1, items, 29900)  # cents, index = item_sk - 1
        self.changes = items % PRICE_CHANGE_MODULUS == PRICE_CHANGE_REMAINDER
        self.rises = (items // PRICE_CHANGE_MODULUS) % 2 == 0
        factor = np.where(self.rises, 1.25, 0.8)
        self.new_price = np.where(
            self.changes, np.round(self.old_price * factor).astype(np.int64), self.old_price
        )
        self.wholesale = self.old_price * (40 + self.random.below(2, items, 41)) // 100
        self.quality = self.random.below(3, items, 3)  # 0 mostly bad reviews, 1 mixed, 2 mostly good
        pages_per_type = scale.web_pages // len(WEB_PAGE_TYPES)
        self.pages_per_type = pages_per_type

    # customers -------------------------------------------------------------------------------
    def cdemo(self, customer: Ints) -> Ints:
        return 1 + self.random.below(10, customer, 7840)

    def hdemo(self, customer: Ints) -> Ints:
        return 1 + self.random.below(11, customer, 7200)

    def customer(self, stream: int, keys: Ints) -> Ints:
        return 1 + self.random.skewed(stream, keys, self.scale.customers)

    # items -----------------------------------------------------------------------------------
    def basket_item(self, base: Ints, owner_key: Ints, line: Ints) -> Ints:
        """The item on `line` of a basket starting at `base`: distinct per line, close to the base."""
        offset = np.where(line > 0, self.random.below(20, owner_key * 16 + line, BASKET_SPREAD), 0)
        return (base + line * BASKET_SPREAD + offset) % self.scale.items + 1

    def price_on(self, item: Ints, day: Ints) -> Ints:
        index = item - 1
        return np.where(day >= _CHANGE_DAY, self.new_price[index], self.old_price[index])

    def demand_cap(self, item: Ints, day: Ints) -> Ints:
        """Most units one line buys: fewer after a price rise, more after a cut."""
        index = item - 1
        after = self.changes[index] & (day >= _CHANGE_DAY)
        return np.where(after, np.where(self.rises[index], 70, 130), 100)

    def page(self, page_type: str, keys: Ints, stream: int) -> Ints:
        type_index = WEB_PAGE_TYPES.index(page_type)
        return type_index + 1 + len(WEB_PAGE_TYPES) * self.random.below(stream, keys, self.pages_per_type)

    # store tickets ---------------------------------------------------------------------------
    def ticket_day(self, ticket: Ints) -> Ints:
        return ticket * ACTIVITY_DAYS // self.scale.tickets

    def ticket_base(self, ticket: Ints) -> Ints:
        return self.random.skewed(30, ticket, self.scale.items)

    def ticket_customer(self, ticket: Ints) -> Ints:
        return self.customer(31, ticket)

    def ticket_lines(self, ticket: Ints) -> Ints:
        return 1 + self.random.below(32, ticket, MAX_TICKET_LINES)

    # web orders ------------------------------------------------------------------------------
    def order_day(self, order: Ints) -> Ints:
        return order * ACTIVITY_DAYS // self.scale.orders

    def order_base_and_customer(self, order: Ints) -> tuple[Ints, Ints]:
        """Every 5th order re-buys the returned first item of a ticket 180..540 days earlier."""
        base = self.random.skewed(40, order, self.scale.items)
        customer = self.customer(41, order)
        target_day = self.order_day(order) - 180 - self.random.below(42, order, 360)
        ticket = -(-target_day * self.scale.tickets // ACTIVITY_DAYS)  # first ticket on or after that day
        ticket = -(-ticket // 7) * 7
        rebuy = (order % 5 == 0) & (target_day >= 0) & (ticket < self.scale.tickets)
        ticket = np.where(rebuy, ticket, 0)
        rebuy &= self.ticket_day(ticket) <= self.order_day(order) - 151
        base = np.where(rebuy, self.ticket_base(ticket), base)
        customer = np.where(rebuy, self.ticket_customer(ticket), customer)
        return base, customer

    def order_lines(self, order: Ints) -> Ints:
        return 1 + self.random.below(43, order, MAX_ORDER_LINES)

    def order_time(self, order: Ints) -> Ints:
        # late enough for the views before it, early enough for a click per line after it
        return 3600 + self.random.below(44, order, _DAY_SECONDS - 3600 - MAX_ORDER_LINES)

    def order_page(self, order: Ints) -> Ints:
        return self.page("order", order, 45)


def _expand(owners: Ints, counts: Ints) -> tuple[Ints, Ints]:
    """(owner, position) for every child row: owners repeated `counts` times, positions 0..count-1."""
    owner = np.repeat(owners, counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return owner, np.arange(owner.size, dtype=np.int64) - starts


def _parent_index(counts: Ints) -> Ints:
    """For every child row of `_expand`, the index of its owner."""
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def _ranges(start: int, stop: int, chunk: int) -> Iterator[Ints]:
    for first in range(start, stop, chunk):
        yield np.arange(first, min(stop, first + chunk), dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Fact tables (numpy, chunked)

_CHUNK: Final = 5000


class _SaleLines(NamedTuple):
    owner: Ints  # ticket or order index (0-based)
    line: Ints
    key: Ints  # owner * 16 + line: the row key of line-level random streams
    day: Ints
    item: Ints
    customer: Ints
    quantity: Ints
    list_price: Ints
    sales_price: Ints
    wholesale: Ints


_LineFilter = Callable[[Ints, Ints, Ints], Mask]  # (owner, line, key) -> kept


def _sale_lines(
    model: _Model, random: _Random, owners: Ints, channel: str, kept: _LineFilter | None = None
) -> _SaleLines:
    """The sale lines of tickets or orders; only those `kept` selects (returns, reviews), whose
    items, quantities and prices are then computed for them alone: every value is a function of
    the line's keys, so a line has the same values whichever others are computed."""
    if channel == "store":
        counts, base, customer, day = (
            model.ticket_lines(owners),
            model.ticket_base(owners),
            model.ticket_customer(owners),
            model.ticket_day(owners),
        )
    else:
        base, customer = model.order_base_and_customer(owners)
        counts, day = model.order_lines(owners), model.order_day(owners)
    owner, line = _expand(owners, counts)
    index = _parent_index(counts)
    key = owner * 16 + line
    if kept is not None:
        chosen = np.flatnonzero(kept(owner, line, key))
        owner, line, key, index = owner[chosen], line[chosen], key[chosen], index[chosen]
    item = model.basket_item(base[index], owner, line)
    line_day = day[index]
    quantity = 1 + random.below(1, key, model.demand_cap(item, line_day))
    list_price = model.price_on(item, line_day)
    sales_price = list_price * (100 - random.below(2, key, 31)) // 100
    return _SaleLines(
        owner,
        line,
        key,
        line_day,
        item,
        customer[index],
        quantity,
        list_price,
        sales_price,
        model.wholesale[item - 1],
    )


def _store_tax_basis_points(random: _Random, store: Ints) -> Ints:
    return random.below(3, store, 900)


def _store_sales(model: _Model, tickets: Ints) -> list[_Field]:
    random = _Random(model.seed, "store_sales")
    lines = _sale_lines(model, random, tickets, "store")
    ticket_time = 28800 + random.below(4, lines.owner, 50400)
    store = 1 + random.below(5, lines.owner, model.scale.stores)
    promoted = random.below(6, lines.key, 4) == 0
    promo = 1 + random.below(7, lines.key, model.scale.promotions)
    ext_sales = lines.sales_price * lines.quantity
    ext_list = lines.list_price * lines.quantity
    ext_wholesale = lines.wholesale * lines.quantity
    tax = ext_sales * _store_tax_basis_points(_Random(model.seed, "store"), store) // 10000
    coupon = np.where(
        random.below(8, lines.key, 10) == 0, ext_sales * random.below(9, lines.key, 50) // 100, 0
    )
    net_paid = ext_sales - coupon
    customer = _ints(lines.customer)
    return [
        _ints(_FIRST_SK + lines.day),
        _ints(ticket_time),
        _ints(lines.item),
        customer,
        _ints(model.cdemo(lines.customer)),
        _ints(model.hdemo(lines.customer)),
        customer,
        _ints(store),
        _nullable(_ints(promo), ~promoted),
        _ints(lines.owner + 1),
        _ints(lines.quantity),
        _money(lines.wholesale),
        _money(lines.list_price),
        _money(lines.sales_price),
        _money(ext_list - ext_sales),
        _money(ext_sales),
        _money(ext_wholesale),
        _money(ext_list),
        _money(tax),
        _money(coupon),
        _money(net_paid),
        _money(net_paid + tax),
        _money(net_paid - ext_wholesale),
    ]


def _returned_amounts(random: _Random, key: Ints, amount: Ints, tax: Ints) -> list[Ints]:
    """fee, ship cost, refunded cash, reversed charge, credit, net loss of a return (cents)."""
    fee = 50 + random.below(30, key, 9951)
    ship = amount * random.below(31, key, 11) // 100
    total = amount + tax
    cash = total * random.below(32, key, 101) // 100
    charge = (total - cash) * random.below(33, key, 101) // 100
    credit = total - cash - charge
    return [fee, ship, cash, charge, credit, fee + ship + tax]


def _store_returns(model: _Model, tickets: Ints) -> list[_Field]:
    sales_random = _Random(model.seed, "store_sales")
    random = _Random(model.seed, "store_returns")
    lines = _sale_lines(
        model,
        sales_random,
        tickets,
        "store",
        kept=lambda owner, line, key: (random.below(1, key, 12) == 0) | ((owner % 7 == 0) & (line == 0)),
    )
    owner, key, item, customer = lines.owner, lines.key, lines.item, lines.customer
    store = 1 + sales_random.below(5, owner, model.scale.stores)
    quantity = 1 + random.below(2, key, lines.quantity)
    amount = quantity * lines.sales_price
    tax = amount * _store_tax_basis_points(_Random(model.seed, "store"), store) // 10000
    fee, ship, cash, charge, credit, loss = _returned_amounts(random, key, amount, tax)
    return [
        _ints(_FIRST_SK + lines.day + 1 + random.below(3, key, 150)),
        _ints(28800 + random.below(4, key, 50400)),
        _ints(item),
        _ints(customer),
        _ints(model.cdemo(customer)),
        _ints(model.hdemo(customer)),
        _ints(customer),
        _ints(store),
        _ints(1 + random.below(5, key, 35)),
        _ints(owner + 1),
        _ints(quantity),
        _money(amount),
        _money(tax),
        _money(amount + tax),
        _money(fee),
        _money(ship),
        _money(cash),
        _money(charge),
        _money(credit),
        _money(loss),
    ]


def _web_sales(model: _Model, orders: Ints) -> list[_Field]:
    random = _Random(model.seed, "web_sales")
    lines = _sale_lines(model, random, orders, "web")
    owner, key = lines.owner, lines.key
    promoted = random.below(6, key, 4) == 0
    ext_sales = lines.sales_price * lines.quantity
    ext_list = lines.list_price * lines.quantity
    ext_wholesale = lines.wholesale * lines.quantity
    tax = ext_sales * random.below(3, owner, 900) // 10000
    coupon = np.where(random.below(8, key, 10) == 0, ext_sales * random.below(9, key, 50) // 100, 0)
    ship_cost = ext_list * random.below(10, key, 11) // 100
    net_paid = ext_sales - coupon
    customer = lines.customer
    cdemo, hdemo = _ints(model.cdemo(customer)), _ints(model.hdemo(customer))
    customer_text = _ints(customer)
    return [
        _ints(_FIRST_SK + lines.day),
        _ints(model.order_time(owner)),
        _ints(_FIRST_SK + lines.day + 1 + random.below(11, owner, 90)),
        _ints(lines.item),
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        _ints(model.order_page(owner)),
        _ints(1 + random.below(12, owner, 30)),
        _ints(1 + random.below(13, owner, 20)),
        _ints(1 + random.below(14, key, model.scale.warehouses)),
        _nullable(_ints(1 + random.below(7, key, model.scale.promotions)), ~promoted),
        _ints(owner + 1),
        _ints(lines.quantity),
        _money(lines.wholesale),
        _money(lines.list_price),
        _money(lines.sales_price),
        _money(ext_list - ext_sales),
        _money(ext_sales),
        _money(ext_wholesale),
        _money(ext_list),
        _money(tax),
        _money(coupon),
        _money(ship_cost),
        _money(net_paid),
        _money(net_paid + tax),
        _money(net_paid + ship_cost),
        _money(net_paid + ship_cost + tax),
        _money(net_paid - ext_wholesale),
    ]


def _web_returns(model: _Model, orders: Ints) -> list[_Field]:
    sales_random = _Random(model.seed, "web_sales")
    random = _Random(model.seed, "web_returns")
    lines = _sale_lines(
        model, sales_random, orders, "web", kept=lambda owner, line, key: random.below(1, key, 10) == 0
    )
    owner, key, customer = lines.owner, lines.key, lines.customer
    quantity = 1 + random.below(2, key, lines.quantity)
    amount = quantity * lines.sales_price
    tax = amount * sales_random.below(3, owner, 900) // 10000
    fee, ship, cash, charge, credit, loss = _returned_amounts(random, key, amount, tax)
    customer_text, cdemo, hdemo = _ints(customer), _ints(model.cdemo(customer)), _ints(model.hdemo(customer))
    return [
        _ints(_FIRST_SK + lines.day + 2 + random.below(3, key, 120)),
        _ints(random.below(4, key, _DAY_SECONDS)),
        _ints(lines.item),
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        _ints(model.order_page(owner)),
        _ints(1 + random.below(5, key, 35)),
        _ints(owner + 1),
        _ints(quantity),
        _money(amount),
        _money(tax),
        _money(amount + tax),
        _money(fee),
        _money(ship),
        _money(cash),
        _money(charge),
        _money(credit),
        _money(loss),
    ]


_BROWSING_PAGES: Final = ("general", "dynamic", "feedback", "ad", "protected", "bios")


def _browse_pages(model: _Model, random: _Random, key: Ints, position: Ints, review_share: int) -> Ints:
    """Page of a viewing click: 'welcome' first, then 'review' `review_share`% of the time, else browsing."""
    browsing = np.array([WEB_PAGE_TYPES.index(name) for name in _BROWSING_PAGES], dtype=np.int64)
    type_index = browsing[random.below(50, key, browsing.size)]
    type_index = np.where(
        random.below(51, key, 100) < review_share, WEB_PAGE_TYPES.index("review"), type_index
    )
    type_index = np.where(position == 0, WEB_PAGE_TYPES.index("welcome"), type_index)
    return type_index + 1 + len(WEB_PAGE_TYPES) * random.below(52, key, model.pages_per_type)


def _click_fields(day: Ints, seconds: Ints, sale: Ints, item: Ints, page: Ints, user: Ints) -> list[_Field]:
    return [
        _ints(_FIRST_SK + day),
        _ints(seconds),
        _nullable(_ints(np.maximum(sale, 0)), sale < 0),
        _ints(item),
        _ints(page),
        _nullable(_ints(np.maximum(user, 0)), user < 0),
    ]


def _purchase_sessions(model: _Model, orders: Ints) -> list[_Field]:
    """Per web order: 2..9 views (the ordered items first, then neighbours), then one click per line."""
    random = _Random(model.seed, "web_clickstreams.purchase")
    views = 2 + random.below(1, orders, 8)
    lines = model.order_lines(orders)
    base, customer = model.order_base_and_customer(orders)
    order, position = _expand(orders, views + lines)
    index = _parent_index(views + lines)
    view_count = views[index]
    is_view = position < view_count
    line = np.where(is_view, position, position - view_count)
    key = order * 32 + position
    item = model.basket_item(base[index], order, line)
    start = model.order_time(order) - (view_count + 1) * 90
    seconds = np.where(
        is_view, start + position * 90 + random.below(2, key, 60), model.order_time(order) + line
    )
    page = np.where(is_view, _browse_pages(model, random, key, position, 30), model.order_page(order))
    sale = np.where(is_view, -1, order + 1)
    return _click_fields(model.order_day(order), seconds, sale, item, page, customer[index])


def _browse_sessions(model: _Model, sessions: Ints) -> list[_Field]:
    """Sessions without a purchase; one in three ends on an 'order' page (an abandoned cart)."""
    random = _Random(model.seed, "web_clickstreams.browse")
    clicks = 1 + random.below(1, sessions, 15)
    session, position = _expand(sessions, clicks)
    index = _parent_index(clicks)
    key = session * 16 + position
    day = session * ACTIVITY_DAYS // model.scale.browse_sessions
    user = np.where(random.below(2, sessions, 10) == 0, -1, model.customer(3, sessions))[index]
    abandoned = (
        (random.below(4, sessions, 3) == 0)[index] & (clicks[index] >= 2) & (position == clicks[index] - 1)
    )
    base = random.skewed(5, sessions, model.scale.items)[index]
    item = model.basket_item(base, session + (1 << 40), np.where(abandoned, 0, position))
    start = random.below(6, sessions, _DAY_SECONDS - 16 * 150)[index]
    seconds = start + position * 90 + random.below(7, key, 60)
    page = np.where(abandoned, model.page("order", key, 8), _browse_pages(model, random, key, position, 20))
    return _click_fields(day, seconds, np.full(session.size, -1), item, page, user)


def _views_before_store(model: _Model, tickets: Ints) -> list[_Field]:
    """Every 4th ticket's customer viewed its items online 1..30 days before buying them in store."""
    random = _Random(model.seed, "web_clickstreams.prestore")
    chosen = tickets[(tickets % 4 == 1) & (model.ticket_day(tickets) >= 31)]
    clicks = 2 + random.below(1, chosen, 4)
    ticket, position = _expand(chosen, clicks)
    index = _parent_index(clicks)
    key = ticket * 16 + position
    day = model.ticket_day(ticket) - 1 - random.below(2, chosen, 30)[index]
    start = random.below(3, chosen, _DAY_SECONDS - 16 * 150)[index]
    seconds = start + position * 90 + random.below(4, key, 60)
    item = model.basket_item(model.ticket_base(chosen)[index], ticket, position)
    page = _browse_pages(model, random, key, position, 20)
    user = model.ticket_customer(chosen)[index]
    return _click_fields(day, seconds, np.full(ticket.size, -1), item, page, user)


def _review_sentences() -> tuple[_Choices, _Choices, Ints, Ints]:
    """Every sentence a review can hold, by kind, with and without a leading space."""
    positive, negative = word_list("positive"), word_list("negative")
    nouns, competitors, stores = word_list("nouns"), word_list("competitors"), word_list("store_names")
    opinion_templates = (
        "This {noun} is {word}.",
        "Overall, {word} {noun}.",
        "The quality is {word}.",
        "I find it {word} for the price.",
    )
    store_templates = (
        "The {store} store had a {word} one on display.",
        "I went back to the {store} store, {word} service.",
    )
    competitor_templates = (
        "I saw the same {noun} cheaper at {competitor}.",
        "{competitor} sells a similar {noun}.",
        "Compared with {competitor} the price is fair.",
    )
    kinds = [
        [t.format(noun=n, word=w) for t in opinion_templates for w in positive for n in nouns],
        [t.format(noun=n, word=w) for t in opinion_templates for w in negative for n in nouns],
        list(word_list("neutral")),
        [t.format(noun=n, competitor=c) for t in competitor_templates for c in competitors for n in nouns],
        [t.format(store=s, word=w) for t in store_templates for s in stores for w in positive],
        [t.format(store=s, word=w) for t in store_templates for s in stores for w in negative],
    ]
    sizes = np.array([len(kind) for kind in kinds], dtype=np.int64)
    offsets = np.cumsum(sizes) - sizes
    flat = [sentence for kind in kinds for sentence in kind]
    return _Choices(flat), _Choices([" " + sentence for sentence in flat]), sizes, offsets


_POSITIVE, _NEGATIVE, _NEUTRAL, _COMPETITOR, _STORE_POSITIVE, _STORE_NEGATIVE = range(6)
_MAX_SENTENCES: Final = 5


def _product_reviews(model: _Model, orders: Ints) -> list[_Field]:
    """About one web order line in five gets a review by its buyer; rating follows the item's quality."""
    random = _Random(model.seed, "product_reviews")
    lines = _sale_lines(
        model,
        _Random(model.seed, "web_sales"),
        orders,
        "web",
        kept=lambda owner, line, key: random.below(1, key, 5) == 0,
    )
    key, item = lines.key, lines.item
    quality = model.quality[item - 1]
    rating = np.select(
        [quality == 0, quality == 1],
        [1 + random.below(2, key, 3), 1 + random.below(3, key, 5)],
        3 + random.below(4, key, 3),
    )
    sentences = 2 + random.below(5, key, _MAX_SENTENCES - 1)
    plain, spaced, sizes, offsets = _REVIEW_SENTENCES
    parts = []
    for slot in range(_MAX_SENTENCES):
        slot_key = key * 8 + slot
        leaning = np.where(
            rating >= 4, 1, np.where(rating <= 2, -1, np.where(random.below(6, slot_key, 2) == 0, 1, -1))
        )
        roll = random.below(7, slot_key, 100)
        kind = np.select(
            [roll < 55, roll < 80, roll < 90],
            [np.where(leaning > 0, _POSITIVE, _NEGATIVE), _NEUTRAL, _COMPETITOR],
            np.where(leaning > 0, _STORE_POSITIVE, _STORE_NEGATIVE),
        )
        if slot == 0:
            kind = np.where(leaning > 0, _POSITIVE, _NEGATIVE)
        sentence = offsets[kind] + random.below(8, slot_key, sizes[kind])
        piece = (plain if slot == 0 else spaced).pick(sentence)
        present = sentences > slot
        parts.append(_blanked(piece, ~present))
    return [
        _ints((lines.owner + 1) * 10 + lines.line),  # unique: an order line has one review
        _date_text(lines.day + 3 + random.below(9, key, 60)),
        _time_text(random.below(10, key, _DAY_SECONDS)),
        _ints(rating),
        _ints(item),
        _ints(lines.customer),
        _ints(lines.owner + 1),
        _concat(*parts),
    ]


_REVIEW_SENTENCES: Final = _review_sentences()


def _inventory(model: _Model, weeks: Ints) -> list[_Field]:
    """Quantity on hand per week, item and warehouse: steady, variable or lumpy per item and warehouse."""
    random = _Random(model.seed, "inventory")
    scale = model.scale
    per_week = scale.items * scale.warehouses_per_item
    week = np.repeat(weeks, per_week)
    within = np.tile(np.arange(per_week, dtype=np.int64), weeks.size)
    item = within // scale.warehouses_per_item + 1
    warehouse = ((item - 1) + within % scale.warehouses_per_item) % scale.warehouses + 1
    stock_key = item * 64 + warehouse
    key = week * (scale.items + 1) * 64 + stock_key
    mode = random.below(1, stock_key, 3)
    lumpy = np.where(random.below(2, key, 5) == 0, random.below(3, key, 4000), random.below(4, key, 50))
    quantity = np.select(
        [mode == 0, mode == 1], [200 + random.below(5, key, 600), random.below(6, key, 1000)], lumpy
    )
    after = model.changes[item - 1] & (week * 7 >= _CHANGE_DAY)
    quantity = np.where(after, quantity * np.where(model.rises[item - 1], 13, 7) // 10, quantity)
    return [_ints(_FIRST_SK + week * 7), _ints(item), _ints(warehouse), _ints(quantity)]


def _item_marketprices(model: _Model, items: Ints) -> list[_Field]:
    """3 competitors per item, each with a price before and after its change date."""
    random = _Random(model.seed, "item_marketprices")
    competitors = word_list("competitors")
    item, row = _expand(items, np.full(items.size, 6, dtype=np.int64))
    slot, period = row // 2, row % 2
    competitor = (random.below(1, item, len(competitors)) + slot) % len(competitors)
    pair_key = item * 4 + slot
    index = item - 1
    change_day = np.where(
        model.changes[index], _CHANGE_DAY, 200 + random.below(2, pair_key, ACTIVITY_DAYS - 400)
    )
    before = model.old_price[index] * (80 + random.below(3, pair_key, 41)) // 100
    after = before * (70 + random.below(4, pair_key, 61)) // 100
    start = np.where(period == 0, 0, change_day)
    end = np.where(period == 0, change_day - 1, ACTIVITY_DAYS - 1)
    return [
        _ints(item * 6 + row - 5),
        _ints(item),
        _Choices(competitors).pick(competitor),
        _money(np.where(period == 0, before, after)),
        _ints(_FIRST_SK + start),
        _ints(_FIRST_SK + end),
    ]


# ---------------------------------------------------------------------------------------------
# Dimensions

_FIRST_NAMES: Final = (
    "James",
    "Mary",
    "Robert",
    "Linda",
    "Michael",
    "Susan",
    "David",
    "Karen",
    "Daniel",
    "Nancy",
    "Paul",
    "Laura",
    "Mark",
    "Emily",
    "Steven",
    "Anna",
    "Kevin",
    "Julia",
    "Brian",
    "Sarah",
)
_LAST_NAMES: Final = (
    "Smith",
    "Johnson",
    "Brown",
    "Miller",
    "Davis",
    "Wilson",
    "Moore",
    "Taylor",
    "Clark",
    "Lewis",
    "Walker",
    "Hall",
    "Young",
    "King",
    "Wright",
    "Hill",
    "Green",
    "Baker",
    "Adams",
    "Nelson",
)
_STREETS: Final = (
    "Main",
    "Oak",
    "Pine",
    "Maple",
    "Cedar",
    "Elm",
    "Lake",
    "Hill",
    "Park",
    "Church",
    "Spring",
    "Ridge",
)
_STREET_TYPES: Final = ("Street", "Avenue", "Road", "Lane", "Drive", "Court", "Way", "Boulevard")
_CITIES: Final = (
    "Fairview",
    "Midway",
    "Oak Grove",
    "Five Points",
    "Riverside",
    "Pleasant Hill",
    "Centerville",
    "Mount Olive",
    "Greenwood",
    "Union",
    "Salem",
    "Franklin",
)
_COUNTIES: Final = (
    "Orange County",
    "Franklin County",
    "Jefferson County",
    "Lincoln County",
    "Marion County",
    "Washington County",
    "Clay County",
    "Madison County",
)
_STATE_WEIGHTS: Final = (20, 15, 12, 11, 9, 8, 7, 7, 6, 5)


def _state_index(random: _Random, stream: int, keys: Ints) -> Ints:
    cumulative = np.cumsum(_STATE_WEIGHTS)
    return np.searchsorted(cumulative, random.below(stream, keys, int(cumulative[-1])), side="right")


def _gmt_cents(state_index: Ints) -> Ints:
    offsets = np.array([STATE_GMT_OFFSETS.get(state, -5) for state in STATES], dtype=np.int64)
    return offsets[state_index] * 100


def _customers(model: _Model, customers: Ints) -> list[_Field]:
    random = _Random(model.seed, "customer")
    rows = customers.size
    first = random.below(1, customers, len(_FIRST_NAMES))
    last = random.below(2, customers, len(_LAST_NAMES))
    first_names, last_names = _Choices(_FIRST_NAMES), _Choices(_LAST_NAMES)
    lower_first = _Choices([name.lower() for name in _FIRST_NAMES])
    lower_last = _Choices([name.lower() for name in _LAST_NAMES])
    salutation = _Choices(("Mr.", "Mrs.", "Ms.", "Dr.", "Sir", "Miss"))
    first_sale = random.below(5, customers, 365) - 365
    return [
        _ints(customers),
        _concat(_constant("CUST"), _fixed_digits(customers, 12)),
        _ints(model.cdemo(customers)),
        _ints(model.hdemo(customers)),
        _ints(customers),
        _ints(_FIRST_SK + first_sale + random.below(6, customers, 30)),
        _ints(_FIRST_SK + first_sale),
        salutation.pick(random.below(3, customers, 6)),
        first_names.pick(first),
        last_names.pick(last),
        _Choices(("Y", "N")).pick(random.below(4, customers, 2)),
        _ints(1 + random.below(7, customers, 28)),
        _ints(1 + random.below(8, customers, 12)),
        _ints(1930 + random.below(9, customers, 62)),
        _Choices(("UNITED STATES", "CANADA", "MEXICO", "GERMANY", "JAPAN")).pick(
            np.where(random.below(10, customers, 10) < 8, 0, random.below(11, customers, 5))
        ),
        _nullable(_constant("x"), np.ones(rows, dtype=bool)),
        _concat(
            lower_first.pick(first),
            _constant("."),
            lower_last.pick(last),
            _ints(customers),
            _constant("@example.com"),
        ),
        _ints(_FIRST_SK + random.below(12, customers, ACTIVITY_DAYS)),
    ]


def _customer_addresses(model: _Model, addresses: Ints) -> list[_Field]:
    random = _Random(model.seed, "customer_address")
    state = _state_index(random, 1, addresses)
    suite = random.below(5, addresses, 100)
    return [
        _ints(addresses),
        _concat(_constant("ADDR"), _fixed_digits(addresses, 12)),
        _ints(1 + random.below(2, addresses, 999)),
        _Choices(_STREETS).pick(random.below(3, addresses, len(_STREETS))),
        _Choices(_STREET_TYPES).pick(random.below(4, addresses, len(_STREET_TYPES))),
        _nullable(_concat(_constant("Suite "), _ints(suite)), suite >= 30),
        _Choices(_CITIES).pick(random.below(6, addresses, len(_CITIES))),
        _Choices(_COUNTIES).pick(random.below(7, addresses, len(_COUNTIES))),
        _Choices(STATES).pick(state),
        _fixed_digits(10000 + random.below(8, addresses, 89999), 5),
        _constant("United States"),
        _money(_gmt_cents(state)),
        _Choices(("apartment", "condo", "single family")).pick(random.below(9, addresses, 3)),
    ]


def _date_dim_rows() -> Iterator[str]:
    holidays = {(1, 1), (7, 4), (12, 25), (11, 25), (5, 31), (9, 1)}
    day_names = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    epoch = date(1900, 1, 1)
    day = DATE_DIM_FIRST
    while day <= DATE_DIM_LAST:
        quarter = (day.month - 1) // 3 + 1
        first_of_month = day.replace(day=1)
        next_month = (first_of_month + timedelta(days=32)).replace(day=1)
        last_year = _shift_months(day, -12)
        last_quarter = _shift_months(day, -3)
        month_seq = (day.year - 1900) * 12 + day.month - 1
        week_seq = (day - epoch).days // 7 + 1
        quarter_seq = (day.year - 1900) * 4 + quarter
        yesterday = day - timedelta(days=1)
        yield _line(
            [
                date_sk(day),
                f"DATE{date_sk(day)}",
                day.isoformat(),
                month_seq,
                week_seq,
                quarter_seq,
                day.year,
                (day.weekday() + 1) % 7,
                day.month,
                day.day,
                quarter,
                day.year,
                quarter_seq,
                week_seq,
                day_names[day.weekday()],
                f"{day.year}Q{quarter}",
                "Y" if (day.month, day.day) in holidays else "N",
                "Y" if day.weekday() >= 5 else "N",
                "Y" if (yesterday.month, yesterday.day) in holidays else "N",
                date_sk(first_of_month),
                date_sk(next_month - timedelta(days=1)),
                date_sk(last_year),
                date_sk(last_quarter),
                "N",
                "N",
                "N",
                "N",
                "N",
            ]
        )
        day += timedelta(days=1)


def _shift_months(day: date, months: int) -> date:
    month_index = day.year * 12 + day.month - 1 + months
    year, month = divmod(month_index, 12)
    for candidate in (day.day, 30, 29, 28):
        try:
            return date(year, month + 1, candidate)
        except ValueError:
            continue
    raise AssertionError("unreachable: every month has 28 days")


def _hour_labels(hour_starts: dict[int, str | None]) -> list[str | None]:
    """A label per hour of the day from the hours where each label starts."""
    labels: list[str | None] = []
    current: str | None = None
    for hour in range(24):
        current = hour_starts.get(hour, current)
        labels.append(current)
    return labels


_SHIFTS: Final = _hour_labels({0: "third", 8: "first", 16: "second"})
_SUB_SHIFTS: Final = _hour_labels({0: "night", 6: "morning", 12: "afternoon", 18: "evening", 22: "night"})
_MEALS: Final = _hour_labels(
    {0: None, 6: "breakfast", 9: None, 11: "lunch", 14: None, 17: "dinner", 20: None}
)


def _time_dim(model: _Model, seconds: Ints) -> list[_Field]:
    """One row per second of the day; shifts, sub-shifts and meal times by hour."""
    hour = seconds // 3600

    def by_hour(labels: list[str | None]) -> _Field:
        known = [label or "-" for label in labels]
        missing = np.array([label is None for label in labels])
        return _nullable(_Choices(known).pick(hour), missing[hour])

    return [
        _ints(seconds),
        _concat(_constant("TIME"), _fixed_digits(seconds, 6)),
        _ints(seconds),
        _ints(hour),
        _ints(seconds // 60 % 60),
        _ints(seconds % 60),
        _Choices(["AM", "PM"]).pick(hour // 12),
        by_hour(_SHIFTS),
        by_hour(_SUB_SHIFTS),
        by_hour(_MEALS),
    ]


def _customer_demographics_rows() -> Iterator[str]:
    sk = 0
    for gender in ("M", "F"):
        for marital in ("M", "S", "D", "W", "U"):
            for education in (
                "Primary",
                "Secondary",
                "College",
                "2 yr Degree",
                "4 yr Degree",
                "Advanced Degree",
                "Unknown",
            ):
                for estimate in (500, 1000, 1500, 2000):
                    for credit in ("Good", "High Risk", "Low Risk", "Unknown"):
                        for dependents in range(7):
                            sk += 1
                            employed, college = sk % (dependents + 1), (sk // 7) % (dependents + 1)
                            yield _line(
                                [
                                    sk,
                                    gender,
                                    marital,
                                    education,
                                    estimate,
                                    credit,
                                    dependents,
                                    employed,
                                    college,
                                ]
                            )


def _household_demographics_rows() -> Iterator[str]:
    sk = 0
    for band in range(1, 21):
        for potential in ("0-500", "501-1000", "1001-5000", "5001-10000", ">10000", "Unknown"):
            for dependents in range(10):
                for vehicles in range(6):
                    sk += 1
                    yield _line([sk, band, potential, dependents, vehicles])


def _income_band_rows() -> Iterator[str]:
    for band in range(1, 21):
        yield _line([band, 1 + (band - 1) * 10000 if band > 1 else 0, band * 10000])


_CLASSES: Final = ("basic", "classic", "deluxe", "premium", "value", "sport", "travel", "family")
_COLORS: Final = ("red", "blue", "green", "black", "white", "silver", "yellow", "brown", "pink", "navy")
_SIZES: Final = ("small", "medium", "large", "extra large", "petite", "N/A")
_UNITS: Final = ("Each", "Box", "Pack", "Dozen", "Pair", "Case")


def _item_rows(model: _Model) -> Iterator[str]:
    random = _Random(model.seed, "item")
    nouns = word_list("nouns")
    items = np.arange(1, model.scale.items + 1, dtype=np.int64)
    brand = random.below(1, items, 20)
    klass = random.below(2, items, len(_CLASSES))
    manufact = 1 + random.below(3, items, 100)
    words = random.below(4, items, len(nouns))
    colour = random.below(5, items, len(_COLORS))
    size = random.below(6, items, len(_SIZES))
    unit = random.below(7, items, len(_UNITS))
    manager = 1 + random.below(8, items, 100)
    for index, item in enumerate(items.tolist()):
        category = (item - 1) % len(CATEGORIES)
        name = CATEGORIES[category]
        noun = nouns[words[index]]
        class_name = _CLASSES[klass[index]]
        yield _line(
            [
                item,
                f"ITEM{item:012d}",
                "1999-01-01",
                None,
                f"A {class_name} {noun} from our {name.lower()} range, {_COLORS[colour[index]]}.",
                _Cents(model.new_price[index]),
                _Cents(model.wholesale[index]),
                (category + 1) * 1000 + brand[index],
                f"{name.lower()}brand #{brand[index] + 1}",
                klass[index] + 1,
                class_name,
                category + 1,
                name,
                manufact[index],
                f"maker{manufact[index]}",
                _SIZES[size[index]],
                f"F{item % 1000:04d}",
                _COLORS[colour[index]],
                _UNITS[unit[index]],
                "Unknown",
                manager[index],
                f"{name.lower()} {noun} {item}",
            ]
        )


def _promotion_rows(model: _Model) -> Iterator[str]:
    random = _Random(model.seed, "promotion")
    keys = np.arange(1, model.scale.promotions + 1, dtype=np.int64)
    start = random.below(1, keys, ACTIVITY_DAYS - 60)
    length = 7 + random.below(2, keys, 60)
    item = 1 + random.skewed(3, keys, model.scale.items)
    flags = random.below(4, keys, 256)
    cost = 100000 + random.below(5, keys, 9900000)
    purposes = ("Unknown", "New product", "Clearance", "Seasonal", "Loyalty")
    for index, promo in enumerate(keys.tolist()):
        yes = ["Y" if flags[index] >> bit & 1 else "N" for bit in range(8)]
        yield _line(
            [
                promo,
                f"PROMO{promo:010d}",
                _FIRST_SK + start[index],
                _FIRST_SK + start[index] + length[index],
                item[index],
                _Cents(cost[index]),
                1,
                f"promo{promo}",
                *yes,
                f"Promotion {promo} details",
                purposes[promo % len(purposes)],
                "N" if promo % 3 == 0 else "Y",
            ]
        )


def _reason_rows() -> Iterator[str]:
    reasons = (
        "Did not like it",
        "Found a better price",
        "Wrong size",
        "Arrived damaged",
        "Not as described",
        "Changed my mind",
        "Gift not wanted",
        "Stopped working",
        "Wrong colour",
        "Ordered twice",
        "Too late",
        "Missing parts",
    )
    for sk in range(1, 36):
        text = reasons[(sk - 1) % len(reasons)]
        if sk > len(reasons):
            text = f"{text} ({(sk - 1) // len(reasons) + 1})"
        yield _line([sk, f"REASON{sk:04d}", text])


def _ship_mode_rows() -> Iterator[str]:
    types = ("REGULAR", "EXPRESS", "NEXT DAY", "OVERNIGHT", "TWO DAY", "LIBRARY")
    codes = ("AIR", "SURFACE", "SEA", "BIKE")
    carriers = (
        "UPS",
        "FEDEX",
        "DHL",
        "USPS",
        "ZOUROS",
        "LATVIAN",
        "ORIENTAL",
        "BARIAN",
        "GREAT EASTERN",
        "PRIVATECARRIER",
    )
    for sk in range(1, 21):
        yield _line(
            [
                sk,
                f"SHIPMODE{sk:04d}",
                types[sk % len(types)],
                codes[sk % len(codes)],
                carriers[(sk - 1) % len(carriers)],
                f"contract{sk}",
            ]
        )


def _address(random: _Random, key: int) -> tuple[list[object], str, int]:
    keys = np.array([key], dtype=np.int64)
    state = int(_state_index(random, 90, keys)[0])
    parts: list[object] = [
        str(1 + int(random.below(91, keys, 999)[0])),
        _STREETS[int(random.below(92, keys, len(_STREETS))[0])],
        _STREET_TYPES[int(random.below(93, keys, len(_STREET_TYPES))[0])],
        f"Suite {int(random.below(94, keys, 100)[0])}",
        _CITIES[int(random.below(95, keys, len(_CITIES))[0])],
        _COUNTIES[int(random.below(96, keys, len(_COUNTIES))[0])],
        STATES[state],
        f"{10000 + int(random.below(97, keys, 89999)[0]):05d}",
        "United States",
    ]
    return parts, STATES[state], int(_gmt_cents(np.array([state]))[0])


def _store_rows(model: _Model) -> Iterator[str]:
    random = _Random(model.seed, "store")
    names = word_list("store_names")
    tax = _store_tax_basis_points(random, np.arange(1, model.scale.stores + 1, dtype=np.int64))
    for store in range(1, model.scale.stores + 1):
        address, _, gmt = _address(random, store)
        yield _line(
            [
                store,
                f"STORE{store:011d}",
                "1999-01-01",
                None,
                None,
                names[(store - 1) % len(names)],
                200 + store * 7 % 100,
                5_000_000 + store * 104_729 % 5_000_000,
                "8AM-10PM",
                f"Manager {store}",
                1 + store % 10,
                "Unknown",
                f"Market {1 + store % 10}",
                f"Market manager {1 + store % 10}",
                1,
                "Unknown",
                1,
                "Unknown",
                *address,
                _Cents(gmt),
                _Cents(int(tax[store - 1])),
            ]
        )


def _warehouse_rows(model: _Model) -> Iterator[str]:
    random = _Random(model.seed, "warehouse")
    for warehouse in range(1, model.scale.warehouses + 1):
        address, _, gmt = _address(random, warehouse)
        yield _line(
            [
                warehouse,
                f"WAREHOUSE{warehouse:07d}",
                f"Warehouse {warehouse}",
                100_000 + warehouse * 7919 % 900_000,
                *address,
                _Cents(gmt),
            ]
        )


def _web_site_rows(model: _Model) -> Iterator[str]:
    random = _Random(model.seed, "web_site")
    for site in range(1, 31):
        address, _, gmt = _address(random, site)
        yield _line(
            [
                site,
                f"SITE{site:012d}",
                "1999-01-01",
                None,
                f"site_{site}",
                _FIRST_SK - 365 + site,
                None,
                "Unknown",
                f"Web manager {site}",
                1 + site % 6,
                "Unknown",
                f"Web market {1 + site % 6}",
                f"Web market manager {1 + site % 6}",
                1 + site % 6,
                f"company{1 + site % 6}",
                *address,
                _Cents(gmt),
                _Cents(site * 37 % 1200),
            ]
        )


def _web_page_rows(model: _Model) -> Iterator[str]:
    random = _Random(model.seed, "web_page")
    keys = np.arange(1, model.scale.web_pages + 1, dtype=np.int64)
    counts = [random.below(stream, keys, bound) for stream, bound in ((1, 8000), (2, 25), (3, 7), (4, 5))]
    for index, page in enumerate(keys.tolist()):
        page_type = WEB_PAGE_TYPES[(page - 1) % len(WEB_PAGE_TYPES)]
        yield _line(
            [
                page,
                f"PAGE{page:012d}",
                "1999-01-01",
                None,
                _FIRST_SK - 365 + page % 300,
                _FIRST_SK + page % 1000,
                "N" if page % 4 else "Y",
                None,
                f"http://www.example.com/{page_type}/{page}",
                page_type,
                100 + counts[0][index],
                2 + counts[1][index],
                1 + counts[2][index],
                counts[3][index],
            ]
        )


# ---------------------------------------------------------------------------------------------
# Writing


@dataclass(frozen=True)
class TableSummary:
    rows: int
    bytes: int
    files: int


@dataclass(frozen=True)
class GenerationSummary:
    """What `generate` wrote: per table rows, bytes and files, and how long it took."""

    scale_factor_gb: float
    seed: int
    tables: dict[str, TableSummary]
    seconds: float
    scale: dict[str, Any] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(table.bytes for table in self.tables.values())

    @property
    def total_rows(self) -> int:
        return sum(table.rows for table in self.tables.values())

    def to_json(self) -> str:
        return json.dumps(
            {**asdict(self), "total_bytes": self.total_bytes, "total_rows": self.total_rows}, indent=2
        )


_Blocks = Iterator[tuple[bytes, int]]  # (text, rows)
_ChunkRenderer = Callable[[_Model, Ints], list[_Field]]


def _numpy_blocks(model: _Model, render_chunk: _ChunkRenderer, start: int, stop: int, chunk: int) -> _Blocks:
    for keys in _ranges(start, stop, chunk):
        fields = render_chunk(model, keys)
        rows = _rows(fields)
        if rows:
            yield _render(fields), rows


def _text_blocks(lines: Iterator[str], batch: int = 5000) -> _Blocks:
    buffer: list[str] = []
    for line in lines:
        buffer.append(line)
        if len(buffer) >= batch:
            yield "".join(buffer).encode("ascii"), len(buffer)
            buffer.clear()
    if buffer:
        yield "".join(buffer).encode("ascii"), len(buffer)


_TEXT_TABLES: Final[dict[str, Callable[[_Model], Iterator[str]]]] = {
    "customer_demographics": lambda model: _customer_demographics_rows(),
    "date_dim": lambda model: _date_dim_rows(),
    "household_demographics": lambda model: _household_demographics_rows(),
    "income_band": lambda model: _income_band_rows(),
    "item": _item_rows,
    "promotion": _promotion_rows,
    "reason": lambda model: _reason_rows(),
    "ship_mode": lambda model: _ship_mode_rows(),
    "store": _store_rows,
    "warehouse": _warehouse_rows,
    "web_site": _web_site_rows,
    "web_page": _web_page_rows,
}


def _one_based(render_chunk: _ChunkRenderer) -> _ChunkRenderer:
    return lambda model, keys: render_chunk(model, keys + 1)


# table -> its row sources, in file order: (renderer over a range of keys, how many keys)
_NUMPY_TABLES: Final[dict[str, tuple[tuple[_ChunkRenderer, Callable[[Scale], int]], ...]]] = {
    "customer": ((_one_based(_customers), lambda scale: scale.customers),),
    "customer_address": ((_one_based(_customer_addresses), lambda scale: scale.customers),),
    "item_marketprices": ((_one_based(_item_marketprices), lambda scale: scale.items),),
    "inventory": ((_inventory, lambda scale: scale.inventory_weeks),),
    "time_dim": ((_time_dim, lambda scale: _DAY_SECONDS),),
    "store_sales": ((_store_sales, lambda scale: scale.tickets),),
    "store_returns": ((_store_returns, lambda scale: scale.tickets),),
    "web_sales": ((_web_sales, lambda scale: scale.orders),),
    "web_returns": ((_web_returns, lambda scale: scale.orders),),
    "product_reviews": ((_product_reviews, lambda scale: scale.orders),),
    "web_clickstreams": (
        (_purchase_sessions, lambda scale: scale.orders),
        (_browse_sessions, lambda scale: scale.browse_sessions),
        (_views_before_store, lambda scale: scale.tickets),
    ),
}

PART_KEYS: Final = 250_000
"""Tickets, orders or sessions per file (about 250 MB of store_sales): big tables are several
files, written in parallel, and a file's bytes do not depend on how many files there are."""


class _PartJob(NamedTuple):
    """One file to write: rows of `table` from source `source` for keys [start, stop)."""

    table: str
    number: int
    source: int
    start: int
    stop: int


def _part_jobs(scale: Scale, tables: Sequence[str]) -> list[_PartJob]:
    jobs: list[_PartJob] = []
    for table in tables:
        if table in _TEXT_TABLES:
            jobs.append(_PartJob(table, 0, 0, 0, 0))
            continue
        number = 0
        for source, (_, key_count) in enumerate(_NUMPY_TABLES[table]):
            total = key_count(scale)
            per_part = PART_KEYS if table != "inventory" else _inventory_weeks_per_part(scale)
            for start in range(0, total, per_part):
                jobs.append(_PartJob(table, number, source, start, min(total, start + per_part)))
                number += 1
    # the longest first, so the processes finish together
    return sorted(jobs, key=lambda job: -(job.stop - job.start) * _JOB_WEIGHT.get(job.table, 0))


_JOB_WEIGHT: Final = {
    "store_sales": 9,
    "web_clickstreams": 3,
    "web_sales": 8,
    "inventory": 40,
    "store_returns": 2,
}


def _inventory_weeks_per_part(scale: Scale) -> int:
    return max(1, 12_000_000 // (scale.items * scale.warehouses_per_item))


def _chunk_keys(table: str, scale: Scale) -> int:
    if table == "inventory":
        return max(1, 100_000 // (scale.items * scale.warehouses_per_item))
    return _CHUNK


def _write_part(data_dir: Path, seed: int, scale: Scale, job: _PartJob) -> tuple[_PartJob, int, int]:
    """Write one `part-NNNNN.dat`; (job, rows, bytes)."""
    model = _Model(seed, scale)
    if job.table in _TEXT_TABLES:
        blocks = _text_blocks(_TEXT_TABLES[job.table](model))
    else:
        render_chunk, _ = _NUMPY_TABLES[job.table][job.source]
        blocks = _numpy_blocks(model, render_chunk, job.start, job.stop, _chunk_keys(job.table, scale))
    rows = written = 0
    with (data_dir / job.table / f"part-{job.number:05d}.dat").open("wb") as handle:
        for block, block_rows in blocks:
            handle.write(block)
            written += len(block)
            rows += block_rows
    return job, rows, written


_WriteArgs = tuple[Path, int, Scale, _PartJob]
_WriteResult = tuple[_PartJob, int, int]
_next_job: Any = None  # in a worker: the counter of claimed jobs it shares with its siblings


def _share_counter(counter: Any) -> None:
    global _next_job
    _next_job = counter


def _claim_and_write(jobs: Sequence[_WriteArgs], counter: Any = None) -> list[_WriteResult]:
    """Write jobs in list order, each claimed from the shared counter, until none is left."""
    counter = counter if counter is not None else _next_job
    results: list[_WriteResult] = []
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        if index >= len(jobs):
            return results
        results.append(_write_part(*jobs[index]))


def _write_all(jobs: Sequence[_WriteArgs], processes: int) -> list[_WriteResult]:
    """Write the jobs with `processes` processes: this one and `processes - 1` spawned workers.

    This process starts on the longest job at once, while the workers start (a spawned worker
    takes a few tenths of a second to import numpy and this module); every process then claims
    the next job from a shared counter, so they finish together whatever each job costs."""
    if processes <= 1:
        return [_write_part(*job) for job in jobs]
    context = multiprocessing.get_context("spawn")
    counter = context.Value("i", 0)
    with context.Pool(processes - 1, initializer=_share_counter, initargs=(counter,)) as pool:
        pending = [pool.apply_async(_claim_and_write, (jobs,)) for _ in range(processes - 1)]
        results = _claim_and_write(jobs, counter)
        for worker in pending:
            results += worker.get()
    return results


def generate(
    data_dir: Path,
    scale_factor_gb: float,
    seed: int,
    processes: int | None = None,
    tables: Sequence[str] | None = None,
) -> GenerationSummary:
    """Write the 23 tables (or only `tables`) under `data_dir` for `scale_factor_gb` GB and `seed`;
    refuse first if all 23 would not fit.

    Files are written by `processes` processes (default: the CPUs this process may use): this one
    and spawned workers. Each file's bytes depend only on the seed and the scale, never on the
    process count or on which other tables are written. Earlier `part-*.dat` files of the tables written are removed."""
    started = time.perf_counter()
    data_dir = Path(data_dir)
    unknown = sorted(set(tables or ()) - set(TABLES))
    if unknown:
        raise ValueError(f"unknown tables {unknown}; the schema has {', '.join(TABLES)}")
    check_free_space(data_dir, scale_factor_gb)
    scale = scale_for(scale_factor_gb)
    chosen = [name for name in TABLES if name in set(tables or TABLES)]
    for table in chosen:
        (data_dir / table).mkdir(parents=True, exist_ok=True)
        for old in (data_dir / table).glob("part-*.dat"):
            old.unlink()
    jobs = [(data_dir, seed, scale, job) for job in _part_jobs(scale, chosen)]
    results = _write_all(jobs, min(len(jobs), processes or len(os.sched_getaffinity(0))))
    summaries = {}
    for table in chosen:
        mine = [(rows, written) for job, rows, written in results if job.table == table]
        summaries[table] = TableSummary(
            rows=sum(rows for rows, _ in mine), bytes=sum(written for _, written in mine), files=len(mine)
        )
    return GenerationSummary(
        scale_factor_gb=scale_factor_gb,
        seed=seed,
        tables=summaries,
        seconds=time.perf_counter() - started,
        scale=asdict(scale),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Generate the bigbench_containers data (23 tables, |-separated text)."
    )
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument(
        "--scale-factor", type=float, required=True, help="GB of text (fractions allowed, e.g. 0.01)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=None, help="worker processes (default: all CPUs)")
    parser.add_argument(
        "--tables", nargs="+", choices=list(TABLES), help="only these tables (default: all 23)"
    )
    args = parser.parse_args(argv)
    try:
        scale_for(args.scale_factor)
    except ValueError as error:
        parser.error(str(error))
    try:
        summary = generate(
            args.data_dir, args.scale_factor, args.seed, processes=args.processes, tables=args.tables
        )
    except InsufficientSpaceError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 2
    print(summary.to_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
