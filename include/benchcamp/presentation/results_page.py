"""The results page: a FastAPI app Airflow serves as a plugin, shown inside its UI (Browse →
Benchmark results).

Every route requires an Airflow login (the UI's session cookie or a Bearer token from
`POST /auth/token`): without one a browser is sent to Airflow's sign-in page and back, any other
client gets 401. A page shows one campaign of a study (the
latest unless the picker chose another) from the marts' rows, the same rows the text report
prints (`report.study_sections`), rendered by the Jinja2 templates in `templates/`; or two
campaigns side by side with each number's % difference (`?compare=`). Its figures are the
server's SVG, made interactive in the browser by vega-embed; the Vega JavaScript comes from
vl-convert (the package that renders the SVG and PNG downloads, so the browser and the server
draw with the same Vega-Lite) and is served by this app, never from a CDN. An empty or missing
warehouse gives an explanatory page, not a stack trace.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from benchcamp.core.figure import Figure
from benchcamp.core.paths import default_warehouse
from benchcamp.core.spec import SpecError, load_spec, study_names
from benchcamp.core.study import study_plugin
from benchcamp.pipeline import unfinished
from benchcamp.presentation import blocks, figures, report, templating
from benchcamp.presentation.answer_section import KIND as ANSWER
from benchcamp.presentation.progress_display import activity_text, duration_text, summary_text

STATIC = Path(__file__).with_name("static")
STATIC_PREFIX = "_static"  # under the app's prefix; no study id starts with "_"
VEGA_BUNDLE = "vega-bundle.js"  # vega, vega-lite and vega-embed, from vl-convert
# What the page loads, relative to the app's root: the bundle, then our own embedding script.
SCRIPTS = (VEGA_BUNDLE, "figures.js")
ICON = "icon.svg"  # the navigation entry's icon in Airflow's UI (plugins/benchcamp_results.py)


# The bundle's entry: the three libraries as globals, which figures.js (a separate file) uses.
_GLOBALS = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"


def _disposition(kind: str, filename: str) -> str:
    """A Content-Disposition header for any campaign name (RFC 6266): an ASCII fallback, quoted,
    and the name itself percent-encoded (RFC 5987). Headers are latin-1: a name with an en dash
    or a newline (a warehouse loaded before campaign names were checked) made the download a 500."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename)
    return f"{kind}; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


@cache
def vega_bundle() -> str:
    """vega, vega-lite and vega-embed as one script assigning `window.vegaEmbed` (about 0.9 MB).

    vl-convert ships these libraries for its own rendering and bundles them on request: no
    npm toolchain, no second copy to keep in step, and the page's Vega-Lite is the one the
    SVG/PNG downloads were drawn with. Built once per process (about a second).
    """
    import vl_convert

    return str(vl_convert.javascript_bundle(_GLOBALS))


def _page(title: str, body: str, scripts: tuple[str, ...] = ()) -> HTMLResponse:
    return HTMLResponse(_page_html(title, body, scripts))


def _page_html(title: str, body: str, scripts: tuple[str, ...] = ()) -> str:
    return templating.render("page.html.j2", title=title, body=body, scripts=scripts)


def _campaign_param(campaign: str | None) -> str | None:
    """Campaign names never hold spaces: a `+` typed unencoded in a URL arrives as one."""
    return campaign.replace(" ", "+") if campaign else campaign


T = TypeVar("T")


class Kept(Generic[T]):
    """The last `size` values made, by key; a value asked for by several requests at once is made
    once (the others wait for it), and a value that failed to be made is not kept."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[Hashable, T] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            making = self._making.setdefault(key, threading.Lock())
        with making:
            with self._lock:
                if key in self._values:
                    return self._values[key]
            try:
                value = make()
            except BaseException:
                with self._lock:
                    self._making.pop(key, None)
                raise
            with self._lock:
                self._values[key] = value
                self._making.pop(key, None)
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
            return value


@dataclass(frozen=True)
class Drawn:
    """A figure with its drawings made: the SVG and the page's interactive specification."""

    figure: Figure
    svg: str
    interactive: dict[str, Any]


def _drawn(made: list[Figure]) -> list[Drawn]:
    return [Drawn(figure, figure.svg(), figures.interactive(figure.spec)) for figure in made]


