"""`benchcamp import --from FORMAT`: the files HiBench, TestDFSIO and YCSB write themselves, as the
result records of one campaign.

Users already have these files; re-typing their figures into a record file loses lines and
digits. Each reader turns one tool's file into runs with the project's metric names through the
project's own parsers (`workloads.testdfsio`, `workloads.ycsb`), and every run's workload, axes
and environment are checked against the study's spec here, so a refusal names the native file and
line. The records then take the path of any record file (`pipeline.importer`): the same staging,
σ gate, expectations, load and marts. One run is one repetition; the runs of one cell are
numbered in file order (files in the order given, a directory's files by name, a folder in it
being one YCSB run of several clients, merged as a campaign merges its clients). Nothing is
dropped: a run the tool marks as failed (a YCSB error return) is loaded as a failed repetition,
and a run that cannot be read refuses the whole import (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from benchcamp.core.records import ParamValue, RecordError, ResultRecord, cell_key, read_text
from benchcamp.core.spec import SpecError, load_spec
from benchcamp.pipeline.native_runs import (
    FORMATS,
    HIBENCH,
    HIBENCH_COLUMNS,
    TESTDFSIO,
    YCSB,
    ClientOutputs,
    NativeError,
    NativeImport,
    NativeRead,
    Run,
    detect,
    merge_axes,
    native_files,
    unclaimed_logs,
    workload_names,
    zone_of,
)
from benchcamp.pipeline.native_ycsb import (
    HDR_OUTPUT_PATH,
    read_ycsb_clients,
    read_ycsb_output,
    refuse_clients_read_as_runs,
)
from benchcamp.pipeline.run_facts import RunFact
from benchcamp.workloads.base import ParseError
from benchcamp.workloads.testdfsio import MODE_WORKLOADS, UNITS, DFSIOBlock, parse_testdfsio_blocks

__all__ = ["FORMATS", "NativeError", "NativeImport", "NativeRead", "YCSB", "read_native"]

if TYPE_CHECKING:
    from benchcamp.core.spec import StudySpec

_BYTES_PER_GIB = 1024**3
_SIZELESS = ("Type", "Date", "Time", "Duration(s)")  # a HiBench 2 line whose size it could not read
_MB_PER_GIB = 1024
# Java's Date.toString, as TestDFSIO prints its `Date & time`: `Mon Jun 20 14:11:51 AEST 2016`
_JAVA_DATE = re.compile(
    r"^(?P<weekday>\w{3}) (?P<month>\w{3}) (?P<day>\d{2}) (?P<clock>\d{2}:\d{2}:\d{2}) "
    r"(?P<zone>\S+) (?P<year>\d{4})$"
)
_UTC_NAMES = frozenset({"UTC", "GMT", "Z"})


# -- HiBench's hibench.report ------------------------------------------------------------------


def read_hibench_report(
    path: Path, text: str, spec: StudySpec, options: NativeImport, skipped: dict[str, int]
) -> list[Run]:
    """One run per report line: its Type mapped to a workload, data_size_gb from Input_data_size
    (GiB to three significant digits: HiBench's generated inputs of one scale differ by a few bytes
    between runs), Duration, both throughputs and the size kept as figures. Columns are found by
    their header's names; a column beyond HiBench's seven is kept as the run's fact, as printed."""
    names = workload_names(spec.study, HIBENCH, {}, options)
    lines = text.splitlines()
    header = next((number for number, line in enumerate(lines, start=1) if line.strip()), None)
    columns = lines[header - 1].split() if header else []
    _check_hibench_header(path, header or 1, columns)
    extra = [(index, name) for index, name in enumerate(columns) if name not in HIBENCH_COLUMNS]
    runs: list[Run] = []
    for number, line in enumerate(lines[header:], start=(header or 0) + 1):
        source = f"{path}:{number}"
        words = _hibench_words(line, columns, rest_is_fact=bool(extra) and extra[-1][0] == len(columns) - 1)
        if not words:
            continue
        if words[0] in options.skip:  # left out before it is read: the user's say-so, whatever it holds
            skipped[words[0]] = skipped.get(words[0], 0) + 1
            continue
        if len(words) == len(_SIZELESS) and len(columns) == len(HIBENCH_COLUMNS):
            words = [*words[:3], "", words[3], "", ""]  # HiBench 2 could not read the input's size
        if len(words) != len(columns):
            raise NativeError(
                f"{source}: {len(words)} columns where the header at line {header} names {len(columns)} "
                f"({' '.join(columns)}): a line cut short or a value with a space; mend the line or delete it"
            )
        value = dict(zip(columns, words, strict=True))
        kind = value["Type"]
        if kind not in names:
            known = ", ".join(sorted(names)) or "none"
            raise NativeError(
                f"{source}: HiBench type '{kind}' is no workload of study '{spec.study}' (it maps: "
                f"{known}): map it with --name {kind}=WORKLOAD or leave it out with --skip {kind}"
            )
        run = _hibench_run(source, names[kind], value, spec, options)
        facts = tuple((name, words[index]) for index, name in extra if words[index])
        runs.append(replace(run, facts=facts))
    return runs


