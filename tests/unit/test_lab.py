"""The lab's generated configuration (no services started here)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from benchcamp.ops import lab


def test_sshd_config_binds_loopback_keys_only_and_sets_the_target_env(tmp_path: Path) -> None:
    text = lab.sshd_config_text(tmp_path, 2299, {"PATH": "/x/bin:/usr/bin", "BENCHCAMP_WORK_DIR": "/w"})
    lines = text.splitlines()
    assert "ListenAddress 127.0.0.1" in lines and "Port 2299" in lines
    assert "PasswordAuthentication no" in lines and "KbdInteractiveAuthentication no" in lines
    assert f"HostKey {tmp_path / 'ssh' / 'host_ed25519'}" in lines
    assert 'SetEnv "PATH=/x/bin:/usr/bin" "BENCHCAMP_WORK_DIR=/w"' in lines


def test_connection_pins_the_host_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.setenv("BENCHCAMP_LAB_SSH_PORT", "2299")
    (tmp_path / "ssh").mkdir()
    (tmp_path / "ssh" / "host_ed25519.pub").write_text(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample benchcamp-lab\n"
    )
    connections = lab.airflow_connection_env()
    connection = json.loads(connections["AIRFLOW_CONN_BENCHCAMP_LAB_SSH"])
    assert connection["host"] == "127.0.0.1" and connection["port"] == 2299
    assert connection["extra"]["host_key"] == "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample"
    assert connection["extra"]["no_host_key_check"] == "false"
    assert connection["extra"]["key_file"] == str(tmp_path / "ssh" / "client_ed25519")


def test_target_env_puts_the_lab_hadoop_first() -> None:
    env = lab.target_shell_env()
    assert env["PATH"].split(":")[0].endswith("lab/bin")
    assert env["HADOOP_CONF_DIR"] == str(lab.lab_dir() / "conf" / "hadoop")


def test_hive_connection_points_at_the_lab_hiveserver2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_HIVESERVER2_PORT", "10099")
    connection = json.loads(lab.airflow_connection_env()["AIRFLOW_CONN_BENCHCAMP_LAB_HIVE"])
    assert connection["conn_type"] == "hiveserver2"
    assert (connection["host"], connection["port"]) == ("127.0.0.1", 10099)


def test_every_hadoop_and_hive_address_is_loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchcamp.transport.environment import parse_site_properties

    monkeypatch.setenv("BENCHCAMP_LAB_NAMENODE_PORT", "18020")
    files = lab.hadoop_site_files(tmp_path)
    properties = parse_site_properties("".join(files.values()))
    assert properties["fs.defaultFS"] == "hdfs://127.0.0.1:18020"
    addresses = {name: value for name, value in properties.items() if "address" in name or "host" in name}
    assert len(addresses) >= 8
    assert all(value.startswith("127.0.0.1") for value in addresses.values()), addresses
    assert properties["dfs.namenode.name.dir"] == str(tmp_path / "hdfs" / "name")
    hive = parse_site_properties(lab.hive_site(tmp_path))
    assert hive["hive.server2.thrift.bind.host"] == "127.0.0.1"
    assert hive["hive.execution.engine"] == "mr"
    assert str(tmp_path) in hive["javax.jdo.option.ConnectionURL"]


def test_yarn_addresses_are_loopback_and_tasks_run_java17_opens(tmp_path: Path) -> None:
    from benchcamp.transport.environment import parse_site_properties

    properties = parse_site_properties("".join(lab.yarn_site_files(tmp_path).values()))
    addresses = {
        name: value
        for name, value in properties.items()
        if name.endswith(("address", "hostname", "bind-host"))
    }
    assert len(addresses) >= 9
    assert all(value.startswith("127.0.0.1") for value in addresses.values()), addresses
    assert properties["mapreduce.framework.name"] == "yarn"
    assert properties["fs.defaultFS"] == "file:///"  # HDFS is outside the namespace
    assert properties["yarn.nodemanager.aux-services"] == "mapreduce_shuffle"
    for opts in (
        "yarn.app.mapreduce.am.command-opts",
        "mapreduce.map.java.opts",
        "mapreduce.reduce.java.opts",
    ):
        assert "--add-opens=java.base/java.lang=ALL-UNNAMED" in properties[opts]
    assert properties["yarn.app.mapreduce.am.staging-dir"] == str(tmp_path / "yarn" / "staging")


def test_asking_whether_yarn_can_run_leaves_no_namespace_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """`lab status` after `lab down` asks whether the lab's YARN can have its network namespace:
    the answer (here the real `ip netns`, as root) must not leave a namespace made to find out.
    YARN's own is renamed so that a lab running beside this test keeps its namespace."""
    from benchcamp.ops.lab import services
    from benchcamp.ops.toolkit import namespaces

    name = f"benchcamp-test-{os.getpid()}"
    monkeypatch.setattr(services, "YARN_NETNS", name)
    before = namespaces() if os.geteuid() == 0 else set()
    problem = services._namespace_problem.__wrapped__()
    if os.geteuid() != 0:
        assert problem == "a network namespace needs root"
        return
    assert problem is None
    assert namespaces() == before
    assert not any(each.startswith(name) for each in namespaces())