# Drawing the figures is most of a page's time (Altair's specification checked against
# Vega-Lite's schema, then vl-convert's SVG): 2.0 of 2.5 s for a study's page over 1,000
# campaigns, the time series alone 1.9 s (benchmarks/results_page_load.py). A page's figures
# are kept while the warehouse holds what they were drawn from: the time series by study (it
# shows the latest campaigns, whichever campaign the page shows), a campaign's own by its rows.
HISTORY_FIGURES: Kept[list[Drawn]] = Kept(16)
CAMPAIGN_FIGURES: Kept[list[Drawn]] = Kept(64)


def warehouse_state(warehouse: Path) -> tuple[Any, ...]:
    """What changes whenever the warehouse file's content may have: the read snapshot is
    replaced whole by each build (a new file), a warehouse read in place writes its file or
    its write-ahead log."""
    parts: list[Any] = [str(warehouse)]
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        try:
            stat = path.stat()
        except OSError:
            parts.append(None)
        else:
            parts.append((stat.st_ino, stat.st_mtime_ns, stat.st_size))
    return tuple(parts)


def _digest(tables: report.Tables) -> str:
    return hashlib.sha256(json.dumps(tables, sort_keys=True, default=str).encode()).hexdigest()


def drawn_figures(warehouse: Path, study: str, tables: report.Tables) -> list[Drawn]:
    """The figures of one campaign (`tables`), then the study's time series (with hardware-change
    and change-point markers), each drawn once per state of the warehouse."""
    state = warehouse_state(warehouse)

    def history() -> list[Drawn]:
        rows, changes = report.read_history(warehouse, study)
        return _drawn(figures.history_figures(rows, changes, report.read_change_points(warehouse, study)))

    own = CAMPAIGN_FIGURES.get(
        (state, study, _digest(tables)), lambda: _drawn(figures.study_figures(tables, study=study))
    )
    return own + HISTORY_FIGURES.get((state, study), history)


def campaign_figures(warehouse: Path, study: str, tables: report.Tables) -> list[Figure]:
    """The figures of one campaign, plus the study's time series (with hardware-change and
    change-point markers)."""
    return [drawn.figure for drawn in drawn_figures(warehouse, study, tables)]


@dataclass(frozen=True)
class Picker:
    """What the picker offers and has chosen (None: the static report, which has no picker)."""

    studies: list[dict[str, str]]
    campaigns: list[dict[str, Any]]
    compare: str | None = None


def _studies() -> list[dict[str, str]]:
    return [{"id": name, "title": load_spec(name).title} for name in study_names()]


def _shown_figures(
    warehouse: Path, study: str, tables: report.Tables, suffix: str = ""
) -> list[dict[str, Any]]:
    """What the templates show of each figure: the SVG, its notes, the interactive specification.

    `suffix` keeps element ids unique when two campaigns' figures share a page.
    """
    return [
        {
            "id": drawn.figure.id,
            "element": drawn.figure.id + suffix,
            "svg": drawn.svg,
            "notes": drawn.figure.notes,
            "spec": drawn.interactive,
        }
        for drawn in drawn_figures(warehouse, study, tables)
    ]


def study_body(
    warehouse: Path,
    study: str,
    tables: report.Tables,
    downloads: str | None,
    picker: Picker | None = None,
    notices: tuple[str, ...] = (),
) -> str:
    """The content for one campaign: its blocks, fingerprints, figures and the study's page sections.

    `downloads` is the URL prefix of the CSV and figure downloads, and makes the figures
    interactive (None in the static report, which embeds the SVG, links nothing, runs no script).
    """
    chosen = report.campaign_of(tables) or ""
    shown = _shown_figures(warehouse, study, tables)
    sections = report.study_sections(tables, study)
    # the answer heads the page, before the fingerprints and the tables
    answer = [part for part in sections if isinstance(part, blocks.Block) and part.kind == ANSWER]
    rest = [part for part in sections if not (isinstance(part, blocks.Block) and part.kind == ANSWER)]
    known = picker.campaigns if picker else report.campaigns(warehouse, study)
    row = next((row for row in known if row["campaign"] == chosen), None)
    return templating.render(
        "study.html.j2",
        study=study,
        campaign=chosen,
        settings=report.settings_line(row.get("settings") if row else None),
        compare=picker.compare if picker else None,
        studies=picker.studies if picker else [],
        campaigns=picker.campaigns if picker else [],
        notices=notices,
        downloads=downloads,
        interactive=downloads is not None,
        fingerprints=report.fingerprints(warehouse, study, chosen),
        answer=answer,
        sections=rest,
        sign_conventions=report.SIGN_CONVENTIONS,
        other_environments=other_environments(picker.campaigns, chosen) if picker else [],
        environment_pairs=environment_pairs(study, report.environments_of(tables)) if picker else [],
        figures=shown,
        page_sections=[section(tables) for section in study_plugin(study).page_sections],
    )


