"""The answer block every report starts with, on recorded campaigns through real dbt builds.

HiBench: the published DSE tables (`published_dse_2016`: WordCount reproduced, Hive inconclusive)
and the lab's adaptive campaign of 2026-11-25 (`adaptive_example`, its records and round files:
WordCount contradicted, Hive open, four cells short of their 5 % target at the cap of 4). YCSB:
the lab's recorded execute steps of both stores (one repetition a cell: nothing judged) and the
marts' golden records (three a side, placed on t-table lines). Each number of repetitions is
checked against an independent computation: scipy.stats.power's simulation of the very test, and
for Welch's test the textbook power of the pooled two-sample t (Cohen's d, ν = 2n − 2).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from benchcamp.core.claims import load_claims
from benchcamp.core.records import ResultRecord, read_jsonl
from benchcamp.pipeline import adaptive, power
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.transform import build_marts
from benchcamp.presentation import report
from benchcamp.presentation.answer_section import TITLE, answer_blocks
from benchcamp.presentation.blocks import Block
from helpers.golden import CAMPAIGN as PUBLISHED
from helpers.golden import published_records
from helpers.ycsb import SHIFT, SIGMA, T_P10, recorded_steps
from helpers.ycsb import records as golden_ycsb
from scipy import stats

HIBENCH, YCSB = "hibench_dse", "ycsb_hbase_cassandra"
ADAPTIVE = "adaptive_example"
DATA = Path(__file__).resolve().parents[1] / "data" / "adaptive"
ORDER = {
    "scorecard": "environment, claim_position",
    "repetition_adequacy": "environment, workload, cell_key",
    "ycsb_comparison": "environment, workload, operationcount, target_ops, threads, op_type",
}


def _tables(warehouse: Path, study: str, campaign: str) -> dict[str, list[dict[str, Any]]]:
    """The marts the answer block reads, for one campaign (what `report.read_tables` gives)."""
    out = {}
    with duckdb.connect(str(warehouse), read_only=True) as con:
        built = {
            name for (name,) in con.execute("select table_name from information_schema.tables").fetchall()
        }
        for mart, order in ORDER.items():
            if mart in built:
                cursor = con.execute(
                    f"select * from {mart} where study = ? and campaign = ? order by {order}",
                    [study, campaign],
                )
                names = [column[0] for column in cursor.description]
                out[mart] = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return out


@pytest.fixture(scope="module")
def hibench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published tables and the recorded adaptive campaign with its round files' stops."""
    tmp = tmp_path_factory.mktemp("answer_hibench")
    folder = adaptive.adaptive_dir(HIBENCH, ADAPTIVE, "local_lab", tmp / "results")
    folder.mkdir(parents=True)
    for round_number in (1, 2, 3):
        shutil.copy(DATA / f"adaptive_example_round{round_number}.json", folder / f"round{round_number}.json")
    target = tmp / "warehouse.duckdb"
    records = read_jsonl((DATA / "adaptive_example_records.jsonl").read_text(), "recorded")
    wh.load_records(target, records + [ResultRecord.model_validate(row) for row in published_records()])
    wh.upsert_study_claims(target, HIBENCH, load_claims(HIBENCH))
    wh.replace_adaptive_stops(target, HIBENCH, ADAPTIVE, adaptive.stops(HIBENCH, ADAPTIVE, tmp / "results"))
    build_marts(target, select="+scorecard +repetition_adequacy", unit_tests=False)
    return target


@pytest.fixture(scope="module")
def ycsb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("answer_ycsb") / "warehouse.duckdb"
    wh.load_records(target, recorded_steps() + golden_ycsb())
    wh.upsert_study_claims(target, YCSB, load_claims(YCSB))
    build_marts(target, select="+ycsb_comparison +scorecard", unit_tests=False)
    return target


