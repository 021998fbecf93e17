"""The results page's picker, its comparison of two campaigns and its interactive figures.

One recorded warehouse: the published DSE tables (campaign `published_dse_2016`) and a second
campaign of the same study whose WordCount is 10% slower and which lacks the largest Hive join.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.ops.cli import main
from benchcamp.presentation import report
from benchcamp.studies.hibench_dse import plugin as hibench_plugin
from helpers.golden import CAMPAIGN, published_records
from helpers.results_page import results_client

STUDY = "hibench_dse"
SECOND = "rerun_2017"


def _second_campaign() -> list[dict[str, object]]:
    """The published records again as another campaign: WordCount ×1.1, no 240 GB Hive join."""
    rows = []
    for row in published_records():
        params = row["params"]
        assert isinstance(params, dict)
        if row["workload"] == "hive_join" and params["data_size_gb"] == max(
            r["params"]["data_size_gb"]  # type: ignore[index]
            for r in published_records()
            if r["workload"] == "hive_join"
        ):
            continue
        value = row["value"]
        if row["workload"] == "wordcount" and row["metric"] == "duration_s":
            assert isinstance(value, float | int)
            value = round(value * 1.1, 3)
        rows.append({**row, "campaign": SECOND, "value": value})
    return rows


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("two_campaigns")
    source = tmp / "two.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in published_records() + _second_campaign()))
    target = tmp / "warehouse.duckdb"
    assert main(["import", str(source), "--warehouse", str(target)]) == ExitCode.OK
    return target


@pytest.fixture(scope="module")
def client(warehouse: Path) -> Any:
    return results_client(warehouse, signed_in=True)


def _options(page: str, name: str) -> list[tuple[str, bool]]:
    """The picker's options of one <select>: (value, selected)."""
    select = re.search(rf"<select name='{name}'.*?</select>", page, re.S)
    assert select, name
    return [
        (value, bool(selected))
        for value, selected in re.findall(r"<option value='([^']*)'( selected)?>", select.group(0))
    ]


def test_the_picker_lists_studies_and_campaigns_and_defaults_to_the_latest(
    client: Any, warehouse: Path
) -> None:
    latest = report.latest_campaign(warehouse, STUDY)
    page = client.get(f"/{STUDY}").text
    assert (STUDY, True) in _options(page, "study") and ("ycsb_hbase_cassandra", False) in _options(
        page, "study"
    )
    campaigns = _options(page, "campaign")
    assert {value for value, _ in campaigns} == {"", CAMPAIGN, SECOND}
    assert [value for value, selected in campaigns if selected] == [latest]
    assert f"Campaign <b>{latest}</b>" in page
    # what the picker's form sends (GET to the app's root) shows the same page
    chosen = client.get("/", params={"study": STUDY, "campaign": CAMPAIGN}).text
    assert f"Campaign <b>{CAMPAIGN}</b>" in chosen and "<td>4068.22</td>" in chosen
    assert [value for value, selected in _options(chosen, "campaign") if selected] == [CAMPAIGN]
    # the view has an address of its own to share, though Airflow shows the page in a frame
    link = re.search(r"<a class='permalink' target='_blank' rel='noopener' href='([^']*)'>", chosen)
    assert link and link.group(1).replace("&amp;", "&") == f"./?study={STUDY}&campaign={CAMPAIGN}"
    assert (
        client.get(f"/{link.group(1).replace('&amp;', '&')[2:]}").text.count(f"Campaign <b>{CAMPAIGN}</b>")
        == 1
    )
    # a campaign of no such name falls back to the latest, and says so
    unknown = client.get(f"/{STUDY}", params={"campaign": "nope"}).text
    assert "No campaign &#39;nope&#39;" in unknown and f"Campaign <b>{latest}</b>" in unknown


