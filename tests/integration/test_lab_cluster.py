"""The lab cluster as a user meets a real one (ops/lab/cluster.py): five hosts in network
namespaces, reached only over SSH at the gateway's address and the master's HTTP addresses.

One module-scoped cluster: `lab cluster up` from nothing (HDFS formatted), a WordCount submitted
from the gateway whose maps JobHistory shows on several workers, its input with three replicas
(fsck), then `lab cluster down` leaving no process and no namespace behind.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest
from benchcamp.ops.lab import cluster, yarn_home
from benchcamp.ops.toolkit import namespaces

pytestmark = pytest.mark.integration

BENCHCAMP = str(Path(sys.executable).with_name("benchcamp"))


def _benchcamp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCHCAMP, *args], capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def cluster_up() -> Iterator[str]:
    _benchcamp("lab", "cluster", "down")
    import shutil

    shutil.rmtree(cluster.cluster_dir(), ignore_errors=True)  # from nothing: HDFS formatted
    result = _benchcamp("lab", "cluster", "up")
    assert result.returncode == 0, result.stdout + result.stderr
    yield result.stdout
    down = _benchcamp("lab", "cluster", "down")
    assert down.returncode == 0, down.stdout + down.stderr
    assert not {name for name in namespaces() if name.startswith(cluster.PREFIX)}
    left = [daemon.name for daemon in cluster.daemons() if daemon.pid() is not None]
    left += [host for host in cluster.ADDRESSES if cluster.sshd(host).pid() is not None]
    assert not left, f"lab cluster down left {left} running"


def _gateway(command: str, timeout_s: float = 300.0) -> tuple[int, str]:
    """A command on the gateway over SSH, its host key pinned as an Airflow connection pins it."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.load_host_keys(str(cluster.known_hosts()))
    client.connect(
        cluster.ADDRESSES["gateway"], port=cluster.SSH_PORT, username="root",
        key_filename=str(cluster.client_key()), look_for_keys=False, allow_agent=False, timeout=10,
    )  # fmt: skip
    try:
        _, stdout, stderr = client.exec_command(command, timeout=timeout_s)
        code = stdout.channel.recv_exit_status()
        return code, stdout.read().decode() + stderr.read().decode()
    finally:
        client.close()


def _json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 (the cluster's address)
        return dict(json.load(answer))


def test_up_shows_every_host_healthy_within_the_budget(cluster_up: str) -> None:
    status = cluster.cluster_status()
    assert status.healthy, status.format()
    assert [(each.host, each.name) for each in status.daemons if each.name != "sshd"] == [
        ("master", "namenode"), ("master", "resourcemanager"), ("master", "jobhistory"),
        ("worker1", "datanode"), ("worker1", "nodemanager"), ("worker2", "datanode"),
        ("worker2", "nodemanager"), ("worker3", "datanode"), ("worker3", "nodemanager"),
    ]  # fmt: skip
    assert {each.host for each in status.daemons if each.name == "sshd"} == set(cluster.ADDRESSES)
    assert status.total_rss_mb < cluster.MEMORY_BUDGET_MB, status.format()
    assert "3 live DataNode(s)" in cluster_up and "3 active NodeManager(s)" in cluster_up


def test_a_wordcount_from_the_gateway_runs_on_several_workers_with_three_replicas(cluster_up: str) -> None:
    examples = yarn_home() / "lib" / "hadoop-mapreduce-examples-3.4.2.jar"
    inputs = [
        Path(__file__).resolve().parents[2] / name for name in ("README.md", "Makefile", "pyproject.toml")
    ]
    script = " && ".join(
        [
            "hostname -I",
            "hadoop fs -mkdir -p /benchcamp/cluster-test/in",
            f"hadoop fs -put -f {' '.join(shlex.quote(str(path)) for path in inputs)} /benchcamp/cluster-test/in",
            f"hadoop jar {shlex.quote(str(examples))} wordcount /benchcamp/cluster-test/in /benchcamp/cluster-test/out",
            "hadoop org.apache.hadoop.hdfs.tools.DFSck /benchcamp/cluster-test/in -files -blocks -replicaDetails",
        ]
    )
    code, output = _gateway(script)
    assert code == 0, output[-4000:]
    assert output.split()[0] == cluster.ADDRESSES["gateway"]  # the command ran on the gateway
    assert "Status: HEALTHY" in output and "Default replication factor:\t3" in output, output[-3000:]
    files = [line for line in output.splitlines() if line.startswith("/benchcamp/cluster-test/in/")]
    assert len(files) == 3 and all("replication=3" in line for line in files), files
    blocks = [line for line in output.splitlines() if " len=" in line]
    assert blocks and all("Live_repl=3" in line for line in blocks), blocks
    holders = [set(re.findall(r"DatanodeInfoWithStorage\[([\d.]+):", line)) for line in blocks]
    assert all(len(each) == 3 for each in holders), blocks  # three replicas on three DataNodes
    job = next(word for word in output.split() if word.startswith("job_"))
    history = f"{cluster.url('jobhistory_http')}/ws/v1/history/mapreduce/jobs/{job}"
    assert _json(history)["job"]["state"] == "SUCCEEDED"  # type: ignore[index]
    tasks = _json(f"{history}/tasks")["tasks"]["task"]  # type: ignore[index]
    maps = [task["id"] for task in tasks if task["type"] == "MAP"]
    assert len(maps) == 3
    nodes = {
        attempt["nodeHttpAddress"].split(":")[0]
        for task in maps
        for attempt in _json(f"{history}/tasks/{task}/attempts")["taskAttempts"]["taskAttempt"]  # type: ignore[index]
    }
    workers = {cluster.ADDRESSES[worker] for worker in cluster.WORKERS}
    assert len(nodes) >= 2 and nodes <= workers, nodes
