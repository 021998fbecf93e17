"""Row counts for a scale factor (GB of text), the size estimate, and the free-space check."""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from benchcamp.studies.bigbench_containers.datagen.parameters import (
    ACTIVITY_DAYS,
    DATE_DIM_FIRST,
    DATE_DIM_LAST,
)
from benchcamp.studies.bigbench_containers.schema import TABLES


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
# measured on data generated at SF 1 (tests/studies/bigbench_containers/test_bigbench_datagen.py checks the estimate).
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
