"""The YCSB stores of the lab, for real: Cassandra 5.0 started, health-checked and stopped by the
lab's lifecycle, YCSB's table made by the project's ResetTable tool, and YCSB 0.17.0 loading and
running workload A through benchcamp's own CQL binding; the output parses with no error.

The store runs in a private lab directory on free ports, so it never meets a lab in use.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchcamp.lab import services
from benchcamp.lab.config import write_configuration
from benchcamp.lab.install import ensure_stores_installed
from benchcamp.lab.layout import java_home, lab_dir, ycsb_classpath
from benchcamp.workloads.ycsb import parse_ycsb_text

pytestmark = pytest.mark.integration
WORKLOAD_A = {"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "zipfian"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def cassandra(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    patch = pytest.MonkeyPatch()
    native = _free_port()
    patch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path_factory.mktemp("lab")))
    patch.setenv("BENCHCAMP_LAB_CASSANDRA_NATIVE_PORT", str(native))
    patch.setenv("BENCHCAMP_LAB_CASSANDRA_STORAGE_PORT", str(_free_port()))
    patch.setenv("BENCHCAMP_LAB_STORES", "1")
    ensure_stores_installed()
    write_configuration(lab_dir())
    service = services.service_named("cassandra")
    service.start()
    try:
        deadline = time.monotonic() + 180
        while not (status := service.status()).healthy:
            assert status.alive, f"Cassandra exited: {services.log_file('cassandra')}"
            assert time.monotonic() < deadline, f"Cassandra not ready after 180 s: {status.detail}"
            time.sleep(1)
        yield native
    finally:
        pid = services.read_pid("cassandra")
        services._stop("cassandra", service.stop_timeout_s)  # noqa: SLF001 (the lab's own stop)
        assert pid is None or not services.alive(pid), "Cassandra still running after stop"
        patch.undo()


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


def test_ycsb_loads_and_runs_workload_a_through_our_binding(cassandra: int, tmp_path: Path) -> None:
    schema = subprocess.run(
        [str(java_home() / "bin" / "java"), "-cp", ycsb_classpath(), "benchcamp.ycsb.ResetTable", "cassandra",
         "usertable", "-p", f"cassandra.port={cassandra}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert schema.returncode == 0, schema.stderr[-2000:]
    assert f"created ycsb.usertable (10 fields) on Cassandra at [/127.0.0.1:{cassandra}]" in schema.stdout
    for phase, requested in (("-load", 500), ("-t", 500)):
        result = _ycsb(phase, cassandra, tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
        report = parse_ycsb_text(result.stdout, f"{phase}.log")
        assert (report.ok_operations, report.error_returns, report.client_errors) == (requested, 0, ())
        assert report.throughput_ops_s > 0
    assert set(report.operations) == {"READ", "UPDATE"}


def test_a_store_that_is_not_running_fails_naming_host_and_port(tmp_path: Path) -> None:
    closed = _free_port()
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