def _hibench_words(line: str, columns: list[str], rest_is_fact: bool) -> list[str]:
    """A report line's values. When the header's last column is one of ours to keep as a fact (a
    HiBench fork's `Options`: the job's space-separated -D flags), it is the rest of the line, as
    printed, and empty when the line ends before it."""
    if not rest_is_fact:
        return line.split()
    words = line.split(maxsplit=len(columns) - 1)
    if len(words) == len(columns):
        words[-1] = words[-1].rstrip()
    return [*words, ""] if len(words) == len(columns) - 1 else words


def _check_hibench_header(path: Path, line: int, columns: list[str]) -> None:
    """HiBench's seven columns, each once, Type first; others may stand beside them."""
    if not columns or columns[0] != HIBENCH_COLUMNS[0]:
        raise NativeError(f"{path}:{line}: not HiBench's report header ({' '.join(HIBENCH_COLUMNS)})")
    missing = [name for name in HIBENCH_COLUMNS if name not in columns]
    twice = sorted({name for name in columns if columns.count(name) > 1})
    if missing or twice:
        what = f"no column {', '.join(missing)}" if missing else f"the column {', '.join(twice)} twice"
        raise NativeError(
            f"{path}:{line}: HiBench's report header with {what}: it names "
            f"{' '.join(columns)}; HiBench writes {' '.join(HIBENCH_COLUMNS)}"
        )


def _hibench_run(
    source: str, workload: str, value: dict[str, str], spec: StudySpec, options: NativeImport
) -> Run:
    if not value["Input_data_size"]:
        return _sizeless_run(source, workload, value, spec, options)
    try:
        finished = datetime.strptime(f"{value['Date']} {value['Time']}", "%Y-%m-%d %H:%M:%S")
        input_bytes, seconds = int(value["Input_data_size"]), float(value["Duration(s)"])
        rates = float(value["Throughput(bytes/s)"]), float(value["Throughput/node"])
    except ValueError as exc:
        raise NativeError(f"{source}: {exc}") from None
    if seconds <= 0:
        raise NativeError(f"{source}: Duration(s) is {value['Duration(s)']}: a run takes time")
    zone = zone_of(options, source, "HiBench prints local times without a zone")
    finished = finished.replace(tzinfo=zone)
    said: dict[str, ParamValue] = {"data_size_gb": float(f"{input_bytes / _BYTES_PER_GIB:.3g}")}
    figures = [
        ("duration_s", seconds, "s"),
        ("input_bytes", float(input_bytes), "B"),
        ("throughput_bytes_s", rates[0], "B/s"),
        ("throughput_per_node_bytes_s", rates[1], "B/s"),
    ]
    params = merge_axes(spec, workload, said, options, source)
    return Run(source, workload, params, figures, "ok", finished - timedelta(seconds=seconds), finished)


def _sizeless_run(
    source: str, workload: str, value: dict[str, str], spec: StudySpec, options: NativeImport
) -> Run:
    """A HiBench 2 line of Type, Date, Time and Duration alone: its report script printed the
    size and both throughputs unquoted, so when it could not read the input's size they vanished
    and the duration moved left. The duration is the run's; the size is the user's to say
    (`--param data_size_gb`), and no throughput is made up."""
    try:
        finished = datetime.strptime(f"{value['Date']} {value['Time']}", "%Y-%m-%d %H:%M:%S")
        seconds = float(value["Duration(s)"])
    except ValueError as exc:
        raise NativeError(f"{source}: {exc}") from None
    if seconds <= 0:
        raise NativeError(f"{source}: Duration(s) is {value['Duration(s)']}: a run takes time")
    finished = finished.replace(tzinfo=zone_of(options, source, "HiBench prints local times without a zone"))
    params = merge_axes(spec, workload, {}, options, source)
    note = "HiBench 2 printed no input size for some runs: their duration kept, data_size_gb from --param"
    return Run(
        source, workload, params, [("duration_s", seconds, "s")], "ok",
        finished - timedelta(seconds=seconds), finished, note=note,
    )  # fmt: skip


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
    return moment.replace(tzinfo=zone_of(options, source, why))


