"""The fact tables (sales, returns, clicks, reviews, inventory, competitors' prices), chunk by chunk.

Each `_<table>` renders the rows of a range of keys (tickets, orders, sessions, weeks, items);
a line's values come from its keys alone, so returns and reviews recompute the sale lines they
refer to instead of reading them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

import numpy as np

from benchcamp.studies.bigbench_containers.datagen.model import (
    CHANGE_DAY,
    DAY_SECONDS,
    FIRST_SK,
    Model,
    RowSources,
    date_text,
    expand,
    one_based,
    parent_index,
    store_tax_basis_points,
    time_text,
)
from benchcamp.studies.bigbench_containers.datagen.parameters import ACTIVITY_DAYS, WEB_PAGE_TYPES, word_list
from benchcamp.studies.bigbench_containers.datagen.rendering import (
    Choices,
    Field,
    blanked,
    concat,
    ints,
    money,
    nullable,
)
from benchcamp.studies.bigbench_containers.datagen.streams import Ints, Mask, Random


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
    model: Model, random: Random, owners: Ints, channel: str, kept: _LineFilter | None = None
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
    owner, line = expand(owners, counts)
    index = parent_index(counts)
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


def _store_sales(model: Model, tickets: Ints) -> list[Field]:
    random = Random(model.seed, "store_sales")
    lines = _sale_lines(model, random, tickets, "store")
    ticket_time = 28800 + random.below(4, lines.owner, 50400)
    store = 1 + random.below(5, lines.owner, model.scale.stores)
    promoted = random.below(6, lines.key, 4) == 0
    promo = 1 + random.below(7, lines.key, model.scale.promotions)
    ext_sales = lines.sales_price * lines.quantity
    ext_list = lines.list_price * lines.quantity
    ext_wholesale = lines.wholesale * lines.quantity
    tax = ext_sales * store_tax_basis_points(Random(model.seed, "store"), store) // 10000
    coupon = np.where(
        random.below(8, lines.key, 10) == 0, ext_sales * random.below(9, lines.key, 50) // 100, 0
    )
    net_paid = ext_sales - coupon
    customer = ints(lines.customer)
    return [
        ints(FIRST_SK + lines.day),
        ints(ticket_time),
        ints(lines.item),
        customer,
        ints(model.cdemo(lines.customer)),
        ints(model.hdemo(lines.customer)),
        customer,
        ints(store),
        nullable(ints(promo), ~promoted),
        ints(lines.owner + 1),
        ints(lines.quantity),
        money(lines.wholesale),
        money(lines.list_price),
        money(lines.sales_price),
        money(ext_list - ext_sales),
        money(ext_sales),
        money(ext_wholesale),
        money(ext_list),
        money(tax),
        money(coupon),
        money(net_paid),
        money(net_paid + tax),
        money(net_paid - ext_wholesale),
    ]


def _returned_amounts(random: Random, key: Ints, amount: Ints, tax: Ints) -> list[Ints]:
    """fee, ship cost, refunded cash, reversed charge, credit, net loss of a return (cents)."""
    fee = 50 + random.below(30, key, 9951)
    ship = amount * random.below(31, key, 11) // 100
    total = amount + tax
    cash = total * random.below(32, key, 101) // 100
    charge = (total - cash) * random.below(33, key, 101) // 100
    credit = total - cash - charge
    return [fee, ship, cash, charge, credit, fee + ship + tax]


def _store_returns(model: Model, tickets: Ints) -> list[Field]:
    sales_random = Random(model.seed, "store_sales")
    random = Random(model.seed, "store_returns")
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
    tax = amount * store_tax_basis_points(Random(model.seed, "store"), store) // 10000
    fee, ship, cash, charge, credit, loss = _returned_amounts(random, key, amount, tax)
    return [
        ints(FIRST_SK + lines.day + 1 + random.below(3, key, 150)),
        ints(28800 + random.below(4, key, 50400)),
        ints(item),
        ints(customer),
        ints(model.cdemo(customer)),
        ints(model.hdemo(customer)),
        ints(customer),
        ints(store),
        ints(1 + random.below(5, key, 35)),
        ints(owner + 1),
        ints(quantity),
        money(amount),
        money(tax),
        money(amount + tax),
        money(fee),
        money(ship),
        money(cash),
        money(charge),
        money(credit),
        money(loss),
    ]


def _web_sales(model: Model, orders: Ints) -> list[Field]:
    random = Random(model.seed, "web_sales")
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
    cdemo, hdemo = ints(model.cdemo(customer)), ints(model.hdemo(customer))
    customer_text = ints(customer)
    return [
        ints(FIRST_SK + lines.day),
        ints(model.order_time(owner)),
        ints(FIRST_SK + lines.day + 1 + random.below(11, owner, 90)),
        ints(lines.item),
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        ints(model.order_page(owner)),
        ints(1 + random.below(12, owner, 30)),
        ints(1 + random.below(13, owner, 20)),
        ints(1 + random.below(14, key, model.scale.warehouses)),
        nullable(ints(1 + random.below(7, key, model.scale.promotions)), ~promoted),
        ints(owner + 1),
        ints(lines.quantity),
        money(lines.wholesale),
        money(lines.list_price),
        money(lines.sales_price),
        money(ext_list - ext_sales),
        money(ext_sales),
        money(ext_wholesale),
        money(ext_list),
        money(tax),
        money(coupon),
        money(ship_cost),
        money(net_paid),
        money(net_paid + tax),
        money(net_paid + ship_cost),
        money(net_paid + ship_cost + tax),
        money(net_paid - ext_wholesale),
    ]


def _web_returns(model: Model, orders: Ints) -> list[Field]:
    sales_random = Random(model.seed, "web_sales")
    random = Random(model.seed, "web_returns")
    lines = _sale_lines(
        model, sales_random, orders, "web", kept=lambda owner, line, key: random.below(1, key, 10) == 0
    )
    owner, key, customer = lines.owner, lines.key, lines.customer
    quantity = 1 + random.below(2, key, lines.quantity)
    amount = quantity * lines.sales_price
    tax = amount * sales_random.below(3, owner, 900) // 10000
    fee, ship, cash, charge, credit, loss = _returned_amounts(random, key, amount, tax)
    customer_text, cdemo, hdemo = ints(customer), ints(model.cdemo(customer)), ints(model.hdemo(customer))
    return [
        ints(FIRST_SK + lines.day + 2 + random.below(3, key, 120)),
        ints(random.below(4, key, DAY_SECONDS)),
        ints(lines.item),
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        customer_text,
        cdemo,
        hdemo,
        customer_text,
        ints(model.order_page(owner)),
        ints(1 + random.below(5, key, 35)),
        ints(owner + 1),
        ints(quantity),
        money(amount),
        money(tax),
        money(amount + tax),
        money(fee),
        money(ship),
        money(cash),
        money(charge),
        money(credit),
        money(loss),
    ]


_BROWSING_PAGES: Final = ("general", "dynamic", "feedback", "ad", "protected", "bios")


def _browse_pages(model: Model, random: Random, key: Ints, position: Ints, review_share: int) -> Ints:
    """Page of a viewing click: 'welcome' first, then 'review' `review_share`% of the time, else browsing."""
    browsing = np.array([WEB_PAGE_TYPES.index(name) for name in _BROWSING_PAGES], dtype=np.int64)
    type_index = browsing[random.below(50, key, browsing.size)]
    type_index = np.where(
        random.below(51, key, 100) < review_share, WEB_PAGE_TYPES.index("review"), type_index
    )
    type_index = np.where(position == 0, WEB_PAGE_TYPES.index("welcome"), type_index)
    return type_index + 1 + len(WEB_PAGE_TYPES) * random.below(52, key, model.pages_per_type)


def _click_fields(day: Ints, seconds: Ints, sale: Ints, item: Ints, page: Ints, user: Ints) -> list[Field]:
    return [
        ints(FIRST_SK + day),
        ints(seconds),
        nullable(ints(np.maximum(sale, 0)), sale < 0),
        ints(item),
        ints(page),
        nullable(ints(np.maximum(user, 0)), user < 0),
    ]


def _purchase_sessions(model: Model, orders: Ints) -> list[Field]:
    """Per web order: 2..9 views (the ordered items first, then neighbours), then one click per line."""
    random = Random(model.seed, "web_clickstreams.purchase")
    views = 2 + random.below(1, orders, 8)
    lines = model.order_lines(orders)
    base, customer = model.order_base_and_customer(orders)
    order, position = expand(orders, views + lines)
    index = parent_index(views + lines)
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


def _browse_sessions(model: Model, sessions: Ints) -> list[Field]:
    """Sessions without a purchase; one in three ends on an 'order' page (an abandoned cart)."""
    random = Random(model.seed, "web_clickstreams.browse")
    clicks = 1 + random.below(1, sessions, 15)
    session, position = expand(sessions, clicks)
    index = parent_index(clicks)
    key = session * 16 + position
    day = session * ACTIVITY_DAYS // model.scale.browse_sessions
    user = np.where(random.below(2, sessions, 10) == 0, -1, model.customer(3, sessions))[index]
    abandoned = (
        (random.below(4, sessions, 3) == 0)[index] & (clicks[index] >= 2) & (position == clicks[index] - 1)
    )
    base = random.skewed(5, sessions, model.scale.items)[index]
    item = model.basket_item(base, session + (1 << 40), np.where(abandoned, 0, position))
    start = random.below(6, sessions, DAY_SECONDS - 16 * 150)[index]
    seconds = start + position * 90 + random.below(7, key, 60)
    page = np.where(abandoned, model.page("order", key, 8), _browse_pages(model, random, key, position, 20))
    return _click_fields(day, seconds, np.full(session.size, -1), item, page, user)


def _views_before_store(model: Model, tickets: Ints) -> list[Field]:
    """Every 4th ticket's customer viewed its items online 1..30 days before buying them in store."""
    random = Random(model.seed, "web_clickstreams.prestore")
    chosen = tickets[(tickets % 4 == 1) & (model.ticket_day(tickets) >= 31)]
    clicks = 2 + random.below(1, chosen, 4)
    ticket, position = expand(chosen, clicks)
    index = parent_index(clicks)
    key = ticket * 16 + position
    day = model.ticket_day(ticket) - 1 - random.below(2, chosen, 30)[index]
    start = random.below(3, chosen, DAY_SECONDS - 16 * 150)[index]
    seconds = start + position * 90 + random.below(4, key, 60)
    item = model.basket_item(model.ticket_base(chosen)[index], ticket, position)
    page = _browse_pages(model, random, key, position, 20)
    user = model.ticket_customer(chosen)[index]
    return _click_fields(day, seconds, np.full(ticket.size, -1), item, page, user)


