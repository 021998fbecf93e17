"""The YCSB study's headline in words, for the answer block every report starts with.

The study asks which store is faster. Per environment and workload, its heaviest test condition
(the largest offered load, else the largest operationcount) answers in three figures: throughput
(at an offered load also the rate the stores served, their clients' start left out)
and the main operation's average and 99th percentile latency (those both stores measured), each
as HBase's ratio to Cassandra's with both values, the repetitions per store, Welch's p and the
verdict, and for an undecided one the repetitions each store would need (`ycsb_comparison`, its
`<figure>_repetitions_to_decide` computed in dbt). The tables after the block have every figure.
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.study import Answer, Tables
from benchcamp.presentation.answer_section import cap_of, count, p_text, undecided

STUDY = "ycsb_hbase_cassandra"
MART = "ycsb_comparison"
MAIN_OPS = ("read", "scan", "update", "insert", "read_modify_write")  # the first a workload has leads
NO_NOISE = (
    "not judged; with fewer than 2 repetitions a store no noise is measured: 2 or more each would "
    "measure it and tell how many decide it"
)
SERVED_LABEL = "served rate"
EQUIVALENCE_MARGIN_PCT = 10  # int_ycsb_stores_compared's margin, as the sentences state it
METHOD = (
    "HBase vs Cassandra: Welch's t-test, two-sided at α = 0.05, over the repetitions "
    "(ycsb_comparison); for an undecided figure, the repetitions each store would need for power "
    "0.8 at the observed difference and both measured σ (noncentral t, Welch–Satterthwaite degrees "
    "of freedom); for throughput also two one-sided Welch tests (TOST, α = 0.05) that HBase's mean "
    'is within ±10 % of Cassandra\'s, which decide "the same" where no difference is found. The '
    "served rate: the operations over the period the clients' histogram logs cover (YCSB's "
    "throughput also counts each client's start). Shown: each workload's heaviest condition (the largest offered load, else the "
    "largest operationcount); the tables below have every condition and figure."
)


def condition_axes(pair_params: str) -> dict[str, int]:
    """'clients=2|target_ops=500|threads=8' → {'clients': 2, 'target_ops': 500, 'threads': 8}."""
    axes = {}
    for part in (pair_params or "").split("|"):
        name, _, value = part.partition("=")
        if value.lstrip("-").isdigit():
            axes[name] = int(value)
    return axes


def condition_text(pair_params: str) -> str:
    """How a test condition reads: '500 ops/s offered (2 clients, 8 threads)'."""
    axes = condition_axes(pair_params)
    if "target_ops" in axes:
        load = f"{count(axes['target_ops'])} ops/s offered"
    elif "operationcount" in axes:
        load = f"{count(axes['operationcount'])} operations"
    else:
        load = pair_params.replace("|", ", ")
    rest = []
    if axes.get("clients", 1) > 1:
        rest.append(f"{axes['clients']} clients")
    if "threads" in axes:
        rest.append(f"{axes['threads']} thread{'s' if axes['threads'] != 1 else ''}")
    return load + (f" ({', '.join(rest)})" if rest else "")


def _heaviness(pair_params: str) -> tuple[bool, int, int]:
    axes = condition_axes(pair_params)
    offered = "target_ops" in axes
    return offered, axes.get("target_ops" if offered else "operationcount", 0), -axes.get("clients", 1)


def value_text(value: float) -> str:
    """Three significant figures, never an exponent: 448, 57.1, 3.40, 1,300."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _values(hbase: float, cassandra: float, latency: bool) -> str:
    if latency and max(hbase, cassandra) >= 1000:
        return f"{value_text(hbase / 1000)} vs {value_text(cassandra / 1000)} ms"
    return f"{value_text(hbase)} vs {value_text(cassandra)} {'µs' if latency else 'ops/s'}"


