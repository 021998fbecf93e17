"""The Hadoop-install toolkit: what every Hadoop install the project runs is made of.

The lab's own services, a study's install per storage device, the links cluster and the
multi-host lab cluster are all the same few things: site files written into a configuration
folder, JVM daemons started under the process supervisor (on the host or inside a network
namespace), network namespaces joined by a bridge, health asked over HTTP (JMX, REST) from where
the daemon is reachable, and a bounded wait that names what is not up and where its log is.
Nothing here knows the lab's folder or ports: every path and address is a parameter, so a
fourth install is a caller of this module, not a fourth copy.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from benchcamp.core.waiting import wait_until
from benchcamp.ops.supervisor import Supervised, rss_mb

LOOPBACK = "127.0.0.1"
# Hive 4 and Hadoop's YARN daemons and task JVMs on Java 17 reflect into these JDK packages.
JAVA17_OPENS = (
    "java.base/java.lang",
    "java.base/java.lang.reflect",
    "java.base/java.lang.invoke",
    "java.base/java.io",
    "java.base/java.net",
    "java.base/java.nio",
    "java.base/java.nio.charset",
    "java.base/java.text",
    "java.base/java.time",
    "java.base/java.util",
    "java.base/java.util.concurrent",
    "java.base/java.util.concurrent.atomic",
    "java.base/java.util.regex",
    "java.base/java.util.stream",
    "java.base/sun.nio.ch",
    "java.base/sun.nio.cs",
    "java.base/sun.security.action",
    "java.base/sun.util.calendar",
    "java.base/jdk.internal.misc",
    "java.sql/java.sql",
)
NAMENODE_CLASS = "org.apache.hadoop.hdfs.server.namenode.NameNode"
DATANODE_CLASS = "org.apache.hadoop.hdfs.server.datanode.DataNode"
RESOURCEMANAGER_CLASS = "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager"
NODEMANAGER_CLASS = "org.apache.hadoop.yarn.server.nodemanager.NodeManager"
JOBHISTORY_CLASS = "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer"
FIFO_SCHEDULER = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
METASTORE_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
# How long an install waits for its daemons' health, each wait (a daemon that exits fails it at
# once), as the one-host lab's `lab_up` does. A CI machine running both test streams beside an
# install stretches a start several times: the lab cluster's three Cassandra nodes had not
# opened their port after 180 s there (stop 47), against 89 s on this machine idle and 149 s
# beside three busy loops (2026-11-29).
START_TIMEOUT_S = 420.0
HIVESERVER2_CLASS = "org.apache.hive.service.server.HiveServer2"
SiteValue = str | int | float | bool


class LabError(RuntimeError):
    """An install cannot be made, started or reached; the message says what to do."""


# -- Java and configuration ----------------------------------------------------------------


def java_home() -> Path:
    """A Java 17 (Hadoop 3.4 does not run on 25); Debian's OpenJDK first."""
    for candidate in sorted(Path("/usr/lib/jvm").glob("java-17-openjdk*")):
        if (candidate / "bin" / "java").exists():
            return candidate
    java = shutil.which("java")
    if java is None:
        raise LabError("no Java found: install OpenJDK 17 (apt-get install -y openjdk-17-jdk-headless)")
    return Path(os.path.realpath(java)).parent.parent


def java17_options() -> list[str]:
    return [f"--add-opens={package}=ALL-UNNAMED" for package in JAVA17_OPENS]


def site_xml(properties: Mapping[str, SiteValue], comment: str) -> str:
    """A Hadoop `*-site.xml` with `properties` in their order and `comment` on top."""
    body = "\n".join(
        f"  <property><name>{escape(name)}</name><value>{escape(_text(value))}</value></property>"
        for name, value in properties.items()
    )
    return f'<?xml version="1.0"?>\n<!-- {escape(comment)} -->\n<configuration>\n{body}\n</configuration>\n'


