"""The lab's sshd through Airflow's own SSH hook: host key verified, Hadoop on the target, errors clear."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.ops import lab
from benchcamp.ops.lab.services import STORE_SERVICES, stores_enabled
from benchcamp.pipeline.campaign.plan import context_for
from benchcamp.pipeline.campaign.steps import run_execute
from benchcamp.transport import ssh

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def running_lab(shared_lab: Callable[[], lab.LabStatus]) -> lab.LabStatus:
    """The session's lab, every service healthy; once per module (each `lab_up` costs about 9 s of
    status checks): the one test here that kills a service starts it again before it ends."""
    return shared_lab()


def _use_connection(monkeypatch: pytest.MonkeyPatch, **changes: object) -> None:
    name = f"AIRFLOW_CONN_{lab.LAB_CONNECTION_ID.upper()}"
    connection = json.loads(lab.airflow_connection_env()[name])
    extra = connection["extra"]
    extra.update(changes.pop("extra", {}))  # type: ignore[call-overload]
    connection.update(changes)
    monkeypatch.setenv(name, json.dumps(connection))


def test_lab_is_healthy_within_its_memory_budget(running_lab: lab.LabStatus) -> None:
    yarn = ["resourcemanager", "nodemanager", "jobhistory"] if lab.yarn_enabled() else []
    stores = [service.name for service in STORE_SERVICES] if stores_enabled() else []
    assert [service.name for service in running_lab.services] == [
        "sshd",
        "namenode",
        "datanode",
        "hiveserver2",
        *yarn,
        *stores,
    ]
    for service in running_lab.services:
        assert service.healthy and service.pid and service.rss_mb > 0, running_lab.format()
    # The budget is the core lab's; the YCSB stores (started on request) have their own checks.
    core_rss = sum(service.rss_mb for service in running_lab.services if service.name not in stores)
    assert 0 < core_rss < lab.MEMORY_BUDGET_MB, running_lab.format()
    text = running_lab.format()
    assert "total RSS" in text and "safe mode off" in text and "Hive 4.0.1" in text
    if yarn:
        assert "1 active node(s) at the RM" in text and "REST ok" in text
    again = lab.lab_up()  # starting twice is harmless: same processes
    assert [s.pid for s in again.services] == [s.pid for s in running_lab.services]


def test_a_killed_datanode_is_reported_then_restarted(running_lab: lab.LabStatus) -> None:
    import os
    import signal
    import time

    pid = lab.read_pid("datanode")
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    while Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z":
        time.sleep(0.1)
    status = lab.lab_status()
    datanode = status.service("datanode")
    assert not datanode.alive and not status.healthy
    assert "crashed or killed" in datanode.detail and "datanode.log" in datanode.detail
    assert "stopped" in status.format()
    restarted = lab.lab_up()
    assert restarted.service("datanode").healthy and restarted.service("datanode").pid != pid


@pytest.mark.skipif(not lab.yarn_enabled(), reason="the lab's YARN needs root (a network namespace)")
def test_yarn_listens_only_inside_its_namespace(running_lab: lab.LabStatus) -> None:
    """The shuffle server binds every interface: inside the namespace that is loopback only."""
    listening = subprocess.run(
        ["ip", "netns", "exec", "benchcamp-yarn", "ss", "-Htln"], capture_output=True, text=True, check=True
    ).stdout
    addresses = {line.split()[3].rsplit(":", 1)[0] for line in listening.splitlines() if line.strip()}
    assert addresses, listening
    interfaces = subprocess.run(
        ["ip", "netns", "exec", "benchcamp-yarn", "ip", "-o", "link"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert [line.split(":")[1].strip() for line in interfaces.splitlines()] == ["lo"]
    with socket.socket() as probe:  # and nothing of it is reachable from the root namespace
        probe.settimeout(1)
        assert probe.connect_ex(("127.0.0.1", lab.port("resourcemanager_http"))) != 0


def test_hiveserver2_answers_through_the_airflow_hive_hook(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airflow.providers.apache.hive.hooks.hive import HiveServer2Hook

    for name, value in lab.airflow_connection_env().items():
        monkeypatch.setenv(name, value)
    rows = HiveServer2Hook(hiveserver2_conn_id=lab.LAB_HIVE_CONNECTION_ID).get_records("SELECT 1 + 1")
    assert rows == [(2,)]


def test_a_table_gone_before_its_describe_is_passed_over_only_where_allowed(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The leftover scan lists tables, then describes each: another client may drop one between."""
    from benchcamp.platforms.hive import HiveStatement
    from benchcamp.transport.hive import run_statements

    for name, value in lab.airflow_connection_env().items():
        monkeypatch.setenv(name, value)
    gone = HiveStatement("gone", "DESCRIBE FORMATTED bc_never_made_table", fetch=True, missing_ok=True)
    after = HiveStatement("after", "SELECT 1 + 1", fetch=True)
    step = run_statements(lab.LAB_HIVE_CONNECTION_ID, [gone, after], tmp_path / "allowed")
    assert step.exit_code == 0
    assert json.loads(step.text("results.json")) == {"gone": [], "after": [[2]]}
    assert "BENCHCAMP_SKIPPED gone: " in step.text("operation.log")
    strict = HiveStatement("gone", gone.sql, fetch=True)
    step = run_statements(lab.LAB_HIVE_CONNECTION_ID, [strict, after], tmp_path / "strict")
    assert step.exit_code == 1 and "Table not found" in step.text("stderr.log")