def test_without_yarn_the_lab_says_why_and_runs_the_rest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from benchcamp.ops.lab import services

    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))  # no stores started there
    monkeypatch.delenv("BENCHCAMP_LAB_STORES", raising=False)
    monkeypatch.setenv("BENCHCAMP_LAB_YARN", "0")
    assert services.yarn_unavailable_reason() == "left out (BENCHCAMP_LAB_YARN=0)"
    assert [service.name for service in services.lab_services()] == [
        "sshd",
        "namenode",
        "datanode",
        "hiveserver2",
    ]
    # lab down still stops YARN daemons an earlier `lab up` started
    assert {"resourcemanager", "nodemanager", "jobhistory"} <= {service.name for service in services.SERVICES}


def test_the_projects_java_tools_are_found_by_their_shape() -> None:
    """Every lab/ module with Java sources builds with the lab (a new study's tool needs no edit);
    the YCSB client waits for the stores, and the dependency-only poms build nothing."""
    from benchcamp.ops.lab.install import project_tool_modules

    found = {module.name: jar.name for module, jar in project_tool_modules()}
    assert found["hivebench"] == "hivebench-datagen.jar"
    assert "ycsb" not in found and "hadoop" not in found and "hive" not in found


def test_hiveserver2_starts_with_the_hive_function_jars_on_its_classpath(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only modules whose pom asks for it (the BigBench text functions): their classes then come
    from the server's loader, which no closing session can take away."""
    from benchcamp.ops.lab import services
    from benchcamp.ops.lab.install import hiveserver2_jars

    assert [jar.name for jar in hiveserver2_jars()] == ["bigbench-udf.jar"]
    started: list[list[Path]] = []
    monkeypatch.setattr(
        services, "_start_java", lambda _name, _main, classpath, *_rest: started.append(classpath)
    )
    services._start_hiveserver2()
    (classpath,) = started
    assert classpath[-1] == hiveserver2_jars()[0] and classpath[-1].parent.parent.name == "bigbench-udf"


def test_lab_targets_are_the_labs_ssh_connection_and_those_studies_add(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`benchcamp run` on the lab starts what these reach: the lab's, the lab cluster's gateway
    and those studies add (`--environment all`: all but the cluster's)."""
    from benchcamp.core import study

    added = {
        "AIRFLOW_CONN_SECOND_TARGET_SSH": json.dumps({"conn_type": "ssh", "host": "10.0.0.2"}),
        "AIRFLOW_CONN_SECOND_TARGET_HIVE": json.dumps({"conn_type": "hiveserver2", "host": "10.0.0.2"}),
    }
    monkeypatch.setattr(study, "study_lab_connections", lambda: added)
    expected = {lab.LAB_CONNECTION_ID, lab.CLUSTER_CONNECTION_ID, "second_target_ssh"}
    assert lab.lab_ssh_connection_ids() == expected


def test_lab_down_stops_every_service_even_when_a_studys_target_fails_to_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study's lab target (Study.lab_teardown) stops first; its failure is raised naming the
    study, after the lab's own services were stopped all the same."""
    from benchcamp.core import study
    from benchcamp.ops.lab import services

    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.setenv("BENCHCAMP_LAB_YARN", "0")
    stopped: list[str] = []

    class Service:
        def __init__(self, name: str) -> None:
            self.name = name

        def stop(self) -> None:
            stopped.append(self.name)

    def fails() -> None:
        stopped.append("target")
        raise RuntimeError("container still running")

    monkeypatch.setattr(services, "SERVICES", [Service("sshd"), Service("namenode"), Service("hiveserver2")])
    monkeypatch.setattr(study, "study_lab_teardowns", lambda: [("some_study", fails)])
    with pytest.raises(lab.LabError, match="some_study: RuntimeError: container still running"):
        lab.lab_down()
    # the target first; then what uses HDFS, then HDFS and sshd (each wave stopped at once)
    assert stopped[:2] == ["target", "hiveserver2"] and sorted(stopped[2:]) == ["namenode", "sshd"]


def test_lab_down_stops_a_studys_supervised_processes_but_leaves_the_lab_clusters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a study started under the lab's supervision stops with the lab; the lab cluster's
    daemons (their PID files beside them) are `lab cluster down`'s: it stops HBase through its
    master and HDFS last, and the cluster may be in use while the one-host lab stops."""
    from benchcamp.core import study
    from benchcamp.ops.lab import services
    from benchcamp.ops.supervisor import Supervised

    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.setenv("BENCHCAMP_LAB_YARN", "0")
    monkeypatch.setattr(services, "SERVICES", [])
    # never the studies' real lab targets: the BigBench container an integration stream uses
    monkeypatch.setattr(study, "study_lab_teardowns", lambda: [])
    run, logs = tmp_path / "run", tmp_path / "logs"
    device = Supervised("device-hdd-namenode", run / "device-hdd-namenode.pid", logs / "device.log")
    datanode = Supervised("cluster-worker1-datanode", run / "cluster-worker1-datanode.pid", logs / "dn.log")
    for each in (device, datanode):
        each.start(["sleep", "60"])
    try:
        lab.lab_down()
        assert device.pid() is None and not device.pid_file.exists()
        assert datanode.pid() is not None
    finally:
        datanode.stop(5.0)


def test_configuration_files_are_replaced_whole_and_only_when_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lab up` rewrites the configuration while services read it: never truncated in place."""
    from benchcamp.ops.lab import config

    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    config.write_configuration(tmp_path)
    site = lab.lab_dir() / "conf" / "hadoop" / "core-site.xml"
    before = site.stat().st_ino
    config.write_configuration(tmp_path)
    assert site.stat().st_ino == before, "an unchanged file is left alone"
    site.write_text("<configuration/>")
    config.write_configuration(tmp_path)
    assert site.stat().st_ino != before and "fs.defaultFS" in site.read_text(), "replaced by a rename"
    assert not list(site.parent.glob(".*.tmp"))


def test_hiveserver2_has_hive_exec_unpacked_in_its_jars_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unpacked once (and again when the jar changes); the class path keeps `lib/*`'s order with
    the directory where the jar was, and is `lib/*` itself until the classes are unpacked."""
    import zipfile

    from benchcamp.ops.lab import install, services
    from benchcamp.ops.lab.layout import HIVE_EXEC_JAR

    home = tmp_path / "hive"
    lib = home / "lib"
    lib.mkdir(parents=True)
    for name in ("a.jar", HIVE_EXEC_JAR, "z.jar", "notes.txt"):
        (lib / name).write_bytes(b"")
    with zipfile.ZipFile(lib / HIVE_EXEC_JAR, "w") as jar:
        jar.writestr("org/apache/hadoop/hive/ql/exec/mr/ExecDriver.class", b"v1")
    classes = home / "exec-classes"
    for module in (install, services):
        monkeypatch.setattr(module, "hive_home", lambda: home)
        monkeypatch.setattr(module, "hive_exec_classes", lambda: classes)
    assert services.hive_classpath() == [lib / "*"]
    install._unpack_hive_exec()
    unpacked = classes / "org/apache/hadoop/hive/ql/exec/mr/ExecDriver.class"
    assert unpacked.read_bytes() == b"v1"
    listed = [str(path) for path in services.hive_classpath()]
    assert listed == [
        str(classes if name == HIVE_EXEC_JAR else lib / name)
        for name in os.listdir(lib)
        if name.endswith(".jar")
    ]
    with zipfile.ZipFile(lib / HIVE_EXEC_JAR, "w") as jar:  # a new jar: unpacked again
        jar.writestr("org/apache/hadoop/hive/ql/exec/mr/ExecDriver.class", b"v2 longer")
    install._unpack_hive_exec()
    assert unpacked.read_bytes() == b"v2 longer" and not (home / "exec-classes.partial").exists()


@pytest.mark.parametrize("how", ["stopped", "crashed"])
def test_lab_up_waits_past_a_service_another_caller_stops_but_not_past_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Two sessions share a lab (tests/run-suite): one stops a store on purpose while the other's
    `lab up` waits. A service that ran when `lab up` began and was stopped since (no PID file) is
    not waited for; one that crashed (its PID file left behind) still fails the start."""
    from benchcamp.ops.lab import services

    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    running = {"namenode": 11, "cassandra": 12}  # both up when lab up begins: nothing to start
    polls = {"count": 0}

    def status() -> lab.LabStatus:
        polls["count"] += 1
        if polls["count"] == 2:  # the other session stops Cassandra during the wait
            del running["cassandra"]
            if how == "crashed":
                (tmp_path / "cassandra.pid").write_text("12\n")
        return lab.LabStatus(
            tmp_path,
            [
                services.ServiceStatus(
                    name, 0, running.get(name), name in running, polls["count"] >= 3 and name in running, 0.0
                )
                for name in ("namenode", "cassandra")
            ],
        )

    class Process:
        def __init__(self, name: str) -> None:
            self.name = name

        def pid(self) -> int | None:
            return running.get(self.name)

        @property
        def stale(self) -> bool:
            return self.name not in running and (tmp_path / f"{self.name}.pid").exists()

    monkeypatch.setattr(services, "ensure_installed", lambda: None)
    monkeypatch.setattr(services, "stores_enabled", lambda: False)
    monkeypatch.setattr(services, "write_configuration", lambda directory: None)
    monkeypatch.setattr(services, "lab_services", lambda: ())
    monkeypatch.setattr(services, "lab_status", status)
    monkeypatch.setattr(services, "_prepare_hdfs", lambda: None)
    monkeypatch.setattr(services, "supervised", Process)
    if how == "stopped":
        up = services.lab_up(timeout_s=10)
        assert up.service("namenode").healthy and not up.service("cassandra").alive
    else:
        with pytest.raises(lab.LabError, match="cassandra exited"):
            services.lab_up(timeout_s=10)


def test_ssh_keys_asked_for_by_several_processes_at_once_are_made_once(tmp_path: Path) -> None:
    """`benchcamp up` and a `benchcamp run` both compute the lab's connections on a new machine:
    each asks for the BigBench container's keys; one writes them, the others find them (before
    the lock, ssh-keygen asked to overwrite the other's key and the second command failed)."""
    import subprocess
    import sys
    import time

    from benchcamp.ops.lab.services import ensure_ssh_keys

    ssh_dir, go = tmp_path / "ssh", tmp_path / "go"
    program = (
        "import sys, time; from pathlib import Path; from benchcamp.ops.lab.services import ensure_ssh_keys\n"
        "Path(sys.argv[3]).touch()\n"  # imported; then all of them at once
        "while not Path(sys.argv[2]).exists(): time.sleep(0.001)\n"
        "ensure_ssh_keys(Path(sys.argv[1]))\n"
    )
    ready = [tmp_path / f"ready{number}" for number in range(4)]
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", program, str(ssh_dir), str(go), str(mark)], stdin=subprocess.DEVNULL
        )
        for mark in ready
    ]
    deadline = time.monotonic() + 60
    while not all(mark.exists() for mark in ready):
        assert time.monotonic() < deadline, "the processes did not start"
        time.sleep(0.01)
    go.touch()
    assert [run.wait(timeout=60) for run in runs] == [0, 0, 0, 0]
    keys = {name: (ssh_dir / name).read_bytes() for name in ("host_ed25519.pub", "client_ed25519.pub")}
    ensure_ssh_keys(ssh_dir)  # made once: asking again changes nothing
    assert keys == {name: (ssh_dir / name).read_bytes() for name in keys}
