"""The results page under load (issue 53, item 2): concurrent signed-in users on a big warehouse.

The warehouse: `--campaigns` nightly campaigns × `--cells` cells of hibench_dse (WordCount,
TestDFSIO write and read, the Hive aggregation, each at cells/4 data sizes, `--repetitions` each),
written as result records and loaded by `benchcamp import`, so the schema, the marts and the
read snapshot are the project's own. SYNTHETIC DATA FOR LOAD: the times are a linear model with
±3 % noise, its numbers are no study's and say nothing about any system.

The server: the real path a user has, Airflow's api-server with the results plugin (as `benchcamp
up` starts it: one worker, the SimpleAuthManager, its PostgreSQL metadata database), started here
alone in a private Airflow home on a free loopback port (no scheduler, no lab: the page needs
neither), and stopped after, whatever happened.

The load: Locust (`benchmarks/results_page_users.py`), `--users` users signing in through
Airflow's login and browsing (the list, the study's latest campaign, an earlier campaign chosen
at random among all, one of its figures, its CSV) with `--think` seconds between pages, for
`--duration` seconds after a ramp of `--spawn-rate` users a second: `locust --headless`, bounded
in time (and killed if it outlives that by a minute). Printed: requests, failures, p50/p95/p99
per route and overall from Locust's CSV, and the CPU-seconds of the api-server, of Locust and of
the whole machine beside the wall time. Aim (issue 53): p99 under 1 s, no error, 50 users over
1,000 campaigns × 100 cells.

Locust is a dev dependency (pyproject.toml): it resolved beside Airflow with nothing changed,
only packages added (Flask, gevent and their kin, which the product never imports); its pytest
plugin is switched off in the suite's addopts.

Usage: .venv/bin/python benchmarks/results_page_load.py [--campaigns 1000] [--cells 100]
       [--users 50] [--duration 120] [--think 5,15] [--warehouse FILE (kept, reused)] [--keep DIR]
       [--py-spy FILE (the api-server's stacks during the load: where its time goes)]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import psutil

BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent
STUDY = "hibench_dse"
WORKLOADS = ("wordcount", "dfsio_write", "dfsio_read", "hive_aggregation")
START = datetime(2024, 1, 1, 1, 0, tzinfo=UTC)
P99_AIM_MS = 1000.0
UP_TIMEOUT_S = 300.0


def write_records(path: Path, campaigns: int, cells: int, repetitions: int) -> int:
    """Synthetic hibench_dse records: `cells` cells a campaign, one campaign a night."""
    rng = np.random.default_rng(53)
    sizes = max(cells // len(WORKLOADS), 1)
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for number in range(campaigns):
            clock = START + timedelta(days=number)
            step = 0
            for workload in WORKLOADS:
                for index in range(sizes):
                    size = round(0.01 + 0.01 * index, 2)
                    params: dict[str, Any] = {"data_size_gb": size}
                    if workload == "wordcount":
                        params |= {"maps": 4, "reduces": 2}
                    for repetition in range(1, repetitions + 1):
                        value = round(float((3.0 + 17.0 * size) * (1 + rng.uniform(-0.03, 0.03))), 4)
                        started = clock + timedelta(seconds=30 * step)
                        step += 1
                        base = {
                            "study": STUDY, "campaign": f"night_{number:04d}", "environment": "local_lab",
                            "workload": workload, "params": params, "repetition": repetition, "status": "ok",
                            "started_at": started.isoformat(),
                            "finished_at": (started + timedelta(seconds=value)).isoformat(),
                        }  # fmt: skip
                        rows = [("duration_s", value, "s")]
                        if workload.startswith("dfsio"):
                            rows.append(("throughput_mb_s", round(size * 1024 / value, 3), "MB/s"))
                        for metric, number_, unit in rows:
                            handle.write(
                                json.dumps({**base, "metric": metric, "value": number_, "unit": unit})
                            )
                            handle.write("\n")
                            written += 1
    return written


def campaigns_in(warehouse: Path) -> list[str]:
    if not warehouse.exists():
        return []
    with duckdb.connect(str(warehouse), read_only=True) as con:
        try:
            rows = con.execute("select campaign from main.campaigns where study = ? order by 1", [STUDY])
        except duckdb.Error:
            return []
        return [str(row[0]) for row in rows.fetchall()]


def build_warehouse(warehouse: Path, campaigns: int, cells: int, repetitions: int) -> list[str]:
    """The warehouse, built by `benchcamp import` unless it already holds the campaigns."""
    known = campaigns_in(warehouse)
    if len(known) == campaigns:
        print(f"warehouse {warehouse}: {campaigns} campaigns already loaded, reused")
        return known
    records = warehouse.with_name("load_records.jsonl")
    count = write_records(records, campaigns, cells, repetitions)
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / "benchcamp"), "import", str(records), "--warehouse", str(warehouse)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchcamp import exited {done.returncode}:\n{done.stderr[-3000:]}")
    records.unlink()
    print(
        f"warehouse {warehouse}: {count} synthetic records ({campaigns} campaigns × {cells} cells × "
        f"{repetitions}) imported in {time.monotonic() - started:.0f} s"
    )
    return campaigns_in(warehouse)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/api/v2/monitor/health", timeout=5) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False  # not listening yet


@contextmanager
def api_server(home: Path, warehouse: Path) -> Iterator[tuple[str, str, int]]:
    """Airflow's api-server with the project's plugins, as `benchcamp up` starts it, alone:
    (its URL, the admin password, its PID). Stopped, with its metadata database, on the way out."""
    port = free_port()
    os.environ.update(
        {
            "AIRFLOW_HOME": str(home),
            "BENCHCAMP_AIRFLOW_PORT": str(port),
            "BENCHCAMP_WAREHOUSE": str(warehouse),
            "BENCHCAMP_RESULTS": str(home / "results"),
        }
    )
    import benchcamp.ops.metadb as metadb
    import benchcamp.ops.stack as stack
    from benchcamp.airflow.airflow_env import prepare_airflow
    from benchcamp.ops.supervisor import Supervised

    env = stack.stack_environment()
    _, password, _ = stack.credentials()
    server = Supervised("api-server", home / "run" / "api-server.pid", stack.log_file("api-server"))
    started = time.monotonic()
    try:
        metadb.start()
        prepare_airflow(env)
        airflow = str(BIN / "airflow")
        command = [airflow, "api-server", "--host", stack.API_HOST, "--port", str(port), "--workers", "1"]
        pid = server.start(command, env={**os.environ, **env}, cwd=home)
        base = stack.api_url()
        if not server.wait_healthy(lambda: _healthy(base), UP_TIMEOUT_S, 1.0):
            raise SystemExit(f"the api-server did not come up; see {stack.log_file('api-server')}")
        print(f"api-server {base} (pid {pid}) healthy {time.monotonic() - started:.0f} s after its start")
        yield base, password, pid
    finally:
        server.stop(30)
        metadb.stop()


def _tree_cpu_s(pid: int) -> float:
    """CPU-seconds of a process and its live children."""
    try:
        root = psutil.Process(pid)
        total = 0.0
        for proc in [root, *root.children(recursive=True)]:
            times = proc.cpu_times()
            total += times.user + times.system
        return total
    except psutil.NoSuchProcess:
        return 0.0


def _sample(pid: int, duration_s: int, out: Path) -> subprocess.Popen[bytes]:
    """py-spy on the api-server and its worker for the load's time (raw stacks, 50 Hz)."""
    command = [
        str(BIN / "py-spy"), "record", "--pid", str(pid), "--subprocesses", "--rate", "50",
        "--duration", str(duration_s), "--format", "raw", "--output", str(out.resolve()), "--nonblocking",
    ]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _machine_busy_s() -> float:
    times = psutil.cpu_times()
    return float(times.user + times.nice + times.system + times.irq + times.softirq + times.steal)


