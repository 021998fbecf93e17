"""YCSB core workloads A-F (study 3, HBase vs Cassandra): one module registers all six.

Execute resets `usertable` in the cell's store, loads it (`-load`, its summary archived as
`load.stdout.log` / `load.ycsb.json` and checked) and runs the operation mix (`-t`) in one
step, so every run meets a freshly loaded table whatever order the scheduler picks and on a
retry (generate does nothing). The spec's settings
are YCSB properties passed as `-p name=value`; an axis of the same name (operationcount)
overrides its setting, as `-p` overrides a workload file. The axes store, threads and
target_ops become `-db`, `-threads` and `-target` instead.

YCSB's Client writes its summary through one exporter only (to the export file when one is
set), so the binding jar carries a tee exporter: the stock text summary on stdout and the
stock JSON array in `ycsb.json` from the same run. The parser reads both and refuses a
repetition whose two copies disagree; either alone is accepted (a plain JSON or text
exporter), neither is output cut short. Parsing is pure: the functions below take text.
"""

# Over 600 lines: one workload family per module; its parser, commands and cell checks share YCSB's model.

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchcamp.core.records import ResultRecord
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    HOST_SSH,
    ArchivedStep,
    Command,
    Endpoint,
    GenerateError,
    ParseError,
    RunContext,
    Shell,
    Workload,
    env_ref,
    host_login,
    job_path,
    render,
)
from benchcamp.workloads.ycsb_histograms import (
    HistogramLog,
    check_together,
    merge_logs,
    percentile_of,
    period,
    read_histogram_log,
    value_at_percentile,
)

# The target's environment names the client classpath: YCSB core 0.17.0 and its dependencies,
# the project's bindings, the tee exporter and the table reset (lab/ycsb; the lab's sshd sets it).
YCSB_CLASSPATH = "YCSB_CLASSPATH"
BINDINGS: dict[str, str] = {
    "cassandra": "benchcamp.ycsb.CassandraCQLClient",
    "hbase": "benchcamp.ycsb.HBaseClient",
}
EXPORTER = "benchcamp.ycsb.TeeMeasurementsExporter"
# Empties the table in the store (creating it when missing) before each load (lab/ycsb).
RESET_TABLE_CLASS = "benchcamp.ycsb.ResetTable"
TABLE = "usertable"
YCSB_PROPERTY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]*")  # what YCSB takes after -p
PROPERTIES_KEY = (
    "ycsb_properties"  # the environment key (the YCSB study's option) naming the stores' addresses
)
CORE_WORKLOAD = "site.ycsb.workloads.CoreWorkload"
CLIENT_CLASS = "site.ycsb.Client"
# Java 17 closes java.nio to the HBase client, which then falls back to slower byte comparisons
JAVA_OPTIONS = ("--add-opens=java.base/java.nio=ALL-UNNAMED",)
# The untimed table reset lives a few seconds, in code that runs once: the client compiler only
# (C2's compilations cost the target's cores more than they return; the measured client keeps both)
RESET_JIT = "-XX:TieredStopAtLevel=1"
EXPORT_FILE = "ycsb.json"
LOAD_THREADS = 4  # the untimed load's client threads (at least): it only prepares the table
LOAD_PREFIX = "load."  # the load's summary files in the execute step: load.stdout.log, load.ycsb.json
# With `clients` > 1, client N's files in the execute step: clientN.stdout.log, clientN.stderr.log,
# clientN.ycsb.json and its HdrHistogram log per operation, clientN.READ.hdr, ...
CLIENT_PREFIX = "client{}."
# With `ycsb_client_hosts` (the environment's option), the hosts clients run on, reached over SSH;
# client 1 listens on the environment's `ycsb_barrier_port` of its host for the others (lab/ycsb's
# StartBarrier), and each client works in a folder of its host named by REMOTE_DIR_VARIABLE in
# its shell
CLIENT_HOSTS_KEY = "ycsb_client_hosts"
BARRIER_PORT_KEY = "ycsb_barrier_port"
DEFAULT_BARRIER_PORT = 47390
REMOTE_DIR_VARIABLE = "BENCHCAMP_CLIENT_DIR"
INTERVAL_PROPERTY = "measurement.interval"  # op (default), intended or both
HISTOGRAM_SUFFIX = ".hdr"

# Axes that are command-line switches, not YCSB properties; settings may not set what the
# module sets itself.
SWITCH_AXES = ("store", "threads", "target_ops", "clients")
RESERVED_PROPERTIES = frozenset({"db", "exporter", "exportfile", "threadcount", "target", "table"})
_PROPORTIONS = (
    "readproportion",
    "updateproportion",
    "insertproportion",
    "scanproportion",
    "readmodifywriteproportion",
)

# -- the pure parser ---------------------------------------------------------------------------

# Operations the DB interface performs; each reports a Return= count per status. Others in the
# summary are measured only: READ-MODIFY-WRITE (one READ plus one UPDATE, counted under both),
# CLEANUP (once per client thread) and <OP>-FAILED (latencies of the not-ok calls).
DB_OPERATIONS = frozenset({"READ", "UPDATE", "INSERT", "SCAN", "DELETE"})
READ_MODIFY_WRITE = "READ-MODIFY-WRITE"
OK_STATUSES = frozenset({"OK", "BATCHED_OK"})  # what YCSB's Status.isOk() accepts
# Latency measurements are `<what>Latency(<unit>)`: Average, Min, Max and percentiles. YCSB 0.17
# names a percentile by its ordinal (1st, 2nd, 3rd, 11th, 95th) when whole and by Double.toString
# (99.9) otherwise; older releases printed the fixed histogram's 95th/99th in ms. Values are kept
# in µs. Other measurements (LatencyVariance(us), the histogram's per-bucket counts) are not kept.
_LATENCY = re.compile(r"^(?P<what>.+?)Latency\((?P<unit>[^)]*)\)$")
_STATISTICS = {"Average": "avg", "Min": "min", "Max": "max"}
_PERCENTILE = re.compile(r"^(?P<p>\d+(?:\.\d+)?)(?:st|nd|rd|th)?Percentile$")
_MICROSECONDS_PER = {"us": 1.0, "ms": 1000.0}
# Before HdrHistogram, YCSB's histogram printed a percentile as the whole millisecond bucket it
# fell in: `95thPercentileLatency(ms), 0` says "under 1 ms", not 0 µs. Such a figure is kept as an
# upper bound (`<op>_<p>_latency_below_us`), never as a latency of 0.
_LEGACY_RESOLUTION_US = 1000.0
# YCSB before its Status class (added late 2015) printed the binding's int code (`Return=0`): its DB
# interface defined 0 as success and anything else as an error. Later releases print `Return=OK`.
_NUMERIC_RETURN = re.compile(r"-?\d+")
_DB_EXCEPTION = "site.ycsb.DBException:"
_TEXT_LINE = re.compile(r"^\[(?P<section>[^\]\s]+)\], (?P<measurement>[^,]+), (?P<value>\S+)$")


