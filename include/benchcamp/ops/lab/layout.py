"""Where the lab lives: its directory, ports, Java and the installed jars.

Every path the lab writes (HDFS blocks, the Hive metastore, logs, PID files) is
under one directory, `.lab/` or $BENCHCAMP_LAB_DIR; every port can be moved with
$BENCHCAMP_LAB_<NAME>_PORT when the default is taken on a machine.
"""

from __future__ import annotations

import os
from pathlib import Path

from benchcamp.core.paths import repo_root

# the toolkit's, named here too for the lab's modules
from benchcamp.ops.toolkit import LabError as LabError
from benchcamp.ops.toolkit import java_home as java_home

HADOOP_VERSION = "3.4.2"
HIVE_VERSION = "4.0.1"
CASSANDRA_VERSION = "5.0.9"
HBASE_VERSION = "2.6.4-hadoop3"  # the newest 2.6 hbase-server built for Hadoop 3 on Maven Central
LAB_CONNECTION_ID = "benchcamp_lab_ssh"
LAB_HIVE_CONNECTION_ID = "benchcamp_lab_hive"
HDFS_BASE_PATH = "/benchcamp"
DEFAULT_PORTS = {
    "ssh": 2222,
    "namenode": 8020,
    "namenode_http": 9870,
    "datanode": 9866,
    "datanode_http": 9864,
    "datanode_ipc": 9867,
    "hiveserver2": 10000,
    # YARN lives in its own network namespace (YARN_NETNS): these ports are on its loopback
    "resourcemanager_http": 8088,
    "nodemanager_http": 8042,
    "jobhistory_http": 19888,
    # the YCSB stores, started only on request (lab up --stores)
    "cassandra_native": 9042,
    "cassandra_storage": 7000,
    "hbase_zookeeper": 2181,  # HBase's embedded ZooKeeper (standalone mode): clients start here
    "hbase_master": 16000,
    "hbase_regionserver": 16020,
}
YARN_NETNS = "benchcamp-yarn"
# The lab cluster (ops/lab/cluster.py): five hosts on a bridge, this machine's leg at .254
# the lab cluster's network namespaces and PID files are named with these (cluster.py): the
# one-host lab's `down` leaves them to `lab cluster down`
CLUSTER_PREFIX = "benchcamp-cl"
CLUSTER_PID_PREFIX = "cluster-"
CLUSTER_CONNECTION_ID = "benchcamp_cluster_ssh"
CLUSTER_HIVE_CONNECTION_ID = "benchcamp_cluster_hive"  # HiveServer2 on the master
CLUSTER_HIVE_PORT = 10000
CLUSTER_ADDRESSES = {
    "master": "10.232.0.10",
    "worker1": "10.232.0.11",
    "worker2": "10.232.0.12",
    "worker3": "10.232.0.13",
    "gateway": "10.232.0.20",
}
DEFAULT_SSH_PORT = DEFAULT_PORTS["ssh"]


def lab_dir() -> Path:
    return Path(os.environ.get("BENCHCAMP_LAB_DIR") or repo_root() / ".lab")


def port(name: str) -> int:
    return int(os.environ.get(f"BENCHCAMP_LAB_{name.upper()}_PORT", DEFAULT_PORTS[name]))


def ssh_port() -> int:
    return port("ssh")


def hadoop_home() -> Path:
    return repo_root() / "lab" / "hadoop"


def hive_home() -> Path:
    return repo_root() / "lab" / "hive"


HIVE_EXEC_JAR = f"hive-exec-{HIVE_VERSION}.jar"


def hive_exec_classes() -> Path:
    """hive-exec's jar unpacked (`install.ensure_installed`): HiveServer2's classpath has this
    directory where the jar was (`services.hive_classpath`). Hive's in-process MapReduce jobs
    (ExecDriver) take the jar that holds their classes as the job jar, and Hadoop's job submission
    copied that 83 MB jar (with a checksum file) into the local staging directory for every local
    job: 0.15 s per job on an idle lab, 0.3 s under load, 121 jobs per BigBench pass. From a
    directory there is no job jar; LocalJobRunner runs the tasks on the server's own classpath."""
    return hive_home() / "exec-classes"


def yarn_home() -> Path:
    return repo_root() / "lab" / "yarn"


def cassandra_home() -> Path:
    return repo_root() / "lab" / "cassandra"


def ycsb_home() -> Path:
    return repo_root() / "lab" / "ycsb"


def ycsb_classpath() -> str:
    """The YCSB client with benchcamp's bindings: `java -cp <this> site.ycsb.Client ...`."""
    home = ycsb_home()
    return f"{home / 'target' / 'benchcamp-ycsb.jar'}:{home / 'lib'}/*"


def cassandra_conf_dir() -> Path:
    return lab_dir() / "conf" / "cassandra"


def hbase_home() -> Path:
    return repo_root() / "lab" / "hbase"


def hbase_conf_dir() -> Path:
    return lab_dir() / "conf" / "hbase"


def yarn_conf_dir() -> Path:
    return lab_dir() / "conf" / "yarn"


def hadoop_conf_dir() -> Path:
    return lab_dir() / "conf" / "hadoop"


def hive_conf_dir() -> Path:
    return lab_dir() / "conf" / "hive"


def cluster_dir() -> Path:
    """The lab cluster's hosts' folders, its client key and known hosts."""
    return lab_dir() / "cluster"
