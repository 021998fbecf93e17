"""What every native format's reader shares (`pipeline.native`): the import's options, a run read
from a tool's file before it becomes records, the files a path names, a file's format told by its
content, and the run's axes completed from the command line and checked against the spec.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from benchcamp.core.records import ParamValue, ResultRecord, Status, cell_key
from benchcamp.core.study import study_plugin
from benchcamp.pipeline.run_facts import RunFact
from benchcamp.workloads.testdfsio import parse_testdfsio_blocks
from benchcamp.workloads.ycsb import HISTOGRAM_SUFFIX, has_text_summary

if TYPE_CHECKING:
    from benchcamp.core.spec import StudySpec

HIBENCH = "hibench-report"
TESTDFSIO = "testdfsio-log"
YCSB = "ycsb-output"
FORMATS = (HIBENCH, TESTDFSIO, YCSB)

# HiBench's report: one header line, then one line per run, columns padded with spaces
HIBENCH_COLUMNS = (
    "Type",
    "Date",
    "Time",
    "Input_data_size",
    "Duration(s)",
    "Throughput(bytes/s)",
    "Throughput/node",
)


class NativeError(ValueError):
    """A native file that cannot become records (exit 2, nothing loaded); names the file and line."""


@dataclass(frozen=True)
class NativeImport:
    """What the command line says beyond the files: the campaign the runs become, axis values the
    files do not carry (`--param`), the tool's names mapped (`--name`) or left out (`--skip`), and
    the zone of times printed without a usable one (`--timezone`)."""

    study: str
    campaign: str
    environment: str
    params: dict[str, ParamValue] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    skip: frozenset[str] = frozenset()
    timezone: str | None = None


@dataclass(frozen=True)
class Run:
    """One run read from a native file, before its repetition number is known."""

    source: str  # file:line of the run
    workload: str
    params: dict[str, ParamValue]
    figures: list[tuple[str, float, str]]  # (metric, value, unit)
    status: Status = "ok"
    started_at: datetime | None = None
    finished_at: datetime | None = None
    read_beside: tuple[Path, ...] = ()  # files beside the run's file that it read (YCSB's histogram logs)
    note: str | None = None  # what the import could not take from the run, printed with its counts
    measured: tuple[float, float] | None = None  # YCSB: the period its histogram logs cover (epoch s)
    facts: tuple[tuple[str, str], ...] = ()  # what the tool printed beside the figures, as printed


@dataclass(frozen=True)
class NativeRead:
    """The records of an import and what was left out on the command line's say-so."""

    records: list[ResultRecord]
    runs: int
    skipped: dict[str, int]  # the tool's name → runs left out by --skip
    notes: tuple[str, ...] = ()  # what some runs lacked (YCSB runs without their histogram logs)
    facts: tuple[RunFact, ...] = ()  # what runs printed beyond their figures (`pipeline.run_facts`)

    def repetitions(self) -> set[tuple[str, str, str, str, int]]:
        """(study, campaign, environment, cell_key, repetition) of every run read."""
        return {
            (r.study, r.campaign, r.environment, cell_key(r.workload, r.params), r.repetition)
            for r in self.records
        }


@dataclass(frozen=True)
class ClientOutputs:
    """A folder inside a given folder: the outputs of one YCSB run's clients, one file each."""

    folder: Path
    files: tuple[Path, ...]


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def native_files(paths: Iterable[Path]) -> list[Path | ClientOutputs]:
    """The files to read: each path given, a directory's visible files by name, and each folder in a
    directory as one run of several YCSB clients (`read_ycsb_clients`). HdrHistogram logs (`*.hdr`)
    are no runs: a YCSB output reads its own beside it (`read_ycsb_output`)."""
    files: list[Path | ClientOutputs] = []
    for path in paths:
        if path.is_dir():
            inside = _visible(path)
            if not inside:
                raise NativeError(f"{path}: an empty directory")
            for item in inside:
                if item.is_dir():
                    files.append(_client_outputs(item))
                elif item.is_file() and not item.name.endswith(HISTOGRAM_SUFFIX):
                    files.append(item)
        elif path.is_file():
            if path.name.endswith(HISTOGRAM_SUFFIX):
                raise NativeError(
                    f"{path}: an HdrHistogram log, not a run: give the YCSB output that wrote it "
                    "(its logs are read beside it)"
                )
            files.append(path)
        else:
            raise NativeError(f"{path}: no such file or directory")
    return files


