"""Several YCSB clients as one run: HdrHistogram logs read and merged (workloads/ycsb_histograms.py),
checked against every latency sample of two real clients (tests/data/ycsb/clients/README.md); the
commands that start them together; and real two-client execute steps of both stores parsed into
one run's records (tests/data/ycsb/pipeline/*_two_clients)."""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from benchcamp.core.spec import load_spec
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ArchivedStep, ParseError, RunContext, render
from benchcamp.workloads.ycsb import parse_ycsb_text, read_clients_summary
from benchcamp.workloads.ycsb_histograms import (
    HistogramLog,
    check_together,
    merge_logs,
    read_histogram_log,
    value_at_percentile,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "ycsb"
CLIENTS = DATA / "clients"
PIPELINE = DATA / "pipeline"
SPEC = load_spec("ycsb_hbase_cassandra")
START = datetime(2026, 11, 27, 23, 17, 0, tzinfo=UTC)
END = datetime(2026, 11, 27, 23, 17, 12, tzinfo=UTC)


def _log(client: str, operation: str) -> HistogramLog:
    path = CLIENTS / client / f"Hdr{operation}.hdr"
    return read_histogram_log(path.read_text(), str(path))


def _samples(operation: str) -> list[int]:
    """Every latency (µs) both clients measured for `operation` (YCSB's raw measurement)."""
    return sorted(
        int(line.split(",")[2])
        for client in ("client1", "client2")
        for line in (CLIENTS / client / "raw-reads.csv").read_text().splitlines()
        if line.startswith(f"Raw{operation},")
    )


@pytest.mark.parametrize("client", ["client1", "client2"])
@pytest.mark.parametrize("operation", ["READ", "UPDATE", "Intended-READ", "Intended-UPDATE", "CLEANUP"])
def test_a_clients_log_gives_the_percentiles_ycsb_printed(client: str, operation: str) -> None:
    """The same histogram, the same rule (nearest rank, its bucket's highest value) as YCSB's summary."""
    printed = parse_ycsb_text((CLIENTS / client / "stdout.log").read_text(), "stdout.log")
    stats = printed.operations[f"Hdr{operation}"]
    log = _log(client, operation)
    assert log.count == stats.operations
    assert value_at_percentile(log.histogram, 95) == stats.latencies_us["p95"]
    assert value_at_percentile(log.histogram, 99) == stats.latencies_us["p99"]
    assert log.histogram.get_min_value() == stats.latencies_us["min"]
    assert log.histogram.get_max_value() == stats.latencies_us["max"]


@pytest.mark.parametrize("operation", ["READ", "Intended-READ"])
def test_merged_logs_give_the_pooled_samples_percentiles_and_averaging_would_not(operation: str) -> None:
    """One client with 1 thread at 400 ops/s, one with 8 threads at 800 ops/s, run together: the
    merged histogram's percentiles are the pooled samples' own (to HdrHistogram's 3 digits: the
    same bucket), and the mean of the two clients' percentiles is far from them."""
    merged = merge_logs([_log("client1", operation), _log("client2", operation)])
    samples = _samples(operation)
    assert merged.count == len(samples) == 1986
    for percentile in (50, 95, 99, 99.9):
        pooled = samples[math.ceil(percentile / 100 * len(samples)) - 1]
        assert value_at_percentile(
            merged.histogram, percentile
        ) == merged.histogram.get_highest_equivalent_value(pooled)
        assert value_at_percentile(merged.histogram, percentile) == pytest.approx(pooled, rel=1e-3)
    pooled_p99 = samples[math.ceil(0.99 * len(samples)) - 1]
    averaged = sum(value_at_percentile(_log(c, operation).histogram, 99) for c in ("client1", "client2")) / 2
    assert abs(averaged - pooled_p99) / pooled_p99 > 0.15, (averaged, pooled_p99)


def test_clients_that_did_not_run_together_are_refused_naming_their_periods(tmp_path: Path) -> None:
    late = (
        (CLIENTS / "client2" / "HdrREAD.hdr")
        .read_text()
        .replace("#[StartTime: 17958207", "#[StartTime: 17958208")
    )
    logs = [_log("client1", "READ"), read_histogram_log(late, "late.hdr")]
    with pytest.raises(
        ParseError, match=r"did not run together .* client 1 1795820702\.\d+-.*, client 2 1795820801"
    ):
        check_together([(log.start_s, log.end_s) for log in logs], ["client 1", "client 2"])
    check_together([(log.start_s, log.end_s) for log in logs[:1] * 2], ["client 1", "client 2"])


def test_a_log_cut_short_or_without_its_start_is_refused() -> None:
    text = (CLIENTS / "client1" / "HdrREAD.hdr").read_text()
    cut = text[: text.rindex("HISTF") + 20]
    with pytest.raises(ParseError, match=r"cut\.hdr: line \d+: its histogram cannot be decoded"):
        read_histogram_log(cut, "cut.hdr")
    with pytest.raises(ParseError, match="no #\\[StartTime"):
        read_histogram_log("\n".join(line for line in text.splitlines() if "StartTime" not in line), "x.hdr")
    with pytest.raises(ParseError, match="no interval histogram"):
        read_histogram_log("\n".join(line for line in text.splitlines() if line.startswith("#")), "x.hdr")


def _context(store: str = "cassandra", **params: int) -> RunContext:
    cell = {"store": store, "target_ops": 500, "threads": 8, "clients": 2, **params}
    return RunContext(SPEC, SPEC.environment("local_lab"), "c1", "ycsb_a", cell, 1, "tiny")  # type: ignore[arg-type]


def test_each_client_starts_with_its_share_and_the_step_waits_for_all() -> None:
    lines = [render(command) for command in get_workload("ycsb_a").execute(_context(target_ops=501))]
    clients = [line for line in lines if " -t " in line]
    assert len(clients) == 2 and lines[-1].startswith("failed=0;") and '[ "$failed" = 0 ]' in lines[-1]
    for n, (operations, target) in enumerate([(500, 251), (500, 250)], start=1):
        line = clients[n - 1]
        assert f"-p operationcount={operations} " in line and f"-target {target} " in line
        assert f'-p hdrhistogram.output.path="$JOB"/client{n}. ' in line
        assert '-p benchcamp.start.dir="$JOB"/start -p benchcamp.start.clients=2' in line
        assert line.endswith(
            f'> "$JOB"/client{n}.stdout.log 2> "$JOB"/client{n}.stderr.log & pids="$pids $!"'
        )
    one = [render(command) for command in get_workload("ycsb_a").execute(_context(clients=1))]
    assert "&" not in one[-1] and "-target 500 " in one[-1]
    # one client writes its logs too (its served rate), in the job directory under no prefix
    assert '-p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$JOB"/ ' in one[-1]
    # under a target every call is also measured from its intended start; unthrottled, not
    assert all("-p measurement.interval=both" in line for line in [*clients, one[-1]])
    unthrottled = get_workload("ycsb_a").execute(_context(clients=1, target_ops=None, operationcount=1000))  # type: ignore[arg-type]
    assert "measurement.interval" not in render(unthrottled[-1])


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ({"clients": 0}, "clients must be a whole number above 0"),
        ({"clients": 3, "target_ops": 2}, "3 clients need at least one operation and one op/s each"),
    ],
)
def test_a_cell_whose_clients_cannot_share_the_work_is_refused(params: dict[str, int], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        get_workload("ycsb_a").check_cell(_context(**params))


@pytest.mark.parametrize("workload", ["ycsb_d", "ycsb_e"])
def test_several_clients_of_a_workload_that_inserts_are_refused(workload: str) -> None:
    """Every client numbers its inserts from recordcount: two would write the same keys."""
    cell = {"store": "cassandra", "target_ops": 500, "threads": 8, "clients": 2}
    ctx = RunContext(SPEC, SPEC.environment("local_lab"), "c1", workload, cell, 1, "tiny")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"2 clients would insert the same keys \(insertproportion 0.05"):
        get_workload(workload).check_cell(ctx)
    get_workload(workload).check_cell(dataclasses.replace(ctx, params={**cell, "clients": 1}))


