"""A study's published claims (`studies/<study>/claims.yaml`): what its paper says its figures show.

Each claim compares cells of a campaign as a ratio of their mean `metric` and says where the paper
puts that ratio: above 1 (`higher`), below 1 (`lower`) or within 1 ± `tolerance_pct` % (`within`).
Three kinds say which cells:

- `scaling`: per workload and series, each level of `axis` against the smallest level, divided by
  the levels' own ratio: (time at s / time at the smallest) / (s / smallest), 1 = linear scaling;
  above 1 lies above the linear projection (worse than linear).
- `levels`: the same without dividing by the levels' ratio (e.g. latency at 10,000 operations
  against 1,000).
- `ratio`: the `numerator` cells against the `denominator` cells with the same other axes (e.g.
  dfsio_write against dfsio_read per data size); with `trend_axis`, that ratio at each level of
  the axis against the ratio at its smallest level (e.g. "the gap narrows as data grows").
- `environments`: across the environments of one campaign (an interleaved one,
  docs/fair-comparisons.md): each cell on every other environment against the same cell on the
  baseline environment, the first of `baseline_environments` the campaign ran on (e.g. "the
  container is within ±5 % of bare metal": expect within, tolerance_pct 5); `cells` (a workload
  and/or fixed axis values) narrows the cells compared.

The scorecard mart (dbt) scores every campaign against these; the claims reach it through
raw.study_claims, written when a campaign is loaded or imported. No I/O beyond reading the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchcamp.core.study import study_folders

CLAIMS_FILE = "claims.yaml"
# The scorecard judges a comparison only with at least this many repetitions a side (fewer: no
# interval, `inconclusive`; dbt_project/models/intermediate/int_claims_compared.py). Reports warn
# on any comparison drawn from fewer.
MIN_RUNS_PER_SIDE = 2
AxisValue = str | int | float


class ClaimError(ValueError):
    """A claims file that does not validate; the message names the file, the claim and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CellSelector(_Strict):
    """Which cells one side of a `ratio` claim takes: a workload and/or fixed axis values."""

    workload: str | None = None
    params: dict[str, AxisValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _selects_something(self) -> CellSelector:
        if self.workload is None and not self.params:
            raise ValueError("a side selects its cells by `workload`, `params` or both")
        return self


class Claim(_Strict):
    """One reading of the paper, as a ratio of cell means and the side of 1 the paper puts it on."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    paper: str = Field(min_length=1, description="the paper's words")
    kind: Literal["scaling", "levels", "ratio", "environments"]
    metric: str = Field(default="duration_s", pattern=r"^[a-z][a-z0-9_]*$")
    expect: Literal["higher", "lower", "within"]
    tolerance_pct: float | None = Field(default=None, gt=0, lt=100)
    workloads: list[str] = Field(default_factory=list)  # scaling, levels: the cells' workloads
    axis: str | None = None  # scaling, levels: whose levels are compared with its smallest
    numerator: CellSelector | None = None  # ratio
    denominator: CellSelector | None = None  # ratio
    trend_axis: str | None = None  # ratio: compare the ratio across this axis's levels
    baseline_environments: list[str] = Field(default_factory=list)  # environments: the first present
    cells: CellSelector | None = None  # environments: which cells (default: every cell of the metric)
    reading: str = ""  # how the project reads the paper's words (e.g. what "about" means)

    @model_validator(mode="after")
    def _consistent(self) -> Claim:
        if (self.expect == "within") != (self.tolerance_pct is not None):
            raise ValueError("`tolerance_pct` is required with expect: within, and only with it")
        if self.kind == "environments":
            if not self.baseline_environments:
                raise ValueError(
                    "an environments claim needs `baseline_environments` (the first one a campaign ran "
                    "on is its baseline)"
                )
            if self.workloads or self.axis or self.numerator or self.denominator or self.trend_axis:
                raise ValueError("an environments claim selects its cells by `cells` alone")
        elif self.baseline_environments or self.cells:
            raise ValueError("only an environments claim has `baseline_environments` and `cells`")
        elif self.kind in ("scaling", "levels"):
            if not self.workloads or self.axis is None:
                raise ValueError(f"a {self.kind} claim needs `workloads` and `axis`")
            if self.numerator or self.denominator or self.trend_axis:
                raise ValueError(f"a {self.kind} claim has no `numerator`, `denominator` or `trend_axis`")
        else:
            if self.numerator is None or self.denominator is None:
                raise ValueError("a ratio claim needs `numerator` and `denominator`")
            if self.workloads or self.axis:
                raise ValueError("a ratio claim selects its cells by `numerator` and `denominator`")
        return self

    @property
    def bounds(self) -> tuple[float, float]:
        """The claimed region of the ratio: (lower, upper), open-ended sides as ±infinity."""
        inf = float("inf")
        if self.expect == "higher":
            return (1.0, inf)
        if self.expect == "lower":
            return (0.0, 1.0)
        tolerance = (self.tolerance_pct or 0) / 100
        return (1 - tolerance, 1 + tolerance)

    def workloads_named(self) -> set[str]:
        sides = [
            side.workload for side in (self.numerator, self.denominator, self.cells) if side and side.workload
        ]
        return {*self.workloads, *sides}

    def axes_named(self) -> set[str]:
        sides = [
            name for side in (self.numerator, self.denominator, self.cells) if side for name in side.params
        ]
        return {name for name in (self.axis, self.trend_axis, *sides) if name}


class ClaimsFile(_Strict):
    claims: list[Claim] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> ClaimsFile:
        ids = [claim.id for claim in self.claims]
        repeated = sorted({claim_id for claim_id in ids if ids.count(claim_id) > 1})
        if repeated:
            raise ValueError(f"claim ids must be unique, repeated: {', '.join(repeated)}")
        return self


def _problems(error: ValidationError, claims: list[object]) -> list[str]:
    out = []
    for item in error.errors():
        loc = list(item["loc"])
        where = ".".join(str(part) for part in loc) or "claims"
        if len(loc) >= 2 and loc[0] == "claims" and isinstance(loc[1], int) and loc[1] < len(claims):
            entry = claims[loc[1]]
            if isinstance(entry, dict) and "id" in entry:
                where = f"claim '{entry['id']}': " + (".".join(str(part) for part in loc[2:]) or "claim")
        out.append(f"{where}: {item['msg']}")
    return out


def parse_claims(
    text: str,
    source: str = "<claims>",
    workloads: set[str] | None = None,
    axes: set[str] | None = None,
    environments: set[str] | None = None,
) -> list[Claim]:
    """The claims of one file; with `workloads`, `axes` and `environments` (the study spec's), each
    named one must exist."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ClaimError(f"{source}: not YAML: {exc}") from exc
    entries = raw.get("claims") if isinstance(raw, dict) else None
    try:
        parsed = ClaimsFile.model_validate(raw)
    except ValidationError as exc:
        listed = entries if isinstance(entries, list) else []
        raise ClaimError("\n".join(f"{source}: {problem}" for problem in _problems(exc, listed))) from exc
    problems = []
    for claim in parsed.claims:
        if workloads is not None:
            problems += [
                f"claim '{claim.id}': workload '{name}' is not in the study's spec ({', '.join(sorted(workloads))})"
                for name in sorted(claim.workloads_named() - workloads)
            ]
        if axes is not None:
            problems += [
                f"claim '{claim.id}': axis '{name}' is not in the study's spec ({', '.join(sorted(axes))})"
                for name in sorted(claim.axes_named() - axes)
            ]
        if environments is not None:
            problems += [
                f"claim '{claim.id}': environment '{name}' is not in the study's spec ({', '.join(sorted(environments))})"
                for name in claim.baseline_environments
                if name not in environments
            ]
    if problems:
        raise ClaimError("\n".join(f"{source}: {problem}" for problem in problems))
    return parsed.claims


def claims_path(study: str) -> Path | None:
    folder = study_folders().get(study)
    return None if folder is None else folder / CLAIMS_FILE


def load_claims(study: str) -> list[Claim]:
    """The study's claims, checked against its spec; none when its folder has no claims file."""
    from benchcamp.core.spec import load_spec

    path = claims_path(study)
    if path is None or not path.is_file():
        return []
    spec = load_spec(study)
    return parse_claims(
        path.read_text(encoding="utf-8"),
        str(path),
        set(spec.workloads),
        set(spec.axes),
        {env.name for env in spec.environments},
    )