def _text(value: SiteValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def write_conf(conf_dir: Path, files: Mapping[str, str], log4j: Path | None = None) -> None:
    """A configuration folder: `files` (name -> text) and, when given, a log4j.properties copied
    in (the project's: clients log to stderr, so a command's stdout is only its answer)."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (conf_dir / name).write_text(text)
    if log4j is not None:
        shutil.copyfile(log4j, conf_dir / "log4j.properties")


def apt_install(*packages: str) -> None:
    """Debian packages a lab needs, installed when root; LabError with the command otherwise."""
    if os.geteuid() != 0:
        raise LabError(
            f"{', '.join(packages)} missing and not root: run `sudo apt-get install -y {' '.join(packages)}`"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], check=True, env=env
    )


# -- network namespaces --------------------------------------------------------------------


def in_netns(namespace: str | None) -> list[str]:
    """The prefix that runs a command inside `namespace` (nothing for the host's own)."""
    return ["ip", "netns", "exec", namespace] if namespace else []


def run_ip(*command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """One `ip`/`tc`/`ethtool` command; LabError with its own words when it fails."""
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        raise LabError(f"`{' '.join(command)}` failed: {result.stderr.strip() or result.stdout.strip()}")
    return result


def namespaces() -> set[str]:
    listed = run_ip("ip", "netns", "list").stdout
    return {line.split()[0] for line in listed.splitlines() if line.strip()}


def ensure_netns(namespace: str) -> None:
    """A network namespace with its loopback up (made when missing)."""
    if namespace not in namespaces():
        run_ip("ip", "netns", "add", namespace)
    run_ip("ip", "-n", namespace, "link", "set", "lo", "up")


def delete_netns(*names: str) -> None:
    """Remove namespaces (their veths go with them); absent ones are fine."""
    present = namespaces()
    for name in names:
        if name in present:
            run_ip("ip", "netns", "delete", name, check=False)


@dataclass(frozen=True)
class BridgeNetwork:
    """Hosts as network namespaces, each joined by a veth pair (`eth0` inside, `port-<host>` on the
    bridge) to one bridge in a hub namespace, with addresses in one /24; optionally a leg for the
    host's own namespace (`host_link`, `host_address`) so the host reaches them unshaped."""

    hub: str
    addresses: Mapping[str, str]  # namespace -> address
    bridge: str = "br0"
    prefix_length: int = 24
    host_link: str | None = None
    host_address: str | None = None

    def build(self) -> None:
        """Made from nothing: the caller removes an old one first (`remove`)."""
        run_ip("ip", "netns", "add", self.hub)
        run_ip("ip", "-n", self.hub, "link", "set", "lo", "up")
        run_ip("ip", "-n", self.hub, "link", "add", "name", self.bridge, "type", "bridge")
        run_ip("ip", "-n", self.hub, "link", "set", self.bridge, "up")
        for index, (namespace, address) in enumerate(self.addresses.items()):
            port = self.port(namespace, index)
            run_ip("ip", "netns", "add", namespace)
            run_ip("ip", "-n", namespace, "link", "set", "lo", "up")
            run_ip("ip", "-n", self.hub, "link", "add", "name", port, "type", "veth",
                   "peer", "name", "eth0", "netns", namespace)  # fmt: skip
            run_ip("ip", "-n", self.hub, "link", "set", port, "master", self.bridge, "up")
            run_ip("ip", "-n", namespace, "addr", "add", f"{address}/{self.prefix_length}", "dev", "eth0")
            run_ip("ip", "-n", namespace, "link", "set", "eth0", "up")
        if self.host_link and self.host_address:
            run_ip("ip", "link", "add", "name", self.host_link, "type", "veth",
                   "peer", "name", "port-host", "netns", self.hub)  # fmt: skip
            run_ip("ip", "-n", self.hub, "link", "set", "port-host", "master", self.bridge, "up")
            run_ip("ip", "addr", "add", f"{self.host_address}/{self.prefix_length}", "dev", self.host_link)
            run_ip("ip", "link", "set", self.host_link, "up")

    def port(self, namespace: str, index: int | None = None) -> str:
        """The bridge's end of a host's veth: `port-<last part of its name>` (at most 15 bytes)."""
        name = f"port-{namespace.rsplit('-', 1)[-1]}"
        if len(name) > 15:
            position = list(self.addresses).index(namespace) if index is None else index
            name = f"port-{position}"
        return name

    def built(self) -> bool:
        return self.hub in namespaces()

    def remove(self) -> None:
        delete_netns(*self.addresses, self.hub)
        if self.host_link:
            run_ip("ip", "link", "delete", self.host_link, check=False)  # gone with the hub, unless left


# -- HTTP from where a daemon is reachable -------------------------------------------------

_REQUEST = (
    "import sys, urllib.request\n"
    "request = urllib.request.Request(sys.argv[1], method=sys.argv[2])\n"
    "with urllib.request.urlopen(request, timeout=float(sys.argv[3])) as answer:\n"
    "    sys.stdout.write(answer.read().decode())\n"
)


def http_json(
    url: str, namespace: str | None = None, method: str = "GET", timeout_s: float = 5.0
) -> dict[str, object]:
    """One HTTP request, from inside `namespace` when given (a Python process there, not a Hadoop
    JVM: the daemons bind addresses only it reaches); its JSON answer ({} for an empty body, e.g.
    WebHDFS SETPERMISSION); LabError with the last error line otherwise."""
    if namespace is None:
        try:
            request = urllib.request.Request(url, method=method)
            with urllib.request.urlopen(request, timeout=timeout_s) as answer:  # noqa: S310 (our URLs)
                body = answer.read().decode()
        except (OSError, ValueError) as exc:
            raise LabError(f"{url}: {exc}") from exc
        return dict(json.loads(body)) if body.strip() else {}
    command = [*in_netns(namespace), sys.executable, "-S", "-c", _REQUEST, url, method, str(timeout_s)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s + 15, check=False)
    except subprocess.TimeoutExpired as exc:
        raise LabError(f"{url}: no answer in {timeout_s + 15:.0f} s") from exc
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no answer"])[-1]
        raise LabError(f"{url}{f' in network namespace {namespace}' if namespace else ''}: {last}")
    try:
        return dict(json.loads(result.stdout)) if result.stdout.strip() else {}
    except ValueError as exc:
        raise LabError(f"{url}: not JSON: {result.stdout.strip()[:200]}") from exc


def jmx_bean(http_base: str, query: str, namespace: str | None = None) -> dict[str, object]:
    """The first JMX bean matching `query` at a daemon's HTTP address (`http://host:port`)."""
    beans = http_json(f"{http_base}/jmx?qry={query}", namespace).get("beans")
    if not isinstance(beans, list) or not beans:
        raise LabError(f"no JMX bean {query} at {http_base}")
    return dict(beans[0])


@dataclass(frozen=True)
class NameNodeState:
    """What the NameNode says of HDFS: live DataNodes, its state and whether it is in safe mode."""

    live_datanodes: int
    fs_state: str
    safemode: bool
    free_gib: float = 0.0

    def ready(self, datanodes: int = 1) -> bool:
        return self.live_datanodes >= datanodes and self.fs_state == "Operational" and not self.safemode


def namenode_state(http_base: str, namespace: str | None = None) -> NameNodeState:
    state = jmx_bean(http_base, "Hadoop:service=NameNode,name=FSNamesystemState", namespace)
    info = jmx_bean(http_base, "Hadoop:service=NameNode,name=NameNodeInfo", namespace)
    return NameNodeState(
        live_datanodes=int(str(state.get("NumLiveDataNodes", 0))),
        fs_state=str(state.get("FSState")),
        safemode=bool(str(info.get("Safemode", "")).strip()),
        free_gib=float(str(info.get("Free", 0))) / 1024**3,
    )


def active_nodemanagers(rm_http_base: str, namespace: str | None = None) -> int:
    metrics = http_json(f"{rm_http_base}/ws/v1/cluster/metrics", namespace)["clusterMetrics"]
    return int(metrics.get("activeNodes", 0))  # type: ignore[attr-defined]


def make_shared_dirs(
    namenode_http_base: str, paths: Sequence[str], namespace: str | None = None, timeout_s: float = 120.0
) -> None:
    """mkdir -p and mode 1777 through WebHDFS (as `hadoop fs -mkdir`/`-chmod`, without two JVMs).

    A NameNode just out of safe mode, its caches dropped, may answer slowly: each request is
    asked again until `timeout_s`."""
    base = f"{namenode_http_base}/webhdfs/v1"
    for path in paths:
        for op in ("MKDIRS&permission=1777", "SETPERMISSION&permission=1777"):

            def ask(op: str = op, path: str = path) -> dict[str, object] | LabError:
                try:
                    return http_json(f"{base}{path}?op={op}&user.name=root", namespace, "PUT", 30.0)
                except LabError as exc:
                    return exc

            answer, _ = wait_until(ask, lambda answer: not isinstance(answer, LabError), timeout_s, 1.0)
            if isinstance(answer, LabError):
                raise LabError(f"WebHDFS {op.split('&')[0]} {path} failed: {answer}")
            if op.startswith("MKDIRS") and answer.get("boolean") is not True:
                raise LabError(f"WebHDFS MKDIRS {path} answered {answer}")


# -- daemons -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Daemon:
    """One JVM daemon of an install: how it starts (main class, class path, configuration folder,
    heap, namespace) and where its PID file and log are. Its PID is the JVM's own (`ip netns
    exec` execs it), so it is stopped by that PID."""

    name: str  # the supervisor's name: run/<name>.pid, logs/<name>.log
    main_class: str
    classpath: Sequence[Path | str]  # the configuration folder first, as Hadoop's scripts put it
    conf_dir: Path
    home: Path  # hadoop.home.dir
    run_dir: Path
    log_dir: Path
    heap_mb: int | None = 256  # None: the heap is among `options`
    options: Sequence[str] = ()
    args: Sequence[str] = ()
    namespace: str | None = None

    @property
    def supervised(self) -> Supervised:
        return Supervised(self.name, self.run_dir / f"{self.name}.pid", self.log_dir / f"{self.name}.log")

    def java(self, *args: str, heap_mb: int | None = None) -> list[str]:
        """The JVM's command line (with `args` instead of the daemon's own, e.g. `-format`)."""
        heap = heap_mb or self.heap_mb
        return [
            str(java_home() / "bin" / "java"),
            *([f"-Xmx{heap}m"] if heap else []),
            *self.options,
            f"-Dhadoop.home.dir={self.home}",
            f"-Dhadoop.log.dir={self.log_dir}",
            "-cp",
            ":".join(str(path) for path in self.classpath),
            self.main_class,
            *(args or self.args),
        ]

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "JAVA_HOME": str(java_home()),
            "HADOOP_CONF_DIR": str(self.conf_dir),
        }

    def start(self) -> int:
        """Started unless it runs already; its PID."""
        workdir = self.run_dir / self.name
        workdir.mkdir(parents=True, exist_ok=True)
        return self.supervised.start([*in_netns(self.namespace), *self.java()], env=self.env(), cwd=workdir)

    def stop(self, timeout_s: float = 15.0, request_stop: Callable[[], bool] | None = None) -> None:
        self.supervised.stop(timeout_s, request_stop)

    def pid(self) -> int | None:
        return self.supervised.pid()

    @property
    def crashed(self) -> bool:
        return self.supervised.stale

    @property
    def rss_mb(self) -> float:
        return rss_mb(self.pid())

    def run_once(self, *args: str, log_name: str, heap_mb: int | None = None) -> None:
        """A one-off run of the daemon's main class with `args` (NameNode `-format`), in its
        namespace, output to `log_dir/<log_name>.log`; LabError naming the log when it fails."""
        log = self.log_dir / f"{log_name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as handle:
            result = subprocess.run(
                [*in_netns(self.namespace), *self.java(*args, heap_mb=heap_mb)],
                env=self.env(), stdout=handle, stderr=subprocess.STDOUT, check=False,
            )  # fmt: skip
        if result.returncode != 0:
            raise LabError(f"{self.name} {' '.join(args)} failed (exit {result.returncode}); see {log}")


def format_namenode(namenode: Daemon, cluster_id: str, log_name: str) -> None:
    """A new, empty HDFS for this NameNode (its name folder is the caller's to clear first)."""
    namenode.run_once("-format", "-nonInteractive", "-clusterId", cluster_id, log_name=log_name, heap_mb=256)


def wait_healthy(
    problems: Callable[[], Mapping[str, str]],
    daemons: Sequence[Daemon],
    what: str,
    timeout_s: float,
    on_failure: Callable[[], None] | None = None,
    interval_s: float = 0.5,
) -> None:
    """Wait until `problems()` is empty (what is not up yet, per daemon or host), failing early
    when a daemon has exited; then LabError with each problem and the logs to read, after
    `on_failure()` (stop what was started)."""

    def look() -> tuple[Mapping[str, str], bool]:
        crashed = [daemon for daemon in daemons if daemon.crashed]
        return problems(), bool(crashed)

    (found, crashed), ready = wait_until(
        look, lambda answer: answer[1] or not answer[0], timeout_s, interval_s
    )
    if ready and not crashed:
        return
    dead = {daemon.name: "exited (see its log)" for daemon in daemons if daemon.crashed}
    found = {**dead, **found}
    detail = "; ".join(f"{name}: {problem}" for name, problem in found.items())
    named = [daemon for daemon in daemons if daemon.name in found or any(key in daemon.name for key in found)]
    logs = ", ".join(str(daemon.supervised.log_file) for daemon in named or daemons)
    if on_failure is not None:
        on_failure()
    raise LabError(f"{what} ({detail or f'not healthy after {timeout_s:.0f} s'}); logs: {logs}")


def stop_daemons(daemons: Sequence[Daemon], timeout_s: float = 15.0) -> None:
    """Stop in the reverse order of `daemons` (the order they start in)."""
    for daemon in reversed(daemons):
        daemon.stop(timeout_s)


def stop_together(daemons: Sequence[Daemon], timeout_s: float = 15.0) -> None:
    """Stop every daemon at once (each JVM's shutdown hooks take seconds: a cluster's dozen
    one after the other took 48 s); for daemons that do not need each other to stop."""
    if not daemons:
        return
    with ThreadPoolExecutor(max_workers=len(daemons)) as pool:
        for done in [pool.submit(daemon.stop, timeout_s) for daemon in daemons]:
            done.result()


def hiveserver2_answers(host: str, port: int, timeout_s: float = 10.0) -> tuple[bool, str]:
    """(answers, detail) of a HiveServer2: its Thrift port, then `SELECT version()` as a client."""
    with socket.socket() as sock:
        sock.settimeout(min(timeout_s, 2.0))
        if sock.connect_ex((host, port)) != 0:
            return False, f"Thrift port {host}:{port} not open"
    from pyhive import hive

    try:
        connection = hive.connect(host, port=port, username=getpass.getuser(), auth="NONE")
    except Exception as exc:  # Thrift's and the server's errors alike: not answering yet
        return False, f"{host}:{port}: {exc}"
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT version()")
        version = cursor.fetchone()
        return True, f"Hive {str(version[0]).split()[0] if version else '?'}, query ok"
    except Exception as exc:
        return False, f"{host}:{port}: query failed: {exc}"
    finally:
        connection.close()


def port_open(host: str, port: int, timeout_s: float = 1.0) -> bool:
    with socket.socket() as sock:
        sock.settimeout(timeout_s)
        return sock.connect_ex((host, port)) == 0


def drop_page_cache() -> str:
    """`done`, or `not_permitted` where the kernel's page cache cannot be dropped (not root)."""
    subprocess.run(["sync"], check=False)
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return "not_permitted"
    return "done"
