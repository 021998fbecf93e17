"""Every campaign against its study's published claims: one row per comparison a claim makes.

A claim (stg_study_claims; core/claims.py) is a ratio of cell means and the side of 1 the paper
puts it on. Per study, campaign, environment and claim, this model finds the cells the claim
compares in int_cells_summarised (its metric; n, mean and sample σ of the usable repetitions)
and scores each comparison:

- estimate: the ratio of the means (a `scaling` claim divides by the levels' own ratio, so 1 is
  the linear projection; a `trend_axis` ratio divides the ratio at a level by the one at the
  smallest level: four means);
- its 95 % confidence interval by the delta method on the log scale: log ratio ± t · SE with
  SE² = Σ σᵢ² / (nᵢ · meanᵢ²) over the independent means and Welch–Satterthwaite degrees of
  freedom (scipy.stats.t), so the interval is never below 0 and a ratio of ratios is as easy;
- p_support, the p-value that the ratio lies inside the claimed region (higher: above 1; lower:
  below 1; within: inside 1 ± tolerance, two one-sided tests), and p_against, that it lies
  outside it, each doubled from one-sided so that p < 0.05 exactly when the 95 % interval is
  wholly inside (or wholly outside) the region;
- p_against_adjusted: Benjamini–Hochberg over the claim's comparisons in the campaign and
  environment (scipy.stats.false_discovery_control's, `benjamini_hochberg`): a claim over many cells is contradicted
  only if a comparison stays significant after the correction;
- verdict: reproduced (p_support < 0.05), contradicted (p_against_adjusted < 0.05), else
  inconclusive (the interval spans the region's edge, or a side has fewer than two repetitions);
- for an inconclusive comparison, repetitions_to_decide: the repetitions per cell at which this
  test decides it with power 0.8 if the true ratio is the observed one and each cell's σ / mean is
  as measured (benchcamp.pipeline.power: noncentral t on the log ratio): inside the region, its
  95 % interval clearing the edge(s) (α/2 one-sided each, a band's two edges by the union bound);
  outside, clearing the edge it lies beyond at α/2 / m, what Benjamini–Hochberg asks of one
  comparison among the claim's m. decide_edge is that edge, decide_route which verdict the number
  aims at (reproduce: inside; contradict: outside), decide_reason why there is no number.
  sets_claim_repetitions marks the comparison whose number is the claim's: the fewest of those
  lying outside (one contradiction decides the claim), else one without a number, else the most.

An `environments` claim compares environments of one campaign instead: each cell on every other
environment against the same cell on the baseline environment (the first of the claim's
`baseline_environments` the campaign ran on); its rows carry the other environment.

The scorecard mart rolls the comparisons up per claim (reproduced only when every comparison
is: an intersection-union test, which needs no correction). Python models have no dbt unit
tests: tests/unit/test_scorecard.py checks the intervals against scipy on the repetitions.
"""

import json
import math
from typing import Any

import pandas as pd
from benchcamp.pipeline.power import LIMIT, POWER, repetitions_all_reject
from scipy import special, stats

ALPHA = 0.05
METHOD = "ratio of means, 95 % CI by the delta method on the log scale (Welch–Satterthwaite t)"
POWER_METHOD = (
    f"repetitions per cell for power {POWER:g}: the noncentral t of the log-ratio test "
    "(Welch–Satterthwaite), the observed ratio and each cell's measured σ / mean, the 95 % CI "
    "clearing the claimed region's edge (a band's two edges: union bound; a contradiction at "
    "α/m for m comparisons)"
)
NO_NOISE = (
    "a cell has fewer than 2 usable repetitions, so its noise is not measured: 2 or more per cell "
    "would measure it and tell how many decide it"
)
ON_THE_EDGE = "the ratio lies on the claimed region's edge, where no number of repetitions decides it"
BEYOND_LIMIT = f"more than {LIMIT:,} repetitions per cell would be needed at this noise"
COLUMNS = {
    "study": "varchar",
    "campaign": "varchar",
    "environment": "varchar",
    "claim_id": "varchar",
    "comparison": "varchar",
    "comparison_position": "integer",
    "n_per_side": "varchar",
    "min_n": "integer",
    "estimate": "double",
    "ci_low": "double",
    "ci_high": "double",
    "dof": "double",
    "p_support": "double",
    "p_against": "double",
    "p_against_adjusted": "double",
    "comparisons": "integer",
    "verdict": "varchar",
    "method": "varchar",
    "repetitions_to_decide": "integer",
    "decide_edge": "double",
    "decide_route": "varchar",
    "decide_reason": "varchar",
    "sets_claim_repetitions": "boolean",
    "power_method": "varchar",
}

