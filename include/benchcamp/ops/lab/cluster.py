# Over 600 lines: the five hosts' table (addresses, ports, daemons per host) is what its site files,
# daemons, health checks and up/down all read; the stores' part can leave with that table next.
"""The lab cluster: five hosts as network namespaces on one bridge, a Hadoop cluster as a user has.

`benchcamp lab cluster up|status|down`. Hosts (addresses in 10.232.0.0/24, each its own
namespace joined by a veth pair to a bridge, with a leg for this machine at 10.232.0.254):

- `master` (10.232.0.10): HDFS NameNode, YARN ResourceManager, MapReduce JobHistory server,
  a Hive metastore (Thrift, its own Derby database) and a HiveServer2 that uses it and runs
  its queries as MapReduce jobs on YARN;
- `worker1..3` (.11-.13): a DataNode and a NodeManager each (HDFS replication 3; maps and
  reduces run in containers on the workers);
- `gateway` (.20): the edge host campaigns log in to, with the cluster's client configuration
  and no daemon of its own.

With `up --stores`, each worker also runs a Cassandra node: a three-node ring (every node a
seed, 16 tokens each); and HBase in distributed mode: a ZooKeeper and the HMaster on the master,
a RegionServer on each worker, its root folder on the cluster's HDFS. Both for the YCSB study's
`lab_cluster` environment.

Every host runs its own sshd on port 22 with its own host key, so a study reaches the cluster
only as it would reach a real one: SSH to the gateway (host key pinned), the NameNode's WebHDFS
and the JobHistory server at the master's address. Every daemon binds its host's address, never
127.0.0.1 and never another host's, so HDFS blocks, shuffles and RPCs cross the bridge. Built on
the Hadoop-install toolkit (`benchcamp.ops.toolkit`); its jars are the lab's YARN install's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops.lab.config import (
    CLIENT_JVM_OPTS,
    HBASE_JAVA17_OPTIONS,
    cassandra_jvm_options,
    cassandra_yaml,
    derby_metastore_properties,
    hbase_log4j2,
    hive_server_properties,
    sshd_config_text,
)
from benchcamp.ops.lab.hbase_probe import ProbeError, read_znodes
from benchcamp.ops.lab.install import ensure_installed
from benchcamp.ops.lab.layout import (
    CLUSTER_ADDRESSES,
    CLUSTER_HIVE_PORT,
    CLUSTER_PREFIX,
    HIVE_EXEC_JAR,
    cassandra_home,
    cluster_dir,
    hbase_home,
    hive_home,
    lab_dir,
    yarn_home,
    ycsb_classpath,
)
from benchcamp.ops.lab.services import (
    HBASE_SHUTDOWN_ARGS,
    cql_answers,
    ensure_ssh_keys,
    hbase_answers,
    request_hbase_shutdown,
)
from benchcamp.ops.supervisor import Supervised, rss_mb
from benchcamp.ops.toolkit import (
    DATANODE_CLASS,
    HIVESERVER2_CLASS,
    JOBHISTORY_CLASS,
    METASTORE_CLASS,
    NAMENODE_CLASS,
    NODEMANAGER_CLASS,
    RESOURCEMANAGER_CLASS,
    START_TIMEOUT_S,
    BridgeNetwork,
    Daemon,
    LabError,
    SiteValue,
    active_nodemanagers,
    drop_page_cache,
    format_namenode,
    hiveserver2_answers,
    http_json,
    in_netns,
    java17_options,
    java_home,
    make_shared_dirs,
    namenode_state,
    port_open,
    site_xml,
    stop_together,
    wait_healthy,
    write_conf,
)

PREFIX = CLUSTER_PREFIX
HUB = f"{PREFIX}-hub"
ADDRESSES = CLUSTER_ADDRESSES
WORKERS = ("worker1", "worker2", "worker3")
HOST_LINK = PREFIX
HOST_ADDRESS = "10.232.0.254"
REPLICATION = 3
SSH_PORT = 22
PORTS = {
    "namenode": 8020,
    "namenode_http": 9870,
    "resourcemanager_http": 8088,
    "jobhistory": 10020,
    "jobhistory_http": 19888,
    "datanode": 9866,
    "datanode_http": 9864,
    "datanode_ipc": 9867,
    "nodemanager": 8041,
    "nodemanager_localizer": 8040,
    "nodemanager_http": 8042,
    "metastore": 9083,
    "hiveserver2": CLUSTER_HIVE_PORT,
    "cassandra_storage": 7000,
    "cassandra_native": 9042,
    "zookeeper": 2181,
    "hbase_master": 16000,
    "hbase_regionserver": 16020,
}
# Each NodeManager offers 2 GB: an application master and four 384 MB tasks per worker.
NODE_MEMORY_MB = 2048
TASK_MEMORY_MB = 384
# Measured with `lab cluster status` (docs/operations/lab-cluster.md): 2.8 to 2.9 GB idle with
# Hive, 3.1 GB after a Hive query and a WordCount (HiveServer2's heap grows)
MEMORY_BUDGET_MB = 3584
# what `up --stores` adds: three Cassandra nodes, 0.7 GB each once up and 0.8 GB after tiny
# YCSB campaigns (measured 2026-11-28, docs/operations/lab-cluster.md), and HBase: 1.05 GB once
# up (ZooKeeper 0.15, HMaster 0.25, each region server 0.2-0.23) and 1.15 GB after a tiny YCSB
# campaign on it (region servers 0.24-0.25; measured 2026-11-28 with `lab cluster status`, same page)
STORES_MEMORY_BUDGET_MB = 2560 + 1280
DATA_ROOT = "/benchcamp"
DAEMONS: dict[str, tuple[str, ...]] = {
    "master": ("namenode", "resourcemanager", "jobhistory", "metastore", "hiveserver2"),
    **{worker: ("datanode", "nodemanager") for worker in WORKERS},
    "gateway": (),
}
# the YCSB stores `up --stores` starts: Cassandra's ring on the workers, HBase over the cluster
STORES: dict[str, tuple[str, ...]] = {
    "master": ("zookeeper", "hmaster"),
    **{worker: ("cassandra", "regionserver") for worker in WORKERS},
}
CASSANDRA_CLASS = "org.apache.cassandra.service.CassandraDaemon"
ZOOKEEPER_CLASS = "org.apache.hadoop.hbase.zookeeper.HQuorumPeer"
HMASTER_CLASS = "org.apache.hadoop.hbase.master.HMaster"
REGIONSERVER_CLASS = "org.apache.hadoop.hbase.regionserver.HRegionServer"
HBASE_DAEMONS = ("zookeeper", "hmaster", "regionserver")
# How long HBase's servers get to exit after the master's cluster shutdown (they close and flush
# every region first) before SIGKILL
HBASE_STOP_S = 45.0
CASSANDRA_TOKENS = 16  # Cassandra's default per node
CASSANDRA_HEAP_MB = 384  # the lab's single node has 512: three share this machine here
MAIN_CLASSES = {
    "cassandra": CASSANDRA_CLASS,
    "zookeeper": ZOOKEEPER_CLASS,
    "hmaster": HMASTER_CLASS,
    "regionserver": REGIONSERVER_CLASS,
    "namenode": NAMENODE_CLASS,
    "datanode": DATANODE_CLASS,
    "resourcemanager": RESOURCEMANAGER_CLASS,
    "nodemanager": NODEMANAGER_CLASS,
    "jobhistory": JOBHISTORY_CLASS,
    "metastore": METASTORE_CLASS,
    "hiveserver2": HIVESERVER2_CLASS,
}
HIVE_DAEMONS = ("metastore", "hiveserver2")
CAPACITY_SCHEDULER = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
HEAP_MB = {
    "namenode": 384,
    "resourcemanager": 384,
    "jobhistory": 256,
    "datanode": 160,
    "nodemanager": 256,
    "metastore": 256,
    # compiles queries and submits them; their maps and reduces run on the workers
    "hiveserver2": 640,
    # HBase: ZooKeeper keeps a few dozen znodes; the master holds no user region; a region
    # server's heap holds its memstores and block cache (the tiny and small ladders' tables are
    # megabytes)
    "zookeeper": 128,
    "hmaster": 256,
    "regionserver": 384,
}


def netns(host: str) -> str:
    return f"{PREFIX}-{host}"


def stores_marker() -> Path:
    """Present while the cluster runs its stores (`up --stores` until `down`)."""
    return cluster_dir() / "stores"


def host_daemons(host: str) -> tuple[str, ...]:
    """The daemons a host runs now: Hadoop's and Hive's, and the stores once `up --stores`."""
    return DAEMONS[host] + (STORES.get(host, ()) if stores_marker().exists() else ())


def host_dir(host: str) -> Path:
    """A host's own folder: its configuration, HDFS and YARN data, work folder and SSH host key."""
    return cluster_dir() / host