@dataclass(frozen=True)
class OperationStats:
    """One operation type's figures: ok-call count, latencies (µs) by name, calls by status."""

    operations: int
    latencies_us: dict[str, float]
    returns: dict[str, int] = field(default_factory=dict)
    # latencies the output gives only as an exclusive upper bound (µs): a legacy ms percentile of 0
    bounds_us: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class YcsbSummary:
    """What one client run reported at its end."""

    runtime_ms: float
    throughput_ops_s: float
    operations: dict[str, OperationStats]
    gc_count: float | None = None
    gc_time_ms: float | None = None
    # A client thread whose binding cannot start prints its DBException on stdout and YCSB
    # 0.17.0 still exits 0 with a summary of nothing: the messages (naming the store's
    # address) are kept so the failure says why.
    client_errors: tuple[str, ...] = ()
    # The run's operations (YCSB's count, all clients) and the seconds from the first client's
    # first interval to the last one's end in their histogram logs. YCSB's RunTime also holds each
    # client's start (its store connection and, with several, the start barrier), so its
    # throughput understates the rate the store served at; these give that rate. None without
    # the logs (a run recorded before every timed run wrote them).
    served_operations: float | None = None
    served_s: float | None = None

    @property
    def served_throughput_ops_s(self) -> float | None:
        """Operations per second over the period the clients' histogram logs cover (None without them)."""
        if self.served_operations is None or not self.served_s:
            return None
        return self.served_operations / self.served_s

    @property
    def ok_operations(self) -> int:
        """Workload operations that succeeded: ok DB calls, a read-modify-write counted once."""
        ok_calls = sum(
            count
            for name, stats in self.operations.items()
            if name in DB_OPERATIONS
            for status, count in stats.returns.items()
            if status in OK_STATUSES
        )
        rmw = self.operations.get(READ_MODIFY_WRITE)
        return ok_calls - (rmw.operations if rmw else 0)

    @property
    def error_returns(self) -> int:
        """DB calls answered with any status YCSB does not count as ok (ERROR, NOT_FOUND, ...)."""
        return sum(
            count
            for stats in self.operations.values()
            for status, count in stats.returns.items()
            if status not in OK_STATUSES
        )

    @property
    def insert_ok(self) -> int:
        insert = self.operations.get("INSERT")
        return sum(n for status, n in insert.returns.items() if status in OK_STATUSES) if insert else 0


def _number(raw: str, source: str, where: str) -> float:
    try:
        return float(raw)  # Java's Double.toString: 3.88, 1.0E-4, NaN
    except ValueError:
        raise ParseError(f"{source}: {where}: {raw!r} is not a number") from None


def _latency_name(what: str, source: str, where: str) -> str:
    """`Average` → avg, `99.9Percentile` → p99_9, `1stPercentile` → p1; anything else refused."""
    if what in _STATISTICS:
        return _STATISTICS[what]
    if (match := _PERCENTILE.fullmatch(what)) and 0 <= float(match.group("p")) <= 100:
        return "p" + match.group("p").replace(".", "_")
    raise ParseError(f"{source}: {where}: a latency measurement this parser does not know")


def _latency_scale(unit: str, source: str, where: str) -> float:
    try:
        return _MICROSECONDS_PER[unit]
    except KeyError:
        raise ParseError(f"{source}: {where}: latency unit '{unit}' is neither us nor ms") from None


def _status_name(code: str) -> str:
    """The Status name as YCSB prints it today; an old int code becomes OK (0) or ERROR_CODE_<n>."""
    if not _NUMERIC_RETURN.fullmatch(code):
        return code
    number = int(code)
    if number == 0:
        return "OK"
    return f"ERROR_CODE_{number}" if number > 0 else f"ERROR_CODE_MINUS_{-number}"


def _summarise(entries: Iterable[tuple[str, str, float]], source: str) -> YcsbSummary:
    """Sections → summary; output cut short (a section or the overall figures missing) fails."""
    sections: dict[str, dict[str, float]] = {}
    for section, measurement, value in entries:
        measurements = sections.setdefault(section, {})
        if measurement in measurements:
            raise ParseError(f"{source}: [{section}], {measurement} appears twice (two YCSB summaries?)")
        measurements[measurement] = value
    overall = sections.pop("OVERALL", {})
    missing = [name for name in ("RunTime(ms)", "Throughput(ops/sec)") if name not in overall]
    if missing:
        raise ParseError(f"{source}: no [OVERALL], {missing[0]} line: YCSB output cut short")
    operations: dict[str, OperationStats] = {}
    percentiles_seen: set[str] = set()
    for section, measurements in sections.items():
        if section.startswith("TOTAL_GC") or "Operations" not in measurements:
            continue
        latencies: dict[str, float] = {}
        bounds: dict[str, float] = {}
        returns: dict[str, int] = {}
        for measurement, value in measurements.items():
            where = f"[{section}], {measurement}"
            if match := _LATENCY.match(measurement):
                name = _latency_name(match.group("what"), source, where)
                scale = _latency_scale(match.group("unit"), source, where)
                if name in latencies or name in bounds:
                    raise ParseError(f"{source}: {where} repeats the {name} latency in another unit")
                if value == 0 and scale == _LEGACY_RESOLUTION_US and name not in _STATISTICS.values():
                    bounds[name] = _LEGACY_RESOLUTION_US
                    percentiles_seen.add(name)
                    continue
                latencies[name] = value * scale
                if name not in _STATISTICS.values():
                    percentiles_seen.add(name)
            elif measurement.startswith("Return="):
                status = _status_name(measurement.removeprefix("Return="))
                if status in returns:
                    raise ParseError(f"{source}: {where} counts {status} calls a second time")
                returns[status] = int(value)
        lacking = [name for name in _STATISTICS.values() if name not in latencies]
        if lacking:
            raise ParseError(f"{source}: [{section}] has no {lacking[0]} latency: YCSB output cut short")
        operations[section] = OperationStats(int(measurements["Operations"]), latencies, returns, bounds)
    for section, stats in operations.items():
        lacking = sorted(percentiles_seen - set(stats.latencies_us) - set(stats.bounds_us))
        if lacking:
            raise ParseError(f"{source}: [{section}] has no {lacking[0]} latency: YCSB output cut short")
        if section in DB_OPERATIONS and sum(stats.returns.values()) < stats.operations:
            raise ParseError(
                f"{source}: [{section}] counts {stats.operations} operations but "
                f"{sum(stats.returns.values())} Return= results: YCSB output cut short"
            )
    return YcsbSummary(
        runtime_ms=overall["RunTime(ms)"],
        throughput_ops_s=overall["Throughput(ops/sec)"],
        operations=operations,
        gc_count=sections.get("TOTAL_GCs", {}).get("Count"),
        gc_time_ms=sections.get("TOTAL_GC_TIME", {}).get("Time(ms)"),
    )


