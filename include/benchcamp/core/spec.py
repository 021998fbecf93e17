"""Study specs: one YAML file per published study (`studies/<study>/spec.yaml`), validated by typed models.

A spec declares *what* a campaign measures (axes, series of cells, repetitions,
thresholds, schedule, targets, size ladder); workload modules declare *how*.
Every model forbids unknown keys, so a typo'd key fails loudly with its path
instead of silently dropping a parameter. A bad spec is refused with every
problem at once, each as `file:line: key.path: what to fix`, whoever loads it
(`benchcamp spec check`, the DAG factory, the importer).

This module is the spec model and its loading; its parts live by concern: the base models and
how a problem is reported (`core.spec_problems`), an environment and its options
(`core.environment_options`), the axes, series and cells (`core.matrix`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Iterator
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from croniter import CroniterBadCronError, CroniterBadDateError, croniter
from pydantic import Field, StringConstraints, ValidationError, ValidationInfo, field_validator

from benchcamp.core.environment_options import Environment
from benchcamp.core.matrix import Axis, AxisValue, Cell, Ladder, Series, axis_value_problems
from benchcamp.core.spec_problems import (
    NAME,
    Checked,
    MissingAxis,
    Problem,
    SpecError,
    Strict,
    refuse,
    repeated_keys,
    repeats,
    report_problems,
    validation_problems,
    yaml_error,
)
from benchcamp.core.study import SPEC_FILE, forget_with_the_studies, study_folders

RunOrder = Literal["sequential", "randomised", "blocked", "interleaved"]
RUN_ORDERS: tuple[RunOrder, ...] = ("sequential", "randomised", "blocked", "interleaved")
# Airflow's schedule presets (airflow.sdk.definitions.timetables._cron.CRON_PRESETS, which takes
# 3 s to import; a unit test keeps the two equal) and the one preset that is not a cron.
AIRFLOW_CRON_PRESETS: dict[str, str] = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
}
AIRFLOW_ONCE = "@once"
_SCHEDULE_FORMS = (
    "give five fields (minute hour day-of-month month day-of-week, e.g. '0 1 * * 6'), "
    f"an Airflow preset ({', '.join([*AIRFLOW_CRON_PRESETS, AIRFLOW_ONCE])}) or null for manual runs only"
)


def schedule_problem(value: str) -> str | None:
    """Why Airflow would refuse (or never run) this schedule, or None: checked with croniter,
    the library Airflow's cron timetables use, so a bad cron fails at spec load naming the spec."""
    if value == AIRFLOW_ONCE:
        return None
    expression = AIRFLOW_CRON_PRESETS.get(value, value)
    fields = expression.split()
    if len(fields) != 5:
        return f"{value!r} is not a five-field cron expression: {_SCHEDULE_FORMS}"
    try:
        croniter(expression, datetime(2026, 1, 1)).get_next(datetime)  # any start: cron has no year
    except CroniterBadCronError as exc:
        return f"{value!r} is not a valid cron expression ({exc}): {_SCHEDULE_FORMS}"
    except CroniterBadDateError:
        return f"{value!r} never fires: no date matches it (like 31 February)"
    return None


class Thresholds(Strict):
    """Quality gates applied per cell by the validation step."""

    max_stddev_pct: float = Field(default=10.0, gt=0, description="largest acceptable σ% (sample σ)")
    min_ok_repetitions: int | None = Field(
        default=None, ge=1, description="repetitions that must be ok; default: all of them"
    )
    noise_floor_runs: int | None = Field(
        default=None,
        ge=3,
        le=20,
        description="timed runs of each workload's empty job at preflight (after one untimed): "
        "their σ is the target's noise floor, and a cell whose mean is below "
        "σ × 100 / max_stddev_pct is reported below resolution instead of judged by the σ% gate; "
        "default: no probe, every cell judged",
    )


MetricName = Annotated[str, StringConstraints(pattern=NAME)]