Cell = dict[str, Any]  # workload, params (dict), n, mean, stddev


def _level(value: Any) -> float | None:
    try:
        level = float(value)
    except (TypeError, ValueError):
        return None
    return level if math.isfinite(level) else None


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _others(params: dict[str, Any], leave_out: set[str]) -> str:
    """The cell's other axes as the comparison names them: 'maps=4, reduces=2'."""
    return ", ".join(f"{name}={_shown(params[name])}" for name in sorted(params) if name not in leave_out)


def log_ratio_interval(
    terms: list[tuple[float, float | None, int, int]], scale: float = 1.0, alpha: float = ALPHA
) -> dict[str, float] | None:
    """(mean, σ, n, ±1) terms → ratio Π meanᵢ^±1 / scale, its CI, SE and dof; None when a side has
    n < 2, no σ or a mean ≤ 0 (no interval)."""
    if any(
        n < 2 or stddev is None or not math.isfinite(stddev) or not mean > 0 for mean, stddev, n, _ in terms
    ):
        return None
    log_ratio = sum(sign * math.log(mean) for mean, _, _, sign in terms) - math.log(scale)
    parts = [(stddev / mean) ** 2 / n for mean, stddev, n, _ in terms]
    variance = sum(parts)
    if variance == 0:
        return {
            "log_ratio": log_ratio,
            "se": 0.0,
            "dof": math.inf,
            "low": math.exp(log_ratio),
            "high": math.exp(log_ratio),
        }
    dof = variance**2 / sum(part**2 / (n - 1) for part, (_, _, n, _) in zip(parts, terms, strict=True))
    se = math.sqrt(variance)
    half = _t_ppf(1 - alpha / 2, dof) * se
    return {
        "log_ratio": log_ratio,
        "se": se,
        "dof": dof,
        "low": math.exp(log_ratio - half),
        "high": math.exp(log_ratio + half),
    }


# Student's t quantile and survival function through scipy.special, which scipy.stats.t itself
# calls (t.ppf(q, dof) is stdtrit(dof, q), t.sf(x, dof) is stdtr(dof, -x)) after about 100 µs of
# argument handling: that handling was 13 s of a build over 4,445 campaigns (26,664 comparisons).
# Same values; arguments outside the plain case (a probability at 0 or 1, an infinite or NaN
# statistic, dof not above 0) still go through scipy.stats.t.


def _t_ppf(q: float, dof: float) -> float:
    if 0 < q < 1 and dof > 0 and math.isfinite(dof):
        return float(special.stdtrit(dof, q))
    return float(stats.t.ppf(q, dof))


def _t_sf(x: float, dof: float) -> float:
    if math.isfinite(x) and dof > 0 and math.isfinite(dof):
        return float(special.stdtr(dof, -x))
    return float(stats.t.sf(x, dof))


def _p_above(interval: dict[str, float], bound: float) -> float:
    """One-sided p-value of the test whose rejection says the ratio is above `bound`."""
    distance = interval["log_ratio"] - math.log(bound)
    if interval["se"] == 0:
        return 0.0 if distance > 0 else 1.0
    return _t_sf(distance / interval["se"], interval["dof"])


def _p_below(interval: dict[str, float], bound: float) -> float:
    distance = math.log(bound) - interval["log_ratio"]
    if interval["se"] == 0:
        return 0.0 if distance > 0 else 1.0
    return _t_sf(distance / interval["se"], interval["dof"])


def claim_p_values(interval: dict[str, float], low: float, high: float) -> tuple[float, float]:
    """(p_support, p_against) for the claimed region (low, high): doubled one-sided p-values, so
    that each is < 0.05 exactly when the 95 % interval lies wholly inside (outside) the region."""
    support = max(
        _p_above(interval, low) if low > 0 else 0.0,
        _p_below(interval, high) if math.isfinite(high) else 0.0,
    )
    against = min(
        _p_below(interval, low) if low > 0 else 1.0,
        _p_above(interval, high) if math.isfinite(high) else 1.0,
    )
    return min(1.0, 2 * support), min(1.0, 2 * against)