def merged_summary(
    summaries: Sequence[YcsbSummary],
    logs: Sequence[Mapping[str, HistogramLog]],
    names: Sequence[str],
) -> YcsbSummary:
    """The clients' summaries as one run's: throughputs and counts summed, percentiles from the
    merged histograms (each client's `logs` by operation), averages weighted by operations."""
    silent = [name for name, log in zip(names, logs, strict=True) if not log]
    if silent:
        raise ParseError(
            f"{silent[0]} wrote no histogram log (hdrhistogram.fileoutput): the clients cannot be merged"
        )
    periods = [period(list(log.values())) for log in logs]
    check_together(periods, names)
    operations: dict[str, OperationStats] = {}
    for operation in sorted({name for summary in summaries for name in summary.operations}):
        stats = [summary.operations.get(operation) for summary in summaries]
        present = [(name, each) for name, each in zip(names, stats, strict=True) if each is not None]
        count = sum(each.operations for _, each in present)
        returns: dict[str, int] = {}
        for _, each in present:
            for status, calls in each.returns.items():
                returns[status] = returns.get(status, 0) + calls
        latencies: dict[str, float] = {}
        if count:
            latencies["avg"] = sum(each.latencies_us["avg"] * each.operations for _, each in present) / count
        else:
            latencies["avg"] = math.nan  # YCSB's own average of no operation
        latencies["min"] = min(each.latencies_us["min"] for _, each in present)
        latencies["max"] = max(each.latencies_us["max"] for _, each in present)
        wanted = sorted({key for _, each in present for key in each.latencies_us} - set(latencies))
        if wanted:
            histograms = {
                name: log[operation] for name, log in zip(names, logs, strict=True) if operation in log
            }
            lacking = [name for name, _ in present if name not in histograms]
            if lacking:
                raise ParseError(
                    f"{lacking[0]} has no histogram log of {operation}: its percentiles cannot be merged"
                )
            merged = merge_logs(list(histograms.values()))
            for name, each in present:
                logged = histograms[name].count
                if logged != each.operations:
                    raise ParseError(
                        f"{name}'s histogram log of {operation} holds {logged} latencies, its summary "
                        f"{each.operations} operations: the log is cut short or from another run"
                    )
            for key in wanted:
                latencies[key] = float(value_at_percentile(merged.histogram, percentile_of(key)))
        operations[operation] = OperationStats(count, latencies, returns)
    errors = tuple(dict.fromkeys(error for summary in summaries for error in summary.client_errors))
    gc = [summary.gc_count for summary in summaries]
    gc_time = [summary.gc_time_ms for summary in summaries]
    run = YcsbSummary(
        runtime_ms=max(summary.runtime_ms for summary in summaries),
        throughput_ops_s=sum(summary.throughput_ops_s for summary in summaries),
        operations=operations,
        gc_count=None if None in gc else sum(value for value in gc if value is not None),
        gc_time_ms=None if None in gc_time else sum(value for value in gc_time if value is not None),
        client_errors=errors,
    )
    return with_served(run, summaries, periods)


def with_served(
    summary: YcsbSummary, summaries: Sequence[YcsbSummary], periods: Sequence[tuple[float, float]]
) -> YcsbSummary:
    """`summary` with the served rate of a run whose clients printed `summaries` and measured in
    `periods` (each client's histogram logs, first interval to last): all clients' operations
    (YCSB's throughput is its operations over its RunTime) over the span of those periods."""
    return dataclasses.replace(
        summary,
        served_operations=float(
            round(sum(each.throughput_ops_s * each.runtime_ms / 1000 for each in summaries))
        ),
        served_s=max(end for _, end in periods) - min(start for start, _ in periods),
    )


def has_text_summary(text: str) -> bool:
    return any(line.startswith("[OVERALL], ") for line in text.splitlines())


def client_errors(text: str) -> tuple[str, ...]:
    """The distinct DBException messages client threads printed (a binding that could not start)."""
    found = (
        line.removeprefix(_DB_EXCEPTION).strip()[:300]
        for line in text.splitlines()
        if line.startswith(_DB_EXCEPTION)
    )
    return tuple(dict.fromkeys(found))


def parse_ycsb_text(text: str, source: str) -> YcsbSummary:
    """The TextMeasurementsExporter's `[SECTION], Measurement, value` lines (other lines ignored:
    BasicDB's verbose calls, the binding's own messages)."""
    entries = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if match := _TEXT_LINE.match(line):
            where = f"line {number}"
            value = _number(match.group("value"), source, where)
            entries.append((match.group("section"), match.group("measurement"), value))
        elif line.startswith("[") and entries:
            raise ParseError(f"{source}: line {number} is cut off ({line!r}): YCSB output cut short")
    summary = _summarise(entries, source)
    return dataclasses.replace(summary, client_errors=client_errors(text))


