"""`benchcamp import --from FORMAT`: the files HiBench, TestDFSIO and YCSB write themselves, as the
result records of one campaign.

Users already have these files; re-typing their figures into a record file loses lines and
digits. Each reader turns one tool's file into runs with the project's metric names through the
project's own parsers (`workloads.testdfsio`, `workloads.ycsb`), and every run's workload, axes
and environment are checked against the study's spec here, so a refusal names the native file and
line. The records then take the path of any record file (`pipeline.importer`): the same staging,
σ gate, expectations, load and marts. One run is one repetition; the runs of one cell are
numbered in file order (files in the order given, a directory's files by name). Nothing is
dropped: a run the tool marks as failed (a YCSB error return) is loaded as a failed repetition,
and a run that cannot be read refuses the whole import (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from benchcamp.core.records import (
    ParamValue,
    RecordError,
    ResultRecord,
    Status,
    cell_key,
    coerce_param,
    read_text,
)
from benchcamp.core.spec import SpecError, load_spec
from benchcamp.core.study import study_plugin
from benchcamp.workloads.base import ParseError
from benchcamp.workloads.testdfsio import MODE_WORKLOADS, UNITS, parse_testdfsio_blocks
from benchcamp.workloads.ycsb import (
    HISTOGRAM_SUFFIX,
    YcsbCommandLine,
    YcsbSummary,
    command_line_axes,
    has_text_summary,
    parse_command_line,
    parse_ycsb_text,
    run_status,
    summary_metrics,
    with_served,
    workload_of_file,
)
from benchcamp.workloads.ycsb_histograms import HistogramLog, period, read_histogram_log

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
_BYTES_PER_GIB = 1024**3
_MB_PER_GIB = 1024
# Java's Date.toString, as TestDFSIO prints its `Date & time`: `Mon Jun 20 14:11:51 AEST 2016`
_JAVA_DATE = re.compile(
    r"^(?P<weekday>\w{3}) (?P<month>\w{3}) (?P<day>\d{2}) (?P<clock>\d{2}:\d{2}:\d{2}) "
    r"(?P<zone>\S+) (?P<year>\d{4})$"
)
_UTC_NAMES = frozenset({"UTC", "GMT", "Z"})


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


@dataclass(frozen=True)
class NativeRead:
    """The records of an import and what was left out on the command line's say-so."""

    records: list[ResultRecord]
    runs: int
    skipped: dict[str, int]  # the tool's name → runs left out by --skip
    notes: tuple[str, ...] = ()  # what some runs lacked (YCSB runs without their histogram logs)