def conf_dir(host: str) -> Path:
    return host_dir(host) / "conf"


def hbase_conf_dir(host: str) -> Path:
    """A host's HBase configuration (hbase-site.xml, log4j2.properties), shared by its HBase daemons."""
    return host_dir(host) / "hbase-conf"


def zookeeper_data_dir() -> Path:
    """HBase's ZooKeeper's data, on the master (wiped before each start: `_start`)."""
    return host_dir("master") / "hbase" / "zookeeper"


def hive_conf_dir(name: str) -> Path:
    """The master's configuration of one Hive daemon (`metastore` or `hiveserver2`)."""
    return host_dir("master") / f"{name}-conf"


def network() -> BridgeNetwork:
    return BridgeNetwork(
        HUB,
        {netns(host): address for host, address in ADDRESSES.items()},
        host_link=HOST_LINK,
        host_address=HOST_ADDRESS,
    )


def url(port_name: str, path: str = "", host: str = "master") -> str:
    return f"http://{ADDRESSES[host]}:{PORTS[port_name]}{path}"


# -- configuration -------------------------------------------------------------------------


def site_files(host: str) -> dict[str, str]:
    """core/hdfs/yarn/mapred-site.xml of one host: the master's addresses for the services, the
    host's own for what it runs itself; its data under its own folder."""
    master, own, data = ADDRESSES["master"], ADDRESSES[host], host_dir(host) / "data"
    classpath = f"{conf_dir(host)},{yarn_home() / 'lib' / '*'}"
    task_opts = " ".join([CLIENT_JVM_OPTS, *java17_options()])
    core: dict[str, SiteValue] = {
        "fs.defaultFS": f"hdfs://{master}:{PORTS['namenode']}",
        "hadoop.tmp.dir": str(data / "tmp"),
    }
    hdfs: dict[str, SiteValue] = {
        "dfs.namenode.name.dir": str(data / "name"),
        "dfs.datanode.data.dir": str(data / "blocks"),
        "dfs.replication": REPLICATION,
        "dfs.permissions.enabled": False,
        "dfs.namenode.safemode.extension": 0,
        "dfs.namenode.rpc-address": f"{master}:{PORTS['namenode']}",
        "dfs.namenode.http-address": f"{master}:{PORTS['namenode_http']}",
        "dfs.namenode.secondary.http-address": f"{own}:0",
        "dfs.datanode.address": f"{own}:{PORTS['datanode']}",
        "dfs.datanode.http.address": f"{own}:{PORTS['datanode_http']}",
        "dfs.datanode.ipc.address": f"{own}:{PORTS['datanode_ipc']}",
        "dfs.datanode.hostname": own,
        # the hosts share this machine's name (a network namespace is not a UTS namespace):
        # DataNodes register by address
        "dfs.namenode.datanode.registration.ip-hostname-check": False,
        "dfs.heartbeat.interval": 1,
        "dfs.namenode.heartbeat.recheck-interval": 30_000,  # a lost DataNode is dead after ~40 s
        "dfs.http.policy": "HTTP_ONLY",
    }
    yarn: dict[str, SiteValue] = {
        "yarn.resourcemanager.hostname": master,
        "yarn.resourcemanager.webapp.address": f"{master}:{PORTS['resourcemanager_http']}",
        "yarn.resourcemanager.recovery.enabled": False,
        "yarn.resourcemanager.scheduler.class": CAPACITY_SCHEDULER,
        "yarn.nodemanager.hostname": own,
        "yarn.nodemanager.address": f"{own}:{PORTS['nodemanager']}",
        "yarn.nodemanager.localizer.address": f"{own}:{PORTS['nodemanager_localizer']}",
        "yarn.nodemanager.webapp.address": f"{own}:{PORTS['nodemanager_http']}",
        "yarn.nodemanager.aux-services": "mapreduce_shuffle",
        "yarn.nodemanager.aux-services.mapreduce_shuffle.class": "org.apache.hadoop.mapred.ShuffleHandler",
        "yarn.nodemanager.local-dirs": str(data / "nm-local"),
        "yarn.nodemanager.log-dirs": str(data / "nm-logs"),
        "yarn.nodemanager.resource.memory-mb": NODE_MEMORY_MB,
        "yarn.nodemanager.resource.cpu-vcores": 4,
        "yarn.nodemanager.vmem-check-enabled": False,
        "yarn.nodemanager.pmem-check-enabled": False,
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": "100.0",
        "yarn.nodemanager.delete.debug-delay-sec": 0,
        "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": 250,
        "yarn.scheduler.minimum-allocation-mb": 128,
        "yarn.scheduler.maximum-allocation-mb": NODE_MEMORY_MB,
        "yarn.log-aggregation-enable": False,
        "yarn.timeline-service.enabled": False,
        "yarn.application.classpath": classpath,
    }
    mapred: dict[str, SiteValue] = {
        "mapreduce.framework.name": "yarn",
        "mapreduce.application.classpath": classpath,
        "mapreduce.jobhistory.address": f"{master}:{PORTS['jobhistory']}",
        "mapreduce.jobhistory.webapp.address": f"{master}:{PORTS['jobhistory_http']}",
        "yarn.app.mapreduce.am.resource.mb": TASK_MEMORY_MB,
        "yarn.app.mapreduce.am.command-opts": f"-Xmx256m {task_opts}",
        "mapreduce.map.memory.mb": TASK_MEMORY_MB,
        "mapreduce.reduce.memory.mb": TASK_MEMORY_MB,
        "mapreduce.map.java.opts": f"-Xmx256m {task_opts}",
        "mapreduce.reduce.java.opts": f"-Xmx256m {task_opts}",
        "mapreduce.task.io.sort.mb": 64,
        "mapreduce.client.progressmonitor.pollinterval": 200,
        "mapreduce.client.completion.pollinterval": 200,
        "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms": 250,
    }
    # Hadoop's default scheduler with one queue; one container per node heartbeat, so a job's
    # tasks spread over the workers as on a busy cluster instead of filling the first to ask
    capacity: dict[str, SiteValue] = {
        "yarn.scheduler.capacity.root.queues": "default",
        "yarn.scheduler.capacity.root.default.capacity": 100,
        "yarn.scheduler.capacity.root.default.maximum-capacity": 100,
        "yarn.scheduler.capacity.maximum-am-resource-percent": 0.5,
        "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled": False,
    }
    comment = f"benchcamp lab cluster: host {host} ({own})"
    return {
        "capacity-scheduler.xml": site_xml(capacity, comment),
        "core-site.xml": site_xml(core, comment),
        "hdfs-site.xml": site_xml(hdfs, comment),
        "yarn-site.xml": site_xml(yarn, comment),
        "mapred-site.xml": site_xml(mapred, comment),
    }


