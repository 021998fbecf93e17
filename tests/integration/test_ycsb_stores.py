"""The YCSB stores of the lab, for real: Cassandra 5.0 and HBase 2.6 started, health-checked and
stopped by the lab's lifecycle, YCSB's table made by the project's ResetTable/HBaseSchema tools, and YCSB 0.17.0
loading and running workload A through benchcamp's own bindings (CQL, HBase); the output parses
with no error.

The stores are the session lab's (tests/helpers/lab.py): one start serves every module.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.ops import lab
from benchcamp.ops.lab import services
from benchcamp.ops.lab.layout import java_home, port, ycsb_classpath
from benchcamp.workloads.ycsb import parse_ycsb_json, parse_ycsb_text
from helpers.web import free_port

pytestmark = pytest.mark.integration
WORKLOAD_A = {"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "zipfian"}


@pytest.fixture
def cassandra(lab_with_stores: Callable[[], lab.LabStatus]) -> int:
    """The session lab's Cassandra (restarted if a test before stopped it): its native port."""
    status = lab_with_stores().service("cassandra")
    assert status.healthy, status.detail
    return port("cassandra_native")


def _ycsb(phase: str, native: int, workdir: Path) -> subprocess.CompletedProcess[str]:
    properties = {**WORKLOAD_A, "recordcount": "500", "operationcount": "500", "cassandra.port": str(native)}
    command = [str(java_home() / "bin" / "java"), "-cp", ycsb_classpath(), "site.ycsb.Client", phase]
    command += ["-db", "benchcamp.ycsb.CassandraCQLClient", "-p", "workload=site.ycsb.workloads.CoreWorkload"]
    for name, value in properties.items():
        command += ["-p", f"{name}={value}"]
    return subprocess.run(
        [*command, "-threads", "2"], capture_output=True, text=True, timeout=300, cwd=workdir
    )


def test_the_store_is_healthy_and_small(cassandra: int) -> None:
    status = services.service_named("cassandra").status()
    assert status.healthy and status.detail == "CQL native protocol v4 answers"
    assert 100 < status.rss_mb < 1200, status.rss_mb


