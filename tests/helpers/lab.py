"""One real lab for the whole integration session (a plugin tests/conftest.py registers, so the
integration modules of tests/integration and of each study's folder under tests/studies share it).

Starting the lab costs a minute or more on two cores (HiveServer2's first start creates its
metastore), so every integration module of a session shares it: `shared_lab` starts it once, a module that
stopped or killed a service calls `shared_lab()` again (a no-op for healthy services, a restart
for the rest), and the session's end stops it once and checks that no process outlived it.
Campaigns run with `benchcamp run --keep-lab`, so a module never stops the lab under the next.
With `BENCHCAMP_KEEP_LAB=1` the session leaves the lab running (a developer's lab, or one
another session is using).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from benchcamp.core.spec import load_spec
from benchcamp.ops import lab
from benchcamp.ops.supervisor import alive

LabStarter = Callable[[], lab.LabStatus]


def _start() -> lab.LabStatus:
    """The lab (with the YCSB stores once a module asked for them: `lab_with_stores`).

    Two pytest sessions may share the lab (a developer's beside a lane): a file lock keeps them
    from starting the same service at once.
    """
    directory = lab.lab_dir()
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "lab-up.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return lab.lab_up()


@pytest.fixture(scope="session")
def shared_lab() -> Iterator[LabStarter]:
    _start()
    yield _start
    if os.environ.get("BENCHCAMP_KEEP_LAB") == "1":
        return
    pids = [service.pid for service in lab.lab_status().services if service.pid]
    lab.lab_down()
    after = lab.lab_status()
    assert not any(service.alive for service in after.services), after.format()
    # A zombie (exited, not yet reaped: PID 1 of a container may never reap) holds nothing.
    assert not any(alive(pid) for pid in pids), "lab down left a process behind"
    # nor a child of one (a JVM HBase's stop started, a daemon in a namespace): none names the lab.
    # The lab cluster's (its hosts' namespaces, its folder under the lab's) are not the lab's: `lab
    # down` leaves them to `lab cluster down`, and its module may still be running beside this one.
    cluster = _lab_cluster_processes()
    left = [pid for pid in _processes_mentioning(str(lab.lab_dir())) if alive(pid) and pid not in cluster]
    assert not left, f"processes naming {lab.lab_dir()} outlived lab down: {left}"


@pytest.fixture(scope="session")
def lab_with_stores(shared_lab: LabStarter) -> LabStarter:
    """`shared_lab` with the YCSB stores too, for the modules that measure them: they cost about
    1 GB and their start, which no other lane pays (`lab_up` adds them to a running lab)."""

    def start() -> lab.LabStatus:
        os.environ["BENCHCAMP_LAB_STORES"] = "1"
        return shared_lab()

    return start


def _lab_cluster_processes() -> set[int]:
    """PIDs in one of the lab cluster's network namespaces, or naming its folder."""
    from benchcamp.ops.lab.layout import CLUSTER_PREFIX, cluster_dir

    namespaces = set()
    for name in Path("/run/netns").glob(f"{CLUSTER_PREFIX}*"):
        try:
            namespaces.add(name.stat().st_ino)
        except OSError:
            continue
    found = set(_processes_mentioning(str(cluster_dir())))
    for net in Path("/proc").glob("[0-9]*/ns/net"):
        try:
            if net.stat().st_ino in namespaces:
                found.add(int(net.parent.parent.name))
        except OSError:
            continue  # exited while listed
    return found


def _processes_mentioning(text: str) -> list[int]:
    """PIDs whose command line mentions `text`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue  # exited while listed
    return found


MEASURED_CODES = (0, 3)  # core.outcomes: every repetition measured, figures built (3: σ% gates failed)


def assert_campaign_measured(result: subprocess.CompletedProcess[str], log: Path | str) -> None:
    """A `benchcamp run` that measured every repetition and built its figures: exit 0, or 3 when
    only expectations failed (tiny cells often miss the σ% threshold; the tests check the values)."""
    assert result.returncode in MEASURED_CODES, (
        f"campaign failed (exit {result.returncode}), log in {log}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    if result.returncode == 3:
        assert "expectation(s) failed" in result.stderr and "repetition(s) failed" not in result.stderr


@pytest.fixture(scope="session")
def campaign_measured() -> Callable[..., None]:
    """`assert_campaign_measured`, for the campaign fixtures of every module."""
    return assert_campaign_measured


@pytest.fixture
def hibench_copy_on_lab(
    shared_lab: LabStarter, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Callable[[str], None]:
    """For modules that drive the DAG's step functions on the shared lab: `(study)` starts the
    lab, points the lab's connections and the test's results folder at the steps, and makes the
    steps read hibench_dse's spec under `study`, a name no other module uses (a preflight removes
    what other campaigns of its study left on the target)."""

    def under(study: str) -> None:
        shared_lab()
        for name, value in lab.airflow_connection_env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
        spec = load_spec("hibench_dse").model_copy(update={"study": study})
        monkeypatch.setattr("benchcamp.pipeline.campaign.plan.load_spec", lambda _study: spec)

    return under
