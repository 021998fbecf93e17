"""Per-task phase times of a MapReduce job, from the JobHistory server's REST answers (pure).

The input is one JSON document holding what `/ws/v1/history/mapreduce/jobs/{id}` returned,
plus its `/counters`, `/tasks` and, per task, `/tasks/{task}/attempts`:
`{"job": …, "counters": …, "tasks": …, "attempts": {task_id: …}}`. Phases per successful
attempt: map = finish − start; for reduces shuffle = shuffleFinish − start, merge =
mergeFinish − shuffleFinish, reduce = finish − mergeFinish (what the SSD/HDD study compares).
Failed or killed attempts are listed but never averaged.

The job's answer counts its tasks and attempts (mapsTotal, mapsCompleted, successfulMapAttempts,
…) that the other answers list one by one: a document where they disagree (a task's attempts
missing, an answer cut short) is refused, since its phase means would silently be wrong.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from benchcamp.core.records import ParseError

JOB_ID = re.compile(r"job_\d+_\d+")
HISTORY_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:\d+)?/?")

# Runs on the target (any python3): the JobHistory server is reached from where the job ran,
# which for the lab is inside YARN's network namespace. A job appears in the history a few
# seconds after it finishes: 404 is retried until the deadline.
_FETCH_PROGRAM = """
import json, sys, time, urllib.error, urllib.request
base, job, wait_s = sys.argv[1].rstrip("/"), sys.argv[2], float(sys.argv[3])
def get(path):
    url = base + "/ws/v1/history/mapreduce/jobs/" + job + path
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)
deadline = time.monotonic() + wait_s
while True:
    try:
        document = {"job": get("")}
        break
    except urllib.error.HTTPError as error:
        if error.code != 404 or time.monotonic() > deadline:
            sys.exit("job history of " + job + ": HTTP " + str(error.code) + " from " + base)
        time.sleep(2)
document["counters"] = get("/counters")
document["tasks"] = get("/tasks")
tasks = (document["tasks"].get("tasks") or {}).get("task") or []
document["attempts"] = {task["id"]: get("/tasks/" + task["id"] + "/attempts") for task in tasks}
json.dump(document, sys.stdout, indent=1)
"""


def fetch_script(history_url: str, job_id: str, via: list[str], wait_s: float = 120.0) -> str:
    """Shell lines that print one job's combined REST document (see `parse_job_history`)."""
    if not JOB_ID.fullmatch(job_id):
        raise ValueError(f"not a MapReduce job id: {job_id!r}")
    if not HISTORY_URL.fullmatch(history_url):
        raise ValueError(f"not a JobHistory server URL: {history_url!r}")
    command = [*via, "python3", "-c", _FETCH_PROGRAM, history_url, job_id, str(wait_s)]
    return " ".join(shlex.quote(word) for word in command) + "\n"


@dataclass(frozen=True)
class AttemptPhases:
    attempt_id: str
    task_type: str
    state: str
    node: str
    start_ms: int
    map_s: float | None = None
    shuffle_s: float | None = None
    merge_s: float | None = None
    reduce_s: float | None = None


@dataclass(frozen=True)
class JobPhases:
    job_id: str
    state: str
    elapsed_s: float
    maps: int
    reduces: int
    attempts: list[AttemptPhases] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.state == "SUCCEEDED"

    def mean(self, phase: str) -> float | None:
        """Mean of a phase over successful attempts (None when no attempt has it)."""
        values = [
            getattr(attempt, f"{phase}_s")
            for attempt in self.attempts
            if attempt.state == "SUCCEEDED" and getattr(attempt, f"{phase}_s") is not None
        ]
        return fmean(values) if values else None

    @property
    def failed_attempts(self) -> int:
        """Attempts that failed (a task error, a lost disk): every attempt neither successful nor killed."""
        return sum(attempt.state not in ("SUCCEEDED", "KILLED") for attempt in self.attempts)

    @property
    def killed_attempts(self) -> int:
        """Attempts the framework killed: a speculative copy whose twin finished first, one on a
        node YARN lost, one preempted. No fault of the task, so not counted as failed."""
        return sum(attempt.state == "KILLED" for attempt in self.attempts)

    def metrics(self) -> dict[str, float]:
        """phase_map_s, phase_shuffle_s, phase_merge_s, phase_reduce_s (those present), job_elapsed_s."""
        result = {"job_elapsed_s": self.elapsed_s}
        for phase in ("map", "shuffle", "merge", "reduce"):
            value = self.mean(phase)
            if value is not None:
                result[f"phase_{phase}_s"] = value
        return result


def _field(data: dict[str, Any], name: str, where: str) -> Any:
    try:
        return data[name]
    except (KeyError, TypeError):
        raise ParseError(f"{where}: missing field '{name}'") from None


def _millis(data: dict[str, Any], name: str, where: str) -> int:
    """A time field (ms since the epoch, as JobHistory answers): ParseError naming it otherwise."""
    value = _field(data, name, where)
    try:
        if isinstance(value, bool | list | dict) or value is None:
            raise TypeError(type(value).__name__)
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise ParseError(f"{where}: field '{name}' is not a time in milliseconds: {value!r}") from None


def _seconds(later: int, earlier: int, where: str, what: str) -> float:
    """`later - earlier` in seconds; a span that ends before it starts is refused, not averaged."""
    if later < earlier:
        raise ParseError(f"{where}: {what} ends before it starts ({later} < {earlier} ms)")
    return (later - earlier) / 1000.0


