"""The campaign's unit of work: one repetition of one cell on one environment.

The plan task returns the units per target through XCom, and each mapped step task gets one as
its argument; the archive (run_order.json, adaptive rounds, the attempt's plan) stores them as
they are. So a unit stays a plain JSON dict at run time, and `RepetitionUnit` is a TypedDict:
its keys and types for the type checker, nothing to serialise across a task boundary.
"""

# no `from __future__ import annotations`: a TypedDict sees NotRequired only in evaluated annotations
from typing import NotRequired, TypedDict

from benchcamp.core.spec import AxisValue, Ladder, RunOrder


class RepetitionUnit(TypedDict):
    """One repetition to run: `plan.plan_units` makes them, the steps and the archive read them."""

    study: str
    campaign: str
    environment: str  # where it runs (an interleaved campaign plans its group under one target)
    workload: str
    params: dict[str, AxisValue]  # the cell's axis values
    repetition: int  # 1..n measured, 0 and below warm-ups, above n added by adaptive rounds
    ladder: Ladder
    position: NotRequired[int]  # its place in the target's run order (pipeline.run_order)
    order: NotRequired[RunOrder]
    order_seed: NotRequired[int]
    kept: NotRequired[bool]  # ok in an earlier attempt of the campaign: not run again (pipeline.attempts)


Plan = dict[str, list[RepetitionUnit]]
"""A campaign's units per target key (an interleaved campaign's under its target's)."""
