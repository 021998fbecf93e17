"""`benchcamp import` of a million result records vs pandas computing the scaling mart alone.

Both read the same JSON Lines file in one run, alternately (`--rounds`, medians reported):
import in its own process through the real CLI into a new, empty warehouse each time,
pandas in this process (`pd.read_json`, the default engine):

(a) `benchcamp import FILE --warehouse <temp>`: read and validate every record, load
    them into a fresh DuckDB warehouse, run the campaign expectations (GX), `dbt build`
    (models and data tests) and the results page's snapshot, end to end;
(b) pandas: read the same file and compute the `scaling` mart's figures per study,
    campaign, environment and cell (n, mean, σ, σ%, Data Δ, Time Δ, throughput, linear
    projection), nothing else: no validation, no warehouse, no other mart.

The file is study hibench_dse as its campaigns record it: several campaigns on the
spec's three environments, its five workloads (WordCount over the maps/reduces values,
TestDFSIO write and read, both HiveBench queries) over a sweep of data sizes, three
repetitions per cell, each repetition with the metrics its parser records and the
step's timestamps and artifact. Pass `--records` for another size, `--keep` to keep the
file and warehouses. The scaling figures of both are compared cell by cell at the end.

`--campaigns N` spreads the records over N small nightly campaigns instead (issue 28: 200,000
records over 4,445 campaigns, 45 records each): what an import costs per campaign, which 30
large campaigns hide. Each night runs on one environment in turn and measures a few whole cells
at the ladder's three sizes, the same cells every night (`generate_nightly`).

Usage: .venv/bin/python benchmarks/import_vs_pandas.py [--records N] [--campaigns N] [--rounds N]
       [--keep DIR]
       e.g. --records 200000 --campaigns 4445
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

import pandas as pd

BIN = Path(sys.executable).parent
STUDY = "hibench_dse"
ENVIRONMENTS = ("local_lab", "local_lab_yarn", "dse_cluster")
WORDCOUNT_TASKS = [(maps, reduces) for maps in (3, 4, 6, 12) for reduces in (1, 2, 4)]
REPETITIONS = 3
START = datetime(2026, 11, 1, tzinfo=UTC)
# Metrics each workload's parser records per repetition (besides duration_s), with units.
METRICS: dict[str, list[tuple[str, str]]] = {
    "wordcount": [("input_bytes", "B")],
    "dfsio_write": [("throughput_mb_s", "MB/s"), ("avg_io_rate_mb_s", "MB/s")],
    "dfsio_read": [("throughput_mb_s", "MB/s"), ("avg_io_rate_mb_s", "MB/s")],
    "hive_aggregation": [("compile_s", "s"), ("processed_gb", "GiB")],
    "hive_join": [("compile_s", "s"), ("processed_gb", "GiB")],
}
SECONDS_PER_GB = {
    "wordcount": 17.0,
    "dfsio_write": 6.0,
    "dfsio_read": 4.0,
    "hive_aggregation": 7.6,
    "hive_join": 6.2,
}


def _cells(size: float) -> list[tuple[str, dict[str, float | int]]]:
    """The spec's cells at one data size: WordCount per maps/reduces pair, the others alone."""
    cells: list[tuple[str, dict[str, float | int]]] = [
        ("wordcount", {"data_size_gb": size, "maps": maps, "reduces": reduces})
        for maps, reduces in WORDCOUNT_TASKS
    ]
    return cells + [(workload, {"data_size_gb": size}) for workload in list(METRICS)[1:]]


def _records_per_size() -> int:
    return sum(REPETITIONS * (1 + len(METRICS[workload])) for workload, _ in _cells(1.0))


def _write_repetitions(
    handle: TextIO,
    rng: random.Random,
    clock: datetime,
    campaign: str,
    environment: str,
    workload: str,
    params: dict[str, float | int],
) -> tuple[int, datetime]:
    """One cell's repetitions as its parser records them; returns (records written, clock after)."""
    size = float(params["data_size_gb"])
    mean = SECONDS_PER_GB[workload] * (1 + size) * (1 + 0.05 * params.get("reduces", 0))
    written = 0
    for repetition in range(1, REPETITIONS + 1):
        duration = round(mean * rng.gauss(1, 0.02), 3)
        finished = clock + timedelta(seconds=duration)
        base = {
            "study": STUDY,
            "campaign": campaign,
            "environment": environment,
            "workload": workload,
            "params": params,
            "repetition": repetition,
        }
        stamps = {
            "started_at": clock.isoformat(),
            "finished_at": finished.isoformat(),
            "artifact": f"results/{STUDY}/{campaign}/{workload}/rep{repetition}",
        }
        rows = [{**base, "metric": "duration_s", "value": duration, "unit": "s"}]
        for metric, unit in METRICS[workload]:
            value = round(size * 1024 / duration if unit == "MB/s" else size * 0.75, 4)
            if metric == "input_bytes":
                value = float(round(size * 2**30))
            elif metric == "compile_s":
                value = round(rng.uniform(0.8, 1.2), 3)
            rows.append({**base, "metric": metric, "value": value, "unit": unit})
        for row in rows:
            handle.write(json.dumps({**row, "status": "ok", **stamps}) + "\n")
        written += len(rows)
        clock = finished + timedelta(seconds=30)
    return written, clock


