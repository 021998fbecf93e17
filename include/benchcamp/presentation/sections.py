"""The report's generic sections, in order, and where a study's own sections go among them.

Each section turns a mart's rows into `Block`s (`presentation.blocks`): the text report prints
them, the results page and the HTML report render them through their templates. The answer block
(`presentation.answer_section`) comes first; a study's sections come from its plugin
(`core.study`), after the generic ones and before the scorecard and the validation verdicts.
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.study import study_plugin
from benchcamp.presentation.answer_section import answer_blocks
from benchcamp.presentation.blocks import Block, Cell, Row, attempts_cell, num
from benchcamp.presentation.environment_load_section import environment_load_blocks
from benchcamp.presentation.marts import HISTORY_MART, Tables, campaign_of
from benchcamp.presentation.run_order_section import run_order_blocks
from benchcamp.presentation.text import data_size, delta, gb_text, number, verdict, warmup_note


def _scaling_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Per workload, environment and series: each data size's time, spread, deltas and verdict."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["environment"], row["series_params"]), []).append(row)
    out = []
    for (workload, environment, series), cells in groups.items():
        processed = any(cell.get("processed_gb") is not None for cell in cells)
        headers = ["Data (GB)", "Time (s)", "σ (s)", "σ (%)", "Data Δ (%)", "Time Δ (%)"]
        headers += ["Throughput (MB/s)", "Linear (s)", "ok"]
        if processed:
            headers.insert(1, "Processed (GB)")
        body = []
        for cell in cells:
            baseline = cell["data_delta_pct"] is None
            line = [
                num(data_size(cell["data_size_gb"]), cell["data_size_gb"]),
                num(number(cell["mean_s"]), cell["mean_s"]),
                num(number(cell["stddev_s"]), cell["stddev_s"]),
                num(number(cell["stddev_pct"]), cell["stddev_pct"]),
                num(delta(cell["data_delta_pct"], baseline), cell["data_delta_pct"]),
                num(delta(cell["time_delta_pct"], baseline), cell["time_delta_pct"]),
                num(number(cell["throughput_mb_s"]), cell["throughput_mb_s"]),
                num(number(cell["linear_projection_s"]), cell["linear_projection_s"]),
                Cell(verdict(cell)),
            ]
            if processed:
                line.insert(1, num(gb_text(cell.get("processed_gb")), cell.get("processed_gb")))
            body.append(Row((data_size(cell["data_size_gb"]),), tuple(line)))
        title = f"{workload} on {environment}" + (f" ({series.replace('|', ', ')})" if series else "")
        out.append(
            Block(
                title,
                tuple(headers),
                tuple(body),
                text_columns=1,
                notes=(
                    *warmup_note(cells),
                    *([SCALING_THROUGHPUT] if _has(cells, "throughput_mb_s") else []),
                ),
                kind="scaling",
            )
        )
    return out


# The two kinds of % a comparison table shows, one sign convention each, stated once on the page
# (and named by each table's note): a difference of the value shown, or a gain.
DIFFERENCE_NOTE = (
    "% difference: (this − baseline) / baseline × 100 of the value shown, so for a time negative is faster"
)
GAIN_NOTE = (
    "% gain (improvement): positive is better, whatever the measure (a time: (baseline − this) / "
    "baseline × 100; a rate: (this − baseline) / baseline × 100)"
)
SIGN_CONVENTIONS = (DIFFERENCE_NOTE, GAIN_NOTE)

SCALING_THROUGHPUT = "Throughput (MB/s): the data size over the mean job time (the whole job, start to end)"


def _has(rows: list[dict[str, Any]], column: str) -> bool:
    return any(row.get(column) is not None for row in rows)


def _phase_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Per job, the mean task phase times (JobHistory), as the SSD/HDD study tabulates them."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["environment"], row["series_params"] or ""), []).append(row)
    headers: tuple[str, ...] = (
        "Data (GB)",
        "n",
        "Job (s)",
        "Map (s)",
        "σ",
        "Shuffle (s)",
        "σ",
        "Merge (s)",
        "σ",
    )
    headers += ("Reduce (s)", "σ", "Failed attempts")
    out = []
    for (workload, environment, series), cells in groups.items():
        body = [
            Row(
                (data_size(cell["data_size_gb"]),),
                (
                    num(data_size(cell["data_size_gb"]), cell["data_size_gb"]),
                    num(str(cell["n"] or 0), cell["n"] or 0),
                    num(number(cell["job_elapsed_s"]), cell["job_elapsed_s"]),
                    *(
                        num(number(cell[column]), cell[column])
                        for phase in ("map", "shuffle", "merge", "reduce")
                        for column in (f"{phase}_s", f"{phase}_stddev_s")
                    ),
                    attempts_cell(cell["failed_task_attempts"], cell.get("killed_task_attempts")),
                ),
            )
            for cell in cells
        ]
        title = f"{workload} task phases (JobHistory) on {environment}"
        title += f" ({series.replace('|', ', ')})" if series else ""
        out.append(Block(title, headers, tuple(body), kind="phases"))
    return out


def _hardware_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """A campaign that first ran on new hardware says so: it is not comparable with the one before."""
    return [
        Block(
            f"Hardware change on {row['environment']}: this campaign is the first on {row['fingerprint']} "
            f"(before: {row['previous_fingerprint']}, campaign {row['previous_campaign']}); "
            f"changed: {row['changed_facts']}",
            kind="hardware",
        )
        for row in rows
    ]


def _change_point_blocks(rows: list[dict[str, Any]], campaign: str | None) -> list[Block]:
    """The study's change points (`change_points`): when a tracked metric moved, by how much, how sure."""
    if not rows:
        return []
    body = tuple(
        Row(
            (row["environment"], row["cell_key"], row["metric"], row["campaign_after"]),
            (
                Cell(row["environment"]),
                Cell(row["cell_key"]),
                Cell(row["metric"]),
                Cell(f"{row['campaign_before']} ({row['campaigns_before']})"),
                Cell(
                    f"{row['campaign_after']} ({row['campaigns_after']})"
                    + (" = this campaign" if row["campaign_after"] == campaign else "")
                ),
                num(f"{row['mean_before']:.4g}", row["mean_before"]),
                num(f"{row['mean_after']:.4g}", row["mean_after"]),
                num(delta(row["change_pct"], False), row["change_pct"]),
                num(f"{row['change']:+.4g}", row["change"]),
                num(f"{row['p_value']:.2g}", row["p_value"]),
                Cell(
                    f"regression (worse by more than {row['regression_pct']:g} %)"
                    if row["is_regression"]
                    else f"{row['direction']} ({row['better']} is better)"
                ),
            ),
        )
        for row in rows
    )
    settings = rows[0]
    return [
        Block(
            "Change points: where a tracked metric moved across the study's campaigns",
            (
                "environment",
                "cell",
                "metric",
                "last before (campaigns)",
                "first after (campaigns)",
                "mean before",
                "mean after",
                "change (%)",
                "change",
                "p",
                "verdict",
            ),
            body,
            text_columns=1,
            lead_text_columns=5,
            notes=(
                "Per environment, hardware fingerprint, cell and metric (never across a hardware change): "
                "Apache Otava's analysis (e-divisive means in windows of "
                f"{settings['window_campaigns']} campaigns, t-test p below {settings['max_pvalue']:g}, "
                f"magnitude above {settings['min_magnitude_pct']:g} %). Means are of the campaigns' means; "
                "change is after − before in the metric's unit (a change from 0 has no %).",
            ),
            kind="change_points",
        )
    ]