def benjamini_hochberg(p_values: list[float]) -> list[float]:
    """scipy.stats.false_discovery_control(p_values, method="bh"), value for value, without its
    array set-up per call (a build over 4,445 campaigns made 13,333 calls): each p times m / rank,
    the running minimum from the largest rank down, clipped to [0, 1]. Tied p-values get the
    same adjusted value whichever order they sort in."""
    count = len(p_values)
    if count <= 1:
        return [float(p_value) for p_value in p_values]
    order = sorted(range(count), key=p_values.__getitem__)
    adjusted = [0.0] * count
    running = math.inf
    for rank in range(count, 0, -1):
        index = order[rank - 1]
        running = min(running, p_values[index] * (count / rank))
        adjusted[index] = min(max(running, 0.0), 1.0)
    return adjusted


def claimed_region(claim: dict[str, Any]) -> tuple[float, float]:
    if claim["expect"] == "higher":
        return 1.0, math.inf
    if claim["expect"] == "lower":
        return 0.0, 1.0
    tolerance = claim["tolerance_pct"] / 100
    return 1 - tolerance, 1 + tolerance


def _levels_comparisons(
    claim: dict[str, Any], cells: list[Cell]
) -> list[tuple[str, list[tuple[Cell, int]], float]]:
    """scaling / levels: each level of the axis against the smallest, per workload and series."""
    axis = claim["axis"]
    series: dict[tuple[str, str], dict[float, Cell]] = {}
    for cell in cells:
        level = _level(cell["params"].get(axis))
        if cell["workload"] in claim["workloads"] and level is not None:
            series.setdefault((cell["workload"], _others(cell["params"], {axis})), {})[level] = cell
    out = []
    for (workload, others), by_level in sorted(series.items()):
        smallest = min(by_level)
        for level in sorted(by_level):
            if level == smallest:
                continue
            scale = level / smallest if claim["kind"] == "scaling" and smallest > 0 else 1.0
            where = f" ({others})" if others else ""
            label = f"{workload}{where}: {axis} {level:g} vs {smallest:g}"
            out.append((label, [(by_level[level], 1), (by_level[smallest], -1)], scale))
    return out


def _matches(cell: Cell, side: dict[str, Any]) -> bool:
    if side.get("workload") is not None and cell["workload"] != side["workload"]:
        return False
    return all(str(cell["params"].get(name)) == str(value) for name, value in side.get("params", {}).items())


def _ratio_comparisons(
    claim: dict[str, Any], cells: list[Cell]
) -> list[tuple[str, list[tuple[Cell, int]], float]]:
    """ratio: numerator against denominator cells with equal other axes; with a trend axis, that
    ratio at each level of it against the ratio at its smallest level."""
    numerator, denominator = claim["numerator"], claim["denominator"]
    fixed = set(numerator.get("params", {})) | set(denominator.get("params", {}))
    by_workload = numerator.get("workload") is None and denominator.get("workload") is None

    def key(cell: Cell) -> tuple[str, str]:
        return (cell["workload"] if by_workload else "", _others(cell["params"], fixed))

    tops = {key(cell): cell for cell in cells if _matches(cell, numerator)}
    bottoms = {key(cell): cell for cell in cells if _matches(cell, denominator)}
    pairs = {
        pair_key: (tops[pair_key], bottoms[pair_key]) for pair_key in sorted(tops.keys() & bottoms.keys())
    }
    trend = claim.get("trend_axis")
    if trend is None:
        return [
            (f"{workload + ': ' if workload else ''}{others or 'all'}", [(top, 1), (bottom, -1)], 1.0)
            for (workload, others), (top, bottom) in pairs.items()
        ]
    groups: dict[tuple[str, str], dict[float, tuple[Cell, Cell]]] = {}
    for (_, _), (top, bottom) in pairs.items():
        level = _level(top["params"].get(trend))
        if level is not None:
            group = (top["workload"] if by_workload else "", _others(top["params"], fixed | {trend}))
            groups.setdefault(group, {})[level] = (top, bottom)
    out = []
    for (workload, others), by_level in sorted(groups.items()):
        smallest = min(by_level)
        for level in sorted(by_level):
            if level != smallest:
                (top, bottom), (top_0, bottom_0) = by_level[level], by_level[smallest]
                where = f"{workload + ' ' if workload else ''}{'(' + others + ') ' if others else ''}"
                label = f"{where}ratio at {trend} {level:g} vs {smallest:g}"
                out.append((label, [(top, 1), (bottom, -1), (top_0, -1), (bottom_0, 1)], 1.0))
    return out


def baseline_of(claim: dict[str, Any], environments: set[str]) -> str | None:
    """The baseline of an environments claim in a campaign: the first of its baseline
    environments the campaign ran on (None: it ran on none of them)."""
    return next((name for name in claim["baseline_environments"] if name in environments), None)