class ChangePointSettings(Strict):
    """How a study's change points are found: Apache Otava's analysis options, its defaults but
    for the magnitude (README "Change points and regression alerts" has why)."""

    min_magnitude_pct: float = Field(
        default=5.0,
        ge=0,
        description="a change smaller than this % (Otava's magnitude: the larger of |after/before - 1| "
        "and |before/after - 1|) is no change point; Otava's CLI default is 0, its library's was 5",
    )
    max_pvalue: float = Field(
        default=0.001,
        gt=0,
        lt=1,
        description="a change point's t-test p-value is below this (Otava's default)",
    )
    window: int = Field(
        default=50,
        ge=2,
        description="campaigns e-divisive examines at once, windows half a window apart (Otava's default)",
    )


class History(Checked):
    """What the change-point detection tracks across a study's campaigns (`change_points` mart).

    Each metric with the direction in which it is better; a change point in the bad direction
    larger than `regression_pct` of the mean before it (any, from a mean of 0) is a regression
    (an Airflow event); `change_points` sets the detection (Otava's options).
    """

    metrics: dict[MetricName, str] = Field(
        description="metric: the direction in which it is better (lower or higher)"
    )
    regression_pct: float = Field(
        default=10.0, gt=0, description="a change in the bad direction beyond this % is a regression"
    )
    change_points: ChangePointSettings = Field(default_factory=ChangePointSettings)

    def problems(self) -> Iterator[Problem]:
        if not self.metrics:
            yield Problem(
                ("metrics",), "is empty: list each metric with its better direction, e.g. duration_s: lower"
            )
        for metric, direction in self.metrics.items():
            if direction not in ("lower", "higher"):
                yield Problem(
                    ("metrics", metric),
                    f"{direction!r} is not a direction: write lower (smaller is better, e.g. a duration) "
                    "or higher (e.g. a throughput)",
                )

    def better(self, metric: str) -> Literal["lower", "higher"]:
        """The direction in which `metric` is better."""
        return "higher" if self.metrics[metric] == "higher" else "lower"


SettingValue = float | int | str | bool


MAX_WARMUP_REPETITIONS = 10


