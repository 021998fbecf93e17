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
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from benchcamp.core.records import ParseError as ParseError
from benchcamp.core.records import ResultRecord
from benchcamp.core.steps import TOOLS_DIR as TOOLS_DIR
from benchcamp.core.steps import ArchivedStep as ArchivedStep
from benchcamp.core.steps import Command as Command
from benchcamp.core.steps import NoiseProbe as NoiseProbe
from benchcamp.core.steps import RunContext as RunContext
from benchcamp.core.steps import Shell as Shell
from benchcamp.core.steps import Word as Word
from benchcamp.core.steps import render as render

if TYPE_CHECKING:
    from benchcamp.platforms.hive import HiveStatement


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


class GenerateError(RuntimeError):
    """Generated data differs from what the cell specifies (e.g. the wrong size)."""


class Endpoint(NamedTuple):
    """A service a cell's commands connect to from the target: the campaign's preflight checks
    it answers there before anything runs, so a store node that is down refuses the campaign
    naming it instead of failing every repetition."""

    service: str  # as a user names it: "Cassandra", "HBase's ZooKeeper"
    host: str
    port: int
    setting: str  # where the address comes from, for the message: what to fix
    over_ssh: bool = False  # a host the commands log in to (`HOST_SSH`), not a TCP service


# How a step's commands on the target reach the target's other hosts (several YCSB client hosts):
# the target account's own ssh, its keys and known hosts, never asking for a password, or the
# ssh_config file the target's environment names in BENCHCAMP_SSH_CONFIG.
HOST_SSH = Shell(
    'ssh ${BENCHCAMP_SSH_CONFIG:+-F "$BENCHCAMP_SSH_CONFIG"} -o BatchMode=yes -o ConnectTimeout=10'
)


def host_login(host: str) -> str:
    """A login to `host` (a shell word: quoted, or a variable) that runs `true` and says nothing:
    whether the target reaches it over SSH (`HOST_SSH`), as the preflight and a step ask it."""
    return f"{HOST_SSH} {host} true </dev/null >/dev/null 2>&1"


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
    # The runner fetches the execute step's last MapReduce job from the environment's JobHistory
    # server (`jobhistory_url`) and records its phase times; a workload running a chain of jobs
    # fetches every job's history itself (in its execute step) and says so here.
    fetches_own_job_history: ClassVar[bool] = False
    # The names of the Hive tables the workload creates (a regular expression, matched in full),
    # so a campaign's preflight can find the ones an interrupted campaign of the study left.
    hive_table_pattern: ClassVar[str | None] = None

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

    def endpoints(self, ctx: RunContext) -> list[Endpoint]:
        """Services the cell's commands connect to from the target, checked by the preflight."""
        return []

    def failure_reason(self, ctx: RunContext, step: ArchivedStep, records: list[ResultRecord]) -> str:
        """Why the parser marked a repetition whose step exited 0 failed (archived as its reason):
        a workload says what in its output made it so; by default, which records."""
        failed = [record.metric for record in records if record.status in ("failed", "warmup_failed")]
        return f"the parser marked {len(failed)} record(s) failed ({', '.join(failed[:5])}); see {step.directory}"

    def noise_probe(self, ctx: RunContext) -> NoiseProbe | None:
        """The smallest job of this workload's kind, whose spread at preflight is the target's
        noise floor for its cells (`pipeline.noise_floor`); None: its cells are always gated."""
        return None

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

    def run_own_step(self, ctx: RunContext, archive_dir: Path) -> ArchivedStep | None:
        """The execute step of a workload that drives it itself from the controller, when neither
        one SSH session nor one HiveServer2 session in order can (several sessions at once, a
        failed statement recorded while the next ones still run). It writes its raw outputs
        under `archive_dir` and returns them as the archived step `parse` reads; None (the
        default): the runner runs `hive_execute` or `execute` itself."""
        return None

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
