"""YCSB's own output as runs (`benchcamp import --from ycsb-output`, docs/importing-native.md):
one file per run, read by the campaign's parser, its served rate from the HdrHistogram logs
beside it; a folder of client outputs as one run of several clients, merged as a campaign merges
its clients (throughputs summed, percentiles from the merged histograms).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchcamp.core.records import ParamValue, RecordError, Status, coerce_param, read_text
from benchcamp.pipeline.native_runs import (
    YCSB,
    ClientOutputs,
    NativeError,
    NativeImport,
    Run,
    detect,
    merge_axes,
    workload_names,
)
from benchcamp.workloads.base import ParseError
from benchcamp.workloads.ycsb import (
    HISTOGRAM_SUFFIX,
    YcsbCommandLine,
    YcsbSummary,
    command_line_axes,
    merged_summary,
    parse_command_line,
    parse_ycsb_text,
    run_status,
    store_of_class,
    summary_metrics,
    with_served,
    workload_of_file,
)
from benchcamp.workloads.ycsb_histograms import HistogramLog, period, read_histogram_log

if TYPE_CHECKING:
    from benchcamp.core.spec import StudySpec


@dataclass(frozen=True)
class _Client:
    """One YCSB client's output read: its workload, the axes its command line says, its summary."""

    path: Path
    source: str
    workload: str
    said: dict[str, ParamValue]
    command: YcsbCommandLine
    summary: YcsbSummary

    def requested(self) -> int | None:
        count = coerce_param(self.command.properties.get("operationcount", ""))
        return count if isinstance(count, int) else None


def _cut_short(message: str, text: str) -> str:
    """A summary cut short is a client that stopped mid-run (crashed, killed, its disk full):
    say where the file ends and what to do, since no figure of a half-printed summary is whole."""
    if not message.endswith("YCSB output cut short"):
        return message
    last = len(text.splitlines())
    return (
        f"{message} (the file ends at line {last}): its client stopped before printing its whole "
        "summary (crashed or killed); leave the file out, or run that repetition again"
    )


# YCSB's null bindings: the client measured alone, which a user labels with --param store to try
# the pipeline (PKB's recorded BasicDB output is one); they drive no store to be mistaken for
_NULL_BINDINGS = ("BasicDB", "BasicTSDB")


def _refuse_another_store(source: str, command: YcsbCommandLine, spec: StudySpec) -> None:
    """A run whose -db drives a store the study does not measure (MongoDB, Redis) is that store's:
    a --param store cannot make its figures HBase's or Cassandra's."""
    if command.db is None or "store" not in spec.axes or store_of_class(command.db) is not None:
        return
    if command.db.rsplit(".", 1)[-1] in _NULL_BINDINGS:
        return
    axis = spec.axes["store"]
    stores = axis.values or sorted(
        {value for values in (axis.ladder or {}).values() for value in values}, key=str
    )
    raise NativeError(
        f"{source}: -db {command.db} drives a store that study '{spec.study}' does not measure (its "
        f"stores: {', '.join(map(str, stores))}): its figures are that store's; leave the file out"
    )


def _ycsb_client(path: Path, text: str, spec: StudySpec, options: NativeImport) -> _Client:
    """A YCSB output's summary, and its workload and axes from its echoed command line."""
    try:
        summary = parse_ycsb_text(text, str(path))
        command = parse_command_line(text, str(path))
    except ParseError as exc:
        raise NativeError(_cut_short(str(exc), text)) from None
    if command is None:
        return _without_command_line(path, summary, spec, options)
    source = f"{path}:{command.line}"
    _refuse_another_store(source, command, spec)
    defaults = {
        Path(name).name: workload for name in command.workload_files if (workload := workload_of_file(name))
    }
    names = workload_names(spec.study, YCSB, defaults, options)
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
    return _Client(path, source, workload, said, command, summary)


