"""Does the pipeline limit the throughput YCSB measures? Side by side in one run, printed as ratios.

The YCSB client with `site.ycsb.BasicDB` (no store: every call returns at once, so the client
itself is the bottleneck) runs the same workload A command twice per pair, in alternating
order: once through the pipeline (the SSH step runner: wrapper, job directory, tee exporter,
archive, the campaign's parser) and once directly on the host (`bash -c` of the same command,
parsed from its stdout). A ratio near 1 says the pipeline neither slows the client nor changes
what it reports; the medians of N pairs are compared.

Usage: .venv/bin/python benchmarks/ycsb_overhead.py [--pairs N] [--operations N] [--threads N]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchcamp.core.matrix import AxisValue
from benchcamp.core.spec import load_spec
from benchcamp.ops import lab
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.plan import rep_dir_for
from benchcamp.transport import ssh
from benchcamp.workloads.base import RunContext, render
from benchcamp.workloads.ycsb import (
    EXPORT_FILE,
    client_command,
    cross_check,
    parse_ycsb_json,
    parse_ycsb_text,
    read_step_summary,
)

NO_STORE = "site.ycsb.BasicDB"


def _context(operations: int, threads: int, pair: int) -> RunContext:
    spec = load_spec("ycsb_hbase_cassandra")
    params: dict[str, AxisValue] = {"store": "cassandra", "operationcount": operations, "threads": threads}
    return RunContext(
        spec, spec.environment("local_lab"), "bench_ycsb_overhead", "ycsb_a", params, pair, "tiny"
    )


def _command(ctx: RunContext) -> list[str]:
    """The campaign's own run command, with the binding swapped for BasicDB (quiet)."""
    command = client_command(ctx, "-t")
    command[command.index("-db") + 1] = NO_STORE
    return [*command[:-1], "-p", "basicdb.verbose=false", command[-1]]  # type: ignore[list-item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--operations", type=int, default=3_000_000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # the SSH hook logs every step's script; the ratios are the output
    lab.lab_up()  # the lab's sshd is the pipeline's target
    os.environ.update(lab.airflow_connection_env())
    host_env = {**os.environ, **lab.target_shell_env()}
    piped: list[float] = []
    direct: list[float] = []
    piped_wall: list[float] = []
    direct_wall: list[float] = []
    for pair in range(1, args.pairs + 1):
        ctx = _context(args.operations, args.threads, pair)
        command = _command(ctx)
        for mode in ("pipeline", "direct") if pair % 2 else ("direct", "pipeline"):
            if mode == "pipeline":
                step = ssh.run_step(
                    ctx, ctx.environment.transport.connection, "execute", ssh.commands_body([command]),
                    archive.step_dir(rep_dir_for(ctx), "execute", 1),
                )  # fmt: skip
                ssh.raise_if_failed("execute", step)
                summary, _ = read_step_summary(step)
                piped.append(summary.throughput_ops_s)
                piped_wall.append(step.duration_s)
            else:
                with tempfile.TemporaryDirectory() as job:
                    started = time.perf_counter()
                    result = subprocess.run(
                        ["bash", "-c", render(command)], env={**host_env, "JOB": job},
                        capture_output=True, text=True, check=True,
                    )  # fmt: skip
                    direct_wall.append(time.perf_counter() - started)
                    summary = parse_ycsb_text(result.stdout, "direct stdout")
                    exported = parse_ycsb_json((Path(job) / EXPORT_FILE).read_text(), "direct ycsb.json")
                    cross_check(summary, exported, "direct stdout", "direct ycsb.json")
                direct.append(summary.throughput_ops_s)
        print(f"pair {pair}: pipeline {piped[-1]:,.0f} ops/s, direct {direct[-1]:,.0f} ops/s", flush=True)
    med_piped, med_direct = statistics.median(piped), statistics.median(direct)
    print()
    print(
        f"YCSB 0.17.0 + BasicDB, workload A, {args.operations:,} operations, {args.threads} threads, {args.pairs} pairs"
    )
    print(f"throughput (median): pipeline {med_piped:,.0f} ops/s, direct {med_direct:,.0f} ops/s")
    print(f"ratio pipeline/direct throughput: {med_piped / med_direct:.3f}")
    print(
        f"ratio pipeline/direct wall time:  {statistics.median(piped_wall) / statistics.median(direct_wall):.3f}"
    )


if __name__ == "__main__":
    main()
