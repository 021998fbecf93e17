# Over 600 lines: the lab's service table and each service's start and health check (HDFS, Hive,
# YARN in its namespace, the YCSB stores), in sections, read by one up/down/status (up and down
# under the lab lock).
"""The lab's services: started and stopped by the project's process supervisor
(`benchcamp.ops.supervisor`, as the Airflow stack is), health-checked, measured.

Order matters on the way up (sshd, NameNode, DataNode, HiveServer2) and is
reversed on the way down. A service whose PID file names a dead process is
reported as crashed (and restarted by the next `lab up`), never silently ignored.
Nothing here runs at import time.
"""

from __future__ import annotations

import fcntl
import functools
import getpass
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tenacity import (
    Retrying,
    retry_if_result,
    stop_after_attempt,
    wait_fixed,
)

from benchcamp.core import holder_lock
from benchcamp.core.waiting import wait_until
from benchcamp.ops.lab.config import (
    CLIENT_JVM_OPTS,
    LOOPBACK,
    java17_options,
    sshd_config_text,
    target_shell_env,
    write_configuration,
)
from benchcamp.ops.lab.install import ensure_installed, hiveserver2_jars
from benchcamp.ops.lab.layout import (
    CLUSTER_PID_PREFIX,
    CLUSTER_PREFIX,
    HDFS_BASE_PATH,
    HIVE_EXEC_JAR,
    YARN_NETNS,
    LabError,
    hadoop_conf_dir,
    hadoop_home,
    hive_conf_dir,
    hive_exec_classes,
    hive_home,
    java_home,
    lab_dir,
    port,
    ssh_port,
    yarn_conf_dir,
    yarn_home,
)
from benchcamp.ops.supervisor import Supervised, rss_mb
from benchcamp.ops.toolkit import (
    Daemon,
    delete_netns,
    ensure_netns,
    hiveserver2_answers,
    http_json,
    jmx_bean,
    namespaces,
    port_open,
)

MEMORY_BUDGET_MB = 3072


@dataclass
class ServiceStatus:
    name: str
    port: int
    pid: int | None
    alive: bool
    healthy: bool
    rss_mb: float
    detail: str = ""


@dataclass
class LabStatus:
    directory: Path
    services: list[ServiceStatus] = field(default_factory=list)
    note: str = ""

    @property
    def healthy(self) -> bool:
        return all(service.healthy for service in self.services)

    @property
    def total_rss_mb(self) -> float:
        return sum(service.rss_mb for service in self.services)

    def service(self, name: str) -> ServiceStatus:
        return next(service for service in self.services if service.name == name)

    def format(self) -> str:
        lines = [
            f"lab: {self.directory}",
            f"{'service':<15} {'port':>6} {'pid':>8} {'state':<9} {'rss MB':>7}  detail",
        ]
        for service in self.services:
            state = "healthy" if service.healthy else ("unhealthy" if service.alive else "stopped")
            pid = str(service.pid) if service.pid else "-"
            lines.append(
                f"{service.name:<15} {service.port:>6} {pid:>8} {state:<9} {service.rss_mb:>7.0f}  {service.detail}"
            )
        if self.note:
            lines.append(self.note)
        lines.append(f"total RSS: {self.total_rss_mb:.0f} MB (budget {MEMORY_BUDGET_MB} MB)")
        return "\n".join(lines)


# -- processes ------------------------------------------------------------------------------


def pid_file(name: str) -> Path:
    return lab_dir() / "run" / f"{name}.pid"


def log_file(name: str) -> Path:
    return lab_dir() / "logs" / f"{name}.log"


def supervised(name: str) -> Supervised:
    """A lab service's process as the supervisor knows it: run/<name>.pid, logs/<name>.log."""
    return Supervised(name, pid_file(name), log_file(name))


def read_pid(name: str) -> int | None:
    return supervised(name).pid()


def _start_java(
    name: str,
    main_class: str,
    classpath: list[Path],
    options: list[str],
    args: list[str],
    *,
    home: Path | None = None,
    conf_dir: Path | None = None,
    namespace: str | None = None,
) -> int:
    """Start a JVM under the supervisor (the toolkit's `Daemon`, heap among `options`); its own
    PID goes to run/<name>.pid, also inside `namespace`."""
    daemon = Daemon(
        name, main_class, classpath, conf_dir or hadoop_conf_dir(), home or hadoop_home(),
        lab_dir() / "run", lab_dir() / "logs", heap_mb=None, options=options, args=args, namespace=namespace,
    )  # fmt: skip
    return daemon.start()