def parse_ycsb_json(text: str, source: str) -> YcsbSummary:
    """The JSONArrayMeasurementsExporter's `[{"metric", "measurement", "value"}, ...]`."""
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}): cut short?") from exc
    if not isinstance(payload, list):
        raise ParseError(f"{source}: expected the JSON array of YCSB's JSONArrayMeasurementsExporter")
    entries = []
    for index, item in enumerate(payload):
        if not isinstance(item, dict) or not {"metric", "measurement", "value"} <= set(item):
            raise ParseError(f"{source}: element {index} is not a metric/measurement/value object")
        value = item["value"]
        if isinstance(value, str):  # Jackson writes NaN as a string
            value = _number(value, source, f"element {index}")
        entries.append((str(item["metric"]), str(item["measurement"]), float(value)))
    return _summarise(entries, source)


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def cross_check(text: YcsbSummary, exported: YcsbSummary, text_source: str, json_source: str) -> None:
    """Both copies of one run's summary must agree figure by figure, else the parse fails."""

    def differ(what: str, a: object, b: object) -> ParseError:
        return ParseError(f"{json_source} disagrees with {text_source}: {what} is {b} there, {a} in the text")

    for what, a, b in (
        ("[OVERALL] RunTime(ms)", text.runtime_ms, exported.runtime_ms),
        ("[OVERALL] Throughput(ops/sec)", text.throughput_ops_s, exported.throughput_ops_s),
    ):
        if not _same(a, b):
            raise differ(what, a, b)
    if set(text.operations) != set(exported.operations):
        raise differ("the set of operations", sorted(text.operations), sorted(exported.operations))
    for name, ours in text.operations.items():
        theirs = exported.operations[name]
        if ours.operations != theirs.operations:
            raise differ(f"[{name}] Operations", ours.operations, theirs.operations)
        if ours.returns != theirs.returns:
            raise differ(f"[{name}] returns", ours.returns, theirs.returns)
        if ours.bounds_us != theirs.bounds_us:
            raise differ(f"[{name}] latency bounds", ours.bounds_us, theirs.bounds_us)
        for latency in sorted(set(ours.latencies_us) | set(theirs.latencies_us)):
            mine, exported_value = ours.latencies_us.get(latency), theirs.latencies_us.get(latency)
            if not _same(mine, exported_value):
                raise differ(f"[{name}] {latency} latency", mine, exported_value)


def read_step_summary(step: ArchivedStep) -> tuple[YcsbSummary, Path]:
    """The run's summary from stdout.log and/or ycsb.json (cross-checked) and the file it came from."""
    stdout_file = step.files.get("stdout.log", step.directory / "stdout.log")
    json_file = step.files.get(EXPORT_FILE, step.directory / EXPORT_FILE)
    text = step.text("stdout.log")
    from_text = parse_ycsb_text(text, str(stdout_file)) if has_text_summary(text) else None
    from_json = parse_ycsb_json(step.text(EXPORT_FILE), str(json_file)) if json_file.exists() else None
    if from_text and from_json:
        cross_check(from_text, from_json, str(stdout_file), str(json_file))
        return from_text, stdout_file
    if from_json:  # the summary went to the file only; stdout still holds the client's errors
        return dataclasses.replace(from_json, client_errors=client_errors(text)), json_file
    if from_text:
        return from_text, stdout_file
    raise ParseError(
        f"{stdout_file}: no YCSB summary ([OVERALL] lines) and no {json_file.name}: output cut short"
    )


@dataclass(frozen=True)
class YcsbCommandLine:
    """The arguments YCSB's Client echoes at the top of its output (`Command line: -db ... -t`)."""

    line: int
    db: str | None
    workload_files: tuple[str, ...]
    properties: dict[str, str]


# The Client's switches that set a property (the rest, -s and -t / -load, set none)
_SWITCH_PROPERTIES = {"-threads": "threadcount", "-target": "target", "-db": "db", "-l": "label"}
# Store bindings by their class's simple name: YCSB's own (0.1's com.yahoo.ycsb.db.HBaseClient,
# CassandraClient10, later site.ycsb.db.HBaseClient2, CassandraCQLClient) and the lab's (BINDINGS)
_STORE_CLASSES = (("HBaseClient", "hbase"), ("Cassandra", "cassandra"))


def parse_command_line(text: str, source: str) -> YcsbCommandLine | None:
    """The echoed `Command line:` of a YCSB output, or None when it has none (ParseError if two)."""
    found: YcsbCommandLine | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("Command line:"):
            continue
        if found is not None:
            raise ParseError(f"{source}: line {number}: a second YCSB command line (two runs in one file?)")
        try:
            words = shlex.split(line.removeprefix("Command line:"))
        except ValueError as exc:
            raise ParseError(
                f"{source}: line {number}: the YCSB command line cannot be read ({exc})"
            ) from None
        properties: dict[str, str] = {}
        files: list[str] = []
        position = 0
        while position < len(words):
            word = words[position]
            value = words[position + 1] if position + 1 < len(words) else None
            if word in (*_SWITCH_PROPERTIES, "-P", "-p") and value is None:
                raise ParseError(f"{source}: line {number}: YCSB's {word} has no value")
            if word in _SWITCH_PROPERTIES and value is not None:
                properties[_SWITCH_PROPERTIES[word]] = value
                position += 2
            elif word == "-P" and value is not None:
                files.append(value)
                position += 2
            elif word == "-p" and value is not None:
                name, equals, setting = value.partition("=")
                if not equals:
                    raise ParseError(f"{source}: line {number}: YCSB's -p {value!r} is not name=value")
                properties[name] = setting
                position += 2
            else:
                position += 1
        found = YcsbCommandLine(number, properties.get("db"), tuple(files), properties)
    return found


def store_of_class(db_class: str) -> str | None:
    """The store a YCSB binding class drives (`com.yahoo.ycsb.db.HBaseClient` → hbase), or None."""
    simple = db_class.rsplit(".", 1)[-1]
    return next((store for prefix, store in _STORE_CLASSES if simple.startswith(prefix)), None)


def command_line_axes(command: YcsbCommandLine) -> dict[str, str]:
    """What the echoed command line says of this module's axes and of YCSB properties (by name):
    store from -db, threads from -threads (YCSB's default: 1), target_ops from -target, and every
    -p property (operationcount, recordcount, ...)."""
    axes = {
        name: value
        for name, value in command.properties.items()
        if name not in ("db", "threadcount", "target")
    }
    axes["threads"] = command.properties.get("threadcount", "1")
    if "target" in command.properties:
        axes["target_ops"] = command.properties["target"]
    store = store_of_class(command.db) if command.db else None
    if store is not None:
        axes["store"] = store
    return axes