class StudySpec(Checked):
    """A published study turned into a repeatable campaign."""

    study: str = Field(pattern=NAME)
    title: str = Field(min_length=1)
    description: str = ""
    source: str = ""
    schedule: str | None = Field(default=None, description="cron; null = manual only")
    repetitions: int = Field(default=3, ge=1, le=100)
    target_ci_pct: float | None = Field(
        default=None,
        gt=0,
        lt=100,
        description="adaptive repetitions: after `repetitions`, a cell gets more until the 95 % "
        "confidence interval of its mean is within this % of the mean (half-width), up to "
        "max_repetitions; null: no target (a trigger may set one when max_repetitions is declared)",
    )
    max_repetitions: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="the most repetitions a cell may get with a target_ci_pct; the DAG has "
        "max_repetitions - repetitions adaptive rounds per target (none when null)",
    )
    warmup_repetitions: int | dict[str, int] = Field(
        default=0,
        description="repetitions run first in every cell and excluded from every statistic and gate "
        "(archived and loaded with status warmup): one number for every workload, or per workload "
        "(e.g. the Hive workloads, whose first query warms HiveServer2's JVM)",
    )
    regenerate_data: bool = True
    drop_caches: bool = True
    drop_caches_required: bool = Field(
        default=False,
        description="fail a repetition's clean step when the page cache cannot be dropped "
        "(otherwise the refusal is recorded in the clean step's archive and environment facts)",
    )
    reformat_storage: bool = False
    order: RunOrder = Field(
        default="sequential",
        description="the order a campaign runs its measured repetitions on a target (warm-ups always "
        "first): sequential (cell by cell, every repetition of a cell in a row), randomised (a seeded "
        "shuffle of cells x repetitions) or blocked (repetition 1 of every cell in a shuffled order, "
        "then repetition 2, ...) or interleaved (every environment of the target's `interleave` "
        "group in one campaign, repetition by repetition in a balanced ABBA order); a trigger can "
        "choose another",
    )
    order_seed: int | None = Field(
        default=None,
        ge=0,
        le=2**32 - 1,
        description="the seed of a randomised or blocked order; null: derived from the study and "
        "campaign names (reproducible, and recorded with every repetition)",
    )
    interleave: list[list[str]] = Field(
        default_factory=list,
        description="groups of environments on the same hosts that a campaign may run interleaved "
        "(conf `interleave`: every environment of the group in one campaign, repetition by "
        "repetition in a balanced ABBA order, so a drift of the machine lands on both sides); the "
        "first of a group is its A side. docs/fair-comparisons.md. They are also the pairs a study's "
        "comparison marts compare (dbt's int_environment_pairs): the group's baseline environment, "
        "else its first, against each other member",
    )
    thresholds: Thresholds = Field(default_factory=Thresholds)
    history: History | None = Field(
        default=None,
        description="metrics whose change points across campaigns are found and alerted on; "
        "none: the study gets no change points",
    )
    environments: list[Environment] = Field(min_length=1)
    axes: dict[str, Axis] = Field(min_length=1)
    workloads: list[str] = Field(min_length=1)
    series: list[Series] = Field(min_length=1)
    settings: dict[str, dict[str, SettingValue | dict[Ladder, SettingValue]]] = Field(
        default_factory=dict, description="per-workload settings, optionally per ladder size"
    )
    default_ladder: Ladder = "small"
    campaign_durations: dict[Ladder, str] = Field(
        default_factory=dict,
        description="how long a default campaign takes per ladder, as measured (where and when) or "
        "estimated from the published times; shown in the DAG's documentation",
    )

    @field_validator("schedule")
    @classmethod
    def _cron(cls, value: str | None) -> str | None:
        problem = None if value is None else schedule_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("warmup_repetitions")
    @classmethod
    def _warmups(cls, value: int | dict[str, int]) -> int | dict[str, int]:
        counts = value.values() if isinstance(value, dict) else [value]
        if any(count < 0 or count > MAX_WARMUP_REPETITIONS for count in counts):
            raise ValueError(f"warm-up repetitions must be from 0 to {MAX_WARMUP_REPETITIONS}")
        return value

    def warmups(self, workload: str) -> int:
        """Warm-up repetitions of the workload's cells."""
        if isinstance(self.warmup_repetitions, dict):
            return self.warmup_repetitions.get(workload, 0)
        return self.warmup_repetitions

    # Each check is a validator of the field it reports on, so it runs (and reports) even when
    # another part of the spec is broken; `info.data` holds the fields above it that validated.

    @field_validator("environments")
    @classmethod
    def _one_of_each_environment(cls, environments: list[Environment]) -> list[Environment]:
        repeated = repeats((), [env.name for env in environments])
        problems = [Problem((*item.loc, "name"), item.message) for item in repeated]
        baselines = [index for index, env in enumerate(environments) if env.baseline]
        problems += [
            Problem(
                (index, "baseline"),
                f"at most one environment is the baseline ({environments[baselines[0]].name} is)",
            )
            for index in baselines[1:]
        ]
        refuse(problems)
        return environments

    @field_validator("axes")
    @classmethod
    def _axis_names(cls, axes: dict[str, Axis]) -> dict[str, Axis]:
        refuse(
            Problem((name,), f"axis name {name!r} must be snake_case")
            for name in axes
            if not re.fullmatch(NAME, name)
        )
        return axes

    @field_validator("workloads")
    @classmethod
    def _one_of_each_workload(cls, workloads: list[str]) -> list[str]:
        refuse(repeats((), workloads))
        return workloads

    @field_validator("series")
    @classmethod
    def _series_refer_to_the_spec(cls, series: list[Series], info: ValidationInfo) -> list[Series]:
        repeated = repeats((), [item.name for item in series])
        problems = [Problem((*item.loc, "name"), item.message) for item in repeated]
        workloads: list[str] | None = info.data.get("workloads")
        axes: dict[str, Axis] | None = info.data.get("axes")
        for index, item in enumerate(series):
            problems += [Problem((index, *problem.loc), problem.message) for problem in item.problems()]
            if workloads is not None:
                problems += [
                    Problem((index, "workloads", position), f"workload '{workload}' is not in 'workloads'")
                    for position, workload in enumerate(item.workloads)
                    if workload not in workloads
                ]
            if axes is None:
                continue
            for axis_name, choice in item.axes.items():
                if axis_name not in axes:
                    problems.append(
                        Problem((index, "axes", axis_name), f"axis '{axis_name}' is not declared in 'axes'")
                    )
                elif isinstance(choice, list):
                    for position, value in enumerate(choice):
                        problems += axis_value_problems(
                            axes, axis_name, value, (index, "axes", axis_name, position)
                        )
            for position, point in enumerate(item.combinations):
                for axis_name, value in point.items():
                    loc: tuple[str | int, ...] = (index, "combinations", position, axis_name)
                    if axis_name not in axes:
                        problems.append(Problem(loc, f"axis '{axis_name}' is not declared in 'axes'"))
                    else:
                        problems += axis_value_problems(axes, axis_name, value, loc)
        refuse(problems)
        return series

    @field_validator("settings")
    @classmethod
    def _settings_of_known_workloads(cls, settings: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        workloads: list[str] = info.data.get("workloads", list(settings))
        refuse(
            Problem((workload,), f"workload '{workload}' is not in 'workloads'")
            for workload in settings
            if workload not in workloads
        )
        return settings

    def problems(self) -> Iterator[Problem]:
        """What needs fields declared below it: per-workload warm-ups name known workloads."""
        if self.max_repetitions is not None and self.max_repetitions < self.repetitions:
            yield Problem(
                ("max_repetitions",),
                f"{self.max_repetitions} is below repetitions ({self.repetitions}): the adaptive "
                "repetitions come after the minimum; set it to at least repetitions",
            )
        if self.target_ci_pct is not None and self.max_repetitions is None:
            yield Problem(
                ("target_ci_pct",),
                "needs max_repetitions (the most repetitions a cell may get while its confidence "
                "interval is wider than the target)",
            )
        yield from self._interleave_problems()
        yield from self._environment_key_problems()
        if self.order == "interleaved" and not self.interleave:
            yield Problem(
                ("order",),
                "interleaved needs an `interleave` group (the environments on the same hosts that take "
                "turns); declare one or choose another order",
            )
        if isinstance(self.warmup_repetitions, dict):
            for workload in self.warmup_repetitions:
                if workload not in self.workloads:
                    yield Problem(
                        ("warmup_repetitions", workload), f"workload '{workload}' is not in 'workloads'"
                    )

    def _environment_key_problems(self) -> Iterator[Problem]:
        """An axis that is an environment's fact names a key environments have, and each
        environment's value is one the axis can take."""
        for axis_name, axis in self.axes.items():
            key = axis.environment_key
            if key is None:
                continue
            keys = self.environments[0].flat_keys() if self.environments else {}
            if key not in keys:
                yield Problem(
                    ("axes", axis_name, "environment_key"),
                    f"'{key}' is not an environment key (known: {', '.join(sorted(keys))})",
                )
                continue
            for index, env in enumerate(self.environments):
                try:
                    axis.check_value(env.flat_keys()[key])
                except ValueError as exc:
                    yield Problem(("environments", index, key), f"axis '{axis_name}' takes it: {exc}")

    def _interleave_problems(self) -> Iterator[Problem]:
        """Interleave groups name two or more known environments, each in one group at most, and
        only where the environments can take turns: a study that reformats its storage starts each
        environment's install in that environment's preflight, so switching between repetitions
        would measure on an install that is not running."""
        known = {env.name for env in self.environments}
        seen: dict[str, int] = {}
        for index, group in enumerate(self.interleave):
            if self.reformat_storage:
                yield Problem(
                    ("interleave", index),
                    "this study reformats its storage (reformat_storage: true): each environment's "
                    "preflight starts its own install, so its environments cannot take turns between "
                    "repetitions; remove the group or run the environments as separate campaigns",
                )
            if len(set(group)) < 2:
                yield Problem(("interleave", index), "a group interleaves two or more different environments")
            yield from repeats(("interleave", index), group)
            for position, name in enumerate(group):
                if name not in known:
                    yield Problem(
                        ("interleave", index, position),
                        f"environment '{name}' is not in 'environments' ({', '.join(sorted(known))})",
                    )
                elif name in seen and seen[name] != index:
                    yield Problem(
                        ("interleave", index, position),
                        f"environment '{name}' is in interleave group {seen[name]} already: one group each",
                    )
                seen.setdefault(name, index)

    def interleave_group(self, environment: str) -> list[str] | None:
        """The interleave group holding `environment` (its A side first), or None."""
        return next((list(group) for group in self.interleave if environment in group), None)

    # -- queries used by the DAG factory, validation and import -----------------

    def default_environment(self, reachable: Collection[str] = ()) -> str:
        """The environment a run without one targets: the baseline (else the first environment),
        unless `reachable` (the SSH connections a stack reaches, e.g. the lab's) names some and not
        the baseline's: then the first environment reached through one of them."""
        baseline = next((env for env in self.environments if env.baseline), self.environments[0])
        if not reachable or baseline.transport.connection in reachable:
            return baseline.name
        reached = (env.name for env in self.environments if env.transport.connection in reachable)
        return next(reached, baseline.name)

    def environment(self, name: str) -> Environment:
        for env in self.environments:
            if env.name == name:
                return env
        known = ", ".join(env.name for env in self.environments)
        raise SpecError(f"study '{self.study}' has no environment '{name}' (known: {known})")

    def setting(self, workload: str, name: str, ladder: Ladder, default: Any = None) -> Any:
        value = self.settings.get(workload, {}).get(name, default)
        if isinstance(value, dict):
            return value[ladder]
        return value

    def cells(
        self, ladder: Ladder, workloads: list[str] | None = None, environment: Environment | None = None
    ) -> list[Cell]:
        """Every cell of the matrix at one ladder size, deduplicated, in spec order; on an
        `environment`, an axis with an `environment_key` takes that environment's value (a
        3-worker cluster measures `cluster_nodes=3` whatever the ladder lists)."""
        seen: dict[str, Cell] = {}
        facts = environment.flat_keys() if environment is not None else {}
        for series in self.series:
            if ladder not in series.ladders:
                continue
            axis_values: dict[str, list[AxisValue]] = {}
            for axis_name, choice in series.axes.items():
                axis = self.axes[axis_name]
                if choice == "ladder":
                    axis_values[axis_name] = axis.values_at(ladder)
                elif choice == "baseline":
                    axis_values[axis_name] = [axis.baseline_at(ladder)]
                else:
                    axis_values[axis_name] = list(choice)
                if axis.environment_key is not None and environment is not None:
                    axis_values[axis_name] = [facts[axis.environment_key]]
            names = list(axis_values)
            points = series.combinations or [{}]
            for workload in series.workloads:
                if workloads is not None and workload not in workloads:
                    continue
                for product in itertools.product(*(axis_values[name] for name in names)):
                    for point in points:
                        params: dict[str, AxisValue] = dict(zip(names, product, strict=True))
                        params.update(point)
                        cell = Cell(workload=workload, params=params, series=series.name)
                        seen.setdefault(cell.key, cell)
        return list(seen.values())

    def record_axes(self, workload: str) -> list[tuple[str, tuple[str, ...]]]:
        """(series, axes) for each set of axes the workload's cells have: the series' axes plus,
        if it pairs them, the axes of its combinations (spec order, each set once)."""
        shapes: list[tuple[str, tuple[str, ...]]] = []
        for series in self.series:
            if workload not in series.workloads:
                continue
            for point in series.combinations or [{}]:
                axes = (*series.axes, *(name for name in point if name not in series.axes))
                if all(set(axes) != set(known) for _, known in shapes):
                    shapes.append((series.name, axes))
        return shapes

    def validate_record_params(self, workload: str, params: dict[str, Any]) -> None:
        """Raise SpecError unless the workload and every axis value are declared here and the
        record has exactly the axes of one of the workload's series (MissingAxis when it lacks
        one): a record without an axis of its cell would be a cell of no series, in no mart."""
        if workload not in self.workloads:
            raise SpecError(f"study '{self.study}' has no workload '{workload}'")
        for axis_name, value in params.items():
            if axis_name not in self.axes:
                raise SpecError(f"study '{self.study}' has no axis '{axis_name}'")
            axis = self.axes[axis_name]
            try:
                axis.check_value(value)
            except ValueError as exc:
                raise SpecError(f"axis '{axis_name}': {exc}") from exc
            if axis.kind == "category" and value not in axis.all_values():
                raise SpecError(f"axis '{axis_name}' has no value {value!r}")
        shapes = self.record_axes(workload)
        present = set(params)
        if not shapes or any(set(axes) == present for _, axes in shapes):
            return
        stray = [name for name in params if all(name not in axes for _, axes in shapes)]
        if stray:
            raise SpecError(f"axis '{stray[0]}' is in no series of workload '{workload}'")
        covering = [(name, axes) for name, axes in shapes if present <= set(axes)]
        if covering:
            fewest = min(len(axes) for _, axes in covering)
            needs = [
                (next(name for name in axes if name not in present), series, axes)
                for series, axes in covering
                if len(axes) == fewest
            ]
            choices = " or ".join(
                f"'{axis}' (series '{series}': {', '.join(axes)})" for axis, series, axes in needs
            )
            raise MissingAxis(
                f"workload '{workload}' needs axis {choices}",
                tuple(dict.fromkeys(axis for axis, *_ in needs)),
            )
        choices = "; ".join(f"series '{name}': {', '.join(axes)}" for name, axes in shapes)
        raise SpecError(
            f"axes {', '.join(sorted(present))} are not those of one series of workload '{workload}' ({choices})"
        )


def parse_spec(text: str, source: str = "<spec>", study: str | None = None) -> StudySpec:
    """Validate a spec's text; raise SpecError with every problem, each on a line of its own.

    `study`: the id the file's name gives it (a bundled spec's folder name: it is found by it).
    """
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        problems = list(repeated_keys(root)) if root is not None else []
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        raise yaml_error(source, exc) from exc
    finally:
        loader.dispose()
    if root is None or not isinstance(data, dict):
        line = root.start_mark.line + 1 if root is not None else 1
        raise SpecError(f"{source}:{line}: a spec must be a mapping of keys (study, title, axes, ...)")
    named = data.get("study")
    if study is not None and isinstance(named, str) and named != study:
        problems.append(
            Problem(("study",), f"is '{named}' but the file is named '{study}': rename one of them")
        )
    spec = None
    try:
        spec = StudySpec.model_validate(data)
    except ValidationError as exc:
        problems += validation_problems(exc)
    if problems or spec is None:
        raise SpecError(report_problems(source, root, problems))
    return spec


def study_id(path: Path) -> str:
    """A spec file's study id: a bundled spec's folder name, any other file's name without `.yaml`."""
    if path.name == SPEC_FILE and path.resolve().parent in {
        folder.resolve() for folder in study_folders().values()
    }:
        return path.parent.name
    return path.stem


def load_spec_file(path: Path) -> StudySpec:
    """A spec file, checked as a bundled one is: its study id is its file name (a bundled one's folder)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read: {exc}") from exc
    return parse_spec(text, str(path), study=study_id(path))


def spec_files() -> Iterator[Path]:
    """Every study's spec, by study id: `studies/<study>/spec.yaml` (see `core.study`)."""
    for folder in study_folders().values():
        yield folder / SPEC_FILE


def study_names() -> list[str]:
    return list(study_folders())


@cache
def load_spec(study: str) -> StudySpec:
    """Load a bundled spec by study id; unknown ids get the list of known ones."""
    for path in spec_files():
        if study_id(path) == study:
            return load_spec_file(path)
    raise SpecError(f"unknown study '{study}' (known: {', '.join(study_names())})")


forget_with_the_studies(load_spec.cache_clear)
