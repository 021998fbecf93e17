# Over 600 lines on purpose: the 16 dimension tables' row layouts, one function each, read side by side.
"""The dimension tables: customers, addresses and time of day with numpy, the small ones row by row."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Final

import numpy as np

from benchcamp.studies.bigbench_containers.datagen.model import (
    DAY_SECONDS,
    FIRST_SK,
    Model,
    RowSources,
    TextRows,
    one_based,
    store_tax_basis_points,
)
from benchcamp.studies.bigbench_containers.datagen.parameters import (
    ACTIVITY_DAYS,
    CATEGORIES,
    DATE_DIM_FIRST,
    DATE_DIM_LAST,
    STATE_GMT_OFFSETS,
    STATES,
    WEB_PAGE_TYPES,
    date_sk,
    word_list,
)
from benchcamp.studies.bigbench_containers.datagen.rendering import (
    Cents,
    Choices,
    Field,
    concat,
    fixed_digits,
    ints,
    literal,
    money,
    nullable,
    text_row,
)
from benchcamp.studies.bigbench_containers.datagen.streams import Ints, Random

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


def _state_index(random: Random, stream: int, keys: Ints) -> Ints:
    cumulative = np.cumsum(_STATE_WEIGHTS)
    return np.searchsorted(cumulative, random.below(stream, keys, int(cumulative[-1])), side="right")


def _gmt_cents(state_index: Ints) -> Ints:
    offsets = np.array([STATE_GMT_OFFSETS.get(state, -5) for state in STATES], dtype=np.int64)
    return offsets[state_index] * 100


def _customers(model: Model, customers: Ints) -> list[Field]:
    random = Random(model.seed, "customer")
    rows = customers.size
    first = random.below(1, customers, len(_FIRST_NAMES))
    last = random.below(2, customers, len(_LAST_NAMES))
    first_names, last_names = Choices(_FIRST_NAMES), Choices(_LAST_NAMES)
    lower_first = Choices([name.lower() for name in _FIRST_NAMES])
    lower_last = Choices([name.lower() for name in _LAST_NAMES])
    salutation = Choices(("Mr.", "Mrs.", "Ms.", "Dr.", "Sir", "Miss"))
    first_sale = random.below(5, customers, 365) - 365
    return [
        ints(customers),
        concat(literal("CUST"), fixed_digits(customers, 12)),
        ints(model.cdemo(customers)),
        ints(model.hdemo(customers)),
        ints(customers),
        ints(FIRST_SK + first_sale + random.below(6, customers, 30)),
        ints(FIRST_SK + first_sale),
        salutation.pick(random.below(3, customers, 6)),
        first_names.pick(first),
        last_names.pick(last),
        Choices(("Y", "N")).pick(random.below(4, customers, 2)),
        ints(1 + random.below(7, customers, 28)),
        ints(1 + random.below(8, customers, 12)),
        ints(1930 + random.below(9, customers, 62)),
        Choices(("UNITED STATES", "CANADA", "MEXICO", "GERMANY", "JAPAN")).pick(
            np.where(random.below(10, customers, 10) < 8, 0, random.below(11, customers, 5))
        ),
        nullable(literal("x"), np.ones(rows, dtype=bool)),
        concat(
            lower_first.pick(first),
            literal("."),
            lower_last.pick(last),
            ints(customers),
            literal("@example.com"),
        ),
        ints(FIRST_SK + random.below(12, customers, ACTIVITY_DAYS)),
    ]


def _customer_addresses(model: Model, addresses: Ints) -> list[Field]:
    random = Random(model.seed, "customer_address")
    state = _state_index(random, 1, addresses)
    suite = random.below(5, addresses, 100)
    return [
        ints(addresses),
        concat(literal("ADDR"), fixed_digits(addresses, 12)),
        ints(1 + random.below(2, addresses, 999)),
        Choices(_STREETS).pick(random.below(3, addresses, len(_STREETS))),
        Choices(_STREET_TYPES).pick(random.below(4, addresses, len(_STREET_TYPES))),
        nullable(concat(literal("Suite "), ints(suite)), suite >= 30),
        Choices(_CITIES).pick(random.below(6, addresses, len(_CITIES))),
        Choices(_COUNTIES).pick(random.below(7, addresses, len(_COUNTIES))),
        Choices(STATES).pick(state),
        fixed_digits(10000 + random.below(8, addresses, 89999), 5),
        literal("United States"),
        money(_gmt_cents(state)),
        Choices(("apartment", "condo", "single family")).pick(random.below(9, addresses, 3)),
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
        yield text_row(
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


def _time_dim(model: Model, seconds: Ints) -> list[Field]:
    """One row per second of the day; shifts, sub-shifts and meal times by hour."""
    hour = seconds // 3600

    def by_hour(labels: list[str | None]) -> Field:
        known = [label or "-" for label in labels]
        missing = np.array([label is None for label in labels])
        return nullable(Choices(known).pick(hour), missing[hour])

    return [
        ints(seconds),
        concat(literal("TIME"), fixed_digits(seconds, 6)),
        ints(seconds),
        ints(hour),
        ints(seconds // 60 % 60),
        ints(seconds % 60),
        Choices(["AM", "PM"]).pick(hour // 12),
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
                            yield text_row(
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
                    yield text_row([sk, band, potential, dependents, vehicles])


def _income_band_rows() -> Iterator[str]:
    for band in range(1, 21):
        yield text_row([band, 1 + (band - 1) * 10000 if band > 1 else 0, band * 10000])


_CLASSES: Final = ("basic", "classic", "deluxe", "premium", "value", "sport", "travel", "family")
_COLORS: Final = ("red", "blue", "green", "black", "white", "silver", "yellow", "brown", "pink", "navy")
_SIZES: Final = ("small", "medium", "large", "extra large", "petite", "N/A")
_UNITS: Final = ("Each", "Box", "Pack", "Dozen", "Pair", "Case")


def _item_rows(model: Model) -> Iterator[str]:
    random = Random(model.seed, "item")
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
        yield text_row(
            [
                item,
                f"ITEM{item:012d}",
                "1999-01-01",
                None,
                f"A {class_name} {noun} from our {name.lower()} range, {_COLORS[colour[index]]}.",
                Cents(model.new_price[index]),
                Cents(model.wholesale[index]),
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


def _promotion_rows(model: Model) -> Iterator[str]:
    random = Random(model.seed, "promotion")
    keys = np.arange(1, model.scale.promotions + 1, dtype=np.int64)
    start = random.below(1, keys, ACTIVITY_DAYS - 60)
    length = 7 + random.below(2, keys, 60)
    item = 1 + random.skewed(3, keys, model.scale.items)
    flags = random.below(4, keys, 256)
    cost = 100000 + random.below(5, keys, 9900000)
    purposes = ("Unknown", "New product", "Clearance", "Seasonal", "Loyalty")
    for index, promo in enumerate(keys.tolist()):
        yes = ["Y" if flags[index] >> bit & 1 else "N" for bit in range(8)]
        yield text_row(
            [
                promo,
                f"PROMO{promo:010d}",
                FIRST_SK + start[index],
                FIRST_SK + start[index] + length[index],
                item[index],
                Cents(cost[index]),
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
        yield text_row([sk, f"REASON{sk:04d}", text])


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
        yield text_row(
            [
                sk,
                f"SHIPMODE{sk:04d}",
                types[sk % len(types)],
                codes[sk % len(codes)],
                carriers[(sk - 1) % len(carriers)],
                f"contract{sk}",
            ]
        )


def _address(random: Random, key: int) -> tuple[list[object], str, int]:
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


def _store_rows(model: Model) -> Iterator[str]:
    random = Random(model.seed, "store")
    names = word_list("store_names")
    tax = store_tax_basis_points(random, np.arange(1, model.scale.stores + 1, dtype=np.int64))
    for store in range(1, model.scale.stores + 1):
        address, _, gmt = _address(random, store)
        yield text_row(
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
                Cents(gmt),
                Cents(int(tax[store - 1])),
            ]
        )


def _warehouse_rows(model: Model) -> Iterator[str]:
    random = Random(model.seed, "warehouse")
    for warehouse in range(1, model.scale.warehouses + 1):
        address, _, gmt = _address(random, warehouse)
        yield text_row(
            [
                warehouse,
                f"WAREHOUSE{warehouse:07d}",
                f"Warehouse {warehouse}",
                100_000 + warehouse * 7919 % 900_000,
                *address,
                Cents(gmt),
            ]
        )


def _web_site_rows(model: Model) -> Iterator[str]:
    random = Random(model.seed, "web_site")
    for site in range(1, 31):
        address, _, gmt = _address(random, site)
        yield text_row(
            [
                site,
                f"SITE{site:012d}",
                "1999-01-01",
                None,
                f"site_{site}",
                FIRST_SK - 365 + site,
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
                Cents(gmt),
                Cents(site * 37 % 1200),
            ]
        )


def _web_page_rows(model: Model) -> Iterator[str]:
    random = Random(model.seed, "web_page")
    keys = np.arange(1, model.scale.web_pages + 1, dtype=np.int64)
    counts = [random.below(stream, keys, bound) for stream, bound in ((1, 8000), (2, 25), (3, 7), (4, 5))]
    for index, page in enumerate(keys.tolist()):
        page_type = WEB_PAGE_TYPES[(page - 1) % len(WEB_PAGE_TYPES)]
        yield text_row(
            [
                page,
                f"PAGE{page:012d}",
                "1999-01-01",
                None,
                FIRST_SK - 365 + page % 300,
                FIRST_SK + page % 1000,
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


CHUNKED_DIMENSIONS: Final[dict[str, RowSources]] = {
    "customer": ((one_based(_customers), lambda scale: scale.customers),),
    "customer_address": ((one_based(_customer_addresses), lambda scale: scale.customers),),
    "time_dim": ((_time_dim, lambda scale: DAY_SECONDS),),
}
"""Dimensions rendered with numpy -> their row sources (renderer over a range of keys, how many keys)."""

TEXT_DIMENSIONS: Final[dict[str, TextRows]] = {
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
"""The small dimensions -> their rows as text lines (one file each)."""