def _adequacy_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """A campaign run with a target_ci_pct: the achieved 95 % CI of each cell's mean, and why its
    repetitions stopped (`repetition_adequacy`)."""
    if not rows:
        return []
    reasons = {
        "target_reached": "target reached",
        "max_repetitions": "max_repetitions reached",
        "too_many_failures": "too many failed repetitions",
        "budget": "the campaign's budget ran out",
    }
    body = tuple(
        Row(
            (row["environment"], row["cell_key"]),
            (
                Cell(row["environment"]),
                Cell(row["cell_key"]),
                Cell(row["metric"]),
                num(str(row["n"]), row["n"]),
                num(str(row["n_failed"]), row["n_failed"]),
                num(number(row["mean"]), row["mean"]),
                num(number(row["half_width"]), row["half_width"]),
                num(number(row["half_width_pct"]), row["half_width_pct"]),
                num(number(row["target_ci_pct"]), row["target_ci_pct"]),
                Cell(f"{reasons.get(row['stop_reason'], row['stop_reason'])} at n = {row['n_planned']}"),
            ),
        )
        for row in rows
    )
    first = rows[0]
    return [
        Block(
            f"Repetitions: achieved {first['confidence'] * 100:g} % confidence interval of each cell's mean "
            f"(Student's t; target: half-width within {number(first['target_ci_pct'])} % of the mean, "
            f"at most {first['max_repetitions']} repetitions)",
            (
                "environment",
                "cell",
                "metric",
                "n",
                "failed",
                "mean",
                "half-width",
                "half-width (%)",
                "target (%)",
                "stopped",
            ),
            body,
            text_columns=1,
            lead_text_columns=3,
            kind="adequacy",
        )
    ]


