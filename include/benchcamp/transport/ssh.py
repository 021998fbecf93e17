"""Run a step on a target through Airflow's SSH hook and archive what it produced.

The same code path serves the local lab (sshd on 127.0.0.1) and real clusters:
only the Airflow connection differs. Each step runs in its own job directory on
the target; the wrapper times the job there (as HiBench does), so SSH set-up is
not part of any duration. Afterwards every file of the job directory is copied
into the local raw archive before anything is parsed.
"""

from __future__ import annotations

import errno
import json
import logging
import re
import secrets
import shlex
import socket
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
)

from benchcamp.core.paths import slug, write_atomically
from benchcamp.core.steps import TOOLS_DIR, ArchivedStep, Command, RunContext, render
from benchcamp.platforms.hadoop import EXAMPLES_JAR, TESTS_JAR
from benchcamp.transport.environment import FACTS_AFTER, FACTS_BEFORE, recheck_line

if TYPE_CHECKING:
    import paramiko

    from benchcamp.core.spec import Environment

STDERR_TAIL_LINES = 30
DEFAULT_STEP_TIMEOUT_S = 6 * 3600.0
_STATUS_MARK = "BENCHCAMP_STATUS"
_JOB_MARK = "BENCHCAMP_JOB"
# The wrapper exits 97 when it cannot make the job directory (work dir full or not writable).
WRAPPER_NO_JOB_DIR = 97
# Opening a connection: a refused port, a reset or a timeout is tried again (waits 2, 4, 8 s), at
# most CONNECT_ATTEMPTS times, and no wait that would end after CONNECT_BUDGET_S is taken: a target
# that is down fails a step in about 14 s (a closed port), at most 15 s + one connect timeout (a
# silent one). Airflow does not retry on top (see dag_factory.repetition_group).
CONNECT_ATTEMPTS = 4
CONNECT_FIRST_WAIT_S = 2.0
CONNECT_BUDGET_S = 15.0
STOP_GRACE_S = 5.0

log = logging.getLogger(__name__)
T = TypeVar("T")


class TargetUnreachable(RuntimeError):
    """The connection could not be opened, still after the bounded retries; names host and port."""


class TargetRefused(RuntimeError):
    """The target refused in a way waiting cannot change (a changed or unknown host key, a refused
    key, an unknown host, a preflight refusal such as too little space): the step fails at once,
    without retries. The first line names host:port and the cause."""


class StepFailed(RuntimeError):
    """A command on the target exited non-zero; carries the archive path and stderr tail."""


def work_dir_expression(environment: Environment) -> str:
    """The target's work directory as a shell word: the spec's, else $BENCHCAMP_WORK_DIR or ~/benchcamp."""
    if environment.transport.work_dir:
        return shlex.quote(environment.transport.work_dir)
    return '"${BENCHCAMP_WORK_DIR:-$HOME/benchcamp}"'


def _work_dir_expression(ctx: RunContext) -> str:
    return work_dir_expression(ctx.environment)


def _input_expression(ctx: RunContext) -> str:
    """Where generated input lives: the repetition's data directory, or with the study's
    `regenerate_data: false` the cell's `input` directory (beside its repetitions), kept between them."""
    if ctx.spec.regenerate_data:
        return '"$DATA"'
    env = ctx.environment
    cell = shlex.quote(ctx.cell_path)
    return (
        f"{shlex.quote(env.hadoop.data_root.rstrip('/'))}/{cell}/input"
        if env.hadoop.data_root
        else f'"$WORK"/{cell}/input'
    )


