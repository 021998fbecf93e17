"""The SSH transport's faults against a real, throw-away sshd: permanent ones fail at once,
transient ones are retried within a bounded budget, and a campaign's running jobs can be stopped."""

from __future__ import annotations

import errno
import getpass
import json
import logging
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace

import paramiko
import pytest
import tenacity.nap
from benchcamp.core.records import read_records
from benchcamp.core.spec import load_spec
from benchcamp.core.steps import ArchivedStep
from benchcamp.ops.lab.config import sshd_config_text
from benchcamp.ops.lab.layout import LAB_CONNECTION_ID
from benchcamp.ops.lab.services import ensure_ssh_keys
from benchcamp.pipeline.campaign.plan import context_for
from benchcamp.transport import ssh

SSHD = Path("/usr/sbin/sshd")
CONNECTION_ENV = f"AIRFLOW_CONN_{LAB_CONNECTION_ID.upper()}"
FAST = {"attempts": 3, "first_wait_s": 0.2, "budget_s": 5.0}
UNIT = {
    "study": "hibench_dse", "campaign": "faults", "environment": "local_lab", "workload": "wordcount",
    "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, "repetition": 1, "ladder": "tiny",
}  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Sshd:
    """A throw-away sshd on a free loopback port, configured as the lab's (key login, pinned host key)."""

    directory: Path
    port: int
    work: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(self.directory / "sshd_config")],
            stdout=subprocess.DEVNULL,
            stderr=(self.directory / "sshd.log").open("ab"),
        )
        deadline = time.monotonic() + 10
        while not _listening(self.port):
            assert time.monotonic() < deadline and self.process.poll() is None, (
                self.directory / "sshd.log"
            ).read_text()
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def host_key(self) -> str:
        return " ".join((self.directory / "ssh" / "host_ed25519.pub").read_text().split()[:2])

    def connection(self, **changes: object) -> str:
        extra = {
            "key_file": str(self.directory / "ssh" / "client_ed25519"),
            "look_for_keys": "false",
            "conn_timeout": 5,
            "no_host_key_check": "false",
            "host_key": self.host_key(),
        }
        extra.update(changes.pop("extra", {}))  # type: ignore[call-overload]
        connection: dict[str, object] = {
            "conn_type": "ssh",
            "host": "127.0.0.1",
            "port": self.port,
            "login": getpass.getuser(),
            "extra": {key: value for key, value in extra.items() if value is not None},
        }
        connection.update(changes)
        return json.dumps(connection)


@pytest.fixture
def sshd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made_by_setup: Callable[..., None]
) -> Iterator[Sshd]:
    """Not started: each test starts it (or not) and points the lab's connection id at it. A
    missing openssh-server fails the test (`make setup` installs it)."""
    made_by_setup(SSHD)
    import airflow.providers.ssh.hooks.ssh  # noqa: F401  (imported before any timing is taken)

    directory = tmp_path / "sshd"
    ensure_ssh_keys(directory / "ssh")
    (directory / "run").mkdir(parents=True)
    authorized = directory / "ssh" / "authorized_keys"
    authorized.write_text((directory / "ssh" / "client_ed25519.pub").read_text())
    authorized.chmod(0o600)
    server = Sshd(directory, _free_port(), tmp_path / "work")
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/local/bin:/usr/bin:/bin", "BENCHCAMP_WORK_DIR": str(server.work)}
    (directory / "sshd_config").write_text(sshd_config_text(directory, server.port, env))
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv(CONNECTION_ENV, server.connection())
    try:
        yield server
    finally:
        server.stop()


def test_permanent_and_transient_errors_are_told_apart() -> None:
    key = paramiko.Ed25519Key.generate() if hasattr(paramiko.Ed25519Key, "generate") else None
    other = paramiko.RSAKey.generate(1024)
    permanent = [
        paramiko.BadHostKeyException("127.0.0.1", other, key or other),
        paramiko.AuthenticationException("Authentication failed."),
        paramiko.ssh_exception.PasswordRequiredException("Private key file is encrypted"),
        paramiko.SSHException("Server '[127.0.0.1]:2322' not found in known_hosts"),
        socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        FileNotFoundError(errno.ENOENT, "No such file or directory", "/nonexistent/key"),
    ]
    transient = [
        paramiko.ssh_exception.NoValidConnectionsError({("127.0.0.1", 2322): ConnectionRefusedError()}),
        ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"),
        TimeoutError("timed out"),
        EOFError(),
        paramiko.SSHException("Error reading SSH protocol banner"),
        socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"),
        OSError(errno.EHOSTUNREACH, "No route to host"),
    ]
    assert all(ssh.permanent_cause(exc) for exc in permanent), [ssh.permanent_cause(e) for e in permanent]
    assert [ssh.permanent_cause(exc) for exc in transient] == [None] * len(transient)


