"""The study plugin contract (benchcamp.core.study), over every registered study.

The five bundled studies and the example study of tests/data/example_study/ (a `sleep` workload,
its own report and page sections, its own dbt mart), installed here the way a new study is added:
its folder copied next to the studies, nothing else. For each study: its spec validates, its DAG
builds without a connection, its report and its results page render on an empty warehouse and on
a warehouse of recorded results (the golden HiBench and YCSB records, the example's recorded run).
"""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.spec import load_spec, study_names
from benchcamp.core.study import Study, study_folders, study_plugin
from benchcamp.presentation import report
from helpers.study_contract import CAMPAIGN, EXAMPLE, EXAMPLE_ID, ROOT, STUDIES


def _client(warehouse: Path) -> Any:
    from helpers.results_page import results_client

    return results_client(warehouse, signed_in=True)


def test_the_example_is_registered_with_its_plugin_and_workload(installed: Path) -> None:
    from benchcamp.workloads import get_workload

    assert list(study_folders()) == sorted(STUDIES)
    assert study_plugin(EXAMPLE_ID).report_sections and study_plugin(EXAMPLE_ID).page_sections
    assert get_workload("sleep").family == EXAMPLE_ID  # found in the study's own workloads/ folder
    # hibench_dse's plugin: HiBench's report types, its TestDFSIO mart, section and figure, the
    # settings it reports; every other hook at its default
    hibench = study_plugin("hibench_dse")
    assert hibench.native_names["hibench-report"]["HadoopWordcount"] == "wordcount"
    assert [mart.name for mart in hibench.marts] == ["dfsio_read_write"]
    assert "mapreduce.job.reduces" in hibench.effective_settings
    bare = dataclasses.replace(
        hibench, native_names={}, marts=(), report_sections=(), figures=(), effective_settings=()
    )
    assert bare == Study("hibench_dse")
    assert [mart.name for mart in study_plugin("bigbench_containers").marts] == [
        "bigbench_qpm",
        "bigbench_comparison",
        "bigbench_queries",
    ]


@pytest.mark.parametrize("study", STUDIES)
def test_the_spec_validates(installed: Path, study: str) -> None:
    spec = load_spec(study)
    assert spec.study == study and spec.cells(spec.default_ladder)