def prologue(ctx: RunContext, step: str, try_number: int) -> str:
    """Shell lines defining WORK, UNIT, DATA, INPUT, JOB and the Hadoop jar locations."""
    env = ctx.environment
    unit = shlex.quote(ctx.unit_path)
    data = (
        f"{shlex.quote(env.hadoop.data_root.rstrip('/'))}/{unit}" if env.hadoop.data_root else '"$UNIT"/data'
    )
    lines = [
        f"export WORK={_work_dir_expression(ctx)}",
        f'export UNIT="$WORK"/{unit}',
        f"export DATA={data}",
        f"export INPUT={_input_expression(ctx)}",
        f'export JOB="$UNIT"/jobs/{shlex.quote(step)}-try{int(try_number)}',
    ]
    for variable, configured, pattern in (
        (EXAMPLES_JAR, env.hadoop.examples_jar, "hadoop-mapreduce-examples-*.jar"),
        (TESTS_JAR, env.hadoop.tests_jar, "hadoop-mapreduce-client-jobclient-*-tests.jar"),
    ):
        if configured:
            lines.append(f"export {variable}={shlex.quote(configured)}")
        else:
            lines.append(
                f'if [ -z "${{{variable}:-}}" ]; then {variable}=$(ls "${{HADOOP_HOME:-/usr/lib/hadoop}}"'
                f"/share/hadoop/mapreduce/{pattern} 2>/dev/null | head -n 1); fi; export {variable}"
            )
    return "\n".join(lines)


def commands_body(commands: list[Command]) -> str:
    """A script that stops at the first failing command."""
    return "set -e -o pipefail\n" + "\n".join(render(command) for command in commands) + "\n"


# The target's load around a timed step (docs/fair-comparisons.md), archived with its output:
# `cores=` the online CPUs, `before=` and `after=` /proc/loadavg read right before the step
# starts and right after it ends (one line each; empty when the target has no /proc/loadavg).
LOAD_FILE = "load.txt"
LOAD_COMMAND = 'echo "cores=$(nproc 2>/dev/null)"; echo "loadavg=$(cat /proc/loadavg 2>/dev/null)"'


def heredoc_delimiter() -> str:
    """A here-document's end line no text a step carries can hold by chance or on purpose."""
    return f"BENCHCAMP_EOF_{secrets.token_hex(8)}"


def bash_heredoc(script: str) -> str:
    """`bash -s` reading `script` from a quoted here-document whose delimiter is random: a value
    quoted inside the script may hold a newline, and a fixed delimiter on a line of its own would
    end the document there and run the rest unquoted."""
    delimiter = heredoc_delimiter()
    ending = "" if script.endswith("\n") else "\n"
    return f"bash -s <<'{delimiter}'\n{script}{ending}{delimiter}\n"


def wrapper_script(ctx: RunContext, step: str, try_number: int, body: str, after: str = "") -> str:
    """The wrapper writes the body to the job dir and times it there.

    `after` runs once the timing is taken, in the same session (`after.sh`, output in
    `after.log`): housekeeping such as deleting the repetition's data costs no extra SSH session
    and is never part of a duration. Its failure is logged, not fatal: the campaign's cleanup
    checks the data is gone.
    """
    delimiter = heredoc_delimiter()
    # The delimiter must start its own line: a body without a final newline would swallow it.
    body, after = (text if not text or text.endswith("\n") else text + "\n" for text in (body, after))
    epilogue = []
    if after:
        epilogue = [
            f"cat > \"$JOB\"/after.sh <<'{delimiter}'",
            after + delimiter,
            'bash "$JOB"/after.sh > "$JOB"/after.log 2>&1 || echo "after.sh exited $? (see after.log)" >> "$JOB"/after.log',
        ]
    wrapper = "\n".join(
        [
            "set -u",
            prologue(ctx, step, try_number),
            f'rm -rf "$JOB" && mkdir -p "$JOB" || exit {WRAPPER_NO_JOB_DIR}',
            f'echo "{_JOB_MARK} $JOB"',
            f"cat > \"$JOB\"/command.sh <<'{delimiter}'",
            body + delimiter,
            'cd "$JOB"',
            *(_LOAD_BEFORE if step == "execute" else ()),
            *(_facts_around(ctx, FACTS_BEFORE) if step == "execute" else ()),
            "start=$(date +%s.%N)",
            # The body runs in a session of its own, whose id (its process group) is written to
            # "$JOB"/pgid: stop_campaign_jobs stops the whole job by it, whatever became of this
            # SSH session. Without setsid (not Linux) the job has no pgid and cannot be stopped so.
            "if command -v setsid >/dev/null 2>&1; then",
            '  setsid -w bash -c \'echo $$ > "$1"/pgid; exec bash "$1"/command.sh\' benchcamp-job "$JOB" '
            '> "$JOB"/stdout.log 2> "$JOB"/stderr.log',
            "else",
            '  bash "$JOB"/command.sh > "$JOB"/stdout.log 2> "$JOB"/stderr.log',
            "fi",
            "rc=$?",
            "end=$(date +%s.%N)",
            *(_LOAD_AFTER if step == "execute" else ()),
            *(_facts_around(ctx, FACTS_AFTER) if step == "execute" else ()),
            'printf "%s %s %s\\n" "$rc" "$start" "$end" > "$JOB"/status',
            *epilogue,
            f'echo "{_STATUS_MARK} $rc $start $end"',
        ]
    )
    return wrapper + "\n"


