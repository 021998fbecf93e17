"""Adaptive repetitions (issue 17, part 4): the t-based decision, the rounds archived on disk, the
spec and trigger options, what validation expects and what the load and the report get."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.records import ResultRecord, cell_key
from benchcamp.core.spec import SpecError, load_spec, parse_spec, spec_files
from benchcamp.pipeline import adaptive, archive, warehouse
from benchcamp.pipeline.adaptive import CellState, allowed_failures, decide, precision
from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf
from benchcamp.pipeline.campaign.finish import run_validate
from benchcamp.pipeline.campaign.plan import expected_cells
from benchcamp.pipeline.validation import cell_statistics
from benchcamp.presentation.sections import _adequacy_blocks

# Student's t quantiles t(0.975, df) from the printed tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2)
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
STUDY, CAMPAIGN, ENV = "hibench_dse", "adaptive_test", "local_lab"
WIDE = {"data_size_gb": 0.012, "maps": 4, "reduces": 2}  # a cell whose spread keeps it short of 5 %
TIGHT = {"data_size_gb": 0.017, "maps": 4, "reduces": 2}


def state(values: list[float], planned: int | None = None, failed: int = 0) -> CellState:
    return CellState(
        ENV, "wordcount", "k", "duration_s", planned or len(values) + failed, tuple(values), failed
    )


# -- the statistics ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values", [[10.0, 11.0], [10.0, 11.0, 12.0], [5.1, 5.3, 5.2, 5.6], [8.0, 8.0, 9.0, 9.5, 9.0]]
)
def test_the_interval_is_students_t_on_the_sample_sigma(values: list[float]) -> None:
    found = precision(values)
    n = len(values)
    mean = sum(values) / n
    sigma = math.sqrt(sum((value - mean) ** 2 for value in values) / (n - 1))
    assert found.n == n and found.mean == pytest.approx(mean) and found.stddev == pytest.approx(sigma)
    # the printed table's quantile, to its three decimals
    assert found.half_width == pytest.approx(T975[n - 1] * sigma / math.sqrt(n), rel=2e-4)
    assert found.half_width is not None and found.half_width_pct == pytest.approx(
        found.half_width / mean * 100
    )


def test_three_values_ten_eleven_twelve() -> None:
    """Worked by hand: mean 11, σ 1, t(0.975, 2) = 4.3027, half-width 4.3027/√3 = 2.4841 (22.58 %)."""
    found = precision([10.0, 11.0, 12.0])
    assert found.half_width == pytest.approx(2.48414, abs=1e-5)
    assert found.half_width_pct == pytest.approx(22.583, abs=1e-3)


def test_fewer_than_two_values_have_no_interval() -> None:
    assert precision([]).mean is None
    one = precision([4.2])
    assert one.mean == 4.2 and one.half_width is None and one.half_width_pct is None


# -- the decision --------------------------------------------------------------------------------


def test_a_cell_within_the_target_stops_and_a_wider_one_gets_another_repetition() -> None:
    # three WordCount-like durations, σ 0.05 s: 4.303 · 0.05/√3 = 0.124 s, 2.2 % of the mean 5.65 s
    tight = decide(state([5.60, 5.65, 5.70]), target_ci_pct=5, max_repetitions=5, allowed_failures=0)
    assert tight.reason == "target_reached" and not tight.more
    assert tight.half_width_pct == pytest.approx(2.198, abs=1e-3)
    # σ% 8.9 on three: 22 % half-width, far from 5 %: one more
    wide = decide(state([5.0, 5.5, 6.0]), target_ci_pct=5, max_repetitions=5, allowed_failures=0)
    assert wide.more and wide.reason is None and wide.half_width_pct == pytest.approx(22.583, abs=1e-3)
    # the same spread reaches a 25 % target
    assert decide(state([5.0, 5.5, 6.0]), 25, 5, 0).reason == "target_reached"


def test_the_target_compares_with_the_t_quantile_of_n_minus_one_not_the_normal_one() -> None:
    """Two values 10 and 10.2 (σ/√2 = 0.1 s): 1.96 · 0.1 would be 1.94 % of the mean (within 2 %);
    t(0.975, 1) = 12.706 makes it 12.58 %."""
    decision = decide(state([10.0, 10.2]), target_ci_pct=2, max_repetitions=5, allowed_failures=0)
    assert decision.more and decision.half_width_pct == pytest.approx(12.580, abs=1e-3)


def test_a_cell_stops_at_max_repetitions_with_the_interval_it_reached() -> None:
    decision = decide(
        state([5.0, 5.5, 6.0, 5.2, 5.9]), target_ci_pct=5, max_repetitions=5, allowed_failures=0
    )
    assert decision.reason == "max_repetitions" and not decision.more
    assert decision.repetitions == 5 and decision.half_width_pct is not None and decision.half_width_pct > 5


def test_failed_repetitions_count_and_stop_a_cell_that_has_more_than_allowed() -> None:
    # one ok value left: no interval; with no failure allowed the cell stops, never "retried"
    failing = decide(state([5.1], failed=2), target_ci_pct=5, max_repetitions=5, allowed_failures=0)
    assert failing.reason == "too_many_failures" and failing.failed_n == 2 and failing.ok_n == 1
    # min_ok_repetitions 2 of 3 allows one failure: the cell goes on, on its two ok values
    allowed = allowed_failures(3, 2)
    assert allowed == 1 and allowed_failures(3, None) == 0
    going_on = decide(
        state([5.1, 5.9], failed=1), target_ci_pct=5, max_repetitions=5, allowed_failures=allowed
    )
    assert going_on.more and going_on.ok_n == 2 and going_on.repetitions == 3


def test_a_single_ok_value_needs_another_repetition() -> None:
    decision = decide(state([5.1]), target_ci_pct=5, max_repetitions=3, allowed_failures=0)
    assert decision.more and decision.half_width is None


# -- rounds on the archive -----------------------------------------------------------------------


def record(params: dict[str, Any], repetition: int, value: float, status: str = "ok") -> ResultRecord:
    now = datetime(2026, 11, 25, tzinfo=UTC)
    return ResultRecord(
        study=STUDY, campaign=CAMPAIGN, environment=ENV, workload="wordcount", params=params,
        repetition=repetition, metric="duration_s", value=value, unit="s", status=status,  # type: ignore[arg-type]
        started_at=now, finished_at=now,
    )  # fmt: skip


def save(root: Path, params: dict[str, Any], repetition: int, value: float, status: str = "ok") -> None:
    rep_dir = archive.repetition_dir(STUDY, CAMPAIGN, cell_key("wordcount", params), repetition, root)
    archive.save_records(rep_dir, [record(params, repetition, value, status)])


def test_a_non_positive_duration_is_a_failed_repetition_as_in_the_marts() -> None:
    """An ok record of -150 s (or 0 s) is no usable repetition: the cell's statistics leave it
    out and count it failed, as stg_results.is_usable and the validation's σ gate do."""
    params = {"data_size_gb": 0.012, "maps": 4, "reduces": 2}
    cell = (ENV, "wordcount", cell_key("wordcount", params))
    records = [
        record(params, 1, 4000.0),
        record(params, 2, -150.0),
        record(params, 3, 0.0),
        record(params, 4, 4100.0),
    ]
    (found,) = adaptive.cell_states(records, {cell: 4}, {})
    assert found.ok_values == (4000.0, 4100.0) and found.failed == 2
    stats = cell_statistics(records, None)
    assert stats["ok_n"].tolist() == [2] and stats["gated_mean"].tolist() == [4050.0]