def test_the_page_renders_the_marts_rows_the_text_report_prints(client: Any, warehouse: Path) -> None:
    page = client.get(f"/{STUDY}", params={"campaign": SECOND}).text
    text = report.render(report.read_tables(warehouse, STUDY, SECOND), "table", STUDY)
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|-"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            tag = "th" if cells[0] in ("Data (GB)", "Claim") else "td"  # headers: scaling, scorecard
            assert "".join(f"<{tag}>{cell}</{tag}>" for cell in cells) in page, line


def test_two_campaigns_side_by_side_with_the_difference_of_each_figure(client: Any) -> None:
    page = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN, "compare": SECOND})
    assert page.status_code == 200
    text = page.text
    assert f"Campaign <b>{CAMPAIGN}</b> (left) compared with <b>{SECOND}</b> (right)" in text
    assert [value for value, selected in _options(text, "compare") if selected] == [SECOND]
    wordcount = text.split("<h3>wordcount on dse_cluster (maps=4, reduces=2)</h3>", 1)[1].split(
        "</section>", 1
    )[0]
    left, right = wordcount.split(f"<h4>{SECOND}</h4>", 1)
    # the published 240 GB WordCount on the left; on the right 10% slower, with its difference
    assert "<td>4068.22</td>" in left and "class='delta" not in left
    assert "<td>4475.04<span class='delta moved'>+10.0%</span></td>" in right
    # a figure that did not change shows +0.0%; the data size is the same on both sides
    assert "<td>240<span class='delta'>±0.0%</span></td>" in right
    # the 240 GB Hive join is in the published campaign only: its row is marked on the left
    join = text.split("<h3>hive_join on dse_cluster</h3>", 1)[1].split("</section>", 1)[0]
    join_left, join_right = join.split(f"<h4>{SECOND}</h4>", 1)
    assert f"only in {CAMPAIGN}" in join_left and "only in" not in join_right.replace(
        f"only in {CAMPAIGN}", ""
    )
    assert join_left.count("class='only-here'") == 1
    # each campaign's figures side by side, interactive, their downloads naming their campaign
    figures = text.split("<h2>Figures</h2>", 1)[1]
    assert "<figure id='time-vs-size-wordcount-a'><div class='chart'" in figures
    assert "<figure id='time-vs-size-wordcount-b'><div class='chart'" in figures
    assert f"figures/time-vs-size-wordcount.svg?campaign={SECOND}" in figures
    assert re.findall(r"<script[^>]*\bsrc='([^']+)'", text) == [
        "_static/vega-bundle.js",
        "_static/figures.js",
    ]


def test_the_answer_heads_the_page_and_each_side_of_a_comparison(client: Any, warehouse: Path) -> None:
    """The answer block (the text report's first section) comes before the fingerprints and the
    tables, once, its sentences as a list; the static report is the same page; a comparison shows
    each campaign's answer side by side."""
    from benchcamp.presentation.answer_section import TITLE
    from benchcamp.presentation.results_page import static_report

    for page in (
        client.get(f"/{STUDY}", params={"campaign": CAMPAIGN}).text,
        static_report(warehouse, STUDY, CAMPAIGN),
    ):
        answer = page.index("<section class='answer'>")
        assert answer < page.index("<h2>Hardware fingerprints</h2>") < page.index("<h2>Tables</h2>")
        assert page.count(TITLE) == 1
        listed = page[answer:].split("</ul>", 1)[0]
        assert (
            "<li>On dse_cluster, wordcount_scales_linearly (&#34;WordCount and Hive scale about linearly&#34;"
            in listed
        )
        assert "is reproduced: both comparisons lie inside at 95 %" in listed
    compared = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN, "compare": SECOND}).text
    assert compared.count(f"<h3>{TITLE}</h3>") == 1 and compared.count("<ul class='answer'>") == 2


