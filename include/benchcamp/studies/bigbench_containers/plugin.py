"""The bigbench_containers study's plugin: BBQpm@SF per run, container vs baseline, per query.

Its marts (marts/bigbench_qpm.sql, bigbench_comparison.sql, bigbench_queries.sql) reach the
report and the results page through this plugin as the published study shows them: the phases
of each run with its BBQpm@SF (and the published figure when one was imported), the container's
% gains over its baseline environment per run and their mean, the power test query by query,
every run's validity verdict, and the figure of the ratios container / baseline per cluster
size (> 1.0 is better for the container). Every table carries the study's label: the workload
is the project's own, derived from BigBench, so its numbers are not TPCx-BB results.
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.claims import MIN_RUNS_PER_SIDE
from benchcamp.core.figure import Figure
from benchcamp.core.study import Mart, Rows, Study, Tables
from benchcamp.presentation import figures
from benchcamp.presentation.blocks import Block, Cell, Row, TableSection, num
from benchcamp.presentation.sections import GAIN_NOTE
from benchcamp.presentation.text import number
from benchcamp.studies.bigbench_containers.options import SparkOptions

LABEL = "derived from BigBench; not comparable with TPCx-BB results"
# (column in bigbench_comparison, what the figure and the tables call it)
RATIOS = (
    ("qpm_ratio_other_over_baseline", "Qpm"),
    ("power_ratio_baseline_over_other", "power"),
    ("throughput_ratio_baseline_over_other", "throughput"),
    ("load_ratio_baseline_over_other", "load"),
)


def _size(row: dict[str, Any]) -> str:
    """The cluster size and scale factor of a row, as the tables title them."""
    sf = row["scale_factor_gb"]
    return f"{row['cluster_nodes']} nodes, SF {'-' if sf is None else f'{sf:g}'}"


def _whole(value: Any) -> str:
    return "-" if value is None else f"{value:.0f}"


def _n(value: Any) -> Cell:
    return num(number(value), value)


def run_verdict(row: dict[str, Any]) -> str:
    """One run's verdict as the report states it: valid, or why it has no Qpm."""
    return "valid" if row["valid"] else f"invalid: {row['invalid_reason']}"


def phase_blocks(tables: Tables) -> list[Block]:
    """Per cluster size and scale factor: each environment's runs, their phases and BBQpm@SF."""
    rows = tables.get("bigbench_qpm", [])
    blocks = []
    for size in sorted({(row["cluster_nodes"], row["scale_factor_gb"]) for row in rows}, key=str):
        mine = [row for row in rows if (row["cluster_nodes"], row["scale_factor_gb"]) == size]
        body = [
            Row(
                (row["environment"], str(row["repetition"])),
                (
                    Cell(row["environment"]),
                    num(str(row["repetition"]), row["repetition"]),
                    _n(row["load_s"]),
                    _n(row["t_pt_s"]),
                    _n(row["throughput_s"]),
                    num(_whole(row["streams"]), row["streams"]),
                    num(_whole(row["queries"]), row["queries"]),
                    _n(row["bbqpm"]),
                    _n(row["bbqpm_published"]),
                    _n(row["published_delta_pct"]),
                    Cell("yes" if row["valid"] else "no"),
                ),
            )
            for row in sorted(mine, key=lambda r: (r["environment"], r["repetition"]))
        ]
        notes = [
            "BBQpm@SF = SF · 60 · M / (0.1 · T_load + sqrt(T_PT · T_throughput / S)); "
            "T_PT = M × geometric mean of the power-test query times; only valid runs get one",
            LABEL,
        ]
        imported = [row for row in mine if row["t_pt_source"] == "imported"]
        if imported:
            notes.append(f"{len(imported)} run(s) with T_PT as imported (t_pt_s), no per-query times")
        notes += [
            f"{row['environment']} run {row['repetition']}: T_PT from the queries "
            f"{number(row['t_pt_queries_s'])} s differs from the imported {number(row['t_pt_imported_s'])} s "
            "by more than 0.1 %"
            for row in mine
            if row["t_pt_mismatch"]
        ]
        blocks.append(
            Block(
                f"BigBench phases per run, {_size(mine[0])}",
                ("Environment", "Run", "Load (s)", "Power T_PT (s)", "Throughput (s)", "S", "M",
                 "BBQpm@SF", "Published BBQpm", "vs published (%)", "Valid"),
                tuple(body),
                lead_text_columns=1,
                text_columns=1,
                notes=tuple(notes),
                kind="bigbench-phases",
            )
        )  # fmt: skip
    return blocks


