"""The run order of a campaign's repetitions on a target: sequential, randomised or blocked.

A slow drift of the target (a filling disk, a warming cache, a neighbour's load) adds to every
repetition that runs later; run cell by cell, it looks like a difference between cells. A seeded
shuffle (randomised) or blocks that hold one repetition of every cell (blocked, ABAB...) spread
it over the cells instead, and the `run_order_drift` mart tests for it. Interleaved runs the
environments of an `interleave` group (the same hosts as different targets) in one campaign and
takes turns between them repetition by repetition in a balanced order (ABBA), so a drift lands
on both sides of the comparison instead of between them. Warm-ups always run first, in place.
Every unit carries its planned position, the order and the seed; the execute step archives them
with the repetition (`run_order.json`) and the load copies them into `raw.run_order`.

The order is kept by the repetitions themselves (`units_ahead`): a repetition's clean waits for
its turn, the end of every repetition mapped before it in its group, since nothing else orders
mapped task instances under every executor (`airflow dags test` runs the ready ones of a loop in
the order of a Python set; the scheduler ranks them by weight and map index, but only while the
target's pool has one slot).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchcamp.core.records import cell_key
from benchcamp.core.spec import RUN_ORDERS, RunOrder
from benchcamp.pipeline.archive import write_atomically
from benchcamp.pipeline.campaign.unit import RepetitionUnit

RUN_ORDER_FILE = "run_order.json"
MAX_SEED = 2**32 - 1


class RunOrderError(ValueError):
    """An order or seed that cannot be used; the message says what to give instead."""


def check_order(order: object, seed: object) -> tuple[RunOrder, int | None]:
    """The order and seed of a trigger's conf, or the reason they are refused."""
    if order not in RUN_ORDERS:
        raise RunOrderError(f"order must be one of {', '.join(RUN_ORDERS)}, got {order!r}")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
    ):
        raise RunOrderError(f"order_seed must be an integer from 0 to {MAX_SEED} (or empty), got {seed!r}")
    return order, seed  # type: ignore[return-value]  # checked against RUN_ORDERS above


def derived_seed(study: str, campaign: str) -> int:
    """The seed of a campaign that names none: the same names give the same order, on any machine."""
    return int.from_bytes(hashlib.sha256(f"{study}/{campaign}".encode()).digest()[:4], "big")


def _cell(unit: RepetitionUnit) -> str:
    return cell_key(unit["workload"], unit["params"])


def balanced_turns(group: list[str], repetition: int) -> list[str]:
    """The order the group's environments take their turns in at a repetition (1-based): the
    group's order at odd repetitions, reversed at even ones. Two environments give A B, B A, A B,
    ... (ABBA): each is first as often as second over every two repetitions, so a linear drift
    adds the same to both sides' sums; three give A B C, C B A."""
    return list(group) if repetition % 2 else list(reversed(group))


def interleaved(units: list[RepetitionUnit], group: list[str]) -> list[RepetitionUnit]:
    """The units of every environment of an interleave group (each environment's as planned:
    cell by cell, warm-ups first) in one run order: every warm-up first (the group's order), then
    one block per repetition number, in which each environment runs its cells' repetition of
    that number (in plan order) when its turn comes (`balanced_turns`). One turn holds all of an
    environment's cells, so the target switches environments twice per two repetitions."""
    warmups = [
        unit for env in group for unit in units if unit["environment"] == env and int(unit["repetition"]) <= 0
    ]
    blocks: dict[int, dict[str, list[RepetitionUnit]]] = {}
    for unit in units:
        repetition = int(unit["repetition"])
        if repetition >= 1:
            blocks.setdefault(repetition, {}).setdefault(unit["environment"], []).append(unit)
    measured = [
        unit
        for repetition in sorted(blocks)
        for env in balanced_turns(group, repetition)
        for unit in blocks[repetition].get(env, [])
    ]
    return warmups + measured