def test_the_comparison_marks_a_block_in_one_campaign_only() -> None:
    from benchcamp.presentation.blocks import Block, Cell, Row, compare, num

    table = Block(
        "t", ("Data (GB)", "Time (s)", "ok"), (Row(("1",), (num("1", 1), num("2.00", 2.0), Cell("yes"))),)
    )
    later = Block("t", table.headers, (Row(("1",), (num("1", 1), num("3.00", 3.0), Cell("no"))),))
    result = compare(("a", [table, Block("only a", kind="hardware")]), ("b", [later]))
    (row,) = result.blocks[0].compared
    assert [cell.change_pct for cell in row.cells] == [0.0, 50.0, None]
    assert row.cells[2].changed_text and row.only_in is None
    assert result.blocks[1].only_in == "a" and result.blocks[1].compared == ()


def test_figures_are_interactive_with_scripts_the_app_serves_itself(client: Any) -> None:
    page = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN}).text
    scripts = re.findall(r"<script[^>]*\bsrc='([^']+)'", page)
    assert scripts, "the page loads the Vega scripts"
    for src in scripts:
        assert not re.match(r"^[a-z]+:|^//", src), f"{src}: only local scripts, never a CDN"
        served = client.get(f"/{src}")
        assert served.status_code == 200 and served.headers["content-type"].startswith("text/javascript")
    assert "window.vegaEmbed" in client.get(f"/{scripts[0]}").text  # vl-convert's vega-embed bundle
    assert "http" not in "".join(re.findall(r"<script[^>]*>", page))
    # each figure: the server's SVG first, its Vega-Lite spec with tooltips and a zoom/pan binding
    specs = dict(re.findall(r"<script type='application/json' id='spec-([^']+)'>(.*?)</script>", page, re.S))
    assert "time-vs-size-wordcount" in specs and "time-series" in specs
    spec = json.loads(specs["time-vs-size-wordcount"])
    assert {
        "name": "zoom",
        "select": {"type": "interval", "encodings": ["x", "y"]},
        "bind": "scales",
    } in spec["layer"][0]["params"]
    assert any("tooltip" in layer.get("encoding", {}) for layer in spec["layer"])
    assert (
        "<figure id='time-vs-size-wordcount'><div class='chart' data-spec='spec-time-vs-size-wordcount'><svg"
        in page
    )
    # the downloads stay
    svg = client.get(f"/{STUDY}/figures/time-vs-size-wordcount.svg", params={"campaign": CAMPAIGN})
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert f"{STUDY}/figures/time-vs-size-wordcount.png?campaign={CAMPAIGN}" in page
    assert client.get("/_static/nope.js").status_code == 404


def test_the_static_report_runs_no_script(warehouse: Path) -> None:
    from benchcamp.presentation.results_page import static_report

    page = static_report(warehouse, STUDY, CAMPAIGN)
    assert "<script" not in page and "<select" not in page and "<td>4068.22</td>" in page


def test_every_page_has_one_heading(client: Any) -> None:
    for path in ("/", f"/{STUDY}", f"/{STUDY}?compare={CAMPAIGN}"):
        page = client.get(path).text
        assert page.count("<h1>") == 1 and page.count("<html") == 1, path


