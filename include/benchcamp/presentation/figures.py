"""The study's figures as Vega-Lite (Altair), rendered to SVG and PNG on the server (vl-convert).

Figures plot mart columns only: every point is a number a table of the report also shows
(or, for the time series, a row of the `campaign_history` mart), so a figure never says
something the tables do not. Rendering needs no browser, no JavaScript and no network:
the downloads are the SVG or a PNG, the static HTML report embeds the SVG and is one
self-contained file. The results page shows the SVG first and then, in the browser, the same
specification through vega-embed (`interactive`: tooltips, and zoom/pan on the continuous
axes), with the Vega JavaScript the page's own app serves (`results_page`).
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from typing import Any

from benchcamp.core.figure import Figure
from benchcamp.core.study import study_plugin
from benchcamp.presentation.marts import study_of

Rows = list[dict[str, Any]]

WIDTH = 520
HEIGHT = 300


ZOOM = "zoom"  # the interval selection bound to the scales: drag to pan, wheel to zoom


def _first_unit(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The first single-mark view of a (possibly layered) specification: where a selection may live."""
    if "mark" in spec:
        return spec
    for layer in spec.get("layer", []):
        found = _first_unit(layer) if isinstance(layer, dict) else None
        if found is not None:
            return found
    return None


def interactive(spec: dict[str, Any]) -> dict[str, Any]:
    """The specification with zoom and pan on its continuous axes, for the page's embedded view.

    An interval selection bound to the scales is Vega-Lite's own zoom/pan; it is added to the
    first unit view (a layered chart shares its scales, so every layer follows) and limited to
    the quantitative or temporal x/y encodings (a band of categories does not zoom). The SVG
    and PNG downloads keep the plain specification: a static picture has nothing to zoom.
    Tooltips get titles with units and rounded numbers (`readable_tooltips`), the continuous x
    axis some padding (`padded_axes`).
    """
    copy = padded_axes(readable_tooltips(spec))
    unit = _first_unit(copy)
    if unit is None:
        return copy
    encoding = unit.get("encoding", {})
    top = copy.get("encoding", {})
    channels = [
        channel
        for channel in ("x", "y")
        if str((encoding.get(channel) or top.get(channel) or {}).get("type", ""))
        in ("quantitative", "temporal")
    ]
    if channels:
        zoom = {"name": ZOOM, "select": {"type": "interval", "encodings": channels}, "bind": "scales"}
        unit["params"] = [*unit.get("params", []), zoom]
    return copy


# What a figure's fields are, with their units, as tooltips and readers name them (the tables' words).
FIELD_TITLES = {
    "series": "Environment (axes)",
    "line": "Line",
    "cell": "Cell",
    "workload": "Workload",
    "environment": "Environment",
    "phase": "Phase",
    "data_size_gb": "Data size (GB)",
    "mean_s": "Mean time (s)",
    "stddev_s": "σ (s)",
    "n": "Repetitions",
    "linear_projection_s": "Linear projection (s)",
    "throughput_mb_s": "Throughput (MB/s)",
    "seconds": "Time (s)",
    "campaign": "Campaign",
    "run_type": "Run type",
    "logical_date": "Logical date",
    "fingerprint": "Hardware fingerprint",
    "label": "Marker",
    "from": "Fingerprint before",
    "to": "Fingerprint after",
    "before": "Mean before",
    "after": "Mean after",
    "change_pct": "Change (%)",
    "p_adjusted": "p (adjusted)",
    "target_ops": "Offered load (ops/s)",
    "throughput_ops_s": "Achieved throughput (ops/s)",
    "avg_latency_us": "Average latency (µs)",
    "anomaly": "Anomaly",
}
_UNITS = (
    ("_mb_s", "MB/s"),
    ("_ops_s", "ops/s"),
    ("_pct", "%"),
    ("_us", "µs"),
    ("_ms", "ms"),
    ("_gb", "GB"),
    ("_s", "s"),
)
# Numbers in tooltips: three significant figures, whole and thousands separated from 100 on (the
# answer block's rounding: 0.012 GB stays 0.012, 8.3156 s is 8.32, 1,234.5 ops/s is 1,235); p-values
# in three significant digits. An empty value shows as a dash, never as "null" or a made-up 0.
_FORMATS = {"p_adjusted": ".3~g"}
NUMBER_FORMAT = ".3~r"
LARGE_FORMAT = ",.0f"  # from 100 on
_TYPES = {"Q": "quantitative", "N": "nominal", "O": "ordinal", "T": "temporal"}


