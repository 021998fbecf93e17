"""The shared lab at the end of tier 1 (its last session in tests/lanes.toml, with test_lab_faults
between this module's two tests).

Tier 1's sessions before it share one lab (BENCHCAMP_KEEP_LAB=1 keeps it between them), and some
kill and restart its services: each service must still be healthy as they left it (read before
the session's lab fixture could restart anything); then, after the faults, the session's end
(`shared_lab`, tests/helpers/lab.py) stops the lab and checks that no process outlived it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from benchcamp.ops import lab

pytestmark = pytest.mark.integration


def test_every_service_is_healthy_as_the_suite_left_it() -> None:
    status = lab.lab_status()  # the stores count once started (their PID files), whatever the env says
    assert status.services, status.format()
    unhealthy = [service.name for service in status.services if not service.healthy]
    assert not unhealthy, status.format()


def test_the_lab_stops_at_the_end_leaving_no_process(shared_lab: Callable[[], lab.LabStatus]) -> None:
    """The work is the fixture's teardown (lab down, no process left); this test only brings it in.
    (The lab-faults module runs between the two tests and may leave HiveServer2 killed: it is
    not started again only to be stopped.)"""
    assert lab.lab_status().services