def test_a_browser_without_a_session_is_sent_to_sign_in_and_back(warehouse: Path) -> None:
    """Not `{"detail":"Not authenticated"}`: a page opened without a session redirects to Airflow's
    sign-in page with the page as `next`; a script (no text/html) still gets 401."""

    anonymous = results_client(warehouse, signed_in=False)
    browser = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    answer = anonymous.get(f"/{STUDY}?campaign={CAMPAIGN}", headers=browser, follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == (
        "/auth/login?next=http%3A%2F%2Ftestserver%2Fhibench_dse%3Fcampaign%3Dpublished_dse_2016"
    )
    assert anonymous.get(f"/{STUDY}", follow_redirects=False).status_code == 401


def test_the_default_is_the_latest_complete_campaign_and_a_partial_one_is_marked(client: Any) -> None:
    """A one-workload smoke run after a full campaign does not hide it; a partial campaign says so."""
    full = report.full_matrix_cells(STUDY)
    rows = [
        {"campaign": "smoke", "cells": 3, "environments": "local_lab"},
        {"campaign": "full", "cells": 2 * full, "environments": "local_lab,local_lab_yarn"},
        {"campaign": "older", "cells": full, "environments": "local_lab"},
    ]
    marked = report.mark_complete(STUDY, rows)
    assert [row["complete"] for row in marked] == [False, True, True]
    assert report.default_campaign(marked) == marked[1]
    assert report.default_campaign(report.mark_complete(STUDY, rows[:1])) == marked[0]  # none complete
    assert report.default_campaign([]) is None
    # the recorded warehouse: the rerun lacks a cell, so it is marked (in the picker too)
    page = client.get(f"/{STUDY}", params={"campaign": SECOND}).text
    assert f"Campaign {SECOND} is partial: 8 cell(s) on dse_cluster" in page
    assert f">{SECOND} (partial)" in page


SIZED_SPEC = """
study: sized
title: sized
description: a study whose cluster size is its target's
repetitions: 2
environments:
  - {name: small_cluster, description: three workers, connection: benchcamp_lab_ssh, nodes: 3}
  - {name: big_cluster, description: ten workers, connection: benchcamp_lab_ssh, nodes: 10}
workloads: [wordcount]
axes:
  cluster_nodes:
    description: workers
    unit: nodes
    environment_key: nodes
    baseline: smallest
    ladder: {tiny: [3, 10], small: [3, 10], paper: [3, 10]}
  data_size_gb:
    description: input
    unit: GiB
    baseline: smallest
    ladder: {tiny: [0.01, 0.02], small: [0.1, 0.2], paper: [1, 2]}
series:
  - name: sizes
    description: each input on each cluster size
    workloads: [wordcount]
    axes: {cluster_nodes: ladder, data_size_gb: ladder}
"""


def test_a_targets_full_matrix_has_its_own_cluster_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """An axis that is the target's fact (`environment_key`) has one value on each target, as the
    campaign plans it: a campaign of both inputs on both clusters (2 cells each) is complete, not
    half of a 4-cell matrix per target; a name the spec does not know keeps the ladders' matrix."""
    from benchcamp.core.spec import parse_spec
    from benchcamp.presentation import marts

    spec = parse_spec(SIZED_SPEC, "sized.yaml", "sized")
    monkeypatch.setattr(marts, "load_spec", lambda study: spec)
    assert marts.full_matrix_cells("sized", "small_cluster") == 2
    assert marts.full_matrix_cells("sized", "imported_elsewhere") == 4
    rows = [
        {"campaign": "both", "cells": 4, "environments": "small_cluster,big_cluster"},
        {"campaign": "cut", "cells": 3, "environments": "small_cluster,big_cluster"},
        {"campaign": "one", "cells": 2, "environments": "small_cluster"},
    ]
    marked = {
        row["campaign"]: (row["complete"], row["full_cells"]) for row in marts.mark_complete("sized", rows)
    }
    assert marked == {"both": (True, 4), "cut": (False, 4), "one": (True, 2)}


def test_tooltips_name_fields_with_units_and_round_numbers(client: Any) -> None:
    """Every tooltip of the page's figures is titled (no raw field names such as `mean_s`), and a
    number shows rounded as in the tables, an empty one as a dash (not `null`): checked by drawing
    the calculated tooltip text with Vega itself (vl-convert)."""
    import vl_convert
    from benchcamp.presentation.figures import field_title, readable_tooltips

    page = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN}).text
    specs = re.findall(r"<script type='application/json' id='spec-[^']+'>(.*?)</script>", page, re.S)
    assert specs
    for text in specs:
        for tooltip in re.findall(r'"tooltip": (\[.*?\])', text):
            for entry in json.loads(tooltip):
                assert entry["title"] and entry["title"] != entry["field"], entry
                assert entry["type"] != "quantitative", entry  # numbers go through a formatted text
    assert field_title("p95_latency_us") == "P95 latency (µs)" and field_title("mean_s") == "Mean time (s)"
    # the zoom clips marks to the plot: the x scale is padded so the end points are whole
    wordcount = json.loads(
        re.search(r"id='spec-time-vs-size-wordcount'>(.*?)</script>", page, re.S).group(1)  # type: ignore[union-attr]
    )
    assert {layer["encoding"]["x"]["scale"]["padding"] for layer in wordcount["layer"]} == {12}
    row = {"mean_s": 8.315592, "stddev_s": None, "data_size_gb": 0.012, "throughput_ops_s": 1234.56}
    spec = readable_tooltips(
        {
            "data": {"values": [row]},
            "mark": "point",
            "encoding": {"tooltip": ["mean_s:Q", "stddev_s:Q", "data_size_gb:Q", "throughput_ops_s:Q"]},
        }
    )
    shown = [entry["field"] for entry in spec["encoding"]["tooltip"]]

    def drawn(field: str) -> str:
        return vl_convert.vegalite_to_svg({**spec, "mark": "text", "encoding": {"text": {"field": field}}})

    # three significant figures: a size keeps its own precision (0.012 GB was shown as 0.01)
    assert ">8.32<" in drawn(shown[0]) and ">—<" in drawn(shown[1])
    assert ">0.012<" in drawn(shown[2]) and ">1,235<" in drawn(shown[3])


