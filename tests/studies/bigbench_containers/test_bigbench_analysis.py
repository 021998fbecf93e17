"""The BigBench analysis: synthetic records through the real importer, the one dbt build, the marts.

Every number here is synthetic (no published BigBench figure is known to the project): a lab
campaign with both lab environments and three runs (run 2 invalid on local_lab: the power test
lacks q30 and q07 failed in stream 2), the published-results template filled with made-up phase
figures for bare_metal and container at 50 nodes, and a run given only as T_PT and Qpm. The
marts' figures are checked against the study's formulas computed here by hand:
T_PT = M × geomean(power times), BBQpm@SF = SF·60·M / (0.1·T_load + sqrt(T_PT·T_throughput/S)).
"""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.spec import load_spec
from benchcamp.core.study import study_plugin
from benchcamp.ops.cli import main
from benchcamp.pipeline.transform import project_dir
from benchcamp.presentation import report
from benchcamp.studies.bigbench_containers.plugin import ratio_points
from helpers.bigbench import LAB, LAB_RUNS, QUERIES, STUDY, M, S, lab_records, power_time, record

FOLDER = Path(__file__).resolve().parents[3] / "include" / "benchcamp" / "studies" / STUDY
# the published template's runs, synthetic: (T_load, T_PT, T_throughput, published Qpm)
PUBLISHED = {
    ("bare_metal", 1): (3000.0, 9000.0, 20000.0, 350.0),
    ("bare_metal", 2): (3100.0, 9100.0, 20100.0, 345.0),
    ("bare_metal", 3): (3050.0, 8900.0, 19900.0, 352.0),
    ("container", 1): (2900.0, 8800.0, 19500.0, 360.0),
    ("container", 2): (3000.0, 9000.0, 19800.0, 355.0),
    ("container", 3): (2950.0, 8950.0, 20000.0, 356.0),
}


def qpm(sf: float, load: float, t_pt: float, throughput: float, m: int = M, s: int = S) -> float:
    return sf * 60 * m / (0.1 * load + math.sqrt(t_pt * throughput / s))


def t_pt(times: list[float]) -> float:
    return M * math.exp(sum(math.log(t) for t in times) / len(times))


def t_pt_only_records() -> list[dict[str, Any]]:
    """A published run given only as T_PT and Qpm (no load, no throughput phase)."""
    size = {"cluster_nodes": 20, "scale_factor_gb": 10000}
    return [
        record("pub_tpt", "bare_metal", "bigbench_power", {**size, "query": "all"}, 1, "t_pt_s", 7000.0),
        record("pub_tpt", "bare_metal", "bigbench_throughput", {**size, "query": "all", "stream": "all"}, 1,
               "bbqpm_published", 300.0, unit="BBQpm"),
    ]  # fmt: skip