def sentences(tables: dict[str, list[dict[str, Any]]], study: str) -> list[str]:
    (block,) = answer_blocks(tables, study)
    assert block.title == TITLE and block.kind == "answer"
    return list(block.items)


def _power(test: Any, rvs: tuple[Any, Any], n: int, significance: float) -> float:
    """scipy.stats.power's simulated power of `test` with n repetitions a side (seeded)."""
    return float(stats.power(test, rvs, (n, n), significance=significance, n_resamples=40_000).power)


def _log_ratio_band_test(scale: float, low: float, high: float) -> Any:
    """The scorecard's reproduction, written out: 1 (no) unless the 95 % CI of the log ratio of
    the two samples' means over `scale` (delta method, Welch–Satterthwaite t) lies in (low, high)."""

    def test(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        n_x, n_y = x.shape[axis], y.shape[axis]
        m_x, m_y = x.mean(axis=axis), y.mean(axis=axis)
        v_x = x.var(axis=axis, ddof=1) / (n_x * m_x**2)
        v_y = y.var(axis=axis, ddof=1) / (n_y * m_y**2)
        dof = (v_x + v_y) ** 2 / (v_x**2 / (n_x - 1) + v_y**2 / (n_y - 1))
        half = stats.t.ppf(0.975, dof) * np.sqrt(v_x + v_y)
        centre = np.log(m_x / m_y / scale)
        return np.where((centre - half > math.log(low)) & (centre + half < math.log(high)), 0.0, 1.0)

    return test


# -- HiBench: the published tables -------------------------------------------------------------


def test_a_reproduced_claim_reads_with_its_numbers(hibench: Path) -> None:
    said = sentences(_tables(hibench, HIBENCH, PUBLISHED), HIBENCH)
    assert said[0] == (
        'On dse_cluster, wordcount_scales_linearly ("WordCount and Hive scale about linearly", read as: '
        "ratio within 1 ± 5 %) is reproduced: both comparisons lie inside at 95 %; the weakest, "
        "wordcount (maps=4, reduces=2): data_size_gb 340 vs 240, is 1.004 (95 % CI 0.971–1.038, n 3/3, "
        "p 0.027 that it lies inside)."
    )


def test_an_inconclusive_claim_gives_the_repetitions_that_would_decide_it(hibench: Path) -> None:
    """Hive's join at 440 GB is 0.971 of linear with an interval reaching below 0.95: 7 repetitions
    per cell would put it inside the band 4 times in 5, if 0.971 and the published σ are the truth.
    The simulation of the scorecard's own test on normal samples with the published means and σ
    (Table 17: 2646.29 ± 3.01 s at 440 GB, 1486.23 ± 25.56 s at 240 GB) agrees: power below 0.8
    with 6 a cell, above it with 7."""
    tables = _tables(hibench, HIBENCH, PUBLISHED)
    said = sentences(tables, HIBENCH)
    assert said[1] == (
        'On dse_cluster, hive_scales_linearly ("WordCount and Hive scale about linearly", read as: '
        "ratio within 1 ± 5 %) is inconclusive: 3 of 4 comparisons lie inside at 95 %, but hive_join: "
        "data_size_gb 440 vs 240 is 0.971 (95 % CI 0.931–1.013, n 3/3; p 0.156 for inside, 1.000 for "
        "outside): not decided; about 7 repetitions per cell would decide it at this noise, beyond the "
        "adaptive cap of 5 (max_repetitions): a campaign run with 7 repetitions a cell could."
    )
    (hive,) = [row for row in tables["scorecard"] if row["claim_id"] == "hive_scales_linearly"]
    assert (hive["repetitions_to_decide"], hive["decide_edge"], hive["decide_route"]) == (
        7,
        0.95,
        "reproduce",
    )
    rng = np.random.default_rng(20261125)
    rvs = (lambda size: rng.normal(2646.29, 3.01, size), lambda size: rng.normal(1486.23, 25.56, size))
    test = _log_ratio_band_test(440 / 240, 0.95, 1.05)
    assert _power(test, rvs, 6, 0.5) < 0.8 < _power(test, rvs, 7, 0.5)


def test_claims_not_measured_say_what_would_judge_them(hibench: Path) -> None:
    said = sentences(_tables(hibench, HIBENCH, PUBLISHED), HIBENCH)
    assert said[2:] == [
        "On dse_cluster, 3 claims are not measured, the campaign having run none of their cells: "
        "dfsio_above_linear_projection (dfsio_read and dfsio_write at two or more levels of data_size_gb), "
        "dfsio_write_slower_than_read (dfsio_write and dfsio_read with the same other axes) and "
        "dfsio_write_read_gap_narrows (dfsio_write and dfsio_read with the same other axes at two or "
        "more levels of data_size_gb); those cells, at least 2 repetitions each, would judge them."
    ]


# -- HiBench: the recorded lab campaign with adaptive repetitions ---------------------------------


def test_the_recorded_lab_campaign_contradicts_one_claim_and_cannot_reach_its_target(hibench: Path) -> None:
    """WordCount scaled far better than linear on the lab (0.69 of the projection at 0.022 GB);
    Hive's aggregation, timed under a second, lies outside the band too but with a CI of 0.36 to
    1.45: 22 repetitions a cell would likely contradict the claim (its 0.022 GB comparison at
    α/2 over the claim's 2 comparisons). The target of 5 % was out of reach at the cap of 4 for
    four cells; three of them need more than any campaign may run."""
    tables = _tables(hibench, HIBENCH, ADAPTIVE)
    said = sentences(tables, HIBENCH)
    assert said[0] == (
        'On local_lab, wordcount_scales_linearly ("WordCount and Hive scale about linearly", read as: '
        "ratio within 1 ± 5 %) is contradicted: wordcount (maps=4, reduces=2): data_size_gb 0.022 vs "
        "0.012 is 0.690 (95 % CI 0.654–0.729, n 3/4, p < 0.001 that it lies outside, Benjamini–Hochberg "
        "over 2 comparisons), outside the claimed region."
    )
    assert said[1] == (
        'On local_lab, hive_scales_linearly ("WordCount and Hive scale about linearly", read as: ratio '
        "within 1 ± 5 %) is inconclusive: none of its 2 comparisons is decided; hive_aggregation: "
        "data_size_gb 0.017 vs 0.012 is 0.721 (95 % CI 0.359–1.451, n 4/4; p 1.000 for inside, 0.371 "
        "for outside): not decided; about 22 repetitions per cell would decide it at this noise, beyond "
        "the adaptive cap of 5 (max_repetitions): a campaign run with 22 repetitions a cell could "
        "(hive_aggregation: data_size_gb 0.022 vs 0.012 lies outside the claimed region: that many "
        "would likely contradict it)."
    )
    assert said[3] == (
        "On local_lab, 4 of 6 cells stopped at the cap of 4 repetitions short of the target (the 95 % CI "
        "of each cell's mean within 5 % of it): hive_aggregation|data_size_gb=0.012 at 59.16 % needs "
        "about 215; hive_aggregation|data_size_gb=0.017 at 68.44 % needs about 287; "
        "hive_aggregation|data_size_gb=0.022 at 46.39 % needs about 134; "
        "wordcount|data_size_gb=0.012|maps=4|reduces=2 at 5.70 % needs about 5; the cap cannot reach the "
        "target at this noise; 3 of them need more than the 50 repetitions a campaign may run."
    )
    assert len(said) == 4  # and the three DFSIO claims not measured, in one sentence (said[2])


def test_the_target_needs_the_smallest_n_whose_t_interval_is_within_it(hibench: Path) -> None:
    """repetitions_for_target against a plain search over scipy.stats.t at each cell's σ."""
    for row in _tables(hibench, HIBENCH, ADAPTIVE)["repetition_adequacy"]:
        n = 2
        while (
            stats.t.ppf(0.975, n - 1) * row["stddev"] / math.sqrt(n)
            > row["target_ci_pct"] / 100 * row["mean"]
        ):
            n += 1
        assert row["repetitions_for_target"] == n, row["cell_key"]


def test_the_block_comes_first_in_the_text_report_and_keeps_every_other_line(hibench: Path) -> None:
    tables = _tables(hibench, HIBENCH, PUBLISHED)
    text = report.render_table(tables, HIBENCH).splitlines()
    assert text[:3] == [f"Study {HIBENCH}, campaign {PUBLISHED}", "", TITLE]
    assert text[3].startswith("- On dse_cluster, wordcount_scales_linearly")
    assert text[6].startswith("Claims: the scorecard's test") and text[7] == ""
    rest = [
        part
        for part in report.study_sections(tables, HIBENCH)
        if not isinstance(part, Block) or part.kind != "answer"
    ]
    without = "\n".join(line for part in rest for line in (part.lines() if isinstance(part, Block) else part))
    assert text[7:] == without.splitlines()  # the report as it was, after the block


# -- YCSB ---------------------------------------------------------------------------------------


def test_recorded_single_repetitions_are_not_judged_and_say_what_would(ycsb: Path) -> None:
    """The lab's steps, one repetition a store: each headline comparison with both values and n,
    and no verdict (no σ). Per workload its heaviest condition: ycsb_a's two clients at 500 ops/s
    (not its 1,000-operation run), ycsb_c at 1,000 ops/s."""
    not_judged = (
        "n 1/1: not judged; with fewer than 2 repetitions a store no noise is measured: 2 or more each "
        "would measure it and tell how many decide it)."
    )
    assert sentences(_tables(ycsb, YCSB, "recorded_steps"), YCSB) == [
        "On local_lab, ycsb_a at 500 ops/s offered (2 clients, 8 threads): HBase's throughput is 1.20× "
        f"Cassandra's (180 vs 150 ops/s, {not_judged}",
        "On local_lab, ycsb_a at 500 ops/s offered (2 clients, 8 threads): HBase's served rate is 1.07× "
        f"Cassandra's (508 vs 473 ops/s, {not_judged}",
        "On local_lab, ycsb_a at 500 ops/s offered (2 clients, 8 threads): HBase's read average latency is "
        f"0.95× Cassandra's (25.6 vs 26.9 ms, {not_judged}",
        "On local_lab, ycsb_a at 500 ops/s offered (2 clients, 8 threads): HBase's read p99 latency is 0.64× "
        f"Cassandra's (133 vs 209 ms, {not_judged}",
        "On local_lab, ycsb_c at 1,000 ops/s offered (16 threads): HBase's throughput is 1.06× Cassandra's "
        f"(419 vs 394 ops/s, {not_judged}",
        "On local_lab, ycsb_c at 1,000 ops/s offered (16 threads): HBase's read average latency is 0.82× "
        f"Cassandra's (6.94 vs 8.46 ms, {not_judged}",
        "On local_lab, ycsb_c at 1,000 ops/s offered (16 threads): HBase's read p99 latency is 0.75× "
        f"Cassandra's (44.2 vs 58.5 ms, {not_judged}",
        "On local_lab, one claim is not measured, the campaign having run none of its cells: "
        "read_latency_falls_as_load_rises (ycsb_a, ycsb_b, ycsb_c, ycsb_d and ycsb_f at two or more "
        "levels of operationcount); those cells, at least 2 repetitions each, would judge it.",
    ]


def test_an_undecided_store_comparison_gives_the_repetitions_each_store_needs(ycsb: Path) -> None:
    """The golden campaign's read latency: HBase's mean t(0.10, 4) · σ√(2/3) above Cassandra's with
    σ 30 µs a side, Welch's p exactly 0.10. Seven repetitions each would find that difference with
    power 0.8: the textbook power of the two-sample t (Cohen's d = Δ / σ, ν = 2n − 2, noncentrality
    d √(n/2), what statsmodels' TTestIndPower computes) is 0.775 at 6 and 0.848 at 7, and
    scipy.stats.power's simulation of Welch's test agrees."""
    tables = _tables(ycsb, YCSB, "golden")
    said = sentences(tables, YCSB)
    assert said[:-1] == [
        "On local_lab, ycsb_a at 1,000 operations (1 thread): HBase's throughput is 1.11× Cassandra's "
        "(1,113 vs 1,000 ops/s, n 3/3, p 0.010: decided, HBase's is higher).",
        "On local_lab, ycsb_a at 1,000 operations (1 thread): HBase's read average latency is 1.06× "
        "Cassandra's (952 vs 900 µs, n 3/3, p 0.100: not decided; about 7 repetitions each would decide "
        "it at this noise, beyond the adaptive cap of 5 (max_repetitions): a campaign run with 7 "
        "repetitions a cell could).",
        "On local_lab, ycsb_a at 1,000 operations (1 thread): HBase's read p99 latency is 1.00× "
        "Cassandra's (4.00 vs 4.00 ms, n 3/3, p 1.000: not decided; no difference measured, so no "
        "number of repetitions would show one).",
    ]
    (read,) = [row for row in tables["ycsb_comparison"] if row["op_type"] == "read"]
    assert read["avg_latency_repetitions_to_decide"] == 7
    d = T_P10 * SHIFT / SIGMA

    def textbook(n: int) -> float:
        dof, nc = 2 * n - 2, d * math.sqrt(n / 2)
        critical = stats.t.ppf(0.975, dof)
        return float(stats.nct.sf(critical, dof, nc) + stats.nct.cdf(-critical, dof, nc))

    assert textbook(6) < 0.8 <= textbook(7)
    rng = np.random.default_rng(20261123)
    rvs = (
        lambda size: rng.normal(900 + T_P10 * SHIFT, SIGMA, size),
        lambda size: rng.normal(900, SIGMA, size),
    )

    def welch(x: np.ndarray, y: np.ndarray, axis: int = -1) -> Any:
        return stats.ttest_ind(x, y, equal_var=False, axis=axis)

    assert _power(welch, rvs, 6, 0.05) < 0.8 < _power(welch, rvs, 7, 0.05)


def test_the_method_is_named_under_the_sentences(ycsb: Path) -> None:
    (block,) = answer_blocks(_tables(ycsb, YCSB, "golden"), YCSB)
    lines = block.lines()
    assert lines[:2] == ["", TITLE] and lines[2].startswith("- On local_lab")
    assert lines[-1].startswith("HBase vs Cassandra: Welch's t-test, two-sided at α = 0.05")
    assert "power 0.8" in lines[-1] and "noncentral t" in lines[-1]


# -- the power calculation itself ----------------------------------------------------------------


@pytest.mark.parametrize(("d", "n"), [(0.5, 64), (0.8, 26), (1.0, 17)])
def test_welchs_repetitions_match_the_textbook_for_equal_sigmas(d: float, n: int) -> None:
    """Cohen's table for the two-sample t at α = 0.05 two-sided, power 0.8 (medium d = 0.5: 64 a
    group; large d = 0.8: 26): with equal σ Welch–Satterthwaite gives ν = 2n − 2, the same test."""
    assert power.repetitions_two_sided(d, [1.0, 1.0]) == n


def test_the_search_finds_the_smallest_n_a_plain_walk_finds() -> None:
    rng = np.random.default_rng(7)
    for _ in range(60):
        variances = list(rng.uniform(0.001, 0.4, size=2) ** 2)
        distances = list(rng.uniform(0.005, 0.4, size=int(rng.integers(1, 3))))
        found = power.repetitions_all_reject(distances, variances, 0.025)
        n = 2
        while 1 - sum(1 - power.one_sided_power(x, variances, n, 0.025) for x in distances) < 0.8:
            n += 1
        assert found == n
    assert power.repetitions_two_sided(0.0, [1.0, 1.0]) is None  # no difference: never decided
    assert power.repetitions_two_sided(1e-7, [1.0, 1.0]) is None  # beyond a million per group


def test_the_same_throughput_within_the_margin_is_a_verdict_and_its_absence_is_said() -> None:
    """An undecided throughput difference with two one-sided tests behind it: equivalent within
    ±10 % is decided; not shown equivalent says so beside the repetitions that would decide."""
    from benchcamp.studies.ycsb_hbase_cassandra.answer import figure_sentence

    row: dict[str, Any] = {
        "environment": "local_lab", "workload": "ycsb_a", "pair_params": "target_ops=500|threads=16",
        "hbase_throughput_ops_s": 498.0, "cassandra_throughput_ops_s": 500.0, "hbase_n": 4, "cassandra_n": 4,
        "throughput_ratio": 0.996, "throughput_p_value": 0.71, "throughput_verdict": "no significant difference",
        "throughput_repetitions_to_decide": 900, "throughput_equivalence_p_value": 0.0004,
        "throughput_equivalent": True,
    }  # fmt: skip
    head = (
        "On local_lab, ycsb_a at 500 ops/s offered (16 threads): HBase's throughput is 1.00× Cassandra's "
        "(498 vs 500 ops/s, n 4/4, p 0.710: "
    )
    assert figure_sentence(row, "throughput", "throughput", "n", 5) == (
        head + "decided, the same within ±10 % (TOST p < 0.001))."
    )
    row |= {"throughput_equivalence_p_value": 0.21, "throughput_equivalent": False}
    said = figure_sentence(row, "throughput", "throughput", "n", 5)
    assert said.startswith(head + "not decided; ") and said.endswith(
        "; nor the same within ±10 % (TOST p 0.210))."
    ), said


def test_the_served_rate_is_said_beside_ycsbs_throughput_at_an_offered_load() -> None:
    """make run's look on 2026-12-03 at 500 ops/s: YCSB's throughput (1.22×, p 0.070) was not
    decided, its client starts being 1.5 to 3.5 s of each 3.5 to 5.6 s run; the rate the stores
    served over their histogram logs was (HBase kept up, Cassandra fell behind)."""
    from benchcamp.studies.ycsb_hbase_cassandra.answer import answer

    row: dict[str, Any] = {
        "environment": "local_lab", "workload": "ycsb_a", "pair_params": "target_ops=500|threads=16",
        "op_type": "read", "hbase_n": 5, "cassandra_n": 3, "hbase_served_n": 5, "cassandra_served_n": 3,
        "hbase_throughput_ops_s": 252.4, "cassandra_throughput_ops_s": 206.7, "throughput_ratio": 1.221,
        "throughput_p_value": 0.070, "throughput_verdict": "no significant difference",
        "throughput_repetitions_to_decide": 9, "throughput_equivalence_p_value": 0.869,
        "throughput_equivalent": False,
        "hbase_served_throughput_ops_s": 479.8, "cassandra_served_throughput_ops_s": 381.4,
        "served_throughput_ratio": 1.258, "served_throughput_p_value": 0.031,
        "served_throughput_verdict": "HBase higher",
    }  # fmt: skip
    said = answer({"ycsb_comparison": [row]}).sentences
    assert said[1] == (
        "On local_lab, ycsb_a at 500 ops/s offered (16 threads): HBase's served rate is 1.26× "
        "Cassandra's (480 vs 381 ops/s, n 5/3, p 0.031: decided, HBase's is higher)."
    )
    unthrottled = row | {"pair_params": "operationcount=1000|threads=1"}
    assert not any("served rate" in line for line in answer({"ycsb_comparison": [unthrottled]}).sentences)