def generate(path: Path, records: int, seed: int = 42) -> int:
    """Write at least `records` result records (whole campaign × environment × size blocks)."""
    rng = random.Random(seed)
    sizes_per_block = 50
    block = sizes_per_block * _records_per_size()
    blocks = math.ceil(records / block)
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for number in range(blocks):
            campaign = f"run_2026-11-{1 + number // len(ENVIRONMENTS):02d}"
            environment = ENVIRONMENTS[number % len(ENVIRONMENTS)]
            clock = START + timedelta(days=number)
            for step in range(sizes_per_block):
                size = round(0.012 + 0.002 * step, 3) if environment != "dse_cluster" else 240 + 4 * step
                for workload, params in _cells(size):
                    count, clock = _write_repetitions(
                        handle, rng, clock, campaign, environment, workload, params
                    )
                    written += count
    return written


def generate_nightly(path: Path, records: int, campaigns: int, seed: int = 42) -> int:
    """Write about `records` result records spread over `campaigns` small nightly campaigns.

    Campaign n runs on environment n mod 3 and measures whole cells (every repetition and
    metric) in one fixed order until it holds its share of the records: each workload at the
    three sizes of the tiny (or, on the DSE cluster, paper) ladder, WordCount's maps/reduces
    pairs last. Every night measures the same first cells, so each is a long history series
    (as a nightly regression run's would be), and the scaling mart has three sizes per series.
    """
    rng = random.Random(seed)
    ladders = {"dse_cluster": (240.0, 340.0, 440.0)}
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for number in range(campaigns):
            environment = ENVIRONMENTS[number % len(ENVIRONMENTS)]
            sizes = ladders.get(environment, (0.012, 0.017, 0.022))
            cells = _cells(sizes[0])
            order = [
                (workload, {**params, "data_size_gb": size})
                for workload, params in cells[len(WORDCOUNT_TASKS) :] + cells[: len(WORDCOUNT_TASKS)]
                for size in sizes
            ]
            campaign = f"night_{number:05d}"
            clock = START + timedelta(hours=8 * number)
            share = records * (number + 1) // campaigns
            for workload, params in order:
                if written >= share:
                    break
                count, clock = _write_repetitions(handle, rng, clock, campaign, environment, workload, params)
                written += count
    return written


def time_import(path: Path, warehouse: Path) -> tuple[float, str]:
    """Wall time of `benchcamp import` in its own process, as a user runs it."""
    started = time.perf_counter()
    result = subprocess.run(
        [str(BIN / "benchcamp"), "import", str(path), "--warehouse", str(warehouse)],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"benchcamp import exited {result.returncode}:\n{result.stderr[-3000:]}")
    return elapsed, result.stdout


def _axis_text(values: pd.Series, axis: str) -> pd.Series:
    """'axis=value' per row ('' where the cell has no such axis), whole floats written as ints."""
    text = values.map(lambda v: "" if pd.isna(v) else f"{axis}={int(v) if float(v).is_integer() else v}")
    return text.astype("string")


def pandas_scaling(path: Path) -> pd.DataFrame:
    """The `scaling` mart's figures computed by pandas straight from the JSON Lines file."""
    frame = pd.read_json(path, lines=True, dtype=False)
    params = pd.DataFrame(frame.pop("params").tolist(), index=frame.index)
    frame["data_size_gb"] = params["data_size_gb"].astype("float64")
    others = sorted(axis for axis in params.columns if axis != "data_size_gb")
    series = pd.Series("", index=frame.index, dtype="string")
    for axis in others:
        part = _axis_text(params[axis], axis)
        series = series.where(part == "", series.where(series == "", series + "|") + part)
    frame["series_params"] = series
    durations = frame[(frame["metric"] == "duration_s") & frame["data_size_gb"].notna()]
    cell = ["study", "campaign", "environment", "workload", "series_params", "data_size_gb"]
    # usable as the mart defines it (stg_results.is_usable): ok, finite and more than 0 s
    usable = (durations["status"] == "ok") & (durations["value"] > 0) & (durations["value"] < math.inf)
    stats = durations[usable].groupby(cell)["value"].agg(n="size", mean_s="mean", stddev_s="std")
    stats["n_failed"] = durations[~usable].groupby(cell).size()
    stats = stats.reset_index()
    stats["n_failed"] = stats["n_failed"].fillna(0).astype(int)
    stats["stddev_pct"] = (stats["stddev_s"] / stats["mean_s"] * 100).where(stats["mean_s"] > 0)
    series_key = cell[:-1]
    baseline_gb = stats.groupby(series_key)["data_size_gb"].transform("min")
    baselines = stats[stats["data_size_gb"] == baseline_gb][[*series_key, "data_size_gb", "mean_s"]]
    stats = stats.merge(
        baselines.rename(columns={"data_size_gb": "baseline_gb", "mean_s": "baseline_s"}), on=series_key
    )
    changed = stats["data_size_gb"] != stats["baseline_gb"]
    stats["data_delta_pct"] = (
        (stats["data_size_gb"] - stats["baseline_gb"]) / stats["baseline_gb"] * 100
    ).where(changed)
    stats["time_delta_pct"] = ((stats["mean_s"] - stats["baseline_s"]) / stats["baseline_s"] * 100).where(
        changed & (stats["baseline_s"] > 0)
    )
    stats["throughput_mb_s"] = (stats["data_size_gb"] * 1024 / stats["mean_s"]).where(stats["mean_s"] > 0)
    stats["linear_projection_s"] = stats["baseline_s"] * stats["data_size_gb"] / stats["baseline_gb"]
    return stats


