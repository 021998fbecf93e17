"""A repetition's steps as a target runs them: command words, the run context, the archived outputs.

Commands are argument lists. Plain strings are always shell-quoted; only :class:`Shell`
fragments written by workload modules themselves pass unquoted (see `benchcamp.workloads.base`).
Here, below the transport and the workloads, so the runners use these without importing a workload.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchcamp.core.paths import check_component, slug
from benchcamp.core.spec import AxisValue, Environment, Ladder, StudySpec


class Shell(str):
    """A shell fragment authored by workload code (never by users): rendered as is."""


TOOLS_DIR = ".benchcamp-tools"


Word = str | Shell
Command = list[Word]


@dataclass(frozen=True)
class NoiseProbe:
    """The smallest job of a workload's kind, timed at preflight to measure the target's noise
    floor (`pipeline.noise_floor`): workloads whose probe has the same `kind` share one floor.

    `setup` runs once, untimed; `job` runs once per timed run with `"$run"` set to its number
    (its output paths must hold it, so no run cleans up before the next); `cleanup` runs last.
    A Hive workload's probe gives HiveQL instead (`hive_job` timed by HiveServer2, as its cells
    are), in the study's Hive connection.
    """

    kind: str
    description: str
    setup: list[Command] = field(default_factory=list)
    job: Command = field(default_factory=list)
    cleanup: list[Command] = field(default_factory=list)
    hive_setup: tuple[str, ...] = ()
    hive_job: str = ""
    hive_cleanup: tuple[str, ...] = ()


def render(command: Command) -> str:
    """One shell line: plain words quoted, Shell fragments verbatim."""
    return " ".join(word if isinstance(word, Shell) else shlex.quote(str(word)) for word in command)


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
        return list(self.environment.hadoop.command.split())

    def data_location(self, *parts: str) -> str:
        """Absolute path of this repetition's data on the target's file system (needs `data_root`)."""
        root = self.environment.hadoop.data_root
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
