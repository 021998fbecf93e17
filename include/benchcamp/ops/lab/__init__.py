"""The local lab: real services on 127.0.0.1, started and stopped by the project.

sshd (the SSH target every campaign goes through), an HDFS NameNode and DataNode
(Hadoop 3.4.2, MapReduce in local mode on top of it), a HiveServer2 (Hive
4.0.1, embedded Derby metastore, warehouse on the lab HDFS) and, where a network
namespace can be made (root), a YARN ResourceManager, NodeManager and MapReduce
JobHistory server inside one that has only loopback (for per-task phase times). Everything lives
under one directory (`.lab/` or $BENCHCAMP_LAB_DIR); services are stopped by
their own PIDs. `benchcamp lab up|down|status` drives it.
"""

from benchcamp.ops.lab.config import (
    CLIENT_JVM_OPTS,
    airflow_connection_env,
    hadoop_site_files,
    hive_site,
    host_public_key,
    lab_ssh_connection_ids,
    sshd_config_text,
    target_shell_env,
    yarn_site_files,
)
from benchcamp.ops.lab.install import ensure_installed
from benchcamp.ops.lab.layout import (
    CLUSTER_CONNECTION_ID,
    CLUSTER_HIVE_CONNECTION_ID,
    DEFAULT_PORTS,
    DEFAULT_SSH_PORT,
    HDFS_BASE_PATH,
    LAB_CONNECTION_ID,
    LAB_HIVE_CONNECTION_ID,
    LabError,
    hadoop_home,
    java_home,
    lab_dir,
    port,
    ssh_port,
    yarn_home,
)
from benchcamp.ops.lab.services import (
    MEMORY_BUDGET_MB,
    SERVICES,
    LabStatus,
    ServiceStatus,
    ensure_ssh_keys,
    format_hdfs,
    lab_down,
    lab_services,
    lab_status,
    lab_up,
    netns_http_json,
    read_pid,
    service_named,
    yarn_enabled,
)

__all__ = [
    "CLIENT_JVM_OPTS",
    "CLUSTER_CONNECTION_ID",
    "CLUSTER_HIVE_CONNECTION_ID",
    "DEFAULT_PORTS",
    "DEFAULT_SSH_PORT",
    "HDFS_BASE_PATH",
    "LAB_CONNECTION_ID",
    "LAB_HIVE_CONNECTION_ID",
    "MEMORY_BUDGET_MB",
    "SERVICES",
    "LabError",
    "LabStatus",
    "ServiceStatus",
    "airflow_connection_env",
    "ensure_installed",
    "ensure_ssh_keys",
    "format_hdfs",
    "hadoop_home",
    "hadoop_site_files",
    "hive_site",
    "host_public_key",
    "java_home",
    "lab_dir",
    "lab_down",
    "lab_ssh_connection_ids",
    "lab_status",
    "lab_up",
    "port",
    "read_pid",
    "service_named",
    "sshd_config_text",
    "ssh_port",
    "target_shell_env",
    "lab_services",
    "netns_http_json",
    "yarn_enabled",
    "yarn_home",
    "yarn_site_files",
]