def workload_of_file(path: str) -> str | None:
    """The core workload a `-P` file names by YCSB's file names (`workloads/workloada` → ycsb_a)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return next((cls.name for cls in _CORE_WORKLOADS if cls.workload_file == name), None)


def run_problems(summary: YcsbSummary, requested: int | None) -> list[str]:
    """Why a run cannot count: its error returns by operation and status (a store node stopped
    mid-run answers so), a client's error, fewer ok operations than requested; empty when none."""
    problems = []
    if summary.error_returns:
        calls = ", ".join(
            f"{name} {status} {count}"
            for name, stats in summary.operations.items()
            if name in DB_OPERATIONS
            for status, count in stats.returns.items()
            if status not in OK_STATUSES
        )
        problems.append(f"{summary.error_returns} error returns ({calls})")
    if summary.client_errors:
        problems.append(f"a client's error: {summary.client_errors[0]}")
    if requested is not None and summary.ok_operations < requested:
        problems.append(f"{summary.ok_operations} of {requested} operations ok")
    return problems


def run_status(summary: YcsbSummary, requested: int | None) -> str:
    """`ok`, or `failed` on any of `run_problems`."""
    return "failed" if run_problems(summary, requested) else "ok"


def metric_prefix(operation: str) -> str:
    """`READ-MODIFY-WRITE` → `read_modify_write`: the operation's part of metric names."""
    return re.sub(r"[^a-z0-9]+", "_", operation.lower()).strip("_")


def summary_metrics(summary: YcsbSummary) -> list[tuple[str, float, str]]:
    """(metric, value, unit) for every figure of the summary; undefined ones (NaN) left out."""
    out: list[tuple[str, float, str]] = [
        ("runtime_s", summary.runtime_ms / 1000, "s"),
        ("throughput_ops_s", summary.throughput_ops_s, "ops/s"),
        ("operations_ok", float(summary.ok_operations), "operations"),
        ("error_returns", float(summary.error_returns), "operations"),
    ]
    if summary.served_s is not None and summary.served_throughput_ops_s is not None:
        out.append(("served_s", summary.served_s, "s"))
        out.append(("served_throughput_ops_s", summary.served_throughput_ops_s, "ops/s"))
    if summary.gc_count is not None:
        out.append(("client_gc_count", summary.gc_count, "collections"))
    if summary.gc_time_ms is not None:
        out.append(("client_gc_time_ms", summary.gc_time_ms, "ms"))
    for name, stats in summary.operations.items():
        prefix = metric_prefix(name)
        out.append((f"{prefix}_operations", float(stats.operations), "operations"))
        for latency, value in stats.latencies_us.items():
            out.append((f"{prefix}_{latency}_latency_us", value, "us"))
        for latency, bound in stats.bounds_us.items():
            out.append((f"{prefix}_{latency}_latency_below_us", bound, "us"))
        for status, count in stats.returns.items():
            out.append((f"{prefix}_return_{metric_prefix(status)}", float(count), "operations"))
    return [(metric, value, unit) for metric, value, unit in out if math.isfinite(value)]


# -- commands ----------------------------------------------------------------------------------


def _property_value(value: object) -> str:
    """As YCSB parses it: integral numbers without a decimal point (Integer.parseInt), booleans lower case."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def store_properties(ctx: RunContext) -> dict[str, str]:
    """Where the target's stores listen (the environment's `ycsb_properties`), for client and reset alike."""
    return {name: _property_value(value) for name, value in ctx.environment.option(PROPERTIES_KEY).items()}


# Where the bindings (lab/ycsb) connect first, by property, with their defaults: every Cassandra
# contact point, every ZooKeeper of HBase's quorum (HBase's master and region servers are found
# through it).
STORE_ADDRESSES: dict[str, tuple[str, str, str, str, str]] = {
    # store: (service, hosts property, default hosts, port property, default port)
    "cassandra": ("Cassandra", "cassandra.hosts", "127.0.0.1", "cassandra.port", "9042"),
    "hbase": (
        "HBase's ZooKeeper",
        "hbase.zookeeper.quorum",
        "127.0.0.1",
        "hbase.zookeeper.property.clientPort",
        "2181",
    ),
}


def store_endpoints(ctx: RunContext) -> list[Endpoint]:
    """The cell's store nodes as its clients reach them (`STORE_ADDRESSES`), for the preflight."""
    address = STORE_ADDRESSES.get(str(ctx.param("store")))
    if address is None:
        return []
    service, hosts_name, hosts_default, port_name, port_default = address
    properties = store_properties(ctx)
    port = properties.get(port_name, port_default)
    setting = f"the environment's {PROPERTIES_KEY} {hosts_name} / {port_name}"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{setting}: {port_name} {port!r} is not a port number (1-65535)")
    hosts = [host.strip() for host in properties.get(hosts_name, hosts_default).split(",") if host.strip()]
    return [Endpoint(service, host, int(port), setting) for host in hosts]


def ycsb_properties(ctx: RunContext) -> dict[str, str]:
    """The workload class, the target's store addresses, the spec's settings, then the cell's property axes."""
    properties = {"workload": CORE_WORKLOAD, **store_properties(ctx)}
    for name in ctx.spec.settings.get(ctx.workload, {}):
        properties[name] = _property_value(ctx.setting(name))
    for name, value in ctx.params.items():
        if name not in SWITCH_AXES:
            properties[name] = _property_value(value)
    return properties


def binding_class(ctx: RunContext) -> str:
    store = str(ctx.param("store"))
    try:
        return BINDINGS[store]
    except KeyError:
        raise ValueError(
            f"no YCSB binding for store '{store}' (known: {', '.join(sorted(BINDINGS))})"
        ) from None


def requested_operations(ctx: RunContext) -> int:
    return int(float(ycsb_properties(ctx).get("operationcount", "0")))


def loaded_records(ctx: RunContext) -> int:
    properties = ycsb_properties(ctx)
    return int(float(properties.get("insertcount", properties.get("recordcount", "0"))))


def clients_of(ctx: RunContext) -> int:
    """YCSB processes the run starts together (the cell's `clients` axis; 1 without it)."""
    return int(ctx.params.get("clients", 1))


def share(total: int, client: int, clients: int) -> int:
    """Client `client`'s (1-based) part of `total` operations or ops/s: equal, the rest to the first."""
    return total // clients + (1 if client <= total % clients else 0)


def client_hosts(ctx: RunContext) -> list[str]:
    """Hosts the run's clients run on, reached from the target over SSH (the environment's
    `ycsb_client_hosts`); empty: every client on the target itself."""
    return list(ctx.environment.option(CLIENT_HOSTS_KEY))


def client_host(ctx: RunContext, client: int) -> str:
    """Client `client` (1-based) runs on the `client`-th host, round robin when there are fewer."""
    hosts = client_hosts(ctx)
    return hosts[(client - 1) % len(hosts)]