def ordered(units: list[RepetitionUnit], order: RunOrder, seed: int) -> list[RepetitionUnit]:
    """One target's units (as planned: cell by cell, each cell's warm-ups before its repetitions)
    with the measured repetitions in the run order.

    sequential returns the plan unchanged. The others put the warm-ups (repetition <= 0) first,
    in their planned order, as the DAG runs them (their own mapped group, before any measured
    repetition). `random.Random(seed).shuffle` is stable across Python versions for an int seed,
    so a seed reproduces its order.
    """
    if order == "sequential":
        return list(units)
    if order == "interleaved":  # the group's order is the environments' first appearance
        return interleaved(units, list(dict.fromkeys(str(unit["environment"]) for unit in units)))
    warmups = [unit for unit in units if int(unit["repetition"]) <= 0]
    measured = [unit for unit in units if int(unit["repetition"]) >= 1]
    rng = random.Random(seed)
    if order == "randomised":
        rng.shuffle(measured)
    else:  # blocked: one block per repetition number, each holding every cell once
        cells = list(dict.fromkeys(_cell(unit) for unit in measured))
        by_repetition: dict[int, dict[str, RepetitionUnit]] = {}
        for unit in measured:
            by_repetition.setdefault(int(unit["repetition"]), {})[_cell(unit)] = unit
        measured = []
        for repetition in sorted(by_repetition):
            block = [cell for cell in cells if cell in by_repetition[repetition]]
            rng.shuffle(block)  # each block its own shuffle: no cell always first or last
            measured += [by_repetition[repetition][cell] for cell in block]
    return warmups + measured


def with_positions(units: list[RepetitionUnit], order: RunOrder, seed: int) -> list[RepetitionUnit]:
    """The units in run order, each with its 1-based `position` on the target, the `order` and the
    `order_seed` (kept with the unit through Airflow, archived by the execute step).

    Positions count as the DAG runs: every warm-up first (in planned order), then the measured
    repetitions in the run order, whose map index follows the same order.
    """
    units = ordered(units, order, seed)
    running = [unit for unit in units if int(unit["repetition"]) <= 0] + [
        unit for unit in units if int(unit["repetition"]) >= 1
    ]
    position = {id(unit): number for number, unit in enumerate(running, start=1)}
    return [{**unit, "position": position[id(unit)], "order": order, "order_seed": seed} for unit in units]


# Airflow's finished task instance states: an execute in one of them has ended its repetition.
ENDED_STATES = frozenset({"success", "failed", "skipped", "upstream_failed", "removed"})
# Each ask is a task run (0.14 s of `airflow dags test`'s in-process run, measured on the lab), between
# the steps of the repetition in progress: the next in line asks again after 1 s, one further back
# after 5 s more per repetition ahead of it (a lab repetition takes 5-20 s: by the next ask about
# half the queue ahead has gone, so a place 24 back asks about 5 times), never more than 60 s.
TURN_WAIT_S = 1.0
TURN_WAIT_STEP_S = 5.0
TURN_WAIT_MAX_S = 60.0


def units_ahead(states: Mapping[str, object], execute_task_id: str, map_index: int) -> int:
    """How many repetitions mapped before `map_index` in the same group have not ended: their
    execute is in no finished state (None: not started). `states` is Airflow's task states of one
    run, keyed `<task_id>_<map_index>` for a mapped task instance and `<task_id>` for one not
    expanded yet: Airflow expands a mapped group's later tasks only when they are first
    scheduled, so until then every repetition before this one is still ahead. An index missing
    from an expanded task was removed and holds no turn."""
    if not any(key.startswith(f"{execute_task_id}_") for key in states):
        return map_index if execute_task_id in states else 0
    return sum(
        1
        for index in range(map_index)
        if (key := f"{execute_task_id}_{index}") in states and _state(states[key]) not in ENDED_STATES
    )


def _state(state: object) -> str:
    return str(getattr(state, "value", state))  # a TaskInstanceState or its string


def turn_wait_s(ahead: int) -> float:
    """How long a repetition with `ahead` unfinished repetitions before it waits before it asks
    again: the next in line almost at once, those further back less often (each ask is a task
    run), never beyond TURN_WAIT_MAX_S."""
    return min(TURN_WAIT_S + TURN_WAIT_STEP_S * max(ahead - 1, 0), TURN_WAIT_MAX_S)


def save_run_order(rep_dir: Path, unit: RepetitionUnit) -> Path | None:
    """Archive the repetition's planned place in the run order (a unit planned before run orders
    existed, or added later without one, has none: nothing is written)."""
    if "position" not in unit:
        return None
    path = rep_dir / RUN_ORDER_FILE
    write_atomically(path, json.dumps(run_order_row(unit), indent=2))
    return path


def run_order_row(unit: RepetitionUnit) -> dict[str, Any]:
    """The `raw.run_order` row of a unit."""
    return {
        "study": unit["study"],
        "campaign": unit["campaign"],
        "environment": unit["environment"],
        "workload": unit["workload"],
        "cell_key": _cell(unit),
        "repetition": int(unit["repetition"]),
        "planned_position": int(unit["position"]),
        "order": unit["order"],
        "seed": int(unit["order_seed"]),
    }


def load_run_order(campaign_dir: Path) -> list[dict[str, Any]]:
    """Every archived `run_order.json` of a campaign's repetitions."""
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(campaign_dir.glob(f"*/rep*/{RUN_ORDER_FILE}"))
    ]
