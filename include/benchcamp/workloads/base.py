"""What every workload declares: how to clean, generate, execute and parse.

Commands are argument lists. Plain strings are always shell-quoted; only
:class:`Shell` fragments written by workload modules themselves (references to
variables the runner defines, such as ``"$DATA"/in``) pass unquoted, so no
parameter from a spec or the UI can ever reach the shell unquoted.
"""

from __future__ import annotations

import re
import shlex
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from benchcamp.core.paths import check_component
from benchcamp.core.records import ResultRecord
from benchcamp.core.spec import AxisValue, Environment, Ladder, StudySpec

if TYPE_CHECKING:
    from benchcamp.platforms.hive import HiveStatement

_SAFE_SLUG = re.compile(r"[^A-Za-z0-9_.=-]+")


class Shell(str):
    """A shell fragment authored by workload code (never by users): rendered as is."""


def data_path(*parts: str) -> Shell:
    """`"$DATA"/in/part` — a path inside this repetition's data directory."""
    suffix = "".join("/" + shlex.quote(part) for part in parts)
    return Shell('"$DATA"' + suffix)


def input_path(*parts: str) -> Shell:
    """`"$INPUT"/part` — generated input: the repetition's data directory, or with the study's
    `regenerate_data: false` the cell's, generated once per campaign and target and kept."""
    suffix = "".join("/" + shlex.quote(part) for part in parts)
    return Shell('"$INPUT"' + suffix)


def job_path(*parts: str) -> Shell:
    """`"$JOB"/file` — a file in this step's job directory (archived after the step)."""
    suffix = "".join("/" + shlex.quote(part) for part in parts)
    return Shell('"$JOB"' + suffix)


TOOLS_DIR = ".benchcamp-tools"


def tool_path(name: str) -> Shell:
    """`"$WORK"/.benchcamp-tools/name` — a project-built tool the runner copied to the target."""
    return Shell(f'"$WORK"/{TOOLS_DIR}/' + shlex.quote(name))


def staging_path(*parts: str) -> Shell:
    """`"$UNIT"/staging/part` — the target's local disk (not the data file system), for generators."""
    suffix = "".join("/" + shlex.quote(part) for part in parts)
    return Shell('"$UNIT"/staging' + suffix)


def env_ref(name: str) -> Shell:
    if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
        raise ValueError(f"not a variable name: {name!r}")
    return Shell(f'"${name}"')


Word = str | Shell
Command = list[Word]


def render(command: Command) -> str:
    """One shell line: plain words quoted, Shell fragments verbatim."""
    return " ".join(word if isinstance(word, Shell) else shlex.quote(str(word)) for word in command)


def slug(text: str) -> str:
    """A path component that is safe on any filesystem and stable for the same input.

    Leading dots become underscores: `.` and `..` would name the parent itself or above it.
    """
    cleaned = _SAFE_SLUG.sub("_", text).strip("_")[:180] or "_"
    return "_" * (len(cleaned) - len(cleaned.lstrip("."))) + cleaned.lstrip(".")


@dataclass(frozen=True)
class RunContext:
    """Everything a workload needs to build one repetition's commands."""

    spec: StudySpec
    environment: Environment
    campaign: str
    workload: str
    params: dict[str, AxisValue]
    repetition: int
    ladder: Ladder

    def setting(self, name: str, default: Any = None) -> Any:
        return self.spec.setting(self.workload, name, self.ladder, default)

    @property
    def is_warmup(self) -> bool:
        """Warm-up repetitions are numbered 0, -1, ... and run before repetition 1."""
        return self.repetition <= 0

    def param(self, name: str) -> AxisValue:
        try:
            return self.params[name]
        except KeyError:
            raise KeyError(f"workload '{self.workload}' needs the axis '{name}' in its cell") from None

    @property
    def hadoop(self) -> Command:
        return list(self.environment.hadoop_command.split())

    def data_location(self, *parts: str) -> str:
        """Absolute path of this repetition's data on the target's file system (needs `data_root`)."""
        root = self.environment.data_root
        if not root:
            raise ValueError(
                f"environment '{self.environment.name}' has no data_root: workload '{self.workload}' "
                "needs the absolute data path (e.g. the HDFS base path /benchcamp)"
            )
        return "/".join([root.rstrip("/"), self.unit_path, *parts])

    @property
    def cell_path(self) -> str:
        """Relative path of this cell under the target's work and data roots."""
        from benchcamp.core.records import cell_key

        parts = [slug(self.spec.study), slug(self.campaign), slug(cell_key(self.workload, self.params))]
        return "/".join(check_component(part, "path part") for part in parts)

    @property
    def unit_path(self) -> str:
        """Relative path of this repetition under the target's work and data roots."""
        return f"{self.cell_path}/rep{self.repetition}"


