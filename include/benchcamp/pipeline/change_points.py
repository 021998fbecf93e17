"""Change points in series of campaign means: when did a figure move, and is the move real?

A series is one cell's metric on one target and one hardware fingerprint, one value per
campaign (its mean over the usable repetitions) in time order; `int_history_series` builds them
and never lets one cross a hardware change. Pure functions over numbers, no I/O.

The detection is Apache Otava's own (`otava.analysis.compute_change_points`, package
apache-otava 0.8.0; Fleming et al., "Hunter: Using Change Point Detection to Hunt for
Performance Regressions", ICPE 2023), called as a library, not reimplemented:

1. split: e-divisive means (Matteson & James 2014) in sliding windows of `window` campaigns
   (half a window apart), each candidate kept as a "weak" change point while Student's t-test
   between its neighbouring segments is below 10 × max_pvalue;
2. merge: the weakest weak point is dropped (its neighbours re-tested) until every remaining one
   has p < max_pvalue and a magnitude (Otava's: the larger of |after/before − 1| and
   |before/after − 1|) above min_magnitude_pct.

Windowed and incremental: an `Analysis` keeps the weak points and the series length it saw, and
a series that grew by k campaigns is resumed with Otava's incremental split (it re-examines
about the last four windows), so a new campaign costs the same whatever the history's length.

Defaults (`Settings`, the spec's `history.change_points`): Otava's window 50 and max_pvalue 0.001; min_magnitude_pct 5, which was
Otava's library default until 2024 (its CLI's is 0). At magnitude 0, 16 to 21 % of stable
series of 365 campaigns get a change point (benchmarks/change_points.py): e-divisive picks the
best split and the t-test does not pay for that choice, so over a long stable history a shift of
under 1 % passes p < 0.001.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchcamp.core.spec import ChangePointSettings as Settings

DEFAULTS = Settings()
MIN_CAMPAIGNS = 3  # below this no t-test can separate two segments (Otava gives p 1 for two points)


@dataclass(frozen=True)
class ChangePoint:
    """A significant shift in a series: `index` is the first point after it.

    The segment before is points [start, index), the one after [index, end): from the previous
    change point (or the series' start) to the next one (or its end). Means, population
    standard deviations and `p_value` (two-sided Student's t-test) are Otava's statistics.
    """

    index: int
    start: int
    end: int
    mean_before: float
    mean_after: float
    stddev_before: float
    stddev_after: float
    p_value: float

    @property
    def change(self) -> float:
        """mean_after − mean_before, in the metric's unit: defined also from or to a mean of 0."""
        return self.mean_after - self.mean_before

    @property
    def change_pct(self) -> float:
        """The after mean relative to the before mean, in % (NaN when the before mean is 0)."""
        if self.mean_before == 0:
            return math.nan
        return self.change / abs(self.mean_before) * 100.0

    @property
    def magnitude_pct(self) -> float:
        """Otava's magnitude in %: the larger of the forward and backward relative changes (a
        side with a mean of 0 counts 0, so a change from or to 0 has magnitude 100 %)."""
        forward = self.mean_after / self.mean_before - 1 if self.mean_before else 0.0
        backward = self.mean_before / self.mean_after - 1 if self.mean_after else 0.0
        return max(abs(forward), abs(backward)) * 100.0


@dataclass(frozen=True)
class Analysis:
    """One series' change points, the weak ones they were merged from (to resume from), the
    number of campaigns analysed, and why there are none when the series cannot have any."""

    points: tuple[ChangePoint, ...]
    weak: tuple[int, ...] = ()
    campaigns: int = 0
    note: str = ""
    settings: Settings = field(default_factory=Settings)


def analyse(
    values: Sequence[float], settings: Settings = DEFAULTS, previous: Analysis | None = None
) -> Analysis:
    """Otava's change points of `values` (campaign means in time order).

    `previous`: this series' analysis when it was shorter (same first campaigns, same settings):
    only the campaigns since, and the windows before them, are examined again. The caller checks
    the earlier campaigns are unchanged (the mart compares a hash); anything else starts afresh.
    """
    from otava.analysis import TTestSignificanceTester, compute_change_points
    from otava.change_point_divisive.base import ChangePoint as WeakPoint

    data = [float(value) for value in values]
    if any(math.isnan(value) for value in data):
        raise ValueError("a series of campaign means has no NaN: drop campaigns without a mean")
    if len(data) < MIN_CAMPAIGNS:
        return Analysis(
            (),
            (),
            len(data),
            f"too short: {len(data)} campaign(s), a change point needs {MIN_CAMPAIGNS}",
            settings,
        )
    resume = previous is not None and previous.settings == settings and 0 < previous.campaigns <= len(data)
    if resume and previous is not None and previous.campaigns == len(data):
        return previous
    with warnings.catch_warnings():
        # a segment without spread gives scipy a 0/0 t (NaN p: no change) or ±inf (p 0)
        warnings.simplefilter("ignore", RuntimeWarning)
        found, weak = compute_change_points(
            data,
            window_len=settings.window,
            max_pvalue=settings.max_pvalue,
            min_magnitude=settings.min_magnitude_pct / 100.0,
            new_data=len(data) - previous.campaigns if resume and previous else None,
            old_weak_cp=[WeakPoint(index=index, qhat=0.0, stats=None) for index in previous.weak]
            if resume and previous
            else None,
        )
        # Otava's merge, after dropping a point, re-tests the next one but not the previous one,
        # whose segment after grew: it may keep a point on figures it no longer has (its test
        # series expect exactly that). The figures reported are each kept point's against its
        # final neighbours, as Otava's split computes them, so its p may exceed max_pvalue.
        tester = TTestSignificanceTester(settings.max_pvalue)
        intervals = tester.get_intervals(found)
        found = [tester.change_point(point.to_candidate(), data, intervals) for point in found]
    indexes = [int(point.index) for point in found]
    bounds = [0, *indexes, len(data)]
    points = tuple(
        ChangePoint(
            index=index,
            start=bounds[position],
            end=bounds[position + 2],
            mean_before=float(point.stats.mean_1),
            mean_after=float(point.stats.mean_2),
            stddev_before=float(point.stats.std_1),
            stddev_after=float(point.stats.std_2),
            p_value=float(point.stats.pvalue),
        )
        for position, (index, point) in enumerate(zip(indexes, found, strict=True))
    )
    return Analysis(points, tuple(int(point.index) for point in weak or ()), len(data), "", settings)


def change_points(values: Sequence[float], settings: Settings = DEFAULTS) -> list[ChangePoint]:
    """One series' change points, analysed from scratch."""
    return list(analyse(values, settings).points)