def _step(directory: Path) -> ArchivedStep:
    return ArchivedStep(directory=directory, exit_code=0, started_at=START, finished_at=END, files={})


@pytest.mark.parametrize("store", ["cassandra", "hbase"])
def test_two_real_clients_parse_into_one_runs_records(store: str) -> None:
    """Two clients of 8 threads at 250 ops/s each on the lab's store (a real campaign's step)."""
    directory = PIPELINE / f"{store}_a_two_clients"
    records = {r.metric: r for r in get_workload("ycsb_a").parse(_context(store), _step(directory))}
    assert {r.status for r in records.values()} == {"ok"}
    own = [parse_ycsb_text((directory / f"client{n}.stdout.log").read_text(), "s") for n in (1, 2)]
    assert records["throughput_ops_s"].value == pytest.approx(sum(s.throughput_ops_s for s in own))
    assert records["operations_ok"].value == 1000 == sum(s.ok_operations for s in own)
    for op in ("READ", "UPDATE"):
        stats = [s.operations[op] for s in own]
        assert records[f"{op.lower()}_operations"].value == sum(each.operations for each in stats)
        weighted = sum(each.latencies_us["avg"] * each.operations for each in stats) / sum(
            e.operations for e in stats
        )
        assert records[f"{op.lower()}_avg_latency_us"].value == pytest.approx(weighted)
        merged = merge_logs(
            [read_histogram_log((directory / f"client{n}.{op}.hdr").read_text(), "x") for n in (1, 2)]
        )
        assert records[f"{op.lower()}_p99_latency_us"].value == value_at_percentile(merged.histogram, 99)
        assert records[f"{op.lower()}_max_latency_us"].value == max(
            each.latencies_us["max"] for each in stats
        )
    assert records["throughput_ops_s"].artifact == str(directory)