def hive_site_files() -> dict[str, dict[str, str]]:
    """hive-site.xml of each Hive daemon on the master: the metastore owns its Derby database and
    serves it over Thrift; HiveServer2 reaches it there (as Spark or a second HiveServer2
    would), runs queries as MapReduce jobs on YARN (the master's mapred-site.xml) and keeps its
    local folders under the master's."""
    master, hive = ADDRESSES["master"], host_dir("master") / "hive"
    metastore: dict[str, SiteValue] = {
        **derby_metastore_properties(hive),
        "metastore.thrift.bind.host": master,
        "metastore.thrift.port": PORTS["metastore"],
        "metastore.compactor.initiator.on": False,
        "metastore.housekeeping.threads.on": False,
    }
    server: dict[str, SiteValue] = {
        **hive_server_properties(master, PORTS["hiveserver2"], hive),
        "hive.metastore.uris": f"thrift://{master}:{PORTS['metastore']}",
        # what a query's tasks need beyond hive-exec: Hadoop 3.4's class path no longer has
        # Commons Collections 3 (Hive's operators use it), so it travels with each job
        "hive.aux.jars.path": ",".join(f"file://{jar}" for jar in hive_task_jars()),
    }
    comment = f"benchcamp lab cluster: Hive on the master ({master})"
    return {"metastore": {"hive-site.xml": site_xml(metastore, comment)},
            "hiveserver2": {"hive-site.xml": site_xml(server, comment)}}  # fmt: skip


