"""The ycsb_hbase_cassandra study's plugin: HBase vs Cassandra as the YCSB study shows them.

Its marts (marts/: ycsb_*.sql and the int_ycsb_* models under them) reach the generic report
only through this plugin: their sections, the latency-throughput curves, the answer block's
headline comparisons (answer.py); plus its latency-anomaly
check (validation.py), the lab's data stores its campaigns run on and its environment option
(options.py: `ycsb_properties`, where a target's stores listen).
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.figure import Figure
from benchcamp.core.study import Mart, Rows, Study, Tables
from benchcamp.presentation import figures
from benchcamp.presentation.blocks import Block, Cell, Row, TableSection, lines_of, num
from benchcamp.presentation.text import number, warmup_note
from benchcamp.studies.ycsb_hbase_cassandra.answer import answer
from benchcamp.studies.ycsb_hbase_cassandra.options import YcsbOptions
from benchcamp.studies.ycsb_hbase_cassandra.validation import LATENCY_ANOMALY


def p_value(value: Any) -> str:
    """Welch's p as the study prints it: three decimals, or `< 0.001`."""
    return "-" if value is None else ("< 0.001" if value < 0.001 else f"{value:.3f}")


def comparison_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """HBase vs Cassandra per workload, as the YCSB study compares them: throughput once per test
    condition, then each operation type's average, 95th and 99th percentile latency."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["environment"]), []).append(row)
    headers: tuple[str, ...] = (
        "Op",
        "Condition",
        "Figure",
        "n (H/C)",
        "HBase",
        "Cassandra",
        "HBase/Cassandra",
        "p",
    )
    headers += ("Verdict (α = 0.05)",)
    figures = [("avg", "avg latency (µs)"), ("p95", "p95 latency (µs)"), ("p99", "p99 latency (µs)")]
    out = []
    for (workload, environment), cells in groups.items():
        body: list[Row] = []
        seen_conditions: set[str] = set()
        for cell in cells:
            condition = cell["pair_params"].replace("|", ", ")
            lines = []
            if condition not in seen_conditions:
                seen_conditions.add(condition)
                lines.append(("all", "throughput (ops/s)", "throughput_ops_s", "throughput", "n"))
                if (
                    cell.get("hbase_served_throughput_ops_s") is not None
                    or cell.get("cassandra_served_throughput_ops_s") is not None
                ):
                    lines.append(
                        ("all", "served (ops/s)", "served_throughput_ops_s", "served_throughput", "served_n")
                    )
            lines += [
                (cell["op_type"], label, f"{key}_latency_us", f"{key}_latency", "latency_n")
                for key, label in figures
                if cell[f"hbase_{key}_latency_us"] is not None
                or cell[f"cassandra_{key}_latency_us"] is not None
            ]
            for op, label, value, figure, count in lines:
                # the repetitions behind this figure's test on each side (Welch's n)
                n = f"{cell.get(f'hbase_{count}') or 0}/{cell.get(f'cassandra_{count}') or 0}"
                verdict = cell[f"{figure}_verdict"]
                body.append(
                    Row(
                        (op, condition, label),
                        (
                            Cell(op), Cell(condition), Cell(label), Cell(n),
                            num(number(cell[f"hbase_{value}"]), cell[f"hbase_{value}"]),
                            num(number(cell[f"cassandra_{value}"]), cell[f"cassandra_{value}"]),
                            num(number(cell[f"{figure}_ratio"]), cell[f"{figure}_ratio"]),
                            num(p_value(cell[f"{figure}_p_value"]), cell[f"{figure}_p_value"]),
                            Cell(verdict or "no test (n < 2)"),
                        ),
                    )
                )  # fmt: skip
        title = f"{workload}: HBase vs Cassandra on {environment} (Welch's t-test over repetitions)"
        # operation, condition and figure read as text, as does the verdict
        out.append(
            Block(title, headers, tuple(body), text_columns=1, lead_text_columns=3, kind="ycsb-comparison")
        )
    return out


def comparison_section(rows: list[dict[str, Any]]) -> list[str]:
    """The comparison's text report lines (`comparison_blocks` printed)."""
    return lines_of(comparison_blocks(rows))


def percentile_cell(cell: dict[str, Any], percentile: str) -> Cell:
    """A percentile's mean, or `< bound` when every repetition gave it only as a bound (old YCSB's
    `95thPercentileLatency(ms), 0`: under 1,000 µs), with how many did when some did."""
    value, bound = cell[f"{percentile}_latency_us"], cell.get(f"{percentile}_latency_below_us")
    if bound is None:
        return num(number(value), value)
    if value is None:  # a bound is no value to compare campaigns by
        return num(f"< {bound:g}", None)
    return num(f"{number(value)} ({cell[f'{percentile}_below_n']} < {bound:g})", value)