def test_a_comparison_on_fewer_runs_than_the_scorecard_needs_is_flagged(client: Any) -> None:
    """One run a side cannot support a difference (the scorecard needs two): the campaign comparison
    and BigBench's container-vs-bare-metal table say so; three runs a side do not."""
    from benchcamp.core.claims import MIN_RUNS_PER_SIDE
    from benchcamp.studies.bigbench_containers.plugin import comparison_blocks

    one = {"scaling": [{"n": 3}, {"n": 1}], "validation": [{"check": "x"}]}
    warning = report.few_runs_warning("smoke", one)
    assert warning and f"at least {MIN_RUNS_PER_SIDE} repetitions a side" in warning
    assert report.few_runs_warning("full", {"scaling": [{"n": 3}]}) is None
    page = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN, "compare": SECOND}).text
    assert "the scorecard needs" not in page  # the recorded campaigns have 3 repetitions a cell
    row = {
        "environment": "lab_container", "baseline_environment": "local_lab", "cluster_nodes": 1,
        "scale_factor_gb": 0.01, "run": "1", "repetition": 1, "load_gain_pct": 35.0,
        "power_gain_pct": 35.0, "throughput_gain_pct": 35.0, "qpm_gain_pct": 35.0,
        "qpm_ratio_other_over_baseline": 1.35, "power_ratio_baseline_over_other": 1.35,
        "throughput_ratio_baseline_over_other": 1.35, "load_ratio_baseline_over_other": 1.35,
        "n_runs": 1, "other_campaign": "c1", "baseline_campaign": "c1", "qpm_published": False,
    }  # fmt: skip
    mean = {**row, "run": "mean", "repetition": None}
    (single,) = comparison_blocks({"bigbench_comparison": [row, mean]})
    assert single.notes[0].startswith("warning: 1 run(s) a side; the scorecard needs at least 2")
    (three,) = comparison_blocks({"bigbench_comparison": [row, {**mean, "n_runs": 3}]})
    assert not three.notes[0].startswith("warning")