def field_title(field: str) -> str:
    """A field's title with its unit (`FIELD_TITLES`, else from its suffix: `p95_latency_us` ->
    `p95 latency (µs)`)."""
    if field in FIELD_TITLES:
        return FIELD_TITLES[field]
    for suffix, unit in _UNITS:
        if field.endswith(suffix) and len(field) > len(suffix):
            return f"{field[: -len(suffix)].replace('_', ' ').capitalize()} ({unit})"
    return field.replace("_", " ").capitalize()


def readable_tooltips(spec: dict[str, Any]) -> dict[str, Any]:
    """The specification with every tooltip titled (with units) and its numbers rounded.

    Figures (the study plugins' too) list tooltip fields by name; here each gets its title, and
    its value is shown through a calculated text field: a number formatted, an empty value as a
    dash (Vega would print `null`, or 0 through a format)."""
    copy = json.loads(json.dumps(spec))
    _retitle(copy)
    return copy


def _retitle(view: Any) -> None:
    if isinstance(view, list):
        for item in view:
            _retitle(item)
        return
    if not isinstance(view, dict):
        return
    for value in view.values():
        _retitle(value)
    encoding = view.get("encoding")
    tooltip = encoding.get("tooltip") if isinstance(encoding, dict) else None
    if not isinstance(encoding, dict) or not isinstance(tooltip, list):
        return
    entries: list[Any] = []
    calculations: list[dict[str, str]] = []
    for entry in tooltip:
        if isinstance(entry, str):
            field, _, code = entry.partition(":")
            entry = {"field": field, "type": _TYPES.get(code or "N", "nominal")}
        if not isinstance(entry, dict) or "field" not in entry:
            entries.append(entry)
            continue
        field = str(entry["field"])
        title = entry.get("title") or field_title(field)
        if entry.get("type") == "quantitative":
            shown = f"tip_{len(calculations)}_{slug(field)}"
            number = f"datum[{json.dumps(field)}]"
            if field in _FORMATS:
                text = f"format({number}, {json.dumps(_FORMATS[field])})"
            else:
                text = (
                    f"abs({number}) >= 100 ? format({number}, {json.dumps(LARGE_FORMAT)}) "
                    f": format({number}, {json.dumps(NUMBER_FORMAT)})"
                )
            calculations.append({"calculate": f"isValid({number}) ? ({text}) : '—'", "as": shown})
            entries.append({"field": shown, "type": "nominal", "title": title})
        elif entry.get("type") in ("nominal", "ordinal"):
            shown = f"tip_{len(calculations)}_{slug(field)}"
            text = f"datum[{json.dumps(field)}]"
            calculations.append(
                {"calculate": f"isValid({text}) && {text} !== '' ? {text} : '—'", "as": shown}
            )
            entries.append({"field": shown, "type": "nominal", "title": title})
        else:
            entries.append({**entry, "title": title})
    encoding["tooltip"] = entries
    if calculations:
        view["transform"] = [*view.get("transform", []), *calculations]


def padded_axes(spec: dict[str, Any], pixels: int = 12) -> dict[str, Any]:
    """The specification with its continuous x scales padded: the page's zoom binding clips marks
    to the plot, which cut the points at the x axis' ends (the smallest and largest size) in half.
    Not y: its scale starts at zero and is rounded up to a tick, so no point sits on its edge, and
    padding it would push the axis below zero."""
    copy = json.loads(json.dumps(spec))

    def pad(view: Any) -> None:
        if isinstance(view, list):
            for item in view:
                pad(item)
        elif isinstance(view, dict):
            for value in view.values():
                pad(value)
            encoding = view.get("encoding")
            if not isinstance(encoding, dict):
                return
            definition = encoding.get("x")
            if isinstance(definition, dict) and definition.get("type") in ("quantitative", "temporal"):
                definition["scale"] = {"padding": pixels, "nice": False, **(definition.get("scale") or {})}

    pad(copy)
    return copy


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "all"