def _stop(name: str, timeout_s: float, request_stop: Callable[[], bool] | None = None) -> None:
    """SIGTERM (or the service's own stop request, if it has one and it gets through), then
    SIGKILL after timeout_s: the supervisor's stop."""
    supervised(name).stop(timeout_s, request_stop)


def _jmx_bean(http_port: int, query: str) -> dict[str, object]:
    return jmx_bean(f"http://{LOOPBACK}:{http_port}", query)


def _port_open(number: int) -> bool:
    return port_open(LOOPBACK, number)


# -- the services ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Service:
    name: str
    port_name: str
    start: Callable[[], None]
    check: Callable[[], tuple[bool, str]]
    stop_timeout_s: float = 15.0
    request_stop: Callable[[], bool] | None = None  # a clean stop better than SIGTERM

    def stop(self) -> None:
        _stop(self.name, self.stop_timeout_s, self.request_stop)

    @property
    def port(self) -> int:
        return port(self.port_name)

    def status(self) -> ServiceStatus:
        process = supervised(self.name)
        pid = process.pid()
        if pid is None:
            detail = "not running"
            if process.stale:
                detail = f"crashed or killed (stale PID file); see {log_file(self.name)}"
            return ServiceStatus(self.name, self.port, None, False, False, 0.0, detail)
        try:
            healthy, detail = self.check()
        except Exception as exc:  # any failure of a probe means "not healthy"; say which
            healthy, detail = False, f"{type(exc).__name__}: {exc}"
        return ServiceStatus(self.name, self.port, pid, True, healthy, rss_mb(pid), detail)


def ensure_ssh_keys(ssh_dir: Path) -> None:
    """The lab sshd's host key and its client's key in `ssh_dir`, made once (ed25519, no
    passphrase): connections pin the host key, so it must exist before anything connects.

    Two processes may ask at once (a `benchcamp up` beside a `benchcamp run`): a lock in the
    folder makes one of them write the keys and the other find them (ssh-keygen asked to
    overwrite a key the other had just written, and failed)."""
    ssh_dir.mkdir(parents=True, exist_ok=True)
    with (ssh_dir / ".keys.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for key in ("host_ed25519", "client_ed25519"):
            if not (ssh_dir / key).exists() or not (ssh_dir / f"{key}.pub").exists():
                for stale in (ssh_dir / key, ssh_dir / f"{key}.pub"):  # half of a pair: made again
                    stale.unlink(missing_ok=True)
                command = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "benchcamp-lab"]
                subprocess.run([*command, "-f", str(ssh_dir / key)], check=True)


def _start_sshd() -> None:
    directory = lab_dir()
    ssh_dir = directory / "ssh"
    for sub in (ssh_dir, directory / "run", directory / "logs", directory / "work"):
        sub.mkdir(parents=True, exist_ok=True)
    ensure_ssh_keys(ssh_dir)
    authorized = ssh_dir / "authorized_keys"
    authorized.write_text((ssh_dir / "client_ed25519.pub").read_text())
    authorized.chmod(0o600)
    host_key = " ".join((ssh_dir / "host_ed25519.pub").read_text().split()[:2])
    (ssh_dir / "known_hosts").write_text(f"[{LOOPBACK}]:{ssh_port()} {host_key}\n")
    config = directory / "sshd_config"
    config.write_text(sshd_config_text(directory, ssh_port(), target_shell_env()))
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    pid_file("sshd").unlink(missing_ok=True)
    subprocess.run(["/usr/sbin/sshd", "-f", str(config), "-E", str(log_file("sshd"))], check=True)
    # sshd writes its PID file after daemonising: look 50 times, 0.1 s apart
    Retrying(
        retry=retry_if_result(lambda found: not found),
        stop=stop_after_attempt(50),
        wait=wait_fixed(0.1),
        retry_error_callback=lambda state: False,
    )(pid_file("sshd").exists)