def hbase_site(host: str) -> str:
    """hbase-site.xml of one host: HBase in distributed mode, its root folder on the cluster's
    HDFS, one ZooKeeper on the master; each server binds and registers under its host's address
    (the hosts share this machine's name, so a region server known by name would be three
    servers of one name). Info (web UI) ports are off, as on the lab: nothing reads them."""
    master, own = ADDRESSES["master"], ADDRESSES[host]
    properties: dict[str, SiteValue] = {
        "hbase.cluster.distributed": True,
        "hbase.rootdir": hbase_root_url(),
        "hbase.tmp.dir": str(host_dir(host) / "hbase" / "tmp"),
        "hbase.zookeeper.quorum": master,
        "hbase.zookeeper.property.clientPort": PORTS["zookeeper"],
        "hbase.zookeeper.property.clientPortAddress": master,
        "hbase.zookeeper.property.dataDir": str(zookeeper_data_dir()),
        "hbase.master.hostname": master,
        "hbase.master.ipc.address": master,
        "hbase.master.port": PORTS["hbase_master"],
        "hbase.master.info.port": -1,
        "hbase.unsafe.regionserver.hostname": own,
        "hbase.regionserver.ipc.address": own,
        "hbase.regionserver.port": PORTS["hbase_regionserver"],
        "hbase.regionserver.info.port": -1,
    }
    return site_xml(properties, f"benchcamp lab cluster: HBase on host {host} ({own})")


def hbase_root_url() -> str:
    return f"hdfs://{ADDRESSES['master']}:{PORTS['namenode']}/hbase"


def shell_env(host: str) -> dict[str, str]:
    """What an SSH session on a host sees: the cluster's client configuration, `hadoop` on PATH."""
    java = java_home()
    return {
        "PATH": f"{repo_root() / 'lab' / 'bin'}:{java / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "JAVA_HOME": str(java),
        "HADOOP_HOME": str(yarn_home()),
        "HADOOP_CONF_DIR": str(conf_dir(host)),
        "HADOOP_CLIENT_OPTS": CLIENT_JVM_OPTS,
        "BENCHCAMP_WORK_DIR": str(host_dir(host) / "work"),
        "BENCHCAMP_WEBHDFS_URL": url("namenode_http"),
        # YCSB's client with benchcamp's bindings (built by `lab up --stores`), as on the lab
        "YCSB_CLASSPATH": ycsb_classpath(),
        # how a host's sessions log in to the other hosts (YCSB clients started from the gateway)
        "BENCHCAMP_SSH_CONFIG": str(hosts_ssh_config()),
    }


# -- hosts and daemons ---------------------------------------------------------------------


def daemon(host: str, name: str) -> Daemon:
    """One daemon of one host. Hive's run on Hive's jars (hive-exec whole: it is the job jar of
    every query's MapReduce job) and the cluster's Hadoop, as Hive's scripts start them on a
    cluster: its configuration after their own, its jars instead of the Hadoop client Hive was
    built with (a plan written with Hadoop 3.3's Writables could not be read by tasks on 3.4's)."""
    if name == "cassandra":
        return cassandra_daemon(host)
    if name in HBASE_DAEMONS:
        return hbase_daemon(host, name)
    hive = name in HIVE_DAEMONS
    classpath = (
        [hive_conf_dir(name), conf_dir(host), *hive_jars(), yarn_home() / "lib" / "*"]
        if hive
        else [conf_dir(host), yarn_home() / "lib" / "*"]
    )
    logs = lab_dir() / "logs"
    options = java17_options()
    if hive:
        options += [
            f"-Dderby.system.home={host_dir(host) / 'hive'}",
            f"-Dhive.log.dir={logs}",
            f"-Dhive.log.file=cluster-{host}-{name}-hive.log",
        ]
    return Daemon(
        f"cluster-{host}-{name}",
        MAIN_CLASSES[name],
        classpath,
        conf_dir(host),
        yarn_home(),
        lab_dir() / "run",
        logs,
        heap_mb=HEAP_MB[name],
        options=options,
        namespace=netns(host),
    )


def cassandra_conf(host: str) -> str:
    """A worker's cassandra.yaml: its own address, the three workers as seeds (they start
    together and none bootstraps from another), data under the worker's folder."""
    return cassandra_yaml(
        host_dir(host),
        ADDRESSES[host],
        seeds=[ADDRESSES[worker] for worker in WORKERS],
        ports=(PORTS["cassandra_storage"], PORTS["cassandra_native"]),
        cluster_name="benchcamp lab cluster",
        tokens=CASSANDRA_TOKENS,
    )


def cassandra_daemon(host: str) -> Daemon:
    """A worker's Cassandra node, as the lab's (services.py) but at the worker's address."""
    logs = lab_dir() / "logs"
    return Daemon(
        f"cluster-{host}-cassandra",
        CASSANDRA_CLASS,
        [cassandra_home() / "lib" / "*"],
        conf_dir(host),
        cassandra_home(),
        lab_dir() / "run",
        logs,
        heap_mb=None,
        options=cassandra_jvm_options(
            conf_dir(host) / "cassandra.yaml",
            host_dir(host) / "cassandra",
            logs / f"cluster-{host}-cassandra",
            CASSANDRA_HEAP_MB,
        ),
        namespace=netns(host),
    )


def hbase_daemon(host: str, name: str) -> Daemon:
    """One of HBase's daemons on a host: `zookeeper` (HBase's HQuorumPeer: a ZooKeeper server
    configured from hbase-site.xml), `hmaster` or `regionserver`, on the lab's HBase jars with the
    host's HBase configuration and then its Hadoop one (HDFS's client settings)."""
    logs = lab_dir() / "logs"
    return Daemon(
        f"cluster-{host}-{name}",
        MAIN_CLASSES[name],
        [hbase_conf_dir(host), conf_dir(host), hbase_home() / "lib" / "*"],
        conf_dir(host),
        hbase_home(),
        lab_dir() / "run",
        logs,
        heap_mb=HEAP_MB[name],
        options=[
            "-XX:+UseG1GC",
            *HBASE_JAVA17_OPTIONS,
            # ZooKeeper's AdminServer would take port 8080 of the master's address
            "-Dzookeeper.admin.enableServer=false",
            f"-Dhbase.log.dir={logs}",
            f"-Dhbase.log.file=cluster-{host}-{name}-hbase.log",
        ],
        args=() if name == "zookeeper" else ("start",),
        namespace=netns(host),
    )