def _without_command_line(
    path: Path, summary: YcsbSummary, spec: StudySpec, options: NativeImport
) -> _Client:
    """A YCSB output captured from standard output alone (YCSB 0.17 echoes its command line on
    standard error): nothing in it says the workload or an axis, so `--name <file name>=WORKLOAD`
    says the one and `--param` every other (no default is assumed, not even YCSB's one thread)."""
    names = workload_names(spec.study, YCSB, {}, options)
    workload = names.get(path.name)
    if workload is None:
        raise NativeError(
            f"{path}: YCSB echoed no 'Command line:' (0.17 writes it on standard error: keep both, "
            f"`> {path.name} 2>&1`), so the run's workload and axes are unknown: give them with "
            f"--name {path.name}=WORKLOAD (one of {', '.join(spec.workloads)}) and --param AXIS=VALUE"
        )
    if workload not in spec.workloads:
        raise NativeError(
            f"{path}: --name {path.name}={workload}: no such workload in study '{spec.study}' "
            f"(one of {', '.join(spec.workloads)})"
        )
    return _Client(path, f"{path}:1", workload, {}, YcsbCommandLine(1, None, (), {}), summary)


def read_ycsb_output(path: Path, text: str, spec: StudySpec, options: NativeImport) -> list[Run]:
    """One run per file: the workload from its `-P` workload file, the axes from the echoed command
    line (store from -db, threads, target_ops, -p properties such as operationcount), then
    --param. duration_s is YCSB's own RunTime (the run phase, no load); any error return or fewer
    ok operations than operationcount make the repetition failed, loaded as such."""
    client = _ycsb_client(path, text, spec, options)
    # a run with -target is a point of an offered-load series, though it names an operationcount too
    targeted = "target" in client.command.properties or "target_ops" in options.params
    offered = "target_ops" if targeted else None
    params = merge_axes(spec, client.workload, client.said, options, client.source, prefer=offered)
    requested = params.get("operationcount", client.requested())
    count = requested if isinstance(requested, int) else None
    logs, read, note = _histogram_logs(path, client.command, client.summary)
    summary = client.summary
    measured = period(list(logs.values())) if logs else None
    if measured is not None:
        summary = with_served(summary, [summary], [measured])
    figures = [("duration_s", summary.runtime_ms / 1000, "s"), *summary_metrics(summary)]
    if count is not None:
        figures.append(("operations_requested", float(count), "operations"))
    status: Status = "ok" if run_status(summary, count) == "ok" else "failed"
    return [
        Run(
            client.source,
            client.workload,
            params,
            figures,
            status,
            read_beside=read,
            note=note,
            measured=measured,
        )
    ]


# the axes each client of a run has its share of: the run's is their sum
SHARED_OUT = ("operationcount", "target_ops")


def read_ycsb_clients(group: ClientOutputs, spec: StudySpec, options: NativeImport) -> Run:
    """One run of several clients started together (a folder of their outputs, each with its
    histogram logs), as a campaign's `clients` setting records it: throughputs and operation counts
    summed, latency percentiles from the merged histograms (never averaged), the operation count
    and target the clients' sums, `clients` their number. Clients that disagree on a setting, lack
    their logs or did not run together are refused, naming the file."""
    clients: list[_Client] = []
    for path in group.files:
        try:
            text = read_text(path)
        except RecordError as exc:
            raise NativeError(str(exc)) from None
        kind = detect(path, text)
        if kind != YCSB:
            raise NativeError(
                f"{path}: a {kind}, in a folder that holds the outputs of one YCSB run's clients: "
                "give it outside that folder"
            )
        clients.append(_ycsb_client(path, text, spec, options))
    if len(clients) < 2:
        raise NativeError(
            f"{group.folder}: a folder holds one run's clients, and this one has a single output: "
            "put a one-client run's output beside the folders, not in one"
        )
    first = clients[0]
    for client in clients[1:]:
        if client.workload != first.workload:
            raise NativeError(
                f"{client.source}: workload '{client.workload}', while {first.source} ran '{first.workload}': "
                "the clients of one run run one workload"
            )
        for key in sorted((set(first.said) | set(client.said)) - set(SHARED_OUT)):
            if first.said.get(key) != client.said.get(key):
                raise NativeError(
                    f"{client.source}: {key} is {client.said.get(key)!r}, {first.source} says "
                    f"{first.said.get(key)!r}: the clients of one run share every setting but their "
                    "share of the operations and of the target"
                )
    said = dict(first.said)
    for key in SHARED_OUT:
        shares = [client.said.get(key) for client in clients]
        if any(share is None for share in shares) and any(share is not None for share in shares):
            given = next(client for client in clients if client.said.get(key) is not None)
            lacking = next(client for client in clients if client.said.get(key) is None)
            raise NativeError(f"{lacking.source}: no {key}, while {given.source} has one: the clients differ")
        if shares[0] is not None:
            said[key] = sum(share for share in shares if isinstance(share, int | float))
    source = f"{group.folder}/ ({len(clients)} clients)"
    if "clients" in spec.axes:
        said["clients"] = len(clients)
    params = merge_axes(
        spec, first.workload, said, options, source, prefer="clients" if "clients" in spec.axes else None
    )
    logs: list[dict[str, HistogramLog]] = []
    read: list[Path] = []
    for client in clients:
        found, files, note = _histogram_logs(client.path, client.command, client.summary)
        if not found:
            raise NativeError(
                f"{note or client.path}: a run of several clients needs every client's histogram logs "
                "(-p hdrhistogram.fileoutput=true), since percentiles cannot be averaged"
            )
        logs.append(found)
        read += files
    try:
        summary = merged_summary([c.summary for c in clients], logs, [str(c.path) for c in clients])
    except ParseError as exc:
        raise NativeError(f"{group.folder}: {exc}") from None
    counts = [client.requested() for client in clients]
    count = sum(c for c in counts if c is not None) if None not in counts else None
    figures = [("duration_s", summary.runtime_ms / 1000, "s"), *summary_metrics(summary)]
    if count is not None:
        figures.append(("operations_requested", float(count), "operations"))
    status: Status = "ok" if run_status(summary, count) == "ok" else "failed"
    return Run(source, first.workload, params, figures, status, read_beside=tuple(read))