@pytest.mark.parametrize(
    ("directory", "ctx"),
    [
        ("cassandra_a_two_clients", lambda: _context("cassandra")),
        ("hbase_a_two_clients", lambda: _context("hbase")),
        ("cassandra_ring_a_two_client_hosts", lambda: _ring(clients=2, target_ops=500, threads=8)),
    ],
)
def test_the_served_throughput_is_the_operations_over_the_period_the_histograms_cover(
    directory: str, ctx: Callable[[], RunContext]
) -> None:
    """YCSB's RunTime also holds each client's start (its store connection, the start barrier):
    the records add the rate over the period the clients' histogram logs cover, first interval
    to last, which on these real steps is well above YCSB's summed throughput."""
    step = PIPELINE / directory
    records = {r.metric: r for r in get_workload("ycsb_a").parse(ctx(), _step(step))}
    own = [parse_ycsb_text((step / f"client{n}.stdout.log").read_text(), "s") for n in (1, 2)]
    operations = sum(round(s.throughput_ops_s * s.runtime_ms / 1000) for s in own)
    logs = [read_histogram_log(path.read_text(), str(path)) for path in step.glob("client*.hdr")]
    served = max(log.end_s for log in logs) - min(log.start_s for log in logs)
    assert records["served_s"].value == pytest.approx(served) and records["served_s"].unit == "s"
    assert records["served_throughput_ops_s"].value == pytest.approx(operations / served)
    assert operations == 1000 and served < max(s.runtime_ms for s in own) / 1000
    assert records["served_throughput_ops_s"].value > 1.1 * records["throughput_ops_s"].value
    assert records["served_throughput_ops_s"].status == records["throughput_ops_s"].status == "ok"


def test_one_client_has_its_served_rate_from_its_own_logs() -> None:
    """A real step of one client at -target 500 ops/s: YCSB's throughput, its RunTime holding the
    client's store connection, is 273 ops/s; over the period its logs cover, it served 493."""
    step = PIPELINE / "cassandra_a_target500_one_client"
    records = {r.metric: r for r in get_workload("ycsb_a").parse(_context(clients=1), _step(step))}
    own = parse_ycsb_text((step / "stdout.log").read_text(), "s")
    logs = [read_histogram_log(path.read_text(), str(path)) for path in step.glob("*.hdr")]
    served = max(log.end_s for log in logs) - min(log.start_s for log in logs)
    assert records["served_s"].value == pytest.approx(served) and served < own.runtime_ms / 1000
    assert records["served_throughput_ops_s"].value == pytest.approx(1000 / served)
    assert (
        round(records["throughput_ops_s"].value) == 273
        and round(records["served_throughput_ops_s"].value) == 493
    )
    assert {r.status for r in records.values()} == {"ok"}


def test_one_client_without_histogram_logs_has_no_served_throughput() -> None:
    """A step recorded before every timed run wrote its logs."""
    records = {
        r.metric for r in get_workload("ycsb_a").parse(_context(clients=1), _step(PIPELINE / "cassandra_a"))
    }
    assert "throughput_ops_s" in records and not {"served_s", "served_throughput_ops_s"} & records