def hive_jars() -> list[Path]:
    """Hive's own jars, without the Hadoop client it was built with; hive-exec first: it bundles
    the libraries it was built with (ANTLR 3.5), which older copies in lib/ (3.3) must not hide."""
    lib = hive_home() / "lib"
    names = sorted(
        name for name in os.listdir(lib) if name.endswith(".jar") and not name.startswith("hadoop-")
    )
    names.sort(key=lambda name: name != HIVE_EXEC_JAR)
    return [lib / name for name in names]


def hive_task_jars() -> list[Path]:
    """Jars every Hive query's tasks get beside hive-exec (`hive.aux.jars.path`)."""
    return sorted((hive_home() / "lib").glob("commons-collections-3*.jar"))


def daemons() -> list[Daemon]:
    """Every daemon, in the order they start: HDFS, YARN, JobHistory, Hive, then the stores
    (Cassandra, then HBase's ZooKeeper, master and region servers)."""
    order = (
        "namenode",
        "datanode",
        "resourcemanager",
        "nodemanager",
        "jobhistory",
        *HIVE_DAEMONS,
        "cassandra",
        *HBASE_DAEMONS,
    )
    return [daemon(host, name) for name in order for host in ADDRESSES if name in host_daemons(host)]


def sshd(host: str) -> Supervised:
    """A host's sshd (it daemonises and writes its own PID file)."""
    name = f"cluster-{host}-sshd"
    return Supervised(name, lab_dir() / "run" / f"{name}.pid", lab_dir() / "logs" / f"{name}.log")


def known_hosts() -> Path:
    """Every host's key at its address: what a connection to the cluster pins."""
    return cluster_dir() / "ssh" / "known_hosts"


def client_key() -> Path:
    return cluster_dir() / "ssh" / "client_ed25519"


def hosts_ssh_config() -> Path:
    """The ssh_config with which the hosts log in to one another (BENCHCAMP_SSH_CONFIG in their
    sessions): the cluster's client key, its hosts' keys pinned, never a password."""
    return cluster_dir() / "ssh" / "config"


def hosts_ssh_config_text() -> str:
    return "\n".join(
        [
            "Host *",
            f"  IdentityFile {client_key()}",
            "  IdentitiesOnly yes",
            f"  UserKnownHostsFile {known_hosts()}",
            "  StrictHostKeyChecking yes",
            "  BatchMode yes",
            "",
        ]
    )


def host_key(host: str) -> str:
    """`ssh-ed25519 AAAA...` of a host (an Airflow SSH connection's `host_key`)."""
    return " ".join((host_dir(host) / "ssh" / "host_ed25519.pub").read_text().split()[:2])


