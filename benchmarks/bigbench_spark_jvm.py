"""The BigBench ML queries' Spark step: the JVM as before against the client compiler plus a
class-data-sharing archive (ml.SPARK_JIT, ml.cds_archive), side by side.

Over the recorded q20 export (k-means, `recorded/ml/q20-export`, read as a local directory; no
lab needed), alternating: (a) the step's argv without the two JIT/CDS flags, (b) the argv
spark_command builds today with the archive. The archive is made first, once, in a temporary
directory (not timed). Prints each run's wall time and the JVM's own startup_s / model_s, the
medians, the ratio b/a, and whether every result equals the first run's apart from its timing.

Usage: .venv/bin/python benchmarks/bigbench_spark_jvm.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import benchcamp.studies.bigbench_containers.ml as ml
from benchcamp.studies.bigbench_containers.queries import load_parameters

EXPORT = Path(ml.__file__).with_name("recorded") / "ml" / "q20-export"
TIMING = ("startup_s", "model_s", "elapsed_s")


def run(command: list[str], result: Path) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    return seconds, json.loads(result.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    params = load_parameters()["q20"]
    with tempfile.TemporaryDirectory(prefix="bigbench-spark-jvm-") as tmp:
        work = Path(tmp)
        archive = ml.cds_archive(work)
        out = work / "result.json"
        make = ml.spark_command("q20", params, str(EXPORT), out, archive_out=archive)
        subprocess.run(make, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        new = ml.spark_command("q20", params, str(EXPORT), out, archive=archive)
        old = [
            part
            for part in new
            if part not in (ml.SPARK_JIT, ml.CDS_LOG) and not part.startswith("-XX:SharedArchiveFile=")
        ]
        times: dict[str, list[float]] = {"before": [], "after": []}
        results = []
        for number in range(args.runs):
            order = (
                [("before", old), ("after", new)] if number % 2 == 0 else [("after", new), ("before", old)]
            )
            for name, command in order:
                seconds, document = run(command, out)
                times[name].append(seconds)
                results.append({key: value for key, value in document.items() if key not in TIMING})
                print(
                    f"run {number + 1} {name:6s} {seconds:6.2f} s  startup_s {document.get('startup_s')}  "
                    f"model_s {float(str(document.get('model_s', 0))):.2f}",
                    flush=True,
                )
    before, after = statistics.median(times["before"]), statistics.median(times["after"])
    print(f"median before {before:.2f} s, after {after:.2f} s, ratio after/before {after / before:.2f}")
    print("results identical apart from timing:", all(result == results[0] for result in results))


if __name__ == "__main__":
    main()
