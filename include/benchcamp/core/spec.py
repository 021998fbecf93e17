"""Study specs: one YAML file per published study (`studies/<study>/spec.yaml`), validated by typed models.

A spec declares *what* a campaign measures (axes, series of cells, repetitions,
thresholds, schedule, targets, size ladder); workload modules declare *how*.
Every model forbids unknown keys, so a typo'd key fails loudly with its path
instead of silently dropping a parameter. A bad spec is refused with every
problem at once, each as `file:line: key.path: what to fix`, whoever loads it
(`benchcamp spec check`, the DAG factory, the importer).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import yaml
from croniter import CroniterBadCronError, CroniterBadDateError, croniter
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from benchcamp.core.records import cell_key
from benchcamp.core.study import SPEC_FILE, forget_with_the_studies, study_folders, study_plugins

Ladder = Literal["tiny", "small", "paper"]
RunOrder = Literal["sequential", "randomised", "blocked", "interleaved"]
RUN_ORDERS: tuple[RunOrder, ...] = ("sequential", "randomised", "blocked", "interleaved")
LADDERS: tuple[Ladder, ...] = ("tiny", "small", "paper")
AxisValue = float | int | str
_NAME = r"^[a-z][a-z0-9_]*$"
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
_SPEC_PROBLEMS = "spec_problems"  # the pydantic error type that carries a model's own problems


class SpecError(ValueError):
    """A spec that does not validate; each line of the message names the file, line and key."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a spec: where (a key path, or a line) and what to fix."""

    loc: tuple[str | int, ...]
    message: str
    line: int | None = None  # when the key path alone would point elsewhere (a repeated key)


class MissingAxis(SpecError):
    """A record without an axis of its series; `axes`: the one it lacks, or the one per series
    when it could belong to several (e.g. a CSV's missing column to name instead)."""

    def __init__(self, message: str, axes: tuple[str, ...]) -> None:
        super().__init__(message)
        self.axes = axes


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _refuse(problems: Iterable[Problem]) -> None:
    """Raise every problem at once: a pydantic validator yields one error, so the problems travel
    in its context and `parse_spec` unpacks them (their paths are relative to the validated value)."""
    found = list(problems)
    if found:
        summary = "; ".join(f"{key_path(item.loc) or 'here'}: {item.message}" for item in found)
        raise PydanticCustomError(_SPEC_PROBLEMS, summary, {"problems": found})


class _Checked(_Strict):
    """A model whose own checks report every problem at its own key path, not only the first."""

    def problems(self) -> Iterator[Problem]:
        yield from ()

    @model_validator(mode="after")
    def _refuse_problems(self) -> Self:
        _refuse(self.problems())
        return self


def _repeats(loc: tuple[str | int, ...], items: Iterable[Hashable]) -> Iterator[Problem]:
    """A problem for every item listed a second time (4 and 4.0 are the same number)."""
    first: dict[Hashable, int] = {}
    for index, item in enumerate(items):
        if item in first:
            yield Problem((*loc, index), f"{item!r} is listed twice (first at [{first[item]}]): remove one")
        else:
            first[item] = index


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


class Thresholds(_Strict):
    """Quality gates applied per cell by the validation step."""

    max_stddev_pct: float = Field(default=10.0, gt=0, description="largest acceptable σ% (sample σ)")
    min_ok_repetitions: int | None = Field(
        default=None, ge=1, description="repetitions that must be ok; default: all of them"
    )


MetricName = Annotated[str, StringConstraints(pattern=_NAME)]


class ChangePointSettings(_Strict):
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


class History(_Checked):
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


def _plain_words(value: str) -> str:
    """Words a command line is built from, never a shell fragment: a spec cannot inject `; rm`."""
    if not all(re.fullmatch(r"[A-Za-z0-9_./=:+-]+", word) for word in value.split()):
        raise ValueError("must be plain words (letters, digits, _ . / = : + -), e.g. 'dse hadoop'")
    return value


PlainWords = Annotated[str, AfterValidator(_plain_words)]
HttpAddress = Annotated[str, StringConstraints(pattern=r"^https?://[A-Za-z0-9.-]+(:\d+)?/?$")]


class EnvironmentOptions(_Strict):
    """One concern of an environment, validated on its own, read from the environment's flat keys.

    The generic concerns are `Environment`'s fields; a study adds its own (`Study.environment_options`,
    e.g. where its tool finds the target's stores), which every environment takes, read by spec key
    (`environment.option("ycsb_properties")`).

    A field's alias is its spec key (`hadoop_command` for `HadoopOptions.command`), so an error
    names the key the user wrote; code may also give the field's own name.
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    @classmethod
    def spec_keys(cls) -> tuple[str, ...]:
        """The environment keys this model takes: each field's alias, or its name."""
        return tuple(info.alias or name for name, info in cls.model_fields.items())