def filled_template() -> str:
    """published/template.csv with its empty values filled from PUBLISHED (made-up numbers)."""
    rows = list(csv.DictReader(io.StringIO((FOLDER / "published" / "template.csv").read_text())))
    column = {"bigbench_load": 0, "bigbench_power": 1}
    for row in rows:
        if row["value"]:
            continue
        figures = PUBLISHED[(row["environment"], int(row["repetition"]))]
        if row["metric"] == "bbqpm_published":
            index = 3
        elif row["workload"] == "bigbench_throughput":
            index = 2
        else:
            index = column[row["workload"]]
        row["value"] = str(figures[index])
        row["finished_at"] = "2016-06-01T00:00:00+00:00"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _rows(warehouse: Path, sql: str) -> list[dict[str, Any]]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _import(path: Path, target: Path) -> tuple[int, list[str]]:
    """`benchcamp import` as a user runs it: its exit code and the expectations it says failed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["import", str(path), "--warehouse", str(target), "--strict-environment"])
    return code, [line for line in out.getvalue().splitlines() if line.startswith("FAILED ")]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("bigbench")
    target = tmp / "warehouse.duckdb"
    published = tmp / "published.csv"
    published.write_text(filled_template())
    code, failed = _import(published, target)
    # A published T_PT (metric t_pt_s) is its cell's only metric: the suite counts and gates the
    # cell's runs by it, so the filled template passes every expectation.
    assert code == 0 and not failed, failed
    lab = tmp / "lab.jsonl"
    lab.write_text("".join(json.dumps(row) + "\n" for row in lab_records() + t_pt_only_records()))
    code, failed = _import(lab, target)
    assert code == ExitCode.VALIDATION_FAILED
    # the failed stream query is a failed repetition of its cell: loaded, and the suite says so
    assert any(
        "bigbench_throughput|cluster_nodes=1|query=q07|scale_factor_gb=0.01|stream=2" in line
        for line in failed
    )
    return target


def qpm_row(warehouse: Path, campaign: str, environment: str, repetition: int) -> dict[str, Any]:
    (row,) = _rows(
        warehouse,
        f"select * from bigbench_qpm where campaign = '{campaign}' and environment = '{environment}' "
        f"and repetition = {repetition}",
    )
    return row


def lab_figures(env: str, rep: int) -> tuple[float, float, float, float]:
    load, scale, throughput = LAB_RUNS[(env, rep)]
    power = t_pt([power_time(query, scale) for query in QUERIES])
    return load, power, throughput, qpm(LAB["scale_factor_gb"], load, power, throughput)


def test_a_valid_lab_run_gets_bbqpm_by_the_formula(warehouse: Path) -> None:
    row = qpm_row(warehouse, "lab1", "local_lab", 1)
    load, power, throughput, expected = lab_figures("local_lab", 1)
    assert (row["valid"], row["invalid_reason"], row["streams"], row["queries"]) == (True, None, S, M)
    assert (row["load_s"], row["throughput_s"], row["t_pt_source"]) == (load, throughput, "queries")
    assert row["t_pt_s"] == pytest.approx(power, rel=1e-12)
    assert row["bbqpm"] == pytest.approx(expected, rel=1e-12)
    assert row["bbqpm_published"] is None and row["t_pt_mismatch"] is False


def test_an_invalid_run_keeps_its_times_and_says_why(warehouse: Path) -> None:
    row = qpm_row(warehouse, "lab1", "local_lab", 2)
    assert row["valid"] is False and row["bbqpm"] is None
    assert row["invalid_reason"] == "power test has 29 of 30 queries; q07 failed in stream 2"
    load, scale, throughput = LAB_RUNS[("local_lab", 2)]
    assert (row["load_s"], row["throughput_s"], row["power_queries_ok"]) == (load, throughput, 29)
    # T_PT from the 29 timed queries, still × M: a time kept, not a metric
    assert row["t_pt_s"] == pytest.approx(t_pt([power_time(q, scale) for q in QUERIES[:-1]]), rel=1e-12)


def test_the_comparison_signs_and_the_mean_over_comparable_runs(warehouse: Path) -> None:
    rows = {
        row["run"]: row
        for row in _rows(warehouse, "select * from bigbench_comparison where campaign = 'lab1'")
    }
    assert set(rows) == {"1", "2", "3", "mean"}
    gains = {}
    for run in ("1", "3"):
        row = rows[run]
        b_load, b_power, b_thr, b_qpm = lab_figures("local_lab", int(run))
        o_load, o_power, o_thr, o_qpm = lab_figures("lab_container", int(run))
        assert (row["environment"], row["baseline_environment"]) == ("lab_container", "local_lab")
        expected = {
            "load_gain_pct": (b_load - o_load) / b_load * 100,
            "power_gain_pct": (b_power - o_power) / b_power * 100,
            "throughput_gain_pct": (b_thr - o_thr) / b_thr * 100,
            "qpm_gain_pct": (o_qpm - b_qpm) / b_qpm * 100,
            "load_ratio_baseline_over_other": b_load / o_load,
            "power_ratio_baseline_over_other": b_power / o_power,
            "qpm_ratio_other_over_baseline": o_qpm / b_qpm,
        }
        for column, value in expected.items():
            assert row[column] == pytest.approx(value, rel=1e-9), (run, column)
        gains[run] = expected
    # run 1: the container loaded faster (+) but its power test was slower (−)
    assert rows["1"]["load_gain_pct"] > 0 > rows["1"]["power_gain_pct"]
    assert rows["1"]["throughput_gain_pct"] < 0 and rows["1"]["load_ratio_baseline_over_other"] > 1
    # run 3: faster everywhere, so more Qpm: ratios above 1.0 are the container's gains
    assert rows["3"]["qpm_gain_pct"] > 0 and rows["3"]["qpm_ratio_other_over_baseline"] > 1
    # run 2 failed on the baseline: listed, without Qpm, and out of the mean
    assert rows["2"]["comparable"] is False and rows["2"]["qpm_gain_pct"] is None
    mean = rows["mean"]
    assert mean["n_runs"] == 2 and mean["repetition"] is None
    for column in gains["1"]:
        assert mean[column] == pytest.approx((gains["1"][column] + gains["3"][column]) / 2, rel=1e-9)


def test_per_query_deltas_and_weights(warehouse: Path) -> None:
    rows = _rows(
        warehouse, "select * from bigbench_queries where campaign = 'lab1' order by environment, query"
    )
    container = [row for row in rows if row["environment"] == "lab_container"]
    assert [row["query"] for row in container] == QUERIES
    q01 = container[0]
    # mean over the three runs of each side
    mine = sum(power_time("q01", LAB_RUNS[("lab_container", r)][1]) for r in (1, 2, 3)) / 3
    base = sum(power_time("q01", LAB_RUNS[("local_lab", r)][1]) for r in (1, 2, 3)) / 3
    assert (q01["power_s"], q01["baseline_power_s"]) == (pytest.approx(mine), pytest.approx(base))
    assert q01["gain_pct"] == pytest.approx((base - mine) / base * 100)
    logs = [math.log(row["power_s"]) for row in container]
    assert q01["log_share_pct"] == pytest.approx(logs[0] / sum(logs) * 100)
    assert sum(row["log_share_pct"] for row in container) == pytest.approx(100)
    assert math.prod(row["t_pt_factor"] for row in container) == pytest.approx(1)
    # q30 ran in 2 of local_lab's 3 runs: its mean is over those
    q30 = next(row for row in rows if row["environment"] == "local_lab" and row["query"] == "q30")
    assert q30["n"] == 2 and q30["baseline_environment"] is None


def test_published_phases_import_and_compute_qpm_and_its_delta(warehouse: Path) -> None:
    for (env, rep), (load, power, throughput, published) in PUBLISHED.items():
        row = qpm_row(warehouse, "published_study2", env, rep)
        expected = qpm(10000, load, power, throughput)
        assert (row["valid"], row["t_pt_source"], row["published_phases"]) == (True, "imported", True)
        assert row["bbqpm"] == pytest.approx(expected, rel=1e-12)
        assert row["published_delta_pct"] == pytest.approx((expected - published) / published * 100)
    mean = _rows(
        warehouse,
        "select * from bigbench_comparison where campaign = 'published_study2' and run = 'mean'",
    )
    (row,) = mean
    assert (row["environment"], row["baseline_environment"], row["cluster_nodes"]) == (
        "container",
        "bare_metal",
        50,
    )
    per_run = [
        (qpm(10000, *PUBLISHED[("container", r)][:3]) - qpm(10000, *PUBLISHED[("bare_metal", r)][:3]))
        / qpm(10000, *PUBLISHED[("bare_metal", r)][:3]) * 100
        for r in (1, 2, 3)
    ]  # fmt: skip
    assert row["qpm_gain_pct"] == pytest.approx(sum(per_run) / 3) and row["n_runs"] == 3


def test_a_run_given_only_as_t_pt_and_qpm_gets_no_qpm_and_the_reason(warehouse: Path) -> None:
    row = qpm_row(warehouse, "pub_tpt", "bare_metal", 1)
    assert (row["t_pt_s"], row["t_pt_source"], row["bbqpm_published"]) == (7000.0, "imported", 300.0)
    assert row["bbqpm"] is None and row["valid"] is False
    assert row["invalid_reason"] == "no load phase; no throughput phase"


def test_the_report_shows_the_tables_the_verdicts_and_the_label(warehouse: Path) -> None:
    tables = report.read_tables(warehouse, STUDY, "lab1")
    text = report.render(tables, "table", STUDY)
    assert text.count("derived from BigBench; not comparable with TPCx-BB results") >= 4
    assert "BigBench phases per run, 1 nodes, SF 0.01" in text
    assert "lab_container vs local_lab (baseline), 1 nodes, SF 0.01: % gain" in text
    assert "BigBench validity: 5 of 6 run(s) valid" in text
    assert "- local_lab, 1 nodes, SF 0.01, run 2: invalid: power test has 29 of 30 queries" in text
    assert ": valid" not in text  # the list names the invalid runs; the phases table marks them all
    assert "Power test per query on lab_container" in text
    (figure,) = study_plugin(STUDY).figures[0](tables)
    assert figure.id == "bigbench-ratios" and "> 1.0 is better" in figure.title
    points = ratio_points(tables["bigbench_comparison"])
    assert {point["measure"] for point in points} == {"Qpm", "power", "throughput", "load"}
    assert all(point["cluster_nodes"] == 1 for point in points)


def test_the_marts_baselines_are_the_specs() -> None:
    """The marts pair bare_metal (the spec's baseline) with container, local_lab with lab_container."""
    spec = load_spec(STUDY)
    assert [env.name for env in spec.environments if env.baseline] == ["bare_metal"]
    assert {"bare_metal", "container", "local_lab", "lab_container"} <= {
        env.name for env in spec.environments
    }
    # the pairs come from the spec's interleave groups (the dbt model int_environment_pairs)
    path = project_dir() / "models" / "intermediate" / "int_environment_pairs.py"
    module_spec = importlib.util.spec_from_file_location("int_environment_pairs", path)
    assert module_spec is not None and module_spec.loader is not None
    model = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(model)
    assert [pair for pair in model.pairs() if pair[0] == STUDY] == [
        (STUDY, "bare_metal", "container"),
        (STUDY, "local_lab", "lab_container"),
    ]
    for mart in ("bigbench_comparison", "bigbench_queries"):
        sql = (FOLDER / "marts" / f"{mart}.sql").read_text()
        assert "ref('int_environment_pairs')" in sql
        code = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))
        assert not re.search(r"'(bare_metal|container|local_lab|lab_container)'", code)


