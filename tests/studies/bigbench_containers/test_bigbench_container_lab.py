"""The BigBench study's `lab_container` environment, for real: podman, its own network, the lab's
services inside, reached through the environment's Airflow connections; `down` leaves nothing.

Needs root (podman, mmdebstrap). The first run builds the root filesystem (about a minute more).
A container that was already running before the test (another session's campaign) is used and
left running; otherwise the test brings it down and checks that no container, process, mount,
network namespace, cgroup, bridge or veth is left (BENCHCAMP_KEEP_LAB is about the shared lab, not
this container: a campaign on it starts it again through its controller_setup).
BENCHCAMP_CONTAINER_DOWN=1 brings it down and checks even a container that was running: the
bigbench lane (tests/lanes.toml) runs this module so, in the session after the BigBench campaign's,
on the container it started, rather than starting it once more for a minute.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator

import pytest
from benchcamp.ops import lab
from benchcamp.studies.bigbench_containers import container_lab as c

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="podman and mmdebstrap need root here"),
]


@pytest.fixture(scope="module")
def container(
    request: pytest.FixtureRequest, monkeypatch_module: pytest.MonkeyPatch
) -> Iterator[c.ContainerStatus]:
    """The container up and healthy, its connections in the environment (as Airflow reads them).

    A host lab that a session before left up (the bigbench lane's campaign, `--keep-lab`) is this
    session's to stop: `shared_lab` is brought in, so the session's end stops it and checks that no
    process outlived it, after this fixture has brought the container down. A lab that is not up
    is not started only to be stopped.
    """
    if any(service.alive for service in lab.lab_status().services):
        request.getfixturevalue("shared_lab")
    was_running = c.status().healthy
    status = c.up()
    for name, value in c.lab_connections().items():
        monkeypatch_module.setenv(name, value)
    yield status
    if was_running and os.environ.get("BENCHCAMP_CONTAINER_DOWN") != "1":
        return
    bridge = c.bridge_file().read_text().strip()
    assert c.down() == []
    assert c.container_state() == "absent"
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    assert f" {bridge}:" not in links and f"master {bridge}" not in links, links
    assert str(c.rootfs_dir()) not in open("/proc/mounts").read()
    assert c.down() == []  # idempotent


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_services_answer_on_the_container_address_within_its_memory_cap(container: c.ContainerStatus) -> None:
    assert container.healthy, container.format()
    assert "Hive 4.0.1" in container.hive[1] and "bigbench-lab" in container.ssh[1]
    assert 0 < container.memory_mb < container.memory_limit_mb == c.memory_bytes(c.MEMORY_LIMIT) / 2**20, (
        container.format()
    )
    again = c.up()  # idempotent: the same container, no restart
    assert again.healthy
    assert (
        c.container_id_file()
        .read_text()
        .strip()
        .startswith(
            c.podman("container", "inspect", "--format", "{{.Id}}", c.CONTAINER_NAME).stdout.strip()[:12]
        )
    )


def test_hive_through_the_environment_connection(container: c.ContainerStatus) -> None:
    from airflow.providers.apache.hive.hooks.hive import HiveServer2Hook

    hook = HiveServer2Hook(hiveserver2_conn_id=c.HIVE_CONNECTION_ID)
    hook.run("DROP TABLE IF EXISTS container_probe")
    hook.run("CREATE TABLE container_probe (x INT) STORED AS TEXTFILE")
    hook.run("INSERT INTO container_probe VALUES (1), (2), (39)")  # a MapReduce job in the container
    assert hook.get_records("SELECT count(*), sum(x) FROM container_probe") == [(3, 42)]
    hook.run("DROP TABLE container_probe")


def test_ssh_through_the_environment_connection(container: c.ContainerStatus) -> None:
    from airflow.providers.ssh.hooks.ssh import SSHHook

    connection = json.loads(os.environ[f"AIRFLOW_CONN_{c.SSH_CONNECTION_ID.upper()}"])
    assert connection["extra"]["host_key"].startswith("ssh-ed25519 ")  # pinned, not auto-accepted
    client = SSHHook(ssh_conn_id=c.SSH_CONNECTION_ID, conn_retry_attempts=1).get_conn()
    try:
        _, stdout, _ = client.exec_command(
            'hostname; cat /etc/debian_version; hadoop fs -ls / | tail -n +2; echo "$BENCHCAMP_WORK_DIR"'
        )
        lines = stdout.read().decode().split("\n")
        assert stdout.channel.recv_exit_status() == 0
    finally:
        client.close()
    assert lines[0] == c.HOSTNAME and lines[1].startswith("12.")
    assert any(line.endswith(" /benchcamp") for line in lines), lines
    assert str(c.state_dir() / "work") in lines


def test_facts_mark_a_container_with_its_limits(container: c.ContainerStatus) -> None:
    facts = c.facts()
    assert facts["environment_kind"] == "container"
    assert facts["container_runtime"] == "podman" and facts["container_runtime_version"].startswith("4.")
    assert facts["oci_runtime"] == "runc" and facts["oci_runtime_version"]
    assert facts["cgroup_memory_limit_bytes"] == str(c.memory_bytes(c.MEMORY_LIMIT))
    assert facts["rootfs_recipe_sha256"] == c.recipe_digest()
    assert len(facts["rootfs_packages_sha256"]) == 64 and int(facts["rootfs_packages"]) > 100
    assert facts["kernel"] == os.uname().release  # a container shares the host's kernel
    assert facts["rootfs_distribution"].startswith("debian 12.")
    assert facts["java"].startswith('openjdk version "17.')


def test_the_facts_reach_the_environment_capture_over_ssh(container: c.ContainerStatus) -> None:
    """`bigbench-container up` (the environment's controller_setup) writes the facts where the
    facts_command reads them inside, over the environment's SSH connection."""
    from airflow.providers.ssh.hooks.ssh import SSHHook

    written = c.ensure()
    client = SSHHook(ssh_conn_id=c.SSH_CONNECTION_ID, conn_retry_attempts=1).get_conn()
    try:
        _, stdout, _ = client.exec_command('cat "$BENCHCAMP_WORK_DIR"/../run/container-facts.txt')
        text = stdout.read().decode()
        assert stdout.channel.recv_exit_status() == 0
    finally:
        client.close()
    assert dict(line.split("=", 1) for line in text.splitlines()) == written


def test_a_controller_step_runs_inside_against_the_container_hdfs(container: c.ContainerStatus) -> None:
    """exec_argv: 127.0.0.1 in there is the container's NameNode; the work dir is shared with the host."""
    out = c.work_dir() / "exec-probe.json"
    out.unlink(missing_ok=True)
    script = (
        "import sys, urllib.request\n"
        "url = 'http://127.0.0.1:9870/webhdfs/v1/?op=LISTSTATUS'\n"
        "open(sys.argv[1], 'w').write(urllib.request.urlopen(url).read().decode())\n"
    )
    subprocess.run(c.exec_argv(["python3", "-c", script, str(out)]), check=True, timeout=60)
    names = [status["pathSuffix"] for status in json.loads(out.read_text())["FileStatuses"]["FileStatus"]]
    assert "benchcamp" in names
    out.unlink()