def test_campaigns_of_two_environments_are_compared_table_by_table() -> None:
    """Studies storing one campaign per environment (bare vs container, disk vs RAM, link levels):
    tables titled by their environment still match, so the comparison gives % differences, not
    'only in' everywhere."""
    from benchcamp.presentation.blocks import Block, Cell, Row, compare
    from benchcamp.presentation.results_page import environments_compared

    def table(environment: str, seconds: float) -> Block:
        row = Row(("4",), (Cell("4", 4.0), Cell(f"{seconds:g}", seconds)))
        return Block(f"swl on {environment} (file_size_mb)", ("MB", "Time (s)"), (row,))

    disk, ram = [table("lab_disk", 10.0)], [table("lab_ram", 8.0)]
    assert compare(("c1", disk), ("c2", ram)).blocks[0].only_in == "c1"  # by campaign: nothing matches
    (block,) = compare(("c1", disk), ("c2", ram), ("lab_disk", "lab_ram")).blocks
    assert block.only_in is None and block.compared[0].cells[1].change_pct == -20.0
    known = [
        {"campaign": "c1", "environments": "lab_disk"},
        {"campaign": "c2", "environments": "lab_ram"},
        {"campaign": "c3", "environments": "lab_disk,lab_ram"},
    ]
    assert environments_compared(known, "c1", "c2") == ("lab_disk", "lab_ram")
    # one click from a campaign to the latest (complete) one on each other environment
    from benchcamp.presentation.results_page import other_environments

    ram_smoke = {"campaign": "c0", "environments": "lab_ram", "complete": False}
    listed = [ram_smoke, *({**row, "complete": True} for row in known)]
    assert other_environments(listed, "c1") == [{"environment": "lab_ram", "campaign": "c2"}]
    assert other_environments(listed, "c3") == []  # a campaign on two targets: compare by campaign
    assert (
        environments_compared(known, "c1", "c3") is None and environments_compared(known, "c1", "c1") is None
    )


def test_each_mb_s_says_what_it_divides(client: Any) -> None:
    """A DFSIO cell has three MB/s (the scaling table's, TestDFSIO's throughput and average I/O
    rate): each table says which."""
    from markupsafe import escape

    page = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN}).text
    assert str(escape(report.SCALING_THROUGHPUT)) in page
    row = {
        "environment": "lab",
        "data_size_gb": 1.0,
        "read_s": 2.0,
        "write_s": 3.0,
        "read_write_delta_pct": -33.3,
    }
    measures = (
        "read_throughput_mb_s",
        "write_throughput_mb_s",
        "read_avg_io_rate_mb_s",
        "write_avg_io_rate_mb_s",
    )
    (dfsio,) = hibench_plugin.dfsio_blocks([{**row, **dict.fromkeys(measures, 50.0)}])
    assert (
        dfsio.notes == (hibench_plugin.DFSIO_THROUGHPUT,) and "sum of every map's I/O time" in dfsio.notes[0]
    )
    assert "Throughput per data size (data size / mean job time)" in page


def test_one_sign_convention_per_kind_of_table_stated_once(client: Any) -> None:
    """The graph study's % differences (negative: faster) and the links and BigBench studies' % gains
    (positive: better) are two kinds, each with one convention, stated once above the tables."""
    from markupsafe import escape

    page = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN}).text
    legend = re.findall(r"<p class='legend'>Signs, in every study: (.*?)</p>", page, re.S)
    assert legend == [f"{escape(report.DIFFERENCE_NOTE)}; {escape(report.GAIN_NOTE)}."]
    compared = client.get(f"/{STUDY}", params={"campaign": CAMPAIGN, "compare": SECOND}).text
    assert compared.count("Signs, in every study:") == 1


def test_a_download_names_any_campaign_in_a_header_latin_1_can_carry() -> None:
    """A campaign name a warehouse loaded before names were checked (an en dash, a quote, a
    newline) made the CSV and figure downloads fail with HTTP 500: headers are latin-1. The header
    now carries an ASCII fallback and the name percent-encoded (RFC 5987)."""
    from benchcamp.presentation.results_page import _disposition

    header = _disposition("attachment", 'hibench_dse-M\u00e4rz\u2013"Lauf"\n.csv')
    header.encode("latin-1")  # what Starlette does with it
    assert header == (
        'attachment; filename="hibench_dse-M_rz__Lauf__.csv"; '
        "filename*=UTF-8''hibench_dse-M%C3%A4rz%E2%80%93%22Lauf%22%0A.csv"
    )
    assert _disposition("inline", "hibench_dse-run_1-scaling.svg") == (
        "inline; filename=\"hibench_dse-run_1-scaling.svg\"; filename*=UTF-8''hibench_dse-run_1-scaling.svg"
    )