def test_the_published_template_holds_no_published_figure() -> None:
    """Only the study's settings (S = 2, M = 30) are filled: the times and Qpm are the user's to give."""
    rows = list(csv.DictReader(io.StringIO((FOLDER / "published" / "template.csv").read_text())))
    filled = {(row["metric"], row["value"]) for row in rows if row["value"]}
    assert filled == {("streams", "2"), ("queries", "30")}
    assert {row["metric"] for row in rows if not row["value"]} == {"duration_s", "t_pt_s", "bbqpm_published"}


def test_an_unfilled_template_is_refused_and_loads_nothing(tmp_path: Path) -> None:
    target = tmp_path / "warehouse.duckdb"
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        code, failed = _import(FOLDER / "published" / "template.csv", target)
    assert code == ExitCode.BAD_INPUT and not failed and not target.exists()
    assert "template.csv, line 2: field 'value': empty" in errors.getvalue()


def _claims_model() -> Any:
    import importlib.util

    from benchcamp.pipeline.transform import project_dir

    path = project_dir() / "models" / "intermediate" / "int_claims_compared.py"
    spec = importlib.util.spec_from_file_location("int_claims_compared", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_headline_claim_scores_the_published_qpm_of_the_container_against_bare_metal(
    warehouse: Path,
) -> None:
    """The environments claim kind on the imported template: each side's 3 published Qpm (made-up
    figures, PUBLISHED), container against bare_metal, within 1 ± 5 %."""
    rows = _rows(
        warehouse,
        "select * from int_claims_compared where campaign = 'published_study2' "
        "and claim_id = 'published_container_qpm_within_5pct_of_bare_metal'",
    )
    (row,) = rows
    assert (row["environment"], row["comparison"], row["n_per_side"]) == (
        "container",
        "bigbench_throughput (cluster_nodes=50, scale_factor_gb=10000): container vs bare_metal",
        "3/3",
    )
    container = [PUBLISHED[("container", rep)][3] for rep in (1, 2, 3)]
    bare = [PUBLISHED[("bare_metal", rep)][3] for rep in (1, 2, 3)]
    assert row["estimate"] == pytest.approx((sum(container) / 3) / (sum(bare) / 3), rel=1e-12)  # 357 / 349
    model = _claims_model()

    def stats(values: list[float]) -> tuple[float, float, int, int]:
        mean = sum(values) / len(values)
        return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)), len(values), 1

    interval = model.log_ratio_interval([stats(container), (*stats(bare)[:3], -1)])
    assert (row["ci_low"], row["ci_high"]) == (
        pytest.approx(interval["low"]),
        pytest.approx(interval["high"]),
    )
    assert 0.95 < row["ci_low"] < row["ci_high"] < 1.05 and row["verdict"] == "reproduced"
    # our own runs' claim has nothing to compare in an import without bbqpm records
    assert not _rows(
        warehouse,
        "select * from int_claims_compared where claim_id = 'container_qpm_within_5pct_of_bare_metal'",
    )