def check_same_figures(warehouse: Path, pandas_mart: pd.DataFrame) -> int:
    """Both sides computed the same numbers: compare every cell's figures with the warehouse's mart."""
    import duckdb

    columns = ["mean_s", "stddev_s", "stddev_pct", "data_delta_pct", "time_delta_pct", "throughput_mb_s"]
    key = ["study", "campaign", "environment", "workload", "series_params", "data_size_gb"]
    with duckdb.connect(str(warehouse), read_only=True) as con:
        mart = con.execute(
            f"select {', '.join(key + ['n', *columns, 'linear_projection_s'])} from scaling"
        ).df()
    # pandas' JSON reader parses floats to within an ulp (precise_float=False): join sizes rounded.
    for frame in (mart, pandas_mart):
        frame["data_size_gb"] = frame["data_size_gb"].round(9)
    joined = mart.merge(pandas_mart, on=key, suffixes=("_dbt", "_pandas"), validate="one_to_one")
    if len(joined) != len(mart) or len(mart) != len(pandas_mart):
        raise RuntimeError(
            f"cell counts differ: dbt {len(mart)}, pandas {len(pandas_mart)}, both {len(joined)}"
        )
    for column in ["n", *columns, "linear_projection_s"]:
        left, right = joined[f"{column}_dbt"].astype("float64"), joined[f"{column}_pandas"].astype("float64")
        same = ((left - right).abs() <= 1e-9 * right.abs().clip(lower=1)) | (left.isna() & right.isna())
        if not same.all():
            raise RuntimeError(f"{column} differs in {int((~same).sum())} cells")
    return len(joined)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument(
        "--campaigns",
        type=int,
        help="spread the records over this many small nightly campaigns (default: 30 large ones)",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="import and pandas alternately, medians reported"
    )
    parser.add_argument("--keep", type=Path, help="write the file and warehouses here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="benchcamp-import-bench-") as name:
        folder = args.keep or Path(name)
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / "results.jsonl"
        if args.campaigns:
            count = generate_nightly(source, args.records, args.campaigns)
            shape = f"{args.campaigns:,} nightly campaigns"
        else:
            count = generate(source, args.records)
            shape = f"{math.ceil(args.records / (50 * _records_per_size())):,} campaign × environment blocks"
        print(
            f"{count:,} records of {STUDY} in {shape} in {source} ({source.stat().st_size / 2**20:.0f} MiB)",
            flush=True,
        )
        imports: list[float] = []
        pandas_times: list[float] = []
        for round_number in range(1, args.rounds + 1):
            warehouse = folder / f"warehouse_{round_number}.duckdb"  # a new, empty warehouse each time
            for stale in folder.glob(f"{warehouse.stem}*"):
                stale.unlink()
            shutil.rmtree(folder / ".dbt" / warehouse.stem, ignore_errors=True)
            import_s, output = time_import(source, warehouse)
            started = time.perf_counter()
            mart = pandas_scaling(source)
            pandas_s = time.perf_counter() - started
            imports.append(import_s)
            pandas_times.append(pandas_s)
            print(
                f"round {round_number}: import {import_s:.1f} s, pandas {pandas_s:.1f} s, "
                f"ratio {import_s / pandas_s:.2f}",
                flush=True,
            )
        cells = check_same_figures(warehouse, mart)
        import_s, pandas_s = statistics.median(imports), statistics.median(pandas_times)
        print(f"(a) benchcamp import, end to end (median of {args.rounds}): {import_s:7.1f} s")
        print(f"(b) pandas, the scaling mart's figures (median):    {pandas_s:7.1f} s ({len(mart):,} cells)")
        print(f"    both give the same figures for all {cells:,} cells")
        print(
            f"ratio import / pandas: {import_s / pandas_s:.2f} ({count / import_s:,.0f} records/s imported)"
        )
        print(f"cpu cores: {os.cpu_count()}; import's last line: {output.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