class TransportOptions(EnvironmentOptions):
    """How the target is reached and its machines treated, whatever platform runs there."""

    connection: str = Field(min_length=1, description="Airflow SSH connection id")
    work_dir: str | None = Field(
        default=None,
        description="scratch directory on the target; default $BENCHCAMP_WORK_DIR or ~/benchcamp",
    )
    nodes: int = Field(default=1, ge=1)
    drop_caches: bool = Field(default=True, description="try to drop the page cache before each repetition")
    reformat_command: str | None = Field(
        default=None,
        min_length=1,
        description="for studies with reformat_storage: a shell command, run on the target by the "
        "campaign's preflight, that stops the target's storage (e.g. HDFS), formats it and starts it "
        "again; its output is archived and its time recorded in the environment facts",
    )
    facts_command: str | None = Field(
        default=None,
        min_length=1,
        description="a shell command run on the target with every environment capture, printing "
        "`name=value` lines: facts only the environment knows (the storage device an install is on, "
        "a measured link rate), kept under the facts' `target`",
    )
    controller_setup: tuple[str, ...] = Field(
        default=(),
        description="a program and its arguments (no shell) run where Airflow's task runs, not over "
        "SSH, by the campaign's preflight before it reaches the target: it brings up a target that "
        "machine hosts itself (e.g. the lab's container); a relative program path is the project's "
        "(lab/bin/...); its output is archived and a non-zero exit fails the preflight",
    )
    hardware_facts: tuple[str, ...] = Field(
        default=(),
        description="names among facts_command's facts that are hardware (e.g. storage_disk, "
        "storage_model): they join the fingerprint, so a change of them splits the time series",
    )


class HadoopOptions(EnvironmentOptions):
    """Hadoop on the target: its command, jars, where jobs keep data, HDFS and MapReduce modes."""

    command: PlainWords = Field(
        default="hadoop", min_length=1, alias="hadoop_command", description="e.g. hadoop, yarn, dse hadoop"
    )
    data_root: str | None = Field(
        default=None,
        description="where jobs read and write data as Hadoop sees it (e.g. an HDFS path); default: "
        "a 'data' folder in the repetition's scratch directory (right for file:/// local mode)",
    )
    examples_jar: str | None = Field(
        default=None, description="path of hadoop-mapreduce-examples.jar; default: found under $HADOOP_HOME"
    )
    tests_jar: str | None = Field(
        default=None,
        description="path of hadoop-mapreduce-client-jobclient-*-tests.jar (TestDFSIO); default: under $HADOOP_HOME",
    )
    mapreduce_local: bool = Field(
        default=False,
        description="MapReduce runs in local mode (LocalJobRunner), which forces one map per job "
        "whatever mapreduce.job.maps says; generators then write their data with one map",
    )
    safemode_wait_s: float | None = Field(
        default=None,
        gt=0,
        description="HDFS: before a campaign, wait up to this long for the NameNode to leave safe mode "
        "(`dfsadmin -safemode get`); unset for file systems without safe mode",
    )
    webhdfs_url: HttpAddress | None = Field(
        default=None,
        description="the NameNode's HTTP address as the target reaches it (e.g. http://nn:9870): "
        "repetition data under data_root is deleted and checked through WebHDFS with curl instead of "
        "starting `hadoop fs` JVMs; the target's BENCHCAMP_WEBHDFS_URL, if set, wins",
    )


class HiveOptions(EnvironmentOptions):
    """HiveServer2 as the target's Hive workloads reach it."""

    connection: str | None = Field(
        default=None, alias="hive_connection", description="Airflow HiveServer2 connection id"
    )


class JobHistoryOptions(EnvironmentOptions):
    """The MapReduce JobHistory server, for per-task phase times."""

    url: HttpAddress | None = Field(
        default=None,
        alias="jobhistory_url",
        description="MapReduce JobHistory server as the target reaches it (e.g. http://jhs:19888): "
        "after every MapReduce job its per-task phase times are fetched from the REST API",
    )
    via: PlainWords = Field(
        default="",
        alias="jobhistory_via",
        description="command prefix on the target to reach the JobHistory server (the lab: "
        "'ip netns exec benchcamp-yarn'); empty on real clusters",
    )