def test_ssh_hook_reaches_hadoop_on_the_target(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airflow.providers.ssh.hooks.ssh import SSHHook

    _use_connection(monkeypatch)
    hook = SSHHook(ssh_conn_id=lab.LAB_CONNECTION_ID)
    code, out, _ = hook.exec_ssh_client_command(hook.get_conn(), "hadoop version | head -n 1", False, None)
    assert code == 0 and out.decode().strip() == "Hadoop 3.4.2"


def test_wrong_host_key_is_refused(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from airflow.providers.ssh.hooks.ssh import SSHHook

    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "other")], check=True)
    wrong = " ".join((tmp_path / "other.pub").read_text().split()[:2])
    _use_connection(monkeypatch, extra={"host_key": wrong})
    with pytest.raises(Exception, match="(?i)host key|BadHostKey|not found in known_hosts"):
        SSHHook(ssh_conn_id=lab.LAB_CONNECTION_ID, conn_retry_attempts=1).get_conn()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_unreachable_target_fails_naming_host_and_port(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    port = _free_port()
    _use_connection(monkeypatch, port=port)
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path))
    unit = {
        "study": "hibench_dse", "campaign": "unreachable", "environment": "local_lab", "workload": "wordcount",
        "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, "repetition": 1, "ladder": "tiny",
    }  # fmt: skip
    with pytest.raises(ssh.TargetUnreachable, match=f"127.0.0.1:{port}"):
        ssh.run_step(context_for(unit), lab.LAB_CONNECTION_ID, "clean", "true\n", tmp_path / "x")


def test_failing_command_fails_the_task_with_stderr_and_keeps_a_failed_record(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Execute without generated input: Hadoop exits non-zero; the repetition is recorded as failed."""
    _use_connection(monkeypatch)
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path))
    unit = {
        "study": "hibench_dse", "campaign": "broken", "environment": "local_lab", "workload": "dfsio_write",
        "params": {"data_size_gb": 0.012}, "repetition": 1, "ladder": "tiny",
    }  # fmt: skip
    rep_dir = tmp_path / "hibench_dse" / "broken" / "dfsio_write_data_size_gb=0.012" / "rep1"
    (rep_dir / "clean" / "try1").mkdir(parents=True)
    (rep_dir / "clean" / "try1" / "meta.json").write_text('{"exit_code": 0}')
    ctx = context_for(unit)
    body = ssh.commands_body([["hadoop", "jar", "/nonexistent/tests.jar", "TestDFSIO", "-write"]])
    step = ssh.run_step(ctx, lab.LAB_CONNECTION_ID, "execute", body, rep_dir / "execute" / "try1")
    assert step.exit_code != 0 and (step.directory / "stderr.log").exists()
    with pytest.raises(
        ssh.StepFailed, match="(?s)exited 255 .* raw outputs archived in .*--- stderr.*JAR does not exist"
    ):
        ssh.raise_if_failed("execute", step)
    assert run_execute  # the DAG's execute wraps the same path and writes the failed record first


def test_a_study_that_generates_once_per_cell_measures_every_repetition_on_one_input(
    running_lab: lab.LabStatus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`regenerate_data: false` on the real lab, through the steps the DAG's tasks call: the first
    repetition generates the cell's input (HDFS `<cell>/input`), the second reuses it without an SSH
    session, each WordCount reads it and writes its own output (removed after its timing), and the
    campaign's cleanup removes the input and forgets it."""
    from benchcamp.core.records import read_jsonl
    from benchcamp.core.spec import load_spec
    from benchcamp.pipeline.campaign.conf import check_conf
    from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
    from benchcamp.pipeline.campaign.steps import run_clean, run_execute, run_generate, shared_input_marker
    from benchcamp.pipeline.campaign.target import run_cleanup, run_preflight

    _use_connection(monkeypatch)
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path))
    # hibench_dse's spec under a name of its own: its preflight sweeps no other module's campaign
    # of hibench_dse (the other stream's), and theirs leave this input alone
    once = load_spec("hibench_dse").model_copy(update={"study": "lab_once", "regenerate_data": False})
    monkeypatch.setattr("benchcamp.pipeline.campaign.plan.load_spec", lambda study: once)
    units = [
        {"study": "lab_once", "campaign": "once", "environment": "local_lab", "workload": "wordcount",
         "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, "repetition": rep, "ladder": "tiny"}
        for rep in (1, 2)
    ]  # fmt: skip
    check_conf(once, {"ladder": "tiny", "workloads": ["wordcount"]})
    run_preflight(units)
    ctx = context_for(units[0])
    input_dir = f"{ctx.environment.hadoop.data_root.rstrip('/')}/{ctx.cell_path}/input"  # type: ignore[union-attr]
    env = {**lab.target_shell_env()}

    def exists(path: str) -> bool:
        return (
            subprocess.run(["hadoop", "fs", "-test", "-e", path], env={**os.environ, **env}).returncode == 0
        )

    generated = []
    for unit in units:
        run_clean(unit)
        generated.append(run_generate(unit))
        assert exists(input_dir), "the cell's input stays between repetitions"
        run_execute(unit)
    assert generated[1].startswith("input generated once for the cell") and generated[0] in generated[1]
    rep2 = rep_dir_for(context_for(units[1]))
    assert not (rep2 / "generate" / "try1" / "stdout.log").exists(), "no SSH session for a reused input"
    for unit in units:
        rep_dir = rep_dir_for(context_for(unit))
        records = read_jsonl((rep_dir / "records.jsonl").read_text(), str(rep_dir))
        assert [r.status for r in records if r.metric == "duration_s"] == ["ok"]
    run_cleanup(units)
    assert not exists(input_dir)
    assert not shared_input_marker(ctx).exists()