def plain(value: Any) -> Any:
    """JSON-safe values for the embedded data (timestamps as ISO strings)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def _series_label(row: dict[str, Any]) -> str:
    series = (row.get("series_params") or "").replace("|", ", ")
    return f"{row['environment']}" + (f" ({series})" if series else "")


def _data(rows: Rows, fields: tuple[str, ...], **extra: Any) -> list[dict[str, Any]]:
    return [
        {**{name: plain(row.get(name)) for name in fields}, **extra, "series": _series_label(row)}
        for row in rows
    ]


def time_vs_size(workload: str, rows: Rows) -> Figure:
    """Mean time ± σ per data size, with the linear-scaling projection from the smallest size (dashed)."""
    import altair as alt

    fields = ("data_size_gb", "mean_s", "stddev_s", "linear_projection_s", "n")
    values = _data([row for row in rows if row.get("mean_s") is not None], fields)
    base = alt.Chart(alt.Data(values=values)).encode(
        x=alt.X("data_size_gb:Q", title="Data size (GB)"),
        color=alt.Color("series:N", title="Environment (axes)"),
    )
    measured = base.mark_line(point=True).encode(
        y=alt.Y("mean_s:Q", title="Time (s)"),
        tooltip=["series:N", "data_size_gb:Q", "mean_s:Q", "stddev_s:Q", "n:Q"],
    )
    spread = (
        base.transform_calculate(low="datum.mean_s - datum.stddev_s", high="datum.mean_s + datum.stddev_s")
        .transform_filter("isValid(datum.stddev_s)")
        .mark_rule()
        .encode(y="low:Q", y2="high:Q")
    )
    projection = (
        base.transform_filter("isValid(datum.linear_projection_s)")
        .mark_line(strokeDash=[5, 4], opacity=0.7)
        .encode(y="linear_projection_s:Q")
    )
    title = f"{workload}: time vs data size (dashed: linear projection from the smallest size)"
    chart = alt.layer(projection, spread, measured).properties(title=title, width=WIDTH, height=HEIGHT)
    return Figure(f"time-vs-size-{slug(workload)}", title, chart.to_dict())


def throughput_per_size(rows: Rows) -> Figure:
    """Throughput (MB/s) per data size, one line per workload and environment."""
    import altair as alt

    values = [
        {**item, "line": f"{item['workload']} · {item['series']}"}
        for item in _data(
            [row for row in rows if row.get("throughput_mb_s") is not None],
            ("workload", "data_size_gb", "throughput_mb_s"),
        )
    ]
    title = "Throughput per data size (data size / mean job time)"
    chart = (
        alt.Chart(alt.Data(values=values))
        .mark_line(point=True)
        .encode(
            x=alt.X("data_size_gb:Q", title="Data size (GB)"),
            y=alt.Y("throughput_mb_s:Q", title="Throughput (MB/s)"),
            color=alt.Color("line:N", title="Workload · environment"),
            tooltip=["line:N", "data_size_gb:Q", "throughput_mb_s:Q"],
        )
        .properties(title=title, width=WIDTH, height=HEIGHT)
    )
    return Figure("throughput-per-size", title, chart.to_dict())


def time_series(history: Rows, changes: Rows, change_points: Rows | None = None) -> Figure:
    """Each cell's campaign mean, campaign by campaign in the order they finished, one line per
    cell; a red rule at the first campaign on changed hardware, an orange one at the first after a
    regression and a green one at the first after an improvement (`change_points`, any tracked
    metric: the tooltip names it). The legend sits below the plot, its labels whole."""
    import altair as alt

    points = [
        {
            **item,
            "cell": f"{row['workload']} {row['data_size_gb']:g} GB · {item['series']}",
            "run_type": row.get("run_type") or "imported",
        }
        for row in history
        if row.get("mean_s") is not None
        and row.get("data_size_gb") is not None  # YCSB cells have no size: their durations are not the figure
        for item in _data(
            [row], ("campaign", "last_finished_at", "logical_date", "mean_s", "stddev_s", "fingerprint")
        )
    ]
    markers = [
        {
            "marker_at": plain(change["marker_at"]),
            "label": f"hardware change on {change['environment']}",
            "campaign": change["campaign"],
            "from": change["previous_fingerprint"],
            "to": change["fingerprint"],
        }
        for change in changes
    ]
    # By campaign, in the order they finished: one x position per campaign (a time axis repeated
    # its tick labels for campaigns of one day and spread weekly ones unevenly), one line per cell.
    finished: dict[str, str] = {}
    for point in points:
        when = str(point["last_finished_at"] or "")  # an imported campaign may have no times: first
        finished[point["campaign"]] = max(finished.get(point["campaign"], ""), when)
    order = sorted(finished, key=lambda name: (finished[name], name))
    campaign_axis = alt.X(
        "campaign:O",
        title="Campaign (in the order they finished)",
        sort=order,
        scale=alt.Scale(domain=order),
        axis=alt.Axis(labelAngle=-30, labelLimit=220),
    )
    lines = (
        alt.Chart(alt.Data(values=points))
        .mark_line(point=True)
        .encode(
            x=campaign_axis,
            y=alt.Y("mean_s:Q", title="Mean time (s)"),
            color=alt.Color(
                "cell:N", title="Cell", legend=alt.Legend(orient="bottom", columns=1, labelLimit=0)
            ),
            shape=alt.Shape("run_type:N", title="Run"),
            detail="fingerprint:N",  # a line never joins campaigns on different hardware
            tooltip=[
                "cell:N",
                "campaign:N",
                "run_type:N",
                "logical_date:N",
                "mean_s:Q",
                "stddev_s:Q",
                "fingerprint:N",
            ],  # fmt: skip
        )
    )
    layers: list[Any] = [lines]
    if markers:
        layers.append(
            alt.Chart(alt.Data(values=markers))
            .mark_rule(color="#c0392b", strokeWidth=2, strokeDash=[6, 3])
            .transform_filter(alt.FieldOneOfPredicate(field="campaign", oneOf=order))
            .encode(x=campaign_axis, tooltip=["label:N", "campaign:N", "from:N", "to:N"])
        )
    title = "Campaigns over time (red: hardware change)"
    shifts = [
        {
            "marker_at": plain(point["campaign_after_at"]),
            "label": f"{'regression' if point['is_regression'] else point['direction']} "
            f"in {point['cell_key']} {point['metric']} on {point['environment']}",
            "kind": "regression" if point["is_regression"] else point["direction"],
            "campaign": point["campaign_after"],
            "campaign_before": point["campaign_before"],
            "before": plain(point["mean_before"]),
            "after": plain(point["mean_after"]),
            "change": plain(point["change"]),
            "change_pct": plain(point["change_pct"]),
            "p_value": plain(point["p_value"]),
        }
        for point in change_points or []
        if point.get("campaign_after_at") is not None
    ]
    if shifts:
        layers.append(
            alt.Chart(alt.Data(values=shifts))
            .mark_rule(strokeWidth=2, strokeDash=[2, 2])
            .transform_filter(alt.FieldOneOfPredicate(field="campaign", oneOf=order))
            .encode(
                x=campaign_axis,
                color=alt.Color(
                    "kind:N",
                    title="Change point",
                    scale=alt.Scale(
                        domain=["regression", "worse", "better"], range=["#e67e22", "#f1c40f", "#27ae60"]
                    ),
                ),
                tooltip=[
                    "label:N",
                    "campaign_before:N",
                    "campaign:N",
                    "before:Q",
                    "after:Q",
                    "change:Q",
                    "change_pct:Q",
                    "p_value:Q",
                ],
            )
        )
        title = "Campaigns over time (red: hardware change; orange: regression, green: improvement)"
    chart = alt.layer(*layers).properties(title=title, width=WIDTH, height=HEIGHT)
    if shifts:  # the change points' colours are their own legend, not more cells
        chart = chart.resolve_scale(color="independent")
    return Figure("time-series", title, chart.to_dict())


def study_figures(
    tables: dict[str, Rows],
    history: Rows | None = None,
    changes: Rows | None = None,
    study: str | None = None,
    change_points: Rows | None = None,
) -> list[Figure]:
    """Every figure the campaign's marts support, in page order (none for an empty mart): the
    generic ones, the study plugin's (`study` None: the study the rows name), the time series."""
    figures: list[Figure] = []
    scaling = tables.get("scaling", [])
    for workload in dict.fromkeys(row["workload"] for row in scaling):
        figures.append(time_vs_size(workload, [row for row in scaling if row["workload"] == workload]))
    if any(row.get("throughput_mb_s") is not None for row in scaling):
        figures.append(throughput_per_size(scaling))
    owner = study or study_of(tables)
    for make in study_plugin(owner).figures if owner else ():
        figures += make(tables)
    return figures + history_figures(history or [], changes or [], change_points or [])


def history_figures(history: Rows, changes: Rows, change_points: Rows | None = None) -> list[Figure]:
    """The study's figures across its latest campaigns (the time series, when its cells have
    sizes): the same whichever campaign a page shows."""
    if any(row.get("data_size_gb") is not None for row in history):
        return [time_series(history, changes, change_points or [])]
    return []