def start_sshd(host: str) -> None:
    if sshd(host).pid() is not None:
        return
    directory = host_dir(host)
    (directory / "work").mkdir(parents=True, exist_ok=True)
    ensure_ssh_keys(directory / "ssh")
    authorized = directory / "ssh" / "authorized_keys"
    authorized.write_text(client_key().with_suffix(".pub").read_text())
    authorized.chmod(0o600)
    config = directory / "sshd_config"
    text = sshd_config_text(directory, SSH_PORT, shell_env(host), ADDRESSES[host], sshd(host).pid_file)
    config.write_text(text)
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    sshd(host).pid_file.unlink(missing_ok=True)
    # sshd writes its PID file only into a folder that exists (a new clone has no .lab/run yet):
    # without it sshd serves, unknown to `status` and `down`
    sshd(host).pid_file.parent.mkdir(parents=True, exist_ok=True)
    sshd(host).log_file.parent.mkdir(parents=True, exist_ok=True)
    command = [
        "ip",
        "netns",
        "exec",
        netns(host),
        "/usr/sbin/sshd",
        "-f",
        str(config),
        "-E",
        str(sshd(host).log_file),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise LabError(f"sshd on {host} did not start: {result.stderr.strip()}; see {sshd(host).log_file}")


# -- status --------------------------------------------------------------------------------


@dataclass
class DaemonStatus:
    host: str
    name: str
    pid: int | None
    healthy: bool
    rss_mb: float
    detail: str


@dataclass
class ClusterStatus:
    daemons: list[DaemonStatus] = field(default_factory=list)
    note: str = ""
    spark: str = ""  # where Spark's jars are on HDFS, or that they are not there
    budget_mb: int = MEMORY_BUDGET_MB  # with the stores: STORES_MEMORY_BUDGET_MB more

    @property
    def healthy(self) -> bool:
        return bool(self.daemons) and all(each.healthy for each in self.daemons)

    @property
    def total_rss_mb(self) -> float:
        return sum(each.rss_mb for each in self.daemons)

    def problems(self) -> dict[str, str]:
        return {f"{each.host} {each.name}": each.detail for each in self.daemons if not each.healthy}

    def format(self) -> str:
        lines = [
            f"lab cluster: {cluster_dir()} (bridge {HUB}, this machine at {HOST_ADDRESS})",
            f"{'host':<8} {'address':<12} {'daemon':<16} {'pid':>8} {'state':<9} {'rss MB':>7}  detail",
        ]
        for each in self.daemons:
            state = "healthy" if each.healthy else ("unhealthy" if each.pid else "stopped")
            pid = str(each.pid) if each.pid else "-"
            lines.append(
                f"{each.host:<8} {ADDRESSES[each.host]:<12} {each.name:<16} {pid:>8} {state:<9} "
                f"{each.rss_mb:>7.0f}  {each.detail}"
            )
        if self.spark:
            lines.append(self.spark)
        if self.note:
            lines.append(self.note)
        lines.append(f"total RSS: {self.total_rss_mb:.0f} MB (budget {self.budget_mb} MB)")
        return "\n".join(lines)


def _checks() -> dict[str, tuple[bool, str]]:
    """(healthy, detail) per daemon kind, each asked once over the host leg."""
    checks: dict[str, tuple[bool, str]] = {"namenode": _checks_namenode()}
    try:
        active = active_nodemanagers(url("resourcemanager_http"))
        checks["resourcemanager"] = (active >= len(WORKERS), f"{active} active NodeManager(s)")
    except (LabError, KeyError) as exc:
        checks["resourcemanager"] = (False, str(exc))
    try:
        info = http_json(url("jobhistory_http", "/ws/v1/history/info"))["historyInfo"]
        version = info.get("hadoopVersion") if isinstance(info, dict) else None
        checks["jobhistory"] = (True, f"Hadoop {version}, REST ok")
    except (LabError, KeyError) as exc:
        checks["jobhistory"] = (False, str(exc))
    master = ADDRESSES["master"]
    open_ = port_open(master, PORTS["metastore"])
    checks["metastore"] = (
        open_,
        f"Thrift {'open' if open_ else 'not open'} at {master}:{PORTS['metastore']}",
    )
    checks["hiveserver2"] = hiveserver2_answers(master, PORTS["hiveserver2"])
    if stores_marker().exists():
        checks["zookeeper"] = _zookeeper_answers()
        try:
            checks["hmaster"] = hbase_answers(master, PORTS["zookeeper"])
        except (ProbeError, OSError) as exc:
            checks["hmaster"] = (False, str(exc))
    return checks


def _zookeeper_answers() -> tuple[bool, str]:
    """HBase's ZooKeeper serves a client session at the master's address."""
    master, port = ADDRESSES["master"], PORTS["zookeeper"]
    try:
        _, children = read_znodes(master, port, (), ("/",))
    except ProbeError as exc:
        return False, str(exc)
    return True, f"answers at {master}:{port} (znodes: {', '.join(sorted(children['/'] or []))})"


def region_server_check(host: str) -> tuple[bool, str]:
    """A worker's region server has registered with the cluster (its znode under /hbase/rs, named
    by the worker's address and port) and accepts connections there."""
    own, port = ADDRESSES[host], PORTS["hbase_regionserver"]
    try:
        _, children = read_znodes(ADDRESSES["master"], PORTS["zookeeper"], (), ("/hbase/rs",))
    except ProbeError as exc:
        return False, str(exc)
    registered = [name for name in children["/hbase/rs"] or [] if name.startswith(f"{own},{port},")]
    if not registered:
        return False, f"not registered in ZooKeeper (no {own},{port} under /hbase/rs)"
    if not port_open(own, port):
        return False, f"registered as {registered[0]}, port {own}:{port} not open"
    return True, f"registered as {registered[0]}"


def _worker_check(host: str, name: str) -> tuple[bool, str]:
    if name == "cassandra":
        try:
            return cql_answers(ADDRESSES[host], PORTS["cassandra_native"])
        except OSError as exc:
            return False, f"CQL port {ADDRESSES[host]}:{PORTS['cassandra_native']}: {exc}"
    if name == "regionserver":
        return region_server_check(host)
    port = PORTS["datanode_http" if name == "datanode" else "nodemanager_http"]
    path = "/jmx?qry=Hadoop:service=DataNode,name=DataNodeInfo" if name == "datanode" else "/ws/v1/node/info"
    try:
        answer = http_json(f"http://{ADDRESSES[host]}:{port}{path}")
    except LabError as exc:
        return False, str(exc)
    if name == "datanode":
        return True, "answers"
    info = answer.get("nodeInfo")
    healthy = isinstance(info, dict) and bool(info.get("nodeHealthy"))
    return healthy, "healthy" if healthy else f"unhealthy: {info}"


def cluster_status() -> ClusterStatus:
    if not network().built():
        return ClusterStatus(note="the cluster is down (no bridge): benchcamp lab cluster up")
    checks = _checks()
    found: list[DaemonStatus] = []
    for host in ADDRESSES:
        pid = sshd(host).pid()
        open_ = pid is not None and port_open(ADDRESSES[host], SSH_PORT)
        detail = "port 22 open" if open_ else ("port 22 closed" if pid else "not running")
        found.append(DaemonStatus(host, "sshd", pid, open_, rss_mb(pid), detail))
        for name in host_daemons(host):
            each = daemon(host, name)
            pid = each.pid()
            if pid is None:
                why = f"crashed; see {each.supervised.log_file}" if each.crashed else "not running"
                found.append(DaemonStatus(host, name, None, False, 0.0, why))
                continue
            ok, detail = checks[name] if name in checks else _worker_check(host, name)
            found.append(DaemonStatus(host, name, pid, ok, rss_mb(pid), detail))
    stores = STORES_MEMORY_BUDGET_MB if stores_marker().exists() else 0
    return ClusterStatus(found, spark=_spark_jars_state(), budget_mb=MEMORY_BUDGET_MB + stores)


def _spark_jars_state() -> str:
    """Whether Spark's jars are on HDFS for Spark on YARN (a line of `status`)."""
    try:
        target = spark_jars_dir(spark_jars()[0])
        summary = http_json(url("namenode_http", f"/webhdfs/v1{target}?op=GETCONTENTSUMMARY&user.name=root"))
        content = summary["ContentSummary"]
        if not isinstance(content, dict):
            raise KeyError("ContentSummary")
        return (
            f"Spark's jars: {target} on HDFS ({content['fileCount']} files, {content['length'] / 1e6:.0f} MB)"
        )
    except (LabError, KeyError) as exc:
        return f"Spark's jars: not on HDFS ({str(exc)[:120]}); `lab cluster up` puts them there"


# -- up and down ---------------------------------------------------------------------------


def namespace_problem() -> str | None:
    """Why this machine cannot have the cluster (None: it can)."""
    if os.geteuid() != 0:
        return "network namespaces need root (run as root, or point the studies at a real cluster)"
    if subprocess.run(["ip", "netns", "list"], capture_output=True, check=False).returncode != 0:
        return "`ip netns` does not work here (iproute2 missing?)"
    return None


def cluster_running() -> bool:
    """Any of the cluster's daemons or hosts' sshd runs (what `down` would stop)."""
    return any(each.pid() is not None for each in daemons()) or any(
        sshd(host).pid() is not None for host in ADDRESSES
    )


def cluster_up(*, spark: bool = True, stores: bool = False) -> ClusterStatus:
    """Build the hosts and start every daemon not running; wait until all are healthy. HDFS is
    formatted on first use only (its data stays across `down` and `up`). With `spark`, Spark's
    jars are put on HDFS if they are not there yet (`provide_spark_jars`); with `stores`, until
    `down`, a Cassandra node on each worker too (a three-node ring) and HBase (ZooKeeper and
    HMaster on the master, a RegionServer on each worker, its root folder on HDFS)."""
    problem = namespace_problem()
    if problem:
        raise LabError(f"the lab cluster cannot start: {problem}")
    ensure_installed()
    if stores:
        from benchcamp.ops.lab.install import ensure_stores_installed

        ensure_stores_installed()
        stores_marker().parent.mkdir(parents=True, exist_ok=True)
        stores_marker().touch()
    started = time.monotonic()
    if not network().built():
        network().remove()  # a half-built one (an interrupted up)
        network().build()
    ensure_ssh_keys(cluster_dir() / "ssh")
    for host in ADDRESSES:
        _prepare(host)
    known_hosts().write_text("".join(f"{address} {host_key(host)}\n" for host, address in ADDRESSES.items()))
    hosts_ssh_config().write_text(hosts_ssh_config_text())
    for host in ADDRESSES:
        start_sshd(host)
    namenode = daemon("master", "namenode")
    if not (host_dir("master") / "data" / "name" / "current" / "VERSION").exists():
        format_namenode(namenode, "benchcamp-cluster", "cluster-format")
    hdfs = [each for each in daemons() if each.main_class in (NAMENODE_CLASS, DATANODE_CLASS)]
    for each in hdfs:
        each.start()

    def hdfs_problems() -> dict[str, str]:
        ok, detail = _checks_namenode()
        return {} if ok else {"master namenode": detail}

    wait_healthy(hdfs_problems, hdfs, "HDFS did not come up with 3 DataNodes", START_TIMEOUT_S)
    make_shared_dirs(
        url("namenode_http"),
        ["/tmp", "/tmp/hive", "/user", "/user/hive/warehouse", DATA_ROOT],
        timeout_s=START_TIMEOUT_S,
    )
    if spark:
        provide_spark_jars()
    for each in daemons():
        _start(each)
    wait_healthy(
        lambda: cluster_status().problems(), daemons(), "the lab cluster is not healthy", START_TIMEOUT_S
    )
    status = cluster_status()
    status.note = f"up in {time.monotonic() - started:.0f} s"
    return status


def spark_jars() -> tuple[str, list[Path]]:
    """Spark's version and jars as the lab has them: the runtime of the project's Spark program
    (lab/bigbench-ml/target/lib, built by `make setup` with the other Java tools)."""
    lib = repo_root() / "lab" / "bigbench-ml" / "target" / "lib"
    cores = sorted(lib.glob("spark-core_*.jar"))
    if not cores or not any(lib.glob("spark-yarn_*.jar")):
        raise LabError(f"Spark's jars (spark-core, spark-yarn) are not in {lib}: run `make setup`")
    version = cores[0].stem.rsplit("-", 1)[-1]
    return version, sorted(lib.glob("*.jar"))


def spark_jars_dir(version: str) -> str:
    """Where the cluster keeps Spark's jars on HDFS, as a cluster with Spark installed does: a
    Spark step on YARN names them (`spark.yarn.jars`) instead of uploading 240 MB per job."""
    return f"/apps/spark/{version}/jars"


def provide_spark_jars() -> str:
    """Put Spark's jars on the cluster's HDFS (from the gateway, with three replicas) unless a
    complete copy is there: written to a folder beside it, renamed when complete, so a stopped
    upload never looks complete. Returns the HDFS folder."""
    version, jars = spark_jars()
    target = spark_jars_dir(version)
    try:
        http_json(url("namenode_http", f"/webhdfs/v1{target}?op=GETFILESTATUS&user.name=root"))
        return target
    except LabError:
        pass
    partial = f"{target}.partial"
    hadoop = [*in_netns(netns("gateway")), "hadoop"]  # the gateway's client, as its SSH sessions have it
    env = {**os.environ, **shell_env("gateway")}
    script = [
        [*hadoop, "fs", "-rm", "-r", "-f", "-skipTrash", partial],
        [*hadoop, "fs", "-mkdir", "-p", partial],
        [*hadoop, "fs", "-put", *map(str, jars), partial],
        [*hadoop, "fs", "-mv", partial, target],
    ]
    for command in script:
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["no message"])[-1]
            raise LabError(f"putting Spark's jars on the cluster's HDFS failed ({command[-2]}): {last}")
    return target