def compare_body(
    warehouse: Path,
    study: str,
    baseline: report.Tables,
    compared: report.Tables,
    picker: Picker,
    notices: tuple[str, ...] = (),
    environments: tuple[str, str] | None = None,
    within: bool = False,
) -> str:
    """Two campaigns side by side: the same blocks, the second's numbers with their % difference;
    `environments` when each ran on its own target (a comparison by environment, `blocks.compare`).
    `within`: the two sides are two environments of one campaign (`report.for_environment`),
    each labelled `<campaign> · <environment>`."""
    names = (report.campaign_of(baseline) or "", report.campaign_of(compared) or "")
    campaigns = names
    if within and environments:
        names = (f"{names[0]} · {environments[0]}", f"{names[1]} · {environments[1]}")
    parts = (report.study_sections(baseline, study), report.study_sections(compared, study))
    comparison = blocks.compare(
        (names[0], [part for part in parts[0] if isinstance(part, blocks.Block)]),
        (names[1], [part for part in parts[1] if isinstance(part, blocks.Block)]),
        environments,
    )
    # sections a study prints only as text lines: shown side by side, not compared cell by cell
    legacy = [
        ("Report section", ["\n".join(a).strip("\n"), "\n".join(b).strip("\n")])
        for a, b in zip(
            [part for part in parts[0] if not isinstance(part, blocks.Block)],
            [part for part in parts[1] if not isinstance(part, blocks.Block)],
            strict=False,
        )
    ]
    return templating.render(
        "compare.html.j2",
        study=study,
        campaign=campaigns[0],
        compare=campaigns[1],
        side_campaigns=campaigns,
        within=within,
        studies=picker.studies,
        campaigns=picker.campaigns,
        notices=notices,
        comparison=comparison,
        sign_conventions=report.SIGN_CONVENTIONS,
        legacy=legacy,
        downloads=quote(study),
        interactive=True,
        figures=[
            {"campaign": names[0], "figures": _shown_figures(warehouse, study, baseline, "-a")},
            {"campaign": names[1], "figures": _shown_figures(warehouse, study, compared, "-b")},
        ],
        fingerprints=_side_fingerprints(warehouse, study, names, campaigns, environments if within else None),
    )


def _side_fingerprints(
    warehouse: Path,
    study: str,
    names: tuple[str, str],
    campaigns: tuple[str, str],
    within: tuple[str, str] | None,
) -> list[dict[str, Any]]:
    """Each side's fingerprints: its campaign's, or (`within` one campaign, read once) the rows of
    that side's environment."""
    if within is None:
        return [
            {"campaign": name, "rows": report.fingerprints(warehouse, study, campaign)}
            for name, campaign in zip(names, campaigns, strict=True)
        ]
    rows = report.fingerprints(warehouse, study, campaigns[0])
    return [
        {"campaign": name, "rows": [row for row in rows if row["environment"] == environment]}
        for name, environment in zip(names, within, strict=True)
    ]


def static_report(warehouse: Path, study: str, campaign: str | None = None) -> str:
    """`benchcamp report --format html`: the page's content as one self-contained HTML file."""
    tables = report.read_tables(warehouse, study, campaign)
    body = study_body(warehouse, study, tables, downloads=None)
    return _page_html(f"Benchmark results: {study}", body)


