"""Change points (issue 28): false alarms on stable histories, and the cost of a build over years.

(a) False alarms: the share of simulated stable series (one mean, noise only) that get any change
    point from `benchcamp.pipeline.change_points` (Apache Otava's analysis), at the spec's default
    settings and, for comparison, at Otava's CLI default magnitude of 0. 200 series of 365
    campaigns for each noise: uniform ±3 % and normal with σ 1.73 % (the uniform's σ), and normal
    σ 3 % (noisier than the lab's cells). Aim: at most 5 % at the defaults.
(b) Build time: `benchcamp import` of a history of `--campaigns` nightly campaigns × `--cells`
    cells (hibench_dse WordCount at as many data sizes, one repetition each, a 15 % step in every
    tenth cell half-way), then: the import of one more campaign (its build re-examines each
    series' last windows only), a build with nothing new, and a build with every series analysed
    afresh (the kept analyses dropped). Aim: under 60 s for 1,000 × 100.
(a') between them: one series' analysis afresh vs resumed with one more campaign, 250 to 4,000
    campaigns long (a resumed one re-examines about four windows, whatever the length).

Usage: .venv/bin/python benchmarks/change_points.py [--series 200] [--campaigns 1000] [--cells 100]
       [--skip-build] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import numpy as np
from benchcamp.pipeline.change_points import Settings, analyse, change_points

BIN = Path(sys.executable).parent
STUDY = "hibench_dse"
START = datetime(2024, 1, 1, 1, 0, tzinfo=UTC)
NOISES = {
    "uniform ±3 %": lambda rng, n: rng.uniform(-0.03, 0.03, n),
    "normal σ 1.73 %": lambda rng, n: rng.normal(0, 0.03 / np.sqrt(3), n),
    "normal σ 3 %": lambda rng, n: rng.normal(0, 0.03, n),
}


def false_alarms(series: int, campaigns: int) -> None:
    print(f"(a) stable series of {campaigns} campaigns, {series} per noise: share with any change point")
    for magnitude, label in ((Settings().min_magnitude_pct, "defaults"), (0.0, "magnitude 0 (Otava CLI)")):
        settings = Settings(min_magnitude_pct=magnitude)
        for name, noise in NOISES.items():
            rng = np.random.default_rng(28)
            started = time.perf_counter()
            found = [change_points(100 * (1 + noise(rng, campaigns)), settings) for _ in range(series)]
            elapsed = time.perf_counter() - started
            share = sum(bool(points) for points in found) / series
            print(
                f"  {label:24} {name:16} {share:6.1%}  ({sum(map(len, found))} change points, "
                f"{elapsed / series * 1000:.1f} ms a series)"
            )


def per_series_cost() -> None:
    """One series' analysis, afresh vs resumed with one more campaign, as its history grows."""
    print("(a') one series (uniform ±3 %): analysed afresh vs resumed with one more campaign")
    analyse(list(range(10)))  # scipy's import, once
    rng = np.random.default_rng(28)
    for campaigns in (250, 500, 1000, 2000, 4000):
        values = list(100 * (1 + rng.uniform(-0.03, 0.03, campaigns + 1)))
        started = time.perf_counter()
        earlier = analyse(values[:campaigns])
        fresh = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(5):
            analyse(values, previous=earlier)
        resumed = (time.perf_counter() - started) / 5
        print(f"  {campaigns:5} campaigns: afresh {fresh * 1000:6.1f} ms, resumed {resumed * 1000:5.1f} ms")


def write_campaigns(path: Path, numbers: range, cells: int, campaigns: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for number in numbers:
            clock = START + timedelta(days=number)
            for cell in range(cells):
                size = round(0.01 + 0.01 * cell, 2)
                mean = 3.0 + 17.0 * size
                if cell % 10 == 0 and number >= campaigns // 2:
                    mean *= 1.15
                value = round(float(mean * (1 + rng.uniform(-0.03, 0.03))), 4)
                started = clock + timedelta(seconds=30 * cell)
                row = {
                    "study": STUDY,
                    "campaign": f"night_{number:04d}",
                    "environment": "local_lab",
                    "workload": "wordcount",
                    "params": {"data_size_gb": size, "maps": 4, "reduces": 2},
                    "repetition": 1,
                    "metric": "duration_s",
                    "value": value,
                    "unit": "s",
                    "status": "ok",
                    "started_at": started.isoformat(),
                    "finished_at": (started + timedelta(seconds=value)).isoformat(),
                }
                handle.write(json.dumps(row) + "\n")
                written += 1
    return written


def run(command: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 3):  # 3: validation failures, recorded and marked
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return elapsed


def build_seconds(warehouse: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            str(BIN / "python"),
            "-c",
            "import sys; from pathlib import Path; from benchcamp.pipeline.transform import build_marts; "
            "build_marts(Path(sys.argv[1]), unit_tests=False)",
            str(warehouse),
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def build_time(campaigns: int, cells: int, keep: Path | None) -> None:
    tmp = keep or Path(tempfile.mkdtemp(prefix="bench_cp_"))
    tmp.mkdir(parents=True, exist_ok=True)
    warehouse = tmp / "warehouse.duckdb"
    history, last = tmp / "history.jsonl", tmp / "last.jsonl"
    records = write_campaigns(history, range(campaigns - 1), cells, campaigns, 1)
    write_campaigns(last, range(campaigns - 1, campaigns), cells, campaigns, 2)
    print(f"(b) {campaigns} campaigns × {cells} cells ({records + cells} records), warehouse {warehouse}")
    seconds = run([str(BIN / "benchcamp"), "import", str(history), "--warehouse", str(warehouse)])
    print(f"  import of {campaigns - 1} campaigns, every series analysed afresh: {seconds:6.1f} s")
    seconds = run([str(BIN / "benchcamp"), "import", str(last), "--warehouse", str(warehouse)])
    with duckdb.connect(str(warehouse), read_only=True) as con:
        resumed, total, points = con.execute(
            "select count(*) filter (where resumed_from = ?), count(*), "
            "(select count(*) from main.change_points) from main.int_change_point_series",
            [campaigns - 1],
        ).fetchone() or (0, 0, 0)
    print(
        f"  import of campaign {campaigns} (its build resumed {resumed} of {total} series): {seconds:6.1f} s"
    )
    print(f"  dbt build with nothing new:                                 {build_seconds(warehouse):6.1f} s")
    with duckdb.connect(str(warehouse)) as con:
        con.execute("drop table main.int_change_point_series")
    seconds = build_seconds(warehouse)
    print(f"  dbt build, every series analysed afresh:                    {seconds:6.1f} s  (aim < 60 s)")
    print(
        f"  change points found: {points} (the 15 % steps in {cells // 10} cells at campaign {campaigns // 2})"
    )
    if keep is None:
        shutil.rmtree(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=200)
    parser.add_argument("--length", type=int, default=365)
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--cells", type=int, default=100)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    false_alarms(args.series, args.length)
    per_series_cost()
    if not args.skip_build:
        build_time(args.campaigns, args.cells, args.keep)


if __name__ == "__main__":
    main()