_LOAD_BEFORE = (
    f'{{ echo "cores=$(nproc 2>/dev/null)"; echo "before=$(cat /proc/loadavg 2>/dev/null)"; }} > "$JOB"/{LOAD_FILE}',
)


def _facts_around(ctx: RunContext, file: str) -> tuple[str, ...]:
    """facts_command's output written to `file` in the job folder (`recheck_facts`), or nothing."""
    line = recheck_line(ctx, file)
    return (line,) if line else ()


_LOAD_AFTER = (f'echo "after=$(cat /proc/loadavg 2>/dev/null)" >> "$JOB"/{LOAD_FILE}',)


def read_output(conn_id: str, command: str, timeout_s: float = 30.0) -> str:
    """The standard output and error of one short shell command on the target (e.g. its facts
    around a timed step that does not run through the wrapper); raises like any session that fails."""
    _, client = open_client(conn_id, attempts=2, first_wait_s=1.0, budget_s=5.0)
    try:
        _, stdout, stderr = client.exec_command(command, timeout=timeout_s)
        return stdout.read().decode("utf-8", "replace") + stderr.read().decode("utf-8", "replace")
    finally:
        client.close()


def read_load(conn_id: str) -> tuple[str, str]:
    """(cores, /proc/loadavg) of the target now, for a timed step that does not run through the
    wrapper (HiveServer2's queries, a workload's own step); raises like any session that fails."""
    _, client = open_client(conn_id, attempts=2, first_wait_s=1.0, budget_s=5.0)
    try:
        _, stdout, _ = client.exec_command(LOAD_COMMAND, timeout=15)
        facts = dict(line.split("=", 1) for line in stdout.read().decode().splitlines() if "=" in line)
    finally:
        client.close()
    return facts.get("cores", ""), facts.get("loadavg", "")


def _ssh_hook(conn_id: str) -> Any:
    from airflow.providers.ssh.hooks.ssh import SSHHook

    # One try per call: the retries are ours (connect_with_retries), classified and logged.
    return SSHHook(ssh_conn_id=conn_id, conn_retry_attempts=1)


def target_address(conn_id: str) -> str:
    """`host:port` of an SSH connection, for messages (no connection is opened)."""
    try:
        from airflow.sdk import BaseHook

        connection = BaseHook.get_connection(conn_id)
        return f"{connection.host}:{connection.port or 22}"
    except Exception:  # an unknown connection still gets a message naming its id
        return f"connection '{conn_id}'"