HDR_FILE_OUTPUT = "hdrhistogram.fileoutput"
HDR_OUTPUT_PATH = "hdrhistogram.output.path"


def _histogram_logs(
    path: Path, command: YcsbCommandLine, summary: YcsbSummary
) -> tuple[dict[str, HistogramLog], tuple[Path, ...], str | None]:
    """The HdrHistogram logs YCSB wrote when told to (`-p hdrhistogram.fileoutput=true`), by
    operation: each operation's `<basename of hdrhistogram.output.path><OPERATION>.hdr`, looked
    for beside the output, since the path it names was the client machine's. Without them, none
    and a note saying so; logs whose counts are not the output's, or only some operations' logs,
    refuse the import: they belong to another run."""
    if command.properties.get(HDR_FILE_OUTPUT, "").strip().lower() != "true":
        return {}, (), None
    written = command.properties.get(HDR_OUTPUT_PATH, "")
    stem = written.replace("\\", "/").rsplit("/", 1)[-1]  # a folder's path ends in '/': no stem
    measured = {name: stats for name, stats in summary.operations.items() if stats.operations}
    odd = [name for name in measured if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name)]
    if odd:  # a log's name is built from it: a section such as `../x/READ` would read elsewhere
        raise NativeError(
            f"{path}: section [{odd[0]}] is not an operation YCSB names (letters, digits, - and _)"
        )
    found = {name: path.parent / f"{stem}{name}{HISTOGRAM_SUFFIX}" for name in measured}
    present = {name: log for name, log in found.items() if log.is_file()}
    if not present:
        names = ", ".join(log.name for log in found.values())
        return {}, (), f"{path}: no served rate: its histogram logs ({names}) are not beside it"
    missing = [log.name for name, log in found.items() if name not in present]
    if missing:
        raise NativeError(
            f"{path}: the histogram logs {', '.join(missing)} are missing beside it, while "
            f"{', '.join(log.name for log in present.values())} are there: copy every log of the run"
        )
    logs: dict[str, HistogramLog] = {}
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
        logs[name] = read
    return logs, tuple(log.resolve() for log in present.values()), None


def refuse_clients_read_as_runs(runs: list[Run]) -> None:
    """Two YCSB outputs of one cell whose histogram logs cover the same time ran together: clients
    of one run, which as two repetitions would each show a share of its throughput."""
    timed = sorted((run for run in runs if run.measured is not None), key=lambda run: run.measured or (0, 0))
    for earlier, later in zip(timed, timed[1:], strict=False):
        assert earlier.measured is not None and later.measured is not None
        same_cell = (earlier.workload, earlier.params) == (later.workload, later.params)
        if same_cell and later.measured == earlier.measured:
            raise NativeError(
                f"{later.source}: the same run as {earlier.source} (their histogram logs cover "
                "the same period to the millisecond): import it once"
            )
        if same_cell and later.measured[0] < earlier.measured[1]:
            raise NativeError(
                f"{later.source}: ran at the same time as {earlier.source} (their histogram logs "
                "overlap): clients of one run, not two repetitions; put each run's client outputs "
                "in a folder of their own inside the folder you import"
            )
