"""A campaign's progress, read from its raw archive while its DAG writes it: what `benchcamp run`
shows instead of minutes of silence (`presentation.progress_display` draws it).

Only files are read, never Airflow: the attempt's plan (`attempts.PLAN_FILE`), the units the
adaptive rounds add (`adaptive`), and each repetition's folder (its step tries, `records.jsonl`,
`failure.json`). A file caught half-written is skipped until the next read, and a repetition is
read to its end once: a read costs a listing per cell folder and a few files per repetition in
flight, however many the campaign has finished.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.paths import slug
from benchcamp.core.records import ResultRecord, cell_key, read_jsonl
from benchcamp.pipeline import archive, attempts
from benchcamp.pipeline.adaptive import ADAPTIVE_DIR
from benchcamp.pipeline.campaign.unit import RepetitionUnit

REASON_CHARS = 200  # a console line, not the archive's whole message
# A failed repetition's records are written just before its failure.json: this many reads wait
# for the reason before the repetition is shown without one (the last read never waits).
REASON_WAIT_READS = 3


@dataclass(frozen=True)
class Planned:
    """The attempt's plan, read: what a target will run (`kept`: ok in an earlier attempt)."""

    target: str
    measured: int
    warmups: int
    kept: int


@dataclass(frozen=True)
class RoundAdded:
    """An adaptive round gave cells more repetitions: the target's planned total grew."""

    target: str
    round_number: int
    added: int
    planned: int
    budget_stopped: int = 0  # cells the campaign's budget held no more repetitions for


@dataclass(frozen=True)
class RepetitionEnded:
    """A repetition's records are in (ok, or failed with the first line of its reason). `done` of
    `planned` counts the measured repetitions (a warm-up's: the warm-ups), this one included."""

    target: str
    label: str
    warmup: bool
    ok: bool
    done: int
    planned: int
    duration_s: float | None
    elapsed_s: float
    remaining_s: float | None
    failed_step: str = ""
    reason: str = ""


@dataclass(frozen=True)
class StepFailed:
    """A try of a target's preflight or cleanup failed (its try folder's failure.json)."""

    target: str
    step: str
    environment: str
    try_number: int
    reason: str


Event = Planned | RoundAdded | RepetitionEnded | StepFailed


@dataclass(frozen=True)
class Activity:
    """The step a target is in: a repetition's (`label` names it) or a campaign step's (preflight,
    cleanup; `label` is the environment when the target runs several). `running` is False between
    steps: the latest try ended and the next has not started."""

    step: str
    try_number: int
    running: bool
    label: str = ""
    retry_reason: str = ""  # why the try before failed (a retried step)


@dataclass(frozen=True)
class TargetProgress:
    """One target's counts (measured repetitions apart from warm-ups), its step, what is left."""

    target: str
    measured_planned: int
    measured_ok: int
    measured_failed: int
    added: int  # measured repetitions the adaptive rounds added (in measured_planned)
    kept: int  # ok in an earlier attempt, not run again (in measured_ok)
    warmups_planned: int
    warmups_ok: int
    warmups_failed: int
    activity: Activity | None
    phase: str  # what the target waits for when no step of it runs
    remaining_s: float | None  # None until a repetition of this attempt has ended

    @property
    def measured_done(self) -> int:
        return self.measured_ok + self.measured_failed

    @property
    def warmups_done(self) -> int:
        return self.warmups_ok + self.warmups_failed


@dataclass(frozen=True)
class Progress:
    """A read of the archive: the state now, and what happened since the read before."""

    elapsed_s: float
    planned: bool
    targets: tuple[TargetProgress, ...]
    events: tuple[Event, ...]


@dataclass(frozen=True)
class _Try:
    """A step try that ended (its meta.json; a try that failed before it has no times)."""

    step: str
    started: datetime | None
    finished: datetime | None

    @property
    def seconds(self) -> float | None:
        if self.started is None or self.finished is None:
            return None
        return max((self.finished - self.started).total_seconds(), 0.0)


@dataclass
class _Unit:
    target: str
    workload: str
    label: str
    rep_dir: Path
    warmup: bool
    kept: bool
    ended: bool = False
    reason_waits: int = 0
    tries: dict[Path, _Try] = field(default_factory=dict)  # its ended tries, each read once
    steps_done: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _End:
    ok: bool
    duration_s: float | None  # the time its steps took (between them, other repetitions' may run)
    finished: datetime | None
    failed_step: str
    reason: str


