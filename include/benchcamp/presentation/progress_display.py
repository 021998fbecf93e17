"""`benchcamp run`'s progress on the console while `airflow dags test` runs a campaign.

On a terminal, a live display per target (rich): repetitions done of planned, the current cell
and step, elapsed time and an estimate of the rest, with each failure printed above it as it
happens. Elsewhere (a log file, CI, a pipe) no display: one flushed line per event, e.g.
`[local_lab] 3/12 ok  <cell> rep 2  (14.2 s; elapsed 1 min 05 s, about 3 min left)`.
What is shown is read from the campaign's archive (`pipeline.progress`), never from Airflow.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TextIO

from rich.console import Console, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from benchcamp.pipeline.progress import (
    Activity,
    CampaignWatch,
    Event,
    Planned,
    Progress,
    RepetitionEnded,
    RoundAdded,
    StepFailed,
    TargetProgress,
)

POLL_S = 1.0
BAR_WIDTH = 30


# -- how a time reads --------------------------------------------------------------------------


def clock_text(seconds: float) -> str:
    """An elapsed time: `42 s`, `1 min 05 s`, `2 h 03 min`."""
    whole = max(round(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def duration_text(seconds: float) -> str:
    """A repetition's time: `14.2 s` below a minute, else as `clock_text`."""
    return f"{seconds:.1f} s" if seconds < 60 else clock_text(seconds)


def about_text(seconds: float) -> str:
    """An estimate, no more precise than it is: `about 40 s`, `about 3 min`, `about 1 h 20 min`."""
    if seconds < 55:
        return f"about {max(int(seconds / 10 + 0.5) * 10, 10)} s"
    minutes = max(int(seconds / 60 + 0.5), 1)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60:02d} min"


def _times(duration_s: float | None, elapsed_s: float, remaining_s: float | None) -> str:
    """`(14.2 s; elapsed 1 min 05 s, about 3 min left)`: the estimate once there is one."""
    clock = f"elapsed {clock_text(elapsed_s)}"
    if remaining_s:
        clock += f", {about_text(remaining_s)} left"
    return f"({duration_text(duration_s)}; {clock})" if duration_s is not None else f"({clock})"


# -- the plain lines ---------------------------------------------------------------------------


def event_line(event: Event) -> str:
    """One console line per event (see the module's docstring for a repetition's)."""
    if isinstance(event, RepetitionEnded):
        count = f"{'warm-up ' if event.warmup else ''}{event.done}/{event.planned}"
        status = "ok" if event.ok else "FAILED"
        line = f"[{event.target}] {count} {status}  {event.label}  "
        line += _times(event.duration_s, event.elapsed_s, event.remaining_s)
        if not event.ok:
            line += f"  at {event.failed_step or 'an unknown step'}: {event.reason}"
        return line
    if isinstance(event, Planned):
        kept = f" ({event.kept} kept from an earlier attempt)" if event.kept else ""
        measured = f"{event.measured} measured repetition(s){kept}"
        return f"[{event.target}] planned: {measured}, {event.warmups} warm-up(s)"
    if isinstance(event, RoundAdded):
        cut = f"; the budget held no more for {event.budget_stopped} cell(s)" if event.budget_stopped else ""
        return (
            f"[{event.target}] adaptive round {event.round_number} added {event.added} repetition(s): "
            f"{event.planned} measured planned{cut}"
        )
    where = f" on {event.environment}" if event.environment != event.target else ""
    return f"[{event.target}] {event.step}{where} try {event.try_number} FAILED: {event.reason}"


def is_failure(event: Event) -> bool:
    return isinstance(event, StepFailed) or (isinstance(event, RepetitionEnded) and not event.ok)


# -- the live display --------------------------------------------------------------------------


def activity_text(target: TargetProgress) -> str:
    """What the target is doing now: the repetition and its step, a campaign step, or its phase."""
    activity: Activity | None = target.activity
    if activity is None:
        return target.phase
    what = f"{activity.label} · " if activity.label else ""
    text = f"{what}{activity.step} try {activity.try_number}"
    if activity.retry_reason:
        text += f" (try {activity.try_number - 1} failed: {activity.retry_reason})"
    return text if activity.running else f"{text} ended, next step starting"


def summary_text(target: TargetProgress, elapsed_s: float) -> str:
    """`3/12 measured (+2 adaptive) · 1 failed · warm-ups 1/1 · elapsed 1 min 05 s · about 3 min left`."""
    extras = []
    if target.added:
        extras.append(f"+{target.added} adaptive")
    if target.kept:
        extras.append(f"{target.kept} kept")
    counted = f"{target.measured_done}/{target.measured_planned} measured"
    parts = [f"{counted} ({', '.join(extras)})" if extras else counted]
    if target.measured_failed:
        parts.append(f"{target.measured_failed} failed")
    if target.warmups_planned:
        failed = f", {target.warmups_failed} failed" if target.warmups_failed else ""
        parts.append(f"warm-ups {target.warmups_done}/{target.warmups_planned}{failed}")
    parts.append(f"elapsed {clock_text(elapsed_s)}")
    if target.remaining_s:
        parts.append(f"{about_text(target.remaining_s)} left")
    return " · ".join(parts)


