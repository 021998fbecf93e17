"""Study specs: one YAML file per published study, validated by typed models.

A spec declares *what* a campaign measures (axes, series of cells, repetitions,
thresholds, schedule, targets, size ladder); workload modules declare *how*.
Every model forbids unknown keys, so a typo'd key fails loudly with its path
instead of silently dropping a parameter.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from benchcamp.records import cell_key

Ladder = Literal["tiny", "small", "paper"]
LADDERS: tuple[Ladder, ...] = ("tiny", "small", "paper")
AxisValue = float | int | str
_NAME = r"^[a-z][a-z0-9_]*$"
YCSB_PROPERTY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]*")  # what YCSB takes after -p
_CRON_FIELD = re.compile(r"^[\d*/,\-A-Za-z?LW#]+$")


class SpecError(ValueError):
    """A spec that does not validate; the message names the file and the key."""


class MissingAxis(SpecError):
    """A record without an axis of its series; `axes`: the one it lacks, or the one per series
    when it could belong to several (e.g. a CSV's missing column to name instead)."""

    def __init__(self, message: str, axes: tuple[str, ...]) -> None:
        super().__init__(message)
        self.axes = axes


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Thresholds(_Strict):
    """Quality gates applied per cell by the validation step."""

    max_stddev_pct: float = Field(default=10.0, gt=0, description="largest acceptable σ% (sample σ)")
    min_ok_repetitions: int | None = Field(
        default=None, ge=1, description="repetitions that must be ok; default: all of them"
    )


class Environment(_Strict):
    """A named target. Specs name Airflow connections, never hosts."""

    name: str = Field(pattern=_NAME)
    description: str = ""
    connection: str = Field(min_length=1, description="Airflow SSH connection id")
    hive_connection: str | None = Field(default=None, description="Airflow HiveServer2 connection id")
    hadoop_command: str = Field(default="hadoop", min_length=1, description="e.g. hadoop, yarn, dse hadoop")
    work_dir: str | None = Field(
        default=None,
        description="scratch directory on the target; default $BENCHCAMP_WORK_DIR or ~/benchcamp",
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
    nodes: int = Field(default=1, ge=1)
    mapreduce_local: bool = Field(
        default=False,
        description="MapReduce runs in local mode (LocalJobRunner), which forces one map per job "
        "whatever mapreduce.job.maps says; generators then write their data with one map",
    )
    ycsb_properties: dict[str, str | int | float] = Field(
        default_factory=dict,
        description="YCSB `-p` properties that say where this target's stores listen (e.g. "
        "cassandra.hosts, cassandra.port, hbase.zookeeper.quorum); default: each binding's own "
        "(the store on the target itself, at its standard port)",
    )
    baseline: bool = False
    drop_caches: bool = Field(default=True, description="try to drop the page cache before each repetition")
    safemode_wait_s: float | None = Field(
        default=None,
        gt=0,
        description="HDFS: before a campaign, wait up to this long for the NameNode to leave safe mode "
        "(`dfsadmin -safemode get`); unset for file systems without safe mode",
    )

    webhdfs_url: str | None = Field(
        default=None,
        pattern=r"^https?://[A-Za-z0-9.-]+(:\d+)?/?$",
        description="the NameNode's HTTP address as the target reaches it (e.g. http://nn:9870): "
        "repetition data under data_root is deleted and checked through WebHDFS with curl instead of "
        "starting `hadoop fs` JVMs; the target's BENCHCAMP_WEBHDFS_URL, if set, wins",
    )
    jobhistory_url: str | None = Field(
        default=None,
        pattern=r"^https?://[A-Za-z0-9.-]+(:\d+)?/?$",
        description="MapReduce JobHistory server as the target reaches it (e.g. http://jhs:19888): "
        "after every MapReduce job its per-task phase times are fetched from the REST API",
    )
    jobhistory_via: str = Field(
        default="",
        description="command prefix on the target to reach the JobHistory server (the lab: "
        "'ip netns exec benchcamp-yarn'); empty on real clusters",
    )

    @field_validator("ycsb_properties")
    @classmethod
    def _property_names(cls, value: dict[str, str | int | float]) -> dict[str, str | int | float]:
        for name in value:
            if not YCSB_PROPERTY_NAME.fullmatch(name):
                raise ValueError(f"'{name}' is not a YCSB property name (letters, digits, _ and .)")
        return value

    @field_validator("hadoop_command", "jobhistory_via")
    @classmethod
    def _plain_words(cls, value: str) -> str:
        if not all(re.fullmatch(r"[A-Za-z0-9_./=:+-]+", word) for word in value.split()):
            raise ValueError("must be plain words (letters, digits, _ . / = : + -), e.g. 'dse hadoop'")
        return value


class Axis(_Strict):
    """One dimension of the matrix: fixed values, or values per ladder size."""

    description: str = ""
    unit: str = ""
    kind: Literal["number", "category"] = "number"
    values: list[AxisValue] | None = None
    ladder: dict[Ladder, list[AxisValue]] | None = None
    baseline: AxisValue | Literal["smallest"] | None = None
    positive: bool = True

    @model_validator(mode="after")
    def _check(self) -> Axis:
        if (self.values is None) == (self.ladder is None):
            raise ValueError("give exactly one of 'values' or 'ladder'")
        if self.ladder is not None:
            missing = [size for size in LADDERS if size not in self.ladder]
            if missing:
                raise ValueError(f"ladder lacks size '{missing[0]}'")
        for value in self.all_values():
            self.check_value(value)
        if self.baseline not in (None, "smallest") and self.values is not None:
            if self.baseline not in self.values:
                raise ValueError(f"baseline {self.baseline!r} is not one of the values")
        return self

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
    """A sub-matrix: workloads × the product of the listed axes (× combinations)."""

    name: str = Field(pattern=_NAME)
    description: str = ""
    workloads: list[str] = Field(min_length=1)
    axes: dict[str, list[AxisValue] | Literal["ladder", "baseline"]] = Field(default_factory=dict)
    combinations: list[dict[str, AxisValue]] = Field(
        default_factory=list, description="points crossed with the axes, for paired sweeps like maps/reduces"
    )
    ladders: list[Ladder] = Field(default_factory=lambda: list(LADDERS))


SettingValue = float | int | str | bool


MAX_WARMUP_REPETITIONS = 10


class StudySpec(_Strict):
    """A published study turned into a repeatable campaign."""

    study: str = Field(pattern=_NAME)
    title: str = Field(min_length=1)
    description: str = ""
    source: str = ""
    schedule: str | None = Field(default=None, description="cron; null = manual only")
    repetitions: int = Field(default=3, ge=1, le=100)
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
    thresholds: Thresholds = Field(default_factory=Thresholds)
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
        if value is None or value.startswith("@"):
            return value
        fields = value.split()
        if len(fields) != 5 or not all(_CRON_FIELD.match(part) for part in fields):
            raise ValueError(f"{value!r} is not a five-field cron expression")
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

    @field_validator("axes")
    @classmethod
    def _axis_names(cls, axes: dict[str, Axis]) -> dict[str, Axis]:
        for name in axes:
            if not re.fullmatch(_NAME, name):
                raise ValueError(f"axis name {name!r} must be snake_case")
        return axes

    @model_validator(mode="after")
    def _cross_references(self) -> StudySpec:
        names = [env.name for env in self.environments]
        if len(set(names)) != len(names):
            raise ValueError("environment names must be unique")
        if sum(env.baseline for env in self.environments) > 1:
            raise ValueError("at most one environment can be the baseline")
        for index, series in enumerate(self.series):
            where = f"series[{index}] ({series.name})"
            for workload in series.workloads:
                if workload not in self.workloads:
                    raise ValueError(f"{where}: workload '{workload}' is not in 'workloads'")
            for axis_name, choice in series.axes.items():
                if axis_name not in self.axes:
                    raise ValueError(f"{where}: axis '{axis_name}' is not declared in 'axes'")
                if isinstance(choice, list):
                    for value in choice:
                        self._check_axis_value(axis_name, value, where)
            for point in series.combinations:
                for axis_name, value in point.items():
                    if axis_name not in self.axes:
                        raise ValueError(f"{where}: axis '{axis_name}' is not declared in 'axes'")
                    self._check_axis_value(axis_name, value, where)
        for workload in self.settings:
            if workload not in self.workloads:
                raise ValueError(f"settings: workload '{workload}' is not in 'workloads'")
        if isinstance(self.warmup_repetitions, dict):
            for workload in self.warmup_repetitions:
                if workload not in self.workloads:
                    raise ValueError(f"warmup_repetitions: workload '{workload}' is not in 'workloads'")
        return self

    def _check_axis_value(self, axis_name: str, value: AxisValue, where: str) -> None:
        axis = self.axes[axis_name]
        try:
            axis.check_value(value)
        except ValueError as exc:
            raise ValueError(f"{where}: axis '{axis_name}': {exc}") from exc
        if axis.kind == "category" and value not in axis.all_values():
            raise ValueError(f"{where}: axis '{axis_name}' has no value {value!r}")

    # -- queries used by the DAG factory, validation and import -----------------

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


@dataclass(frozen=True)
class Cell:
    """One point of a study's matrix."""

    workload: str
    params: dict[str, AxisValue] = field(hash=False)
    series: str = ""

    @property
    def key(self) -> str:
        return cell_key(self.workload, self.params)


def _format_error(source: str, error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        path = ".".join(str(part) for part in item["loc"]) or "(top level)"
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key (check the spelling)"
        lines.append(f"{source}: '{path}': {message}")
    return "\n".join(lines)


def parse_spec(text: str, source: str = "<spec>") -> StudySpec:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SpecError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SpecError(f"{source}: a spec must be a mapping")
    try:
        return StudySpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(_format_error(source, exc)) from exc


def spec_files() -> Iterator[Path]:
    folder = resources.files("benchcamp") / "studies"
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".yaml"):
            yield Path(str(entry))


def study_names() -> list[str]:
    return [path.stem for path in spec_files()]


@cache
def load_spec(study: str) -> StudySpec:
    """Load a bundled spec by study id; unknown ids get the list of known ones."""
    for path in spec_files():
        if path.stem == study:
            spec = parse_spec(path.read_text(encoding="utf-8"), str(path))
            if spec.study != study:
                raise SpecError(f"{path}: 'study' is '{spec.study}' but the file is named '{study}'")
            return spec
    raise SpecError(f"unknown study '{study}' (known: {', '.join(study_names())})")