def _review_sentences() -> tuple[Choices, Choices, Ints, Ints]:
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
    return Choices(flat), Choices([" " + sentence for sentence in flat]), sizes, offsets


_POSITIVE, _NEGATIVE, _NEUTRAL, _COMPETITOR, _STORE_POSITIVE, _STORE_NEGATIVE = range(6)
_MAX_SENTENCES: Final = 5


def _product_reviews(model: Model, orders: Ints) -> list[Field]:
    """About one web order line in five gets a review by its buyer; rating follows the item's quality."""
    random = Random(model.seed, "product_reviews")
    lines = _sale_lines(
        model,
        Random(model.seed, "web_sales"),
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
        parts.append(blanked(piece, ~present))
    return [
        ints((lines.owner + 1) * 10 + lines.line),  # unique: an order line has one review
        date_text(lines.day + 3 + random.below(9, key, 60)),
        time_text(random.below(10, key, DAY_SECONDS)),
        ints(rating),
        ints(item),
        ints(lines.customer),
        ints(lines.owner + 1),
        concat(*parts),
    ]


_REVIEW_SENTENCES: Final = _review_sentences()


def _inventory(model: Model, weeks: Ints) -> list[Field]:
    """Quantity on hand per week, item and warehouse: steady, variable or lumpy per item and warehouse."""
    random = Random(model.seed, "inventory")
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
    after = model.changes[item - 1] & (week * 7 >= CHANGE_DAY)
    quantity = np.where(after, quantity * np.where(model.rises[item - 1], 13, 7) // 10, quantity)
    return [ints(FIRST_SK + week * 7), ints(item), ints(warehouse), ints(quantity)]


def _item_marketprices(model: Model, items: Ints) -> list[Field]:
    """3 competitors per item, each with a price before and after its change date."""
    random = Random(model.seed, "item_marketprices")
    competitors = word_list("competitors")
    item, row = expand(items, np.full(items.size, 6, dtype=np.int64))
    slot, period = row // 2, row % 2
    competitor = (random.below(1, item, len(competitors)) + slot) % len(competitors)
    pair_key = item * 4 + slot
    index = item - 1
    change_day = np.where(
        model.changes[index], CHANGE_DAY, 200 + random.below(2, pair_key, ACTIVITY_DAYS - 400)
    )
    before = model.old_price[index] * (80 + random.below(3, pair_key, 41)) // 100
    after = before * (70 + random.below(4, pair_key, 61)) // 100
    start = np.where(period == 0, 0, change_day)
    end = np.where(period == 0, change_day - 1, ACTIVITY_DAYS - 1)
    return [
        ints(item * 6 + row - 5),
        ints(item),
        Choices(competitors).pick(competitor),
        money(np.where(period == 0, before, after)),
        ints(FIRST_SK + start),
        ints(FIRST_SK + end),
    ]


FACT_TABLES: Final[dict[str, RowSources]] = {
    "item_marketprices": ((one_based(_item_marketprices), lambda scale: scale.items),),
    "inventory": ((_inventory, lambda scale: scale.inventory_weeks),),
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
"""Fact table -> its row sources in file order: (renderer over a range of keys, how many keys)."""
