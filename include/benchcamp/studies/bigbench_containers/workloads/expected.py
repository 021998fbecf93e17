"""The expected results of the 21 SQL queries: their DuckDB twins over the generated files.

Runs where the files are (the generate step, on the target; on the lab, this machine), untimed,
and writes `{query: {"rows": n, "checksum": c}}` (queries.result_fingerprint) as JSON: the run
then compares each Hive result with it. CLI:
`python -m benchcamp.studies.bigbench_containers.workloads.expected --data-dir D --out F`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchcamp.studies.bigbench_containers.workloads.phases import QUERIES, SQL_QUERIES


def expected_fingerprints(data_dir: Path, queries: Sequence[str] = QUERIES) -> dict[str, dict[str, Any]]:
    """Row count, checksum and DuckDB's seconds of each SQL query among `queries`."""
    import duckdb

    from benchcamp.studies.bigbench_containers.queries import duckdb_query, result_fingerprint, run_duckdb
    from benchcamp.studies.bigbench_containers.schema import TABLES, duckdb_view_sql

    connection = duckdb.connect()
    for table in TABLES:
        connection.execute(duckdb_view_sql(table, str(data_dir)))
    expected: dict[str, dict[str, Any]] = {}
    for query in queries:
        if query not in SQL_QUERIES:
            continue
        started = time.monotonic()
        fingerprint = result_fingerprint(run_duckdb(connection, duckdb_query(query)))
        expected[query] = {
            "rows": fingerprint.rows,
            "checksum": fingerprint.checksum,
            "duckdb_s": round(time.monotonic() - started, 3),
        }
    return expected


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="DuckDB's results of the SQL queries, as fingerprints.")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    expected = expected_fingerprints(args.data_dir)
    args.out.write_text(json.dumps(expected, indent=1, sort_keys=True), encoding="utf-8")
    empty = sorted(query for query, found in expected.items() if found["rows"] == 0)
    print(f"expected results of {len(expected)} SQL queries in {args.out}")
    if empty:
        print(f"DuckDB finds no rows for {', '.join(empty)}: the data cannot check them", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
