"""The graph study's published/template.csv through `benchcamp import` into graph_config_deltas.

The paper's own times are not known to the project (STUDIES.md quotes none of its tables), so the
template ships empty values and this test fills them with made-up phase times for YouTube, per
drive, job and phase, for "containers" and "custom": the comparison the paper publishes as its
Tables 13 (triangle counting) and 14 (mutual friends). The expected % differences below are
(custom − containers) / containers × 100 worked out by hand from those times, at one decimal
as the paper prints them. The import runs the real importer, the suite and the one dbt build
(about 40 s on the CI machine).
"""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.ops.cli import main
from benchcamp.presentation import report
from benchcamp.studies.mapreduce_ssd_hdd.plugin import delta_blocks, phase_time_blocks

STUDY = "mapreduce_ssd_hdd"
TEMPLATE = (
    Path(__file__).resolve().parents[3] / "include/benchcamp/studies" / STUDY / "published/template.csv"
)
CAMPAIGN = "published_bakratsas_2018"
PHASES = ("map", "shuffle", "merge", "reduce")
# Made-up mean phase times (s) on YouTube: (workload, drive, job) → (containers, custom), each
# map, shuffle, merge, reduce.
TIMES = {
    ("triangle_counting", "hdd", "1-wedges"): ((20.0, 41.0, 12.5, 30.0), (18.0, 28.7, 10.0, 31.5)),
    ("triangle_counting", "hdd", "2-close"): ((15.0, 60.0, 22.0, 48.0), (14.1, 45.0, 17.6, 50.4)),
    ("triangle_counting", "ssd_a", "1-wedges"): ((16.0, 25.0, 8.0, 24.0), (15.2, 20.0, 6.2, 24.6)),
    ("triangle_counting", "ssd_a", "2-close"): ((12.0, 36.0, 14.0, 40.0), (11.4, 27.9, 11.9, 42.0)),
    ("mutual_friends", "hdd", "1-neighbours"): ((8.0, 10.0, 3.0, 9.0), (7.6, 8.2, 2.7, 9.3)),
    ("mutual_friends", "hdd", "2-pairs"): ((30.0, 120.0, 45.0, 80.0), (27.0, 90.0, 36.0, 84.0)),
    ("mutual_friends", "ssd_a", "1-neighbours"): ((7.0, 6.0, 2.0, 8.0), (6.9, 5.1, 1.9, 8.11)),
    ("mutual_friends", "ssd_a", "2-pairs"): ((24.0, 70.0, 30.0, 66.0), (22.8, 56.0, 25.5, 69.3)),
}
# Custom against containers, % per phase (map, shuffle, merge, reduce), by hand from TIMES:
# Table 13's shape (triangle counting) and Table 14's (mutual friends), per drive and job.
TABLE_13 = {
    ("hdd", "1-wedges"): (-10.0, -30.0, -20.0, 5.0),
    ("hdd", "2-close"): (-6.0, -25.0, -20.0, 5.0),
    ("ssd_a", "1-wedges"): (-5.0, -20.0, -22.5, 2.5),
    ("ssd_a", "2-close"): (-5.0, -22.5, -15.0, 5.0),
}
TABLE_14 = {
    ("hdd", "1-neighbours"): (-5.0, -18.0, -10.0, 3.3),
    ("hdd", "2-pairs"): (-10.0, -25.0, -20.0, 5.0),
    ("ssd_a", "1-neighbours"): (-1.4, -15.0, -5.0, 1.4),
    ("ssd_a", "2-pairs"): (-5.0, -20.0, -15.0, 5.0),
}