def run_locust(
    base: str, password: str, campaigns: list[str], args: argparse.Namespace, out: Path
) -> tuple[list[dict[str, str]], float, float]:
    """`locust --headless` for `args.duration` s: Locust's per-route rows, its wall and CPU time."""
    env = {
        **os.environ,
        "BENCHCAMP_LOAD_PASSWORD": password,
        "BENCHCAMP_LOAD_STUDY": STUDY,
        "BENCHCAMP_LOAD_CAMPAIGNS": ",".join(campaigns),
        "BENCHCAMP_LOAD_THINK_S": args.think,
    }
    prefix = out / "locust"
    command = [
        str(BIN / "locust"), "-f", str(HERE / "results_page_users.py"), "--headless", "--host", base,
        "--users", str(args.users), "--spawn-rate", str(args.spawn_rate), "--run-time", f"{args.duration}s",
        "--stop-timeout", "30", "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.duration + 90)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    (out / "locust.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode not in (0, 1):  # 1: some requests failed, which the figures show
        raise SystemExit(f"locust exited {done.returncode}:\n{done.stderr[-3000:]}")
    with Path(f"{prefix}_stats.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return rows, wall, cpu


def report(rows: list[dict[str, str]], failures: Path) -> bool:
    """Print the figures; True when the aim is met (p99 under 1 s, no failure)."""
    print(f"{'route':34} {'requests':>8} {'failed':>6} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7} {'kB':>7}")
    for row in rows:
        name = row["Name"] if row["Name"] != "Aggregated" else "all requests"
        print(
            f"{name:34} {row['Request Count']:>8} {row['Failure Count']:>6} {row['50%']:>6}ms "
            f"{row['95%']:>6}ms {row['99%']:>6}ms {float(row['Max Response Time']):>6.0f}ms "
            f"{float(row['Average Content Size']) / 1000:>7.0f}"
        )
    total = next(row for row in rows if row["Name"] == "Aggregated")
    if failures.exists():
        for line in failures.read_text(encoding="utf-8").splitlines()[1:6]:
            print(f"  failure: {line}")
    p99 = float(total["99%"])
    met = p99 < P99_AIM_MS and int(total["Failure Count"]) == 0
    print(f"aim: p99 < {P99_AIM_MS:.0f} ms, no error: {'met' if met else 'NOT MET'} (p99 {p99:.0f} ms)")
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--cells", type=int, default=100)
    parser.add_argument("--repetitions", type=int, default=2)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--spawn-rate", type=float, default=10)
    parser.add_argument("--duration", type=int, default=120, help="seconds of load after the start")
    parser.add_argument("--think", default="5,15", help="a user's pause between pages: MIN,MAX seconds")
    parser.add_argument("--warehouse", type=Path, help="build here once and reuse (kept)")
    parser.add_argument("--keep", type=Path, help="keep the Airflow home and Locust's CSV here")
    parser.add_argument("--py-spy", type=Path, help="sample the api-server during the load into this file")
    args = parser.parse_args()
    if args.duration > 900:
        parser.error("--duration: at most 900 s")
    tmp = (args.keep or Path(tempfile.mkdtemp(prefix="bench_load_"))).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    warehouse = (args.warehouse or tmp / "warehouse" / "benchcamp.duckdb").resolve()
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    try:
        campaigns = build_warehouse(warehouse, args.campaigns, args.cells, args.repetitions)
        with api_server(tmp / "airflow", warehouse) as (base, password, pid):
            load_before = os.getloadavg()[0]
            server_before, machine_before = _tree_cpu_s(pid), _machine_busy_s()
            started = time.monotonic()
            sampler = _sample(pid, args.duration, args.py_spy) if args.py_spy else None
            try:
                rows, wall, locust_cpu = run_locust(base, password, campaigns, args, tmp)
            finally:
                if sampler is not None:
                    sampler.wait(timeout=120)
            elapsed = time.monotonic() - started
            server_cpu = _tree_cpu_s(pid) - server_before
            machine_cpu = _machine_busy_s() - machine_before
        print(
            f"{args.users} users, think {args.think} s, {args.duration} s of load after a ramp of "
            f"{args.spawn_rate:g}/s; {len(campaigns)} campaigns × {args.cells} cells (synthetic)"
        )
        met = report(rows, tmp / "locust_failures.csv")
        print(
            f"wall {elapsed:.0f} s (locust {wall:.0f} s); CPU-s: api-server {server_cpu:.0f}, "
            f"locust {locust_cpu:.0f}, whole machine {machine_cpu:.0f} ({os.cpu_count()} cores); "
            f"load average before {load_before:.2f}"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    raise SystemExit(0 if met else 1)


if __name__ == "__main__":
    main()