def load_note(row: dict[str, Any]) -> str:
    """Each side's load and time window (docs/fair-comparisons.md), and whether they differ."""
    gap = row.get("load_gap_per_core")
    if gap is None or gap != gap:
        return "load: not recorded on a side (imported, or run before loads were recorded)"
    verdict = "different load, above 0.25 per core" if row.get("load_differs") else "similar load"

    def at(value: Any) -> str:
        return f"{value:%Y-%m-%d %H:%M}" if hasattr(value, "strftime") else "–"

    sides = "; ".join(
        f"{name} {row[f'{prefix}load1_before_mean']:.2f} from {at(row[f'{prefix}first_started_at'])} "
        f"to {at(row[f'{prefix}last_finished_at'])} UTC"
        for name, prefix in ((row["baseline_environment"], "baseline_"), (row["environment"], "other_"))
    )
    return f"load before the runs (mean 1-minute load average): {sides}; {gap:.2f} per core apart: {verdict}"


def comparison_blocks(tables: Tables) -> list[Block]:
    """Per container environment and size: % gains over its baseline per run and their mean."""
    rows = tables.get("bigbench_comparison", [])
    groups = sorted(
        {(row["environment"], row["baseline_environment"], row["cluster_nodes"], row["scale_factor_gb"])
         for row in rows},
        key=str,
    )  # fmt: skip
    blocks = []
    for environment, baseline, nodes, sf in groups:
        mine = [
            row for row in rows
            if (row["environment"], row["baseline_environment"], row["cluster_nodes"], row["scale_factor_gb"])
            == (environment, baseline, nodes, sf)
        ]  # fmt: skip
        ordered = sorted(mine, key=lambda r: (r["run"] == "mean", r["repetition"] or 0))
        body = [
            Row(
                (row["run"],),
                (
                    Cell("mean" if row["run"] == "mean" else f"run {row['run']}"),
                    _n(row["load_gain_pct"]),
                    _n(row["power_gain_pct"]),
                    _n(row["throughput_gain_pct"]),
                    _n(row["qpm_gain_pct"]),
                    *(_n(row[column]) for column, _ in RATIOS),
                    num(str(row["n_runs"]), row["n_runs"]),
                ),
            )
            for row in ordered
        ]
        first = mine[0]
        notes = [
            f"{GAIN_NOTE}, here of the container over its baseline; ratios baseline / container for "
            "times and container / baseline for Qpm: above 1.0 the container did better",
            f"{environment} from campaign {first['other_campaign']}, {baseline} from campaign "
            f"{first['baseline_campaign']}; the mean is over the runs without a failed record",
            LABEL,
        ]
        if any(row["qpm_published"] for row in mine):
            notes.append("Qpm includes imported published figures where none was computed")
        notes.append(load_note(first))
        if first.get("load_differs"):
            notes.insert(0, "warning: " + load_note(first))
        runs = max((int(row["n_runs"]) for row in mine if row["n_runs"] is not None), default=0)
        if runs < MIN_RUNS_PER_SIDE:
            notes.insert(
                0,
                f"warning: {runs} run(s) a side; the scorecard needs at least {MIN_RUNS_PER_SIDE} to "
                "judge a difference, so these gains are single measurements, not evidence of one",
            )
        blocks.append(
            Block(
                f"{environment} vs {baseline} (baseline), {_size(first)}: % gain",
                ("Run", "Load (%)", "Power (%)", "Throughput (%)", "Qpm (%)",
                 *(f"{name} ratio" for _, name in RATIOS), "Runs"),
                tuple(body),
                lead_text_columns=1,
                notes=tuple(notes),
                kind="bigbench-comparison",
            )
        )  # fmt: skip
    return blocks


def query_blocks(tables: Tables) -> list[Block]:
    """Per environment and size: each power-test query's time, its weight in T_PT and its delta."""
    rows = tables.get("bigbench_queries", [])
    blocks = []
    for environment, nodes, sf in sorted(
        {(row["environment"], row["cluster_nodes"], row["scale_factor_gb"]) for row in rows}, key=str
    ):
        mine = [row for row in rows if (row["environment"], row["cluster_nodes"], row["scale_factor_gb"])
                == (environment, nodes, sf)]  # fmt: skip
        baseline = next((row["baseline_environment"] for row in mine if row["baseline_environment"]), None)
        body = []
        for row in sorted(mine, key=lambda r: r["query"]):
            cells = [
                Cell(row["query"]),
                num(f"{row['n']}" + (f" ({row['n_failed']} failed)" if row["n_failed"] else ""), row["n"]),
                _n(row["power_s"]),
                _n(row["log_share_pct"]),
                num("-" if row["t_pt_factor"] is None else f"{row['t_pt_factor']:.4f}", row["t_pt_factor"]),
            ]
            if baseline:
                cells += [
                    _n(row["baseline_power_s"]),
                    _n(row["gain_pct"]),
                    _n(row["ratio_baseline_over_other"]),
                ]
            body.append(Row((row["query"],), tuple(cells)))
        headers = ["Query", "n", "Time (s)", "Share of ln T_PT (%)", "T_PT factor"]
        notes = [
            "time: mean over the usable runs; T_PT factor (t / geomean)^(1/M): > 1 raises T_PT",
            LABEL,
        ]
        if baseline:
            headers += [f"{baseline} (s)", "Gain (%)", "Ratio"]
            notes.insert(1, f"gain (%): ({baseline} − {environment}) / {baseline} × 100; ratio {baseline} / "
                         f"{environment} (> 1.0: {environment} faster)")  # fmt: skip
        blocks.append(
            Block(
                f"Power test per query on {environment}, {_size(mine[0])}",
                tuple(headers),
                tuple(body),
                lead_text_columns=1,
                notes=tuple(notes),
                kind="bigbench-queries",
            )
        )
    return blocks


