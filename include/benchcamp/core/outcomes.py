"""What a `benchcamp` command's exit code means: one table for `run`, `import` and `report`.

Scripts and schedulers branch on these, so each code means one thing everywhere, and the
README's table is checked against this one (tests/unit/test_faults.py). When several apply,
the most severe wins, in the order of `SEVERITY`: nothing could run, then nothing was
measured, then stale figures, then partial results, then failed expectations.
"""

from __future__ import annotations

import signal
from enum import IntEnum


class ExitCode(IntEnum):
    """A command's outcome; its meaning is in MEANING."""

    OK = 0
    INTERNAL_ERROR = 1
    BAD_INPUT = 2
    VALIDATION_FAILED = 3
    PARTIAL = 4
    NOTHING_MEASURED = 5
    BUSY = 6
    ANALYSIS_FAILED = 7
    INTERRUPTED = 130
    TERMINATED = 143


# What each code means: the README table's text.
MEANING: dict[ExitCode, str] = {
    ExitCode.OK: "Every planned repetition was measured and passed validation; the figures are current.",
    ExitCode.INTERNAL_ERROR: "An unexpected error (a bug): its traceback is on the console; please report it.",
    ExitCode.BAD_INPUT: "Bad input (arguments, spec, record file), refused before anything ran or was loaded.",
    ExitCode.VALIDATION_FAILED: "Everything ran and is loaded, but expectations failed: the cells are marked, listed on the console.",
    ExitCode.PARTIAL: "Some repetitions (or a step on the target, e.g. its cleanup) failed: each marked with its reason in the archive; the figures use the rest.",
    ExitCode.NOTHING_MEASURED: "No repetition succeeded: the target unreachable, refused, full or failing; the first error is on the console.",
    ExitCode.BUSY: "The target, the warehouse or the lab (being started or stopped) is held by another run (named on the console), still after waiting.",
    ExitCode.ANALYSIS_FAILED: "The figures could not be built (a dbt model or test failed): the failed check is named, and reports show the last successful build, dated.",
    ExitCode.INTERRUPTED: "Stopped by Ctrl-C (SIGINT): the run is marked failed, its remote jobs stopped; a re-run resumes.",
    ExitCode.TERMINATED: "Stopped by SIGTERM: as for Ctrl-C.",
}


# Most severe first: the code a command returns when several outcomes apply.
SEVERITY = (
    ExitCode.INTERRUPTED,
    ExitCode.TERMINATED,
    ExitCode.BAD_INPUT,
    ExitCode.BUSY,
    ExitCode.INTERNAL_ERROR,
    ExitCode.NOTHING_MEASURED,
    ExitCode.ANALYSIS_FAILED,
    ExitCode.PARTIAL,
    ExitCode.VALIDATION_FAILED,
    ExitCode.OK,
)


def worst(codes: list[ExitCode] | tuple[ExitCode, ...]) -> ExitCode:
    """The most severe of `codes` (OK for none)."""
    present = set(codes)
    return next((code for code in SEVERITY if code in present), ExitCode.OK)


def for_signal(signum: int) -> ExitCode:
    """128 + the signal's number, as shells report a process killed by it."""
    return ExitCode.INTERRUPTED if signum == signal.SIGINT else ExitCode.TERMINATED


def table() -> str:
    """The Markdown table of every code (the README's, checked by a unit test)."""
    rows = ["| exit | meaning |", "|---:|---|"]
    rows += [f"| {int(code)} | {MEANING[code]} |" for code in ExitCode]
    return "\n".join(rows)
