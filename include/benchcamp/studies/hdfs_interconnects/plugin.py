"""The hdfs_interconnects study's plugin: latency and throughput per interconnect, % improvements.

Its marts (marts/hdfs_micro_latency.sql, hdfs_micro_throughput.sql, hdfs_micro_improvement.sql)
reach the report through this plugin: the latency table per benchmark and file size, the
throughput table per benchmark and client count (with the link rate the environment measured),
the % improvement of this interconnect over each other one (with the study's "up to"), and two
figures with one line per interconnect: latency vs file size, throughput vs clients. A campaign
runs one interconnect; the others' points come from their latest campaigns (the improvement mart).
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.figure import Figure
from benchcamp.core.study import Mart, Rows, Study, Tables
from benchcamp.presentation import figures
from benchcamp.presentation.blocks import Block, Cell, Row, TableSection, num
from benchcamp.presentation.sections import GAIN_NOTE
from benchcamp.presentation.text import number

LATENCY_NAMES = {
    "swl": "Sequential write latency",
    "srl": "Sequential read latency",
    "rrl": "Random read latency",
}
THROUGHPUT_NAMES = {"swt": "Sequential write throughput", "srt": "Sequential read throughput"}


def _with_spread(mean: Any, spread: Any) -> Cell:
    text = number(mean) if spread is None or mean is None else f"{number(mean)} ± {number(spread)}"
    return num(text, mean)


def _n(row: dict[str, Any]) -> Cell:
    text = f"{row['n'] or 0}" + (f" ({row['n_failed']} failed)" if row.get("n_failed") else "")
    return num(text, row["n"])


def _whole(value: Any) -> str:
    return "-" if value is None else f"{value:.0f}"


def _ms(seconds: Any) -> Any:
    return None if seconds is None else seconds * 1000


def _link(rows: Rows) -> str:
    rates = {(row["link_level"], row["link_out_mbit"], row["link_in_mbit"]) for row in rows}
    return "; ".join(
        f"link {level or 'unknown'}: measured {_whole(out)} Mbit/s out, {_whole(back)} Mbit/s in (iperf3)"
        for level, out, back in sorted(rates, key=str)
    )


def latency_blocks(tables: Tables) -> list[Block]:
    rows = tables.get("hdfs_micro_latency", [])
    blocks = []
    for environment in sorted({row["environment"] for row in rows}):
        mine = [row for row in rows if row["environment"] == environment]
        body = [
            Row(
                (row["workload"], row["file_size_mb"]),
                (
                    Cell(row["workload"]),
                    num(number(row["file_size_mb"]), row["file_size_mb"]),
                    _n(row),
                    _with_spread(_ms(row["latency_s"]), _ms(row["latency_stddev_s"])),
                    num(number(row["latency_stddev_pct"]), row["latency_stddev_pct"]),
                    num(number(row["mb_s"]), row["mb_s"]),
                ),
            )
            for row in sorted(
                mine, key=lambda r: (list(LATENCY_NAMES).index(r["workload"]), r["file_size_mb"])
            )
        ]
        blocks.append(
            Block(
                f"Latency on {environment}: one file per size (rrl: mean of its positioned reads)",
                ("Benchmark", "File (MB)", "n", "Latency (ms)", "σ (%)", "MB/s"),
                tuple(body),
                lead_text_columns=1,
                notes=(_link(mine),),
                kind="hdfs-latency",
            )
        )
    return blocks


def throughput_blocks(tables: Tables) -> list[Block]:
    rows = tables.get("hdfs_micro_throughput", [])
    blocks = []
    for environment in sorted({row["environment"] for row in rows}):
        mine = [row for row in rows if row["environment"] == environment]
        body = [
            Row(
                (row["workload"], row["clients"], row["data_size_gb"]),
                (
                    Cell(row["workload"]),
                    num(_whole(row["clients"]), row["clients"]),
                    num(number(row["data_size_gb"]), row["data_size_gb"]),
                    _n(row),
                    _with_spread(row["mb_s"], row["mb_s_stddev"]),
                    num(number(row["seconds"]), row["seconds"]),
                    num(number(row["slowest_client_s"]), row["slowest_client_s"]),
                ),
            )
            for row in sorted(mine, key=lambda r: (r["workload"], r["clients"], r["data_size_gb"]))
        ]
        blocks.append(
            Block(
                f"Throughput on {environment}: aggregate MB/s of concurrent clients",
                ("Benchmark", "Clients", "Total (GB)", "n", "MB/s", "Time (s)", "Slowest client (s)"),
                tuple(body),
                lead_text_columns=1,
                notes=(_link(mine),),
                kind="hdfs-throughput",
            )
        )
    return blocks


def follows_the_links(row: dict[str, Any]) -> bool | None:
    """Whether the point orders as the measured link rates say (the faster link no worse); None
    without both rates or an improvement. A point that does not is bound by something else."""
    mine, other, improvement = row["link_out_mbit"], row["other_link_out_mbit"], row["improvement_pct"]
    if mine is None or other is None or improvement is None or mine == other:
        return None
    return improvement >= 0 if mine > other else improvement <= 0


def improvement_blocks(tables: Tables) -> list[Block]:
    """Per other interconnect: this one's % improvement per benchmark and point, and the maximum,
    with whether each point orders as the measured link rates do (and the report says why not)."""
    rows = tables.get("hdfs_micro_improvement", [])
    blocks = []
    for environment, other in sorted({(row["environment"], row["other_environment"]) for row in rows}):
        pair = [row for row in rows if (row["environment"], row["other_environment"]) == (environment, other)]
        body = []
        against = 0
        for row in sorted(pair, key=lambda r: (r["workload"], r["point"])):
            follows = follows_the_links(row)
            against += follows is False
            body.append(
                Row(
                    (row["workload"], row["point"]),
                    (
                        Cell(row["workload"]),
                        Cell(row["point"]),
                        *(
                            num(number(_ms(v) if row["kind"] == "latency" else v), v)
                            for v in (row["value"], row["other_value"])
                        ),
                        num(number(row["improvement_pct"]), row["improvement_pct"]),
                        num(number(row["up_to_pct"]), row["up_to_pct"]),
                        Cell({True: "yes", False: "no", None: "-"}[follows]),
                    ),
                )
            )
        first = pair[0]
        notes = [
            f"{GAIN_NOTE}, here of this interconnect over the other (latency: (other − this) / other; "
            "throughput: (this − other) / other); up to: the maximum over sizes or client counts",
            f"links measured (iperf3, out): {environment} {_whole(first['link_out_mbit'])} Mbit/s, "
            f"{other} {_whole(first['other_link_out_mbit'])} Mbit/s",
        ]
        if against:
            notes.append(
                f"{against} point(s) do not order as the links: there the link is not what bounds the "
                "benchmark (the CPU running the client and the DataNodes, the NameNode's round trips, "
                "noise of few repetitions), so they say nothing of the interconnect"
            )
        blocks.append(
            Block(
                f"{environment} over {other} (its latest campaign, {first['other_campaign']}): % improvement",
                ("Benchmark", "At", environment, other, "Improvement (%)", "Up to (%)", "As the links"),
                tuple(body),
                lead_text_columns=2,
                notes=tuple(notes),
                kind="hdfs-improvement",
            )
        )
    return blocks


def _points(tables: Tables, mart: str, x: str, value: str, scale: float = 1.0) -> list[dict[str, Any]]:
    """This campaign's points plus the other interconnects' (their latest campaigns), each value
    times `scale` (seconds shown in the tables' milliseconds)."""
    points = [
        {"benchmark": row["workload"], "interconnect": row["environment"], "x": figures.plain(row[x]),
         "value": figures.plain(row[value] * scale)}
        for row in tables.get(mart, []) if row[value] is not None
    ]  # fmt: skip
    kind = "latency" if x == "file_size_mb" else "throughput"
    seen = set()
    for row in tables.get("hdfs_micro_improvement", []):
        key = (row["workload"], row["other_environment"], row["point"])
        if row["kind"] != kind or key in seen or row["other_value"] is None:
            continue
        seen.add(key)
        fields = dict(part.split("=", 1) for part in row["point"].split())
        points.append(
            {"benchmark": row["workload"], "interconnect": row["other_environment"],
             "x": float(fields[x]), "value": figures.plain(row["other_value"] * scale)}
        )  # fmt: skip
    return points


def _lines(points: list[dict[str, Any]], name: str, title: str, x_title: str, y_title: str) -> Figure:
    import altair as alt

    chart = (
        alt.Chart(alt.Data(values=points))
        .mark_line(point=True)
        .encode(
            x=alt.X("x:Q", title=x_title),
            y=alt.Y("value:Q", title=y_title),
            color=alt.Color("interconnect:N", title="interconnect"),
            column=alt.Column("benchmark:N", title="benchmark"),
            tooltip=[
                "benchmark:N",
                "interconnect:N",
                alt.Tooltip("x:Q", title=x_title[:1].upper() + x_title[1:]),
                alt.Tooltip("value:Q", title=y_title[:1].upper() + y_title[1:]),
            ],
        )
        .properties(width=max(140, figures.WIDTH // 3), height=figures.HEIGHT)
    )
    return Figure(name, title, chart.to_dict())


def link_figures(tables: Tables) -> list[Figure]:
    out = []
    # in the tables' units: latency in ms, throughput in MB/s
    latency = _points(tables, "hdfs_micro_latency", "file_size_mb", "latency_s", scale=1000.0)
    if latency:
        out.append(_lines(latency, "hdfs-latency", "Latency vs file size, one line per interconnect",
                          "file size (MB)", "latency (ms)"))  # fmt: skip
    throughput = _points(tables, "hdfs_micro_throughput", "clients", "mb_s")
    if throughput:
        out.append(_lines(throughput, "hdfs-throughput", "Throughput vs clients, one line per interconnect",
                          "concurrent clients", "aggregate throughput (MB/s)"))  # fmt: skip
    return out


STUDY = Study(
    "hdfs_interconnects",
    marts=(
        Mart("hdfs_micro_latency", "environment, workload, file_size_mb"),
        Mart("hdfs_micro_throughput", "environment, workload, clients, data_size_gb"),
        Mart("hdfs_micro_improvement", "environment, other_environment, workload, point"),
    ),
    report_sections=(
        TableSection(latency_blocks),
        TableSection(throughput_blocks),
        TableSection(improvement_blocks),
    ),
    figures=(link_figures,),
)
