"""The run-order drift test (the `run_order_drift` mart, a dbt Python model with scipy) on
constructed series: a linear drift is found, stationary noise gives none (at about the test's
5 % over many series), Holm's correction is applied across a campaign's tests; and the mart,
built by dbt from loaded records and run orders, reports order, seed and the drift."""

from __future__ import annotations

import importlib.util
import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from benchcamp.core.records import ResultRecord, cell_key
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.transform import build_marts, project_dir
from benchcamp.presentation.run_order_section import run_order_blocks
from scipy import stats


def drift_module() -> ModuleType:
    path = project_dir() / "models" / "marts" / "run_order_drift.py"
    spec = importlib.util.spec_from_file_location("run_order_drift", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DRIFT = drift_module()
CELL_MEANS = {"a": 10.0, "b": 20.0, "c": 40.0}  # three cells of one workload, very different means


def series(drift_s: float, seed: int, repetitions: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells x repetitions in a shuffled run order: value = cell mean + drift x position + N(0, 0.2)."""
    rng = np.random.default_rng(seed)
    cells = np.array([cell for cell in CELL_MEANS for _ in range(repetitions)])
    positions = rng.permutation(len(cells)) + 1
    values = (
        np.array([CELL_MEANS[cell] for cell in cells]) + drift_s * positions + rng.normal(0, 0.2, len(cells))
    )
    return positions, values, cells


def test_holm_adjusts_step_down_and_leaves_untested_out() -> None:
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    # four tests: 0.005 x 4, 0.01 x 3, 0.03 x 2, 0.04 x 1 -> then monotone: 0.02, 0.03, 0.06, 0.06
    assert DRIFT.holm(p) == pytest.approx([0.03, 0.06, 0.06, np.nan, 0.02], nan_ok=True)
    assert DRIFT.holm(np.array([0.5, 0.9])) == pytest.approx([1.0, 1.0])
    assert np.isnan(DRIFT.holm(np.array([np.nan]))).all()


def test_a_linear_drift_within_cells_is_found_with_its_slope() -> None:
    positions, values, cells = series(drift_s=0.05, seed=1)
    found = DRIFT.drift_test(positions, values, cells)
    assert found["p_value"] < 1e-4 and found["rho"] > 0.7
    assert found["slope"] == pytest.approx(0.05, abs=0.01)
    # the same series without removing the cell means: the cells' spread (10 s to 40 s) hides it
    assert stats.spearmanr(positions, values).pvalue > 0.05


def test_stationary_noise_shows_no_drift_at_the_tests_own_rate() -> None:
    positions, values, cells = series(drift_s=0.0, seed=1)
    none = DRIFT.drift_test(positions, values, cells)
    assert none["p_value"] > 0.05 and abs(none["slope"]) < 0.01
    # over 400 stationary series the test says "drift" about 5 % of the time, as a 5 % test should
    rate = np.mean([DRIFT.drift_test(*series(0.0, seed))["p_value"] < 0.05 for seed in range(400)])
    assert 0.02 <= rate <= 0.09, rate
    # and finds a drift of 1 % of the smallest cell's mean per position nearly always
    power = np.mean([DRIFT.drift_test(*series(0.1, seed))["p_value"] < 0.05 for seed in range(100)])
    assert power > 0.95, power


def test_too_few_repetitions_left_after_the_cell_means_are_not_tested() -> None:
    # three cells of one repetition each: every residual is 0 and nothing is left to test
    assert DRIFT.drift_test(np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0]), np.array(["a", "b", "c"])) == {
        "rho": None,
        "p_value": None,
        "slope": None,
    }
    # two cells x two repetitions: n = 4 but 2 degrees of freedom within cells
    untested = DRIFT.drift_test(
        np.arange(1, 5), np.array([1.0, 1.1, 2.0, 2.2]), np.array(["a", "a", "b", "b"])
    )
    assert untested["p_value"] is None


def test_a_short_series_gets_the_exact_p_value_not_the_t_approximations() -> None:
    # one cell, four repetitions, each slower than the last (make run's DFSIO read on 2026-12-04):
    # 2 of the 4! = 24 orderings are as monotone, so p = 2/24, where Student's t said 0
    found = DRIFT.drift_test(np.arange(1, 5), np.array([3.5, 3.6, 3.9, 4.1]), np.array(["a"] * 4))
    assert found["rho"] == pytest.approx(1.0)
    assert found["p_value"] == pytest.approx(2 / 24)
    # six repetitions in two cells: the exact p over 720 pairings, tied residuals kept as ties
    positions, values = np.arange(1, 7), np.array([1.0, 2.0, 1.2, 2.1, 1.1, 2.3])
    cells = np.array(["a", "b", "a", "b", "a", "b"])
    exact = DRIFT.drift_test(positions, values, cells)
    residuals = values - np.where(cells == "a", values[cells == "a"].mean(), values[cells == "b"].mean())
    rho = stats.spearmanr(positions, residuals).statistic
    pairings = [stats.spearmanr(order, residuals).statistic for order in itertools.permutations(positions)]
    as_far = np.mean([abs(value) >= abs(rho) - 1e-12 for value in pairings])
    assert exact["p_value"] == pytest.approx(as_far)
    # above eight repetitions the t approximation (a perfect order is then below 1e-5 either way)
    long = DRIFT.drift_test(np.arange(1, 10), np.arange(9, dtype=float), np.array(["a"] * 9))
    assert long["p_value"] == pytest.approx(stats.spearmanr(np.arange(9), np.arange(9)).pvalue, abs=1e-12)


def frames(drifting: dict[str, float], plan_shift: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """stg_results and stg_run_order rows of one campaign on one target: per workload, three cells
    x 8 repetitions interleaved in one shuffled run order; a workload's drift in s per position."""
    rng = np.random.default_rng(7)
    units = [(workload, cell, rep) for workload in drifting for cell in CELL_MEANS for rep in range(1, 9)]
    order = rng.permutation(len(units))
    start = datetime(2026, 11, 25, tzinfo=UTC)
    results, plan = [], []
    for position, index in enumerate(order, start=1):
        workload, cell, rep = units[index]
        key = f"{workload}|size={cell}"
        value = CELL_MEANS[cell] + drifting[workload] * position + rng.normal(0, 0.2)
        common = {"study": "s", "campaign": "c1", "environment": "lab", "cell_key": key, "repetition": rep}
        for metric, metric_value in (("duration_s", value), ("throughput", 1.0 / value)):
            results.append({
                **common, "workload": workload, "metric": metric, "value": metric_value, "is_usable": True,
                "is_warmup": False, "started_at": start + timedelta(minutes=position),
            })  # fmt: skip
        plan.append(
            {
                **common,
                "planned_position": position + plan_shift * (position % 2),
                "run_order": "randomised",
                "seed": 42,
            }
        )
    # a warm-up before everything, never counted or positioned
    results.append({
        "study": "s", "campaign": "c1", "environment": "lab", "cell_key": "w|size=a", "repetition": 0,
        "workload": "w", "metric": "duration_s", "value": 99.0, "is_usable": True, "is_warmup": True,
        "started_at": start,
    })  # fmt: skip
    return pd.DataFrame(results), pd.DataFrame(plan)


def test_the_mart_rows_test_each_workload_and_correct_across_the_campaign() -> None:
    results, plan = frames({"drifting": 0.05, "steady": 0.0, "steady2": 0.0})
    rows = DRIFT.drift_rows(results, plan).set_index("workload")
    assert list(rows.index) == ["drifting", "steady", "steady2"]
    assert (rows["n"] == 24).all() and (rows["n_cells"] == 3).all() and (rows["n_tests"] == 3).all()
    assert set(rows["first_position"]) | set(rows["last_position"]) <= set(range(1, 73))
    assert bool(rows.loc["drifting", "drift"]) and not rows.loc[["steady", "steady2"], "drift"].any()
    assert rows["p_adjusted"].to_numpy() == pytest.approx(DRIFT.holm(rows["p_value"].to_numpy()))
    assert (rows["p_adjusted"] >= rows["p_value"]).all() and set(rows["correction"]) == {"holm"}
    assert set(rows["run_order"]) == {"randomised"} and set(rows["seed"]) == {42}
    assert rows["followed_plan"].all()
    assert rows.loc["drifting", "slope_pct_per_position"] == pytest.approx(
        100 * 0.05 / (70 / 3 + 0.05 * 36.5), rel=0.3
    )
    # a target that started its repetitions out of their planned order says so
    shuffled_results, shuffled_plan = frames({"drifting": 0.05}, plan_shift=3)
    assert not DRIFT.drift_rows(shuffled_results, shuffled_plan)["followed_plan"].any()
    # a campaign that recorded no run order (imported, or run before run orders) has no row
    assert DRIFT.drift_rows(results, plan.iloc[0:0]).empty


def records_and_plan(drift_s: float) -> tuple[list[ResultRecord], list[dict[str, Any]]]:
    """A hibench_dse-shaped campaign: wordcount at three sizes x 6 repetitions, in one shuffled order."""
    results, plan = frames({"wordcount": drift_s})
    records = []
    for row in results[results["metric"] == "duration_s"].itertuples():
        size = {"a": 0.012, "b": 0.017, "c": 0.022}[row.cell_key.split("=")[1]]
        records.append(ResultRecord(
            study="hibench_dse", campaign="drift", environment="local_lab", workload=row.workload,
            params={"data_size_gb": size}, repetition=row.repetition, metric="duration_s", value=row.value,
            unit="s", status="warmup" if row.is_warmup else "ok", started_at=row.started_at,
            finished_at=row.started_at + timedelta(seconds=row.value),
        ))  # fmt: skip
    order = []
    for row in plan.itertuples():
        size = {"a": 0.012, "b": 0.017, "c": 0.022}[row.cell_key.split("=")[1]]
        order.append({
            "study": "hibench_dse", "campaign": "drift", "environment": "local_lab", "workload": "wordcount",
            "cell_key": cell_key("wordcount", {"data_size_gb": size}), "repetition": row.repetition,
            "planned_position": row.planned_position, "order": "randomised", "seed": 42,
        })  # fmt: skip
    return records, order


def test_dbt_builds_the_mart_from_loaded_records_and_run_orders(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh.duckdb"
    records, order = records_and_plan(drift_s=0.05)
    wh.load_records(warehouse, records)
    wh.replace_run_order(warehouse, "hibench_dse", "drift", order)
    build_marts(warehouse, select="+run_order_drift")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select workload, run_order, seed, followed_plan, n, n_cells, drift, correction, p_adjusted "
            "from main.run_order_drift where campaign = 'drift'"
        ).fetchall()
    ((workload, run_order, seed, followed, n, n_cells, drift, correction, p_adjusted),) = rows
    assert (workload, run_order, seed, followed, n, n_cells, drift, correction) == (
        "wordcount", "randomised", 42, True, 24, 3, True, "holm",
    )  # fmt: skip
    assert p_adjusted < 1e-3
    # the report's "Run order" section, from the mart's rows as the report reads them
    with duckdb.connect(str(warehouse), read_only=True) as con:
        cursor = con.execute("select * from main.run_order_drift where campaign = 'drift'")
        names = [column[0] for column in cursor.description]
        mart_rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    (block,) = run_order_blocks(mart_rows)
    assert block.title == (
        "Run order on local_lab: randomised, seed 42; the repetitions started in the planned order; "
        "drift with the position in wordcount"
    )
    text = "\n".join(block.lines()).splitlines()
    (line,) = [line for line in text if line.startswith("| wordcount")]
    cells = [cell.strip() for cell in line.split("|")[2:8]]
    assert cells[:3] == ["24", "3", "1–24"] and float(cells[3]) > 0.8 and cells[4:] == ["<0.001", "<0.001"]
    assert line.rstrip().endswith("| yes   |")
    assert "Holm's method across the campaign's 1 test(s)" in block.notes[0]


def test_the_title_says_why_a_plan_was_not_followed_and_gives_no_seed_to_a_sequential_order() -> None:
    row = {"environment": "local_lab", "run_order": "sequential", "seed": 7, "followed_plan": False}
    untested = dict.fromkeys(
        ("rho", "p_value", "p_adjusted", "slope_s_per_position", "slope_pct_per_position")
    )
    counts = {"n": 2, "n_cells": 2, "first_position": 1, "last_position": 2, "n_tests": 0}
    row |= {"workload": "wordcount", "drift": False, **counts, **untested}
    title = run_order_blocks([row])[0].title
    assert title.startswith(
        "Run order on local_lab: sequential; the repetitions did not start in the planned "
    )
    assert "seed" not in title and "re-run by hand" in title