@pytest.mark.parametrize("study", STUDIES)
def test_the_dag_builds_without_a_connection(
    installed: Path, study: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchcamp.airflow.dag_factory import study_dags
    from benchcamp.pipeline.campaign.conf import implemented_workloads

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a connection was opened at DAG parse time: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    dags = {dag.dag_id: dag for dag in study_dags()}
    if not implemented_workloads(load_spec(study)):
        assert study not in dags  # nothing it could run yet
        return
    assert {"plan", "validate", "load", "dbt_build", "report", "publish"} <= set(dags[study].task_dict)


@pytest.mark.parametrize("study", STUDIES)
def test_report_and_page_render_on_an_empty_warehouse(installed: Path, study: str, tmp_path: Path) -> None:
    for fmt in ("table", "csv", "json"):
        assert report.render({}, fmt, study)  # type: ignore[arg-type]
    page = _client(tmp_path / "none.duckdb").get(f"/{study}")
    assert page.status_code == 200 and "Nothing to show yet" in page.text


@pytest.mark.parametrize("study", STUDIES)
def test_report_and_page_render_on_a_recorded_warehouse(recorded: Path, study: str) -> None:
    """A study with recorded results shows them, its plugin's sections included; one without
    gets the page's explanation."""
    page = _client(recorded).get(f"/{study}")
    assert page.status_code == 200
    try:
        tables = report.read_tables(recorded, study)
    except report.ReportError as exc:
        assert "Nothing to show yet" in page.text and str(exc).startswith("no campaign")
        return
    text = report.render(tables, "table", study)
    assert text.startswith(f"Study {study}, campaign ")
    assert json.loads(report.render(tables, "json", study))["study"] == study
    assert report.render(tables, "csv", study).startswith("# scaling")
    plugin = study_plugin(study)
    for section in plugin.report_sections:
        lines = section(tables)
        assert lines and "\n".join(lines) in text
    for mart in plugin.marts:
        assert tables[mart.name], mart.name  # each recorded study has rows in its own marts
    for page_section in plugin.page_sections:
        assert page_section(tables) in page.text


@pytest.mark.parametrize("study", STUDIES)
def test_a_campaign_on_several_targets_compares_them_side_by_side(recorded: Path, study: str) -> None:
    """A campaign that ran on several environments (a published or imported one, as the three
    multi-environment studies' recordings) offers each comparison of its baseline environment
    with another, and that page shows the two environments' tables side by side."""
    try:
        tables = report.read_tables(recorded, study)
    except report.ReportError:
        return
    campaign = report.campaign_of(tables)
    environments = report.environments_of(tables)
    client = _client(recorded)
    page = client.get(f"/{study}", params={"campaign": campaign}).text
    if len(environments) < 2:
        assert "Compare the environments of this campaign" not in page
        return
    assert "Compare the environments of this campaign" in page
    first, *others = [env for env in environments if f"{env} vs " in page] or [""]
    assert first and not others, f"one baseline environment offered: {environments}"
    for other in environments:
        if other == first:
            continue
        assert f"{first} vs {other}" in page
        side_by_side = client.get(
            f"/{study}", params={"campaign": campaign, "environments": f"{first},{other}"}
        ).text
        assert (
            f"its environments side by side: <b>{first}</b> (left) compared with <b>{other}</b>"
            in side_by_side
        )
        assert f"{campaign} · {first}" in side_by_side and f"{campaign} · {other}" in side_by_side
        assert "compare-block" in side_by_side  # the tables, matched
    refused = client.get(f"/{study}", params={"campaign": campaign, "environments": f"{first},nowhere"}).text
    assert "not on nowhere: showing it whole" in refused


@pytest.mark.parametrize("study", STUDIES)
def test_every_tooltip_of_a_studys_figures_is_titled(recorded: Path, study: str) -> None:
    """Each study's figures on its page (the study plugins' own included): every tooltip entry
    has a title that is not the raw field name (`figures.readable_tooltips`)."""
    import re

    page = _client(recorded).get(f"/{study}").text
    specs = re.findall(r"<script type='application/json' id='spec-[^']+'>(.*?)</script>", page, re.S)
    entries = [
        entry
        for text in specs
        for tooltip in re.findall(r'"tooltip": (\[.*?\])', text)
        for entry in json.loads(tooltip)
    ]
    if study != EXAMPLE_ID:  # the example's page has no figure (its mart is a table)
        assert specs and entries, f"{study}: no figure with tooltips on its page"
    untitled = [entry for entry in entries if not entry.get("title") or entry["title"] == entry.get("field")]
    assert untitled == [], untitled


def test_the_example_mart_is_built_by_the_one_dbt_build(recorded: Path) -> None:
    (row,) = report.read_tables(recorded, EXAMPLE_ID, CAMPAIGN)["example_sleep_overhead"]
    assert (row["n"], row["slept_s"]) == (2, 0.1)
    assert row["duration_s"] == pytest.approx(0.15) and row["overhead_s"] == pytest.approx(0.05)
    text = report.render(report.read_tables(recorded, EXAMPLE_ID, CAMPAIGN), "table", EXAMPLE_ID)
    assert "Sleep overhead on local_lab" in text and "| sleep|seconds=0.1 | 2 |" in text


def test_the_sleep_parser_reads_the_recorded_output(installed: Path) -> None:
    import importlib

    parse_slept = importlib.import_module(f"benchcamp.studies.{EXAMPLE_ID}.workloads.sleep").parse_slept
    assert parse_slept((EXAMPLE / "recorded" / "execute" / "stdout.log").read_text(), "stdout.log") == 0.1
    with pytest.raises(ValueError, match="stdout.log: expected one 'slept_s=<seconds>' line, found 0"):
        parse_slept("", "stdout.log")


def test_no_generic_module_names_a_study() -> None:
    """What is a study's is in its folder: the package outside studies/, the DAG files and the
    Airflow plugins never name a study (so adding one edits none of them)."""
    generic = [
        path
        for folder in (ROOT / "include" / "benchcamp", ROOT / "dags", ROOT / "plugins")
        for path in folder.rglob("*.py")
        if "studies" not in path.relative_to(ROOT).parts
    ]
    assert len(generic) > 40
    for path in generic:
        text = path.read_text(encoding="utf-8")
        named = [study for study in STUDIES if study in text]
        assert not named, f"{path.relative_to(ROOT)} names {named}"


def _stores() -> list[str]:
    """The data stores the studies measure: every value of an axis named `store` in a spec."""
    return sorted(
        {
            str(value).lower()
            for study in study_names()
            for name, axis in load_spec(study).axes.items()
            if name == "store"
            for value in axis.all_values()
        }
    )


def test_no_generic_mart_names_a_study_or_a_store() -> None:
    """The dbt models under dbt_project/models/ are every study's: a study's own marts (and the
    intermediate models only they read) live in its folder's marts/, so no generic model names a
    study or one of the stores a study compares."""
    models = [path for path in (ROOT / "dbt_project" / "models").rglob("*") if path.suffix in (".sql", ".py")]
    stores = _stores()
    assert len(models) > 20 and stores == ["cassandra", "hbase"]
    for path in models:
        text = path.read_text(encoding="utf-8").lower()
        named = [name for name in [*STUDIES, *stores] if name in text]
        assert not named, f"{path.relative_to(ROOT)} names {named}"