def unit(params: dict[str, Any], repetition: int, position: int) -> dict[str, Any]:
    return {"study": STUDY, "campaign": CAMPAIGN, "environment": ENV, "workload": "wordcount", "params": params,
            "repetition": repetition, "ladder": "tiny", "position": position, "order": "sequential"}  # fmt: skip


def test_rounds_add_repetitions_after_the_existing_ones_until_each_cell_stops(tmp_path: Path) -> None:
    """Two cells, two measured repetitions each (and a warm-up); target 5 %, at most 4 repetitions:
    the tight cell stops at once, the wide one gets repetitions 3 and 4 and stops at the maximum;
    a failed repetition is counted; everything is archived and read back for the load."""
    planned = [unit(WIDE, 0, 1), unit(WIDE, 1, 2), unit(WIDE, 2, 3), unit(TIGHT, 1, 4), unit(TIGHT, 2, 5)]
    save(tmp_path, WIDE, 0, 9.0, "warmup")  # warm-ups are never counted
    save(tmp_path, WIDE, 1, 5.0)
    save(tmp_path, WIDE, 2, 6.0)
    save(tmp_path, TIGHT, 1, 5.60)
    save(tmp_path, TIGHT, 2, 5.62)

    def run(round_number: int, last: bool = False) -> list[dict[str, Any]]:
        return adaptive.run_round(planned, round_number, last, 5.0, 4, None, 2, root=tmp_path)

    first = run(1)
    assert [(u["params"], u["repetition"], u["position"]) for u in first] == [(WIDE, 3, 6)]
    assert run(1) == first  # a re-run round decides the same and replaces its own file
    save(tmp_path, WIDE, 3, 5.5, "failed")  # the added repetition fails: counted, not dropped
    # without a failure allowed, the failed repetition 3 stops the wide cell in round 2
    assert run(2) == []
    stops = {stop["cell_key"]: stop for stop in adaptive.stops(STUDY, CAMPAIGN, tmp_path)}
    assert stops[cell_key("wordcount", TIGHT)]["reason"] == "target_reached"
    assert stops[cell_key("wordcount", TIGHT)]["round"] == 1
    wide = stops[cell_key("wordcount", WIDE)]
    assert (wide["reason"], wide["repetitions"], wide["ok_n"], wide["failed_n"]) == (
        "too_many_failures",
        3,
        2,
        1,
    )
    assert run(3, last=True) == []
    assert [u["repetition"] for u in adaptive.added_units(STUDY, CAMPAIGN, tmp_path)] == [3]


