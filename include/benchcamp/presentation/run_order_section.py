"""The report's "Run order" section, from the `run_order_drift` mart: per target, the campaign's
run order and seed, whether the repetitions started in their planned order, and per workload
whether the duration drifts with the position (Spearman, Holm-corrected across the campaign)."""

from __future__ import annotations

from typing import Any

from benchcamp.presentation.blocks import Block, Cell, Row, num

MART = "run_order_drift"
HEADERS = (
    "Workload",
    "n",
    "Cells",
    "Positions",
    "ρ",
    "p",
    "p (Holm)",
    "Slope (s/pos)",
    "Slope (%/pos)",
    "Drift",
)


def _number(value: Any, digits: int) -> str:
    return "–" if value is None or value != value else f"{value:.{digits}f}"


def _p(value: Any) -> str:
    if value is None or value != value:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


# Every repetition waits for the end of those planned before it (dag_factory.wait_for_turn), under
# the scheduler as under `airflow dags test`; a campaign run before that (2026-12-02), or a
# repetition cleared and re-run by hand, can still start out of order. The drift test uses the
# order the repetitions actually started in, so it holds either way.
NOT_FOLLOWED = (
    "did not start in the planned order (a campaign run before repetitions waited for their turn, "
    "or a repetition re-run by hand; the drift test uses the actual order)"
)


def _plan_note(row: dict[str, Any]) -> str:
    if row.get("run_order") is None:
        return "run order not recorded (imported, or run before run orders)"
    followed = row.get("followed_plan")
    if followed is None:
        how = ""
    else:
        how = "started in the planned order" if followed else NOT_FOLLOWED
    # a sequential order is the spec's cell order and an interleaved one takes fixed turns: no seed
    order = (
        row["run_order"]
        if row["run_order"] in ("sequential", "interleaved")
        else f"{row['run_order']}, seed {row['seed']}"
    )
    return order + (f"; the repetitions {how}" if how else "")


def run_order_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """One block per target: the order, the seed, the drift test per workload, the method."""
    by_environment: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_environment.setdefault(row["environment"], []).append(row)
    out = []
    for environment, tests in by_environment.items():
        drifting = [row["workload"] for row in tests if row.get("drift")]
        verdict = (
            f"drift with the position in {', '.join(drifting)}"
            if drifting
            else "no significant drift with the position"
        )
        body = tuple(
            Row(
                key=(str(row["workload"]),),
                cells=(
                    Cell(str(row["workload"])),
                    num(str(row["n"]), row["n"]),
                    num(str(row["n_cells"]), row["n_cells"]),
                    Cell(f"{row['first_position']}–{row['last_position']}"),
                    num(_number(row["rho"], 2), row["rho"]),
                    num(_p(row["p_value"]), row["p_value"]),
                    num(_p(row["p_adjusted"]), row["p_adjusted"]),
                    num(_number(row["slope_s_per_position"], 3), row["slope_s_per_position"]),
                    num(_number(row["slope_pct_per_position"], 2), row["slope_pct_per_position"]),
                    Cell("yes" if row.get("drift") else ("untested" if row["p_value"] is None else "no")),
                ),
            )
            for row in tests
        )
        n_tests = max(int(row["n_tests"] or 0) for row in tests)
        out.append(
            Block(
                f"Run order on {environment}: {_plan_note(tests[0])}; {verdict}",
                headers=HEADERS,
                rows=body,
                text_columns=1,
                lead_text_columns=1,
                notes=(
                    "Drift: Spearman's rank correlation of each duration minus its cell's mean against its "
                    "position in the run order (the order the repetitions started); p-values corrected with "
                    f"Holm's method across the campaign's {n_tests} test(s), drift at p (Holm) < 0.05; a "
                    "workload needs 4 repetitions and 3 more than its cells to be tested.",
                ),
                kind="run_order",
            )
        )
    return out