# Intended p99 this many times the p99 from the actual start: the client fell well behind its
# schedule, and the note under the table says where.
INTENDED_DIVERGENCE = 2.0


def intended_notes(cells: list[dict[str, Any]]) -> list[str]:
    """Where the latency from each call's intended start runs far above the one from its actual
    start: the queue of a client behind its schedule, which the service latency leaves out."""
    notes = []
    for cell in cells:
        intended, service = cell.get("intended_p99_latency_us"), cell.get("p99_latency_us")
        if intended is not None and service and intended > INTENDED_DIVERGENCE * service:
            condition = (cell["pair_params"] or "").replace("|", ", ")
            notes.append(
                f"{cell['store']}, {condition}, {cell['op_type']}: p99 {intended:,.0f} µs from each "
                f"call's intended start against {service:,.0f} µs from its actual start: the run "
                "fell behind its schedule, and the wait (coordinated omission) is in the "
                "intended latency only."
            )
    return notes


def served_note(served: bool) -> tuple[str, ...]:
    """What the Served column is, where a block has one (runs whose clients' histogram logs were
    archived)."""
    if not served:
        return ()
    return (
        "Served (ops/s): the clients' operations over the period their histogram logs cover, "
        "the rate the store served at; YCSB's throughput also counts each client's start "
        "(its store connection and, with several clients, the start barrier) in its RunTime.",
    )


def summary_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Per workload, as the YCSB study tabulates it: each store and test condition's throughput,
    then per operation type the average, 95th and 99th percentile latency (means over the
    repetitions; σ% of throughput is what validation gates); under a target, the 99th percentile
    from each call's intended start beside it, with a note where the two diverge."""
    headers: tuple[str, ...] = (
        "Store",
        "Condition",
        "Op",
        "n",
        "Throughput (ops/s)",
        "σ%",
        "Avg (µs)",
        "p95 (µs)",
    )
    headers += ("p99 (µs)",)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["environment"]), []).append(row)
    out = []
    for (workload, environment), cells in groups.items():
        cells = sorted(
            cells,
            key=lambda r: (
                r["store"], r["target_ops"] is not None, r["operationcount"] or 0, r["target_ops"] or 0,
                r["threads"] or 0, r.get("clients") or 1, r["op_type"] or "",
            ),
        )  # fmt: skip
        intended = any(cell.get("intended_p99_latency_us") is not None for cell in cells)
        served = any(cell.get("served_throughput_ops_s") is not None for cell in cells)
        block_headers = (
            *headers[:6],
            *(("Served (ops/s)",) if served else ()),
            *headers[6:],
            *(("Intended p99 (µs)",) if intended else ()),
            "Passed",
        )
        body: list[Row] = []
        shown: set[tuple[str, str]] = set()  # a condition's store, throughput and n once
        for cell in cells:
            condition_text = (cell["pair_params"] or "").replace("|", ", ")
            line = [
                Cell(cell["store"]), Cell(condition_text), Cell(cell["op_type"] or "-"),
                num(f"{cell['n']}" + (f" ({cell['n_failed']} failed)" if cell["n_failed"] else ""), cell["n"]),
                num(number(cell["throughput_ops_s"]), cell["throughput_ops_s"]),
                num(number(cell["throughput_stddev_pct"]), cell["throughput_stddev_pct"]),
                *((num(number(cell.get("served_throughput_ops_s")), cell.get("served_throughput_ops_s")),)
                  if served else ()),
                num(number(cell["avg_latency_us"]), cell["avg_latency_us"]),
                percentile_cell(cell, "p95"),
                percentile_cell(cell, "p99"),
                *((num(number(cell.get("intended_p99_latency_us")), cell.get("intended_p99_latency_us")),)
                  if intended else ()),
                Cell("yes" if cell["passed_validation"] else "no"),
            ]  # fmt: skip
            condition = (cell["store"], condition_text)
            if condition in shown:
                for index in (0, 1, 3, 4, 5, *((6,) if served else ())):
                    line[index] = Cell("")
            shown.add(condition)
            body.append(Row((cell["store"], condition_text, cell["op_type"] or "-"), tuple(line)))
        out.append(
            Block(
                f"{workload} on {environment}: YCSB results per store",
                block_headers,
                tuple(body),
                text_columns=1,
                lead_text_columns=3,  # store, condition and operation read as text
                notes=(*warmup_note(cells), *served_note(served), *intended_notes(cells)),
                kind="ycsb-summary",
            )
        )
    return out