def test_a_cell_short_of_the_target_stops_at_the_maximum_in_the_last_round(tmp_path: Path) -> None:
    planned = [unit(WIDE, 1, 1), unit(WIDE, 2, 2)]
    save(tmp_path, WIDE, 1, 5.0)
    save(tmp_path, WIDE, 2, 6.0)
    args = (5.0, 4, None, 2)
    assert [u["repetition"] for u in adaptive.run_round(planned, 1, False, *args, root=tmp_path)] == [3]
    save(tmp_path, WIDE, 3, 5.4)
    assert [u["repetition"] for u in adaptive.run_round(planned, 2, False, *args, root=tmp_path)] == [4]
    save(tmp_path, WIDE, 4, 5.9)
    assert adaptive.stops(STUDY, CAMPAIGN, tmp_path) == []  # the DAG's rounds are over: validate finishes
    adaptive.finish({ENV: planned}, None, root=tmp_path)
    adaptive.finish({ENV: planned}, None, root=tmp_path)  # a re-run validate decides nothing new
    assert [u["repetition"] for u in adaptive.added_units(STUDY, CAMPAIGN, tmp_path)] == [3, 4]
    (stop,) = adaptive.stops(STUDY, CAMPAIGN, tmp_path)
    assert (stop["reason"], stop["repetitions"], stop["ok_n"], stop["round"]) == ("max_repetitions", 4, 4, 3)
    expected = precision([5.0, 6.0, 5.4, 5.9])
    assert stop["half_width_pct"] == pytest.approx(expected.half_width_pct) and stop["half_width_pct"] > 5
    saved = json.loads((adaptive.adaptive_dir(STUDY, CAMPAIGN, ENV, tmp_path) / "round3.json").read_text())
    assert saved["target_ci_pct"] == 5.0 and saved["confidence"] == 0.95 and saved["added_units"] == []
    assert saved["final"] is True
    assert not (adaptive.adaptive_dir(STUDY, CAMPAIGN, ENV, tmp_path) / "round4.json").exists()


def test_without_a_target_a_round_does_nothing(tmp_path: Path) -> None:
    assert adaptive.run_round([unit(WIDE, 1, 1)], 1, False, None, None, None, 1, root=tmp_path) == []
    assert not (tmp_path / STUDY).exists()


