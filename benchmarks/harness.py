"""Measure the harness itself, side by side in one run, and print ratios.

(a) perturbation: a WordCount repetition's duration as the pipeline records it
    (SSH step runner, timed on the target) vs the same command timed directly on
    the host, interleaved, median of N each;
(a') the same comparison with jobs whose length barely varies, so that a 1 % effect
    shows: a CPU-bound job of fixed work that prints a log line every few
    milliseconds (the harness copies its output while it runs) and a `sleep`
    (what the recording adds to a duration by itself). WordCount's own spread at the
    lab's sizes (about ±0.6 s in 9 s) hides anything below about 5 %;
(b) end-to-end: wall time of a whole `tiny` campaign through Airflow vs the sum of
    the job durations it recorded;
(`benchmarks/import_vs_pandas.py` measures `benchcamp import`.)

Usage: .venv/bin/python benchmarks/harness.py [--skip-wordcount] [--skip-campaign] [--pairs N] [--fixed-pairs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops import lab
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
from benchcamp.pipeline.campaign.steps import clean_body
from benchcamp.pipeline.campaign.unit import RepetitionUnit
from benchcamp.transport import ssh
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import RunContext, data_path, render

ROOT = repo_root()
BIN = Path(sys.executable).parent


def _unit(campaign: str, repetition: int) -> RepetitionUnit:
    return {
        "study": "hibench_dse",
        "campaign": campaign,
        "environment": "local_lab",
        "workload": "wordcount",
        "params": {"data_size_gb": 0.044, "maps": 4, "reduces": 2},
        "repetition": repetition,
        "ladder": "small",
    }


def _timed_pair(
    ctx: RunContext,
    pipeline_body: str,
    direct_script: str,
    lab_env: dict[str, str],
    pipeline_first: bool,
    between: str = "",
) -> tuple[float, float]:
    """One pair, in the given order: the body as the pipeline records it (an SSH step, timed on the
    target) and the script timed directly on the host. `between` runs untimed after each."""
    piped = direct = 0.0
    for mode in ["pipeline", "direct"] if pipeline_first else ["direct", "pipeline"]:
        if mode == "pipeline":
            step = ssh.run_step(
                ctx,
                ctx.environment.transport.connection,
                "execute",
                pipeline_body,
                archive.step_dir(rep_dir_for(ctx), "execute", 1),
            )
            ssh.raise_if_failed("execute", step)
            piped = step.duration_s
        else:
            started = time.perf_counter()
            subprocess.run(["bash", "-c", direct_script], env=lab_env, check=True, capture_output=True)
            direct = time.perf_counter() - started
        if between:
            subprocess.run(["bash", "-c", between], env=lab_env, check=True, capture_output=True)
    return piped, direct


def _medians(pairs: list[tuple[float, float]]) -> dict[str, float]:
    piped = statistics.median(pair[0] for pair in pairs)
    direct = statistics.median(pair[1] for pair in pairs)
    return {"pipeline_median_s": piped, "direct_median_s": direct, "ratio": piped / direct}


def perturbation(pairs: int, conn_env: dict[str, str]) -> dict[str, float]:
    """Pipeline-recorded vs directly timed WordCount on identical, freshly generated input."""
    os.environ.update(conn_env)
    lab_env = {**os.environ, **lab.target_shell_env()}
    workload = get_workload("wordcount")
    timed: list[tuple[float, float]] = []
    for index in range(1, pairs + 1):
        ctx = context_for(_unit("bench_perturbation", index))
        rep_dir = rep_dir_for(ctx)
        conn = ctx.environment.transport.connection
        clean = ssh.run_step(ctx, conn, "clean", clean_body(ctx), archive.step_dir(rep_dir, "clean", 1))
        ssh.raise_if_failed("clean", clean)
        gen = ssh.commands_body(workload.generate(ctx))
        ssh.raise_if_failed(
            "generate", ssh.run_step(ctx, conn, "generate", gen, archive.step_dir(rep_dir, "generate", 1))
        )
        prologue = ssh.prologue(ctx, "direct", 1)  # the same $DATA (HDFS)
        command = " ".join(render(part) for part in [workload.execute(ctx)[0]])
        # the job's output goes before the next run (untimed); the input stays
        remove = render([*ctx.hadoop, "fs", "-rm", "-r", "-f", "-skipTrash", data_path("output")])
        timed.append(
            _timed_pair(
                ctx,
                ssh.commands_body(workload.execute(ctx)),
                f"{prologue}\n{command}",
                lab_env,
                pipeline_first=bool(index % 2),
                between=f"{prologue}\n{remove}",
            )
        )
    return _medians(timed)


# Fixed work: 2.5 million chained SHA-256 digests (about 1 s on one core here), a line of output
# every 2,500 digests (1,000 lines), as a job's log would be. The interpreter is named by its path:
# `python3` over SSH is the login shell's (a pyenv shim here, 0.2 s slower to start), which would
# time the two shells' PATHs, not the harness.
FIXED_CPU_JOB = (
    f"{shlex.quote(sys.executable)} -c 'import hashlib\n"
    "digest = bytes(32)\n"
    "for step in range(2_500_000):\n"
    "    digest = hashlib.sha256(digest).digest()\n"
    "    if step % 2_500 == 0:\n"
    "        print(step, digest.hex(), flush=True)'"
)
FIXED_SLEEP_JOB = "sleep 2"


def fixed_jobs_perturbation(pairs: int, conn_env: dict[str, str]) -> dict[str, dict[str, float]]:
    """Pipeline-recorded vs directly timed jobs of fixed length (`FIXED_CPU_JOB`, `FIXED_SLEEP_JOB`),
    alternating which goes first, median of `pairs` each."""
    os.environ.update(conn_env)
    lab_env = {**os.environ, **lab.target_shell_env()}
    outcome: dict[str, dict[str, float]] = {}
    for name, body in (("cpu", FIXED_CPU_JOB), ("sleep", FIXED_SLEEP_JOB)):
        timed = [
            _timed_pair(
                context_for(_unit(f"bench_fixed_{name}", index)),
                body,
                body,
                lab_env,
                pipeline_first=bool(index % 2),
            )
            for index in range(1, pairs + 1)
        ]
        outcome[name] = {**_medians(timed), "pairs": float(pairs)}
    return outcome


def campaign_wall_time(tmp: Path) -> dict[str, float]:
    """A whole tiny campaign through Airflow: wall time vs the recorded job durations."""
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(tmp / "results"),
        "BENCHCAMP_WAREHOUSE": str(tmp / "warehouse.duckdb"),
        "AIRFLOW_HOME": str(tmp / "airflow"),
    }
    started = time.perf_counter()
    subprocess.run(
        [
            str(BIN / "benchcamp"),
            "run",
            "hibench_dse",
            "--ladder",
            "tiny",
            "--campaign",
            "bench_tiny",
            "--keep-lab",
        ],
        env=env,
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - started
    import duckdb

    with duckdb.connect(str(tmp / "warehouse.duckdb"), read_only=True) as con:
        row = con.execute(
            "select sum(value), count(*) from raw.results where metric = 'duration_s' and campaign = 'bench_tiny'"
        ).fetchone()
    jobs = float(row[0]) if row and row[0] is not None else 0.0
    count = float(row[1]) if row else 0.0
    generation = generation_seconds(tmp / "results" / "hibench_dse" / "bench_tiny")
    return {
        "wall_s": wall,
        "sum_job_durations_s": jobs,
        "sum_generate_s": generation,
        "repetitions": count,
        "ratio": wall / jobs if jobs else float("nan"),
        "ratio_with_generation": wall / (jobs + generation) if jobs else float("nan"),
    }


def generation_seconds(campaign_dir: Path) -> float:
    """Σ of every repetition's generate step as timed on the target (its latest try): the data the
    study asks to generate anew before each repetition, a job the harness runs but does not measure."""
    total = 0.0
    for rep_dir in campaign_dir.glob("*/rep*"):
        tries = archive.step_tries(rep_dir, "generate")
        if tries:
            total += float(json.loads((tries[-1] / "meta.json").read_text(encoding="utf-8"))["duration_s"])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--fixed-pairs", type=int, default=9, help="pairs of each fixed-length job, (a')")
    parser.add_argument("--skip-wordcount", action="store_true")
    parser.add_argument("--skip-campaign", action="store_true")
    args = parser.parse_args()
    lab.ensure_installed()
    lab.lab_up()
    try:
        with tempfile.TemporaryDirectory(prefix="benchcamp-bench-") as name:
            tmp = Path(name)
            os.environ["BENCHCAMP_RESULTS"] = str(tmp / "perturbation")
            if not args.skip_wordcount:
                p = perturbation(args.pairs, lab.airflow_connection_env())
                print(f"(a) harness perturbation, WordCount 0.044 GiB, median of {args.pairs} pairs:")
                print(
                    f"    pipeline {p['pipeline_median_s']:.2f} s vs direct {p['direct_median_s']:.2f} s"
                    f" -> ratio {p['ratio']:.3f}",
                    flush=True,
                )
            fixed = fixed_jobs_perturbation(args.fixed_pairs, lab.airflow_connection_env())
            for name, label in (
                ("cpu", "fixed CPU work with a log line every 2,500 digests"),
                ("sleep", "sleep 2"),
            ):
                f = fixed[name]
                print(f"(a') harness perturbation, {label}, median of {args.fixed_pairs} pairs:")
                print(
                    f"    pipeline {f['pipeline_median_s']:.3f} s vs direct {f['direct_median_s']:.3f} s"
                    f" -> ratio {f['ratio']:.4f}",
                    flush=True,
                )
            if not args.skip_campaign:
                c = campaign_wall_time(tmp)
                print(
                    f"(b) tiny campaign through Airflow ({c['repetitions']:.0f} repetitions, warm-ups included):"
                )
                print(
                    f"    wall {c['wall_s']:.0f} s vs sum of job durations {c['sum_job_durations_s']:.0f} s "
                    f"-> ratio {c['ratio']:.2f}",
                )
                print(
                    f"    counting the data generation the study asks for before every repetition "
                    f"({c['sum_generate_s']:.0f} s) as job time too -> ratio {c['ratio_with_generation']:.2f}",
                    flush=True,
                )
    finally:
        lab.lab_down()


if __name__ == "__main__":
    main()