async def require_login(request: Request) -> Any:
    """Airflow's own login check (session cookie or Bearer token), imported per request.

    Every Airflow process (each task too) imports plugins: the API security module is heavy,
    so it is loaded only where a page is actually served.
    """
    from airflow.api_fastapi.core_api.security import bearer_scheme, get_user

    return await get_user(request, None, await bearer_scheme(request))


def login_url(next_url: str) -> str:
    """The sign-in page of Airflow's auth manager, coming back to `next_url` after it (Airflow's
    SimpleAuthManager: `/auth/login?next=...`; the same path when no auth manager is set up)."""
    try:
        from airflow.api_fastapi.app import get_auth_manager

        return get_auth_manager().get_url_login(next_url=next_url)
    except Exception:  # not initialised (a test's app, a static report): Airflow's default path
        from urllib.parse import urlencode

        return f"/auth/login?{urlencode({'next': next_url})}"


def wants_html(request: Request) -> bool:
    """A browser opening a page (not a script with a token, not a download fetched by code)."""
    return "text/html" in request.headers.get("accept", "") and "authorization" not in request.headers


def unfinished_notices(study: str, now: datetime | None = None, root: Path | None = None) -> list[str]:
    """One line per campaign of the study still under way, read from its archive: its counts
    per target and its current step; one quiet for `unfinished.QUIET_S` says it may have stopped."""
    now = now or datetime.now(UTC)
    lines = []
    for item in unfinished.unfinished_campaigns(study, now, root):
        quiet = item.quiet_s(now)
        if quiet < unfinished.QUIET_S:
            head, elapsed, now_word = f"Campaign {item.campaign} is running", (now - item.started), "now"
        else:
            head = (
                f"Campaign {item.campaign} has not ended, and nothing of it was written for "
                f"{duration_text(quiet)}: interrupted, or in a long step"
            )
            elapsed, now_word = item.last_written - item.started, "last"
        targets = "; ".join(
            f"{target.target}: {summary_text(target, max(elapsed.total_seconds(), 0.0))} · "
            f"{now_word}: {activity_text(target)}"
            for target in item.targets
        )
        lines.append(f"{head} ({targets}). Its figures appear here once its analysis has run.")
    return lines


def _study_page(
    warehouse: Path, study: str, campaign: str | None, compare: str | None, environments: str | None = None
) -> HTMLResponse:
    """A study's page: the chosen campaign (latest by default), or the comparison of two, below
    the campaigns still under way."""
    title = f"Benchmark results: {study}"
    studies = _studies()
    running = unfinished_notices(study)
    try:
        known = report.campaigns(warehouse, study)
    except report.ReportError as exc:
        return _page(
            title, templating.render("empty.html.j2", study=study, why=str(exc), studies=[], notices=running)
        )
    names = {row["campaign"] for row in known}
    notices = list(running)
    campaign, compare = _campaign_param(campaign), _campaign_param(compare)
    if campaign and campaign not in names:
        notices.append(f"No campaign '{campaign}' in study {study}: showing the latest.")
        campaign = None
    if compare and compare not in names:
        notices.append(f"No campaign '{compare}' in study {study} to compare with.")
        compare = None
    if not campaign and known:  # the latest complete campaign: a later smoke run does not hide it
        default = report.default_campaign(known)
        campaign = str(default["campaign"]) if default else None
        later = [row["campaign"] for row in known[: known.index(default)]] if default else []
        if later:
            notices.append(
                f"Showing the latest complete campaign, {campaign}; later partial campaign(s): "
                f"{', '.join(later)} (choose one above)."
            )
    chosen = next((row for row in known if row["campaign"] == campaign), None)
    if chosen is not None and not chosen["complete"]:
        notices.append(
            f"Campaign {campaign} is partial: {chosen['cells']} cell(s) on {chosen['environments']}, "
            f"fewer than the {chosen['full_cells']} of the study's smallest full matrix on those targets "
            "(a subset of workloads or cells, or an interrupted run)."
        )
    picker = Picker(studies, known, compare)
    try:
        tables = report.read_tables(warehouse, study, campaign)
    except report.ReportError as exc:
        body = templating.render(
            "empty.html.j2",
            study=study,
            why=str(exc),
            studies=studies,
            campaigns=known,
            campaign=campaign or "",
            compare=compare or "",
            notices=notices,
        )
        return _page(title, body)
    pair = _environment_pair(environments, report.environments_of(tables), notices)
    if pair is not None:
        body = compare_body(
            warehouse, study, report.for_environment(tables, pair[0]), report.for_environment(tables, pair[1]),
            picker, tuple(notices), pair, within=True,
        )  # fmt: skip
        return _page(title, body, scripts=_scripts())
    if compare and compare != report.campaign_of(tables):
        try:
            other = report.read_tables(warehouse, study, compare)
        except report.ReportError as exc:
            notices.append(f"Cannot compare with '{compare}': {exc}.")
        else:
            for name, side in ((report.campaign_of(tables) or "", tables), (compare, other)):
                warning = report.few_runs_warning(name, side)
                if warning:
                    notices.append(warning)
            body = compare_body(
                warehouse, study, tables, other, picker, tuple(notices),
                environments_compared(known, report.campaign_of(tables) or "", compare),
            )  # fmt: skip
            return _page(title, body, scripts=_scripts())
    body = study_body(warehouse, study, tables, quote(study), picker, tuple(notices))
    return _page(title, body, scripts=_scripts())


