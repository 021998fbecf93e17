"""The HiveBench generator's speed against a plain sequential write of the same bytes.

Side by side in one run, alternating, on the same directory (default `.lab/bench/`,
the disk the lab writes to): (a) `java -jar hivebench-datagen.jar` writing about
--mb megabytes of rankings + uservisits, JVM start-up included (a campaign pays it);
(b) Python writing the same number of bytes in 1 MiB blocks. Both fsync their files.
Prints MB/s (10^6 bytes) per run, the medians and the ratio generator / plain; the
aim is at least 0.5.

Usage: .venv/bin/python benchmarks/hivebench_datagen.py [--mb 300] [--runs 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops.lab import ensure_installed, java_home
from benchcamp.workloads.hivebench import DEFAULT_PAGES_PER_GB, DEFAULT_USERVISITS_PER_GB, generator_jar

BYTES_PER_GIB_OF_STUDY = 0.96e9  # what one "GB" of the study's PAGES/USERVISITS writes, measured


def run_generator(directory: Path, megabytes: float) -> tuple[int, float, float]:
    """(bytes, wall seconds, the generator's own MB/s)."""
    size_gb = megabytes * 1e6 / BYTES_PER_GIB_OF_STUDY
    pages = max(1, round(size_gb * DEFAULT_PAGES_PER_GB))
    visits = max(1, round(size_gb * DEFAULT_USERVISITS_PER_GB))
    out = directory / "generated"
    shutil.rmtree(out, ignore_errors=True)
    java = str(java_home() / "bin" / "java")
    command = [java, "-jar", str(generator_jar()), "--pages", str(pages), "--uservisits", str(visits)]
    started = time.perf_counter()
    subprocess.run([*command, "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    stats = json.loads((out / "stats.json").read_text())
    total = int(stats["rankings_bytes"]) + int(stats["uservisits_bytes"])
    shutil.rmtree(out)
    return total, elapsed, float(stats["mb_per_s"])


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
    parser.add_argument("--mb", type=float, default=300.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=repo_root() / ".lab" / "bench")
    args = parser.parse_args()
    ensure_installed()
    args.dir.mkdir(parents=True, exist_ok=True)
    generator_rates, own_rates, plain_rates = [], [], []
    print(f"{'run':>3} {'bytes':>12} {'generator MB/s':>15} {'(own)':>8} {'plain MB/s':>11}")
    for run in range(1, args.runs + 1):
        total, generator_s, own = run_generator(args.dir, args.mb)
        plain_s = run_plain(args.dir, total)
        generator_rates.append(total / 1e6 / generator_s)
        own_rates.append(own)
        plain_rates.append(total / 1e6 / plain_s)
        print(f"{run:>3} {total:>12} {generator_rates[-1]:>15.1f} {own:>8.1f} {plain_rates[-1]:>11.1f}")
    generator, plain = statistics.median(generator_rates), statistics.median(plain_rates)
    print(
        f"median: generator {generator:.1f} MB/s (own timing {statistics.median(own_rates):.1f}), "
        f"plain sequential write {plain:.1f} MB/s, ratio generator/plain {generator / plain:.2f}"
    )


if __name__ == "__main__":
    main()
