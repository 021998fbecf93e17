"""Where a repetition's wall time goes, from a finished campaign's own records.

Reads the campaign's raw archive (every step's `meta.json`: the command's start and end as
taken on the target, or HiveServer2's for Hive steps) and the log of the `airflow dags test`
run that made it (`logs/airflow-dags-test.log`: when Airflow started and ended each task). For
each step of the repetition (clean, generate, execute) it prints, per workload, the mean task
wall time, the part spent running commands on the target (for execute: the timed job), and
the rest (Airflow's task start, SSH set-up, copying the archive back, parsing, the untimed
housekeeping after the job). The campaign-level tasks (plan, preflight, validate, load, dbt,
report) are listed once. Nothing is re-run: the figures are the campaign's.

Usage: .venv/bin/python benchmarks/repetition_breakdown.py results/<study>/<campaign>
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections import defaultdict
from datetime import datetime
from pathlib import Path

_TASK_LINE = re.compile(r"^(\S+Z) .*\[DAG TEST\] (starting|end) (?:task )?task_id=(\S+) map_index=(-?\d+)")
STEPS = ("clean", "generate", "execute")


def task_windows(log: Path) -> dict[tuple[str, int], tuple[float, float]]:
    """(task id, map index) -> (start, end) epoch seconds, as `airflow dags test` logged them."""
    starts: dict[tuple[str, int], float] = {}
    windows: dict[tuple[str, int], tuple[float, float]] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _TASK_LINE.match(line)
        if not match:
            continue
        moment = datetime.fromisoformat(match.group(1).replace("Z", "+00:00")).timestamp()
        key = (match.group(3), int(match.group(4)))
        if match.group(2) == "starting":
            starts[key] = moment
        elif key in starts:
            windows[key] = (starts[key], moment)
    return windows


def step_spans(campaign_dir: Path) -> list[tuple[str, str, float, float]]:
    """(workload, step, start, end) of every first try of a repetition's steps."""
    spans = []
    for meta_path in sorted(campaign_dir.glob("*/rep*/*/try1/meta.json")):
        step = meta_path.parents[1].name
        if step not in STEPS:
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        cell = meta_path.parents[3].name
        workload = cell.split("_data_size_gb")[0].split("_store=")[0].split("_operationcount")[0]
        workload = re.sub(r"_(target_ops|threads|store)=.*$", "", workload)
        start = datetime.fromisoformat(meta["started_at"]).timestamp()
        end = datetime.fromisoformat(meta["finished_at"]).timestamp()
        spans.append((workload, step, start, end))
    return spans


def recorded_durations(campaign_dir: Path) -> dict[str, list[float]]:
    """The measured job of every repetition (warm-ups included): its `duration_s` record."""
    durations: dict[str, list[float]] = defaultdict(list)
    for path in campaign_dir.glob("*/rep*/records.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["metric"] == "duration_s" and record["status"] in ("ok", "warmup"):
                durations[record["workload"]].append(float(record["value"]))
    return durations


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("campaign_dir", type=Path)
    args = parser.parse_args()
    log = args.campaign_dir / "logs" / "airflow-dags-test.log"  # before attempts: the campaign's folder
    windows = task_windows(log if log.exists() else args.campaign_dir / "airflow-dags-test.log")
    per_step: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for workload, step, start, end in step_spans(args.campaign_dir):
        inside = [
            (begin, finish)
            for (task, _), (begin, finish) in windows.items()
            if task.endswith("." + step) and begin <= start + 0.5 and end <= finish + 0.5
        ]
        if inside:
            begin, finish = min(inside, key=lambda window: window[1] - window[0])
            per_step[(workload, step)].append((finish - begin, end - start))
    print(f"campaign {args.campaign_dir}")
    print(f"{'workload':<18} {'step':<9} {'n':>3} {'task (s)':>9} {'on target (s)':>14} {'rest (s)':>9}")
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (workload, step), pairs in sorted(per_step.items()):
        task = statistics.mean(wall for wall, _ in pairs)
        target = statistics.mean(command for _, command in pairs)
        totals[workload][0] += task
        print(f"{workload:<18} {step:<9} {len(pairs):>3} {task:>9.2f} {target:>14.2f} {task - target:>9.2f}")
    print()
    jobs = recorded_durations(args.campaign_dir)
    for workload, (wall, _) in sorted(totals.items()):
        job = statistics.mean(jobs[workload]) if jobs.get(workload) else float("nan")
        print(
            f"{workload:<18} one repetition {wall:6.2f} s of tasks, of which the measured job "
            f"{job:6.2f} s ({job / wall:.0%}; its duration_s record)"
        )
    print()
    for (name, index), (begin, finish) in sorted(windows.items(), key=lambda item: item[1][0]):
        if index == -1 and "." not in name:
            print(f"campaign task {name:<28} {finish - begin:7.2f} s")


if __name__ == "__main__":
    main()
