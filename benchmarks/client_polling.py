"""The lab's client polling interval, measured: one multi-stage Hive query on the lab's HiveServer2
with Hive's default check interval (1000 ms) and with the lab's (CLIENT_POLL_MS), alternating.

Prints the median wall time of each and their ratio (lab / default; below 1 is faster). The query
is a join, a group and an order over a small table: three MapReduce stages in local mode, each of
which waited for the next check of its state. Needs the lab up (`benchcamp lab up`).

    .venv/bin/python benchmarks/client_polling.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import benchcamp.ops.lab as lab
from benchcamp.ops.lab.config import CLIENT_POLL_MS

DATABASE = "benchcamp_polling_benchmark"
QUERY = (
    "SELECT a.k % 7 AS bucket, COUNT(*) AS n, SUM(b.v) AS total FROM t a JOIN t b ON a.k = b.v "
    "GROUP BY a.k % 7 ORDER BY total DESC"
)


def _connect() -> object:
    from pyhive import hive

    return hive.connect(host="127.0.0.1", port=lab.port("hiveserver2"), username="root", auth="NONE")


def _timed(interval_ms: int) -> float:
    connection = _connect()
    cursor = connection.cursor()  # type: ignore[attr-defined]
    for statement in (
        f"USE {DATABASE}",
        "SET hive.query.results.cache.enabled=false",
        "SET hive.auto.convert.join=false",  # a shuffle join: one more MapReduce stage
        f"SET hive.exec.counters.pull.interval={interval_ms}",
    ):
        cursor.execute(statement)
    started = time.perf_counter()
    cursor.execute(QUERY)
    rows = cursor.fetchall()
    elapsed = time.perf_counter() - started
    connection.close()  # type: ignore[attr-defined]
    assert rows, "the query returned nothing"
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    connection = _connect()
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute(f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
    cursor.execute(f"USE {DATABASE}")
    cursor.execute("DROP TABLE IF EXISTS t")
    cursor.execute("CREATE TABLE t (k INT, v INT)")
    cursor.execute("INSERT INTO t VALUES " + ", ".join(f"({i}, {(i * 7) % 50})" for i in range(200)))
    connection.close()  # type: ignore[attr-defined]
    default, labs = [], []
    for _ in range(args.rounds):  # alternating, so a drift of the machine hits both alike
        default.append(_timed(1000))
        labs.append(_timed(CLIENT_POLL_MS))
    d, m = statistics.median(default), statistics.median(labs)
    print(f"Hive check interval 1000 ms: median {d:.2f} s  ({', '.join(f'{x:.2f}' for x in default)})")
    print(
        f"Hive check interval {CLIENT_POLL_MS} ms (the lab's): median {m:.2f} s  ({', '.join(f'{x:.2f}' for x in labs)})"
    )
    print(f"ratio lab / default: {m / d:.2f}")


if __name__ == "__main__":
    main()