def test_a_closed_port_is_tried_a_bounded_number_of_times_then_unreachable(
    sshd: Sshd, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=ssh.__name__)
    started = time.monotonic()
    with pytest.raises(ssh.TargetUnreachable, match=rf"127\.0\.0\.1:{sshd.port} .*\(3 tries over"):
        ssh.open_client(LAB_CONNECTION_ID, **FAST)
    assert time.monotonic() - started < 5
    tries = [record.getMessage() for record in caplog.records if "cannot reach" in record.getMessage()]
    assert len(tries) == 2 and "(try 1 of 3)" in tries[0], tries  # each failed try logged, not the last


def test_the_default_budget_fails_a_closed_port_after_four_tries_and_14_s_of_waits(
    sshd: Sshd, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget a step spends on a target that is down: 4 tries, waiting 2, 4 and 8 s between
    them (the waits tenacity asks for are recorded, not slept: a timed test would only measure
    the machine's load)."""
    waits: list[float] = []
    monkeypatch.setattr(tenacity.nap, "time", SimpleNamespace(sleep=waits.append))
    with pytest.raises(ssh.TargetUnreachable, match=r"\(4 tries over \d+ s\)"):
        ssh.open_client(LAB_CONNECTION_ID)
    assert waits == [2.0, 4.0, 8.0]
    assert sum(waits) < ssh.CONNECT_BUDGET_S  # the tries, not the budget, end it


def test_a_daemon_that_comes_back_within_the_budget_is_reached(sshd: Sshd) -> None:
    threading.Timer(0.5, sshd.start).start()
    hook, client = ssh.open_client(LAB_CONNECTION_ID, attempts=5, first_wait_s=0.5, budget_s=10)
    try:
        code, out, _ = hook.exec_ssh_client_command(client, "echo up", False, None, 10)
    finally:
        client.close()
    assert code == 0 and out.decode().strip() == "up"


def test_a_changed_host_key_is_refused_at_once(
    sshd: Sshd, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=ssh.__name__)
    sshd.start()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "other")], check=True)
    wrong = " ".join((tmp_path / "other.pub").read_text().split()[:2])
    monkeypatch.setenv(CONNECTION_ENV, sshd.connection(extra={"host_key": wrong}))
    started = time.monotonic()
    with pytest.raises(
        ssh.TargetRefused, match=rf"^target 127\.0\.0\.1:{sshd.port} .*refused: the host key changed"
    ):
        ssh.open_client(LAB_CONNECTION_ID)  # the default budget: a retry would take seconds
    assert not _retries(caplog)  # tried once: what no wait can change is not retried
    assert time.monotonic() - started < 60  # a hang guard only (CI's load stretches a handshake)


def test_a_key_not_in_authorized_keys_is_refused_at_once(
    sshd: Sshd, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=ssh.__name__)
    sshd.start()
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "stranger")], check=True
    )
    monkeypatch.setenv(CONNECTION_ENV, sshd.connection(extra={"key_file": str(tmp_path / "stranger")}))
    started = time.monotonic()
    with pytest.raises(ssh.TargetRefused, match=r"the login was refused .*authorized_keys"):
        ssh.open_client(LAB_CONNECTION_ID)
    assert not _retries(caplog)
    assert time.monotonic() - started < 60  # a hang guard only


