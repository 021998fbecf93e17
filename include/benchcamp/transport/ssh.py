"""Run a step on a target through Airflow's SSH hook and archive what it produced.

The same code path serves the local lab (sshd on 127.0.0.1) and real clusters:
only the Airflow connection differs. Each step runs in its own job directory on
the target; the wrapper times the job there (as HiBench does), so SSH set-up is
not part of any duration. Afterwards every file of the job directory is copied
into the local raw archive before anything is parsed.
"""

from __future__ import annotations

import json
import secrets
import shlex
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchcamp.core.steps import TOOLS_DIR, ArchivedStep, Command, RunContext, render
from benchcamp.platforms.hadoop import EXAMPLES_JAR, TESTS_JAR

if TYPE_CHECKING:
    import paramiko

STDERR_TAIL_LINES = 30
DEFAULT_STEP_TIMEOUT_S = 6 * 3600.0
_STATUS_MARK = "BENCHCAMP_STATUS"
_JOB_MARK = "BENCHCAMP_JOB"


class TargetUnreachable(RuntimeError):
    """The SSH connection could not be opened; names host and port."""


class StepFailed(RuntimeError):
    """A command on the target exited non-zero; carries the archive path and stderr tail."""


def _work_dir_expression(ctx: RunContext) -> str:
    if ctx.environment.transport.work_dir:
        return shlex.quote(ctx.environment.transport.work_dir)
    return '"${BENCHCAMP_WORK_DIR:-$HOME/benchcamp}"'


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


def wrapper_script(ctx: RunContext, step: str, try_number: int, body: str, after: str = "") -> str:
    """The wrapper writes the body to the job dir and times it there.

    `after` runs once the timing is taken, in the same session (`after.sh`, output in
    `after.log`): housekeeping such as deleting the repetition's data costs no extra SSH session
    and is never part of a duration. Its failure is logged, not fatal: the campaign's cleanup
    checks the data is gone.
    """
    delimiter = f"BENCHCAMP_EOF_{secrets.token_hex(8)}"
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
            'rm -rf "$JOB" && mkdir -p "$JOB" || exit 97',
            f'echo "{_JOB_MARK} $JOB"',
            f"cat > \"$JOB\"/command.sh <<'{delimiter}'",
            body + delimiter,
            'cd "$JOB"',
            "start=$(date +%s.%N)",
            'bash "$JOB"/command.sh > "$JOB"/stdout.log 2> "$JOB"/stderr.log',
            "rc=$?",
            "end=$(date +%s.%N)",
            'printf "%s %s %s\\n" "$rc" "$start" "$end" > "$JOB"/status',
            *epilogue,
            f'echo "{_STATUS_MARK} $rc $start $end"',
        ]
    )
    return wrapper + "\n"


def _ssh_hook(conn_id: str) -> Any:
    from airflow.providers.ssh.hooks.ssh import SSHHook

    return SSHHook(ssh_conn_id=conn_id, conn_retry_attempts=1)


def target_address(conn_id: str) -> str:
    """`host:port` of an SSH connection, for messages (no connection is opened)."""
    try:
        from airflow.sdk import BaseHook

        connection = BaseHook.get_connection(conn_id)
        return f"{connection.host}:{connection.port or 22}"
    except Exception:  # an unknown connection still gets a message naming its id
        return f"connection '{conn_id}'"


def _connect(hook: Any, conn_id: str) -> paramiko.SSHClient:
    try:
        return hook.get_conn()
    except Exception as exc:  # paramiko raises many types; all mean "not reachable"
        host = getattr(hook, "remote_host", "?")
        port = getattr(hook, "port", "?")
        raise TargetUnreachable(
            f"cannot reach target {host}:{port} through connection '{conn_id}': {type(exc).__name__}: {exc}"
        ) from exc


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
    hook = _ssh_hook(conn_id)
    client = _connect(hook, conn_id)
    try:
        if tools:
            _upload_tools(client, ctx, tools)
        exit_status, raw_out, raw_err = hook.exec_ssh_client_command(
            client,
            "bash -s <<'BENCHCAMP_WRAPPER'\n" + wrapper + "BENCHCAMP_WRAPPER\n",
            False,
            None,
            timeout_s,
        )
        out = raw_out.decode("utf-8", "replace")
        job, status = _parse_marks(out)
        if job is None or status is None:
            (archive_dir / "ssh_stdout.log").write_text(out, encoding="utf-8")
            (archive_dir / "ssh_stderr.log").write_text(raw_err.decode("utf-8", "replace"), encoding="utf-8")
            raise StepFailed(
                f"step '{step}' did not start on the target (wrapper exit {exit_status}); "
                f"see {archive_dir}/ssh_stderr.log:\n{stderr_tail(raw_err.decode('utf-8', 'replace'))}"
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
    (archive_dir / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    if "command.sh" not in files:
        (archive_dir / "command.sh").write_text(body, encoding="utf-8")
    return ArchivedStep(
        directory=archive_dir, exit_code=rc, started_at=started, finished_at=finished, files=files
    )


def raise_if_failed(step_name: str, step: ArchivedStep) -> None:
    """Fail the task with the stderr tail and the archived path, as a user needs to debug it."""
    if step.exit_code != 0:
        raise StepFailed(
            f"step '{step_name}' exited {step.exit_code} on the target; raw outputs archived in "
            f"{step.directory}\n--- stderr (last {STDERR_TAIL_LINES} lines) ---\n{stderr_tail(step.text('stderr.log'))}"
        )