def test_validation_expects_the_adaptive_repetitions(tmp_path: Path) -> None:
    """The plan had 2 repetitions; a round added the 3rd. Expected from the plan alone, the 3rd would
    be a surplus record; with the archived rounds, the cell is complete with 3; with the 3rd
    missing, it is incomplete."""
    planned = [unit(WIDE, 1, 1), unit(WIDE, 2, 2)]
    save(tmp_path, WIDE, 1, 5.0)
    save(tmp_path, WIDE, 2, 6.0)
    added = adaptive.run_round(planned, 1, False, 5.0, 4, None, 2, root=tmp_path)
    records = archive.load_campaign_records(STUDY, CAMPAIGN, tmp_path)
    missing = cell_statistics(records, expected_cells({ENV: planned, "adaptive": added}))
    assert (missing["expected_reps"].item(), missing["present_reps"].item()) == (3, 2)
    assert missing["missing_list"].item() == "3"
    save(tmp_path, WIDE, 3, 5.5)
    records = archive.load_campaign_records(STUDY, CAMPAIGN, tmp_path)
    plan_only = cell_statistics(records, expected_cells({ENV: planned}))
    assert plan_only["surplus_records"].item() == 1  # what the plan alone would have flagged
    complete = cell_statistics(records, expected_cells({ENV: planned, "adaptive": added}))
    assert (complete["expected_reps"].item(), complete["present_reps"].item()) == (3, 3)
    assert complete["surplus_records"].item() == 0 and complete["missing_list"].item() == ""


def test_run_validate_reads_the_rounds_from_the_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path))
    planned = [unit(WIDE, 1, 1), unit(WIDE, 2, 2)]
    save(tmp_path, WIDE, 1, 5.0)
    save(tmp_path, WIDE, 2, 6.0)
    adaptive.run_round(planned, 1, False, 5.0, 4, None, 2, root=tmp_path)
    failures = run_validate(STUDY, CAMPAIGN, {ENV: planned})
    (incomplete,) = [f for f in failures if f.expectation == "repetitions_complete"]
    assert incomplete.cell_key == cell_key("wordcount", WIDE) and "3" in incomplete.details
    save(tmp_path, WIDE, 3, 5.5)
    after = run_validate(STUDY, CAMPAIGN, {ENV: planned})
    assert [f.expectation for f in after if f.expectation in ("repetitions_complete", "record_count")] == []


# -- the load and the report ---------------------------------------------------------------------


def test_the_stops_are_loaded_into_raw_adaptive_stops_and_replaced_on_reload(tmp_path: Path) -> None:
    planned = [unit(WIDE, 1, 1), unit(WIDE, 2, 2), unit(TIGHT, 1, 3), unit(TIGHT, 2, 4)]
    save(tmp_path, WIDE, 1, 5.0)
    save(tmp_path, WIDE, 2, 6.0)
    save(tmp_path, TIGHT, 1, 5.60)
    save(tmp_path, TIGHT, 2, 5.62)
    adaptive.run_round(planned, 1, True, 5.0, 2, None, 2, root=tmp_path)
    path = tmp_path / "w.duckdb"
    for _ in range(2):
        warehouse.replace_adaptive_stops(path, STUDY, CAMPAIGN, adaptive.stops(STUDY, CAMPAIGN, tmp_path))
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "select cell_key, reason, repetitions, ok_n, round(half_width_pct, 3), decided_round "
            "from raw.adaptive_stops order by cell_key"
        ).fetchall()
    assert rows == [
        (
            cell_key("wordcount", WIDE),
            "max_repetitions",
            2,
            2,
            round(precision([5.0, 6.0]).half_width_pct or 0, 3),
            1,
        ),
        (
            cell_key("wordcount", TIGHT),
            "target_reached",
            2,
            2,
            round(precision([5.6, 5.62]).half_width_pct or 0, 3),
            1,
        ),
    ]


def test_the_report_states_the_achieved_interval_per_cell() -> None:
    row = {"environment": ENV, "cell_key": "wordcount|data_size_gb=0.012|maps=4|reduces=2", "metric": "duration_s",
           "n": 4, "n_failed": 0, "n_planned": 4, "mean": 5.575, "half_width": 0.7, "half_width_pct": 12.56,
           "target_ci_pct": 5.0, "max_repetitions": 4, "confidence": 0.95, "stop_reason": "max_repetitions"}  # fmt: skip
    (block,) = _adequacy_blocks([row])
    text = "\n".join(block.lines())
    assert "achieved 95 % confidence interval" in text and "within 5.00 % of the mean" in text
    assert "12.56" in text and "max_repetitions reached at n = 4" in text
    assert _adequacy_blocks([]) == []


# -- the options: spec and trigger ---------------------------------------------------------------