def permanent_cause(exc: BaseException) -> str | None:
    """Why opening a connection can never succeed by waiting, or None when a retry may help.

    Permanent: a changed host key, a host key not pinned, a refused or unreadable key, an
    unknown host name, a peer with no common algorithm. Transient: refused or reset connections,
    timeouts, EOF or no banner (a daemon restarting), anything else.
    """
    import paramiko

    if isinstance(exc, paramiko.BadHostKeyException):
        return (
            f"the host key changed (got {exc.key.get_name()} {exc.key.get_base64()[:24]}..., pinned "
            f"{exc.expected_key.get_base64()[:24]}...): check the host, then update the connection's host_key"
        )
    if isinstance(exc, paramiko.AuthenticationException):
        return f"the login was refused ({type(exc).__name__}: {exc}): is the key in authorized_keys?"
    if isinstance(exc, paramiko.ssh_exception.IncompatiblePeer):
        return f"no algorithm in common with the server ({exc})"
    if isinstance(exc, paramiko.SSHException) and "known_hosts" in str(exc):
        return f"the host key is not pinned ({exc}): set the connection's host_key extra"
    if isinstance(exc, socket.gaierror) and exc.errno not in (socket.EAI_AGAIN,):
        return f"unknown host name ({exc})"
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)) and exc.filename:
        return f"cannot read {exc.filename} ({exc.strerror})"
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM):
        return f"{exc}"
    return None


def connect_with_retries(
    connect: Callable[[], T],
    where: str,
    *,
    attempts: int | None = None,
    first_wait_s: float | None = None,
    budget_s: float | None = None,
) -> T:
    """`connect()`, tried again on transient errors (exponential waits, bounded by `attempts` and
    `budget_s`, each failure logged); raises TargetRefused at once for a permanent error and
    TargetUnreachable once the budget is spent. `where` names the target (e.g. "target host:port
    through connection 'x'"); unset bounds are the module's CONNECT_* constants."""
    attempts = CONNECT_ATTEMPTS if attempts is None else attempts
    first_wait_s = CONNECT_FIRST_WAIT_S if first_wait_s is None else first_wait_s
    budget_s = CONNECT_BUDGET_S if budget_s is None else budget_s

    def logged(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "cannot reach %s (try %d of %d): %s: %s; trying again in %.1f s",
            where, state.attempt_number, attempts, type(error).__name__, error, wait,
        )  # fmt: skip

    retrying = Retrying(
        retry=retry_if_exception(lambda exc: permanent_cause(exc) is None),
        stop=stop_after_attempt(attempts) | stop_before_delay(budget_s),
        wait=wait_exponential(multiplier=first_wait_s, max=4 * first_wait_s),
        before_sleep=logged,
        reraise=True,
    )
    started = datetime.now(UTC)
    try:
        return retrying(connect)
    except Exception as exc:
        cause = permanent_cause(exc)
        if cause is not None:
            raise TargetRefused(f"{where} refused: {cause}") from exc
        tries = retrying.statistics.get("attempt_number", 1)
        spent = (datetime.now(UTC) - started).total_seconds()
        raise TargetUnreachable(
            f"cannot reach {where}: {type(exc).__name__}: {exc} ({tries} tries over {spent:.0f} s)"
        ) from exc