def _client_outputs(folder: Path) -> ClientOutputs:
    """A run's folder of client outputs: files only (a folder deeper down is refused, never skipped)."""
    inside = _visible(folder)
    deeper = [item for item in inside if item.is_dir()]
    if deeper:
        raise NativeError(
            f"{deeper[0]}: a folder inside a run's folder: a folder holds the outputs of one run's "
            "clients, one file each; move it out"
        )
    outputs = tuple(item for item in inside if item.is_file() and not item.name.endswith(HISTOGRAM_SUFFIX))
    if not outputs:
        raise NativeError(f"{folder}: a run's folder without a client's output")
    return ClientOutputs(folder, outputs)


def unclaimed_logs(paths: Iterable[Path], claimed: set[Path]) -> list[Path]:
    """HdrHistogram logs in the given directories (and their runs' folders) that no YCSB output
    read: a log whose run is missing, or a run whose hdrhistogram.output.path does not name it."""
    folders = [path for path in paths if path.is_dir()]
    folders += [item for folder in folders for item in _visible(folder) if item.is_dir()]
    return [
        log
        for folder in folders
        for log in sorted(folder.glob(f"*{HISTOGRAM_SUFFIX}"))
        if not log.name.startswith(".") and log.resolve() not in claimed
    ]


def is_hibench_header(words: list[str]) -> bool:
    """A hibench.report's header: HiBench's seven columns, each once, with any others beside them
    (a HiBench version or a user's script that adds one)."""
    return (
        bool(words) and words[0] == HIBENCH_COLUMNS[0] and all(words.count(c) == 1 for c in HIBENCH_COLUMNS)
    )


def _ycsb_client_echo(text: str) -> bool:
    """What YCSB's Client prints before any figure (`YCSB Client 0.9.0`, `Command line: -db ...`):
    an output cut before its summary is still a YCSB output, refused as cut short, not unknown."""
    return any(
        line.startswith("YCSB Client ") or (line.startswith("Command line:") and " -db " in line)
        for line in text.splitlines()
    )


def detect(path: Path, text: str) -> str:
    """The native format of a file, told by its content; unknown or ambiguous content is refused."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    found = [
        name
        for name, matches in (
            (HIBENCH, is_hibench_header(first.split())),
            (TESTDFSIO, bool(parse_testdfsio_blocks(text))),
            (YCSB, has_text_summary(text) or _ycsb_client_echo(text)),
        )
        if matches
    ]
    if not found:
        raise NativeError(
            f"{path}: neither a hibench.report, a TestDFSIO results log nor a YCSB output: "
            f"give its format with --from ({', '.join(FORMATS)})"
        )
    if len(found) > 1:
        raise NativeError(f"{path}: reads as {' and as '.join(found)}: give its format with --from")
    return found[0]


def zone_of(options: NativeImport, source: str, why: str) -> ZoneInfo:
    if options.timezone is None:
        raise NativeError(f"{source}: {why}: give --timezone (an IANA zone such as UTC or Europe/Berlin)")
    try:
        return ZoneInfo(options.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise NativeError(
            f"--timezone: '{options.timezone}' is no IANA time zone (e.g. UTC, Europe/Berlin)"
        ) from None


def workload_names(
    study: str, native_format: str, defaults: dict[str, str], options: NativeImport
) -> dict[str, str]:
    """The tool's names → workloads: the format's own, the study's (`Study.native_names`), `--name`."""
    return defaults | study_plugin(study).native_names.get(native_format, {}) | options.names


def merge_axes(
    spec: StudySpec,
    workload: str,
    said: dict[str, ParamValue],
    options: NativeImport,
    source: str,
    prefer: str | None = None,
) -> dict[str, ParamValue]:
    """The run's axes: what the file says, gaps filled by --param (a contradiction is refused), cut
    to the one series shape of the workload they complete; when they complete several, the one
    series with axis `prefer` (what the run was set up to vary), else refused."""
    available = dict(said)
    for name, value in options.params.items():
        if name in said and said[name] != value:
            raise NativeError(f"{source}: {name} is {said[name]!r} in the file, --param says {value!r}")
        available.setdefault(name, value)
    shapes = spec.record_axes(workload)
    if not shapes:
        return {}
    complete = [axes for _, axes in shapes if set(axes) <= set(available)]
    if len(complete) > 1 and prefer is not None and sum(prefer in axes for axes in complete) == 1:
        complete = [axes for axes in complete if prefer in axes]
    if len(complete) > 1:
        listed = "; ".join(", ".join(axes) for axes in complete)
        raise NativeError(f"{source}: the axes fit more than one series of '{workload}' ({listed})")
    if complete:
        return {name: available[name] for name in complete[0]}
    series, axes = min(shapes, key=lambda shape: len(set(shape[1]) - set(available)))
    missing = [name for name in axes if name not in available]
    raise NativeError(
        f"{source}: the file does not say the {', '.join(missing)} of this run ('{workload}', series "
        f"'{series}'): give " + " ".join(f"--param {name}=VALUE" for name in missing)
    )