def filled_template() -> str:
    """published/template.csv with its empty values filled from TIMES."""
    rows = list(csv.DictReader(io.StringIO(TEMPLATE.read_text())))
    for row in rows:
        job, metric = row["metric"].split(":")
        phase = metric.removeprefix("phase_").removesuffix("_s")
        containers, custom = TIMES[(row["workload"], row["environment"], job)]
        times = containers if row["param.config_set"] == "containers" else custom
        row["value"] = str(times[PHASES.index(phase)])
        row["finished_at"] = "2017-06-01T00:00:00+00:00"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _import(path: Path, target: Path) -> tuple[int, str, str]:
    """`benchcamp import` as a user runs it: exit code, what it printed and what it complained."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["import", str(path), "--warehouse", str(target), "--strict-environment"])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("graph_published")
    target = tmp / "warehouse.duckdb"
    published = tmp / "published.csv"
    published.write_text(filled_template())
    code, out, err = _import(published, target)
    assert code == ExitCode.OK, out + err
    return target


def deltas(warehouse: Path, workload: str) -> dict[tuple[str, str], tuple[float, ...]]:
    """graph_config_deltas' custom against containers, % per phase at the paper's one decimal."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select environment, job, phase, delta_pct from graph_config_deltas "
            "where comparison = 'config_set' and config_set = 'custom' "
            "and baseline_config_set = 'containers' and workload = ? and graph = 'youtube'",
            [workload],
        ).fetchall()
    found: dict[tuple[str, str, str], float] = {(env, job, phase): pct for env, job, phase, pct in rows}
    pairs = {(env, job) for env, job, _ in found}
    return {pair: tuple(round(found[(*pair, phase)], 1) for phase in PHASES) for pair in pairs}


def test_table_13_comes_out_of_the_imported_times(warehouse: Path) -> None:
    assert deltas(warehouse, "triangle_counting") == TABLE_13


def test_table_14_comes_out_of_the_imported_times(warehouse: Path) -> None:
    assert deltas(warehouse, "mutual_friends") == TABLE_14


def test_only_the_spec_s_comparisons_are_computed(warehouse: Path) -> None:
    """The template has containers and custom only: of the spec's pairs, custom vs containers."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        pairs = con.execute(
            "select distinct config_set, baseline_config_set from graph_config_deltas "
            "where comparison = 'config_set'"
        ).fetchall()
    assert pairs == [("custom", "containers")]


def test_the_report_prints_the_paper_s_table_shape(warehouse: Path) -> None:
    """A phase per row, a drive per column, one table per algorithm and pair of sets."""
    tables = report.read_tables(warehouse, STUDY, CAMPAIGN)
    blocks = {block.title: block for block in delta_blocks(tables)}
    block = blocks["triangle_counting on youtube: custom vs containers, % difference per phase and storage"]
    assert block.headers == ("Job", "Phase", "hdd Δ%", "ssd_a Δ%")
    shown: dict[tuple[Any, ...], tuple[float, ...]] = {
        row.key: tuple(round(cell.value, 1) for cell in row.cells[2:]) for row in block.rows
    }
    assert shown == {
        (job, phase): (TABLE_13[("hdd", job)][index], TABLE_13[("ssd_a", job)][index])
        for job in ("1-wedges", "2-close")
        for index, phase in enumerate(PHASES)
    }
    assert "mutual_friends on youtube: custom vs containers, % difference per phase and storage" in blocks
    # the phase times as imported, with no chain duration (the paper's tables give phases): one run
    # each (a cell without durations counts its repetitions with a usable value)
    (times,) = [
        block
        for block in phase_time_blocks(tables)
        if block.title.startswith("triangle_counting on youtube, hdd:")
    ]
    assert [row.texts[:7] for row in times.rows][:2] == [
        ["containers", "1-wedges", "1", "20.00", "41.00", "12.50", "30.00"],
        ["containers", "2-close", "1", "15.00", "60.00", "22.00", "48.00"],
    ]


def test_the_template_holds_no_published_figure_and_is_refused_unfilled(tmp_path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(TEMPLATE.read_text())))
    assert len(rows) == 2 * 2 * 2 * 2 * 4 and not any(row["value"] for row in rows)
    target = tmp_path / "warehouse.duckdb"
    code, _, err = _import(TEMPLATE, target)
    assert code == ExitCode.BAD_INPUT and not target.exists()
    assert "template.csv, line 2: field 'value': empty" in err