def test_the_environments_kind_takes_the_first_baseline_the_campaign_ran_on() -> None:
    """A lab campaign (local_lab and lab_container, the bbqpm records of 3 valid runs each, from
    LAB_RUNS by the formula): the baseline is local_lab, bare_metal being absent."""
    model = _claims_model()
    claim = next(c for c in load_claims_of_study() if c["id"] == "container_qpm_within_5pct_of_bare_metal")
    assert model.baseline_of(claim, {"local_lab", "lab_container"}) == "local_lab"
    assert model.baseline_of(claim, {"bare_metal", "local_lab"}) == "bare_metal"
    assert model.baseline_of(claim, {"container"}) is None
    params = {**LAB, "query": "all", "stream": "all"}

    def cell(environment: str) -> dict[str, Any]:
        values = [lab_figures(environment, rep)[3] for rep in (1, 2, 3)]
        mean = sum(values) / 3
        stddev = math.sqrt(sum((v - mean) ** 2 for v in values) / 2)
        return {"environment": environment, "workload": "bigbench_throughput", "params": params,
                "metric": "bbqpm", "n": 3, "mean": mean, "stddev": stddev}  # fmt: skip

    other = {**cell("local_lab"), "workload": "bigbench_load", "params": LAB}  # not a selected cell
    (row,) = model.score_claim(claim, [cell("lab_container")], ("local_lab", [cell("local_lab"), other]))
    assert (
        row["comparison"]
        == "bigbench_throughput (cluster_nodes=1, scale_factor_gb=0.01): lab_container vs local_lab"
    )
    assert row["estimate"] == pytest.approx(
        cell("lab_container")["mean"] / cell("local_lab")["mean"], rel=1e-12
    )
    assert model.score_claim(claim, [cell("lab_container")], None) == []


def load_claims_of_study() -> list[dict[str, Any]]:
    from benchcamp.core.claims import load_claims

    return [json.loads(claim.model_dump_json()) for claim in load_claims(STUDY)]