class Environment(_Strict):
    """A named target. Specs name Airflow connections, never hosts.

    Its options are validated by one model per concern (transport, Hadoop, Hive, JobHistory, and
    each study's own: `study_option_models`) and code reads them by concern (`environment.hadoop.command`), but a spec writes them flat
    under the environment (`hadoop_command`, `hive_connection`, `jobhistory_url`, ...). Why: an
    environment sets a handful of options, most concerns one or two of them, and one short block per
    target reads better than a nest of one-key mappings; the platform's keys name it already; and
    it is the form every spec has had, so no spec changes and `benchcamp spec check` points at the
    same lines. The flat keys are routed to their model before validation and an error names the
    key as written (`environments[2].hadoop_command`), on its line. A nested mapping
    (`hadoop: {command: ...}`) is refused, naming the flat keys to write instead: one form only.
    """

    name: str = Field(pattern=_NAME)
    description: str = ""
    baseline: bool = False
    transport: TransportOptions
    hadoop: HadoopOptions = Field(default_factory=HadoopOptions)
    hive: HiveOptions = Field(default_factory=HiveOptions)
    jobhistory: JobHistoryOptions = Field(default_factory=JobHistoryOptions)
    # the studies' own concerns (`study_option_models`), each validated, defaults included
    study_options: tuple[EnvironmentOptions, ...] = ()

    @classmethod
    def option_parts(cls) -> dict[str, type[EnvironmentOptions]]:
        """The fields holding an options model, by name: where each flat key goes."""
        parts: dict[str, type[EnvironmentOptions]] = {}
        for name, info in cls.model_fields.items():
            if isinstance(info.annotation, type) and issubclass(info.annotation, EnvironmentOptions):
                parts[name] = info.annotation
        return parts

    @model_validator(mode="wrap")
    @classmethod
    def _from_flat_keys(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """Route a spec's flat keys to their options models; report errors at the flat key."""
        if not isinstance(data, dict):
            return handler(data)
        parts = cls.option_parts()
        owner = {key: part for part, model in parts.items() for key in model.spec_keys()}
        studies = study_option_models()
        study_owner = {key: model for model in studies for key in model.spec_keys()}
        grouped: dict[str, Any] = {part: {} for part in parts}
        study_keys: dict[type[EnvironmentOptions], dict[str, Any]] = {model: {} for model in studies}
        given: dict[str, Any] = {}
        problems: list[Problem] = []
        for key, value in data.items():
            if key == "study_options":
                continue  # only ever built here, from the flat keys
            if key in owner:
                grouped[owner[key]][key] = value
            elif key in study_owner:
                study_keys[study_owner[key]][key] = value
            elif key in parts:
                given[key] = value  # an options model passed by code, or a nested mapping
            else:
                grouped[key] = value
        study_options, study_problems = [], []
        for model, written in study_keys.items():
            try:
                study_options.append(model.model_validate(written))
            except ValidationError as exc:
                study_problems += list(_validation_problems(exc))
        grouped["study_options"] = tuple(study_options)
        for part, value in given.items():
            if not isinstance(value, parts[part]):
                keys = ", ".join(parts[part].spec_keys())
                problems.append(Problem((part,), f"unknown key: write its options flat here ({keys})"))
            elif grouped[part]:
                problems.append(Problem((part,), f"give either '{part}' or its keys, not both"))
            else:
                grouped[part] = value

        def as_written(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
            return loc[1:] if len(loc) > 1 and loc[0] in parts else loc

        environment = None
        try:
            environment = handler(grouped)
        except ValidationError as exc:
            problems += [Problem(as_written(item.loc), item.message) for item in _validation_problems(exc)]
        _refuse([*problems, *study_problems])
        assert environment is not None
        return environment

    def flat_keys(self) -> dict[str, Any]:
        """The environment as a spec writes it: every key flat."""
        keys: dict[str, Any] = {"name": self.name, "description": self.description, "baseline": self.baseline}
        for part in self.option_parts():
            keys.update(getattr(self, part).model_dump())
        for options in self.study_options:
            keys.update(options.model_dump())
        return keys

    def option(self, key: str) -> Any:
        """A study's own option by its spec key (`ycsb_properties`): its value, or its default."""
        for options in self.study_options:
            for name, info in type(options).model_fields.items():
                if (info.alias or name) == key:
                    return getattr(options, name)
        raise KeyError(f"no study declares the environment key '{key}'")

    def replace(self, **keys: Any) -> Environment:
        """This environment with some spec keys changed (flat, as a spec writes them), validated again:
        for what-if plans and tests, which then cannot build an environment no spec could."""
        return Environment.model_validate({**self.flat_keys(), **keys})


def study_option_models() -> tuple[type[EnvironmentOptions], ...]:
    """Every study's own environment options (`Study.environment_options`), in study order."""
    models = tuple(model for plugin in study_plugins() for model in plugin.environment_options)
    for model in models:
        if not (isinstance(model, type) and issubclass(model, EnvironmentOptions)):
            raise TypeError(f"{model!r} is no EnvironmentOptions model (core.spec)")
    return models


class Comparison(_Strict):
    """Two values of one axis a study compares: `value` against `against` (its baseline there)."""

    value: AxisValue
    against: AxisValue


class Axis(_Checked):
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
            yield from _repeats(loc, values)
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
        yield from _repeats(("comparisons",), [(item.value, item.against) for item in self.comparisons])

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


class Series(_Strict):
    """A sub-matrix: workloads × the product of the listed axes (× combinations).

    Its own problems are reported by the spec's `series` check, with those of its references,
    so that one series' repeated value does not hide another's unknown workload.
    """

    name: str = Field(pattern=_NAME)
    description: str = ""
    workloads: list[str] = Field(min_length=1)
    axes: dict[str, list[AxisValue] | Literal["ladder", "baseline"]] = Field(default_factory=dict)
    combinations: list[dict[str, AxisValue]] = Field(
        default_factory=list, description="points crossed with the axes, for paired sweeps like maps/reduces"
    )
    ladders: list[Ladder] = Field(default_factory=lambda: list(LADDERS))

    def problems(self) -> Iterator[Problem]:
        """Repeated workloads, axis values or sizes; empty value lists."""
        yield from _repeats(("workloads",), self.workloads)
        for axis_name, choice in self.axes.items():
            if isinstance(choice, list):
                if not choice:
                    yield Problem(("axes", axis_name), "is empty: list at least one value, or write ladder")
                yield from _repeats(("axes", axis_name), choice)
        if not self.ladders:
            yield Problem(("ladders",), f"is empty: list the sizes the series runs at ({', '.join(LADDERS)})")
        yield from _repeats(("ladders",), self.ladders)


SettingValue = float | int | str | bool


MAX_WARMUP_REPETITIONS = 10


class StudySpec(_Checked):
    """A published study turned into a repeatable campaign."""

    study: str = Field(pattern=_NAME)
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
        repeated = _repeats((), [env.name for env in environments])
        problems = [Problem((*item.loc, "name"), item.message) for item in repeated]
        baselines = [index for index, env in enumerate(environments) if env.baseline]
        problems += [
            Problem(
                (index, "baseline"),
                f"at most one environment is the baseline ({environments[baselines[0]].name} is)",
            )
            for index in baselines[1:]
        ]
        _refuse(problems)
        return environments

    @field_validator("axes")
    @classmethod
    def _axis_names(cls, axes: dict[str, Axis]) -> dict[str, Axis]:
        _refuse(
            Problem((name,), f"axis name {name!r} must be snake_case")
            for name in axes
            if not re.fullmatch(_NAME, name)
        )
        return axes

    @field_validator("workloads")
    @classmethod
    def _one_of_each_workload(cls, workloads: list[str]) -> list[str]:
        _refuse(_repeats((), workloads))
        return workloads

    @field_validator("series")
    @classmethod
    def _series_refer_to_the_spec(cls, series: list[Series], info: ValidationInfo) -> list[Series]:
        repeated = _repeats((), [item.name for item in series])
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
                        problems += _axis_value_problems(
                            axes, axis_name, value, (index, "axes", axis_name, position)
                        )
            for position, point in enumerate(item.combinations):
                for axis_name, value in point.items():
                    loc: tuple[str | int, ...] = (index, "combinations", position, axis_name)
                    if axis_name not in axes:
                        problems.append(Problem(loc, f"axis '{axis_name}' is not declared in 'axes'"))
                    else:
                        problems += _axis_value_problems(axes, axis_name, value, loc)
        _refuse(problems)
        return series

    @field_validator("settings")
    @classmethod
    def _settings_of_known_workloads(cls, settings: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        workloads: list[str] = info.data.get("workloads", list(settings))
        _refuse(
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
            yield from _repeats(("interleave", index), group)
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

    def cells(self, ladder: Ladder, workloads: list[str] | None = None) -> list[Cell]:
        """Every cell of the matrix at one ladder size, deduplicated, in spec order."""
        seen: dict[str, Cell] = {}
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


def _axis_value_problems(
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


@dataclass(frozen=True)
class Cell:
    """One point of a study's matrix."""

    workload: str
    params: dict[str, AxisValue] = field(hash=False)
    series: str = ""

    @property
    def key(self) -> str:
        return cell_key(self.workload, self.params)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def key_path(loc: Sequence[str | int]) -> str:
    """`series[2].axes.maps`, `settings.ycsb_a['custom.io.file.buffer.size']`: a key path to look up."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _is_union_tag(part: str | int) -> bool:
    """Pydantic names the member of a union in an error's location: 'int', 'list[...]', '[key]'."""
    return isinstance(part, str) and (part in ("float", "int", "str", "bool") or "[" in part)


def _locate(root: yaml.Node, loc: Sequence[str | int]) -> tuple[tuple[str | int, ...], int]:
    """The key path `loc` names in the document (union tags dropped) and the line of its key,
    item, or (for a missing key) the mapping that lacks it."""
    node: yaml.Node | None = root
    path: list[str | int] = []
    line = root.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            pair = next((pair for pair in node.value if pair[0].value == str(part)), None)
            if pair is not None:
                path.append(part)
                line, node = pair[0].start_mark.line + 1, pair[1]
                continue
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            path.append(part)
            node = node.value[part]
            line = node.start_mark.line + 1
            continue
        if not _is_union_tag(part):
            path.append(part)
            node = None  # a key the document lacks: stay on its mapping's line
    return tuple(path), line


def _repeated_keys(root: yaml.Node) -> Iterator[Problem]:
    """Keys given twice in one mapping, which YAML loaders resolve silently (the last one wins)."""
    seen: set[int] = set()

    def walk(node: yaml.Node, loc: tuple[str | int, ...]) -> Iterator[Problem]:
        if id(node) in seen:  # an alias of an anchor already walked
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                name, line = str(key.value), key.start_mark.line + 1
                if name in first and name != "<<":
                    yield Problem(
                        (*loc, name),
                        f"key '{name}' is given twice (first on line {first[name]}); only the last one "
                        "would count: merge them",
                        line,
                    )
                first.setdefault(name, line)
                yield from walk(value, (*loc, name))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                yield from walk(item, (*loc, index))

    yield from walk(root, ())


def _validation_problems(error: ValidationError) -> Iterator[Problem]:
    for item in error.errors():
        loc = tuple(item["loc"])
        if item["type"] == _SPEC_PROBLEMS:
            for problem in item["ctx"]["problems"]:
                yield Problem(loc + problem.loc, problem.message)
        elif item["type"] == "extra_forbidden":
            yield Problem(loc, "unknown key (check the spelling)")
        elif item["type"] == "missing":
            yield Problem(loc, "required key is missing")
        else:
            yield Problem(loc, item["msg"].removeprefix("Value error, "))


_TYPE_MESSAGE = "Input should be a valid "


def _joined(messages: list[str]) -> str:
    """Several messages on one key: separate faults, or the members of a union it matches none
    of ('Input should be a valid number', '... integer', '... string'), said once."""
    if len(messages) > 1 and all(message.startswith(_TYPE_MESSAGE) for message in messages):
        kinds = [message.removeprefix(_TYPE_MESSAGE) for message in messages]
        return f"{_TYPE_MESSAGE}{', '.join(kinds[:-1])} or {kinds[-1]}"
    return "; ".join(messages)


def _report(source: str, root: yaml.Node, problems: Iterable[Problem]) -> str:
    """One `source:line: key.path: message` line per problem, in the order of the file."""
    lines: dict[tuple[int, str], list[str]] = {}
    for problem in problems:
        loc, line = _locate(root, problem.loc)
        where = key_path(loc)
        messages = lines.setdefault((problem.line or line, where), [])
        if problem.message not in messages:
            messages.append(problem.message)
    return "\n".join(
        f"{source}:{line}: {where + ': ' if where else ''}{_joined(messages)}"
        for (line, where), messages in sorted(lines.items(), key=lambda entry: entry[0][0])
    )


def _yaml_error(source: str, exc: yaml.YAMLError) -> SpecError:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        context = f"{exc.context}, " if exc.context else ""
        line = mark.line + 1 if mark else 1
        return SpecError(f"{source}:{line}: not valid YAML: {context}{exc.problem}")
    return SpecError(f"{source}: not valid YAML: {exc}")


def parse_spec(text: str, source: str = "<spec>", study: str | None = None) -> StudySpec:
    """Validate a spec's text; raise SpecError with every problem, each on a line of its own.

    `study`: the id the file's name gives it (a bundled spec's folder name: it is found by it).
    """
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        problems = list(_repeated_keys(root)) if root is not None else []
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        raise _yaml_error(source, exc) from exc
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
        problems += _validation_problems(exc)
    if problems or spec is None:
        raise SpecError(_report(source, root, problems))
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
