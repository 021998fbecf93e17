"""The run order of a campaign: sequential (unchanged), a seeded shuffle, ABAB blocks; warm-ups first;
refused before anything runs when the order or seed is bad; planned positions archived and loaded."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.records import ResultRecord, cell_key
from benchcamp.core.spec import SpecError, load_spec, load_spec_file
from benchcamp.pipeline import archive, run_order
from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf
from benchcamp.pipeline.campaign.finish import run_load
from benchcamp.pipeline.campaign.plan import plan_units

SPEC = load_spec("hibench_dse")
# two Hive workloads with the spec's one warm-up per cell, and one without: 9 cells at tiny
WORKLOADS = ["wordcount", "hive_aggregation", "hive_join"]
# sequential here (the spec's own order is randomised): the plan cell by cell, the base of the others
CONF: dict[str, Any] = {"ladder": "tiny", "repetitions": 3, "workloads": WORKLOADS, "order": "sequential"}


def plan(**conf: Any) -> list[dict[str, Any]]:
    return plan_units(SPEC, check_conf(SPEC, {**CONF, **conf}), "c1")["local_lab"]


def measured(units: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(cell_key(u["workload"], u["params"]), u["repetition"]) for u in units if u["repetition"] >= 1]


def test_sequential_is_the_plan_of_before_cell_by_cell_with_positions_as_the_dag_runs_them() -> None:
    units = plan()
    # cell by cell, each cell's warm-up before its repetitions, exactly as before run orders
    expected = []
    for cell in SPEC.cells("tiny", WORKLOADS):
        for repetition in range(1 - SPEC.warmups(cell.workload), 4):
            expected.append((cell.key, repetition))
    assert [(cell_key(u["workload"], u["params"]), u["repetition"]) for u in units] == expected
    assert {u["order"] for u in units} == {"sequential"}
    # positions: the 6 Hive warm-ups first (their own mapped group), then 27 measured in plan order
    warmups = [u["position"] for u in units if u["repetition"] <= 0]
    assert warmups == [1, 2, 3, 4, 5, 6]
    assert [u["position"] for u in units if u["repetition"] >= 1] == list(range(7, 7 + 27))


def test_randomised_is_a_seeded_shuffle_reproducible_and_recorded() -> None:
    first, again = plan(order="randomised"), plan(order="randomised")
    assert first == again  # same study and campaign names: same derived seed, same order
    seed = run_order.derived_seed("hibench_dse", "c1")
    assert {u["order_seed"] for u in first} == {seed}
    assert sorted(measured(first)) == sorted(measured(plan()))  # the same units, every one once
    assert measured(first) != measured(plan())
    other = plan_units(SPEC, check_conf(SPEC, {**CONF, "order": "randomised"}), "c2")["local_lab"]
    assert measured(other) != measured(first)  # another campaign, another derived seed
    chosen = plan(order="randomised", order_seed=7)
    assert measured(chosen) == measured(plan(order="randomised", order_seed=7)) != measured(first)
    assert {u["order_seed"] for u in chosen} == {7}
    # warm-ups stay first, in their planned order; positions 1..n follow the list
    assert [u["repetition"] for u in first[:6]] == [0] * 6
    assert [u["position"] for u in first] == list(range(1, len(first) + 1))
    # a shuffle, not a rotation: not sorted by cell, repetitions of a cell spread over the run
    positions = Counter(key for key, _ in measured(first)[:9])
    assert len(positions) > 3


def test_blocked_runs_one_repetition_of_every_cell_per_block_each_block_shuffled() -> None:
    units = plan(order="blocked", order_seed=11)
    runs = measured(units)
    cells = [cell.key for cell in SPEC.cells("tiny", WORKLOADS)]
    blocks = [runs[index : index + len(cells)] for index in range(0, len(runs), len(cells))]
    assert len(blocks) == 3
    for repetition, block in enumerate(blocks, start=1):
        assert {rep for _, rep in block} == {repetition}
        assert sorted(key for key, _ in block) == sorted(cells)
    orders = [[key for key, _ in block] for block in blocks]
    assert orders[0] != cells and len({tuple(order) for order in orders}) == 3
    assert [u["repetition"] for u in units[:6]] == [0] * 6  # warm-ups first


@pytest.mark.parametrize(
    ("conf", "message"),
    [
        (
            {"order": "random"},
            "order must be one of sequential, randomised, blocked, interleaved, got 'random'",
        ),
        ({"order": 1}, "order must be one of sequential, randomised, blocked, interleaved"),
        ({"order_seed": -1}, "order_seed must be an integer from 0 to 4294967295"),
        ({"order_seed": "3"}, "order_seed must be an integer"),
        ({"order_seed": True}, "order_seed must be an integer"),
        ({"order_seed": 2**32}, "order_seed must be an integer"),
    ],
)
def test_a_bad_order_or_seed_is_refused_before_anything_runs(conf: dict[str, Any], message: str) -> None:
    with pytest.raises(CampaignConfError, match=message):
        check_conf(SPEC, conf)


def test_the_spec_declares_the_default_order_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    assert SPEC.order == "randomised" and SPEC.order_seed is None
    spec = SPEC.model_copy(update={"order": "blocked", "order_seed": 5})
    conf = check_conf(spec, {key: value for key, value in CONF.items() if key != "order"})
    assert (conf.order, conf.order_seed) == ("blocked", 5)
    assert check_conf(spec, {**CONF, "order": "sequential"}).order == "sequential"  # the trigger wins
    text = (Path(__file__).parents[2] / "include/benchcamp/studies/hibench_dse/spec.yaml").read_text()
    bad = tmp_path / "hibench_dse.yaml"
    bad.write_text(text + "order: shuffled\n")
    with pytest.raises(SpecError, match=r"order: .*'sequential', 'randomised', 'blocked' or 'interleaved'"):
        load_spec_file(bad)


def test_positions_are_archived_with_each_repetition_and_loaded_beside_the_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    units = plan_units(
        SPEC, check_conf(SPEC, {"ladder": "tiny", "repetitions": 2, "workloads": ["wordcount"], "order": "randomised"}),
        "c1",
    )["local_lab"]  # fmt: skip
    start = datetime(2026, 11, 25, 12, tzinfo=UTC)
    for unit in units:
        key = cell_key(unit["workload"], unit["params"])
        rep_dir = archive.repetition_dir("hibench_dse", "c1", key, unit["repetition"])
        assert run_order.save_run_order(rep_dir, unit) == rep_dir / run_order.RUN_ORDER_FILE
        began = start + timedelta(minutes=unit["position"])
        archive.save_records(rep_dir, [ResultRecord(
            study="hibench_dse", campaign="c1", environment="local_lab", workload=unit["workload"],
            params=unit["params"], repetition=unit["repetition"], metric="duration_s", value=5.0, unit="s",
            status="ok", started_at=began, finished_at=began + timedelta(seconds=5),
        )])  # fmt: skip
    warehouse = tmp_path / "wh.duckdb"
    run_load("hibench_dse", "c1", warehouse)
    run_load("hibench_dse", "c1", warehouse)  # a re-load replaces the rows
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            'select cell_key, repetition, planned_position, "order", seed from raw.run_order '
            "where study = 'hibench_dse' and campaign = 'c1' order by planned_position"
        ).fetchall()
        actual = [
            (key, rep)
            for key, rep, _ in con.execute(
                "select cell_key, repetition, started_at from raw.results order by started_at"
            ).fetchall()
        ]
    seed = run_order.derived_seed("hibench_dse", "c1")
    assert rows == [
        (cell_key(u["workload"], u["params"]), u["repetition"], u["position"], "randomised", seed)
        for u in units
    ]
    assert [(key, rep) for key, rep, *_ in rows] == actual
    # a unit planned before run orders existed (or added without a position) archives nothing
    assert (
        run_order.save_run_order(tmp_path / "old", {k: v for k, v in units[0].items() if k != "position"})
        is None
    )


def test_benchcamp_run_takes_the_order_and_refuses_an_unknown_one(capsys: pytest.CaptureFixture[str]) -> None:
    from benchcamp.ops.cli import build_parser

    args = build_parser().parse_args(["run", "hibench_dse", "--order", "blocked", "--order-seed", "3"])
    assert (args.order, args.order_seed) == ("blocked", 3)
    assert build_parser().parse_args(["run", "hibench_dse"]).order is None  # the spec's
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "hibench_dse", "--order", "shuffled"])
    assert "invalid choice: 'shuffled'" in capsys.readouterr().err


EXECUTE = "repetitions_local_lab.execute"


def test_a_repetition_waits_for_every_one_mapped_before_it_to_end() -> None:
    """The turn rule: the execute states of one run as Airflow's task-states call gives them."""
    states = {
        f"{EXECUTE}_0": "success",
        f"{EXECUTE}_1": "running",
        f"{EXECUTE}_2": None,
        f"{EXECUTE}_3": None,
    }
    assert run_order.units_ahead(states, EXECUTE, 0) == 0  # the first in line never waits
    assert run_order.units_ahead(states, EXECUTE, 1) == 0  # its only predecessor succeeded
    assert run_order.units_ahead(states, EXECUTE, 2) == 1  # repetition 1 is still running
    assert run_order.units_ahead(states, EXECUTE, 4) == 3  # not yet started counts as ahead too
    ended = {f"{EXECUTE}_{i}": state for i, state in enumerate(["failed", "upstream_failed", "skipped"])}
    assert run_order.units_ahead(ended, EXECUTE, 3) == 0  # a failed repetition still ended its turn
    # an execute not expanded yet (Airflow expands it when it is first scheduled): all are ahead
    assert run_order.units_ahead({EXECUTE: None, "repetitions_local_lab.clean_0": "running"}, EXECUTE, 3) == 3
    # another group's executes hold no turn; nor does an index removed from an expanded task
    assert run_order.units_ahead({"warmups_local_lab.execute_0": "running"}, EXECUTE, 1) == 0
    assert run_order.units_ahead({f"{EXECUTE}_1": "running"}, EXECUTE, 1) == 0


def test_the_wait_for_a_turn_grows_with_the_queue_ahead_and_stays_bounded() -> None:
    waits = [run_order.turn_wait_s(ahead) for ahead in range(1, 40)]
    assert waits[0] == run_order.TURN_WAIT_S
    assert waits == sorted(waits) and waits[1] > waits[0]
    assert max(waits) == run_order.TURN_WAIT_MAX_S
