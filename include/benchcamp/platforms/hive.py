"""HiveQL building blocks shared by Hive workloads and the Hive runner (pure, no I/O).

Statements are built only from validated identifiers and literals: no parameter is
ever pasted into HiveQL unchecked. The parsers read HiveServer2's operation log as
archived by `benchcamp.transport.hive`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPERATION_LOG = "operation.log"
RESULTS_FILE = "results.json"
STATEMENT_MARK = "-- BENCHCAMP_STATEMENT"
COMPLETED_EXECUTING = "Completed executing command("
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_FORBIDDEN_IN_LITERAL = re.compile(r"['\"\\;`\n\r\x00]")
_COMPLETED = re.compile(
    r"Completed (?P<phase>compiling|executing) command\(queryId=(?P<query>[^)]+)\); Time taken: (?P<s>[\d.]+) seconds"
)
_HDFS_READ = re.compile(r"Stage-\S+:.*?HDFS Read: (?P<bytes>\d+)")


class HiveParameterError(ValueError):
    """A value that would have to be pasted into HiveQL and is not safe to."""


def identifier(name: str) -> str:
    """A table or column name: letters, digits and underscores only."""
    if not _IDENTIFIER.fullmatch(name):
        raise HiveParameterError(f"not a safe Hive identifier: {name!r} (letters, digits, _ only)")
    return name


def string_literal(value: str) -> str:
    """A quoted HiveQL string for values we cannot bind (LOCATION paths, dates)."""
    if _FORBIDDEN_IN_LITERAL.search(value):
        raise HiveParameterError(
            f"refusing to put {value!r} into a HiveQL literal: quotes, backslashes, semicolons, "
            "backticks and line breaks are not allowed"
        )
    return f"'{value}'"


@dataclass(frozen=True)
class HiveStatement:
    """One statement of a step: `timed` ones make the benchmark, `fetch` ones keep their rows.

    `missing_ok` ones may name a table that is gone ("Table not found": dropped by another
    client between a listing and this statement): they give no rows instead of failing the step.
    """

    label: str
    sql: str
    timed: bool = False
    fetch: bool = False
    missing_ok: bool = False


@dataclass(frozen=True)
class ServerTiming:
    compile_s: float
    execute_s: float
    hdfs_read_bytes: int | None

    @property
    def total_s(self) -> float:
        return self.compile_s + self.execute_s


def statement_logs(text: str) -> dict[str, str]:
    """The operation log of each statement, by label (the archive's operation.log split up)."""
    logs: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(STATEMENT_MARK + " "):
            current = logs.setdefault(line[len(STATEMENT_MARK) + 1 :].strip(), [])
        elif current is not None:
            current.append(line)
    return {label: "\n".join(lines) for label, lines in logs.items()}


def server_timing(log: str) -> ServerTiming | None:
    """Compile + execute time and HDFS bytes read, as HiveServer2 logged them for one query."""
    phases: dict[str, float] = {}
    for match in _COMPLETED.finditer(log):
        phases[match.group("phase")] = phases.get(match.group("phase"), 0.0) + float(match.group("s"))
    if "executing" not in phases:
        return None
    reads = [int(match.group("bytes")) for match in _HDFS_READ.finditer(log)]
    return ServerTiming(phases.get("compiling", 0.0), phases["executing"], sum(reads) if reads else None)
