"""The mapreduce_ssd_hdd study's plugin: phase times per job, storage and configuration set.

Its marts (marts/graph_phase_times.sql, marts/graph_config_deltas.sql) reach the report through
this plugin: the phase-time tables the study prints per drive, the % differences between
configuration sets and between drives, and stacked phase bars per storage.
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.figure import Figure
from benchcamp.core.study import Mart, Rows, Study, Tables
from benchcamp.presentation import figures
from benchcamp.presentation.blocks import Block, Cell, Row, TableSection, attempts_cell, num
from benchcamp.presentation.sections import DIFFERENCE_NOTE
from benchcamp.presentation.text import number

PHASES = ("map", "shuffle", "merge", "reduce")
DELTA_PHASES = (*PHASES, "job_elapsed")


def _with_spread(mean: Any, spread: Any) -> Cell:
    """`mean ± σ` over repetitions (σ only with two or more)."""
    text = number(mean) if spread is None or mean is None else f"{number(mean)} ± {number(spread)}"
    return num(text, mean)


def _grouped(rows: Rows, *keys: str) -> dict[tuple[Any, ...], Rows]:
    groups: dict[tuple[Any, ...], Rows] = {}
    for row in rows:
        groups.setdefault(tuple(row[key] for key in keys), []).append(row)
    return groups


def phase_time_blocks(tables: Tables) -> list[Block]:
    """Per storage, algorithm and graph: each configuration set's jobs with their mean phase times
    (± σ over repetitions), the mean σ over tasks of the map and reduce phases, and the chain."""
    headers = (
        "Config set", "Job", "n", "Map (s)", "Shuffle (s)", "Merge (s)", "Reduce (s)",
        "Map σ tasks", "Reduce σ tasks", "Job (s)", "Chain (s)", "Failed attempts",
    )  # fmt: skip
    blocks = []
    rows = tables.get("graph_phase_times", [])
    for (environment, workload, graph), group in _grouped(rows, "environment", "workload", "graph").items():
        body = []
        for row in sorted(group, key=lambda r: (r["config_set"], r["job"])):
            # a published import may give phase times without the chain's duration_s: no n then
            n = ("-" if row["n"] is None else f"{row['n']}") + (
                f" ({row['n_failed']} failed)" if row["n_failed"] else ""
            )
            cells = (
                Cell(row["config_set"]), Cell(row["job"]), num(n, row["n"]),
                *(_with_spread(row[f"{phase}_s"], row[f"{phase}_stddev_s"]) for phase in PHASES),
                num(number(row["map_task_sd_s"]), row["map_task_sd_s"]),
                num(number(row["reduce_task_sd_s"]), row["reduce_task_sd_s"]),
                _with_spread(row["job_elapsed_s"], row["job_elapsed_stddev_s"]),
                _with_spread(row["chain_s"], row["chain_stddev_s"]),
                attempts_cell(row["failed_task_attempts"], row.get("killed_task_attempts")),
            )  # fmt: skip
            body.append(Row((row["config_set"], row["job"]), cells))
        iterations = {row["iterations"] for row in group if row["iterations"] is not None}
        notes = (f"label-propagation iterations: {', '.join(f'{i:g}' for i in sorted(iterations))}",)
        blocks.append(
            Block(
                f"{workload} on {graph}, {environment}: mean phase times per job (± σ over repetitions)",
                headers,
                tuple(body),
                lead_text_columns=2,
                notes=notes if iterations else (),
                kind="graph-phases",
            )
        )
    return blocks


def delta_blocks(tables: Tables) -> list[Block]:
    """The % differences per phase: the spec's comparisons between configuration sets in the
    paper's shape (its Tables 9 to 14: a phase per row, a storage per column), then drive
    against drive."""
    rows = tables.get("graph_config_deltas", [])
    return _config_set_blocks([row for row in rows if row["comparison"] == "config_set"]) + _storage_blocks(
        [row for row in rows if row["comparison"] == "storage"]
    )


def _config_set_blocks(rows: Rows) -> list[Block]:
    """One table per algorithm, graph and pair of sets: job and phase down, storage across."""
    blocks = []
    keys = ("workload", "graph", "config_set", "baseline_config_set")
    for (workload, graph, config_set, against), group in sorted(
        _grouped(rows, *keys).items(), key=lambda item: tuple(str(part) for part in item[0])
    ):
        storages = sorted({row["environment"] for row in group})
        delta = {(row["job"], row["phase"], row["environment"]): row["delta_pct"] for row in group}
        body = [
            Row(
                (job, phase),
                (
                    Cell(job),
                    Cell(phase.replace("_", " ")),
                    *(
                        num(number(delta.get((job, phase, env))), delta.get((job, phase, env)))
                        for env in storages
                    ),
                ),
            )
            for job in sorted({row["job"] for row in group})
            for phase in DELTA_PHASES
            if any((job, phase, env) in delta for env in storages)
        ]
        blocks.append(
            Block(
                f"{workload} on {graph}: {config_set} vs {against}, % difference per phase and storage",
                ("Job", "Phase", *(f"{env} Δ%" for env in storages)),
                tuple(body),
                lead_text_columns=2,
                notes=(DIFFERENCE_NOTE,),
                kind="graph-deltas",
            )
        )
    return blocks


def _storage_blocks(rows: Rows) -> list[Block]:
    """One table per storage pair, algorithm, graph and set: job down, phase across."""
    headers = ("Job", *(f"{phase.replace('_', ' ')} Δ%" for phase in DELTA_PHASES))
    blocks = []
    keys = ("environment", "baseline_environment", "workload", "graph", "config_set")
    for (environment, baseline_env, workload, graph, config_set), group in sorted(
        _grouped(rows, *keys).items(), key=lambda item: tuple(str(part) for part in item[0])
    ):
        body = []
        for (job,), job_rows in sorted(_grouped(group, "job").items()):
            delta = {row["phase"]: row["delta_pct"] for row in job_rows}
            body.append(
                Row((job,), (Cell(job), *(num(number(delta.get(p)), delta.get(p)) for p in DELTA_PHASES)))
            )
        campaign = group[0]["baseline_campaign"]
        title = (
            f"{workload} on {graph}, {config_set}: {environment} vs {baseline_env} "
            f"(its latest campaign, {campaign}), % difference per phase"
        )
        blocks.append(
            Block(
                title,
                headers,
                tuple(body),
                lead_text_columns=1,
                notes=(DIFFERENCE_NOTE,),
                kind="graph-deltas",
            )
        )
    return blocks


def phase_bars(tables: Tables) -> list[Figure]:
    """Stacked map/shuffle/merge/reduce bars per job, one bar per storage and configuration set:
    this campaign's storage, and the other storages' latest campaigns where the deltas have them."""
    import altair as alt

    points: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in tables.get("graph_phase_times", []):
        for phase in PHASES:
            if row[f"{phase}_s"] is not None:
                points.setdefault((row["workload"], row["graph"], ""), []).append(
                    {"bar": f"{row['environment']} · {row['config_set']}", "job": row["job"],
                     "phase": phase, "seconds": figures.plain(row[f"{phase}_s"])}
                )  # fmt: skip
    seen: set[tuple[str, ...]] = set()
    for row in tables.get("graph_config_deltas", []):
        key = (
            row["workload"],
            row["graph"],
            row["baseline_environment"],
            row["config_set"],
            row["job"],
            row["phase"],
        )
        if row["comparison"] != "storage" or row["phase"] not in PHASES or key in seen:
            continue
        seen.add(key)
        points.setdefault((row["workload"], row["graph"], ""), []).append(
            {"bar": f"{row['baseline_environment']} · {row['config_set']}", "job": row["job"],
             "phase": row["phase"], "seconds": figures.plain(row["baseline_seconds"])}
        )  # fmt: skip
    out = []
    for (workload, graph, _), values in points.items():
        chart = (
            alt.Chart(alt.Data(values=values))
            .mark_bar()
            .encode(
                x=alt.X("bar:N", title="storage · configuration set"),
                y=alt.Y("sum(seconds):Q", title="mean phase time (s)", stack="zero"),
                color=alt.Color("phase:N", sort=list(PHASES), title="phase"),
                order=alt.Order("phase_order:Q"),
                column=alt.Column("job:N", title="job of the chain"),
                tooltip=["bar:N", "job:N", "phase:N", "seconds:Q"],
            )
            .transform_calculate(phase_order=f"indexof({list(PHASES)!r}, datum.phase)")
            .properties(width=max(120, figures.WIDTH // 3), height=figures.HEIGHT)
        )
        title = f"{workload} on {graph}: phase times per job, per storage and configuration set"
        out.append(
            Figure(f"graph-phases-{figures.slug(workload)}-{figures.slug(graph)}", title, chart.to_dict())
        )
    return out


STUDY = Study(
    "mapreduce_ssd_hdd",
    marts=(
        Mart("graph_phase_times", "environment, workload, graph, config_set, job"),
        Mart(
            "graph_config_deltas",
            "comparison, environment, baseline_environment, workload, graph, config_set, "
            "baseline_config_set, job, phase",
        ),
    ),
    report_sections=(TableSection(phase_time_blocks), TableSection(delta_blocks)),
    figures=(phase_bars,),
)