def spec_text(study: str) -> str:
    (path,) = [path for path in spec_files() if path.parent.name == study]
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("max_repetitions: 5\n", "max_repetitions: 2 ", "max_repetitions: 2 is below repetitions (3)"),
        ("max_repetitions: 5\n", "target_ci_pct: 5 ", "target_ci_pct: needs max_repetitions"),
        (
            "max_repetitions: 5\n",
            "max_repetitions: 5\ntarget_ci_pct: 0 ",
            "target_ci_pct: Input should be greater than 0",
        ),
        (
            "max_repetitions: 5\n",
            "max_repetitions: 5\ntarget_ci_pct: 150 ",
            "target_ci_pct: Input should be less than 100",
        ),
        ("max_repetitions: 5\n", "max_repetition: 5 ", "max_repetition: unknown key"),
    ],
)
def test_a_bad_adaptive_spec_is_refused_naming_the_key(old: str, new: str, message: str) -> None:
    text = spec_text(STUDY)
    assert old in text
    with pytest.raises(SpecError) as error:
        parse_spec(text.replace(old, new, 1), f"{STUDY}.yaml")
    assert message in str(error.value)


def test_the_spec_declares_the_rounds_and_a_spec_without_it_has_none() -> None:
    spec = load_spec(STUDY)
    assert (spec.max_repetitions, spec.target_ci_pct, adaptive.adaptive_rounds(spec)) == (5, None, 2)
    assert adaptive.adaptive_rounds(load_spec("ycsb_hbase_cassandra")) == 2  # 3 repetitions, at most 5
    assert adaptive.adaptive_rounds(load_spec("hdfs_interconnects")) == 0
    with_target = parse_spec(
        spec_text(STUDY).replace("max_repetitions: 5\n", "max_repetitions: 5\ntarget_ci_pct: 5 ", 1)
    )
    assert with_target.target_ci_pct == 5.0


BASE = {"ladder": "tiny", "workloads": ["wordcount"]}


@pytest.mark.parametrize(
    ("conf", "wanted"),
    [
        ({}, (None, None)),
        ({"target_ci_pct": 5}, (5.0, 5)),  # the spec's maximum
        ({"target_ci_pct": 2.5, "max_repetitions": 4}, (2.5, 4)),
        ({"target_ci_pct": 10, "repetitions": 1, "max_repetitions": 3}, (10.0, 3)),
    ],
)
def test_a_trigger_sets_the_target_and_maximum(conf: dict[str, Any], wanted: tuple[Any, Any]) -> None:
    checked = check_conf(load_spec(STUDY), {**BASE, **conf})
    assert (checked.target_ci_pct, checked.max_repetitions) == wanted


@pytest.mark.parametrize(
    ("study", "conf", "message"),
    [
        (
            STUDY,
            {"target_ci_pct": 5, "max_repetitions": 6},
            "max_repetitions (6) is more than 2 above repetitions (3)",
        ),
        (
            STUDY,
            {"target_ci_pct": 5, "repetitions": 1, "max_repetitions": 4},
            "has 2 adaptive round(s) per target",
        ),
        (STUDY, {"target_ci_pct": 5, "max_repetitions": 2}, "max_repetitions (2) is below repetitions (3)"),
        (STUDY, {"max_repetitions": 4}, "max_repetitions 4 needs a target_ci_pct"),
        (STUDY, {"target_ci_pct": 0}, "target_ci_pct must be a number above 0 and below 100"),
        (STUDY, {"target_ci_pct": "5"}, "target_ci_pct must be a number"),
        (STUDY, {"target_ci_pct": 5, "max_repetitions": 4.5}, "max_repetitions must be a positive integer"),
        (
            "hdfs_interconnects",
            {"target_ci_pct": 5},
            "declares no max_repetitions, so its DAG has no adaptive rounds",
        ),
    ],
)
def test_a_trigger_the_dag_cannot_run_is_refused_before_anything_runs(
    study: str, conf: dict[str, Any], message: str
) -> None:
    base = BASE if study == STUDY else {"ladder": "tiny"}
    with pytest.raises(CampaignConfError) as error:
        check_conf(load_spec(study), {**base, **conf})
    assert message in str(error.value)


# -- a real lab campaign, replayed -------------------------------------------------------------

DATA = Path(__file__).resolve().parents[1] / "data" / "adaptive"


