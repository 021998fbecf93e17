"""What the harness costs before any job runs: the fixed cost of an import and of a campaign.

(a) `benchcamp import` of one repetition's records (a TestDFSIO write: its duration and six
    metrics) into a warehouse whose whole project was built once before, so the build selects
    what the records can change (`transform.loaded_selection`), as every import after a
    warehouse's first does. Aim (issue 51): at most 5 s of wall time.
(b) `benchcamp run` of a one-cell campaign refused at its preflight (an SSH connection to a
    closed port: four tries over 14 s, then validate, load, the dbt build and the report, which
    record why nothing ran). Aim (issue 51): at most 15 CPU-seconds, the preflight's tries aside.

Each run is its own process, timed from outside with its children's CPU time (getrusage);
medians of `--runs`. Needs no lab: (a) is the warehouse alone, (b) never reaches a target.
Where the time goes is sampled with py-spy (docs/performance.md, "Fixed costs").

Usage: .venv/bin/python benchmarks/fixed_costs.py [--runs N] [--skip-campaign]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
IMPORT_AIM_S = 5.0
CAMPAIGN_AIM_CPU_S = 15.0


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s of the command and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def _repetition(path: Path) -> Path:
    """One TestDFSIO write repetition's records, as a campaign archives them."""
    base = {
        "study": "hibench_dse", "campaign": "fixed_cost", "environment": "local_lab",
        "workload": "dfsio_write", "params": {"data_size_gb": 0.022}, "repetition": 1, "status": "ok",
        "started_at": "2026-12-07T15:11:31.537221Z", "finished_at": "2026-12-07T15:11:39.974072Z",
    }  # fmt: skip
    metrics = [
        ("duration_s", 8.44, "s"), ("test_exec_time_s", 5.77, "s"), ("throughput_mb_s", 4.9, "MB/s"),
        ("avg_io_rate_mb_s", 5.1, "MB/s"), ("io_rate_stddev_mb_s", 0.8, "MB/s"), ("files", 23, "count"),
        ("total_mb", 23, "MB"),
    ]  # fmt: skip
    path.write_text(
        "".join(json.dumps({**base, "metric": m, "value": v, "unit": u}) + "\n" for m, v, u in metrics),
        encoding="utf-8",
    )
    return path


def import_cost(runs: int, folder: Path) -> None:
    records, warehouse = _repetition(folder / "repetition.jsonl"), folder / "warehouse.duckdb"
    command = [str(BIN / "benchcamp"), "import", str(records), "--warehouse", str(warehouse)]
    wall, cpu, code = _timed(command)  # the warehouse's first import: the whole project
    if code != 0:
        raise SystemExit(f"the first import failed (exit {code})")
    timings = [_timed(command) for _ in range(runs)]  # the same records again: replaced
    if any(code != 0 for *_, code in timings):
        raise SystemExit("an import failed")
    walls, cpus = [t[0] for t in timings], [t[1] for t in timings]
    median = statistics.median(walls)
    print(
        f"(a) import of one repetition (7 records) into a built warehouse: {median:.2f} s wall "
        f"({min(walls):.2f}-{max(walls):.2f}), {statistics.median(cpus):.1f} CPU-s; aim <= {IMPORT_AIM_S:.0f} s: "
        f"{'met' if median <= IMPORT_AIM_S else 'not met'} (the first, a whole build: {wall:.2f} s, {cpu:.1f} CPU-s)"
    )


def campaign_cost(runs: int, folder: Path) -> None:
    env = {
        "AIRFLOW_CONN_DSE_GATEWAY_SSH": "ssh://bench@127.0.0.1:1",
        "BENCHCAMP_WAREHOUSE": str(folder / "campaign.duckdb"),
        "BENCHCAMP_RESULTS": str(folder / "results"),
    }
    timings = []
    for run in range(runs):
        command = [
            str(BIN / "benchcamp"), "run", "hibench_dse", "--environment", "dse_cluster", "--ladder", "tiny",
            "--workloads", "dfsio_write", "--cells", "dfsio_write|data_size_gb=0.022",
            "--campaign", f"refused_{run}",
        ]  # fmt: skip
        wall, cpu, code = _timed(command, env)
        if code != 5:  # ExitCode.NOTHING_MEASURED: the target unreachable
            raise SystemExit(f"the refused campaign exited {code}, not 5")
        timings.append((wall, cpu))
    cpu = statistics.median(t[1] for t in timings)
    print(
        f"(b) a one-cell campaign refused at its preflight: {statistics.median(t[0] for t in timings):.1f} s wall, "
        f"{cpu:.1f} CPU-s; aim <= {CAMPAIGN_AIM_CPU_S:.0f} CPU-s: {'met' if cpu <= CAMPAIGN_AIM_CPU_S else 'not met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-campaign", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="benchcamp-fixed-costs-") as scratch:
        import_cost(args.runs, Path(scratch))
        if not args.skip_campaign:
            campaign_cost(max(1, args.runs // 2), Path(scratch))


if __name__ == "__main__":
    main()