def _check_sshd() -> tuple[bool, str]:
    import paramiko

    directory = lab_dir()
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.load_host_keys(str(directory / "ssh" / "known_hosts"))
    try:
        client.connect(
            LOOPBACK,
            port=ssh_port(),
            username=getpass.getuser(),
            key_filename=str(directory / "ssh" / "client_ed25519"),
            look_for_keys=False,
            allow_agent=False,
            timeout=5,
        )
        _, stdout, _ = client.exec_command('command -v hadoop && test -d "$BENCHCAMP_WORK_DIR"', timeout=10)
        ok = stdout.channel.recv_exit_status() == 0
        return ok, "login ok, hadoop on PATH" if ok else "login ok but hadoop or the work dir is missing"
    finally:
        client.close()


def _hadoop_classpath() -> list[Path]:
    return [hadoop_conf_dir(), hadoop_home() / "lib" / "*"]


def _start_namenode() -> None:
    name_dir = lab_dir() / "hdfs" / "name"
    if not (name_dir / "current" / "VERSION").exists():
        format_hdfs()
    # WebHDFS (Jersey + JAXB) defines classes reflectively: on Java 17 it answers HTTP 500
    # unless java.lang is open to it. Campaigns delete and check data through WebHDFS.
    options = ["-Xmx384m", "--add-opens=java.base/java.lang=ALL-UNNAMED"]
    _start_java(
        "namenode", "org.apache.hadoop.hdfs.server.namenode.NameNode", _hadoop_classpath(), options, []
    )