def test_the_recorded_lab_campaign_replays_to_the_decisions_it_made(tmp_path: Path) -> None:
    """`benchcamp run hibench_dse --ladder tiny --workloads wordcount,hive_aggregation --repetitions 2
    --target-ci-pct 5 --max-repetitions 4` on the lab (2026-11-25, README "Adaptive repetitions"):
    its records and the round files its DAG archived. Replayed from the records alone, the rounds
    decide exactly what the campaign decided: all six cells get a 3rd repetition, the two larger
    WordCount cells reach 5 % at n = 3 and the four others get a 4th and stop at the maximum."""
    from benchcamp.core.records import read_jsonl

    records = read_jsonl((DATA / "adaptive_example_records.jsonl").read_text(), "recorded")
    by_rep: dict[tuple[str, int], list[ResultRecord]] = {}
    for item in records:
        by_rep.setdefault((cell_key(item.workload, item.params), item.repetition), []).append(item)
    for (key, repetition), items in by_rep.items():
        archive.save_records(
            archive.repetition_dir(STUDY, "adaptive_example", key, repetition, tmp_path), items
        )
    planned = [
        {
            "study": STUDY,
            "campaign": "adaptive_example",
            "environment": ENV,
            "workload": item.workload,
            "params": item.params,
            "repetition": item.repetition,
            "ladder": "tiny",
        }  # fmt: skip
        for item in records
        if item.metric == "duration_s" and item.repetition <= 2
    ]
    assert len(planned) == 6 * 2 + 3  # and the Hive cells' warm-ups, which no round counts

    def recorded(round_number: int) -> dict[str, Any]:
        return dict(json.loads((DATA / f"adaptive_example_round{round_number}.json").read_text()))

    def same(round_number: int, added: list[dict[str, Any]]) -> None:
        """This replay's round file says what the campaign's said (cells in any order)."""
        wanted = recorded(round_number)
        folder = adaptive.adaptive_dir(STUDY, "adaptive_example", ENV, tmp_path)
        mine = json.loads((folder / f"round{round_number}.json").read_text())

        def decided(found: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
            return {d["cell_key"]: (d["repetitions"], d["ok_n"], d["reason"]) for d in found["decisions"]}

        assert decided(mine) == decided(wanted)
        then = {d["cell_key"]: d["half_width_pct"] for d in wanted["decisions"]}
        for got in mine["decisions"]:
            # recorded with scipy 1.17; Otava pins scipy 1.16, whose t quantiles differ by ~2e-11
            assert got["half_width_pct"] == pytest.approx(then[got["cell_key"]], rel=1e-9)

        def units(found: list[dict[str, Any]]) -> set[tuple[str, int]]:
            return {(cell_key(u["workload"], u["params"]), u["repetition"]) for u in found}

        assert units(added) == units(wanted["added_units"])

    same(1, adaptive.run_round(planned, 1, False, 5.0, 4, None, 2, root=tmp_path))
    same(2, adaptive.run_round(planned, 2, False, 5.0, 4, None, 2, root=tmp_path))
    adaptive.finish({ENV: planned}, None, root=tmp_path)
    same(3, [])
    stops = {stop["cell_key"]: (stop["reason"], stop["repetitions"], round(stop["half_width_pct"], 2)) for stop in adaptive.stops(STUDY, "adaptive_example", tmp_path)}  # fmt: skip
    assert stops == {
        "wordcount|data_size_gb=0.012|maps=4|reduces=2": ("max_repetitions", 4, 5.70),
        "wordcount|data_size_gb=0.017|maps=4|reduces=2": ("target_reached", 3, 3.84),
        "wordcount|data_size_gb=0.022|maps=4|reduces=2": ("target_reached", 3, 3.94),
        "hive_aggregation|data_size_gb=0.012": ("max_repetitions", 4, 59.16),
        "hive_aggregation|data_size_gb=0.017": ("max_repetitions", 4, 68.44),
        "hive_aggregation|data_size_gb=0.022": ("max_repetitions", 4, 46.39),
    }
    # the smallest WordCount cell by the printed table's t(0.975, 3) = 3.182: 5.70 % of its mean
    smallest = sorted(
        (item.repetition, item.value)
        for item in records
        if item.metric == "duration_s"
        and item.params["data_size_gb"] == 0.012
        and item.workload == "wordcount"
    )
    values = [value for repetition, value in smallest if repetition >= 1]
    mean = sum(values) / 4
    sigma = math.sqrt(sum((value - mean) ** 2 for value in values) / 3)
    assert 3.182 * sigma / 2 / mean * 100 == pytest.approx(5.70, abs=0.01)