def _environment_pair(asked: str | None, present: list[str], notices: list[str]) -> tuple[str, str] | None:
    """`environments=a,b` of a request: two different targets of the shown campaign, else None
    (with a notice saying why when something was asked)."""
    if not asked:
        return None
    names = [name.strip() for name in asked.split(",") if name.strip()]
    if len(names) != 2 or names[0] == names[1]:
        notices.append(f"environments={asked!r}: give two different environments of the campaign, as 'a,b'.")
        return None
    missing = [name for name in names if name not in present]
    if missing:
        notices.append(
            f"The campaign ran on {', '.join(present) or 'no environment'}, not on {', '.join(missing)}: "
            "showing it whole."
        )
        return None
    return names[0], names[1]


def environments_compared(
    known: list[dict[str, Any]], baseline: str, compared: str
) -> tuple[str, str] | None:
    """The two environments of a comparison by environment: each campaign ran on one target and
    the targets differ (a study storing one campaign per environment: bare vs container, disk vs
    RAM, link levels); None otherwise."""
    targets = {str(row["campaign"]): str(row.get("environments") or "").split(",") for row in known}
    sides = targets.get(baseline, []), targets.get(compared, [])
    if all(len(side) == 1 and side[0] for side in sides) and sides[0] != sides[1]:
        return sides[0][0], sides[1][0]
    return None


def environment_pairs(study: str, environments: list[str]) -> list[tuple[str, str]]:
    """For a campaign on several targets: the page's comparisons between them, the study's
    baseline environment (else the first) against each other one (none for one target)."""
    if len(environments) < 2:
        return []
    baselines = [
        env.name for env in load_spec(study).environments if env.baseline and env.name in environments
    ]
    first = baselines[0] if baselines else environments[0]
    return [(first, other) for other in environments if other != first]


def other_environments(known: list[dict[str, Any]], campaign: str) -> list[dict[str, str]]:
    """For a campaign on one target: the latest campaign (complete if any) on each other single
    target of the study, the page's one-click comparisons by environment (none otherwise)."""
    targets = {str(row["campaign"]): str(row.get("environments") or "") for row in known}
    mine = targets.get(campaign, "")
    if not mine or "," in mine:
        return []
    latest: dict[str, dict[str, Any]] = {}
    for row in known:  # latest first: keep the first complete one, else the first
        environment = targets[str(row["campaign"])]
        if environment == mine or "," in environment or not environment:
            continue
        if environment not in latest or (row.get("complete") and not latest[environment].get("complete")):
            latest[environment] = row
    return [{"environment": env, "campaign": str(row["campaign"])} for env, row in sorted(latest.items())]


def _scripts() -> tuple[str, ...]:
    """The script URLs a page with interactive figures loads, relative to the app's root."""
    return tuple(f"{STATIC_PREFIX}/{name}" for name in SCRIPTS)