def client_endpoints(ctx: RunContext) -> list[Endpoint]:
    """The hosts this cell's clients log in to, for the preflight."""
    hosts = client_hosts(ctx)[: clients_of(ctx)]
    setting = f"the environment's {CLIENT_HOSTS_KEY}"
    return [Endpoint("YCSB client host", host, 22, setting, over_ssh=True) for host in dict.fromkeys(hosts)]


def remote_unit_dir(ctx: RunContext) -> str:
    """The repetition's folder on a client host, as a shell word of that host: under its TMPDIR
    (the unit's path hashed: names from a spec never reach that shell)."""
    unit = hashlib.sha256(ctx.unit_path.encode()).hexdigest()[:16]
    return f'"${{TMPDIR:-/tmp}}"/benchcamp-ycsb-"$(id -u)"/{unit}'


def remote_dir(ctx: RunContext, client: int) -> str:
    """Client `client`'s folder on its host (`remote_unit_dir`/clientN)."""
    return f"{remote_unit_dir(ctx)}/client{int(client)}"


def _remote_path(name: str) -> Shell:
    return Shell(f'"${REMOTE_DIR_VARIABLE}"/' + shlex.quote(name))


def client_command(ctx: RunContext, phase: str, prefix: str = "", client: int = 0) -> Command:
    """`java -cp "$YCSB_CLASSPATH" site.ycsb.Client -load|-t -db <binding> -p k=v ... -threads N [-target N] -s`.

    With a `prefix` (the load, a client of several) the summary goes to `<prefix>stdout.log` and
    `<prefix>ycsb.json` in the job directory, so the run's own stdout holds one summary only.
    Client `client` of the cell's `clients` runs its share of the operations and of the offered
    load, and writes its HdrHistogram log per operation (`<prefix><OPERATION>.hdr`) to be merged.
    With `ycsb_client_hosts` it runs on its host (`remote_client`), its files fetched afterwards.
    """
    clients = clients_of(ctx) if client else 1
    remote = bool(client and client_hosts(ctx))
    place = _remote_path if remote else job_path
    properties = ycsb_properties(ctx)
    if clients > 1:
        properties["operationcount"] = str(share(requested_operations(ctx), client, clients))
    command: Command = [
        "java",
        *JAVA_OPTIONS,
        "-cp",
        env_ref(YCSB_CLASSPATH),
        CLIENT_CLASS,
        phase,
        "-db",
        binding_class(ctx),
    ]
    for name, value in properties.items():
        command += ["-p", f"{name}={value}"]
    threads = int(ctx.params.get("threads", 1))
    if phase == "-load":  # preparation, not the measurement: never slower than LOAD_THREADS
        threads = max(threads, LOAD_THREADS)
    command += ["-p", f"table={TABLE}", "-threads", str(threads)]
    target = ctx.params.get("target_ops")
    if phase == "-t" and target is not None:
        command += ["-target", str(share(int(target), client, clients) if clients > 1 else int(target))]
        if INTERVAL_PROPERTY not in properties:  # a spec setting of its own wins
            # each call also measured from its intended start (Intended-<OP>): a client behind
            # its schedule shows the queue that the latency from the actual start leaves out
            command += ["-p", f"{INTERVAL_PROPERTY}=both"]
    if client or phase == "-t":  # every timed run: its clients' logs are merged, and give its served rate
        command += [
            "-p",
            "hdrhistogram.fileoutput=true",
            "-p",
            Shell("hdrhistogram.output.path=" + (place(prefix) if prefix else '"$JOB"/')),
        ]
    if clients > 1 and remote:
        # the project's bindings hold each client's operations until all are connected
        # (lab/ycsb's StartBarrier): client 1 listens on its host, the others connect to it
        port = int(ctx.environment.option(BARRIER_PORT_KEY))
        command += ["-p", f"benchcamp.start.address={client_host(ctx, 1)}:{port}"]
        if client == 1:
            command += ["-p", "benchcamp.start.serve=true"]
        command += ["-p", f"benchcamp.start.clients={clients}"]
    elif clients > 1:  # the same through a folder of the job's (not archived) on one host
        command += [
            "-p",
            Shell("benchcamp.start.dir=" + job_path("start")),
            "-p",
            f"benchcamp.start.clients={clients}",
        ]
    command += [
        "-p",
        f"exporter={EXPORTER}",
        "-p",
        Shell("exportfile=" + place(prefix + EXPORT_FILE)),
        "-s",
    ]
    if prefix:
        command += [Shell(">"), place(prefix + "stdout.log")]
    if remote:
        command += [Shell("2>"), place(prefix + "stderr.log")]
        return remote_client(ctx, client, prefix, command)
    if clients > 1:
        command += [Shell("2>"), job_path(prefix + "stderr.log"), Shell('& pids="$pids $!"')]
    return command


def remote_client(ctx: RunContext, client: int, prefix: str, java: Command) -> Command:
    """`java` started on client `client`'s host in its own folder, in the background.

    `ssh -tt`: the client gets a terminal of its own, so when the step is stopped (its process
    group killed on the target, the SSH session gone) the client is hung up and ends too. What
    ssh itself says goes to `<prefix>ssh.log`; the client's files are fetched by `fetch_client`.
    """
    script = (
        f'{REMOTE_DIR_VARIABLE}={remote_dir(ctx, client)} && rm -rf "${REMOTE_DIR_VARIABLE}" && '
        f'mkdir -p "${REMOTE_DIR_VARIABLE}" && cd "${REMOTE_DIR_VARIABLE}" && exec {render(java)}'
    )
    return [
        HOST_SSH,
        "-tt",
        client_host(ctx, client),
        script,
        Shell(">"),
        job_path(prefix + "ssh.log"),
        Shell('2>&1 </dev/null & pids="$pids $!"'),
    ]


def fetch_client(ctx: RunContext, client: int) -> Command:
    """Client `client`'s files copied from its host into the job folder (archived with it), then
    its folder there removed; a failure names the client and fails the step."""
    host = client_host(ctx, client)
    folder = remote_dir(ctx, client)
    # the repetition's folder goes with its last client (rmdir leaves it while another is there)
    script = (
        f"cd {folder} && tar -cf - . && cd / && rm -rf {folder} && "
        f"{{ rmdir {remote_unit_dir(ctx)} 2>/dev/null || true; }}"
    )
    failed = shlex.quote(f"the files of YCSB client {client} could not be fetched from {host}")
    return [
        HOST_SSH,
        host,
        script,
        Shell("</dev/null |"),
        "tar",
        "-xf",
        "-",
        "-C",
        job_path(),
        Shell(f"|| {{ echo {failed} >&2; failed=1; }}"),
    ]