def _start(each: Daemon) -> None:
    """Start one daemon unless it runs. HiveServer2 once the metastore listens. HBase's ZooKeeper
    on an empty data folder, as the lab's standalone one (services._start_hbase): in HBase 2.6 it
    holds only coordination state (the meta location is kept in the master's own store on HDFS,
    table states in hbase:meta), and a server killed mid-way would otherwise leave its ephemeral
    znodes behind for a session timeout, which would make the health checks believe a dead one."""
    if each.pid() is not None:
        return
    if each.main_class == HIVESERVER2_CLASS:
        _wait_for_metastore()
    if each.main_class == ZOOKEEPER_CLASS:
        shutil.rmtree(zookeeper_data_dir(), ignore_errors=True)
    each.start()


def _wait_for_metastore() -> None:
    """HiveServer2 asks the metastore as it starts: started before its port opens, it waits a
    minute between attempts."""
    metastore = daemon("master", "metastore")
    wait_healthy(
        lambda: (
            {} if port_open(ADDRESSES["master"], PORTS["metastore"]) else {"master metastore": "port closed"}
        ),
        [metastore],
        "the Hive metastore did not open its port",
        START_TIMEOUT_S,
    )


def _prepare(host: str) -> None:
    """A host's folders, configuration and SSH host key."""
    for sub in ("data", "work", "ssh"):
        (host_dir(host) / sub).mkdir(parents=True, exist_ok=True)
    log4j = repo_root() / "lab" / "hadoop" / "log4j.properties"
    write_conf(conf_dir(host), site_files(host), log4j)
    ensure_ssh_keys(host_dir(host) / "ssh")
    if "cassandra" in host_daemons(host):
        (conf_dir(host) / "cassandra.yaml").write_text(cassandra_conf(host), encoding="utf-8")
    if set(HBASE_DAEMONS) & set(host_daemons(host)):
        log = "${sys:hbase.log.dir}/${sys:hbase.log.file}"
        write_conf(
            hbase_conf_dir(host),
            {"hbase-site.xml": hbase_site(host), "log4j2.properties": hbase_log4j2(lab_dir(), log)},
        )
    if "hiveserver2" in DAEMONS[host]:
        for name, files in hive_site_files().items():
            write_conf(hive_conf_dir(name), files)
        for sub in ("scratch", "resources", "querylog", "operation_logs"):
            (host_dir(host) / "hive" / sub).mkdir(parents=True, exist_ok=True)


