"""Each study's results page in Debian's Chromium, on the warehouse of recorded results.

The page is served by the results app itself (uvicorn on a free loopback port, signed in as
Airflow's session would be) over the study contract test's recorded warehouse: every figure must
become a live vega-embed view; hovering a mark must show a tooltip whose entries are titled (no
raw field name, no placeholder such as "Value") and whose units are the tables' for the same
measure; a study whose recordings ran on several environments must offer the comparison by
environment, and it must render side by side. Screenshots land in test-artifacts/browser/pages/.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from helpers.study_contract import STUDIES

pytestmark = pytest.mark.integration
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser" / "pages"
PLACEHOLDERS = {"x", "y", "value", "values", "field", "data"}
LABEL = re.compile(r"^(?P<name>.*?)\s*\((?P<unit>[^()]+)\)\s*$")
# The compared tables wider than their column: side by side, the part past it is scrolled out of view.
CUT_TABLES = """() => [...document.querySelectorAll('.compare-grid table')]
  .filter((table) => table.scrollWidth > table.parentElement.clientWidth + 1)
  .map((table) => table.closest('.compare-block')?.querySelector('h3')?.textContent || table.className)"""
UNIT = re.compile(r"^(%|[µmn]?s|min|h|[kKMGT]i?B(/s)?|[kMG]?bit(/s)?|ops/s)$")  # not "(axes)"


@pytest.fixture(scope="module")
def base(recorded: Path) -> Iterator[str]:
    """The results app over the recorded warehouse, on a free loopback port, signed in."""
    import uvicorn
    from airflow.api_fastapi.auth.managers.simple.user import SimpleAuthManagerUser
    from benchcamp.presentation.results_page import create_app, require_login
    from helpers.web import free_port

    app = create_app(recorded)
    app.dependency_overrides[require_login] = lambda: SimpleAuthManagerUser(username="admin", role="admin")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the results app did not start"
        time.sleep(0.1)
    yield f"http://127.0.0.1:{server.config.port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    from helpers.web import chromium_page

    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page() as opened:
        yield opened


def _open(page: Any, url: str) -> None:
    """The page, once every figure is a live view (or has said why not)."""
    answer = page.goto(url)
    assert answer is not None and answer.status == 200, url
    page.wait_for_function(
        "() => [...document.querySelectorAll('.chart[data-spec]')]"
        ".every(c => c.classList.contains('interactive') || c.dataset.error)",
        timeout=60_000,
    )
    failed = page.locator(".chart[data-error]")
    assert failed.count() == 0, [failed.nth(i).get_attribute("data-error") for i in range(failed.count())]


def _tooltip(page: Any, chart: Any) -> list[str]:
    """The tooltip's entry names after hovering the chart's first point or bar ([] without one)."""
    marks = chart.locator("g.mark-symbol path, g.mark-rect path")
    if marks.count() == 0:
        return []
    marks.first.hover(force=True)
    tip = page.locator("#vg-tooltip-element")
    tip.wait_for(state="visible", timeout=10_000)
    keys = [key.strip() for key in tip.locator("td.key").all_inner_texts()]
    page.mouse.move(0, 0)
    tip.wait_for(state="hidden", timeout=10_000)
    return keys


def _units(labels: list[str]) -> dict[str, set[str]]:
    """Measure (the last word of a label's name, lower case) -> the units it is shown in."""
    found: dict[str, set[str]] = {}
    for label in labels:
        match = LABEL.match(label.strip())
        if match and match["name"] and UNIT.match(match["unit"].strip()):
            found.setdefault(match["name"].split()[-1].lower(), set()).add(match["unit"].strip())
    return found


def _environments(warehouse: Path, study: str) -> set[str]:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        rows = connection.execute("select distinct environment from raw.results where study = ?", [study])
        return {str(row[0]) for row in rows.fetchall()}


@pytest.mark.parametrize("study", STUDIES)
def test_each_studys_figures_are_live_titled_and_in_the_tables_units(
    base: str, page: Any, study: str
) -> None:
    _open(page, f"{base}/{study}")
    page.screenshot(path=str(SHOTS / f"{study}.png"), full_page=True)
    tables = _units(page.locator("th").all_inner_texts())
    table_units = set().union(*tables.values()) if tables else set()
    charts = page.locator(".chart[data-spec]")
    for index in range(charts.count()):
        chart = charts.nth(index)
        spec = page.locator(f"script#{chart.get_attribute('data-spec')}").inner_text()
        fields = set(re.findall(r'"field": "([^"]+)"', spec))
        keys = _tooltip(page, chart)
        assert keys, f"{study}, figure {index}: no tooltip on its first mark"
        raw = [key for key in keys if key in fields or "_" in key or key.lower() in PLACEHOLDERS]
        assert raw == [], f"{study}, figure {index}: untitled tooltip entries {raw} ({keys})"
        titles = chart.locator("g.role-axis-title text").evaluate_all(
            "texts => texts.map(t => t.textContent)"
        )
        axes = [str(text) for text in titles if text and text.strip()]
        for measure, units in _units(keys + axes).items():
            assert units <= table_units, (
                f"{study}, figure {index}: {measure} in {units}, tables: {table_units}"
            )
            if measure in tables:  # the same measure in a table: the same unit
                assert units <= tables[measure], (
                    f"{study}, figure {index}: {measure} {units} vs {tables[measure]}"
                )


@pytest.mark.parametrize("study", STUDIES)
def test_a_study_on_several_environments_is_compared_by_environment(
    base: str,
    page: Any,
    study: str,
    recorded: Path,  # noqa: F811 (the fixture, by name)
) -> None:
    """Within one campaign (`environments=a,b`) or with another campaign's environment: each
    offered comparison opens side by side with both environments' tables."""
    _open(page, f"{base}/{study}")
    offers = page.locator("p", has_text=re.compile(r"^Compare (the environments|by environment)")).locator(
        "a"
    )
    hrefs = [offers.nth(i).get_attribute("href") for i in range(offers.count())]
    if len(_environments(recorded, study)) < 2:
        assert hrefs == [], hrefs
        return
    assert hrefs, f"{study} ran on several environments: no comparison by environment offered"
    for number, href in enumerate(hrefs):
        _open(
            page, f"{base}/{href.removeprefix('./')}" if href and href.startswith("./") else f"{base}{href}"
        )
        text = page.locator("body").inner_text()
        assert "By environment:" in text and ("side by side" in text or "compared with" in text), text[:2000]
        assert page.locator(".compare-block").count() > 0, "no table matched side by side"
        page.set_viewport_size({"width": 1440, "height": 1000})  # issue 50: tables fit or stack
        cut = page.evaluate(CUT_TABLES)
        assert cut == [], f"tables cut off at 1440 px, neither fitting nor stacked: {cut}"
        # the view's own address, to share: the frame's, its query (environments) included
        assert page.locator("a.permalink").get_attribute("href") == page.url
        page.screenshot(path=str(SHOTS / f"{study}-environments-{number + 1}.png"), full_page=True)
        page.set_viewport_size({"width": 1400, "height": 1000})
