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
from urllib.parse import quote

from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from benchcamp.core.paths import default_warehouse
from benchcamp.core.spec import SpecError, load_spec, study_names
from benchcamp.core.study import study_plugin
from benchcamp.presentation import figures, report

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #c8c8c8; padding: 0.25rem 0.6rem; }
td { text-align: right; } td:last-child { text-align: left; }
th { background: #f0f0f0; } .empty { color: #555; max-width: 50rem; }
figure { margin: 0 0 2rem; } .anomalies { color: #c0392b; } .downloads { margin: 0.2rem 0; font-size: 0.9rem; }
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
    return _page(f"Benchmark results: {study}", _empty_body(study, why))


def _empty_body(study: str, why: str) -> str:
    return (
        f"<p class='empty'>Nothing to show yet: {html.escape(why)}. Trigger the <code>{html.escape(study)}</code> "
        "DAG (or run <code>make run</code>); its report task builds what this page shows.</p>"
    )


def _campaign_param(campaign: str | None) -> str | None:
    """Campaign names never hold spaces: a `+` typed unencoded in a URL arrives as one."""
    return campaign.replace(" ", "+") if campaign else campaign


def campaign_figures(warehouse: Path, study: str, tables: report.Tables) -> list[figures.Figure]:
    """The figures of one campaign, plus the study's time series (with hardware-change markers)."""
    history, changes = report.read_history(warehouse, study)
    return figures.study_figures(tables, history, changes, study)


def study_body(warehouse: Path, study: str, tables: report.Tables, downloads: str | None) -> str:
    """The page's content for one campaign: tables as the report prints them, fingerprints, figures.

    `downloads` is the URL prefix of the CSV and figure downloads (None in the static report,
    which embeds everything and links nothing).
    """
    chosen = report.campaign_of(tables) or ""
    hardware = "".join(
        f"<li>{html.escape(row['environment'])}: <code>{html.escape(str(row['fingerprint']))}</code> "
        f"({row['hosts']} host(s))</li>"
        for row in report.fingerprints(warehouse, study, chosen)
    )
    query = f"?campaign={quote(chosen)}"
    links = f" · <a href='{downloads}/csv{query}'>tables as CSV</a>" if downloads is not None else ""
    parts = [
        f"<p>Campaign <b>{html.escape(chosen)}</b>{links}</p>",
        f"<h2>Hardware fingerprints</h2><ul>{hardware or '<li>none captured</li>'}</ul>",
        report_html(report.render(tables, "table", study)),
        "<h2>Figures</h2>",
    ]
    for figure in campaign_figures(warehouse, study, tables):
        download = (
            f"<p class='downloads'><a href='{downloads}/figures/{figure.id}.svg{query}'>SVG</a> · "
            f"<a href='{downloads}/figures/{figure.id}.png{query}'>PNG</a></p>"
            if downloads is not None
            else ""
        )
        notes = "".join(f"<li>{html.escape(note)}</li>" for note in figure.notes)
        caption = f"<figcaption class='anomalies'><ul>{notes}</ul></figcaption>" if notes else ""
        parts.append(f"<figure id='{figure.id}'>{figure.svg()}{caption}{download}</figure>")
    parts += [section(tables) for section in study_plugin(study).page_sections]
    return "\n".join(parts)


def static_report(warehouse: Path, study: str, campaign: str | None = None) -> str:
    """`benchcamp report --format html`: the page's content as one self-contained HTML file."""
    tables = report.read_tables(warehouse, study, campaign)
    body = study_body(warehouse, study, tables, downloads=None)
    return bytes(_page(f"Benchmark results: {study}", body).body).decode()


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
        path = report.readable(target or default_warehouse())
        try:
            tables = report.read_tables(path, study, _campaign_param(campaign))
        except report.ReportError as exc:
            return _empty(study, str(exc))
        return _page(f"Benchmark results: {study}", study_body(path, study, tables, downloads=quote(study)))

    @app.get("/{study}/csv", response_class=PlainTextResponse)
    def study_csv(study: str, campaign: str | None = Query(default=None)) -> PlainTextResponse:
        try:
            load_spec(study)
            tables = report.read_tables(
                report.readable(target or default_warehouse()), study, _campaign_param(campaign)
            )
        except (SpecError, report.ReportError) as exc:
            return PlainTextResponse(f"nothing to export: {exc}\n", status_code=404)
        return PlainTextResponse(
            report.render(tables, "csv", study),
            media_type="text/csv",
            headers={"Content-Disposition": f"attachment; filename={study}-{report.campaign_of(tables)}.csv"},
        )

    @app.get("/{study}/figures/{name}")
    def study_figure(study: str, name: str, campaign: str | None = Query(default=None)) -> Response:
        figure_id, _, fmt = name.rpartition(".")
        if fmt not in ("svg", "png"):
            return PlainTextResponse(f"unknown figure format '{fmt}' (svg or png)\n", status_code=404)
        try:
            load_spec(study)
            path = report.readable(target or default_warehouse())
            tables = report.read_tables(path, study, _campaign_param(campaign))
        except (SpecError, report.ReportError) as exc:
            return PlainTextResponse(f"no figure: {exc}\n", status_code=404)
        chosen = {figure.id: figure for figure in campaign_figures(path, study, tables)}
        if figure_id not in chosen:
            known = ", ".join(chosen) or "none"
            return PlainTextResponse(
                f"no figure '{figure_id}' for {study} (figures: {known})\n", status_code=404
            )
        filename = f"{study}-{report.campaign_of(tables)}-{figure_id}.{fmt}"
        headers = {"Content-Disposition": f"inline; filename={filename}"}
        if fmt == "svg":
            return Response(chosen[figure_id].svg(), media_type="image/svg+xml", headers=headers)
        return Response(chosen[figure_id].png(), media_type="image/png", headers=headers)

    return app
