"""A study's matrix: its axes, the series that cross them and the cells they give.

The ladder sizes (`tiny`, `small`, `paper`) pick an axis's values; a series crosses some axes
(and combinations) for some workloads; each point is a `Cell`, keyed like its records.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from benchcamp.core.records import cell_key
from benchcamp.core.spec_problems import NAME, Checked, Problem, Strict, repeats

Ladder = Literal["tiny", "small", "paper"]
LADDERS: tuple[Ladder, ...] = ("tiny", "small", "paper")
AxisValue = float | int | str


class Comparison(Strict):
    """Two values of one axis a study compares: `value` against `against` (its baseline there)."""

    value: AxisValue
    against: AxisValue


class Axis(Checked):
    """One dimension of the matrix: fixed values, or values per ladder size."""

    description: str = ""
    unit: str = ""
    kind: Literal["number", "category"] = "number"
    values: list[AxisValue] | None = None
    ladder: dict[Ladder, list[AxisValue]] | None = None
    baseline: AxisValue | Literal["smallest"] | None = None
    positive: bool = True
    comparisons: list[Comparison] = Field(
        default_factory=list,
        description="pairs of this axis's values a study's marts compare (value against against), "
        "for studies whose published comparisons are not all against the baseline; copied into "
        "raw.axis_comparisons by every load and import",
    )
    environment_key: str | None = Field(
        default=None,
        description="an environment key (e.g. `nodes`) whose value this axis is: a fact of the "
        "target that no run sets, such as its cluster's size. A campaign's cells on an environment "
        "take that environment's value, whatever the ladder lists (its values are the sizes the "
        "study covers, each measured on an environment of that size)",
    )

    def problems(self) -> Iterator[Problem]:
        if (self.values is None) == (self.ladder is None):
            yield Problem((), "give exactly one of 'values' or 'ladder'")
            return
        yield from self._comparison_problems()
        lists: list[tuple[tuple[str | int, ...], list[AxisValue]]] = []
        if self.values is not None:
            lists.append((("values",), self.values))
        if self.ladder is not None:
            for size in LADDERS:
                if size not in self.ladder:
                    yield Problem(("ladder",), f"ladder lacks size '{size}': give {', '.join(LADDERS)}")
            lists += [(("ladder", size), self.ladder[size]) for size in LADDERS if size in self.ladder]
        for loc, values in lists:
            if not values:
                yield Problem(loc, "is empty: list at least one value")
            for index, value in enumerate(values):
                try:
                    self.check_value(value)
                except ValueError as exc:
                    yield Problem((*loc, index), str(exc))
            yield from repeats(loc, values)
        if self.baseline in (None, "smallest") or not all(values for _, values in lists):
            return
        if self.values is not None and self.baseline not in self.values:
            yield Problem(("baseline",), f"{self.baseline!r} is not one of the values {self.values}")
        if self.ladder is not None:
            lacking = [str(loc[-1]) for loc, values in lists if self.baseline not in values]
            if lacking:
                yield Problem(
                    ("baseline",),
                    f"{self.baseline!r} is not on the ladder's {' and '.join(lacking)} "
                    f"level{'s' if len(lacking) > 1 else ''}: list it on every level, or write 'smallest'",
                )

    def _comparison_problems(self) -> Iterator[Problem]:
        """Each comparison names two different values the axis takes, and is listed once."""
        ladder = self.ladder or {}
        known = (
            self.values
            if self.values is not None
            else list(dict.fromkeys(v for size in LADDERS for v in ladder.get(size, [])))
        )
        for index, item in enumerate(self.comparisons):
            for key in ("value", "against"):
                named = getattr(item, key)
                if named not in known:
                    yield Problem(
                        ("comparisons", index, key),
                        f"{named!r} is not one of the axis's values {known}: name one of them, "
                        "or add it to the values",
                    )
            if item.value == item.against:
                yield Problem(
                    ("comparisons", index, "against"),
                    f"compares {item.value!r} with itself: name another value",
                )
        yield from repeats(("comparisons",), [(item.value, item.against) for item in self.comparisons])

    def all_values(self) -> list[AxisValue]:
        if self.values is not None:
            return list(self.values)
        assert self.ladder is not None
        return [value for size in LADDERS for value in self.ladder[size]]

    def values_at(self, ladder: Ladder) -> list[AxisValue]:
        if self.values is not None:
            return list(self.values)
        assert self.ladder is not None
        return list(self.ladder[ladder])

    def baseline_at(self, ladder: Ladder) -> AxisValue:
        values = self.values_at(ladder)
        if self.baseline is None or self.baseline == "smallest":
            if self.kind == "number":
                return min(values, key=float)
            return values[0]
        return self.baseline

    def check_value(self, value: Any) -> None:
        if self.kind == "number":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{value!r} is not a number")
            if self.positive and value <= 0:
                raise ValueError(f"{value!r} must be greater than 0")
        elif not isinstance(value, str) or not value:
            raise ValueError(f"{value!r} is not a category name")


class Series(Strict):
    """A sub-matrix: workloads × the product of the listed axes (× combinations).

    Its own problems are reported by the spec's `series` check, with those of its references,
    so that one series' repeated value does not hide another's unknown workload.
    """

    name: str = Field(pattern=NAME)
    description: str = ""
    workloads: list[str] = Field(min_length=1)
    axes: dict[str, list[AxisValue] | Literal["ladder", "baseline"]] = Field(default_factory=dict)
    combinations: list[dict[str, AxisValue]] = Field(
        default_factory=list, description="points crossed with the axes, for paired sweeps like maps/reduces"
    )
    ladders: list[Ladder] = Field(default_factory=lambda: list(LADDERS))

    def problems(self) -> Iterator[Problem]:
        """Repeated workloads, axis values or sizes; empty value lists."""
        yield from repeats(("workloads",), self.workloads)
        for axis_name, choice in self.axes.items():
            if isinstance(choice, list):
                if not choice:
                    yield Problem(("axes", axis_name), "is empty: list at least one value, or write ladder")
                yield from repeats(("axes", axis_name), choice)
        if not self.ladders:
            yield Problem(("ladders",), f"is empty: list the sizes the series runs at ({', '.join(LADDERS)})")
        yield from repeats(("ladders",), self.ladders)


@dataclass(frozen=True)
class Cell:
    """One point of a study's matrix."""

    workload: str
    params: dict[str, AxisValue] = field(hash=False)
    series: str = ""

    @property
    def key(self) -> str:
        return cell_key(self.workload, self.params)


def axis_value_problems(
    axes: dict[str, Axis], axis_name: str, value: AxisValue, loc: tuple[str | int, ...]
) -> list[Problem]:
    """A value a series or combination picks for an axis must be one the axis can take."""
    axis = axes[axis_name]
    try:
        axis.check_value(value)
    except ValueError as exc:
        return [Problem(loc, f"axis '{axis_name}': {exc}")]
    if axis.kind == "category" and value not in axis.all_values():
        return [Problem(loc, f"axis '{axis_name}' has no value {value!r}")]
    return []
