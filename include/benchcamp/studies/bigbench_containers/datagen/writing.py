"""Writing the tables: files of `PART_KEYS` keys planned up front, written by a pool of processes.

Also the command line (``python -m benchcamp.studies.bigbench_containers.datagen``, `main`).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

import numpy as np

from benchcamp.studies.bigbench_containers.datagen.dimensions import CHUNKED_DIMENSIONS, TEXT_DIMENSIONS
from benchcamp.studies.bigbench_containers.datagen.facts import FACT_TABLES
from benchcamp.studies.bigbench_containers.datagen.model import ChunkRenderer, Model, RowSources, TextRows
from benchcamp.studies.bigbench_containers.datagen.rendering import render, row_count
from benchcamp.studies.bigbench_containers.datagen.scaling import (
    InsufficientSpaceError,
    Scale,
    check_free_space,
    scale_for,
)
from benchcamp.studies.bigbench_containers.datagen.streams import Ints
from benchcamp.studies.bigbench_containers.schema import TABLES


@dataclass(frozen=True)
class TableSummary:
    rows: int
    bytes: int
    files: int


@dataclass(frozen=True)
class GenerationSummary:
    """What `generate` wrote: per table rows, bytes and files, and how long it took."""

    scale_factor_gb: float
    seed: int
    tables: dict[str, TableSummary]
    seconds: float
    scale: dict[str, Any] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(table.bytes for table in self.tables.values())

    @property
    def total_rows(self) -> int:
        return sum(table.rows for table in self.tables.values())

    def to_json(self) -> str:
        return json.dumps(
            {**asdict(self), "total_bytes": self.total_bytes, "total_rows": self.total_rows}, indent=2
        )


_Blocks = Iterator[tuple[bytes, int]]  # (text, rows)


def _ranges(start: int, stop: int, chunk: int) -> Iterator[Ints]:
    for first in range(start, stop, chunk):
        yield np.arange(first, min(stop, first + chunk), dtype=np.int64)


def _numpy_blocks(model: Model, render_chunk: ChunkRenderer, start: int, stop: int, chunk: int) -> _Blocks:
    for keys in _ranges(start, stop, chunk):
        fields = render_chunk(model, keys)
        rows = row_count(fields)
        if rows:
            yield render(fields), rows


def _text_blocks(lines: Iterator[str], batch: int = 5000) -> _Blocks:
    buffer: list[str] = []
    for line in lines:
        buffer.append(line)
        if len(buffer) >= batch:
            yield "".join(buffer).encode("ascii"), len(buffer)
            buffer.clear()
    if buffer:
        yield "".join(buffer).encode("ascii"), len(buffer)


_TEXT_TABLES: Final[dict[str, TextRows]] = TEXT_DIMENSIONS
# table -> its row sources, in file order: (renderer over a range of keys, how many keys)
_NUMPY_TABLES: Final[dict[str, RowSources]] = {**CHUNKED_DIMENSIONS, **FACT_TABLES}

PART_KEYS: Final = 250_000
"""Tickets, orders or sessions per file (about 250 MB of store_sales): big tables are several
files, written in parallel, and a file's bytes do not depend on how many files there are."""


class _PartJob(NamedTuple):
    """One file to write: rows of `table` from source `source` for keys [start, stop)."""

    table: str
    number: int
    source: int
    start: int
    stop: int


def _part_jobs(scale: Scale, tables: Sequence[str]) -> list[_PartJob]:
    jobs: list[_PartJob] = []
    for table in tables:
        if table in _TEXT_TABLES:
            jobs.append(_PartJob(table, 0, 0, 0, 0))
            continue
        number = 0
        for source, (_, key_count) in enumerate(_NUMPY_TABLES[table]):
            total = key_count(scale)
            per_part = PART_KEYS if table != "inventory" else _inventory_weeks_per_part(scale)
            for start in range(0, total, per_part):
                jobs.append(_PartJob(table, number, source, start, min(total, start + per_part)))
                number += 1
    # the longest first, so the processes finish together
    return sorted(jobs, key=lambda job: -(job.stop - job.start) * _JOB_WEIGHT.get(job.table, 0))


_JOB_WEIGHT: Final = {
    "store_sales": 9,
    "web_clickstreams": 3,
    "web_sales": 8,
    "inventory": 40,
    "store_returns": 2,
}