def validity_blocks(tables: Tables) -> list[Block]:
    """The runs' verdicts: how many are valid, and each invalid one with what is missing or failed
    (it has no Qpm). Valid runs are not listed: the page shows a block's list as failures, and the
    phases table has a Valid column for every run."""
    rows = tables.get("bigbench_qpm", [])
    if not rows:
        return []
    ordered = sorted(rows, key=lambda r: (str(r["cluster_nodes"]), str(r["scale_factor_gb"]),
                                          r["environment"], r["repetition"]))  # fmt: skip
    items = tuple(
        f"{row['environment']}, {_size(row)}, run {row['repetition']}: {run_verdict(row)}"
        for row in ordered
        if not row["valid"]
    )
    valid = sum(1 for row in rows if row["valid"])
    return [
        Block(
            f"BigBench validity: {valid} of {len(rows)} run(s) valid",
            notes=("a run is valid when its load phase, all M power queries and every stream's M "
                   "queries succeeded and its throughput phase was recorded", LABEL),
            items=items,
            kind="bigbench-validity",
        )
    ]  # fmt: skip


def ratio_points(rows: Rows) -> list[dict[str, Any]]:
    """The figure's points: the mean rows' ratios per cluster size, container pair and measure."""
    return [
        {"cluster_nodes": figures.plain(row["cluster_nodes"]),
         "pair": f"{row['environment']} / {row['baseline_environment']}, SF {row['scale_factor_gb']:g}",
         "measure": name, "ratio": figures.plain(row[column])}
        for row in rows if row["run"] == "mean"
        for column, name in RATIOS if row[column] is not None
    ]  # fmt: skip


def ratio_figures(tables: Tables) -> list[Figure]:
    """Container / baseline per cluster size for Qpm, power, throughput and load (> 1.0 is better)."""
    import altair as alt

    points = ratio_points(tables.get("bigbench_comparison", []))
    if not points:
        return []
    chart = (
        alt.Chart(alt.Data(values=points))
        .mark_bar()
        .encode(
            x=alt.X("measure:N", title=None, sort=[name for _, name in RATIOS]),
            y=alt.Y("ratio:Q", title="container vs baseline (> 1.0 is better)"),
            color=alt.Color("measure:N", title="measure", sort=[name for _, name in RATIOS]),
            column=alt.Column("cluster_nodes:O", title="cluster nodes"),
            row=alt.Row("pair:N", title=None),
            tooltip=["pair:N", "cluster_nodes:O", "measure:N", "ratio:Q"],
        )
        .properties(width=max(140, figures.WIDTH // 3), height=figures.HEIGHT)
    )
    return [
        Figure(
            "bigbench-ratios",
            f"Container / baseline per cluster size, mean over runs (> 1.0 is better; {LABEL})",
            chart.to_dict(),
        )
    ]


def container_connections() -> dict[str, str]:
    """The lab_container environment's Airflow connections (container_lab.py)."""
    from benchcamp.studies.bigbench_containers import container_lab

    return container_lab.lab_connections()


def stop_container_lab() -> None:
    """`lab down` stops the lab's container too (its preflight started it: controller_setup).

    Without podman (inside the container itself, or a machine that never ran it) nothing of it runs.
    """
    from benchcamp.studies.bigbench_containers import container_lab

    if not container_lab.have_podman():
        return
    left = container_lab.down()
    if left:
        raise RuntimeError("the lab container left behind: " + "; ".join(left))


STUDY = Study(
    "bigbench_containers",
    marts=(
        Mart("bigbench_qpm", "cluster_nodes, scale_factor_gb, environment, repetition"),
        Mart("bigbench_comparison", "cluster_nodes, scale_factor_gb, environment, repetition nulls last"),
        Mart("bigbench_queries", "cluster_nodes, scale_factor_gb, environment, query"),
    ),
    report_sections=(
        TableSection(phase_blocks),
        TableSection(comparison_blocks),
        TableSection(query_blocks),
        TableSection(validity_blocks),
    ),
    figures=(ratio_figures,),
    lab_connections=container_connections,
    lab_teardown=stop_container_lab,
    environment_options=(SparkOptions,),  # spark_master, spark_conf: where the ML step's Spark runs
)