def _validation_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """The validation verdicts: all passed, or each failed expectation."""
    if not rows:
        return [Block("Validation: all expectations passed", kind="validation")]
    items = tuple(
        f"{row['environment']} {row['cell_key'] or 'whole campaign'}: {row['expectation']}: {row['details']}"
        for row in rows
    )
    title = f"Validation: {len(rows)} failed expectation(s); the results are kept and marked ok = no"
    return [Block(title, items=items, kind="validation")]


def _ci(row: dict[str, Any]) -> str:
    if row["ci_low"] is None or row["ci_high"] is None:
        return "-"
    return f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


_SCORECARD_HEADERS = (
    "Claim",
    "Claimed",
    "Ratio",
    "95 % CI",
    "n",
    "Comparisons",
    "Verdict",
    "Deciding comparison",
)


def _scorecard_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """The reproduction scorecard (`scorecard`): each published claim's verdict on this campaign,
    with the deciding comparison's ratio, its 95 % CI, the repetitions per side and the method."""
    out = []
    for environment in dict.fromkeys(row["environment"] for row in rows):
        scored = [row for row in rows if row["environment"] == environment]
        body = tuple(
            Row(
                (row["claim_id"],),
                (
                    Cell(row["claim_id"]),
                    Cell(row["claimed"]),
                    num(f"{row['estimate']:.3f}" if row["estimate"] is not None else "-", row["estimate"]),
                    Cell(_ci(row)),
                    Cell(row["n_per_side"] or "-"),
                    Cell(f"{row['n_reproduced']}/{row['n_contradicted']}/{row['n_inconclusive']}"),
                    Cell(row["verdict"]),
                    Cell(row["deciding_comparison"] or "no cell of the claim in this campaign"),
                ),
            )
            for row in scored
        )
        notes = (
            *(f'{row["claim_id"]}: "{row["paper"]}"' for row in scored),
            "Ratio: of the cells' mean metric (scaling: divided by the data ratio, 1 = linear). "
            "Comparisons: reproduced/contradicted/inconclusive. Reproduced: every comparison's 95 % CI "
            "inside the claimed region; contradicted: one outside it after Benjamini–Hochberg over the "
            "claim's comparisons; inconclusive: a CI spans the region's edge (or n < 2).",
            "Method: ratio of means, 95 % CI by the delta method on the log scale (Welch–Satterthwaite t); "
            "Benjamini–Hochberg over each claim's comparisons (the mart's `method` and `evidence` columns).",
        )
        out.append(
            Block(
                f"Reproduction scorecard on {environment}: the study's published claims",
                _SCORECARD_HEADERS,
                body,
                text_columns=2,
                lead_text_columns=2,
                notes=notes,
                kind="scorecard",
            )
        )
    return out


def study_sections(tables: Tables, study: str) -> list[Block | list[str]]:
    """The report's parts in order: the answer, generic blocks, the study's sections, the validation verdicts.

    A study section given as data (`blocks.TableSection`) contributes its blocks; one that only
    prints lines contributes those lines (the page shows them as preformatted text).
    """
    parts: list[Block | list[str]] = [
        *answer_blocks(tables, study),
        *_scaling_blocks(tables.get("scaling", [])),
        *_phase_blocks(tables.get("phase_times", [])),
        *_hardware_blocks(tables.get("hardware_changes", [])),
        *_change_point_blocks(tables.get(HISTORY_MART, []), campaign_of(tables)),
        *_adequacy_blocks(tables.get("repetition_adequacy", [])),
        *run_order_blocks(tables.get("run_order_drift", [])),
        *environment_load_blocks(tables.get("environment_load", [])),
    ]
    for section in study_plugin(study).report_sections:
        blocks = getattr(section, "blocks", None)
        if callable(blocks):
            parts += blocks(tables)
        else:
            parts.append(section(tables))
    parts += _scorecard_blocks(tables.get("scorecard", []))
    parts += _validation_blocks(tables.get("validation", []))
    return parts