@dataclass(frozen=True)
class ArchivedStep:
    """The archived raw outputs of one step; parsers read only these files."""

    directory: Path
    exit_code: int
    started_at: datetime
    finished_at: datetime
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return (self.finished_at - self.started_at).total_seconds()

    def text(self, name: str) -> str:
        path = self.files.get(name, self.directory / name)
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


class ParseError(ValueError):
    """Raw output that cannot be understood; the message names the archived file."""


class GenerateError(RuntimeError):
    """Generated data differs from what the cell specifies (e.g. the wrong size)."""


class Workload(ABC):
    """A benchmark that runs on a target: subclasses are registered by name."""

    name: ClassVar[str]
    family: ClassVar[str]
    description: ClassVar[str] = ""
    axes: ClassVar[tuple[str, ...]] = ()
    # The metric whose σ% across repetitions the study's max_stddev_pct gates (validation).
    stddev_metric: ClassVar[str] = "duration_s"
    # Data lives on the target's Hadoop file system (cleaned, sized and removed with `hadoop fs`);
    # False for workloads whose data is in a store they reset themselves (YCSB), whose targets
    # then need no Hadoop at all.
    uses_data_fs: ClassVar[bool] = True
    # Whether the workload can measure data generated once per cell and campaign (a study's
    # `regenerate_data: false`): it generates into `input_path()` and writes its outputs under
    # `data_path()` only, so a repetition leaves the next one's input untouched. A study asking
    # this of a workload that cannot is refused at plan time rather than silently regenerated.
    generates_once_per_cell: ClassVar[bool] = False

    def check_cell(self, ctx: RunContext) -> None:
        """Raise ValueError for a cell this workload cannot run as asked (checked before anything runs)."""
        return None

    def clean_paths(self, ctx: RunContext) -> list[Shell]:
        """Data this repetition may have left on the target's file system (deleted by clean)."""
        return [data_path()]

    def estimated_bytes(self, ctx: RunContext) -> int:
        """Peak bytes one repetition keeps on the data file system (input + output), for preflight."""
        size = ctx.params.get("data_size_gb")
        return round(float(size) * 1024**3 * 2) if isinstance(size, int | float) else 0

    def tools(self, ctx: RunContext) -> list[Path]:
        """Project-built files the target needs (copied to `tool_path(name)` before generate)."""
        return []

    def hive_clean(self, ctx: RunContext) -> list[HiveStatement]:
        """HiveQL run by clean before the data is deleted (e.g. DROP TABLE IF EXISTS)."""
        return []

    def hive_setup(self, ctx: RunContext) -> list[HiveStatement]:
        """HiveQL run after generate (e.g. tables over the generated files)."""
        return []

    def hive_execute(self, ctx: RunContext) -> list[HiveStatement]:
        """HiveQL that *is* the benchmark; when given, execute runs it instead of shell commands."""
        return []

    @property
    def uses_hive(self) -> bool:
        return type(self).hive_execute is not Workload.hive_execute

    @abstractmethod
    def generate(self, ctx: RunContext) -> list[Command]:
        """Commands that produce the input data (not timed as the benchmark)."""

    def verify_generate(self, ctx: RunContext, step: ArchivedStep) -> dict[str, float]:
        """Check the generated data is what the cell asked for; raise GenerateError if not."""
        return {}

    def execute(self, ctx: RunContext) -> list[Command]:
        """The timed benchmark commands (Hive workloads give `hive_execute` instead)."""
        return []

    @abstractmethod
    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        """Turn the archived execute step into result records (failed ones marked)."""

    def record(
        self,
        ctx: RunContext,
        step: ArchivedStep,
        metric: str,
        value: float,
        unit: str,
        status: str = "ok",
        artifact: Path | None = None,
    ) -> ResultRecord:
        if ctx.is_warmup:  # measured like any repetition, counted by nothing
            status = "warmup" if status == "ok" else "warmup_failed"
        return ResultRecord(
            study=ctx.spec.study,
            campaign=ctx.campaign,
            environment=ctx.environment.name,
            workload=ctx.workload,
            params=dict(ctx.params),
            repetition=ctx.repetition,
            metric=metric,
            value=value,
            unit=unit,
            status=status,  # type: ignore[arg-type]
            started_at=step.started_at,
            finished_at=step.finished_at,
            artifact=str(artifact or step.directory),
        )

    def duration_record(self, ctx: RunContext, step: ArchivedStep, ok: bool) -> ResultRecord:
        return self.record(ctx, step, "duration_s", step.duration_s, "s", "ok" if ok else "failed")