def open_client(conn_id: str, **retry: Any) -> tuple[Any, paramiko.SSHClient]:
    """The SSH hook and an open client of connection `conn_id` (see `connect_with_retries`;
    `retry` overrides its budget). An unknown or malformed connection is refused at once."""
    try:
        hook = _ssh_hook(conn_id)
    except Exception as exc:  # the connection's definition, not the network: waiting cannot help
        raise TargetRefused(
            f"target {target_address(conn_id)} refused: connection '{conn_id}' cannot be used: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    where = f"target {hook.remote_host}:{hook.port or 22} through connection '{conn_id}'"
    return hook, connect_with_retries(hook.get_conn, where, **retry)


def _parse_marks(stdout: str) -> tuple[str | None, tuple[int, float, float] | None]:
    job: str | None = None
    status: tuple[int, float, float] | None = None
    for line in stdout.splitlines():
        if line.startswith(_JOB_MARK + " "):
            job = line[len(_JOB_MARK) + 1 :].strip()
        elif line.startswith(_STATUS_MARK + " "):
            rc, start, end = line.split()[1:4]
            status = (int(rc), float(start), float(end))
    return job, status


def _fetch_directory(client: paramiko.SSHClient, remote: str, local: Path) -> dict[str, Path]:
    local.mkdir(parents=True, exist_ok=True)
    fetched: dict[str, Path] = {}
    with client.open_sftp() as sftp:
        for entry in sftp.listdir_attr(remote):
            if entry.st_mode is not None and stat.S_ISREG(entry.st_mode):
                target = local / entry.filename
                sftp.get(f"{remote}/{entry.filename}", str(target))
                fetched[entry.filename] = target
    return fetched


def stderr_tail(text: str, lines: int = STDERR_TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _upload_tools(client: paramiko.SSHClient, ctx: RunContext, tools: list[Path]) -> None:
    """Copy project-built tools (e.g. the HiveBench generator jar) to "$WORK"/.benchcamp-tools/."""
    command = (
        f'WORK={_work_dir_expression(ctx)}; mkdir -p "$WORK/{TOOLS_DIR}" && cd "$WORK/{TOOLS_DIR}" && pwd'
    )
    _, stdout, stderr = client.exec_command(command, timeout=30)
    remote = stdout.read().decode().strip()
    if stdout.channel.recv_exit_status() != 0 or not remote:
        raise StepFailed(f"cannot create the tools directory on the target: {stderr.read().decode()[-500:]}")
    with client.open_sftp() as sftp:
        for tool in tools:
            if not tool.exists():
                raise StepFailed(f"tool {tool} is not built (run `make setup`)")
            sftp.put(str(tool), f"{remote}/{tool.name}")


def run_step(
    ctx: RunContext,
    conn_id: str,
    step: str,
    body: str,
    archive_dir: Path,
    try_number: int = 1,
    timeout_s: float = DEFAULT_STEP_TIMEOUT_S,
    tools: list[Path] | None = None,
    after: str = "",
) -> ArchivedStep:
    """Run the script `body` as one timed job on the target and archive the job directory.

    Returns the archived step whatever the exit code; the caller decides whether a
    non-zero exit fails the task (after it has recorded the failed repetition).
    `tools` are copied to the target first (see `workloads.base.tool_path`); `after` runs
    untimed once the body is done (see `wrapper_script`).
    """
    wrapper = wrapper_script(ctx, step, try_number, body, after)
    archive_dir.mkdir(parents=True, exist_ok=True)
    (archive_dir / "wrapper.sh").write_text(wrapper, encoding="utf-8")
    hook, client = open_client(conn_id)
    try:
        if tools:
            _upload_tools(client, ctx, tools)
        exit_status, raw_out, raw_err = hook.exec_ssh_client_command(
            client,
            bash_heredoc(wrapper),
            False,
            None,
            timeout_s,
        )
        out = raw_out.decode("utf-8", "replace")
        job, status = _parse_marks(out)
        if job is None or status is None:
            err = raw_err.decode("utf-8", "replace")
            (archive_dir / "ssh_stdout.log").write_text(out, encoding="utf-8")
            (archive_dir / "ssh_stderr.log").write_text(err, encoding="utf-8")
            if exit_status == WRAPPER_NO_JOB_DIR:  # a full or read-only work dir: waiting does not help
                raise TargetRefused(
                    f"target {hook.remote_host}:{hook.port or 22} refused: step '{step}' cannot make its "
                    f"job directory in the work dir: {last_line(err)}; see {archive_dir}/ssh_stderr.log"
                )
            raise StepFailed(
                f"step '{step}' did not start on the target (wrapper exit {exit_status}); "
                f"see {archive_dir}/ssh_stderr.log:\n{stderr_tail(err)}"
            )
        files = _fetch_directory(client, job, archive_dir)
    finally:
        client.close()
    rc, start, end = status
    started = datetime.fromtimestamp(start, UTC)
    finished = datetime.fromtimestamp(end, UTC)
    meta = {
        "step": step,
        "connection": conn_id,
        "remote_job_dir": job,
        "exit_code": rc,
        "started_at": started.isoformat(),
        "finished_at": finished.isoformat(),
        "duration_s": end - start,
        "try_number": try_number,
    }
    write_atomically(archive_dir / "meta.json", json.dumps(meta, indent=2))  # its end, for pollers
    if "command.sh" not in files:
        (archive_dir / "command.sh").write_text(body, encoding="utf-8")
    return ArchivedStep(
        directory=archive_dir, exit_code=rc, started_at=started, finished_at=finished, files=files
    )


def last_line(text: str) -> str:
    """The last non-empty line of `text` (an error's usual place), or '' for none."""
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


_LOG_LEVEL = re.compile(r"\b(INFO|DEBUG)\b")
_ERROR = re.compile(r"\b\w*(Exception|Error)\b:")


def cause_line(text: str) -> str:
    """The line of a failed step's stderr that says why: its last line, unless that is a log
    line at INFO (a Hadoop job's "Counters: 0" after it failed, or its indented counters after
    "Counters: 12", which belong to that log line); then the last exception's line (a "Caused
    by:" is last, so the root cause wins), else the last line all the same."""
    last = last_line(_without_trailing_counters(text))
    if not _LOG_LEVEL.search(last):
        return last
    errors = [
        line.strip()
        for line in text.splitlines()
        if _ERROR.search(line) and not line.lstrip().startswith("at ")
    ]
    return errors[-1] if errors else last


def _without_trailing_counters(text: str) -> str:
    """`text` without the indented counter lines (group names, `Name=value`) that a Hadoop job
    prints after its "Counters: N" log line, so that log line is the one judged."""
    lines = text.rstrip().splitlines()
    end = len(lines)
    while end > 0 and lines[end - 1][:1] in ("\t", " ") and not lines[end - 1].lstrip().startswith("at "):
        end -= 1
    if 0 < end < len(lines) and _COUNTERS.search(lines[end - 1]):
        return "\n".join(lines[:end])
    return text


_COUNTERS = re.compile(r"\bCounters: \d+\s*$")


# What a job prints when its file system is full (HDFS's quotas, a local disk): not transient.
FULL_MARKS = ("DSQuotaExceededException", "NSQuotaExceededException", "No space left on device")


def raise_if_failed(step_name: str, step: ArchivedStep, refusals: Collection[int] = ()) -> None:
    """Fail the task with the stderr tail and the archived path, as a user needs to debug it.

    An exit code in `refusals` (e.g. the preflight's "not enough space") raises TargetRefused:
    the step's own verdict that waiting cannot change, so nothing retries it.
    """
    if step.exit_code == 0:
        return
    stderr = step.text("stderr.log")
    where = _step_target(step)
    first = f"step '{step_name}' exited {step.exit_code} on {where}"
    cause = cause_line(stderr)
    details = (
        f"raw outputs archived in {step.directory}\n"
        f"--- stderr (last {STDERR_TAIL_LINES} lines) ---\n{stderr_tail(stderr)}"
    )
    if step.exit_code in refusals:
        raise TargetRefused(f"target {where} refused: {first}: {cause}; {details}")
    full = next(
        (line.strip() for line in stderr.splitlines() if any(mark in line for mark in FULL_MARKS)), None
    )
    if full:  # the campaign's file system is full: a retry would fail the same way
        raise TargetRefused(f"target {where} refused: {first}: the file system is full: {full}; {details}")
    raise StepFailed(f"{first}: {cause}; {details}" if cause else f"{first}; {details}")


def _step_target(step: ArchivedStep) -> str:
    """host:port of the connection an archived step ran through (its meta.json), for messages."""
    try:
        meta = json.loads((step.directory / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "the target"
    return target_address(str(meta.get("connection"))) if meta.get("connection") else "the target"


_STOPPED_MARK = "BENCHCAMP_STOPPED"


@dataclass(frozen=True)
class StoppedJob:
    """A campaign's job stopped on a target: its job folder there, its process group, and the
    signal that ended it (TERM within the grace, else KILL)."""

    job_dir: str
    pgid: int
    signal: str

    @property
    def step(self) -> str:
        """The step the job ran (`execute` for `.../jobs/execute-try2`)."""
        return self.job_dir.rstrip("/").rsplit("/", 1)[-1].rsplit("-try", 1)[0]

    @property
    def cell(self) -> str:
        """The cell's folder name, as in the local archive (`campaign_dir/<cell>/rep<N>`)."""
        return self.job_dir.rstrip("/").split("/")[-4]

    @property
    def repetition(self) -> int:
        return int(self.job_dir.rstrip("/").split("/")[-3].removeprefix("rep"))


def stop_jobs_script(work_dir: str, campaign_path: str, grace_s: float = STOP_GRACE_S) -> str:
    """Shell lines that stop every running job under "$WORK"/`campaign_path`: TERM to the process
    group of each job with a pgid and no status, KILL to those still alive after `grace_s`.

    A pgid is only signalled while it is still the job's: either its leader is the job's
    `command.sh`, or the leader is gone and the group lives on (Linux never reuses a pid that
    still names a process group). One line per stopped job: `BENCHCAMP_STOPPED pgid TERM|KILL dir`.
    """
    polls = max(1, int(grace_s / 0.2))
    return "\n".join(
        [
            "set -u",
            f"campaign={work_dir}/{shlex.quote(campaign_path)}",
            "pgs=(); jobs=()",
            'for file in "$campaign"/*/rep*/jobs/*/pgid; do',
            '  [ -f "$file" ] || continue',
            '  job=${file%/pgid}; [ -e "$job"/status ] && continue',
            '  pg=$(cat "$file"); case "$pg" in ""|*[!0-9]*) continue ;; esac',
            '  kill -0 -- "-$pg" 2>/dev/null || continue',
            '  if [ -r /proc/"$pg"/cmdline ] && ! tr "\\0" "\\n" < /proc/"$pg"/cmdline | grep -qxF "$job/command.sh"; then continue; fi',
            '  kill -TERM -- "-$pg" 2>/dev/null && { pgs+=("$pg"); jobs+=("$job"); }',
            "done",
            f"for _ in $(seq {polls}); do",
            '  alive=0; for pg in "${pgs[@]}"; do kill -0 -- "-$pg" 2>/dev/null && alive=1; done',
            '  [ "$alive" = 0 ] && break; sleep 0.2',
            "done",
            'for i in "${!pgs[@]}"; do',
            '  how=TERM; if kill -KILL -- "-${pgs[$i]}" 2>/dev/null; then how=KILL; fi',
            f'  echo "{_STOPPED_MARK} ${{pgs[$i]}} $how ${{jobs[$i]}}"',
            "done",
            "for _ in $(seq 10); do",  # killed processes are gone once their parents reaped them
            '  alive=0; for pg in "${pgs[@]}"; do kill -0 -- "-$pg" 2>/dev/null && alive=1; done',
            '  [ "$alive" = 0 ] && break; sleep 0.2',
            "done",
            "",
        ]
    )


def stop_campaign_jobs(
    environment: Environment, study: str, campaign: str, grace_s: float = STOP_GRACE_S, **retry: Any
) -> list[StoppedJob]:
    """Stop a campaign's running jobs on one target (its process groups; see `stop_jobs_script`),
    over one SSH session, and say which: for `benchcamp run`'s SIGINT/SIGTERM handler, so an
    interrupted campaign leaves nothing running. `retry` bounds the connection's retries
    (`connect_with_retries`); an unreachable target raises as for any step.
    """
    from benchcamp.core.paths import check_component

    campaign_path = "/".join(check_component(slug(name), "path part") for name in (study, campaign))
    script = stop_jobs_script(work_dir_expression(environment), campaign_path, grace_s)
    hook, client = open_client(environment.transport.connection, **retry)
    try:
        _, out, err = hook.exec_ssh_client_command(client, bash_heredoc(script), False, None, grace_s + 30)
    finally:
        client.close()
    if err.strip():
        log.warning("stopping the jobs of %s on %s: %s", campaign_path, environment.name, err.decode())
    stopped = []
    for line in out.decode("utf-8", "replace").splitlines():
        if line.startswith(_STOPPED_MARK + " "):
            _, pgid, signal_name, job_dir = line.split(" ", 3)
            stopped.append(StoppedJob(job_dir, int(pgid), signal_name))
    return stopped