def _checks_namenode() -> tuple[bool, str]:
    try:
        state = namenode_state(url("namenode_http"))
    except LabError as exc:
        return False, str(exc)
    detail = f"{state.live_datanodes} live DataNode(s), safe mode {'ON' if state.safemode else 'off'}"
    return state.ready(len(WORKERS)), f"{detail}, {state.fs_state}, {state.free_gib:.1f} GiB free"


# what each host keeps of HDFS and YARN under its data folder (site_files): a reformat removes it
HADOOP_DATA = ("name", "blocks", "tmp", "nm-local", "nm-logs")


def reformat() -> list[str]:
    """The storage protocol of a study that starts every experiment on a new HDFS
    (`reformat_storage`), as its `reformat_command` runs it from the gateway: every Hadoop
    daemon stopped, the page cache dropped, each host's HDFS and YARN data removed, a new HDFS
    formatted, everything started again and healthy. Returns name=value lines for the archive.

    Hive's metastore and HiveServer2 stay up (they keep no HDFS state a new session needs:
    HiveServer2 makes its scratch folders again per session), which halves the protocol's time.
    With the stores, HBase stops first and starts again on the new HDFS, empty: its root folder
    is on HDFS (Cassandra keeps its data on the workers' disks and stays up).
    A real cluster's own command does the same with its tools (its stop and start scripts, or
    its manager's API)."""
    started = time.monotonic()
    if not network().built():
        raise LabError("the lab cluster is not up: `benchcamp lab cluster up` first")
    _stop_daemons(keep=(*HIVE_DAEMONS, "cassandra"))
    for host in ADDRESSES:
        for sub in HADOOP_DATA:
            shutil.rmtree(host_dir(host) / "data" / sub, ignore_errors=True)
    dropped = drop_page_cache()
    # formats the NameNode (its folder is gone); Spark's jars wait for the next `up` (a campaign's
    # preflight): the study that reformats never runs Spark, and the upload would cost each cell
    cluster_up(spark=False)
    return [
        "hdfs_formatted=yes",
        f"drop_caches={dropped}",
        f"hdfs_datanodes={namenode_state(url('namenode_http')).live_datanodes}",
        f"protocol_s={time.monotonic() - started:.1f}",
    ]


def _stop_daemons(keep: tuple[str, ...] = ()) -> None:
    """HBase's servers (a cluster shutdown through the master) beside Cassandra, Hive, JobHistory
    and YARN, stopped together; then HBase's ZooKeeper, then HDFS together (HBase flushes its
    regions to HDFS as it stops); not the daemons `keep` names."""
    kept = {MAIN_CLASSES[name] for name in keep}
    everything = [each for each in daemons() if each.main_class not in kept]
    hdfs = [each for each in everything if each.main_class in (NAMENODE_CLASS, DATANODE_CLASS)]
    hbase = [each for each in everything if each.main_class in (HMASTER_CLASS, REGIONSERVER_CLASS)]
    zookeeper = [each for each in everything if each.main_class == ZOOKEEPER_CLASS]
    rest = [each for each in everything if each not in (*hdfs, *hbase, *zookeeper)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(_stop_hbase, hbase), pool.submit(stop_together, rest)]:
            done.result()
    stop_together(zookeeper)
    stop_together(hdfs)


def _stop_hbase(servers: list[Daemon]) -> None:
    """`HMaster stop --shutDownCluster` (the master closes every region, flushing its memstore,
    and every server exits), then each server waited for; SIGTERM instead when the request does
    not get through. Stopped by signal alone, the servers left WALs whose replay (a crash
    procedure per server) slowed the next start."""
    running = [each for each in servers if each.pid() is not None]
    if not running:
        return
    requested = any(each.main_class == HMASTER_CLASS for each in running) and _request_hbase_stop()
    with ThreadPoolExecutor(max_workers=len(running)) as pool:
        for done in [pool.submit(each.stop, HBASE_STOP_S, lambda: requested) for each in running]:
            done.result()


def _request_hbase_stop() -> bool:
    """The cluster shutdown request, from the master's host with its configuration; False when it
    did not get through in 60 s."""
    master = daemon("master", "hmaster")
    command = master.java(*HBASE_SHUTDOWN_ARGS, heap_mb=128)
    log = lab_dir() / "logs" / "cluster-master-hbase-stop.log"
    return request_hbase_shutdown([*in_netns(netns("master")), *command], log, 60, master.env())


def cluster_down() -> None:
    """Stop every daemon (HBase by a cluster shutdown beside the stores, Hive, JobHistory and YARN,
    then HBase's ZooKeeper, then HDFS: `_stop_daemons`), every sshd, remove the hosts."""
    _stop_daemons()
    stores_marker().unlink(missing_ok=True)
    for host in ADDRESSES:
        sshd(host).stop(10.0)
    network().remove()