def run_commands(ctx: RunContext) -> list[Command]:
    """The timed run: one client, or the cell's `clients` started together and waited for, the
    step failing (naming the client) if any of them fails.

    With `ycsb_client_hosts` (each host logged in to first: `client_hosts_answer`) the clients
    start on their hosts and, once all have ended, their files are fetched.
    """
    clients = clients_of(ctx)
    hosts = client_hosts(ctx)
    if clients == 1 and not hosts:
        return [client_command(ctx, "-t")]
    started = [client_command(ctx, "-t", CLIENT_PREFIX.format(n), n) for n in range(1, clients + 1)]
    waited = (
        'failed=0; n=0; for pid in $pids; do n=$((n + 1)); wait "$pid" || '
        f'{{ echo "YCSB client $n of {clients} exited $?" >&2; failed=1; }}; done'
    )
    if not hosts:
        return [[Shell('pids=""')], *started, [Shell(waited + '; [ "$failed" = 0 ]')]]
    fetched = [fetch_client(ctx, n) for n in range(1, clients + 1)]
    return [[Shell('pids=""')], *started, [Shell(waited)], *fetched, [Shell('[ "$failed" = 0 ]')]]


def client_hosts_answer(ctx: RunContext) -> list[Command]:
    """With `ycsb_client_hosts`, a login to each host the cell's clients use, before the table is
    touched: one that does not answer fails the step, naming every such host, and no client starts
    (a partial sum would look like a slower store)."""
    hosts = client_hosts(ctx)
    if not hosts:
        return []
    used = list(dict.fromkeys(client_host(ctx, n) for n in range(1, clients_of(ctx) + 1)))
    login = host_login('"$host"')
    return [
        [
            Shell(
                f'unreachable=""; for host in {" ".join(shlex.quote(host) for host in used)}; do '
                f'{login} || unreachable="$unreachable $host"; done; '
                'if [ -n "$unreachable" ]; then echo "YCSB client hosts not answering over SSH:$unreachable '
                f"(the environment's {CLIENT_HOSTS_KEY}): no client started\" >&2; exit 1; fi"
            )
        ]
    ]


def reset_table_command(ctx: RunContext) -> Command:
    """Empty (or create) `usertable` in the cell's store, where the binding will look for it."""
    command: Command = [
        "java",
        *JAVA_OPTIONS,
        RESET_JIT,
        "-cp",
        env_ref(YCSB_CLASSPATH),
        RESET_TABLE_CLASS,
        str(ctx.param("store")),
        TABLE,
    ]
    properties = ycsb_properties(ctx)
    for name, value in store_properties(ctx).items():
        command += ["-p", f"{name}={value}"]
    if "fieldcount" in properties:
        command += ["-p", f"fieldcount={properties['fieldcount']}"]
    return command


def check_ycsb_cell(ctx: RunContext) -> None:
    """Refuse a cell YCSB could not run as asked, before anything runs (ValueError says why)."""
    binding_class(ctx)
    for name in ctx.spec.settings.get(ctx.workload, {}):
        if not YCSB_PROPERTY_NAME.fullmatch(name) or name in RESERVED_PROPERTIES or name in SWITCH_AXES:
            raise ValueError(f"setting '{name}' of {ctx.workload} cannot be a YCSB property set here")
    properties = ycsb_properties(ctx)
    for name in ("recordcount", "operationcount"):
        raw = properties.get(name)
        if raw is None or not re.fullmatch(r"\d+", raw) or int(raw) <= 0:
            raise ValueError(f"{ctx.workload}: {name} must be a whole number above 0, got {raw!r}")
    for name in ("threads", "target_ops", "clients"):
        value = ctx.params.get(name)
        if value is not None and (isinstance(value, str) or value <= 0 or float(value) != int(value)):
            raise ValueError(f"{ctx.workload}: {name} must be a whole number above 0, got {value!r}")
    clients = clients_of(ctx)
    if clients > requested_operations(ctx) or clients > int(ctx.params.get("target_ops", clients)):
        raise ValueError(
            f"{ctx.workload}: {clients} clients need at least one operation and one op/s each "
            "(operationcount and target_ops are shared among them)"
        )
    try:
        inserts = float(properties.get("insertproportion", 0))
    except ValueError:
        inserts = 0.0  # refused below, naming the property
    if clients > 1 and inserts > 0:
        # YCSB numbers the run's inserts from recordcount in every client (insertstart moves only
        # the load's): two clients would insert the same keys, each counting a write the other
        # overwrote, and "latest" reads would chase one sequence from two processes
        raise ValueError(
            f"{ctx.workload}: {clients} clients would insert the same keys (insertproportion "
            f"{properties['insertproportion']}: YCSB numbers every client's inserts from recordcount); "
            "run workloads with inserts with one client"
        )
    shares = []
    for name in _PROPORTIONS:
        try:
            share = float(properties.get(name, 0))
        except ValueError:
            raise ValueError(f"{ctx.workload}: {name} must be a number, got {properties[name]!r}") from None
        if not 0 <= share <= 1:
            raise ValueError(f"{ctx.workload}: {name} must be between 0 and 1, got {share}")
        shares.append(share)
    if sum(shares) <= 0:
        raise ValueError(f"{ctx.workload}: every operation proportion is 0")


