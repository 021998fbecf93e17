"""The results page: a FastAPI app Airflow serves as a plugin (Browse → Benchmark results).

Every route requires an Airflow login (the UI's session cookie or a Bearer token from
`POST /auth/token`): without one the answer is 401. Pages show a study's campaign exactly
as `benchcamp report` prints it (the same marts, never recomputed), as HTML tables, plus
the hardware fingerprints, with a CSV download. An empty or missing warehouse gives an
explanatory page, not a stack trace.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse

from benchcamp import report
from benchcamp.paths import default_warehouse
from benchcamp.spec import SpecError, load_spec, study_names

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #c8c8c8; padding: 0.25rem 0.6rem; }
td { text-align: right; } td:last-child { text-align: left; }
th { background: #f0f0f0; } .empty { color: #555; max-width: 50rem; }
"""


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


def report_html(text: str) -> str:
    """The text report's pipe tables and lists as HTML (same cells, same order)."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, *body = rows
            out.append(
                "<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr></thead>"
            )
            out.append(
                "<tbody>"
                + "".join(
                    "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body
                )
                + "</tbody></table>"
            )
            rows.clear()

    for line in text.splitlines()[1:]:  # the first line is the title
        if line.startswith("|-"):
            continue
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        flush()
        if line.startswith("- "):
            out.append(f"<li>{html.escape(line[2:])}</li>")
        elif line.strip():
            out.append(f"<h3>{html.escape(line)}</h3>")
    flush()
    return "\n".join(out)


def _empty(study: str, why: str) -> HTMLResponse:
    return _page(
        f"Benchmark results: {study}",
        f"<p class='empty'>Nothing to show yet: {html.escape(why)}. Trigger the <code>{html.escape(study)}</code> "
        "DAG (or run <code>make run</code>); its report task builds what this page shows.</p>",
    )


def _fingerprints(warehouse: Path, study: str, campaign: str) -> list[dict[str, Any]]:
    with report._read_only(warehouse) as con:  # noqa: SLF001 (the report module's read-only opener)
        return report._rows(  # noqa: SLF001
            con,
            "select environment, fingerprint, hosts from main.int_environment_fingerprints "
            "where study = ? and campaign = ? order by environment",
            [study, campaign],
        )


async def require_login(request: Request) -> Any:
    """Airflow's own login check (session cookie or Bearer token), imported per request.

    Every Airflow process (each task too) imports plugins: the API security module is heavy,
    so it is loaded only where a page is actually served.
    """
    from airflow.api_fastapi.core_api.security import bearer_scheme, get_user

    return await get_user(request, None, await bearer_scheme(request))


def create_app(warehouse: Path | None = None) -> FastAPI:
    app = FastAPI(title="benchcamp results", dependencies=[Depends(require_login)])
    target = warehouse

    @app.get("/", response_class=HTMLResponse)
    def index() -> HTMLResponse:
        items = "".join(
            f"<li><a href='{html.escape(name)}'>{html.escape(load_spec(name).title)}</a> ({html.escape(name)})</li>"
            for name in study_names()
        )
        return _page("Benchmark results", f"<ul>{items}</ul>")

    @app.get("/{study}", response_class=HTMLResponse)
    def study_page(study: str, campaign: str | None = Query(default=None)) -> HTMLResponse:
        try:
            load_spec(study)
        except SpecError as exc:
            return _page("Benchmark results", f"<p class='empty'>{html.escape(str(exc))}</p>")
        path = target or default_warehouse()
        try:
            tables = report.read_tables(path, study, campaign)
        except report.ReportError as exc:
            return _empty(study, str(exc))
        chosen = report.campaign_of(tables) or ""
        prints = _fingerprints(path, study, chosen)
        hardware = "".join(
            f"<li>{html.escape(row['environment'])}: <code>{html.escape(str(row['fingerprint']))}</code> "
            f"({row['hosts']} host(s))</li>"
            for row in prints
        )
        body = (
            f"<p>Campaign <b>{html.escape(chosen)}</b> · <a href='{html.escape(study)}/csv?campaign="
            f"{html.escape(chosen)}'>tables as CSV</a></p>"
            f"<h2>Hardware fingerprints</h2><ul>{hardware or '<li>none captured</li>'}</ul>"
            + report_html(report.render(tables, "table", study))
        )
        return _page(f"Benchmark results: {study}", body)

    @app.get("/{study}/csv", response_class=PlainTextResponse)
    def study_csv(study: str, campaign: str | None = Query(default=None)) -> PlainTextResponse:
        try:
            load_spec(study)
            tables = report.read_tables(target or default_warehouse(), study, campaign)
        except (SpecError, report.ReportError) as exc:
            return PlainTextResponse(f"nothing to export: {exc}\n", status_code=404)
        return PlainTextResponse(
            report.render(tables, "csv", study),
            media_type="text/csv",
            headers={"Content-Disposition": f"attachment; filename={study}-{report.campaign_of(tables)}.csv"},
        )

    return app