def _reset_table(native: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(java_home() / "bin" / "java"), "-cp", ycsb_classpath(), "benchcamp.ycsb.ResetTable", "cassandra",
         "usertable", "-p", f"cassandra.port={native}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_ycsb_loads_and_runs_workload_a_through_our_binding(cassandra: int, tmp_path: Path) -> None:
    # made if missing (a fresh lab), emptied if there (the session lab's campaign made it)
    first = _reset_table(cassandra)
    assert first.returncode == 0, first.stderr[-2000:]
    where = f"ycsb.usertable (10 fields, 1 copy) on Cassandra at [/127.0.0.1:{cassandra}]"
    assert f"created {where}" in first.stdout or f"truncated {where}" in first.stdout, first.stdout
    again = _reset_table(cassandra)  # now it exists: a table of the expected schema is truncated
    assert again.returncode == 0 and f"truncated {where}" in again.stdout, again.stdout
    for phase, requested in (("-load", 500), ("-t", 500)):
        result = _ycsb(phase, cassandra, tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
        report = parse_ycsb_text(result.stdout, f"{phase}.log")
        assert (report.ok_operations, report.error_returns, report.client_errors) == (requested, 0, ())
        assert report.throughput_ops_s > 0
    assert set(report.operations) == {"READ", "UPDATE", "CLEANUP"}  # parse_ycsb_text keeps CLEANUP


def test_a_store_that_is_not_running_fails_naming_host_and_port(tmp_path: Path) -> None:
    closed = free_port()
    result = _ycsb("-t", closed, tmp_path)
    # YCSB 0.17.0 exits 0 when every client thread failed to start, with a summary of nothing.
    assert result.returncode == 0
    report = parse_ycsb_text(result.stdout, "stdout.log")
    assert report.client_errors[0].startswith(f"cannot connect to Cassandra at [/127.0.0.1:{closed}]")
    assert report.ok_operations == 0
    reset = subprocess.run(
        [str(java_home() / "bin" / "java"), "-cp", ycsb_classpath(), "benchcamp.ycsb.ResetTable", "cassandra",
         "usertable", "-p", f"cassandra.port={closed}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert reset.returncode == 1 and f"error: Cassandra at [/127.0.0.1:{closed}]" in reset.stderr


# -- HBase ------------------------------------------------------------------------------------


@pytest.fixture
def hbase(lab_with_stores: Callable[[], lab.LabStatus]) -> int:
    """The session lab's HBase (standalone: one JVM with its ZooKeeper), restarted if a test
    before stopped it; the ZooKeeper port clients start from."""
    status = lab_with_stores().service("hbase")
    assert status.healthy, status.detail
    return port("hbase_zookeeper")


def _java(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    command = [str(java_home() / "bin" / "java"), "-cp", ycsb_classpath(), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def _ycsb_hbase(phase: str, zk_port: int, *extra: str) -> subprocess.CompletedProcess[str]:
    properties = {**WORKLOAD_A, "recordcount": "500", "operationcount": "500"}
    properties["hbase.zookeeper.property.clientPort"] = str(zk_port)
    command = ["site.ycsb.Client", phase, "-db", "benchcamp.ycsb.HBaseClient"]
    command += ["-p", "workload=site.ycsb.workloads.CoreWorkload"]
    for name, value in properties.items():
        command += ["-p", f"{name}={value}"]
    return _java(*command, *extra, "-threads", "2")


def test_hbase_is_healthy_and_small(hbase: int) -> None:
    status = services.service_named("hbase").status()
    assert status.healthy and status.port == hbase, status
    assert status.detail.startswith("master 127.0.0.1:") and "hbase:meta OPEN on 127.0.0.1:" in status.detail
    assert 100 < status.rss_mb < 900, status.rss_mb


def test_ycsb_loads_and_runs_workload_a_through_the_hbase_binding(hbase: int, tmp_path: Path) -> None:
    schema = _java("benchcamp.ycsb.HBaseSchema", "127.0.0.1", str(hbase), "usertable", "family", timeout=120)
    assert schema.returncode == 0, schema.stderr[-2000:]
    assert schema.stdout.strip() == (
        f"created usertable with column family family in HBase at ZooKeeper 127.0.0.1:{hbase}"
    )
    # the campaign's reset hook: the table exists now, so it is disabled, deleted and made again
    port_property = f"hbase.zookeeper.property.clientPort={hbase}"
    reset = _java("benchcamp.ycsb.ResetTable", "hbase", "usertable", "-p", port_property, timeout=120)
    assert reset.returncode == 0, reset.stderr[-2000:]
    assert reset.stdout.strip() == (
        f"created usertable (column family family, 1 region) on HBase at ZooKeeper 127.0.0.1:{hbase}"
    )
    load = _ycsb_hbase("-load", hbase)
    assert load.returncode == 0, load.stderr[-2000:]
    loaded = parse_ycsb_text(load.stdout, "load stdout")
    assert (loaded.insert_ok, loaded.error_returns) == (500, 0), loaded
    exported = tmp_path / "ycsb.json"
    exporter = "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"
    as_json = _ycsb_hbase("-t", hbase, "-p", f"exporter={exporter}", "-p", f"exportfile={exported}")
    as_text = _ycsb_hbase("-t", hbase)
    for result in (as_json, as_text):
        assert result.returncode == 0, result.stderr[-2000:]
        assert "Exception" not in result.stdout, result.stdout[-2000:]
    for summary in (
        parse_ycsb_json(exported.read_text(), str(exported)),
        parse_ycsb_text(as_text.stdout, "run"),
    ):
        assert (summary.ok_operations, summary.error_returns) == (500, 0), summary
        assert {"READ", "UPDATE"} <= set(summary.operations) <= {"READ", "UPDATE", "CLEANUP"}
        read = summary.operations["READ"]
        assert read.returns == {"OK": read.operations}  # every key was loaded: no NOT_FOUND
        assert summary.throughput_ops_s > 0
    scans = ("readproportion=0", "updateproportion=0", "scanproportion=1", "operationcount=200")
    workload_e = _ycsb_hbase("-t", hbase, *(word for pair in scans for word in ("-p", pair)))
    scanned = parse_ycsb_text(workload_e.stdout, "scan run")
    assert (scanned.ok_operations, scanned.error_returns) == (200, 0), workload_e.stderr[-2000:]
    assert scanned.operations["SCAN"].returns == {"OK": 200}


def test_a_read_against_an_unreachable_hbase_fails_naming_host_and_port() -> None:
    """HBase's ZooKeeper port closed (as when the store is down: its ZooKeeper is in the master's
    JVM), the shared store left running for the next module. YCSB exits 0 when every client
    thread failed to start; the binding's error names where it looked. (That the lab's own stop
    of HBase leaves no process is checked when the lab stops at the end of the suite.)"""
    closed = free_port()
    started = time.monotonic()
    result = _ycsb_hbase("-t", closed)
    elapsed = time.monotonic() - started
    assert result.returncode == 0
    assert f"cannot reach HBase at ZooKeeper 127.0.0.1:{closed}: " in result.stdout, result.stdout[-2000:]
    assert elapsed < 60, f"an unreachable HBase took {elapsed:.0f} s to fail"
    report = parse_ycsb_text(result.stdout, "stdout.log")
    assert report.client_errors[0].startswith(f"cannot reach HBase at ZooKeeper 127.0.0.1:{closed}: ")
    assert report.ok_operations == 0
    started = time.monotonic()
    port_property = f"hbase.zookeeper.property.clientPort={closed}"
    reset = _java("benchcamp.ycsb.ResetTable", "hbase", "usertable", "-p", port_property, timeout=120)
    assert reset.returncode == 1 and f"error: HBase at ZooKeeper 127.0.0.1:{closed}: " in reset.stderr
    assert time.monotonic() - started < 90