def format_hdfs() -> None:
    """Format a new, empty HDFS (first start, or a study's reformat between campaigns)."""
    if read_pid("namenode") is not None or read_pid("datanode") is not None:
        raise LabError("stop HDFS before formatting it (benchcamp lab down)")
    for sub in ("name", "data"):
        path = lab_dir() / "hdfs" / sub
        if path.exists():
            subprocess.run(["rm", "-rf", str(path)], check=True)
    log = log_file("namenode-format")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as handle:
        result = subprocess.run(
            [
                str(java_home() / "bin" / "java"),
                f"-Dhadoop.home.dir={hadoop_home()}",
                "-cp",
                ":".join(str(path) for path in _hadoop_classpath()),
                "org.apache.hadoop.hdfs.server.namenode.NameNode",
                "-format",
                "-nonInteractive",
                "-clusterId",
                "benchcamp-lab",
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if result.returncode != 0:
        raise LabError(f"formatting HDFS failed (exit {result.returncode}); see {log}")


def _check_namenode() -> tuple[bool, str]:
    state = _jmx_bean(port("namenode_http"), "Hadoop:service=NameNode,name=FSNamesystemState")
    info = _jmx_bean(port("namenode_http"), "Hadoop:service=NameNode,name=NameNodeInfo")
    live = int(str(state.get("NumLiveDataNodes", 0)))
    safemode = str(info.get("Safemode", "")).strip()
    free_gb = float(str(info.get("Free", 0))) / 1024**3
    detail = f"{live} live datanode(s), safe mode {'ON' if safemode else 'off'}, {free_gb:.1f} GiB free"
    return (_port_open(port("namenode")) and not safemode), detail


def _start_datanode() -> None:
    _start_java(
        "datanode", "org.apache.hadoop.hdfs.server.datanode.DataNode", _hadoop_classpath(), ["-Xmx256m"], []
    )


def _check_datanode() -> tuple[bool, str]:
    info = _jmx_bean(port("datanode_http"), "Hadoop:service=DataNode,name=DataNodeInfo")
    namenodes = json.loads(str(info.get("NamenodeAddresses") or "{}"))
    if not namenodes:
        return False, "not registered with the NameNode yet"
    return True, f"registered with {', '.join(namenodes)}"


def _start_hiveserver2() -> None:
    # the client compiler only: a lab's queries are small and many, so the server compiler's
    # work on Hive's large code never paid for itself (README "The lab")
    options = ["-Xmx1g", CLIENT_JVM_OPTS, *java17_options()]
    options += [
        f"-Dderby.system.home={lab_dir() / 'hive'}",
        f"-Dhive.log.dir={lab_dir() / 'logs'}",
        "-Dhive.log.file=hiveserver2-hive.log",
    ]
    classpath = [hive_conf_dir(), hadoop_conf_dir(), *hive_classpath(), *hiveserver2_jars()]
    _start_java("hiveserver2", "org.apache.hive.service.server.HiveServer2", classpath, options, [])


def hive_classpath() -> list[Path]:
    """Hive's jars as `lib/*` lists them (directory order: what the java launcher's wildcard
    gives), with hive-exec's unpacked classes in its jar's place (`layout.hive_exec_classes`);
    `lib/*` itself while they are not unpacked."""
    lib = hive_home() / "lib"
    classes = hive_exec_classes()
    if not (classes / ".unpacked").is_file():
        return [lib / "*"]
    names = [name for name in os.listdir(lib) if name.lower().endswith(".jar")]
    return [classes if name == HIVE_EXEC_JAR else lib / name for name in names]


def _check_hiveserver2() -> tuple[bool, str]:
    return hiveserver2_answers(LOOPBACK, port("hiveserver2"))


# -- YARN, in a network namespace that has only loopback ------------------------------------


def yarn_unavailable_reason() -> str | None:
    """Why the lab runs without YARN here (None: it runs). It needs a network namespace."""
    if os.environ.get("BENCHCAMP_LAB_YARN", "1") == "0":
        return "left out (BENCHCAMP_LAB_YARN=0)"
    return _namespace_problem()


@functools.cache
def _namespace_problem() -> str | None:
    """Checked once per process: status polls must not spawn `ip` every second. Asking leaves
    nothing behind (`lab status` after `lab down`): a missing namespace is probed by making and
    removing one of another name; YARN's own is made when YARN starts."""
    if os.geteuid() != 0:
        return "a network namespace needs root"
    if shutil.which("ip") is None:
        return "`ip` (iproute2) is not installed"
    if YARN_NETNS in namespaces():
        return None
    probe = f"{YARN_NETNS}-probe-{os.getpid()}"
    try:
        ensure_netns(probe)
    except (OSError, subprocess.CalledProcessError, LabError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        return f"cannot make a network namespace (tried {probe}): {str(detail).strip()[-300:]}"
    finally:
        delete_netns(probe)
    return None


def yarn_enabled() -> bool:
    return yarn_unavailable_reason() is None


def _ensure_netns() -> None:
    ensure_netns(YARN_NETNS)


def netns_http_json(url: str, timeout_s: float = 5.0) -> dict[str, Any]:
    """GET a JSON document from inside the YARN namespace (its loopback is not ours)."""
    return http_json(url, YARN_NETNS, timeout_s=timeout_s)


def _yarn_url(port_name: str, path: str) -> str:
    return f"http://{LOOPBACK}:{port(port_name)}{path}"


def _start_yarn_daemon(name: str, main_class: str) -> None:
    _ensure_netns()
    for sub in ("nm-local", "nm-logs", "staging"):
        (lab_dir() / "yarn" / sub).mkdir(parents=True, exist_ok=True)
    _start_java(
        name,
        main_class,
        [yarn_conf_dir(), yarn_home() / "lib" / "*"],
        ["-Xmx256m", *java17_options()],
        [],
        home=yarn_home(),
        conf_dir=yarn_conf_dir(),
        namespace=YARN_NETNS,
    )


def _start_resourcemanager() -> None:
    _start_yarn_daemon("resourcemanager", "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager")


def _check_resourcemanager() -> tuple[bool, str]:
    info = netns_http_json(_yarn_url("resourcemanager_http", "/ws/v1/cluster/info"))["clusterInfo"]
    return info.get("state") == "STARTED", f"state {info.get('state')}, Hadoop {info.get('hadoopVersion')}"


def _start_nodemanager() -> None:
    _start_yarn_daemon("nodemanager", "org.apache.hadoop.yarn.server.nodemanager.NodeManager")


def _check_nodemanager() -> tuple[bool, str]:
    node = netns_http_json(_yarn_url("nodemanager_http", "/ws/v1/node/info"))["nodeInfo"]
    metrics = netns_http_json(_yarn_url("resourcemanager_http", "/ws/v1/cluster/metrics"))
    active = int(metrics["clusterMetrics"].get("activeNodes", 0))
    healthy = bool(node.get("nodeHealthy")) and active >= 1
    return (
        healthy,
        f"{'healthy' if node.get('nodeHealthy') else 'UNHEALTHY'}, {active} active node(s) at the RM",
    )


def _start_jobhistory() -> None:
    _start_yarn_daemon("jobhistory", "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer")


def _check_jobhistory() -> tuple[bool, str]:
    info = netns_http_json(_yarn_url("jobhistory_http", "/ws/v1/history/info"))["historyInfo"]
    return True, f"Hadoop {info.get('hadoopVersion')}, REST ok"


# -- the YCSB stores (started on request: they cost ~1 GB and 10-20 s) -------------------------


def stores_enabled() -> bool:
    """`lab up --stores` (or BENCHCAMP_LAB_STORES=1) also starts the data stores YCSB measures;
    once started, status and down see them whatever the environment says."""
    if os.environ.get("BENCHCAMP_LAB_STORES", "0") == "1":
        return True
    return any(pid_file(service.name).exists() for service in STORE_SERVICES)


def _start_cassandra() -> None:
    from benchcamp.ops.lab.config import cassandra_jvm_options
    from benchcamp.ops.lab.layout import cassandra_conf_dir, cassandra_home

    _start_java(
        "cassandra",
        "org.apache.cassandra.service.CassandraDaemon",
        [cassandra_home() / "lib" / "*"],
        cassandra_jvm_options(
            cassandra_conf_dir() / "cassandra.yaml", lab_dir() / "cassandra", lab_dir() / "logs", 512
        ),
        [],
    )


# A native-protocol v4 OPTIONS request (header only): a node that can serve CQL answers SUPPORTED.
_CQL_OPTIONS = bytes([0x04, 0x00, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00])
_CQL_SUPPORTED = 0x06


def _check_cassandra() -> tuple[bool, str]:
    return cql_answers(LOOPBACK, port("cassandra_native"))


def cql_answers(host: str, native_port: int) -> tuple[bool, str]:
    """Whether a Cassandra node at host:port serves CQL (a native-protocol OPTIONS request)."""
    with socket.create_connection((host, native_port), timeout=2.0) as sock:
        sock.sendall(_CQL_OPTIONS)
        header = sock.recv(9)
    if len(header) == 9 and header[0] == 0x84 and header[4] == _CQL_SUPPORTED:
        return True, "CQL native protocol v4 answers"
    return False, f"unexpected answer to CQL OPTIONS: {header.hex()}"


def _hbase_java(main_class: str) -> list[str]:
    from benchcamp.ops.lab.config import HBASE_JAVA17_OPTIONS
    from benchcamp.ops.lab.layout import hbase_conf_dir, hbase_home

    classpath = f"{hbase_conf_dir()}:{hbase_home() / 'lib' / '*'}"
    return [str(java_home() / "bin" / "java"), *HBASE_JAVA17_OPTIONS, "-cp", classpath, main_class]


def _start_hbase() -> None:
    """Standalone HBase: one JVM (HMaster's `start` in local mode) runs the master, a region
    server and an embedded ZooKeeper.

    ZooKeeper's data is wiped first: in HBase 2.6 it holds only coordination state (the meta
    location is kept in the master's own store, table states in hbase:meta), and a previous
    JVM killed mid-way would otherwise leave its ephemeral znodes behind for a session timeout,
    which would make the health check below believe a dead region server."""
    from benchcamp.ops.lab.config import HBASE_JAVA17_OPTIONS
    from benchcamp.ops.lab.layout import hbase_conf_dir, hbase_home

    shutil.rmtree(lab_dir() / "hbase" / "zookeeper", ignore_errors=True)
    _start_java(
        "hbase",
        "org.apache.hadoop.hbase.master.HMaster",
        [hbase_conf_dir(), hbase_home() / "lib" / "*"],
        [
            "-Xms128m",
            "-Xmx384m",
            "-XX:+UseG1GC",
            *HBASE_JAVA17_OPTIONS,
            # ZooKeeper's AdminServer would take port 8080 (Airflow's UI)
            "-Dzookeeper.admin.enableServer=false",
            f"-Dhbase.log.dir={lab_dir() / 'logs'}",
        ],
        ["start"],
        home=hbase_home(),
        conf_dir=hbase_conf_dir(),
    )


# What `HMaster` is given to ask a running master for a cluster shutdown (`request_hbase_shutdown`)
HBASE_SHUTDOWN_ARGS = ("-D", "hbase.client.retries.number=2", "stop", "--shutDownCluster")


def request_hbase_shutdown(
    command: Sequence[str], log: Path, timeout_s: float, env: Mapping[str, str] | None = None
) -> bool:
    """Run an `HMaster ... stop --shutDownCluster` client (`command`), its output appended to
    `log`; True when the request got through within `timeout_s`."""
    with log.open("ab") as out:
        try:
            result = subprocess.run(
                list(command),
                env=None if env is None else dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
    return result.returncode == 0


def _request_hbase_stop() -> bool:
    """`HMaster stop --shutDownCluster`: the master closes every region, flushing memstores, and
    exits (~12 s, plus ~3 s for this client JVM). SIGTERM instead runs shutdown hooks in no set
    order; when ZooKeeper goes first the region server retries it for ~20 s and its next start
    replays a crash procedure. False when the request did not get through (then: SIGTERM)."""
    command = _hbase_java("org.apache.hadoop.hbase.master.HMaster")
    command[1:1] = ["-Xmx128m"]
    return request_hbase_shutdown([*command, *HBASE_SHUTDOWN_ARGS], log_file("hbase"), 30)


def _check_hbase() -> tuple[bool, str]:
    """The lab's standalone HBase serves (`hbase_answers`); its ZooKeeper starts empty on every
    start (_start_hbase)."""
    return hbase_answers(LOOPBACK, port("hbase_zookeeper"))


def hbase_answers(zookeeper_host: str, zookeeper_port: int) -> tuple[bool, str]:
    """Serving when the active master has finished initialising and hbase:meta is OPEN on a live
    region server that accepts connections: what every client looks up first (see hbase_probe).
    The lab's standalone HBase and the lab cluster's distributed one alike, by their ZooKeeper.

    HBase 2.6 writes the namespaces under /hbase/namespace when its cluster schema service
    starts, the last step before the master calls itself initialised and accepts DDL
    (creating YCSB's table)."""
    from benchcamp.ops.lab.hbase_probe import (
        meta_region_state,
        read_znodes,
        region_server_name,
        server_location,
    )

    data, children = read_znodes(
        zookeeper_host,
        zookeeper_port,
        ("/hbase/master", "/hbase/meta-region-server"),
        ("/hbase/rs", "/hbase/namespace"),
    )
    master, meta_znode = data["/hbase/master"], data["/hbase/meta-region-server"]
    if master is None:
        return False, "ZooKeeper answers, no active master yet"
    if meta_znode is None:
        return False, f"master {server_location(master)} active, hbase:meta not assigned yet"
    meta, state = server_location(meta_znode), meta_region_state(meta_znode)
    if state != "OPEN":
        return False, f"hbase:meta {state} on {meta}"
    if region_server_name(meta) not in (children["/hbase/rs"] or []):
        return False, f"hbase:meta on {meta}, which is not a live region server"
    with socket.socket() as sock:
        sock.settimeout(1.0)
        if sock.connect_ex((meta.host, meta.port)) != 0:
            return False, f"region server {meta} does not accept connections"
    if "default" not in (children["/hbase/namespace"] or []):
        return False, f"hbase:meta OPEN on {meta}, master {server_location(master)} still initialising"
    return True, f"master {server_location(master)} initialised, hbase:meta OPEN on {meta}"


STORE_SERVICES = (
    Service("cassandra", "cassandra_native", _start_cassandra, _check_cassandra, stop_timeout_s=30.0),
    Service(
        "hbase",
        "hbase_zookeeper",
        _start_hbase,
        _check_hbase,
        stop_timeout_s=45.0,
        request_stop=_request_hbase_stop,
    ),
)


CORE_SERVICES = (
    Service("sshd", "ssh", _start_sshd, _check_sshd, stop_timeout_s=10.0),
    Service("namenode", "namenode", _start_namenode, _check_namenode),
    Service("datanode", "datanode", _start_datanode, _check_datanode),
    Service("hiveserver2", "hiveserver2", _start_hiveserver2, _check_hiveserver2, stop_timeout_s=20.0),
)
YARN_SERVICES = (
    Service("resourcemanager", "resourcemanager_http", _start_resourcemanager, _check_resourcemanager),
    Service("nodemanager", "nodemanager_http", _start_nodemanager, _check_nodemanager),
    Service("jobhistory", "jobhistory_http", _start_jobhistory, _check_jobhistory),
)
SERVICES = CORE_SERVICES + YARN_SERVICES + STORE_SERVICES


def lab_services() -> tuple[Service, ...]:
    """The services this lab runs: YARN only where a network namespace can be made, stores on request."""
    return (
        CORE_SERVICES
        + (YARN_SERVICES if yarn_enabled() else ())
        + (STORE_SERVICES if stores_enabled() else ())
    )


def service_named(name: str) -> Service:
    return next(service for service in SERVICES if service.name == name)


def lab_status() -> LabStatus:
    return LabStatus(
        directory=lab_dir(),
        services=[service.status() for service in lab_services()],
        note=f"YARN not started: {reason}" if (reason := yarn_unavailable_reason()) else "",
    )


def _prepare_hdfs() -> None:
    """The directories campaigns and Hive write to, world-writable like /tmp."""
    paths = [HDFS_BASE_PATH, "/tmp/hive", "/user/hive/warehouse"]
    shell = [str(java_home() / "bin" / "java"), f"-Dhadoop.home.dir={hadoop_home()}", "-cp"]
    shell += [":".join(str(path) for path in _hadoop_classpath()), "org.apache.hadoop.fs.FsShell"]
    for command in (["-mkdir", "-p", *paths], ["-chmod", "1777", *paths]):
        result = subprocess.run([*shell, *command], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise LabError(f"HDFS {' '.join(command)} failed: {result.stderr.strip()[-1500:]}")


# -- the lab lock: one `lab up` or `lab down` at a time --------------------------------------

LAB_LOCK_TIMEOUT_S = 600.0
"""How long `lab_up`/`lab_down` wait for another's to end: a lab start alone takes up to 420 s."""


class LabBusy(LabError):
    """Another process's `lab up` or `lab down` held the lab lock past the wait; nothing was done."""


def lab_lock_file() -> Path:
    return lab_dir() / "run" / "lab.lock"


def _describe_holder(holder: dict[str, Any]) -> str:
    return (
        f"`{holder.get('action', '?')}` ({holder.get('command', '?')}, PID {holder.get('pid', '?')} "
        f"on {holder.get('host', '?')}, since {holder.get('since', '?')})"
    )


@contextmanager
def lab_lock(action: str, timeout_s: float | None = None) -> Iterator[None]:
    """Hold the lab lock (an flock on `lab_lock_file()`, released by the kernel when the process
    ends, even killed) while `action` works, so two callers (`benchcamp up` beside `benchcamp run`,
    `lab down` during another's `lab up`) never start or stop the same services at once.

    A second caller waits up to `timeout_s` (None: LAB_LOCK_TIMEOUT_S), saying once on stderr for
    whom, then raises LabBusy naming the holder. Not re-entrant: no lab path nests `lab_up` or
    `lab_down`, so a nested call is refused at once rather than waiting on itself.
    """
    timeout_s = LAB_LOCK_TIMEOUT_S if timeout_s is None else timeout_s
    path = lab_lock_file()
    me = {"pid": os.getpid(), "host": socket.gethostname()}

    def entry() -> dict[str, Any]:
        command = " ".join([Path(sys.argv[0]).name, *sys.argv[1:3]]) if sys.argv else "?"
        return {
            "action": action,
            "command": command,
            **me,
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    def waiting(holder: dict[str, Any]) -> None:
        if {key: holder.get(key) for key in me} == me:
            raise LabError(f"{action} nested in this process's own {_describe_holder(holder)}")
        print(
            f"{action}: the lab is busy with {_describe_holder(holder)}; waiting up to {timeout_s:.0f} s",
            file=sys.stderr,
            flush=True,
        )

    try:
        handle = holder_lock.take(path, entry, timeout_s, 0.5, waiting)
    except holder_lock.Held as busy:
        raise LabBusy(
            f"{action}: the lab is busy with {_describe_holder(busy.holder)} ({path}), still after "
            f"{timeout_s:.0f} s; wait for it, or stop it: `benchcamp lab down` once it is done"
        ) from None
    with handle:
        yield


def lab_up(timeout_s: float = 420.0, install: bool = True, lock_timeout_s: float | None = None) -> LabStatus:
    """Start every service not already running (a no-op for healthy ones) and wait until all are
    healthy, under the lab lock (waiting up to `lock_timeout_s` for another's `lab up`/`lab down`);
    `install=False` where the jars are mounted read-only (the BigBench lab container)."""
    with lab_lock("lab up", lock_timeout_s):
        return _lab_up(timeout_s, install)


def _lab_up(timeout_s: float, install: bool) -> LabStatus:
    if install:
        ensure_installed()
    if install and stores_enabled():
        from benchcamp.ops.lab.install import ensure_stores_installed

        ensure_stores_installed()
    directory = lab_dir()
    write_configuration(directory)
    started = set()
    for service in lab_services():
        if read_pid(service.name) is None:
            service.start()
            started.add(service.name)
    hdfs_prepared = False

    def not_up(reason: str, services: list[ServiceStatus], status: LabStatus) -> LabError:
        tails = "\n".join(_log_tail(service.name) for service in services)
        return LabError(f"the lab did not come up ({reason}):\n{status.format()}\n{tails}")

    def settled() -> tuple[LabStatus, bool]:
        """The lab's status and whether it is up; HDFS prepared once the namenode answers."""
        nonlocal hdfs_prepared
        status = lab_status()
        if not hdfs_prepared and status.service("namenode").healthy:
            _prepare_hdfs()
            hdfs_prepared = True
        waited = [service for service in status.services if not stopped_meanwhile(service)]
        up = all(service.healthy for service in waited) and hdfs_prepared
        dead = [service for service in waited if not service.alive]
        if dead and not up:
            raise not_up(f"{dead[0].name} exited", dead, status)
        return status, up

    def stopped_meanwhile(service: ServiceStatus) -> bool:
        """A service that ran when this call began and was stopped since (its PID file removed:
        `lab down`, a test stopping a store beside another that starts the lab): another
        caller's doing, not a failure to come up; a crash leaves its PID file and still fails."""
        return service.name not in started and service.pid is None and not supervised(service.name).stale

    (status, _), up = wait_until(settled, lambda answer: answer[1], timeout_s, 1.0)
    if not up:
        raise not_up(f"not healthy after {timeout_s:.0f} s", status.services, status)
    return status


def _log_tail(name: str, lines: int = 15) -> str:
    log = log_file(name)
    if not log.exists():
        return ""
    tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
    return f"--- {log} (last {len(tail)} lines)\n" + "\n".join(tail)


_LAST_TO_STOP = frozenset({"namenode", "datanode", "sshd"})
"""What the other services use until they have stopped."""


def lab_down(lock_timeout_s: float | None = None) -> None:
    """Stop every lab service by its recorded PID, HDFS and sshd last; leave no process behind.

    Under the lab lock (waiting up to `lock_timeout_s` for another's `lab up`/`lab down`), so it
    never stops what another caller's `lab up` is waiting on. Lab targets a study runs itself
    (`Study.lab_teardown`) stop first; one that fails to stop is raised after everything else has stopped.
    """
    with lab_lock("lab down", lock_timeout_s):
        _lab_down()


def _lab_down() -> None:
    from benchcamp.core.study import study_lab_teardowns

    failures: list[str] = []
    for study, teardown in study_lab_teardowns():
        try:
            teardown()
        except Exception as exc:  # the lab's own services must stop whatever a study's target did
            failures.append(f"{study}: {type(exc).__name__}: {exc}")
    # Two waves, each stopped at once: the stores and what uses HDFS (HiveServer2, YARN), then
    # HDFS and sshd. One by one, HBase's clean stop (~13 s) and Cassandra's were added to the rest.
    first = [service for service in SERVICES if service.name not in _LAST_TO_STOP]
    for wave in (first, [service for service in SERVICES if service.name in _LAST_TO_STOP]):
        with ThreadPoolExecutor(max_workers=len(wave) or 1) as pool:
            for stopped in [pool.submit(service.stop) for service in wave]:
                stopped.result()  # a stop that raised, raised here once the wave has ended
    # Processes a study started under the lab's supervision (e.g. a Hadoop install per storage
    # device) have their PID files beside the services': none is left running.
    # The lab cluster's own (cluster-*.pid, namespaces benchcamp-cl-*) are left to `lab cluster
    # down`: it stops HBase through its master and HDFS last, and another user may hold it.
    known = {f"{service.name}.pid" for service in SERVICES}
    for pid_file in sorted((lab_dir() / "run").glob("*.pid")):
        if pid_file.name not in known and not pid_file.name.startswith(CLUSTER_PID_PREFIX):
            Supervised(pid_file.stem, pid_file, lab_dir() / "logs" / f"{pid_file.stem}.log").stop(20.0)
    if yarn_enabled():  # BENCHCAMP_LAB_YARN=0 leaves the namespaces alone (another lab may use them)
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
        names = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()} | {YARN_NETNS}
        for name in sorted(names):
            if name.startswith("benchcamp-") and not name.startswith(CLUSTER_PREFIX):
                subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)
    if failures:
        raise LabError("a study's lab target did not stop: " + "; ".join(failures))