def environment_comparisons(
    claim: dict[str, Any], cells: list[Cell], baseline: list[Cell], baseline_name: str
) -> list[tuple[str, list[tuple[Cell, int]], float]]:
    """environments: each of the other environment's cells (of the claim's metric and `cells`)
    against the same cell on the baseline environment."""
    side = claim.get("cells") or {}
    by_key = {(cell["workload"], _others(cell["params"], set())): cell for cell in baseline}
    out = []
    for cell in sorted(cells, key=lambda cell: (cell["workload"], _others(cell["params"], set()))):
        key = (cell["workload"], _others(cell["params"], set()))
        if (side and not _matches(cell, side)) or key not in by_key:
            continue
        shown = _others(cell["params"], set(side.get("params", {})))  # the selector's axes go unsaid
        label = (
            f"{cell['workload']}{f' ({shown})' if shown else ''}: {cell['environment']} vs {baseline_name}"
        )
        out.append((label, [(cell, 1), (by_key[key], -1)], 1.0))
    return out


def log_variances(terms: list[tuple[Cell, int]]) -> list[float] | None:
    """Each mean's share of the log ratio's variance per repetition, (σ / mean)²; None when a
    cell has fewer than two usable repetitions, no σ or no positive mean (no noise measured)."""
    if any(
        cell["n"] < 2 or cell["stddev"] is None or cell["mean"] is None or not cell["mean"] > 0
        for cell, _ in terms
    ):
        return None
    return [(cell["stddev"] / cell["mean"]) ** 2 for cell, _ in terms]


Decision = tuple[int | None, float | None, str | None, str | None]  # n, edge, route, reason


def repetitions_to_decide(
    estimate: float | None, variances: list[float] | None, low: float, high: float, comparisons: int
) -> Decision:
    """(repetitions per cell, the edge, the route, why no number) that would decide an
    inconclusive comparison at its observed ratio and measured noise (power 0.8, module docstring)."""
    if estimate is None or variances is None:
        return None, None, None, NO_NOISE
    edges = [edge for edge in (low, high) if 0 < edge < math.inf]
    edge = min(edges, key=lambda bound: abs(math.log(estimate / bound)))
    if estimate == edge:
        return None, edge, None, ON_THE_EDGE
    if low < estimate < high:  # inside: the interval must clear every edge
        distances = [abs(math.log(estimate / bound)) for bound in edges]
        needed, route = repetitions_all_reject(distances, variances, ALPHA / 2), "reproduce"
    else:  # outside: clear the edge it lies beyond, at BH's level for one of m comparisons
        level = ALPHA / 2 / comparisons
        needed, route = (
            repetitions_all_reject([abs(math.log(estimate / edge))], variances, level),
            "contradict",
        )
    return needed, edge, route, None if needed is not None else BEYOND_LIMIT


def _claim_repetitions(rows: list[dict[str, Any]]) -> None:
    """Mark the comparison whose repetitions_to_decide is the claim's (module docstring)."""
    for row in rows:
        row["sets_claim_repetitions"] = False
    if any(row["verdict"] == "contradicted" for row in rows):
        return
    open_rows = [row for row in rows if row["verdict"] == "inconclusive"]
    outside = [
        row
        for row in open_rows
        if row["repetitions_to_decide"] is not None and row["decide_route"] == "contradict"
    ]
    unknown = [row for row in open_rows if row["repetitions_to_decide"] is None]
    if outside:
        chosen = min(outside, key=lambda row: row["repetitions_to_decide"])
    elif unknown:
        chosen = unknown[0]
    elif open_rows:
        chosen = max(open_rows, key=lambda row: row["repetitions_to_decide"])
    else:
        return
    chosen["sets_claim_repetitions"] = True