def create_app(warehouse: Path | None = None) -> FastAPI:
    """The page's app; `warehouse` None reads the default warehouse's snapshot per request."""
    app = FastAPI(title="benchcamp results", dependencies=[Depends(require_login)])
    target = warehouse

    @app.exception_handler(StarletteHTTPException)
    async def sign_in_first(request: Request, exc: StarletteHTTPException) -> Response:
        """A browser without a session goes to the sign-in page and back, instead of reading
        `{"detail":"Not authenticated"}`; API clients still get the 401."""
        if exc.status_code == 401 and wants_html(request):
            return RedirectResponse(login_url(str(request.url)), status_code=303)
        return await http_exception_handler(request, exc)

    def path() -> Path:
        return report.readable(target or default_warehouse())

    @app.get(f"/{STATIC_PREFIX}/{{name}}")
    def static(name: str) -> Response:
        """The page's scripts (the Vega bundle from vl-convert, our own figures.js) and its icon."""
        headers = {"Cache-Control": "private, max-age=86400"}
        if name == VEGA_BUNDLE:
            return Response(vega_bundle(), media_type="text/javascript", headers=headers)
        if name in SCRIPTS:
            return Response((STATIC / name).read_text(), media_type="text/javascript", headers=headers)
        if name == ICON:
            return Response((STATIC / name).read_text(), media_type="image/svg+xml", headers=headers)
        return PlainTextResponse(f"no file '{name}'\n", status_code=404)

    @app.get("/", response_class=HTMLResponse)
    def index(
        study: str | None = Query(default=None),
        campaign: str | None = Query(default=None),
        compare: str | None = Query(default=None),
        environments: str | None = Query(default=None),
    ) -> HTMLResponse:
        """The list of studies, or (with `?study=`, what the picker sends) that study's page."""
        if study:
            return study_page(study, campaign, compare, environments)
        body = templating.render("index.html.j2", title="Benchmark results", studies=_studies())
        return _page("Benchmark results", body)

    @app.get("/{study}", response_class=HTMLResponse)
    def study_page(
        study: str,
        campaign: str | None = Query(default=None),
        compare: str | None = Query(default=None),
        environments: str | None = Query(default=None),
    ) -> HTMLResponse:
        try:
            load_spec(study)
        except SpecError as exc:
            return _page(
                "Benchmark results",
                templating.render("empty.html.j2", study=study, why=str(exc), studies=[], notices=[]),
            )
        return _study_page(path(), study, campaign, compare, environments)

    @app.get("/{study}/csv", response_class=PlainTextResponse)
    def study_csv(study: str, campaign: str | None = Query(default=None)) -> PlainTextResponse:
        try:
            load_spec(study)
            tables = report.read_tables(path(), study, _campaign_param(campaign))
        except (SpecError, report.ReportError) as exc:
            return PlainTextResponse(f"nothing to export: {exc}\n", status_code=404)
        return PlainTextResponse(
            report.render(tables, "csv", study),
            media_type="text/csv",
            headers={
                "Content-Disposition": _disposition("attachment", f"{study}-{report.campaign_of(tables)}.csv")
            },
        )

    @app.get("/{study}/figures/{name}")
    def study_figure(study: str, name: str, campaign: str | None = Query(default=None)) -> Response:
        figure_id, _, fmt = name.rpartition(".")
        if fmt not in ("svg", "png"):
            return PlainTextResponse(f"unknown figure format '{fmt}' (svg or png)\n", status_code=404)
        try:
            load_spec(study)
            source = path()
            tables = report.read_tables(source, study, _campaign_param(campaign))
        except (SpecError, report.ReportError) as exc:
            return PlainTextResponse(f"no figure: {exc}\n", status_code=404)
        chosen = {drawn.figure.id: drawn for drawn in drawn_figures(source, study, tables)}
        if figure_id not in chosen:
            known = ", ".join(chosen) or "none"
            return PlainTextResponse(
                f"no figure '{figure_id}' for {study} (figures: {known})\n", status_code=404
            )
        filename = f"{study}-{report.campaign_of(tables)}-{figure_id}.{fmt}"
        headers = {"Content-Disposition": _disposition("inline", filename)}
        if fmt == "svg":
            return Response(chosen[figure_id].svg, media_type="image/svg+xml", headers=headers)
        return Response(chosen[figure_id].figure.png(), media_type="image/png", headers=headers)

    return app