def summary_section(rows: list[dict[str, Any]]) -> list[str]:
    """The results per store as text report lines (`summary_blocks` printed)."""
    return lines_of(summary_blocks(rows))


def latency_throughput(workload: str, rows: Rows, anomalies: dict[str, str]) -> Figure:
    """Average latency against achieved throughput over the offered-load sweep, per store and
    operation type; points the anomaly check refused are drawn as red crosses with its message.
    The achieved throughput is the served rate where every point has one (as the anomaly check
    judges such a sweep), else YCSB's throughput."""
    import altair as alt

    plotted = [
        row
        for row in rows
        if row.get("throughput_ops_s") is not None and row.get("avg_latency_us") is not None
    ]
    served = bool(plotted) and all(row.get("served_throughput_ops_s") is not None for row in plotted)
    rate = "served_throughput_ops_s" if served else "throughput_ops_s"
    values = [
        {
            **{
                name: figures.plain(row.get(name))
                for name in ("store", "op_type", "target_ops", "threads", "clients", "n")
            },
            "throughput_ops_s": figures.plain(row[rate]),
            "avg_latency_us": figures.plain(row["avg_latency_us"]),  # µs, as the tables
            "line": f"{row['store']} · {row['op_type']} · {row['threads']} threads"
            + (f" × {row['clients']} clients" if (row.get("clients") or 1) > 1 else ""),
            "anomaly": anomalies.get(row["cell_key"], ""),
        }
        for row in plotted
    ]
    base = alt.Chart(alt.Data(values=values)).encode(
        x=alt.X(
            "throughput_ops_s:Q",
            title="Served throughput (ops/s)" if served else "Achieved throughput (ops/s)",
        ),
        y=alt.Y("avg_latency_us:Q", title="Average latency (µs)"),
    )
    lines = base.mark_line(point=True).encode(
        color=alt.Color("line:N", title="Store · operation · threads"),
        order="target_ops:Q",
        tooltip=["line:N", "target_ops:Q", "throughput_ops_s:Q", "avg_latency_us:Q", "n:Q"],
    )
    flagged = (
        base.transform_filter("datum.anomaly != ''")
        .mark_point(shape="cross", color="#c0392b", size=220, strokeWidth=3)
        .encode(tooltip=["line:N", "target_ops:Q", "anomaly:N"])
    )
    title = f"{workload}: latency vs throughput over the offered-load sweep (red ×: anomaly)"
    chart = alt.layer(lines, flagged).properties(title=title, width=figures.WIDTH, height=figures.HEIGHT)
    notes = tuple(
        dict.fromkeys(
            f"anomaly, {row['cell_key']}: {anomalies[row['cell_key']]}"
            for row in rows
            if row["cell_key"] in anomalies
        )
    )
    return Figure(f"latency-throughput-{figures.slug(workload)}", title, chart.to_dict(), notes)


def latency_throughput_figures(tables: Tables) -> list[Figure]:
    """One latency-throughput curve per workload, marking the points validation refused as anomalies."""
    curves = tables.get("ycsb_latency_throughput", [])
    anomalies = {
        row["cell_key"]: row["details"]
        for row in tables.get("validation", [])
        if row.get("expectation") == LATENCY_ANOMALY.id and row.get("cell_key")
    }
    return [
        latency_throughput(workload, [row for row in curves if row["workload"] == workload], anomalies)
        for workload in dict.fromkeys(row["workload"] for row in curves)
    ]


def summary(tables: Tables) -> list[Block]:
    """The report's results per store (ycsb_summary)."""
    return summary_blocks(tables.get("ycsb_summary", []))


def comparison(tables: Tables) -> list[Block]:
    """The report's HBase vs Cassandra comparison (ycsb_comparison), after the results per store."""
    return comparison_blocks(tables.get("ycsb_comparison", []))


STUDY = Study(
    "ycsb_hbase_cassandra",
    marts=(
        Mart(
            "ycsb_summary",
            "environment, workload, store, operationcount, target_ops, threads, clients, op_type",
        ),
        Mart(
            "ycsb_latency_throughput", "environment, workload, store, threads, clients, op_type, target_ops"
        ),
        Mart("ycsb_comparison", "environment, workload, operationcount, target_ops, threads, op_type"),
    ),
    report_sections=(TableSection(summary), TableSection(comparison)),
    figures=(latency_throughput_figures,),
    checks=(LATENCY_ANOMALY,),
    lab_services=frozenset({"hbase", "cassandra"}),  # the data stores YCSB measures
    environment_options=(YcsbOptions,),  # ycsb_properties: where a target's stores listen
    answers=(answer,),  # the answer block's headline: throughput and the main op's latencies
)