def test_a_client_without_its_histogram_log_is_refused_naming_it(tmp_path: Path) -> None:
    directory = shutil.copytree(PIPELINE / "cassandra_a_two_clients", tmp_path / "step")
    for log in directory.glob("client2.*.hdr"):
        log.unlink()
    with pytest.raises(ParseError, match="client 2 wrote no histogram log"):
        read_clients_summary(_step(directory), 2)
    (directory / "client1.READ.hdr").write_text((directory / "client1.UPDATE.hdr").read_text())
    shutil.copy(PIPELINE / "cassandra_a_two_clients" / "client2.CLEANUP.hdr", directory)
    with pytest.raises(ParseError, match="client 2 has no histogram log of READ"):
        read_clients_summary(_step(directory), 2)


def _remote(keys: dict[str, object] | None = None, **params: int) -> RunContext:
    """A two-client cell with its clients on two hosts; `keys`: more of the environment's keys."""
    environment = SPEC.environment("local_lab").replace(
        ycsb_client_hosts=["10.0.0.20", "10.0.0.10"], **(keys or {})
    )
    cell = {"store": "cassandra", "target_ops": 500, "threads": 8, "clients": 2, **params}
    return RunContext(SPEC, environment, "c1", "ycsb_a", cell, 1, "tiny")  # type: ignore[arg-type]


def test_clients_on_their_hosts_log_in_first_then_start_together_and_are_fetched() -> None:
    """With `ycsb_client_hosts`, client N runs on the N-th host over the target's ssh (a terminal
    of its own, so a stopped step hangs it up); client 1 holds the start barrier the others
    connect to; every host answers before any client starts; each client's files come back."""
    every = [render(command) for command in get_workload("ycsb_a").execute(_remote())]
    # the hosts answer before the table is reset and loaded
    assert every[0].startswith('unreachable=""; for host in 10.0.0.20 10.0.0.10; do ssh ')
    assert "no client started" in every[0] and "exit 1" in every[0] and "ResetTable" in every[1]
    lines = [every[0], *every[3:]]
    assert lines[1] == 'pids=""'
    for n, host in ((1, "10.0.0.20"), (2, "10.0.0.10")):
        line = lines[1 + n]
        assert f"-o BatchMode=yes -o ConnectTimeout=10 -tt {host} " in line
        assert line.endswith(f'> "$JOB"/client{n}.ssh.log 2>&1 </dev/null & pids="$pids $!"')
        assert "-p benchcamp.start.address=10.0.0.20:47390" in line
        assert ("-p benchcamp.start.serve=true" in line) == (n == 1)
        assert "benchcamp.start.dir" not in line
        fetch = lines[4 + n]
        assert fetch.startswith(
            f'ssh ${{BENCHCAMP_SSH_CONFIG:+-F "$BENCHCAMP_SSH_CONFIG"}} -o BatchMode=yes -o ConnectTimeout=10 {host} '
        )
        assert (
            f"tar -xf - -C \"$JOB\" || {{ echo 'the files of YCSB client {n} could not be fetched from {host}'"
            in fetch
        )
    assert lines[-1] == '[ "$failed" = 0 ]'
    endpoints = get_workload("ycsb_a").endpoints(_remote())
    assert [(node.host, node.over_ssh) for node in endpoints if node.over_ssh] == [
        ("10.0.0.20", True),
        ("10.0.0.10", True),
    ]
    one = get_workload("ycsb_a").endpoints(_remote(clients=1))
    assert [node.host for node in one if node.over_ssh] == ["10.0.0.20"]


def test_a_client_host_that_is_no_host_name_is_refused_in_the_spec() -> None:
    with pytest.raises(ValueError, match="ycsb_client_hosts"):
        SPEC.environment("local_lab").replace(ycsb_client_hosts=["h; rm -rf ~"])