def score_claim(
    claim: dict[str, Any], cells: list[Cell], baseline: tuple[str, list[Cell]] | None = None
) -> list[dict[str, Any]]:
    """The claim's comparisons in one campaign and environment, each with its evidence and verdict
    (an environments claim: against `baseline`, the baseline environment's name and cells)."""
    of_metric = [cell for cell in cells if cell["metric"] == claim["metric"]]
    if claim["kind"] == "environments":
        if baseline is None:
            return []
        name, baseline_cells = baseline
        comparisons = environment_comparisons(
            claim, of_metric, [cell for cell in baseline_cells if cell["metric"] == claim["metric"]], name
        )
    else:
        build = _ratio_comparisons if claim["kind"] == "ratio" else _levels_comparisons
        comparisons = build(claim, of_metric)
    low, high = claimed_region(claim)
    rows = []
    noise: list[list[float] | None] = []
    for position, (label, terms, scale) in enumerate(comparisons, start=1):
        stats_terms = [(cell["mean"], cell["stddev"], int(cell["n"]), sign) for cell, sign in terms]
        usable = all(cell["mean"] is not None and cell["n"] >= 1 for cell, _ in terms)
        interval = log_ratio_interval(stats_terms, scale) if usable else None
        row = {
            "comparison": label,
            "comparison_position": position,
            "n_per_side": "/".join(str(int(cell["n"])) for cell, _ in terms),
            "min_n": min(int(cell["n"]) for cell, _ in terms),
            "estimate": None,
            "ci_low": None,
            "ci_high": None,
            "dof": None,
            "p_support": None,
            "p_against": None,
            "method": METHOD,
        }
        noise.append(log_variances(terms) if usable else None)
        if usable and all(cell["mean"] > 0 for cell, _ in terms):
            ratio = math.prod(cell["mean"] ** sign for cell, sign in terms) / scale
            row["estimate"] = ratio
        if interval is not None:
            support, against = claim_p_values(interval, low, high)
            row |= {
                "ci_low": interval["low"],
                "ci_high": interval["high"],
                "dof": interval["dof"] if math.isfinite(interval["dof"]) else None,
                "p_support": support,
                "p_against": against,
            }
        rows.append(row)
    tested = [row for row in rows if row["p_against"] is not None]
    if tested:
        adjusted = benjamini_hochberg([row["p_against"] for row in tested])
        for row, p_value in zip(tested, adjusted, strict=True):
            row["p_against_adjusted"] = float(p_value)
    for row, variances in zip(rows, noise, strict=True):
        row.setdefault("p_against_adjusted", None)
        row["comparisons"] = len(rows)
        if row["p_support"] is not None and row["p_support"] < ALPHA:
            row["verdict"] = "reproduced"
        elif row["p_against_adjusted"] is not None and row["p_against_adjusted"] < ALPHA:
            row["verdict"] = "contradicted"
        else:
            row["verdict"] = "inconclusive"
        needed: Decision = (None, None, None, None)
        if row["verdict"] == "inconclusive":
            needed = repetitions_to_decide(row["estimate"], variances, low, high, len(rows))
        row["repetitions_to_decide"], row["decide_edge"], row["decide_route"], row["decide_reason"] = needed
        row["power_method"] = POWER_METHOD
    _claim_repetitions(rows)
    return rows


CELLS_SQL = """
select study, campaign, environment, workload, metric, cast(params as varchar) as params, n, mean, stddev
from cells
where n > 0
"""


def model(dbt: Any, session: Any) -> Any:
    dbt.config(materialized="table")
    claims: pd.DataFrame = dbt.ref("stg_study_claims").df()
    cells: pd.DataFrame = dbt.ref("int_cells_summarised").query("cells", CELLS_SQL).df()
    cells = cells[cells["study"].isin(set(claims["study"]))]
    rows = []
    per_run: dict[tuple[str, str, str], list[Cell]] = {}
    decoded: dict[str, dict[str, Any]] = {}  # a few distinct params objects, read once each (never changed)
    for record in cells.to_dict("records"):
        text = record["params"]
        record["params"] = decoded[text] if text in decoded else decoded.setdefault(text, json.loads(text))
        record["stddev"] = None if pd.isna(record["stddev"]) else float(record["stddev"])
        per_run.setdefault((record["study"], record["campaign"], record["environment"]), []).append(record)
    ran_on: dict[tuple[str, str], set[str]] = {}
    for study, campaign, environment in per_run:
        ran_on.setdefault((study, campaign), set()).add(environment)
    for claim_row in claims.to_dict("records"):
        claim = json.loads(claim_row["definition"])
        for (study, campaign, environment), run_cells in sorted(per_run.items()):
            if study != claim_row["study"]:
                continue
            baseline = None
            if claim["kind"] == "environments":
                name = baseline_of(claim, ran_on[(study, campaign)])
                if name is None or name == environment:
                    continue  # no baseline in the campaign, or this is it
                baseline = (name, per_run[(study, campaign, name)])
            for row in score_claim(claim, run_cells, baseline):
                context = {"study": study, "campaign": campaign, "environment": environment}
                rows.append(context | {"claim_id": claim["id"]} | row)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    typed = ", ".join(f"{name}::{dtype} as {name}" for name, dtype in COLUMNS.items())
    return session.from_df(frame).project(typed)