def figure_sentence(row: dict[str, Any], figure: str, label: str, count_column: str, cap: int | None) -> str:
    """One figure of one condition: HBase's ratio to Cassandra's, both values, n, p and verdict."""
    latency = figure.endswith("_latency")
    unit_column = f"{figure}_us" if latency else f"{figure}_ops_s"
    hbase, cassandra = row[f"hbase_{unit_column}"], row[f"cassandra_{unit_column}"]
    n_h, n_c = row.get(f"hbase_{count_column}") or 0, row.get(f"cassandra_{count_column}") or 0
    ratio = row.get(f"{figure}_ratio")
    compared = f"is {ratio:.2f}× Cassandra's" if ratio is not None else "against Cassandra's"
    head = (
        f"On {row['environment']}, {row['workload']} at {condition_text(row['pair_params'])}: "
        f"HBase's {label} {compared} ({_values(hbase, cassandra, latency)}, n {n_h}/{n_c}"
    )
    p_value, verdict = row.get(f"{figure}_p_value"), row.get(f"{figure}_verdict")
    if p_value is None:
        return f"{head}: {NO_NOISE})."
    if verdict in ("HBase higher", "Cassandra higher"):
        return f"{head}, p {p_text(p_value)}: decided, {verdict.split()[0]}'s is higher)."
    equivalence = row.get(f"{figure}_equivalence_p_value")
    if equivalence is not None and row.get(f"{figure}_equivalent"):
        return (
            f"{head}, p {p_text(p_value)}: decided, the same within ±{EQUIVALENCE_MARGIN_PCT:g} % "
            f"(TOST p {p_text(equivalence)}))."
        )
    needed = row.get(f"{figure}_repetitions_to_decide")
    reason = None
    if needed is None:
        reason = (
            "no difference measured, so no number of repetitions would show one"
            if hbase == cassandra
            else "more than 1,000,000 repetitions each would be needed at this noise"
        )
    tail = (
        ""
        if equivalence is None
        else f"; nor the same within ±{EQUIVALENCE_MARGIN_PCT:g} % (TOST p {p_text(equivalence)})"
    )
    return f"{head}, p {p_text(p_value)}: {undecided(needed, reason, cap, min(n_h, n_c), 'each')}{tail})."


def headline_rows(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Per environment and workload, the heaviest condition's rows: any (for its throughput) and
    the main operation's (for its latency; None when no operation has one)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["environment"], row["workload"]), []).append(row)
    out = []
    for _, cells in sorted(groups.items()):
        heaviest = max((cell["pair_params"] for cell in cells), key=_heaviness)
        chosen = [cell for cell in cells if cell["pair_params"] == heaviest]
        ranked = sorted(
            chosen, key=lambda cell: MAIN_OPS.index(cell["op_type"]) if cell["op_type"] in MAIN_OPS else 99
        )
        measured = [
            cell
            for cell in ranked
            if cell.get("hbase_avg_latency_us") is not None
            and cell.get("cassandra_avg_latency_us") is not None
        ]
        out.append((ranked[0], measured[0] if measured else None))
    return out


def _both(row: dict[str, Any], column: str) -> bool:
    return row.get(f"hbase_{column}") is not None and row.get(f"cassandra_{column}") is not None


def answer(tables: Tables) -> Answer:
    """The answer block's YCSB sentences (`Study.answers`): per workload, throughput and the main
    operation's average and p99 latency at its heaviest condition."""
    rows = tables.get(MART, [])
    if not rows:
        return Answer()
    cap = cap_of(STUDY)
    sentences = []
    for any_row, op_row in headline_rows(rows):
        if _both(any_row, "throughput_ops_s"):
            sentences.append(figure_sentence(any_row, "throughput", "throughput", "n", cap))
        # At an offered load YCSB's throughput also counts each client's start (its connection to
        # the store): a second to three of a two-second run here. The rate the store served,
        # over the clients' histogram logs, is the store's own figure; both are said.
        if "target_ops" in condition_axes(any_row["pair_params"]) and _both(
            any_row, "served_throughput_ops_s"
        ):
            sentences.append(figure_sentence(any_row, "served_throughput", SERVED_LABEL, "served_n", cap))
        for figure, label in (("avg_latency", "average"), ("p99_latency", "p99")):
            if op_row is not None and _both(op_row, f"{figure}_us"):
                named = f"{op_row['op_type']} {label} latency"
                sentences.append(figure_sentence(op_row, figure, named, "latency_n", cap))
    return Answer(tuple(sentences), (METHOD,))