def _inventory_weeks_per_part(scale: Scale) -> int:
    return max(1, 12_000_000 // (scale.items * scale.warehouses_per_item))


_CHUNK: Final = 5000


def _chunk_keys(table: str, scale: Scale) -> int:
    if table == "inventory":
        return max(1, 100_000 // (scale.items * scale.warehouses_per_item))
    return _CHUNK


def _write_part(data_dir: Path, seed: int, scale: Scale, job: _PartJob) -> tuple[_PartJob, int, int]:
    """Write one `part-NNNNN.dat`; (job, rows, bytes)."""
    model = Model(seed, scale)
    if job.table in _TEXT_TABLES:
        blocks = _text_blocks(_TEXT_TABLES[job.table](model))
    else:
        render_chunk, _ = _NUMPY_TABLES[job.table][job.source]
        blocks = _numpy_blocks(model, render_chunk, job.start, job.stop, _chunk_keys(job.table, scale))
    rows = written = 0
    with (data_dir / job.table / f"part-{job.number:05d}.dat").open("wb") as handle:
        for block, block_rows in blocks:
            handle.write(block)
            written += len(block)
            rows += block_rows
    return job, rows, written


_WriteArgs = tuple[Path, int, Scale, _PartJob]
_WriteResult = tuple[_PartJob, int, int]
_next_job: Any = None  # in a worker: the counter of claimed jobs it shares with its siblings


def _share_counter(counter: Any) -> None:
    global _next_job
    _next_job = counter


def _claim_and_write(jobs: Sequence[_WriteArgs], counter: Any = None) -> list[_WriteResult]:
    """Write jobs in list order, each claimed from the shared counter, until none is left."""
    counter = counter if counter is not None else _next_job
    results: list[_WriteResult] = []
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        if index >= len(jobs):
            return results
        results.append(_write_part(*jobs[index]))


def _write_all(jobs: Sequence[_WriteArgs], processes: int) -> list[_WriteResult]:
    """Write the jobs with `processes` processes: this one and `processes - 1` spawned workers.

    This process starts on the longest job at once, while the workers start (a spawned worker
    takes a few tenths of a second to import numpy and this module); every process then claims
    the next job from a shared counter, so they finish together whatever each job costs."""
    if processes <= 1:
        return [_write_part(*job) for job in jobs]
    context = multiprocessing.get_context("spawn")
    counter = context.Value("i", 0)
    with context.Pool(processes - 1, initializer=_share_counter, initargs=(counter,)) as pool:
        pending = [pool.apply_async(_claim_and_write, (jobs,)) for _ in range(processes - 1)]
        results = _claim_and_write(jobs, counter)
        for worker in pending:
            results += worker.get()
    return results


def generate(
    data_dir: Path,
    scale_factor_gb: float,
    seed: int,
    processes: int | None = None,
    tables: Sequence[str] | None = None,
) -> GenerationSummary:
    """Write the 23 tables (or only `tables`) under `data_dir` for `scale_factor_gb` GB and `seed`;
    refuse first if all 23 would not fit.

    Files are written by `processes` processes (default: the CPUs this process may use): this one
    and spawned workers. Each file's bytes depend only on the seed and the scale, never on the
    process count or on which other tables are written. Earlier `part-*.dat` files of the tables written are removed."""
    started = time.perf_counter()
    data_dir = Path(data_dir)
    unknown = sorted(set(tables or ()) - set(TABLES))
    if unknown:
        raise ValueError(f"unknown tables {unknown}; the schema has {', '.join(TABLES)}")
    check_free_space(data_dir, scale_factor_gb)
    scale = scale_for(scale_factor_gb)
    chosen = [name for name in TABLES if name in set(tables or TABLES)]
    for table in chosen:
        (data_dir / table).mkdir(parents=True, exist_ok=True)
        for old in (data_dir / table).glob("part-*.dat"):
            old.unlink()
    jobs = [(data_dir, seed, scale, job) for job in _part_jobs(scale, chosen)]
    results = _write_all(jobs, min(len(jobs), processes or len(os.sched_getaffinity(0))))
    summaries = {}
    for table in chosen:
        mine = [(rows, written) for job, rows, written in results if job.table == table]
        summaries[table] = TableSummary(
            rows=sum(rows for rows, _ in mine), bytes=sum(written for _, written in mine), files=len(mine)
        )
    return GenerationSummary(
        scale_factor_gb=scale_factor_gb,
        seed=seed,
        tables=summaries,
        seconds=time.perf_counter() - started,
        scale=asdict(scale),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Generate the bigbench_containers data (23 tables, |-separated text)."
    )
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument(
        "--scale-factor", type=float, required=True, help="GB of text (fractions allowed, e.g. 0.01)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=None, help="worker processes (default: all CPUs)")
    parser.add_argument(
        "--tables", nargs="+", choices=list(TABLES), help="only these tables (default: all 23)"
    )
    args = parser.parse_args(argv)
    try:
        scale_for(args.scale_factor)
    except ValueError as error:
        parser.error(str(error))
    try:
        summary = generate(
            args.data_dir, args.scale_factor, args.seed, processes=args.processes, tables=args.tables
        )
    except InsufficientSpaceError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 2
    print(summary.to_json())
    return 0