def native_files(paths: Iterable[Path]) -> list[Path]:
    """The files to read: each path given, a directory's visible files by name. HdrHistogram logs
    (`*.hdr`) are no runs: a YCSB output reads its own beside it (`read_ycsb_output`)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not inside:
                raise NativeError(f"{path}: an empty directory")
            files += [p for p in inside if not p.name.endswith(HISTOGRAM_SUFFIX)]
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


def unclaimed_logs(paths: Iterable[Path], claimed: set[Path]) -> list[Path]:
    """HdrHistogram logs in the given directories that no YCSB output read: a log whose run is
    missing, or a run whose hdrhistogram.output.path does not name it."""
    return [
        log
        for path in paths
        if path.is_dir()
        for log in sorted(path.glob(f"*{HISTOGRAM_SUFFIX}"))
        if not log.name.startswith(".") and log.resolve() not in claimed
    ]


def detect(path: Path, text: str) -> str:
    """The native format of a file, told by its content; unknown or ambiguous content is refused."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    found = [
        name
        for name, matches in (
            (HIBENCH, tuple(first.split()) == HIBENCH_COLUMNS),
            (TESTDFSIO, bool(parse_testdfsio_blocks(text))),
            (YCSB, has_text_summary(text)),
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


def _zone(options: NativeImport, source: str, why: str) -> ZoneInfo:
    if options.timezone is None:
        raise NativeError(f"{source}: {why}: give --timezone (an IANA zone such as UTC or Europe/Berlin)")
    try:
        return ZoneInfo(options.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise NativeError(
            f"--timezone: '{options.timezone}' is no IANA time zone (e.g. UTC, Europe/Berlin)"
        ) from None


def _names(study: str, native_format: str, defaults: dict[str, str], options: NativeImport) -> dict[str, str]:
    """The tool's names → workloads: the format's own, the study's (`Study.native_names`), `--name`."""
    return defaults | study_plugin(study).native_names.get(native_format, {}) | options.names


def _merge_axes(
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


# -- HiBench's hibench.report ------------------------------------------------------------------


def read_hibench_report(
    path: Path, text: str, spec: StudySpec, options: NativeImport, skipped: dict[str, int]
) -> list[Run]:
    """One run per report line: its Type mapped to a workload, data_size_gb from Input_data_size
    (GiB to three significant digits: HiBench's generated inputs of one scale differ by a few bytes
    between runs), Duration, both throughputs and the size kept as figures."""
    names = _names(spec.study, HIBENCH, {}, options)
    lines = text.splitlines()
    header = next((number for number, line in enumerate(lines, start=1) if line.strip()), None)
    if header is None or tuple(lines[header - 1].split()) != HIBENCH_COLUMNS:
        raise NativeError(f"{path}:{header or 1}: not HiBench's report header ({' '.join(HIBENCH_COLUMNS)})")
    runs: list[Run] = []
    for number, line in enumerate(lines[header:], start=header + 1):
        source = f"{path}:{number}"
        words = line.split()
        if not words:
            continue
        if len(words) != len(HIBENCH_COLUMNS):
            raise NativeError(f"{source}: {len(words)} columns, HiBench's report has {len(HIBENCH_COLUMNS)}")
        kind, day, clock, size, duration, throughput, per_node = words
        if kind in options.skip:
            skipped[kind] = skipped.get(kind, 0) + 1
            continue
        if kind not in names:
            known = ", ".join(sorted(names)) or "none"
            raise NativeError(
                f"{source}: HiBench type '{kind}' is no workload of study '{spec.study}' (it maps: "
                f"{known}): map it with --name {kind}=WORKLOAD or leave it out with --skip {kind}"
            )
        try:
            finished = datetime.strptime(f"{day} {clock}", "%Y-%m-%d %H:%M:%S")
            input_bytes, seconds = int(size), float(duration)
            rates = float(throughput), float(per_node)
        except ValueError as exc:
            raise NativeError(f"{source}: {exc}") from None
        if seconds <= 0:
            raise NativeError(f"{source}: Duration(s) is {duration}: a run takes time")
        zone = _zone(options, source, "HiBench prints local times without a zone")
        finished = finished.replace(tzinfo=zone)
        workload = names[kind]
        said: dict[str, ParamValue] = {"data_size_gb": float(f"{input_bytes / _BYTES_PER_GIB:.3g}")}
        figures = [
            ("duration_s", seconds, "s"),
            ("input_bytes", float(input_bytes), "B"),
            ("throughput_bytes_s", rates[0], "B/s"),
            ("throughput_per_node_bytes_s", rates[1], "B/s"),
        ]
        params = _merge_axes(spec, workload, said, options, source)
        runs.append(
            Run(source, workload, params, figures, "ok", finished - timedelta(seconds=seconds), finished)
        )
    return runs


# -- TestDFSIO's appended results log ----------------------------------------------------------


def _java_date(printed: str, options: NativeImport, source: str) -> datetime:
    """TestDFSIO's `Date & time`; a zone other than UTC/GMT needs --timezone (Java's abbreviations
    are ambiguous: CST is China or US Central, and older JDKs printed EST for Australian time)."""
    match = _JAVA_DATE.match(printed)
    if not match:
        raise NativeError(f"{source}: Date & time '{printed}' is not Java's 'Mon Jun 20 14:11:51 AEST 2016'")
    try:
        moment = datetime.strptime(
            f"{match['month']} {match['day']} {match['clock']} {match['year']}", "%b %d %H:%M:%S %Y"
        )
    except ValueError as exc:
        raise NativeError(f"{source}: Date & time '{printed}': {exc}") from None
    if moment.strftime("%a") != match["weekday"]:
        raise NativeError(f"{source}: Date & time '{printed}': {moment:%Y-%m-%d} is a {moment:%A}")
    if match["zone"] in _UTC_NAMES:
        return moment.replace(tzinfo=ZoneInfo("UTC"))
    why = f"TestDFSIO printed the zone '{match['zone']}', which names no single offset"
    return moment.replace(tzinfo=_zone(options, source, why))


def read_testdfsio_log(path: Path, text: str, spec: StudySpec, options: NativeImport) -> list[Run]:
    """One run per summary block, its date kept (finished_at; started_at that less its exec time),
    data_size_gb from Total MBytes processed. A block cut short or lacking a line refuses the
    import naming every such block: an appended log is only trusted whole."""
    names = _names(spec.study, TESTDFSIO, MODE_WORKLOADS, options)
    blocks = parse_testdfsio_blocks(text)
    if not blocks:
        raise NativeError(f"{path}: no TestDFSIO summary block ('----- TestDFSIO ----- : write')")
    bad = []
    for index, block in enumerate(blocks, start=1):
        what = f"block {index} at line {block.line} ({block.summary.date or 'no date'}, {block.mode})"
        if not block.summary.complete:
            bad.append(f"{what}: no closing empty line (cut short, or the next run's header follows it)")
        elif block.summary.missing:
            bad.append(f"{what}: no '{block.summary.missing[0]}' line")
    if bad:
        raise NativeError(
            f"{path}: {len(bad)} of {len(blocks)} TestDFSIO blocks are incomplete: " + "; ".join(bad)
        )
    runs: list[Run] = []
    for block in blocks:
        source = f"{path}:{block.line}"
        if block.mode not in names:
            raise NativeError(f"{source}: TestDFSIO mode '{block.mode}' is no workload: map it with --name")
        try:
            figures = block.summary.figures(source)
        except ParseError as exc:
            raise NativeError(str(exc)) from None
        missing = [
            name
            for name in ("total_mb", "files", "throughput_mb_s", "test_exec_time_s")
            if name not in figures
        ]
        if missing:
            raise NativeError(f"{source}: TestDFSIO printed no number for '{missing[0]}'")
        seconds = figures["test_exec_time_s"]
        if seconds <= 0:
            raise NativeError(f"{source}: Test exec time sec is {seconds:g}: a run takes time")
        finished = _java_date(block.summary.date or "", options, source)
        said: dict[str, ParamValue] = {"data_size_gb": figures["total_mb"] / _MB_PER_GIB}
        workload = names[block.mode]
        params = _merge_axes(spec, workload, said, options, source)
        values = [
            ("duration_s", seconds, "s"),
            *((name, value, UNITS[name]) for name, value in figures.items()),
        ]
        runs.append(
            Run(source, workload, params, values, "ok", finished - timedelta(seconds=seconds), finished)
        )
    return runs


# -- YCSB's output ------------------------------------------------------------------------------


def read_ycsb_output(path: Path, text: str, spec: StudySpec, options: NativeImport) -> list[Run]:
    """One run per file: the workload from its `-P` workload file, the axes from the echoed command
    line (store from -db, threads, target_ops, -p properties such as operationcount), then
    --param. duration_s is YCSB's own RunTime (the run phase, no load); any error return or fewer
    ok operations than operationcount make the repetition failed, loaded as such."""
    try:
        summary = parse_ycsb_text(text, str(path))
        command = parse_command_line(text, str(path))
    except ParseError as exc:
        raise NativeError(str(exc)) from None
    if command is None:
        raise NativeError(f"{path}: YCSB echoed no 'Command line:', so the run's workload is unknown")
    source = f"{path}:{command.line}"
    defaults = {
        Path(name).name: workload for name in command.workload_files if (workload := workload_of_file(name))
    }
    names = _names(spec.study, YCSB, defaults, options)
    workloads = {names[Path(name).name] for name in command.workload_files if Path(name).name in names}
    if len(workloads) != 1:
        files = ", ".join(command.workload_files) or "none"
        raise NativeError(
            f"{source}: the -P workload files ({files}) name {len(workloads)} workloads: "
            f"map one with --name FILE=WORKLOAD"
        )
    (workload,) = workloads
    said = {
        name: coerce_param(value) for name, value in command_line_axes(command).items() if name in spec.axes
    }
    # a run with -target is a point of an offered-load series, though it names an operationcount too
    offered = "target_ops" if "target" in command.properties else None
    params = _merge_axes(spec, workload, said, options, source, prefer=offered)
    requested = params.get("operationcount", coerce_param(command.properties.get("operationcount", "")))
    count = requested if isinstance(requested, int) else None
    summary, logs, note = _served(path, command, summary)
    figures = [("duration_s", summary.runtime_ms / 1000, "s"), *summary_metrics(summary)]
    if count is not None:
        figures.append(("operations_requested", float(count), "operations"))
    status: Status = "ok" if run_status(summary, count) == "ok" else "failed"
    return [Run(source, workload, params, figures, status, read_beside=logs, note=note)]


HDR_FILE_OUTPUT = "hdrhistogram.fileoutput"
HDR_OUTPUT_PATH = "hdrhistogram.output.path"


def _served(
    path: Path, command: YcsbCommandLine, summary: YcsbSummary
) -> tuple[YcsbSummary, tuple[Path, ...], str | None]:
    """The run's served rate (`served_s`, `served_throughput_ops_s`, as a campaign records it) from
    the HdrHistogram logs YCSB wrote when told to (`-p hdrhistogram.fileoutput=true`): each
    operation's `<basename of hdrhistogram.output.path><OPERATION>.hdr`, looked for beside the
    output, since the path it names was the client machine's. Without the logs the run keeps
    YCSB's throughput alone (the note says so); logs whose counts are not the output's, or only
    some operations' logs, refuse the import: they belong to another run."""
    if command.properties.get(HDR_FILE_OUTPUT, "").strip().lower() != "true":
        return summary, (), None
    written = command.properties.get(HDR_OUTPUT_PATH, "")
    stem = written.replace("\\", "/").rsplit("/", 1)[-1]  # a folder's path ends in '/': no stem
    measured = {name: stats for name, stats in summary.operations.items() if stats.operations}
    found = {name: path.parent / f"{stem}{name}{HISTOGRAM_SUFFIX}" for name in measured}
    present = {name: log for name, log in found.items() if log.is_file()}
    if not present:
        names = ", ".join(log.name for log in found.values())
        return summary, (), f"{path}: no served rate: its histogram logs ({names}) are not beside it"
    missing = [log.name for name, log in found.items() if name not in present]
    if missing:
        raise NativeError(
            f"{path}: the histogram logs {', '.join(missing)} are missing beside it, while "
            f"{', '.join(log.name for log in present.values())} are there: copy every log of the run"
        )
    logs: list[HistogramLog] = []
    for name, log in present.items():
        try:
            read = read_histogram_log(log.read_text(encoding="utf-8", errors="replace"), str(log))
        except ParseError as exc:
            raise NativeError(str(exc)) from None
        if read.count != measured[name].operations:
            raise NativeError(
                f"{log}: holds {read.count} latencies, {path} counts {measured[name].operations} "
                f"{name} operations: the log is from another run (hdrhistogram.output.path={written})"
            )
        logs.append(read)
    served = with_served(summary, [summary], [period(logs)])
    return served, tuple(log.resolve() for log in present.values()), None


# -- the import ----------------------------------------------------------------------------------


def read_native(native_format: str | None, paths: Iterable[Path], options: NativeImport) -> NativeRead:
    """Every run of the files as records of `options`' campaign, checked against the study's spec;
    NativeError (exit 2) names the file and line of the first that cannot be."""
    try:
        spec = load_spec(options.study)
        spec.environment(options.environment)
    except SpecError as exc:
        raise NativeError(str(exc)) from None
    for name in options.params:
        if name not in spec.axes:
            raise NativeError(f"--param {name}: study '{spec.study}' has no axis '{name}'")
    paths = list(paths)
    runs: list[Run] = []
    skipped: dict[str, int] = {}
    for path in native_files(paths):
        try:
            text = read_text(path)
        except RecordError as exc:  # names the file, and the line of a byte that is not UTF-8
            raise NativeError(str(exc)) from None
        kind = native_format or detect(path, text)
        if kind == HIBENCH:
            runs += read_hibench_report(path, text, spec, options, skipped)
        elif kind == TESTDFSIO:
            runs += read_testdfsio_log(path, text, spec, options)
        else:
            runs += read_ycsb_output(path, text, spec, options)
    if not runs:
        raise NativeError("no runs to import (every line was left out with --skip?)")
    claimed = {log for run in runs for log in run.read_beside}
    stray = unclaimed_logs(paths, claimed)
    if stray:
        raise NativeError(
            f"{stray[0]}: an HdrHistogram log that no YCSB output here names (its "
            f"{HDR_OUTPUT_PATH} and operation); {len(stray)} such log(s): move them out, or add their run"
        )
    notes = tuple(run.note for run in runs if run.note)
    return NativeRead(_records(runs, spec, options), len(runs), skipped, notes)


def _records(runs: list[Run], spec: StudySpec, options: NativeImport) -> list[ResultRecord]:
    """Runs as records, each cell's runs numbered 1, 2, ... in file order."""
    counts: dict[str, int] = {}
    records: list[ResultRecord] = []
    for run in runs:
        try:
            spec.validate_record_params(run.workload, run.params)
        except SpecError as exc:
            raise NativeError(f"{run.source}: {exc}") from None
        key = cell_key(run.workload, run.params)
        counts[key] = counts.get(key, 0) + 1
        for metric, value, unit in run.figures:
            records.append(
                ResultRecord(
                    study=options.study,
                    campaign=options.campaign,
                    environment=options.environment,
                    workload=run.workload,
                    params=run.params,
                    repetition=counts[key],
                    metric=metric,
                    value=value,
                    unit=unit,
                    status=run.status,
                    started_at=run.started_at,
                    finished_at=run.finished_at,
                    artifact=run.source,
                )
            )
    return records