def read_testdfsio_log(path: Path, text: str, spec: StudySpec, options: NativeImport) -> list[Run]:
    """One run per summary block, its date kept (finished_at; started_at that less its exec time),
    data_size_gb from Total MBytes processed. A block with every line TestDFSIO prints is a run,
    closed by its empty line or not (appended logs hold blocks the next run's header follows
    directly); one cut inside its lines (one missing, or the file ending inside its last line)
    refuses the import naming every such block: an appended log is only trusted whole."""
    names = workload_names(spec.study, TESTDFSIO, MODE_WORKLOADS, options)
    blocks = parse_testdfsio_blocks(text)
    if not blocks:
        raise NativeError(f"{path}: no TestDFSIO summary block ('----- TestDFSIO ----- : write')")
    bad = []
    for index, block in enumerate(blocks, start=1):
        what = f"block {index} at line {block.line} ({block.summary.date or 'no date'}, {block.mode})"
        if block.summary.missing:
            bad.append(f"{what}: cut short, no '{block.summary.missing[0]}' line")
        elif block.summary.cut:
            bad.append(f"{what}: cut short, the file ends inside its last line (no line feed after it)")
    if bad:
        raise NativeError(
            f"{path}: {len(bad)} of {len(blocks)} TestDFSIO blocks are incomplete: " + "; ".join(bad)
        )
    _refuse_blocks_of_one_time(path, blocks)
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
        params = merge_axes(spec, workload, said, options, source)
        values = [
            ("duration_s", seconds, "s"),
            *((name, value, UNITS[name]) for name, value in figures.items()),
        ]
        runs.append(
            Run(source, workload, params, values, "ok", finished - timedelta(seconds=seconds), finished)
        )
    return runs


def _refuse_blocks_of_one_time(path: Path, blocks: list[DFSIOBlock]) -> None:
    """Two blocks that end at the same second are not two runs of one appended log (each run
    takes its time, and the next starts after it): one run pasted twice, which would count as two
    repetitions, or two runs' logs merged. Refused, naming both, either way."""
    first: dict[str, tuple[int, DFSIOBlock]] = {}
    for index, block in enumerate(blocks, start=1):
        date = block.summary.date or ""
        if date not in first:
            first[date] = (index, block)
            continue
        earlier_index, earlier = first[date]
        same = (earlier.mode, earlier.summary.printed) == (block.mode, block.summary.printed)
        why = (
            "the same run twice (every line alike): delete one of them"
            if same
            else "two runs cannot end in the same second of one appended log: keep one log's blocks per file"
        )
        raise NativeError(
            f"{path}:{block.line}: block {index} ends at {date}, as block {earlier_index} at line "
            f"{earlier.line} does: {why}"
        )


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
        if isinstance(path, ClientOutputs):
            runs.append(read_ycsb_clients(path, spec, options))
            continue
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
    refuse_clients_read_as_runs(runs)
    counted: dict[str, int] = {}
    for run in runs:
        if run.note:
            counted[run.note] = counted.get(run.note, 0) + 1
    notes = tuple(note if count == 1 else f"{note} ({count} runs)" for note, count in counted.items())
    records, facts = _records(runs, spec, options)
    return NativeRead(records, len(runs), skipped, notes, facts)


def _records(
    runs: list[Run], spec: StudySpec, options: NativeImport
) -> tuple[list[ResultRecord], tuple[RunFact, ...]]:
    """Runs as records, each cell's runs numbered 1, 2, ... in file order, and their facts."""
    counts: dict[str, int] = {}
    records: list[ResultRecord] = []
    facts: list[RunFact] = []
    for run in runs:
        try:
            spec.validate_record_params(run.workload, run.params)
        except SpecError as exc:
            raise NativeError(f"{run.source}: {exc}") from None
        key = cell_key(run.workload, run.params)
        counts[key] = counts.get(key, 0) + 1
        where = (options.study, options.campaign, options.environment, run.workload, key, counts[key])
        facts += [RunFact(*where, name, printed, run.source) for name, printed in run.facts]
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
    return records, tuple(facts)
