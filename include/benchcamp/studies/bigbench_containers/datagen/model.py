"""The table model: item prices, customers, baskets, tickets and orders shared by the tables.

Every attribute is a pure function of (seed, scale, keys), so the tables that refer to the same
ticket, order or item (sales, returns, clicks, reviews) agree without sharing state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Final

import numpy as np

from benchcamp.studies.bigbench_containers.datagen.parameters import (
    ACTIVITY_DAYS,
    BASKET_SPREAD,
    DATE_DIM_FIRST,
    DATE_DIM_LAST,
    FIRST_DATE,
    MAX_ORDER_LINES,
    MAX_TICKET_LINES,
    PRICE_CHANGE_DATE,
    PRICE_CHANGE_MODULUS,
    PRICE_CHANGE_REMAINDER,
    WEB_PAGE_TYPES,
    date_sk,
)
from benchcamp.studies.bigbench_containers.datagen.rendering import (
    Choices,
    Field,
    concat,
    fixed_digits,
    literal,
)
from benchcamp.studies.bigbench_containers.datagen.scaling import Scale
from benchcamp.studies.bigbench_containers.datagen.streams import Ints, Random

_DATE_TEXTS: Final = Choices(
    [
        (DATE_DIM_FIRST + timedelta(days=offset)).isoformat()
        for offset in range((DATE_DIM_LAST - DATE_DIM_FIRST).days + 1)
    ]
)
_FIRST_DAY_IN_DIM: Final = (FIRST_DATE - DATE_DIM_FIRST).days
FIRST_SK: Final = date_sk(FIRST_DATE)
CHANGE_DAY: Final = (PRICE_CHANGE_DATE - FIRST_DATE).days
DAY_SECONDS: Final = 86400


def date_text(activity_day: Ints) -> Field:
    return _DATE_TEXTS.pick(np.asarray(activity_day, dtype=np.int64) + _FIRST_DAY_IN_DIM)


def time_text(seconds: Ints) -> Field:
    colon = literal(":")
    return concat(
        fixed_digits(seconds // 3600, 2),
        colon,
        fixed_digits(seconds // 60 % 60, 2),
        colon,
        fixed_digits(seconds % 60, 2),
    )


class Model:
    """Shared attributes of items, customers, tickets and orders for one (seed, scale)."""

    def __init__(self, seed: int, scale: Scale) -> None:
        self.seed = seed
        self.scale = scale
        self.random = Random(seed, "model")
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
        return np.where(day >= CHANGE_DAY, self.new_price[index], self.old_price[index])

    def demand_cap(self, item: Ints, day: Ints) -> Ints:
        """Most units one line buys: fewer after a price rise, more after a cut."""
        index = item - 1
        after = self.changes[index] & (day >= CHANGE_DAY)
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
        return 3600 + self.random.below(44, order, DAY_SECONDS - 3600 - MAX_ORDER_LINES)

    def order_page(self, order: Ints) -> Ints:
        return self.page("order", order, 45)


def expand(owners: Ints, counts: Ints) -> tuple[Ints, Ints]:
    """(owner, position) for every child row: owners repeated `counts` times, positions 0..count-1."""
    owner = np.repeat(owners, counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return owner, np.arange(owner.size, dtype=np.int64) - starts


def parent_index(counts: Ints) -> Ints:
    """For every child row of `expand`, the index of its owner."""
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def store_tax_basis_points(random: Random, store: Ints) -> Ints:
    """A store's sales tax, shared by its sales, its returns and the store dimension."""
    return random.below(3, store, 900)


ChunkRenderer = Callable[[Model, Ints], list[Field]]
"""The fields of a big table's rows for a range of keys (tickets, orders, sessions, items...)."""


def one_based(render_chunk: ChunkRenderer) -> ChunkRenderer:
    return lambda model, keys: render_chunk(model, keys + 1)


RowSources = tuple[tuple[ChunkRenderer, Callable[[Scale], int]], ...]
"""A big table's row sources in file order: (renderer over a range of keys, how many keys)."""

TextRows = Callable[[Model], Iterator[str]]
"""A small table's rows as text lines."""