def _retries(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The tries `open_client` logged as failed before trying again."""
    return [record.getMessage() for record in caplog.records if "cannot reach" in record.getMessage()]


def test_a_host_key_not_pinned_is_refused_at_once(sshd: Sshd, monkeypatch: pytest.MonkeyPatch) -> None:
    sshd.start()
    monkeypatch.setenv(CONNECTION_ENV, sshd.connection(extra={"host_key": None}))
    with pytest.raises(ssh.TargetRefused, match="host key is not pinned"):
        ssh.open_client(LAB_CONNECTION_ID)


def test_an_unknown_connection_or_host_is_refused_at_once(
    sshd: Sshd, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ssh.TargetRefused, match="connection 'no_such_connection' cannot be used"):
        ssh.open_client("no_such_connection")
    monkeypatch.setenv(CONNECTION_ENV, sshd.connection(host="no-such-host.invalid"))
    try:
        socket.getaddrinfo("no-such-host.invalid", 22)
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_AGAIN:
            pytest.skip("no resolver here: a temporary failure is (rightly) retried")
    with pytest.raises(ssh.TargetRefused, match="unknown host name"):
        ssh.open_client(LAB_CONNECTION_ID)


def test_a_work_dir_that_cannot_hold_the_job_refuses_the_step(sshd: Sshd, tmp_path: Path) -> None:
    sshd.start()
    (tmp_path / "a_file").write_text("not a directory")
    ctx = context_for(UNIT)
    ctx = replace(ctx, environment=ctx.environment.replace(work_dir=str(tmp_path / "a_file")))
    with pytest.raises(
        ssh.TargetRefused, match=rf"127\.0\.0\.1:{sshd.port} refused: step 'clean' cannot make"
    ):
        ssh.run_step(ctx, LAB_CONNECTION_ID, "clean", "true\n", tmp_path / "archive")


def test_a_refusal_exit_code_raises_target_refused_naming_the_target_and_cause(
    sshd: Sshd, tmp_path: Path
) -> None:
    sshd.start()
    body = "echo 'preflight: the largest cell needs 59055800 bytes but ... 41926656 free' >&2; exit 7\n"
    step = ssh.run_step(context_for(UNIT), LAB_CONNECTION_ID, "preflight", body, tmp_path / "pre")
    assert step.exit_code == 7
    with pytest.raises(ssh.TargetRefused) as refused:
        ssh.raise_if_failed("preflight", step, refusals={7})
    first = str(refused.value).splitlines()[0]
    assert first.startswith(f"target 127.0.0.1:{sshd.port} refused: step 'preflight' exited 7")
    assert "needs 59055800 bytes but ... 41926656 free" in first
    with pytest.raises(ssh.StepFailed, match=r"exited 7 on 127\.0\.0\.1:\d+: preflight: the largest"):
        ssh.raise_if_failed("preflight", step)


def _wait_for(path: Path, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def _group_alive(pgid: int, wait_s: float = 0.0) -> bool:
    """Whether process group `pgid` still has a process (after up to `wait_s` for it to go)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("body", "grace_s", "expected"),
    [("sleep 300\n", 5.0, "TERM"), ("trap '' TERM; sleep 300\n", 1.0, "KILL")],
)
def test_a_campaigns_running_job_is_stopped_with_its_process_group(
    sshd: Sshd, tmp_path: Path, body: str, grace_s: float, expected: str
) -> None:
    """A job started through the wrapper (as the execute step starts it) runs in its own process
    group; stopping the campaign ends it, TERM first, KILL when it ignores TERM."""
    sshd.start()
    ctx = context_for(UNIT)
    done: list[ArchivedStep] = []
    running = threading.Thread(
        target=lambda: done.append(
            ssh.run_step(ctx, LAB_CONNECTION_ID, "execute", body, tmp_path / "execute")
        )
    )
    running.start()
    job = sshd.work / ctx.unit_path / "jobs" / "execute-try1"
    _wait_for(job / "pgid")
    pgid = int((job / "pgid").read_text())

    def leader_runs_the_job() -> bool:
        """The group's leader is the job's shell (its cmdline is empty for a moment while it
        execs: seen once under CI's load, an IndexError)."""
        try:
            words = Path(f"/proc/{pgid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        return words[1:2] == [str(job / "command.sh").encode()]

    deadline = time.monotonic() + 30
    while not leader_runs_the_job() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group_alive(pgid) and leader_runs_the_job()
    stopped = ssh.stop_campaign_jobs(ctx.environment, "hibench_dse", "faults", grace_s=grace_s)
    assert [(job.pgid, job.signal, job.step, job.cell, job.repetition) for job in stopped] == [
        (pgid, expected, "execute", "wordcount_data_size_gb=0.012_maps=4_reduces=2", 1)
    ]
    assert not _group_alive(pgid, wait_s=2)
    running.join(timeout=30)
    assert done and done[0].exit_code == (143 if expected == "TERM" else 137)  # the wrapper saw it end
    assert ssh.stop_campaign_jobs(ctx.environment, "hibench_dse", "faults") == []  # nothing left


def test_stopping_leaves_a_reused_process_group_id_alone(sshd: Sshd, tmp_path: Path) -> None:
    """A job without status whose pgid now names someone else's process group is not signalled."""
    sshd.start()
    ctx = context_for(UNIT)
    stranger = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        job = sshd.work / ctx.unit_path / "jobs" / "execute-try1"
        job.mkdir(parents=True)
        (job / "pgid").write_text(f"{stranger.pid}\n")
        assert ssh.stop_campaign_jobs(ctx.environment, "hibench_dse", "faults", grace_s=0.5) == []
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
    shutil.rmtree(job)


def _fake_hadoop(bin_dir: Path, df_available: int, jar_fails: bool = False) -> None:
    """A `hadoop` on the sshd's PATH answering `fs -df` and `dfsadmin` like the real CLI."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    jar = (
        'echo "java.io.IOException: All datanodes are bad. Aborting..." >&2; exit 1'
        if jar_fails
        else "exit 0"
    )
    (bin_dir / "hadoop").write_text(
        "#!/bin/bash\n"
        'case "$1 $2" in\n'
        f'  "fs -df") printf "Filesystem Size Used Available Use%%\\nhdfs://x 1 0 {df_available} 0%%\\n" ;;\n'
        '  "dfsadmin -safemode") echo "Safe mode is OFF" ;;\n'
        f"  jar*) {jar} ;;\n"
        "  *) exit 0 ;;\n"
        "esac\n"
    )
    (bin_dir / "hadoop").chmod(0o755)


def test_a_preflight_refusing_for_space_fails_at_once_and_the_repetitions_say_why(
    sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchcamp.pipeline import archive
    from benchcamp.pipeline.campaign.steps import run_execute
    from benchcamp.pipeline.campaign.target import run_preflight, untouched_target

    sshd.start()
    _fake_hadoop(tmp_path / "bin", df_available=41926656)
    # the preflight's leftover sweep goes to the fake `hadoop`, never to the lab's WebHDFS (where it
    # would delete what a campaign running on the lab has made)
    spec = load_spec("hibench_dse")
    without_webhdfs = spec.model_copy(
        update={"environments": [env.replace(webhdfs_url=None) for env in spec.environments]}
    )
    monkeypatch.setattr("benchcamp.pipeline.campaign.plan.load_spec", lambda study: without_webhdfs)
    unit = {**UNIT, "ladder": "small", "params": {"data_size_gb": 0.044, "maps": 4, "reduces": 2}}
    with pytest.raises(ssh.TargetRefused) as refused:
        run_preflight([unit])
    first = str(refused.value).splitlines()[0]
    assert first.startswith(f"target 127.0.0.1:{sshd.port} refused: step 'preflight' exited 7")
    assert "needs 118111601 bytes (its data x 1.25 headroom) but the data file system has 41926656" in first
    with pytest.raises(ssh.StepFailed, match="the preflight on target 'local_lab' failed: target 127"):
        run_execute(unit)
    assert untouched_target([unit]) is None  # the preflight ran there: the cleanup runs
    (preflight, repetition) = archive.failure_reasons("hibench_dse", "faults")
    assert (preflight.step, preflight.kind, preflight.exit_code) == ("preflight", "refused", 7)
    assert "41926656 bytes free" in preflight.stderr_tail
    assert (repetition.step, repetition.kind, repetition.exit_code) == ("preflight", "refused", 7)
    assert "41926656 bytes free" in repetition.message


def test_an_execute_that_exits_non_zero_leaves_its_reason_and_stderr(sshd: Sshd, tmp_path: Path) -> None:
    from benchcamp.pipeline import archive
    from benchcamp.pipeline.campaign.plan import rep_dir_for
    from benchcamp.pipeline.campaign.steps import run_execute

    sshd.start()
    _fake_hadoop(tmp_path / "bin", df_available=10**12, jar_fails=True)
    ctx = context_for(UNIT)
    rep = rep_dir_for(ctx)
    for step in ("clean", "generate"):
        (rep / step / "try1").mkdir(parents=True)
        (rep / step / "try1" / "meta.json").write_text('{"exit_code": 0}')
    (rep / "generate" / "try1" / "verified.json").write_text("{}")
    with pytest.raises(
        ssh.StepFailed, match=r"step 'execute' exited 1 on 127\.0\.0\.1:\d+: java.io.IOException"
    ):
        run_execute(UNIT)
    failure = archive.read_failure(rep)
    assert failure is not None and (failure.step, failure.kind, failure.exit_code) == ("execute", "failed", 1)
    assert "All datanodes are bad" in failure.stderr_tail and failure.archive == str(rep / "execute" / "try1")
    assert {record.status for record in read_records(rep / archive.RECORDS_FILE)} == {"failed"}


def test_a_failed_jobs_reason_is_its_root_cause_not_its_last_log_line() -> None:
    """A WordCount whose DataNode was killed mid-job (recorded on the lab by the lab-faults
    module) ends its stderr with "INFO mapreduce.Job: Counters: 0"; the reason is the job's root
    cause, which names the dead DataNode. A script's own last line is kept as it is."""
    recorded = (
        Path(__file__).parents[1] / "data" / "hadoop" / "wordcount_datanode_killed.stderr.log"
    ).read_text()
    assert ssh.last_line(recorded).endswith("INFO mapreduce.Job: Counters: 0")
    cause = ssh.cause_line(recorded)
    assert cause.startswith("Caused by: org.apache.hadoop.hdfs.BlockMissingException: Could not obtain block")
    assert "Dead nodes:  DatanodeInfoWithStorage[127.0.0.1:9866" in cause
    script = "26/11/26 17:01:18 WARN x: y\npreflight: HDFS is still in safe mode after 120 s\n"
    assert ssh.cause_line(script) == "preflight: HDFS is still in safe mode after 120 s"
    assert ssh.cause_line("26/11/26 INFO a: b\n") == "26/11/26 INFO a: b"  # no error line: the last


def test_a_failed_jobs_counters_do_not_hide_its_root_cause() -> None:
    """A job killed after its maps had read some input prints its counters (indented lines after
    "Counters: 12"), as CI's run of the lab-faults module did ("Bytes Read=2813952" was taken for
    the reason); the recorded failure followed by the counters a recorded WordCount printed."""
    data = Path(__file__).parents[1] / "data" / "hadoop"
    recorded = (data / "wordcount_datanode_killed.stderr.log").read_text().rstrip()
    wordcount = (data / "wordcount_0.012.stderr.log").read_text().splitlines()
    start = next(i for i, line in enumerate(wordcount) if "Counters: 18" in line)
    counters = [line for line in wordcount[start + 1 :][:20] if line[:1] == "\t"]
    assert len(counters) >= 10
    failed = recorded.replace("Counters: 0", "Counters: 18") + "\n" + "\n".join(counters) + "\n"
    assert ssh.last_line(failed).startswith(counters[-1].strip())
    assert ssh.cause_line(failed).startswith("Caused by: org.apache.hadoop.hdfs.BlockMissingException")
    # a script's own indented last line is still its reason
    assert ssh.cause_line("x\n\tplain indented reason\n") == "plain indented reason"


def test_a_quoted_value_holding_a_newline_and_a_delimiter_line_stays_one_value(tmp_path: Path) -> None:
    """The wrapper and the stop script reach the target's shell as a here-document: a spec value
    quoted in them may hold a newline, and a line equal to a fixed delimiter would end the
    document there and run the rest as commands. Run by a real bash."""
    import shlex

    marker = tmp_path / "ran"
    value = f"/srv/b\nBENCHCAMP_WRAPPER\nBENCHCAMP_STOP\ntouch {marker}\n"
    script = f"printf '%s' {shlex.quote(value)}\n"
    result = subprocess.run(
        ["bash", "-c", ssh.bash_heredoc(script)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == value
    assert not marker.exists()