class _CoreWorkload(Workload):
    family = "ycsb"
    workload_file = ""  # YCSB's workload file of this mix (workloads/workloada ...)
    axes = ("store", "operationcount", "threads", "target_ops", "clients")
    stddev_metric = "throughput_ops_s"
    uses_data_fs = False

    def clean_paths(self, ctx: RunContext) -> list[Shell]:
        return []  # the data lives in the store: execute empties the table before loading it

    def estimated_bytes(self, ctx: RunContext) -> int:
        return 0  # nothing on a data file system

    def check_cell(self, ctx: RunContext) -> None:
        check_ycsb_cell(ctx)
        store_endpoints(ctx)  # a store address that is no address is refused before anything runs

    def endpoints(self, ctx: RunContext) -> list[Endpoint]:
        return [*store_endpoints(ctx), *client_endpoints(ctx)]

    def generate(self, ctx: RunContext) -> list[Command]:
        """Nothing: execute resets and loads the table right before the run (see `execute`)."""
        return []

    def execute(self, ctx: RunContext) -> list[Command]:
        """Reset the table, load it (untimed by YCSB, its summary kept apart), then the timed run.

        One step, so a run always follows its own load: the study cleaned and loaded before
        every test, and a separate generate step would not guarantee it (`airflow dags test`
        runs every repetition's generate before any execute, and a retried run would meet a
        table its failed try already changed). The step's duration_s therefore includes the
        load; the run's figures are YCSB's own (RunTime, throughput, latencies).
        """
        return [
            *client_hosts_answer(ctx),
            reset_table_command(ctx),
            client_command(ctx, "-load", LOAD_PREFIX),
            *run_commands(ctx),
        ]

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        return parse_ycsb_run(self, ctx, step)

    def failure_reason(self, ctx: RunContext, step: ArchivedStep, records: list[ResultRecord]) -> str:
        summary, source = run_summary(ctx, step)
        problems = run_problems(summary, requested_operations(ctx))
        return f"YCSB's run: {'; '.join(problems) or 'marked failed'} (see {source})"


def load_step(step: ArchivedStep, prefix: str = LOAD_PREFIX) -> ArchivedStep:
    """The load's (or a client's) summary files of an execute step, as a step of their own."""
    files = {name.removeprefix(prefix): path for name, path in step.files.items() if name.startswith(prefix)}
    files.setdefault("stdout.log", step.directory / (prefix + "stdout.log"))
    files.setdefault(EXPORT_FILE, step.directory / (prefix + EXPORT_FILE))
    return dataclasses.replace(step, files=files)


def read_clients_summary(step: ArchivedStep, clients: int) -> YcsbSummary:
    """The run of several clients as one summary (`merged_summary`) from their archived files."""
    names = [f"client {n}" for n in range(1, clients + 1)]
    summaries, logs = [], []
    for n in range(1, clients + 1):
        prefix = CLIENT_PREFIX.format(n)
        own = load_step(step, prefix)
        summaries.append(read_step_summary(own)[0])
        logs.append(histogram_logs(step, prefix))
    return merged_summary(summaries, logs, names)


def histogram_logs(step: ArchivedStep, prefix: str = "") -> dict[str, HistogramLog]:
    """A client's HdrHistogram logs in the step (`<prefix><OPERATION>.hdr`) by operation; without a
    prefix (one client), those of no client of several and not the load's."""
    others = (LOAD_PREFIX, CLIENT_PREFIX.split("{")[0])
    paths = {
        path.name.removeprefix(prefix).removesuffix(HISTOGRAM_SUFFIX): path
        for path in [*step.files.values(), *step.directory.glob(f"{prefix}*{HISTOGRAM_SUFFIX}")]
        if path.name.startswith(prefix)
        and path.name.endswith(HISTOGRAM_SUFFIX)
        and (prefix or not path.name.startswith(others))
    }
    return {
        operation: read_histogram_log(path.read_text(encoding="utf-8", errors="replace"), str(path))
        for operation, path in sorted(paths.items())
    }


def check_load(ctx: RunContext, step: ArchivedStep) -> tuple[YcsbSummary, Path]:
    """Every record of the table was inserted ok, else GenerateError naming the file and the client's error."""
    summary, source = read_step_summary(load_step(step))
    wanted = loaded_records(ctx)
    if summary.insert_ok != wanted or summary.error_returns or summary.client_errors:
        why = f": {summary.client_errors[0]}" if summary.client_errors else ""
        raise GenerateError(
            f"YCSB loaded {summary.insert_ok} of {wanted} records ({summary.error_returns} error "
            f"returns) into {TABLE} on {ctx.param('store')}{why}; see {source}"
        )
    return summary, source


def run_summary(ctx: RunContext, step: ArchivedStep) -> tuple[YcsbSummary, Path]:
    """The timed run's summary and where it was read: one client's, or every client's merged
    (their files in the step's folder)."""
    clients = clients_of(ctx)
    if clients > 1 or client_hosts(ctx):
        return read_clients_summary(step, clients), step.directory
    summary, source = read_step_summary(step)
    logs = histogram_logs(step)
    if not logs:  # a run recorded before one client wrote its logs
        return summary, source
    return with_served(summary, [summary], [period(list(logs.values()))]), source


def parse_ycsb_run(workload: Workload, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
    """Records of one run; all marked failed on any error return or fewer ok operations than asked."""
    if step.exit_code != 0:
        return [workload.duration_record(ctx, step, ok=False)]
    load, load_artifact = check_load(ctx, step)
    summary, artifact = run_summary(ctx, step)
    requested = requested_operations(ctx)
    status = run_status(summary, requested)
    ok = status == "ok"
    records = [
        workload.duration_record(ctx, step, ok=ok),
        workload.record(ctx, step, "operations_requested", float(requested), "operations", status, artifact),
    ]
    for metric, value, unit in summary_metrics(summary):
        records.append(workload.record(ctx, step, metric, value, unit, status, artifact))
    for metric, value, unit in (
        ("loaded_records", float(load.insert_ok), "records"),
        ("load_throughput_ops_s", load.throughput_ops_s, "ops/s"),
    ):
        records.append(workload.record(ctx, step, metric, value, unit, status, load_artifact))
    return records


@register
class YcsbA(_CoreWorkload):
    name = "ycsb_a"
    workload_file = "workloada"
    description = "YCSB core workload A: update heavy, 50% reads / 50% updates"


@register
class YcsbB(_CoreWorkload):
    name = "ycsb_b"
    workload_file = "workloadb"
    description = "YCSB core workload B: read mostly, 95% reads / 5% updates"


@register
class YcsbC(_CoreWorkload):
    name = "ycsb_c"
    workload_file = "workloadc"
    description = "YCSB core workload C: read only"


@register
class YcsbD(_CoreWorkload):
    name = "ycsb_d"
    workload_file = "workloadd"
    description = "YCSB core workload D: read latest, 95% reads / 5% inserts"


@register
class YcsbE(_CoreWorkload):
    name = "ycsb_e"
    workload_file = "workloade"
    description = "YCSB core workload E: short ranges, 95% scans / 5% inserts"


@register
class YcsbF(_CoreWorkload):
    name = "ycsb_f"
    workload_file = "workloadf"
    description = "YCSB core workload F: read-modify-write, 50% reads / 50% read-modify-writes"


_CORE_WORKLOADS = (YcsbA, YcsbB, YcsbC, YcsbD, YcsbE, YcsbF)