@pytest.mark.parametrize("unreachable", [False, True])
def test_the_remote_clients_script_runs_fetches_and_cleans_up(tmp_path: Path, unreachable: bool) -> None:
    """The step's script run by bash, with `ssh` running the host's command here (its quoting is
    the point: two shells read it) and `java` writing what a client writes; the real path runs
    on the lab cluster (docs/operations/lab-cluster.md)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ssh").write_text(
        "#!/bin/bash\n"
        'while [ "${1:0:1}" = "-" ]; do case "$1" in -o|-F) shift 2;; *) shift;; esac; done\n'
        'host="$1"; shift\n'
        f'if [ "$host" = 10.0.0.10 ] && [ -e {tmp_path}/down ]; then exit 255; fi\n'
        'exec bash -c "$*"\n'
    )
    (bin_dir / "java").write_text(
        "#!/bin/bash\n"
        'for word in "$@"; do case "$word" in exportfile=*) out="${word#exportfile=}";; esac; done\n'
        'echo "[OVERALL], RunTime(ms), 1" ; echo "{}" > "$out"; echo "client in $PWD" >&2\n'
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    if unreachable:
        (tmp_path / "down").touch()
    job = tmp_path / "job"
    job.mkdir()
    commands = [(every := get_workload("ycsb_a").execute(_remote()))[0], *every[3:]]
    script = "set -e -o pipefail\n" + "\n".join(render(command) for command in commands) + "\n"
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "JOB": str(job),
        "TMPDIR": str(tmp_path / "hosts"),
        "YCSB_CLASSPATH": "/cp",
    }
    result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=False)
    if unreachable:
        assert result.returncode == 1
        assert (
            "YCSB client hosts not answering over SSH: 10.0.0.10 (the environment's ycsb_client_hosts): no client started"
            in result.stderr
        )
        assert not list(job.iterdir()) and not (tmp_path / "hosts").exists()
        return
    assert result.returncode == 0, result.stderr
    for n in (1, 2):
        assert (job / f"client{n}.stdout.log").read_text() == "[OVERALL], RunTime(ms), 1\n"
        assert (job / f"client{n}.ycsb.json").read_text() == "{}\n"
        assert f"/client{n}\n" in (job / f"client{n}.stderr.log").read_text()
    assert [path.name for path in (tmp_path / "hosts").rglob("*")] == [f"benchcamp-ycsb-{os.getuid()}"]


def _ring(**params: int) -> RunContext:
    cell = {"store": "cassandra", "threads": 1, **params}
    return RunContext(SPEC, SPEC.environment("lab_cluster"), "c1", "ycsb_a", cell, 1, "tiny")  # type: ignore[arg-type]


def test_two_clients_on_two_hosts_of_the_ring_parse_into_one_run() -> None:
    """A real step of the lab cluster: each client's files fetched from its host, merged."""
    directory = PIPELINE / "cassandra_ring_a_two_client_hosts"
    ctx = _ring(clients=2, target_ops=500, threads=8)
    records = {r.metric: r for r in get_workload("ycsb_a").parse(ctx, _step(directory))}
    assert {r.status for r in records.values()} == {"ok"}
    own = [parse_ycsb_text((directory / f"client{n}.stdout.log").read_text(), "s") for n in (1, 2)]
    assert records["throughput_ops_s"].value == pytest.approx(sum(s.throughput_ops_s for s in own))
    assert records["operations_ok"].value == 1000
    assert "Connection to 10.232.0.10 closed." in (directory / "client2.ssh.log").read_text()


def test_a_ring_node_stopped_mid_run_fails_the_repetition_with_the_error_returns_named() -> None:
    """The step exited 0 (YCSB does), but one UPDATE came back ERROR: the run's records are
    failed and the reason archived names the calls and the file."""
    directory = PIPELINE / "cassandra_ring_a_node_stopped"
    ctx = _ring(operationcount=2000)
    workload = get_workload("ycsb_a")
    records = workload.parse(ctx, _step(directory))
    by_metric = {r.metric: r for r in records}
    assert by_metric["error_returns"].value == 1 and by_metric["error_returns"].status == "failed"
    assert by_metric["operations_ok"].value == 1999
    assert workload.failure_reason(ctx, _step(directory), records) == (
        f"YCSB's run: 1 error returns (UPDATE ERROR 1); 1999 of 2000 operations ok (see {directory})"
    )


def test_the_barrier_port_is_the_environments_and_a_port_out_of_range_is_refused() -> None:
    """A real cluster may have the default port taken or closed: `ycsb_barrier_port` moves it."""
    every = [
        render(command) for command in get_workload("ycsb_a").execute(_remote({"ycsb_barrier_port": 50123}))
    ]
    starts = [line for line in every if "site.ycsb.Client" in line and "benchcamp.start.address" in line]
    assert len(starts) == 2 and all("-p benchcamp.start.address=10.0.0.20:50123" in line for line in starts)
    for bad in (80, 70000):
        with pytest.raises(ValueError, match="ycsb_barrier_port"):
            SPEC.environment("local_lab").replace(ycsb_barrier_port=bad)