@dataclass
class _Target:
    """A target's running counts, and what its ended step tries took (for the estimate)."""

    name: str
    environments: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    open: int = 0  # planned, not kept, not ended yet (warm-ups too: they take time)
    started: bool = False  # a repetition of this attempt has a folder
    step_seconds: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # (workload, step)
    workload_steps: dict[str, set[str]] = field(default_factory=dict)  # the steps of its ended units
    busy_s: float = 0.0
    first_start: datetime | None = None
    last_finish: datetime | None = None

    def count(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1

    def try_ended(self, workload: str, step: _Try) -> None:
        seconds = step.seconds
        if seconds is None or step.started is None or step.finished is None:
            return
        for key in ((workload, step.step), ("", step.step)):
            self.step_seconds.setdefault(key, []).append(seconds)
        self.busy_s += seconds
        self.first_start = min(step.started, self.first_start or step.started)
        self.last_finish = max(step.finished, self.last_finish or step.finished)

    def _mean(self, workload: str, step: str) -> float:
        found = self.step_seconds.get((workload, step)) or self.step_seconds.get(("", step)) or [0.0]
        return sum(found) / len(found)

    def remaining_s(self, units: Iterable[_Unit]) -> float | None:
        """What the open units' steps still to run took so far on average (per workload and step,
        as the steps of the ended repetitions say), stretched by the gaps between steps: the
        span of the ended tries over their summed time (the harness's time between steps)."""
        if self.open <= 0:
            return 0.0
        if not self.workload_steps or self.first_start is None or self.last_finish is None:
            return None  # no repetition ended yet: nothing says what one takes
        every = set().union(*self.workload_steps.values())
        left = sum(
            self._mean(unit.workload, step)
            for unit in units
            for step in (self.workload_steps.get(unit.workload) or every) - unit.steps_done
        )
        span = (self.last_finish - self.first_start).total_seconds()
        stretch = span / self.busy_s if self.busy_s > 0 else 1.0
        return left * stretch


class CampaignWatch:
    """Reads a campaign's archive again and again (`read`), remembering what ended.

    `since`: when this run started; the folder's attempt (`attempts.ATTEMPT_FILE`) must have
    started after it, since until the DAG's plan task moves it aside the folder holds the one
    before.
    """

    def __init__(self, study: str, campaign: str, since: datetime, root: Path | None = None) -> None:
        self._dir = archive.campaign_dir(study, campaign, root)
        self._root = root
        self._since = since
        self._planned = False
        self._units: dict[Path, _Unit] = {}
        self._waiting: dict[Path, dict[Path, _Unit]] = {}  # per cell folder: its units not ended
        self._targets: dict[str, _Target] = {}
        self._cell_targets: dict[tuple[str, str], str] = {}
        self._rounds: dict[Path, int] = {}  # round file -> the mtime read
        self._failures_seen: set[Path] = set()

    def read(self, now: datetime, final: bool = False) -> Progress:
        """The state now; `final` (the DAG run ended): nothing more is coming, wait for nothing."""
        events: list[Event] = []
        if not self._planned:
            self._read_plan(events)
        activities: dict[str, Activity] = {}
        remaining: dict[str, float | None] = {}
        if self._planned:
            self._read_rounds(events)
            activities, ended = self._read_repetitions(final)
            remaining = {name: self._remaining(target) for name, target in self._targets.items()}
            events += [
                RepetitionEnded(
                    target=unit.target,
                    label=unit.label,
                    warmup=unit.warmup,
                    ok=end.ok,
                    done=done,
                    planned=planned,
                    duration_s=end.duration_s,
                    elapsed_s=self._elapsed(now),
                    remaining_s=remaining[unit.target],
                    failed_step=end.failed_step,
                    reason=end.reason,
                )
                for unit, end, done, planned in ended
            ]
            self._read_step_failures(events)
        return Progress(
            elapsed_s=self._elapsed(now),
            planned=self._planned,
            targets=tuple(
                self._state(target, activities.get(target.name), remaining.get(target.name))
                for target in self._targets.values()
            ),
            events=tuple(events),
        )

    def _elapsed(self, now: datetime) -> float:
        return max((now - self._since).total_seconds(), 0.0)

    def _remaining(self, target: _Target) -> float | None:
        units = (
            unit for cell in self._waiting.values() for unit in cell.values() if unit.target == target.name
        )
        return target.remaining_s(units)

    # -- the plan and the adaptive rounds ------------------------------------------------------

    def _read_plan(self, events: list[Event]) -> None:
        attempt = _json(self._dir / attempts.ATTEMPT_FILE)
        started = _moment(attempt.get("started_at")) if isinstance(attempt, dict) else None
        if started is None or started < self._since:
            return  # no attempt yet, or the one before this run's
        plan = _json(self._dir / attempts.PLAN_FILE)
        if not isinstance(plan, dict):
            return  # not written yet, or caught half-written
        for target, units in plan.items():
            if not isinstance(units, list) or not units:
                continue  # the plan lists every environment of the study, most with nothing
            state = self._targets.setdefault(str(target), _Target(str(target)))
            for unit in units:
                self._add(state, unit, added=False)
            events.append(
                Planned(
                    state.name,
                    state.counts.get("measured_planned", 0),
                    state.counts.get("warmups_planned", 0),
                    state.counts.get("kept", 0),
                )
            )
        self._planned = True

    def _add(self, target: _Target, unit: RepetitionUnit, added: bool) -> bool:
        """Register a planned unit (once: an added unit a round file repeats is no new one)."""
        rep_dir = archive.unit_repetition_dir(unit, self._root)
        if rep_dir in self._units:
            return False
        environment = str(unit["environment"])
        key = cell_key(unit["workload"], unit["params"])
        warmup = not attempts.is_measured(unit)
        kept = bool(unit.get("kept"))
        where = "" if environment == target.name else f" on {environment}"
        label = f"{key} rep {unit['repetition']}{where}"
        self._units[rep_dir] = _Unit(target.name, str(unit["workload"]), label, rep_dir, warmup, kept, kept)
        if not kept:
            self._waiting.setdefault(rep_dir.parent, {})[rep_dir] = self._units[rep_dir]
        self._cell_targets.setdefault((environment, key), target.name)
        if environment not in target.environments:
            target.environments.append(environment)
        kind = "warmups" if warmup else "measured"
        target.count(f"{kind}_planned")
        if kept:
            target.count(f"{kind}_ok")
            target.count("kept")
        else:
            target.open += 1
        if added:
            target.count("added")
        return True

    def _read_rounds(self, events: list[Event]) -> None:
        files = sorted((self._dir / ADAPTIVE_DIR).glob("*/round*.json"), key=_round_order)
        for path in files:
            try:
                stamp = path.stat().st_mtime_ns
            except OSError:
                continue
            if self._rounds.get(path) == stamp:
                continue
            found = _json(path)
            if not isinstance(found, dict) or not isinstance(found.get("added_units"), list):
                continue  # caught half-written: read at the next poll
            self._rounds[path] = stamp
            added: dict[str, int] = {}
            for unit in found["added_units"]:
                target = self._target_of(unit)
                if self._add(target, unit, added=True):
                    added[target.name] = added.get(target.name, 0) + 1
            decisions = found.get("decisions")
            cut = sum(
                1
                for decision in decisions or ()
                if isinstance(decision, dict) and decision.get("reason") == "budget"
            )
            if cut and not added and found["added_units"] == []:  # the budget stopped every cell left
                name = self._round_target(path)
                if name is not None:
                    added[name] = 0
            for name, count in added.items():
                planned = self._targets[name].counts.get("measured_planned", 0)
                events.append(RoundAdded(name, int(found.get("round", 0)), count, planned, cut))

    def _round_target(self, path: Path) -> str | None:
        """The target a round file (adaptive/<environment>/round<k>.json) belongs to."""
        return next(
            (
                name
                for name, target in self._targets.items()
                if path.parent.name in map(slug, target.environments)
            ),
            None,
        )

    def _target_of(self, unit: RepetitionUnit) -> _Target:
        """The target whose plan has the unit's cell (an interleaved group's units are all under
        one target's key, and a round file is named after any environment of it)."""
        environment = str(unit["environment"])
        name = self._cell_targets.get((environment, cell_key(unit["workload"], unit["params"])))
        if name is None:
            name = environment if environment in self._targets else next(iter(self._targets), environment)
        return self._targets.setdefault(name, _Target(name))

    # -- the repetitions -----------------------------------------------------------------------

    def _read_repetitions(
        self, final: bool
    ) -> tuple[dict[str, Activity], list[tuple[_Unit, _End, int, int]]]:
        """Read every repetition not ended yet whose folder exists: each target's step, and the
        repetitions that ended (in the order they did) with their count done of planned."""
        ended: list[tuple[_Unit, _End]] = []
        current: dict[str, tuple[tuple[bool, float], Path, _Unit]] = {}
        for cell_dir, units in self._waiting.items():
            present = _folders(cell_dir)
            for unit in (unit for unit in units.values() if unit.rep_dir.name in present):
                self._targets[unit.target].started = True
                latest = self._read_tries(unit)
                end = self._end_of(unit, final)
                if end is not None:
                    ended.append((unit, end))
                elif latest is not None and (
                    unit.target not in current or latest[0] > current[unit.target][0]
                ):
                    current[unit.target] = (*latest, unit)
        counted: list[tuple[_Unit, _End, int, int]] = []
        for unit, end in sorted(ended, key=lambda item: item[1].finished or datetime.max.replace(tzinfo=UTC)):
            unit.ended = True
            cell_units = self._waiting[unit.rep_dir.parent]
            del cell_units[unit.rep_dir]
            if not cell_units:
                del self._waiting[unit.rep_dir.parent]
            target = self._targets[unit.target]
            target.open -= 1
            target.workload_steps.setdefault(unit.workload, set()).update(unit.steps_done)
            kind = "warmups" if unit.warmup else "measured"
            target.count(f"{kind}_{'ok' if end.ok else 'failed'}")
            done = target.counts.get(f"{kind}_ok", 0) + target.counts.get(f"{kind}_failed", 0)
            counted.append((unit, end, done, target.counts.get(f"{kind}_planned", 0)))
        return {name: _activity(try_dir, unit) for name, (_, try_dir, unit) in current.items()}, counted

    def _read_tries(self, unit: _Unit) -> tuple[tuple[bool, float], Path] | None:
        """Read the repetition's tries that ended since the last read (each once) into its
        target's step times; return its latest try, a running one first (for `Activity`)."""
        target = self._targets[unit.target]
        latest: tuple[tuple[bool, float], Path] | None = None
        for step in _folders(unit.rep_dir):
            for name in _folders(unit.rep_dir / step):
                path = unit.rep_dir / step / name
                if not name.startswith("try"):
                    continue
                if path not in unit.tries:
                    ended = _try_end(path, step)
                    if ended is not None:
                        unit.tries[path] = ended
                        unit.steps_done.add(step)
                        target.try_ended(unit.workload, ended)
                ended = unit.tries.get(path)
                if ended is None:
                    rank = (True, _mtime(path))  # in flight
                elif ended.finished is not None:
                    rank = (False, ended.finished.timestamp())
                else:
                    rank = (False, float("-inf"))
                if latest is None or rank > latest[0]:
                    latest = (rank, path)
        return latest

    def _end_of(self, unit: _Unit, final: bool) -> _End | None:
        """The repetition's end once its records are in (a failed one: with its reason, which
        follows the records; waited for a few reads), else None."""
        records = _records(unit.rep_dir / archive.RECORDS_FILE)
        if records is None:
            return None
        ok = attempts.records_ok(records)
        failure = None if ok else _failure(unit.rep_dir)
        if not ok and failure is None and unit.reason_waits < REASON_WAIT_READS and not final:
            unit.reason_waits += 1
            return None
        duration, finished = _span(records)  # a repetition that ran no step: its records' times
        timed = [(step.seconds, step.finished) for step in unit.tries.values() if step.seconds is not None]
        if timed:
            duration = sum(seconds or 0.0 for seconds, _ in timed)
            finished = max(moment for _, moment in timed if moment is not None)
        if ok:
            return _End(True, duration, finished, "", "")
        if failure is None:
            return _End(False, duration, finished, "", "no reason archived")
        return _End(False, duration, finished, failure.step, first_line(failure.message))

    # -- the campaign's own steps --------------------------------------------------------------

    def _step_folders(self, target: _Target) -> Iterable[tuple[str, str, Path]]:
        """(step, environment, folder of its tries) of the target's preflight and cleanup."""
        for environment in target.environments:
            yield "preflight", environment, self._dir / "preflight" / slug(environment)
            yield "cleanup", environment, self._dir / "cleanup" / environment

    def _read_step_failures(self, events: list[Event]) -> None:
        for target in self._targets.values():
            for step, environment, folder in self._step_folders(target):
                for path in sorted(folder.glob(f"try*/{archive.FAILURE_FILE}")):
                    if path in self._failures_seen:
                        continue
                    failure = _failure(path.parent)
                    if failure is None:
                        continue  # caught half-written: read at the next poll
                    self._failures_seen.add(path)
                    number = _try_number(path.parent)
                    events.append(
                        StepFailed(target.name, step, environment, number, first_line(failure.message))
                    )

    def _campaign_activity(self, target: _Target) -> Activity | None:
        several = len(target.environments) > 1
        for step, environment, folder in self._step_folders(target):
            tries = sorted(folder.glob("try*"), key=_try_number)
            if tries and _try_end(tries[-1], step) is None:  # started, not ended
                return Activity(step, _try_number(tries[-1]), True, environment if several else "")
        return None

    def _state(self, target: _Target, activity: Activity | None, remaining_s: float | None) -> TargetProgress:
        counts = target.counts
        if activity is None:
            activity = self._campaign_activity(target)
        if target.open <= 0:
            phase = "every planned repetition ended: adaptive rounds, cleanup, then the analysis"
        elif target.started:
            phase = "between steps"
        else:
            phase = "before the first repetition (preflight)"
        return TargetProgress(
            target=target.name,
            measured_planned=counts.get("measured_planned", 0),
            measured_ok=counts.get("measured_ok", 0),
            measured_failed=counts.get("measured_failed", 0),
            added=counts.get("added", 0),
            kept=counts.get("kept", 0),
            warmups_planned=counts.get("warmups_planned", 0),
            warmups_ok=counts.get("warmups_ok", 0),
            warmups_failed=counts.get("warmups_failed", 0),
            activity=activity,
            phase=phase,
            remaining_s=remaining_s,
        )


# -- reading files that may be half-written ----------------------------------------------------


def first_line(text: str, limit: int = REASON_CHARS) -> str:
    """The first non-blank line of a message, cut to `limit` characters: one console line."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _json(path: Path) -> Any:
    """The file's JSON, or None when it is missing or caught half-written."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _records(path: Path) -> list[ResultRecord] | None:
    """The repetition's records, or None when the file is missing or caught half-written."""
    try:
        return read_jsonl(path.read_text(encoding="utf-8"), str(path))
    except (OSError, ValueError):  # RecordError is a ValueError
        return None


def _failure(directory: Path) -> archive.Failure | None:
    try:
        return archive.read_failure(directory)
    except (OSError, ValueError):  # half-written: pydantic's ValidationError is a ValueError
        return None


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return _aware(datetime.fromisoformat(value))
    except ValueError:
        return None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _span(records: list[ResultRecord]) -> tuple[float | None, datetime | None]:
    """The time from the records' start to their end, and that end (for a repetition that ran no
    step, e.g. not executed after a failed preflight: when it was marked)."""
    starts = [_aware(record.started_at) for record in records if record.started_at is not None]
    ends = [_aware(record.finished_at) for record in records if record.finished_at is not None]
    if not starts or not ends:
        return None, None
    return max((max(ends) - min(starts)).total_seconds(), 0.0), max(ends)


def _try_end(try_dir: Path, step: str) -> _Try | None:
    """The try's end: its meta.json's times (None while it runs, or caught half-written); a try
    that failed before its meta.json (an unreachable target) ended when its failure.json came."""
    meta = _json(try_dir / "meta.json")
    if isinstance(meta, dict):
        return _Try(step, _moment(meta.get("started_at")), _moment(meta.get("finished_at")))
    if not (try_dir / "meta.json").exists() and (try_dir / archive.FAILURE_FILE).exists():
        return _Try(step, None, None)
    return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return float("-inf")


def _folders(directory: Path) -> set[str]:
    try:
        with os.scandir(directory) as entries:
            return {entry.name for entry in entries if entry.is_dir()}
    except OSError:
        return set()


def _try_number(path: Path) -> int:
    digits = path.name[3:]
    return int(digits) if digits.isdigit() else 0


def _round_order(path: Path) -> tuple[str, int]:
    digits = path.stem[5:]
    return path.parent.name, int(digits) if digits.isdigit() else 0


def _activity(try_dir: Path, unit: _Unit) -> Activity:
    number = _try_number(try_dir)
    retry_reason = ""
    if number > 1:
        failure = _failure(try_dir.parent / f"try{number - 1}")
        retry_reason = first_line(failure.message) if failure is not None else ""
    return Activity(try_dir.parent.name, number, try_dir not in unit.tries, unit.label, retry_reason)
