"""Change points in series of campaign means: when did a figure move, and is the move real?

A series is one cell's metric on one target and one hardware fingerprint, one value per
campaign (its mean over the usable repetitions) in time order; the `change_points` mart builds
them and never lets one cross a hardware change. Pure functions over numbers, no I/O.

The method is Apache Otava's (formerly Hunter; Fleming et al., "Hunter: Using Change Point
Detection to Hunt for Performance Regressions", ICPE 2023), with the statistics from scipy:

1. candidates by e-divisive means (Matteson & James 2014, "A Nonparametric Approach for Multiple
   Change Point Analysis of Multivariate Data"): binary segmentation, each segment split where
   the energy statistic of its two sides (α = 1) is largest, recursively, as long as each side
   keeps at least MIN_POINTS campaigns;
2. each candidate tested by Welch's t-test (`scipy.stats.ttest_ind`, equal_var=False, two-sided)
   between the campaigns from the previous candidate to it and from it to the next. The split
   was chosen as the best of the segment's possible splits, so its p-value is multiplied by
   their number (Bonferroni for the choice: the t-test of the best-separating split alone is
   optimistic, which Otava answers with a default p of 0.001). The weakest candidate (largest
   p) not below the cut-off is merged away (its two segments become one, its neighbours are
   tested again) until every remaining one is below it (Otava's merge);
3. across a study, Benjamini–Hochberg (`scipy.stats.false_discovery_control`) over those
   p-values of every candidate tested in every series (the kept ones' and the merged ones' at
   their merge): while a kept change point's adjusted p-value is not below alpha, the cut-off
   drops below its p-value and step 2 runs again, so every change point reported has a
   BH-adjusted p-value below alpha, tested against the segments that remain.

What that gives on seeded normal noise (tests/unit/test_change_points.py checks some of it):
of 300 series of 6, 8, 10, 15 or 25 stable campaigns, 13, 15, 8, 7 and 14 got a change point
(2–5 %, alpha 0.05); of 40 studies of 50 stable series of 12 campaigns, 3 had any. A 3 σ step
was found in 131 of 200 series of 6 campaigns (3 a side) and 186 of 200 of 15 (8 before, 7
after); a 4 σ step among 50 stable series at its campaign in 19 of 40 studies: the correction
over many series costs power, which is the price of few false alarms.

MIN_POINTS = 3 campaigns a side: with two, Welch's t has one or two degrees of freedom and
needs a huge step to reach p < 0.05; a series needs six campaigns for a first change point,
and a step is found by the third campaign after it at the earliest.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np
from scipy import stats

MIN_POINTS = 3
DEFAULT_ALPHA = 0.05

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class ChangePoint:
    """A significant shift in a series: `index` is the first point after it.

    The segment before is points [start, index), the one after [index, end): from the previous
    change point (or the series' start) to the next one (or its end). `p_value` is Welch's,
    `p_split` that times the splits e-divisive chose it among (at most 1), `p_adjusted` the
    latter after Benjamini–Hochberg over the study.
    """

    index: int
    start: int
    end: int
    mean_before: float
    mean_after: float
    p_value: float
    p_split: float
    p_adjusted: float = math.nan

    @property
    def change_pct(self) -> float:
        """The after mean relative to the before mean, in % (NaN when the before mean is 0)."""
        if self.mean_before == 0:
            return math.nan
        return (self.mean_after - self.mean_before) / abs(self.mean_before) * 100.0


def split_scores(values: np.ndarray, min_points: int = MIN_POINTS) -> np.ndarray:
    """Matteson & James's Q̂ (α = 1) for every split of `values` leaving `min_points` a side:
    element k is the split before point min_points + k. Block sums of the distance matrix come
    from its 2-D prefix sums, so all splits cost one n × n pass."""
    n = len(values)
    distances = np.abs(values[:, None] - values[None, :])
    prefix = np.zeros((n + 1, n + 1))
    prefix[1:, 1:] = distances.cumsum(axis=0).cumsum(axis=1)

    def block(
        a: np.ndarray | int, b: np.ndarray | int, c: np.ndarray | int, d: np.ndarray | int
    ) -> np.ndarray:
        return np.asarray(prefix[b, d] - prefix[a, d] - prefix[b, c] + prefix[a, c])

    split = np.arange(min_points, n - min_points + 1)
    m, k = split, n - split
    between = block(0, split, split, n) / (m * k)
    within_left = block(0, split, 0, split) / (m * (m - 1))
    within_right = block(split, n, split, n) / (k * (k - 1))
    return np.asarray(m * k / n * (2 * between - within_left - within_right))


def candidates(values: Sequence[float], min_points: int = MIN_POINTS) -> dict[int, int]:
    """E-divisive candidate change points: index of the first point after each → the number of
    splits it was chosen among. Every segment with room for two sides of `min_points` is split
    at its largest energy statistic (ties: the earliest split); the t-tests decide which stay."""
    series = np.asarray(values, dtype=float)
    found: dict[int, int] = {}
    pending = [(0, len(series))]
    while pending:
        start, end = pending.pop()
        if end - start < 2 * min_points:
            continue
        scores = split_scores(series[start:end], min_points)
        best = start + min_points + int(np.argmax(scores))
        found[best] = len(scores)
        pending += [(start, best), (best, end)]
    return dict(sorted(found.items()))


def welch_p_value(before: np.ndarray, after: np.ndarray) -> float:
    """Two-sided Welch t-test p-value between two segments; without spread on either side scipy
    has no t (0 / 0): a difference in means is then certain (0) and no difference none (1)."""
    if np.var(before) == 0 and np.var(after) == 0:
        return 1.0 if np.mean(before) == np.mean(after) else 0.0
    return float(stats.ttest_ind(before, after, equal_var=False).pvalue)


def _tested(series: np.ndarray, points: list[int], position: int, choices: int) -> ChangePoint:
    """Candidate `points[position]` tested between its neighbouring candidates."""
    start = points[position - 1] if position > 0 else 0
    end = points[position + 1] if position + 1 < len(points) else len(series)
    index = points[position]
    before, after = series[start:index], series[index:end]
    p_value = welch_p_value(before, after)
    return ChangePoint(
        index=index,
        start=start,
        end=end,
        mean_before=float(before.mean()),
        mean_after=float(after.mean()),
        p_value=p_value,
        p_split=min(1.0, p_value * choices),
    )


def merge(
    values: Sequence[float], found: Mapping[int, int], cutoff: float
) -> tuple[list[ChangePoint], list[float]]:
    """Otava's merge: drop the weakest candidate while its p_split is not below `cutoff`.

    `found`: candidates as `candidates` returns them. Returns the change points kept (each
    tested against its final neighbours) and the p_split the merged candidates had when they
    were merged, for the study's multiple-testing correction.
    """
    series = np.asarray(values, dtype=float)
    kept = sorted(found)
    merged: list[float] = []
    while kept:
        tested = [_tested(series, kept, position, found[kept[position]]) for position in range(len(kept))]
        weakest = max(range(len(tested)), key=lambda position: tested[position].p_split)
        if tested[weakest].p_split < cutoff:
            return tested, merged
        merged.append(tested[weakest].p_split)
        del kept[weakest]
    return [], merged


def change_points(
    values: Sequence[float], alpha: float = DEFAULT_ALPHA, min_points: int = MIN_POINTS
) -> list[ChangePoint]:
    """One series' change points, corrected (Benjamini–Hochberg) over its own candidates only."""
    return study_change_points({0: values}, alpha, min_points)[0]


def study_change_points(
    series: Mapping[Key, Sequence[float]], alpha: float = DEFAULT_ALPHA, min_points: int = MIN_POINTS
) -> dict[Key, list[ChangePoint]]:
    """Every series' change points, Benjamini–Hochberg over all the candidates tested in all of them.

    `series`: one study's series by any key (e.g. environment, fingerprint, cell, metric), each
    in time order. Each change point carries its p-values; its BH-adjusted one is below alpha.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    found = {key: candidates(values, min_points) for key, values in series.items()}
    cutoff = alpha
    while True:
        kept: dict[Key, list[ChangePoint]] = {}
        p_values: list[float] = []
        for key, points in found.items():
            kept[key], merged = merge(series[key], points, cutoff)
            p_values += [point.p_split for point in kept[key]] + merged
        if not p_values:
            return {key: [] for key in series}
        adjusted = iter(stats.false_discovery_control(np.asarray(p_values), method="bh").tolist())
        result: dict[Key, list[ChangePoint]] = {}
        for key, points in found.items():
            result[key] = [replace(point, p_adjusted=next(adjusted)) for point in kept[key]]
            for _ in range(len(points) - len(kept[key])):
                next(adjusted)  # the merged candidates' adjusted p-values
        failing = [
            point.p_split for points in result.values() for point in points if point.p_adjusted >= alpha
        ]
        if not failing:
            return result
        # BH's adjusted p-values rise with the raw ones: every kept change point with a p_split
        # at least the smallest failing one fails, and is merged away on the next pass.
        cutoff = min(failing)