def render(progress: Progress) -> RenderableType:
    """The live display: per target a bar with its counts, and a line with its current step."""
    if not progress.planned:
        return Text(
            f"waiting for the campaign's plan (Airflow starting) · elapsed {clock_text(progress.elapsed_s)}"
        )
    table = Table.grid(padding=(0, 1))
    for target in progress.targets:
        bar = ProgressBar(
            total=max(target.measured_planned, 1), completed=target.measured_done, width=BAR_WIDTH
        )
        summary = Text(summary_text(target, progress.elapsed_s), no_wrap=True, overflow="ellipsis")
        table.add_row(Text(f"[{target.target}]", style="bold"), bar, summary)
        now = Text(f"now: {activity_text(target)}", style="dim", no_wrap=True, overflow="ellipsis")
        table.add_row(Text(""), Text(""), now)
    return table


class Display(Protocol):
    def update(self, progress: Progress) -> None: ...

    def close(self) -> None: ...


class PlainDisplay:
    """For a stream that is no terminal: each event as one line, flushed at once."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def update(self, progress: Progress) -> None:
        for event in progress.events:
            print(event_line(event), file=self._stream, flush=True)

    def close(self) -> None:
        """Nothing to undo: every line is out."""


class LiveDisplay:
    """For a terminal: the display redrawn at each read (no refresh thread), and the failures,
    the plan and the adaptive rounds printed above it (an ok repetition only moves its bar)."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._live = Live(Text(""), console=console, auto_refresh=False, transient=False)
        try:
            self._live.start()
        except BaseException:  # a signal as it starts: the cursor and stdout back as they were
            self._live.stop()
            raise

    def update(self, progress: Progress) -> None:
        for event in progress.events:
            if not isinstance(event, RepetitionEnded) or not event.ok:
                line = Text(event_line(event), style="red" if is_failure(event) else "")
                self._console.print(line, soft_wrap=True)  # one line, as the terminal wraps it
        self._live.update(render(progress), refresh=True)

    def close(self) -> None:
        """Stop redrawing and leave the last frame, the cursor on a line of its own."""
        self._live.stop()


def open_display(stream: TextIO) -> Display:
    """A live display on a terminal (not a dumb one), plain lines anywhere else."""
    console = Console(file=stream)
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        terminal = False
    return LiveDisplay(console) if terminal and not console.is_dumb_terminal else PlainDisplay(stream)


# -- following a campaign ----------------------------------------------------------------------


def _utc_now() -> datetime:
    return datetime.now(UTC)


class _Follower:
    """The watch and its display, made at the first read; any error of either ends the display
    (said once), never the wait: the campaign is what matters."""

    def __init__(self, study: str, campaign: str, since: datetime, stream: TextIO, root: Path | None) -> None:
        self._args = (study, campaign, since, root)
        self._stream = stream
        self._watch: CampaignWatch | None = None
        self._display: Display | None = None
        self._broken = False

    def refresh(self, now: datetime, final: bool) -> None:
        if self._broken:
            return
        try:
            if self._watch is None:
                study, campaign, since, root = self._args
                self._watch = CampaignWatch(study, campaign, since, root)
            if self._display is None:
                self._display = open_display(self._stream)
            self._display.update(self._watch.read(now, final))
        except Exception as exc:
            self._broken = True
            self.close()
            print(
                f"progress display stopped ({type(exc).__name__}: {exc}); the campaign goes on",
                file=self._stream,
                flush=True,
            )

    def close(self) -> None:
        display, self._display = self._display, None
        if display is not None:
            try:
                display.close()
            except Exception:  # a display that cannot close leaves a line to fix, not a campaign
                pass


def follow_campaign(
    poll: Callable[[], int | None],
    study: str,
    campaign: str,
    since: datetime,
    stream: TextIO | None = None,
    *,
    root: Path | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], datetime] = _utc_now,
) -> int:
    """Wait for the DAG run (`poll`: its process's `Popen.poll`) and show the campaign's progress
    meanwhile, read about once a second; return its exit status. A BaseException raised on the
    way (the CLI's SIGINT/SIGTERM `Interrupted`) stops the display first, so what the caller
    prints next starts on a clean line, and goes on up."""
    follower = _Follower(study, campaign, since, stream or sys.stdout, root)
    try:
        while True:
            code = poll()
            follower.refresh(clock(), final=code is not None)
            if code is not None:
                return code
            sleep(POLL_S)
    finally:
        follower.close()
