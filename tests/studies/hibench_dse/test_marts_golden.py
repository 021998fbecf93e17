"""Golden analysis: the published Time and σ columns reproduce the published σ%, Data Δ, Time Δ.

Each published cell becomes three repetitions m−σ, m, m+σ (their sample σ is exactly σ),
imported with `benchcamp import` (load → GX validation → dbt build) into a fresh warehouse.
The second part loads records directly (as the DAG's load task does) into another
warehouse and builds the marts once: idempotent loads, a re-run repetition, failed
repetitions, environments kept apart, TestDFSIO read/write, and the committed manifest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.records import ResultRecord
from benchcamp.ops.cli import main
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.transform import DbtBuildError, build_marts, stale_manifest_entries
from benchcamp.presentation import report
from helpers.golden import CAMPAIGN, TEMPLATE, published_records
from helpers.results_page import plotted, results_client

# (workload, data GB, processed GB or None, Time s, σ s, σ %, Data Δ %, Time Δ %)
TABLE_9 = [
    ("wordcount", 240, None, 4068.22, 57.18, 1.41, None, None),
    ("wordcount", 340, None, 5785.47, 17.36, 0.30, 41.67, 42.21),
    ("wordcount", 440, None, 7471.23, 34.55, 0.46, 83.33, 83.65),
]
TABLE_17 = [
    ("hive_aggregation", 240, 180.20, 1837.43, 5.52, 0.30, None, None),
    ("hive_aggregation", 340, 278.50, 2699.84, 10.81, 0.40, 41.67, 46.94),
    ("hive_aggregation", 440, 360.40, 3471.84, 20.24, 0.58, 83.33, 88.95),
    ("hive_join", 240, 188.68, 1486.23, 25.56, 1.72, None, None),
    ("hive_join", 340, 291.60, 2106.86, 10.75, 0.51, 41.67, 41.76),
    ("hive_join", 440, 377.35, 2646.29, 3.01, 0.11, 83.33, 78.05),
]


def test_the_template_is_the_published_tables() -> None:
    """Every published cell of Tables 9 and 17 is three repetitions m − σ, m, m + σ (and Hive's processed GB)."""
    rows = published_records()
    for workload, size, processed, mean, sigma, *_ in TABLE_9 + TABLE_17:
        cell = [row for row in rows if row["workload"] == workload and row["params"]["data_size_gb"] == size]  # type: ignore[index]
        durations = [row["value"] for row in cell if row["metric"] == "duration_s"]
        assert durations == [round(mean - sigma, 2), mean, round(mean + sigma, 2)]
        assert [row["value"] for row in cell if row["metric"] == "processed_gb"] == (
            [] if processed is None else [processed] * 3
        )
        expected = {"data_size_gb": size} | ({"maps": 4, "reduces": 2} if workload == "wordcount" else {})
        assert all(row["params"] == expected and row["campaign"] == CAMPAIGN for row in cell)
    assert len(rows) == 3 * 9 + 3 * 6


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("golden")
    source = TEMPLATE  # the published tables as a user imports them
    target = tmp / "warehouse.duckdb"
    assert main(["import", str(source), "--warehouse", str(target)]) == ExitCode.OK
    # Importing the same file again changes nothing.
    with duckdb.connect(str(target), read_only=True) as con:
        before = con.execute("select count(*), sum(value) from raw.results").fetchone()
    assert main(["import", str(source), "--warehouse", str(target)]) == ExitCode.OK
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute("select count(*), sum(value) from raw.results").fetchone() == before
    return target


@pytest.mark.parametrize("row", TABLE_9 + TABLE_17, ids=lambda row: f"{row[0]}-{row[1]}")
def test_published_columns_are_reproduced(warehouse: Path, row: tuple) -> None:  # type: ignore[type-arg]
    workload, size, processed, mean, sigma, sigma_pct, data_delta, time_delta = row
    scaling = report.read_tables(warehouse, "hibench_dse", CAMPAIGN)["scaling"]
    (cell,) = [r for r in scaling if r["workload"] == workload and r["data_size_gb"] == size]
    assert cell["n"] == 3 and cell["n_failed"] == 0
    assert cell["mean_s"] == pytest.approx(mean, abs=0.005)
    assert cell["stddev_s"] == pytest.approx(sigma, abs=0.005)
    assert round(cell["stddev_pct"], 2) == sigma_pct
    if data_delta is None:
        assert cell["data_delta_pct"] is None and cell["time_delta_pct"] is None
    else:
        assert round(cell["data_delta_pct"], 2) == data_delta
        assert round(cell["time_delta_pct"], 2) == time_delta
    assert cell["throughput_mb_s"] == pytest.approx(size * 1024 / mean)
    assert cell["within_threshold"] is True and cell["passed_validation"] is True
    if processed is not None:
        assert cell["processed_gb"] == pytest.approx(processed)


def test_linear_projection_reading(warehouse: Path) -> None:
    """The study's reading: WordCount scales about linearly (Time Δ within 1 point of Data Δ)."""
    scaling = report.read_tables(warehouse, "hibench_dse", CAMPAIGN)["scaling"]
    for cell in (r for r in scaling if r["workload"] == "wordcount" and r["data_size_gb"] != 240):
        assert cell["linear_projection_s"] == pytest.approx(4068.22 * cell["data_size_gb"] / 240, abs=0.01)
        assert abs(cell["time_delta_pct"] - cell["data_delta_pct"]) < 1


def test_report_formats(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "report",
                "hibench_dse",
                "--campaign",
                CAMPAIGN,
                "--format",
                "json",
                "--warehouse",
                str(warehouse),
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    # dfsio_read_write is the study's own mart (its plugin's), shown only with rows: the published
    # tables have no TestDFSIO run
    assert payload["study"] == "hibench_dse" and set(payload["tables"]) == {
        "scaling",
        "phase_times",
        "hardware_changes",
        "validation",
        "scorecard",  # the study's claims (claims.yaml) scored: tests/unit/test_scorecard.py
    }
    assert payload["tables"]["phase_times"] == []  # the published records have no job histories
    assert payload["tables"]["hardware_changes"] == []  # nor environment captures
    assert {"n", "mean_s", "stddev_s", "stddev_pct", "data_delta_pct", "time_delta_pct", "throughput_mb_s",
            "linear_projection_s", "within_threshold"} <= set(payload["tables"]["scaling"][0])  # fmt: skip
    assert main(["report", "hibench_dse", "--campaign", CAMPAIGN, "--warehouse", str(warehouse)]) == 0
    table = capsys.readouterr().out
    assert "| 340 |" in table.replace("  ", " ") or "340" in table
    assert "+41.67" in table and "+42.21" in table and "baseline" in table and "1.41" in table
    assert (
        main(
            [
                "report",
                "hibench_dse",
                "--campaign",
                CAMPAIGN,
                "--format",
                "csv",
                "--warehouse",
                str(warehouse),
            ]
        )
        == 0
    )
    assert "# scaling" in capsys.readouterr().out


def test_failing_expectations_are_loaded_marked_and_exit_3(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noisy = [
        {**row, "campaign": "noisy", "value": value}
        for row, value in zip(
            [r for r in published_records() if r["workload"] == "wordcount" and r["metric"] == "duration_s"][
                :3
            ],
            (100.0, 150.0, 200.0),
            strict=True,
        )
    ]
    source = tmp_path / "noisy.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in noisy))
    assert main(["import", str(source), "--warehouse", str(warehouse)]) == ExitCode.VALIDATION_FAILED
    assert "stddev_within_threshold" in capsys.readouterr().out
    tables = report.read_tables(warehouse, "hibench_dse", "noisy")
    (cell,) = tables["scaling"]
    assert cell["n"] == 3 and cell["within_threshold"] is False and cell["passed_validation"] is False
    assert [row["expectation"] for row in tables["validation"]] == ["stddev_within_threshold"]


def test_a_negative_duration_is_kept_and_flagged_but_never_averaged(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ok record of -150 s fails duration_positive: it is loaded (visible in raw.results and
    stg_results), counted in n_failed and left out of the mean and σ, as the pipeline's load does."""
    durations = [
        r for r in published_records() if r["workload"] == "wordcount" and r["metric"] == "duration_s"
    ]
    rows = [
        {**row, "campaign": "negative", "value": value}
        for row, value in zip(durations[:3], (4000.0, -150.0, 4100.0), strict=True)
    ]
    source = tmp_path / "negative.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(["import", str(source), "--warehouse", str(warehouse)]) == ExitCode.VALIDATION_FAILED
    assert "duration_positive" in capsys.readouterr().out
    direct = tmp_path / "direct.duckdb"  # the campaign pipeline's own load (DAG load task)
    wh.load_records(direct, [ResultRecord.model_validate(row) for row in rows])
    build_marts(direct, unit_tests=False)
    for target in (warehouse, direct):
        with duckdb.connect(str(target), read_only=True) as con:
            stored = con.execute(
                "select value, status, is_usable from main.stg_results where campaign = 'negative' order by repetition"
            ).fetchall()
        assert stored == [(4000.0, "ok", True), (-150.0, "ok", False), (4100.0, "ok", True)]
        (cell,) = report.read_tables(target, "hibench_dse", "negative")["scaling"]
        assert (cell["n"], cell["n_failed"]) == (2, 1)
        assert cell["mean_s"] == pytest.approx(4050.0) and cell["stddev_s"] == pytest.approx(50 * 2**0.5)
    (cell,) = report.read_tables(warehouse, "hibench_dse", "negative")["scaling"]
    assert cell["passed_validation"] is False
    # the σ gate judged what the mart averages: 4000 and 4100 s (1.7 %), not the -150 s with them
    with duckdb.connect(str(warehouse), read_only=True) as con:
        failed = con.execute(
            "select expectation, observed from raw.validation_failures where campaign = 'negative'"
        ).fetchall()
    assert [name for name, _ in failed if "stddev" in name] == [], failed
    assert any("positive" in name for name, _ in failed), failed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"value": "fast"}, "line 2: field 'value'"),
        ({"workload": "sort"}, "no workload 'sort'"),
        ({"study": "nope"}, "unknown study 'nope'"),
        ({"params": {"data_size_gb": -1}}, "must be greater than 0"),
        ({"params": {"data_size_gb": 240, "colour": "red"}}, "no axis 'colour'"),
        ({"repetition": 0}, "field 'repetition'"),
    ],
)
def test_bad_input_exits_2_and_loads_nothing(
    tmp_path: Path, change: dict[str, object], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = published_records()[:2]
    rows[1] = {**rows[1], **change}
    source = tmp_path / "bad.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    target = tmp_path / "untouched.duckdb"
    assert main(["import", str(source), "--warehouse", str(target)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert message in err and "nothing was loaded" in err
    assert not target.exists()


# -- marts from records loaded directly (warehouse.load_records + one dbt build) ---------------

SCENARIO = "scenarios"


def scenario_records() -> list[ResultRecord]:
    """WordCount on two environments (one repetition failed), TestDFSIO write/read, loaded as a task would."""
    out = []

    def add(
        environment: str, workload: str, size: int, rep: int, metric: str, value: float, ok: bool = True
    ) -> None:
        params: dict[str, int] = {"data_size_gb": size} | (
            {"maps": 4, "reduces": 2} if workload == "wordcount" else {}
        )
        out.append(
            ResultRecord(
                study="hibench_dse",
                campaign=SCENARIO,
                environment=environment,
                workload=workload,
                params=params,  # type: ignore[arg-type]
                repetition=rep,
                metric=metric,
                value=value,
                unit="s" if metric == "duration_s" else "MB/s",
                status="ok" if ok else "failed",
            )
        )

    for rep, value in enumerate((10.0, 99.0, 14.0), start=1):  # repetition 2 is re-run below: 12.0
        add("local_lab", "wordcount", 1, rep, "duration_s", value)
    for rep, value in enumerate((20.0, 22.0, 24.0), start=1):
        add("local_lab", "wordcount", 2, rep, "duration_s", value)
    add("local_lab", "wordcount", 2, 4, "duration_s", 1000.0, ok=False)
    for rep, value in enumerate((30.0, 31.0, 32.0), start=1):  # the same cells on another target
        add("dse_cluster", "wordcount", 1, rep, "duration_s", value)
        add("dse_cluster", "wordcount", 2, rep, "duration_s", 2 * value)
    for rep in (1, 2, 3):
        add("local_lab", "dfsio_read", 1, rep, "duration_s", 98.0 + rep)
        add("local_lab", "dfsio_write", 1, rep, "duration_s", 118.0 + rep)
        add("local_lab", "dfsio_read", 1, rep, "throughput_mb_s", 40.0 + rep)
        add("local_lab", "dfsio_write", 1, rep, "throughput_mb_s", 30.0 + rep)
        add("local_lab", "dfsio_read", 1, rep, "avg_io_rate_mb_s", 42.0)
        add("local_lab", "dfsio_write", 1, rep, "avg_io_rate_mb_s", 33.0)
    return out


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    target = tmp_path_factory.mktemp("scenario") / "benchcamp.duckdb"
    records = scenario_records()
    first = wh.load_records(target, records)
    again = wh.load_records(target, records)
    rerun = next(r for r in records if r.environment == "local_lab" and r.repetition == 2 and r.value == 99.0)
    replaced = wh.load_records(target, [rerun.model_copy(update={"value": 12.0})])
    wh.upsert_study_thresholds(target, "hibench_dse", 20)
    # with dbt's unit tests: the one build of the unit tier that runs them (their fixed fixtures make
    # the outcome the same on any warehouse; the other modules' builds leave them out)
    build_marts(target, unit_tests=True)
    with duckdb.connect(str(target), read_only=True) as con:
        (raw_rows,) = con.execute("select count(*) from raw.results").fetchone() or (0,)
    tables = report.read_tables(target, "hibench_dse", SCENARIO)
    return {"loads": (first, again, replaced), "raw_rows": raw_rows, "records": len(records), **tables}


def cell(scenario: dict[str, Any], environment: str, workload: str, size: float) -> dict[str, Any]:
    (row,) = [
        r
        for r in scenario["scaling"]
        if (r["environment"], r["workload"], r["data_size_gb"]) == (environment, workload, size)
    ]
    return row


def test_loading_twice_then_a_rerun_replaces_rows_never_adds(scenario: dict[str, Any]) -> None:
    first, again, replaced = scenario["loads"]
    total = scenario["records"]
    assert (first.inserted, first.replaced) == (total, 0)
    assert (again.inserted, again.replaced) == (0, total)
    assert (replaced.inserted, replaced.replaced) == (0, 1)
    assert scenario["raw_rows"] == total
    assert len(scenario["scaling"]) == 6  # 2 sizes × 2 environments of WordCount + DFSIO read and write


def test_the_replaced_repetition_value_is_the_one_in_the_marts(scenario: dict[str, Any]) -> None:
    row = cell(scenario, "local_lab", "wordcount", 1)
    assert (row["n"], row["n_failed"]) == (3, 0)
    assert row["mean_s"] == pytest.approx(12.0) and row["stddev_s"] == pytest.approx(2.0)
    # σ% 16.67 is above the default 10 but within this study's threshold of 20
    assert round(row["stddev_pct"], 2) == 16.67 and row["within_threshold"] is True


def test_failed_repetitions_are_counted_not_averaged(scenario: dict[str, Any]) -> None:
    row = cell(scenario, "local_lab", "wordcount", 2)
    assert (row["n"], row["n_failed"]) == (3, 1)
    assert row["mean_s"] == pytest.approx(22.0)
    assert row["data_delta_pct"] == pytest.approx(100.0)
    assert row["time_delta_pct"] == pytest.approx((22.0 - 12.0) / 12.0 * 100)
    assert row["linear_projection_s"] == pytest.approx(24.0)


def test_environments_are_never_pooled(scenario: dict[str, Any]) -> None:
    small, large = (
        cell(scenario, "dse_cluster", "wordcount", 1),
        cell(scenario, "dse_cluster", "wordcount", 2),
    )
    assert (small["mean_s"], small["n"], small["data_delta_pct"]) == (pytest.approx(31.0), 3, None)
    assert large["time_delta_pct"] == pytest.approx(100.0)


def test_dfsio_read_write_delta(scenario: dict[str, Any]) -> None:
    (row,) = scenario["dfsio_read_write"]
    assert (row["environment"], row["data_size_gb"]) == ("local_lab", 1)
    assert (row["read_s"], row["write_s"]) == (pytest.approx(100.0), pytest.approx(120.0))
    assert row["read_write_delta_pct"] == pytest.approx(20.0)
    assert (row["read_throughput_mb_s"], row["write_throughput_mb_s"]) == (
        pytest.approx(42.0),
        pytest.approx(32.0),
    )
    assert (row["read_avg_io_rate_mb_s"], row["write_avg_io_rate_mb_s"]) == (
        pytest.approx(42.0),
        pytest.approx(33.0),
    )
    assert scenario["validation"] == []


def test_committed_manifest_matches_the_dbt_project() -> None:
    """Cosmos renders the DAG from dbt_project/manifest/manifest.json: regenerate with `make manifest`."""
    assert stale_manifest_entries() == [], "dbt_project/manifest/manifest.json is stale: run `make manifest`"


def test_a_failing_build_names_the_failed_node_and_releases_the_file(tmp_path: Path) -> None:
    target = tmp_path / "broken.duckdb"
    wh.load_records(target, scenario_records()[:1])
    with duckdb.connect(str(target)) as con:  # what no ResultRecord allows: an ok repetition 0
        con.execute("update raw.results set repetition = 0")
    with pytest.raises(DbtBuildError) as failure:
        build_marts(target, select="stg_results")
    assert any("expression_is_true_stg_results" in node for node in failure.value.failed_nodes)
    assert "expression_is_true_stg_results" in str(failure.value)
    with duckdb.connect(str(target), read_only=True) as con:  # dbt let go of the file
        assert con.execute("select count(*) from raw.results").fetchone() == (1,)


def test_column_rules_fail_and_name_the_broken_rule(tmp_path: Path) -> None:
    """The grouped column rules (one dbt test per model) fail the build, and their rows say which
    rule of which column broke, with how many rows."""
    target = tmp_path / "broken.duckdb"
    wh.load_records(target, scenario_records()[:2])
    with duckdb.connect(str(target)) as con:  # a size no ResultRecord of a real campaign has
        con.execute(
            """update raw.results set params = json_object('data_size_gb', -1, 'maps', 4, 'reduces', 2)"""
        )
    with pytest.raises(DbtBuildError) as failure:
        build_marts(target, select="stg_results")
    (node,) = [node for node in failure.value.failed_nodes if "column_rules_stg_results" in node]
    assert ": fail" in node
    (compiled,) = (tmp_path / ".dbt" / "broken" / "compiled").rglob("column_rules_stg_results*.sql")
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute(compiled.read_text()).fetchall() == [("positive(data_size_gb)", 2)]


def test_results_page_needs_a_login(warehouse: Path) -> None:
    client = results_client(warehouse, signed_in=False)
    for path in ("/", "/hibench_dse", "/hibench_dse/csv"):
        assert client.get(path).status_code == 401


def test_results_page_shows_the_published_table_from_the_marts(warehouse: Path) -> None:
    client = results_client(warehouse, signed_in=True)
    page = client.get("/hibench_dse", params={"campaign": CAMPAIGN})
    assert page.status_code == 200
    text = page.text
    assert "<th>Time Δ (%)</th>" in text and "wordcount on dse_cluster (maps=4, reduces=2)" in text
    # Table 9's WordCount at 240 GB, exactly as the text report prints it
    cli = subprocess_free_report(warehouse)
    (line,) = [row for row in cli.splitlines() if row.startswith("|       240 |") and "wordcount" not in row][
        :1
    ]
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    assert "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>" in text
    download = client.get("/hibench_dse/csv", params={"campaign": CAMPAIGN})
    assert download.status_code == 200 and download.text.startswith("# scaling")
    assert "attachment" in download.headers["content-disposition"]


def subprocess_free_report(warehouse: Path) -> str:
    from benchcamp.presentation import report

    return report.render(report.read_tables(warehouse, "hibench_dse", CAMPAIGN), "table", "hibench_dse")


def test_results_page_explains_an_empty_warehouse(tmp_path: Path) -> None:
    client = results_client(tmp_path / "none.duckdb", signed_in=True)
    page = client.get("/hibench_dse")
    assert page.status_code == 200 and "Nothing to show yet" in page.text and "no warehouse" in page.text
    assert "no study" in client.get("/nope").text.lower() or "unknown" in client.get("/nope").text.lower()
    assert client.get("/nope/csv").status_code == 404


def test_the_html_report_is_one_file_with_the_tables_and_every_figure(
    warehouse: Path, tmp_path: Path
) -> None:
    output = tmp_path / "report.html"
    args = ["report", "hibench_dse", "--campaign", CAMPAIGN, "--warehouse", str(warehouse)]
    assert main([*args, "--format", "html", "--output", str(output)]) == 0
    page = output.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "http" not in page.split("<svg", 1)[0]  # nothing to fetch
    assert "<td>4068.22</td>" in page and "<td>+42.21</td>" in page  # Table 9, as the text report prints it
    figure_ids = ["time-vs-size-wordcount", "time-vs-size-hive-aggregation", "time-vs-size-hive-join"]
    for figure_id in [*figure_ids, "throughput-per-size", "time-series"]:
        assert f"<figure id='{figure_id}'><svg" in page, figure_id
    assert "figures/" not in page  # the static file links no download routes
    assert main([*args, "--format", "csv", "--output", str(tmp_path / "t.csv")]) == 0
    assert (tmp_path / "t.csv").read_text().startswith("# scaling")


def test_figures_plot_the_mart_values(warehouse: Path) -> None:
    from benchcamp.presentation import figures, report

    tables = report.read_tables(warehouse, "hibench_dse", CAMPAIGN)
    history, changes = report.read_history(warehouse, "hibench_dse")
    made = {figure.id: figure for figure in figures.study_figures(tables, history, changes)}
    wordcount = made["time-vs-size-wordcount"]
    points = {(v["data_size_gb"], v["mean_s"]) for v in plotted(wordcount.spec)}
    assert {(240, 4068.22), (340, 5785.47), (440, 7471.23)} <= points  # Table 9's Time column
    layers = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in wordcount.spec["layer"]
    ]
    assert layers == ["line", "rule", "line"]  # projection, ±σ, measured
    svg = wordcount.svg()
    assert svg.startswith("<svg") and "time vs data size" in svg and svg.count("<path") > 3
    assert wordcount.png()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_time_series_marks_hardware_changes() -> None:
    from datetime import UTC, datetime

    from benchcamp.presentation import figures

    at = datetime(2026, 11, 14, 1, tzinfo=UTC)
    history = [
        {"campaign": c, "environment": "lab", "workload": "wordcount", "series_params": "", "data_size_gb": 1.0,
         "last_finished_at": datetime(2026, 11, d, 2, tzinfo=UTC), "logical_date": None, "mean_s": m,
         "stddev_s": 1.0, "fingerprint": f, "run_type": "scheduled"}
        for c, d, m, f in (("w1", 7, 100.0, "old"), ("w2", 14, 60.0, "new"))
    ]  # fmt: skip
    changes = [
        {
            "environment": "lab",
            "campaign": "w2",
            "marker_at": at,
            "previous_fingerprint": "old",
            "fingerprint": "new",
        }
    ]
    figure = figures.time_series(history, changes)
    rule = figure.spec["layer"][1]
    assert (
        rule["mark"]["type"] == "rule"
        and figure.spec["layer"][0]["encoding"]["detail"]["field"] == "fingerprint"
    )
    (marker,) = plotted(rule)
    assert marker["marker_at"] == at.isoformat() and (marker["from"], marker["to"]) == ("old", "new")
    # a point's tooltip names its cell first: two dozen cells share a palette's colours
    assert figure.spec["layer"][0]["encoding"]["tooltip"][0]["field"] == "cell"
    assert "#c0392b" in figure.svg()  # the marker is drawn


def test_the_page_serves_while_a_writer_holds_the_warehouse(warehouse: Path, tmp_path: Path) -> None:
    import shutil

    from benchcamp.presentation import report

    copy = tmp_path / "busy.duckdb"
    shutil.copy(warehouse, copy)
    report.export_snapshot(copy)
    client = results_client(copy, signed_in=True)
    with duckdb.connect(str(copy)) as writer:  # a load or dbt build holding the only write lock
        writer.execute("create table main.busy as select 1")
        page = client.get("/hibench_dse", params={"campaign": CAMPAIGN})
        assert page.status_code == 200 and "<td>4068.22</td>" in page.text
        svg = client.get("/hibench_dse/figures/time-vs-size-wordcount.svg", params={"campaign": CAMPAIGN})
        assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
        png = client.get("/hibench_dse/figures/throughput-per-size.png", params={"campaign": CAMPAIGN})
        assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    unknown = client.get("/hibench_dse/figures/nope.svg", params={"campaign": CAMPAIGN})
    assert unknown.status_code == 404 and "time-vs-size-wordcount" in unknown.text
    assert client.get("/hibench_dse/figures/time-series.gif").status_code == 404
    assert (
        results_client(copy, signed_in=False).get("/hibench_dse/figures/time-series.svg").status_code == 401
    )