def _object(value: Any, name: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ParseError(f"{where}: '{name}' is not an object but {type(value).__name__}")
    return value


# The job's own counts of the attempts of each kind, by attempt state.
_ATTEMPT_COUNTS = {"SUCCEEDED": "successful", "FAILED": "failed", "KILLED": "killed"}
_KINDS = {"MAP": ("Map", "maps"), "REDUCE": ("Reduce", "reduces")}


def parse_job_history(document: dict[str, Any], source: str = "job history") -> JobPhases:
    """Phases of every attempt and the job's state, from the combined REST document; ParseError
    (naming `source`) when a field is missing or the answers disagree with the job's counts."""
    job = _field(_field(document, "job", source), "job", f"{source}: job")
    attempts: list[AttemptPhases] = []
    attempts_by_task: dict[str, list[AttemptPhases]] = {}
    answers = _object(_field(document, "attempts", source), "attempts", source)
    for task_id, answer in sorted(answers.items()):
        where = f"{source}: attempts of {task_id}"
        for raw in _field(_field(answer, "taskAttempts", where), "taskAttempt", where) or []:
            task_type = str(_field(raw, "type", where))
            start, finish = _millis(raw, "startTime", where), _millis(raw, "finishTime", where)
            span = f"attempt {_field(raw, 'id', where)}"
            phases: dict[str, float | None] = {}
            if str(_field(raw, "state", where)) == "SUCCEEDED":
                if task_type == "MAP":
                    phases["map_s"] = _seconds(finish, start, where, span)
                elif task_type == "REDUCE":
                    shuffled = _millis(raw, "shuffleFinishTime", where)
                    merged = _millis(raw, "mergeFinishTime", where)
                    phases = {
                        "shuffle_s": _seconds(shuffled, start, where, f"{span}'s shuffle"),
                        "merge_s": _seconds(merged, shuffled, where, f"{span}'s merge"),
                        "reduce_s": _seconds(finish, merged, where, f"{span}'s reduce"),
                    }
            attempt = AttemptPhases(
                attempt_id=str(_field(raw, "id", where)),
                task_type=task_type,
                state=str(raw["state"]),
                node=str(raw.get("nodeHttpAddress", "")),
                start_ms=start,
                **phases,
            )
            attempts.append(attempt)
            attempts_by_task.setdefault(task_id, []).append(attempt)
    result = JobPhases(
        job_id=str(_field(job, "id", f"{source}: job")),
        state=str(_field(job, "state", f"{source}: job")),
        elapsed_s=_seconds(
            _millis(job, "finishTime", f"{source}: job"),
            _millis(job, "startTime", f"{source}: job"),
            f"{source}: job",
            "the job",
        ),
        maps=int(_field(job, "mapsTotal", f"{source}: job")),
        reduces=int(_field(job, "reducesTotal", f"{source}: job")),
        attempts=attempts,
    )
    # `/tasks` answers {"tasks": null} for a job without tasks, as the fetch program expects
    tasks = (_object(_field(document, "tasks", source), "tasks", source).get("tasks") or {}).get("task") or []
    listed = {str(_field(task, "id", f"{source}: tasks")): task for task in tasks}
    unanswered = sorted(set(listed) - set(answers))
    if unanswered:
        raise ParseError(
            f"{source}: the attempts of {unanswered[0]} are missing "
            f"({len(unanswered)} of {len(listed)} listed tasks without their attempts answer)"
        )
    unlisted = sorted(set(answers) - set(listed))
    if unlisted:
        raise ParseError(f"{source}: attempts of {unlisted[0]}, a task the tasks answer does not list")
    if result.succeeded:  # a job that did not succeed is refused by its caller; nothing to average
        _check_succeeded_job(job, listed, attempts_by_task, f"{source}: job {result.job_id}")
    return result


def _check_succeeded_job(
    job: dict[str, Any], listed: dict[str, Any], attempts_by_task: dict[str, list[AttemptPhases]], where: str
) -> None:
    """A succeeded job's counts agree with its listed tasks and attempts, task by task and in total."""
    for task_id, task in sorted(listed.items()):
        wanted = str(task.get("successfulAttempt") or "")
        if not any(
            a.attempt_id == wanted and a.state == "SUCCEEDED" for a in attempts_by_task.get(task_id, [])
        ):
            raise ParseError(
                f"{where}: task {task_id} succeeded with attempt '{wanted}', "
                "which its attempts answer does not hold as SUCCEEDED"
            )
    for kind, (label, plural) in _KINDS.items():
        total = int(_field(job, f"{plural}Total", where))
        completed = int(_field(job, f"{plural}Completed", where))
        kind_tasks = [task_id for task_id, task in listed.items() if str(_field(task, "type", where)) == kind]
        succeeded = sum(
            any(a.task_type == kind and a.state == "SUCCEEDED" for a in attempts_by_task.get(task_id, []))
            for task_id in kind_tasks
        )
        if not total == completed == len(kind_tasks) == succeeded:
            raise ParseError(
                f"{where}: {plural}Total {total} and {plural}Completed {completed}, but "
                f"{len(kind_tasks)} {kind} tasks listed and {succeeded} with a successful attempt"
            )
        for state, prefix in _ATTEMPT_COUNTS.items():
            name = f"{prefix}{label}Attempts"
            if name not in job:  # checked where the server reports it
                continue
            counted = sum(
                a.task_type == kind and a.state == state for task in attempts_by_task.values() for a in task
            )
            if int(job[name]) != counted:
                raise ParseError(f"{where}: {name} {job[name]}, but the attempts answers hold {counted}")


def load_job_history(path: Path) -> JobPhases:
    """`parse_job_history` of an archived file; errors name the file."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ParseError(f"{path}: not readable as JSON ({exc})") from exc
    return parse_job_history(document, str(path))
