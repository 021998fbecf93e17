"""How many repetitions would decide a comparison, at the noise a campaign measured.

Pure functions over numbers, no I/O. The dbt models call them (`int_claims_compared` for the
scorecard's claims, the YCSB study's `int_ycsb_stores_compared` for HBase against Cassandra,
`int_adaptive_stops_projected` for a target CI), so the answers are in the marts like every other
statistic and the report only prints them.

Both tests the marts run are Welch-type t-tests: T = distance / √(Σ vᵢ / n) with n repetitions in
each of the comparison's cells, where vᵢ is one repetition's share of the variance from cell i
(σᵢ² for a difference of means; (σᵢ / meanᵢ)² for a log ratio of means, the delta method), on
Welch–Satterthwaite's ν = (n − 1)(Σ vᵢ)² / Σ vᵢ² degrees of freedom. If the true distance is the
one observed and each σ is as measured, T follows the noncentral t with noncentrality
δ = distance · √n / √Σ vᵢ, so the test at level a rejects with probability
P(T′ > t(1 − a, ν)): the power (Cohen 1988, ch. 2; Julious 2004 for ratios on the log scale).
The repetitions that would decide a comparison are the smallest n ≥ 2 whose power is at least
`POWER` (0.8). A decision that needs several one-sided tests to reject at once (a ratio inside a
band: both edges) takes the union bound 1 − Σ (1 − powerₖ), a lower bound of their joint power.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from scipy import special, stats

ALPHA = 0.05
POWER = 0.8
CONFIDENCE = 0.95
MIN_REPETITIONS = 2  # the fewest that measure a σ
LIMIT = 1_000_000  # above this many per cell the answer is "more than a million"


def welch_dof(variances: Sequence[float], n: int) -> float:
    """Welch–Satterthwaite degrees of freedom with n repetitions in every cell."""
    total = sum(variances)
    return (n - 1) * total**2 / sum(v**2 for v in variances)


def _noncentral_t_cdf(dof: float, noncentrality: float, x: float) -> float:
    """P(T′ ≤ x) for the noncentral t: scipy.special.nctdtr (a ufunc, about 8 µs), which
    scipy.stats.nct.cdf also calls; at a few points far in a tail (dof 100, noncentrality 38) it
    gives NaN, where scipy.stats.nct and then the normal limit Φ(x − δ) stand in."""
    value = float(special.nctdtr(dof, noncentrality, x))
    if not math.isfinite(value):
        value = float(stats.nct.cdf(x, dof, noncentrality))
    if not math.isfinite(value):
        value = float(special.ndtr(x - noncentrality))
    return min(max(value, 0.0), 1.0)


def one_sided_power(distance: float, variances: Sequence[float], n: int, level: float) -> float:
    """Power of the one-sided test at `level` that the true distance exceeds 0, at n per cell."""
    dof = welch_dof(variances, n)
    noncentrality = distance * math.sqrt(n / sum(variances))
    critical = float(special.stdtrit(dof, 1 - level))
    return 1 - _noncentral_t_cdf(dof, noncentrality, critical)


def two_sided_power(difference: float, variances: Sequence[float], n: int, alpha: float = ALPHA) -> float:
    """Power of the two-sided test at `alpha` (Welch's t-test of a difference), at n per cell."""
    dof = welch_dof(variances, n)
    noncentrality = abs(difference) * math.sqrt(n / sum(variances))
    critical = float(special.stdtrit(dof, 1 - alpha / 2))
    upper = 1 - _noncentral_t_cdf(dof, noncentrality, critical)
    return upper + _noncentral_t_cdf(dof, noncentrality, -critical)


def _normal_start(distance: float, variances: Sequence[float], level: float, power: float) -> int:
    """The normal approximation's n, ((z(1 − level) + z(power)) · √Σv / distance)², plus
    Guenther's z(1 − level)² / 4 for the t quantile, floored: the t-based answer is within a few
    of it, so the search starts there."""
    z_level = float(special.ndtri(1 - level))
    z = z_level + float(special.ndtri(power))
    start = (z * math.sqrt(sum(variances)) / distance) ** 2 + z_level**2 / 4
    return int(min(start, LIMIT)) if math.isfinite(start) else LIMIT


def smallest_n(power_at: Callable[[int], float], start: int, power: float = POWER) -> int | None:
    """The smallest n ≥ 2 with power_at(n) ≥ power (power rises with n), searched from `start`
    in growing steps, then halving; None when even `LIMIT` repetitions fall short."""
    n = min(max(MIN_REPETITIONS, start), LIMIT)
    if power_at(n) >= power:
        step, high = 1, n  # high has the power; find the last n below it
        while high > MIN_REPETITIONS and power_at(low := max(MIN_REPETITIONS, high - step)) >= power:
            high, step = low, 2 * step
        low = max(MIN_REPETITIONS - 1, high - step)
    else:
        step, low = 1, n  # low falls short; find an n that has it
        while power_at(high := min(low + step, LIMIT)) < power:
            if high >= LIMIT:
                return None
            low, step = high, 2 * step
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if power_at(middle) >= power else (middle, high)
    return high


def repetitions_all_reject(
    distances: Sequence[float], variances: Sequence[float], level: float, power: float = POWER
) -> int | None:
    """n per cell at which one-sided tests at `level` of every distance (each > 0, the estimate's
    distance from a bound it must clear) all reject with probability ≥ `power` (union bound)."""
    if not distances or min(distances) <= 0 or sum(variances) <= 0:
        return None

    def joint(n: int) -> float:
        return 1 - sum(1 - one_sided_power(d, variances, n, level) for d in distances)

    return smallest_n(joint, _normal_start(min(distances), variances, level, power), power)


def repetitions_two_sided(
    difference: float, variances: Sequence[float], alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """n per group at which Welch's two-sided t-test at `alpha` finds `difference` with
    probability ≥ `power`; None for no difference, no spread or more than `LIMIT`."""
    if difference == 0 or not math.isfinite(difference) or sum(variances) <= 0:
        return None
    start = _normal_start(abs(difference), variances, alpha / 2, power)
    return smallest_n(lambda n: two_sided_power(difference, variances, n, alpha), start, power)


def repetitions_for_precision(
    mean: float, stddev: float, target_pct: float, confidence: float = CONFIDENCE
) -> int | None:
    """The smallest n with t((1 + confidence) / 2, n − 1) · σ / √n within target_pct % of |mean|:
    how many repetitions a cell's confidence interval needs at its measured σ (the iterative
    t-based sample size, NIST/SEMATECH e-Handbook 7.2.2.2)."""
    if not (math.isfinite(mean) and math.isfinite(stddev)) or mean == 0 or target_pct <= 0:
        return None
    allowed = target_pct / 100 * abs(mean)
    quantile = (1 + confidence) / 2

    def reached(n: int) -> float:
        return 1.0 if float(special.stdtrit(n - 1, quantile)) * stddev / math.sqrt(n) <= allowed else 0.0

    start = int(min((float(special.ndtri(quantile)) * stddev / allowed) ** 2, LIMIT))
    return smallest_n(reached, start, 1.0)
