"""The BigBench generator's speed against a plain sequential write of the same bytes.

Side by side in one run, alternating, in the same directory (default: a fresh temporary
directory under /tmp, removed afterwards): (a) `datagen.generate` writing all 23 tables at
--sf (worker processes started and modules imported included, as a campaign pays them);
(b) Python writing the same number of bytes in 1 MiB blocks to one file. Both fsync what they
wrote inside the timed span. Prints MB/s (10^6 bytes) per run, the medians and the ratio
generator / plain; the aim is at least 0.5. Also the generator's bytes per CPU second (this
process and its workers, from getrusage): on a machine that other jobs share, the wall-clock
rates move with their load, the CPU rate much less.

Usage: .venv/bin/python benchmarks/bigbench_datagen.py [--sf 0.3] [--runs 3] [--dir DIR] [--processes N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchcamp.studies.bigbench_containers.datagen.scaling import estimate_bytes
from benchcamp.studies.bigbench_containers.datagen.writing import generate


def fsync_tree(directory: Path) -> None:
    for path in directory.rglob("*.dat"):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def cpu_seconds() -> float:
    """User and system CPU of this process and of its finished children (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_generator(directory: Path, sf: float, processes: int | None) -> tuple[int, float, float, float]:
    """(bytes, wall seconds including fsync, the generator's own seconds, CPU seconds)."""
    out = directory / "generated"
    shutil.rmtree(out, ignore_errors=True)
    started, cpu_started = time.perf_counter(), cpu_seconds()
    summary = generate(out, sf, seed=1, processes=processes)
    fsync_tree(out)
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    shutil.rmtree(out)
    return summary.total_bytes, elapsed, summary.seconds, cpu


def run_plain(directory: Path, total: int) -> float:
    block = os.urandom(1 << 20)
    path = directory / "plain.bin"
    started = time.perf_counter()
    with path.open("wb") as handle:
        left = total
        while left > 0:
            left -= handle.write(block[: min(left, len(block))])
        handle.flush()
        os.fsync(handle.fileno())
    elapsed = time.perf_counter() - started
    path.unlink()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sf", type=float, default=0.3, help="scale factor (GB of text) per generator run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--processes", type=int, default=None, help="generator processes (default: all CPUs)")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bigbench-datagen-bench-", dir=args.dir))
    print(f"SF {args.sf:g} (about {estimate_bytes(args.sf) / 1e6:.0f} MB) in {work}, {os.cpu_count()} CPUs")
    generator_rates, own_rates, cpu_rates, plain_rates = [], [], [], []
    print(f"{'run':>3} {'bytes':>12} {'generator MB/s':>15} {'(own)':>8} {'(CPU)':>8} {'plain MB/s':>11}")
    try:
        last_total = estimate_bytes(args.sf)
        for run in range(1, args.runs + 1):
            # alternate the order, so neither always runs right after the other's writes
            if run % 2:
                total, generator_s, own_s, cpu_s = run_generator(work, args.sf, args.processes)
                plain_bytes, plain_s = total, run_plain(work, total)
            else:
                plain_bytes, plain_s = last_total, run_plain(work, last_total)
                total, generator_s, own_s, cpu_s = run_generator(work, args.sf, args.processes)
            last_total = total
            generator_rates.append(total / 1e6 / generator_s)
            own_rates.append(total / 1e6 / own_s)
            cpu_rates.append(total / 1e6 / cpu_s)
            plain_rates.append(plain_bytes / 1e6 / plain_s)
            print(
                f"{run:>3} {total:>12} {generator_rates[-1]:>15.1f} {own_rates[-1]:>8.1f} "
                f"{cpu_rates[-1]:>8.1f} {plain_rates[-1]:>11.1f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    generator, plain = statistics.median(generator_rates), statistics.median(plain_rates)
    print(
        f"median: generator {generator:.1f} MB/s (own timing {statistics.median(own_rates):.1f}, "
        f"{statistics.median(cpu_rates):.1f} per CPU second), "
        f"plain sequential write {plain:.1f} MB/s, ratio generator/plain {generator / plain:.2f}"
    )


if __name__ == "__main__":
    main()
