"""The lab's generated configuration: Hadoop and Hive site files, sshd, Airflow connections.

Every address is 127.0.0.1 (bind hosts too), so nothing of the lab is reachable
from another machine. Files are rewritten on every `lab up`, so a changed port
or lab directory takes effect without manual edits.
"""

from __future__ import annotations

import getpass
import json
import os
from collections.abc import Sequence
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops.lab.layout import (
    CLUSTER_ADDRESSES,
    CLUSTER_CONNECTION_ID,
    CLUSTER_HIVE_CONNECTION_ID,
    CLUSTER_HIVE_PORT,
    LAB_CONNECTION_ID,
    LAB_HIVE_CONNECTION_ID,
    cassandra_conf_dir,
    cluster_dir,
    hadoop_conf_dir,
    hadoop_home,
    hbase_conf_dir,
    hive_conf_dir,
    java_home,
    lab_dir,
    port,
    ssh_port,
    yarn_conf_dir,
    yarn_home,
    ycsb_classpath,
)

# the toolkit's, named here too for the lab's modules
from benchcamp.ops.toolkit import JAVA17_OPENS as JAVA17_OPENS
from benchcamp.ops.toolkit import LOOPBACK as LOOPBACK
from benchcamp.ops.toolkit import SiteValue
from benchcamp.ops.toolkit import java17_options as java17_options
from benchcamp.ops.toolkit import site_xml as site_xml

# The lab's Hadoop client JVMs (`hadoop fs`, `hadoop jar`: a tiny job or a file listing, seconds
# long) use the client compiler only: on two cores the server compiler's warm-up was about 45 %
# of their CPU (README "The lab"). Captured with every run (the `hadoop_client_opts` fact);
# a real cluster's targets keep their own HADOOP_CLIENT_OPTS.
CLIENT_JVM_OPTS = "-XX:TieredStopAtLevel=1"
HIVE_SORT_MB = 16  # the sort buffer of HiveServer2's local jobs (hive_site)


def namenode_uri() -> str:
    return f"hdfs://{LOOPBACK}:{port('namenode')}"


# How often a client asks whether its job is done. Hadoop's and Hive's defaults (1 s, 5 s when not
# verbose) add up to that much idle time to every job the lab's seconds-long jobs measure: Hive's
# 1 s between checks made a 7-stage BigBench query 7.3 s instead of 3.0 s. A real cluster keeps its
# own settings; the lab's are in every run's captured Hive settings.
CLIENT_POLL_MS = 100
# HiveServer2 asks its in-process (LocalJobRunner) job every HIVE_JOB_POLL_MS: a method call, not
# an RPC, so 20 ms costs nothing and returns about 40 ms of the 100 ms setting's idle wait per job
# (BigBench: 121 jobs per pass; its 30 queries 54.4 s -> 51.5 s, measured side by side on two
# private HiveServer2s, 2026-11-26).
HIVE_JOB_POLL_MS = 20
CLIENT_POLLING: dict[str, str | int | bool] = {
    "mapreduce.client.progressmonitor.pollinterval": CLIENT_POLL_MS,
    "mapreduce.client.completion.pollinterval": CLIENT_POLL_MS,
}


def hadoop_site_files(directory: Path) -> dict[str, str]:
    """core/hdfs/mapred-site.xml: HDFS on loopback, MapReduce in local mode (jobs in the client JVM)."""
    core: dict[str, str | int | bool] = {
        "fs.defaultFS": namenode_uri(),
        "hadoop.tmp.dir": str(directory / "tmp" / "hadoop"),
    }
    hdfs: dict[str, str | int | bool] = {
        "dfs.namenode.name.dir": str(directory / "hdfs" / "name"),
        "dfs.datanode.data.dir": str(directory / "hdfs" / "data"),
        "dfs.replication": 1,
        "dfs.permissions.enabled": False,
        "dfs.namenode.safemode.extension": 0,
        "dfs.namenode.rpc-address": f"{LOOPBACK}:{port('namenode')}",
        "dfs.namenode.rpc-bind-host": LOOPBACK,
        "dfs.namenode.servicerpc-bind-host": LOOPBACK,
        "dfs.namenode.lifeline.rpc-bind-host": LOOPBACK,
        "dfs.namenode.http-address": f"{LOOPBACK}:{port('namenode_http')}",
        "dfs.namenode.http-bind-host": LOOPBACK,
        "dfs.namenode.https-bind-host": LOOPBACK,
        "dfs.namenode.secondary.http-address": f"{LOOPBACK}:0",
        "dfs.datanode.address": f"{LOOPBACK}:{port('datanode')}",
        "dfs.datanode.http.address": f"{LOOPBACK}:{port('datanode_http')}",
        "dfs.datanode.ipc.address": f"{LOOPBACK}:{port('datanode_ipc')}",
        "dfs.datanode.hostname": LOOPBACK,
        "dfs.http.policy": "HTTP_ONLY",
    }
    mapred: dict[str, str | int | bool] = {
        "mapreduce.framework.name": "local",
        "mapreduce.task.io.sort.mb": 100,
        "mapreduce.cluster.local.dir": str(directory / "tmp" / "mapred-local"),
        **CLIENT_POLLING,
    }
    return {
        "core-site.xml": site_xml(core, "benchcamp lab: HDFS on 127.0.0.1"),
        "hdfs-site.xml": site_xml(hdfs, "benchcamp lab: one NameNode and one DataNode on 127.0.0.1"),
        "mapred-site.xml": site_xml(mapred, "benchcamp lab: MapReduce in local mode (LocalJobRunner)"),
    }


def yarn_site_files(directory: Path) -> dict[str, str]:
    """core/yarn/mapred-site.xml of the lab's YARN: every address on the namespace's loopback.

    YARN runs inside a network namespace that has only loopback, because the MapReduce
    shuffle server binds to every interface whatever it is told. HDFS lives in the root
    namespace, so jobs on this YARN read and write the local file system (file:///).
    """
    yarn_dir = directory / "yarn"
    classpath = f"{yarn_conf_dir()},{yarn_home() / 'lib' / '*'}"
    task_opts = " ".join([CLIENT_JVM_OPTS, *java17_options()])  # short task JVMs, as the clients
    core: dict[str, str | int | bool] = {
        "fs.defaultFS": "file:///",
        "hadoop.tmp.dir": str(directory / "tmp" / "yarn"),
    }
    yarn: dict[str, str | int | bool] = {
        "yarn.resourcemanager.hostname": LOOPBACK,
        "yarn.resourcemanager.bind-host": LOOPBACK,
        "yarn.resourcemanager.webapp.address": f"{LOOPBACK}:{port('resourcemanager_http')}",
        "yarn.resourcemanager.recovery.enabled": False,
        # one campaign at a time uses the lab: FIFO needs no queue configuration
        "yarn.resourcemanager.scheduler.class": (
            "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
        ),
        "yarn.nodemanager.hostname": LOOPBACK,
        "yarn.nodemanager.bind-host": LOOPBACK,
        "yarn.nodemanager.address": f"{LOOPBACK}:8041",
        "yarn.nodemanager.localizer.address": f"{LOOPBACK}:8040",
        "yarn.nodemanager.webapp.address": f"{LOOPBACK}:{port('nodemanager_http')}",
        "yarn.nodemanager.aux-services": "mapreduce_shuffle",
        "yarn.nodemanager.aux-services.mapreduce_shuffle.class": "org.apache.hadoop.mapred.ShuffleHandler",
        "yarn.nodemanager.local-dirs": str(yarn_dir / "nm-local"),
        "yarn.nodemanager.log-dirs": str(yarn_dir / "nm-logs"),
        "yarn.nodemanager.resource.memory-mb": 3072,
        "yarn.nodemanager.resource.cpu-vcores": 4,
        "yarn.nodemanager.vmem-check-enabled": False,
        "yarn.nodemanager.pmem-check-enabled": False,
        # a nearly full CI disk must not mark the only node unhealthy
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": "100.0",
        "yarn.nodemanager.delete.debug-delay-sec": 0,
        "yarn.scheduler.minimum-allocation-mb": 128,
        "yarn.scheduler.maximum-allocation-mb": 3072,
        "yarn.log-aggregation-enable": False,
        "yarn.timeline-service.enabled": False,
        "yarn.application.classpath": classpath,
    }
    mapred: dict[str, str | int | bool] = {
        "mapreduce.framework.name": "yarn",
        "mapreduce.application.classpath": classpath,
        "mapreduce.jobhistory.address": f"{LOOPBACK}:10020",
        "mapreduce.jobhistory.webapp.address": f"{LOOPBACK}:{port('jobhistory_http')}",
        "mapreduce.jobhistory.admin.address": f"{LOOPBACK}:10033",
        "mapreduce.jobhistory.bind-host": LOOPBACK,
        "yarn.app.mapreduce.am.staging-dir": str(yarn_dir / "staging"),
        "yarn.app.mapreduce.am.resource.mb": 384,
        "yarn.app.mapreduce.am.command-opts": f"-Xmx256m {task_opts}",
        "mapreduce.map.memory.mb": 384,
        "mapreduce.reduce.memory.mb": 384,
        "mapreduce.map.java.opts": f"-Xmx256m {task_opts}",
        "mapreduce.reduce.java.opts": f"-Xmx256m {task_opts}",
        "mapreduce.task.io.sort.mb": 64,
        "mapreduce.map.speculative": False,
        "mapreduce.reduce.speculative": False,
        **CLIENT_POLLING,
    }
    return {
        "core-site.xml": site_xml(core, "benchcamp lab YARN: jobs on the local file system"),
        "yarn-site.xml": site_xml(yarn, "benchcamp lab YARN: ResourceManager and NodeManager on loopback"),
        "mapred-site.xml": site_xml(mapred, "benchcamp lab YARN: MapReduce on YARN, JobHistory server"),
    }


def hive_server_properties(bind_host: str, thrift_port: int, hive: Path) -> dict[str, SiteValue]:
    """What a HiveServer2 of the lab or the lab cluster has: Thrift on `bind_host` without
    authentication (on loopback or the cluster's own bridge only), operation logs at EXECUTION
    level (the Hive workloads read their timings from them), the MapReduce engine, no
    statistics, locks or compactions; its local folders under `hive`."""
    return {
        "hive.server2.thrift.bind.host": bind_host,
        "hive.server2.thrift.port": thrift_port,
        "hive.server2.webui.port": 0,
        "hive.server2.authentication": "NONE",  # lab only: loopback, or the cluster's bridge
        "hive.server2.enable.doAs": False,
        "hive.server2.support.dynamic.service.discovery": False,
        "hive.server2.logging.operation.enabled": True,
        "hive.server2.logging.operation.level": "EXECUTION",
        "hive.server2.logging.operation.log.location": str(hive / "operation_logs"),
        "hive.metastore.warehouse.dir": "/user/hive/warehouse",
        "hive.metastore.event.db.notification.api.auth": False,
        "hive.execution.engine": "mr",
        "hive.exec.submitviachild": False,
        # map-join hash tables are built in the server JVM (there is no hive script to fork)
        "hive.exec.submit.local.task.via.child": False,
        "hive.exec.scratchdir": "/tmp/hive",
        "hive.exec.local.scratchdir": str(hive / "scratch"),
        "hive.downloaded.resources.dir": str(hive / "resources"),
        "hive.querylog.location": str(hive / "querylog"),
        "hive.stats.autogather": False,
        "hive.stats.column.autogather": False,
        "hive.support.concurrency": False,
        "hive.txn.manager": "org.apache.hadoop.hive.ql.lockmgr.DummyTxnManager",
        "hive.compactor.initiator.on": False,
        "hive.server2.active.passive.ha.enable": False,
        "hive.server2.materializedviews.registry.impl": "DUMMY",
        "hive.scheduled.queries.executor.enabled": False,
        "hive.exec.mode.local.auto": False,
        "hive.exec.counters.pull.interval": HIVE_JOB_POLL_MS,  # see CLIENT_POLL_MS, HIVE_JOB_POLL_MS
    }


def derby_metastore_properties(hive: Path) -> dict[str, SiteValue]:
    """A metastore's own database: Derby in `hive/metastore_db`, its schema made on first use."""
    return {
        "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={hive / 'metastore_db'};create=true",
        "datanucleus.schema.autoCreateAll": True,
        "hive.metastore.schema.verification": False,
        "hive.metastore.warehouse.dir": "/user/hive/warehouse",
        "hive.metastore.event.db.notification.api.auth": False,
    }


def hive_site(directory: Path) -> str:
    """HiveServer2 with an embedded Derby metastore, MapReduce engine, warehouse on the lab HDFS."""
    hive = directory / "hive"
    properties: dict[str, SiteValue] = {
        **hive_server_properties(LOOPBACK, port("hiveserver2"), hive),
        "hive.metastore.uris": "",
        **derby_metastore_properties(hive),
        # each map of a query's local job allocates its sort buffer in the server's heap: at
        # Hadoop's 100 MB, a tiny query's maps made G1 collect a humongous region set per map
        "mapreduce.task.io.sort.mb": HIVE_SORT_MB,
    }
    return site_xml(properties, "benchcamp lab: HiveServer2 on 127.0.0.1")


def _replace_if_changed(path: Path, text: str) -> None:
    """Write a configuration file only when its text changes, and then whole: into a temporary
    file renamed over it. Every `lab up` writes the configuration while running services (and
    two test streams' jobs) may be reading it: a file truncated in place read as empty XML
    ("Unexpected EOF in prolog") in a HiveServer2 query compiled at that moment."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(text)
    os.replace(partial, path)


def write_configuration(directory: Path) -> None:
    log4j = (repo_root() / "lab" / "hadoop" / "log4j.properties").read_text()
    hadoop_conf = hadoop_conf_dir()
    hadoop_conf.mkdir(parents=True, exist_ok=True)
    for name, text in hadoop_site_files(directory).items():
        _replace_if_changed(hadoop_conf / name, text)
    _replace_if_changed(hadoop_conf / "log4j.properties", log4j)
    yarn_conf = yarn_conf_dir()
    yarn_conf.mkdir(parents=True, exist_ok=True)
    for name, text in yarn_site_files(directory).items():
        _replace_if_changed(yarn_conf / name, text)
    _replace_if_changed(yarn_conf / "log4j.properties", log4j)
    hive_conf = hive_conf_dir()
    hive_conf.mkdir(parents=True, exist_ok=True)
    _replace_if_changed(hive_conf / "hive-site.xml", hive_site(directory))
    for sub in ("scratch", "resources", "querylog", "operation_logs"):
        (directory / "hive" / sub).mkdir(parents=True, exist_ok=True)
    cassandra_conf = cassandra_conf_dir()
    cassandra_conf.mkdir(parents=True, exist_ok=True)
    _replace_if_changed(cassandra_conf / "cassandra.yaml", cassandra_yaml(directory))
    hbase_conf = hbase_conf_dir()
    hbase_conf.mkdir(parents=True, exist_ok=True)
    _replace_if_changed(hbase_conf / "hbase-site.xml", hbase_site(directory))
    _replace_if_changed(hbase_conf / "log4j2.properties", hbase_log4j2(directory))


# -- Cassandra (a YCSB store) ---------------------------------------------------------------

# The JPMS flags Cassandra 5.0 needs on Java 17 (its conf/jvm17-server.options), and the netty
# settings it ships with.
CASSANDRA_JAVA17_OPTIONS = (
    "-Djdk.attach.allowAttachSelf=true",
    *(
        f"--add-exports={package}=ALL-UNNAMED"
        for package in (
            "java.base/jdk.internal.misc",
            "java.management.rmi/com.sun.jmx.remote.internal.rmi",
            "java.rmi/sun.rmi.registry",
            "java.rmi/sun.rmi.server",
            "java.sql/java.sql",
            "java.base/java.lang.ref",
            "jdk.unsupported/sun.misc",
            "jdk.compiler/com.sun.tools.javac.file",
            "jdk.attach/sun.tools.attach",
        )
    ),
    *(
        f"--add-opens={package}=ALL-UNNAMED"
        for package in (
            "java.base/java.lang.module",
            "java.base/jdk.internal.loader",
            "java.base/jdk.internal.ref",
            "java.base/jdk.internal.reflect",
            "java.base/jdk.internal.math",
            "java.base/jdk.internal.module",
            "java.base/jdk.internal.util.jar",
            "jdk.management/com.sun.management.internal",
            "java.base/sun.nio.ch",
            "java.base/java.io",
            "java.base/java.lang.reflect",
            "jdk.compiler/com.sun.tools.javac",
            "java.base/java.lang",
            "java.base/java.util",
        )
    ),
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dio.netty.allocator.useCacheForAllThreads=true",
    "-Dio.netty.allocator.maxOrder=11",
)


def cassandra_jvm_options(config: Path, storage: Path, logs: Path, max_heap_mb: int) -> list[str]:
    """A Cassandra node's JVM options, the lab's and each lab-cluster worker's: its heap, Java 17's
    flags, its cassandra.yaml, data and log folders, in the foreground, JMX on a free port."""
    return [
        "-Xms256m",
        f"-Xmx{max_heap_mb}m",
        "-XX:+UseG1GC",
        "-Xss512k",
        *CASSANDRA_JAVA17_OPTIONS,
        f"-Dcassandra.config=file://{config}",
        "-Dcassandra-foreground=yes",
        f"-Dcassandra.storagedir={storage}",
        f"-Dcassandra.logdir={logs}",
        "-Dcassandra.jmx.local.port=0",
        "-Dcassandra.skip_wait_for_gossip_to_settle=0",
    ]


def cassandra_yaml(
    directory: Path,
    address: str = LOOPBACK,
    seeds: Sequence[str] = (),
    ports: tuple[int, int] | None = None,
    cluster_name: str = "benchcamp lab",
    tokens: int = 1,
) -> str:
    """One node at `address` (the lab's: 127.0.0.1) with its data under `directory`; no auth
    (the lab's nodes listen on loopback or the lab cluster's private bridge only).

    `seeds` are the ring's seed addresses (default: the node itself); `ports` (storage, native)
    default to the lab's. A ring's nodes each get `tokens` tokens (Cassandra's default 16).
    commitlog_sync periodic (10 s) is Cassandra's default durability: writes are acknowledged
    before the commit log reaches the disk, as on the clusters the study compares.
    """
    data = directory / "cassandra"
    storage_port, native_port = ports or (port("cassandra_storage"), port("cassandra_native"))
    settings: dict[str, object] = {
        "cluster_name": cluster_name,
        "num_tokens": tokens,
        "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner",
        "data_file_directories": [str(data / "data")],
        "commitlog_directory": str(data / "commitlog"),
        "saved_caches_directory": str(data / "saved_caches"),
        "hints_directory": str(data / "hints"),
        "cdc_raw_directory": str(data / "cdc_raw"),
        "commitlog_sync": "periodic",
        "commitlog_sync_period": "10000ms",
        "seed_provider": [
            {
                "class_name": "org.apache.cassandra.locator.SimpleSeedProvider",
                "parameters": [{"seeds": ",".join(f"{seed}:{storage_port}" for seed in seeds or [address])}],
            }
        ],
        "listen_address": address,
        "rpc_address": address,
        "storage_port": storage_port,
        "native_transport_port": native_port,
        "endpoint_snitch": "SimpleSnitch",
        "authenticator": "AllowAllAuthenticator",
        "authorizer": "AllowAllAuthorizer",
        "start_native_transport": True,
        "concurrent_reads": 8,
        "concurrent_writes": 8,
        # Every test drops usertable (the study's "cleaned before every test"); with Cassandra's
        # default a drop first flushes and snapshots the table, seconds per repetition and
        # disk that is never read again. The lab's data is throwaway.
        "auto_snapshot": False,
    }
    return (
        "# generated by benchcamp lab (rewritten on every lab up)\n" + json.dumps(settings, indent=2) + "\n"
    )


# -- HBase (a YCSB store) -------------------------------------------------------------------

# What HBase 2.6's bin/hbase adds on Java 17: its RPC (shaded netty) and off-heap code reach into
# these JDK internals.
HBASE_JAVA17_OPTIONS = (
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
    "--add-modules=jdk.unsupported",
    *(
        f"--add-opens={package}=ALL-UNNAMED"
        for package in (
            "java.base/java.nio",
            "java.base/sun.nio.ch",
            "java.base/java.lang",
            "java.base/jdk.internal.ref",
            "java.base/java.lang.reflect",
            "java.base/java.util",
            "java.base/java.util.concurrent",
        )
    ),
    *(
        f"--add-exports={package}=ALL-UNNAMED"
        for package in (
            "java.base/jdk.internal.misc",
            "java.security.jgss/sun.security.krb5",
            "java.base/sun.net.dns",
            "java.base/sun.net.util",
        )
    ),
)


def hbase_site(directory: Path) -> str:
    """Standalone HBase: master, region server and ZooKeeper in one JVM, data under the lab directory.

    The root directory is the local file system, which cannot hflush/hsync as HDFS does; HBase
    refuses to write its WAL there unless stream capabilities are not enforced (as its own
    standalone quickstart sets). Info (web UI) ports are off: the lab needs no UI.
    """
    data = directory / "hbase"
    properties: dict[str, str | int | bool] = {
        "hbase.cluster.distributed": False,
        "hbase.rootdir": f"file://{data / 'root'}",
        "hbase.tmp.dir": str(data / "tmp"),
        "hbase.unsafe.stream.capability.enforce": False,
        "hbase.zookeeper.quorum": LOOPBACK,
        "hbase.zookeeper.property.clientPort": port("hbase_zookeeper"),
        "hbase.zookeeper.property.dataDir": str(data / "zookeeper"),
        "hbase.master.hostname": LOOPBACK,
        "hbase.master.ipc.address": LOOPBACK,
        "hbase.master.port": port("hbase_master"),
        "hbase.master.info.port": -1,
        "hbase.unsafe.regionserver.hostname": LOOPBACK,
        "hbase.regionserver.ipc.address": LOOPBACK,
        "hbase.regionserver.port": port("hbase_regionserver"),
        "hbase.regionserver.info.port": -1,
    }
    return site_xml(properties, "benchcamp lab: standalone HBase on 127.0.0.1 (rewritten on every lab up)")


def hbase_log4j2(directory: Path, log_file: str | None = None) -> str:
    """log4j2: INFO to logs/hbase-server.log (rolled at 32 MB, 4 kept), warnings also to stdout,
    which the lab keeps in logs/hbase.log beside the JVM's own messages. `log_file` names another
    file (the lab cluster's daemons share a configuration and name theirs by system property)."""
    server_log = log_file or str(directory / "logs" / "hbase-server.log")
    return "\n".join(
        [
            "# generated by benchcamp lab (rewritten on every lab up)",
            "status = warn",
            "appender.console.type = Console",
            "appender.console.name = console",
            "appender.console.target = SYSTEM_OUT",
            "appender.console.layout.type = PatternLayout",
            "appender.console.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n",
            "appender.console.filter.threshold.type = ThresholdFilter",
            "appender.console.filter.threshold.level = warn",
            "appender.file.type = RollingFile",
            "appender.file.name = file",
            f"appender.file.fileName = {server_log}",
            f"appender.file.filePattern = {server_log}.%i",
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n",
            "appender.file.policies.type = Policies",
            "appender.file.policies.size.type = SizeBasedTriggeringPolicy",
            "appender.file.policies.size.size = 32MB",
            "appender.file.strategy.type = DefaultRolloverStrategy",
            "appender.file.strategy.max = 4",
            "rootLogger = INFO, console, file",
            "logger.zookeeper.name = org.apache.zookeeper",
            "logger.zookeeper.level = WARN",
            "",
        ]
    )


# -- sshd and the target's shell ------------------------------------------------------------


def target_shell_env() -> dict[str, str]:
    """What an SSH session on the lab sees (sshd SetEnv): Hadoop on PATH, the lab's conf, the work dir."""
    java = java_home()
    return {
        "PATH": f"{repo_root() / 'lab' / 'bin'}:{java / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "JAVA_HOME": str(java),
        "HADOOP_HOME": str(hadoop_home()),
        "HADOOP_CONF_DIR": str(hadoop_conf_dir()),
        "HADOOP_CLIENT_OPTS": CLIENT_JVM_OPTS,
        "BENCHCAMP_WORK_DIR": str(lab_dir() / "work"),
        # where campaigns delete and check HDFS data without a JVM (the spec's webhdfs_url, moved
        # with BENCHCAMP_LAB_NAMENODE_HTTP_PORT)
        "BENCHCAMP_WEBHDFS_URL": f"http://{LOOPBACK}:{port('namenode_http')}",
        "BENCHCAMP_HIVEBENCH_JAR": str(
            repo_root() / "lab" / "hivebench" / "target" / "hivebench-datagen.jar"
        ),
        # YCSB 0.17.0 with benchcamp's bindings (built by `lab up --stores`): the YCSB workloads'
        # commands run `java -cp "$YCSB_CLASSPATH" site.ycsb.Client ...`
        "YCSB_CLASSPATH": ycsb_classpath(),
    }


def sshd_config_text(
    directory: Path,
    port_number: int,
    env: dict[str, str],
    listen: str = LOOPBACK,
    pid_file: Path | None = None,
) -> str:
    """An sshd of the lab's own: its host key and authorized keys in `directory`/ssh, only the
    lab's client key, `env` set for every session."""
    set_env = " ".join(f'"{name}={value}"' for name, value in env.items())
    return "\n".join(
        [
            f"Port {port_number}",
            f"ListenAddress {listen}",
            f"HostKey {directory / 'ssh' / 'host_ed25519'}",
            f"AuthorizedKeysFile {directory / 'ssh' / 'authorized_keys'}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "PermitRootLogin prohibit-password",
            "StrictModes no",
            f"PidFile {pid_file or directory / 'run' / 'sshd.pid'}",
            "Subsystem sftp internal-sftp",
            "PrintMotd no",
            f"SetEnv {set_env}",
            "",
        ]
    )


def host_public_key(directory: Path | None = None) -> str:
    return ((directory or lab_dir()) / "ssh" / "host_ed25519.pub").read_text().strip()


def lab_ssh_connection_ids() -> frozenset[str]:
    """The SSH connections of lab targets: the lab's own and those studies add (`Study.lab_connections`).

    `benchcamp run --environment all` runs a study on every environment reached through one.
    """
    from benchcamp.core.study import study_lab_connections

    ssh = {
        name.removeprefix("AIRFLOW_CONN_").lower()
        for name, value in study_lab_connections().items()
        if json.loads(value).get("conn_type") == "ssh"
    }
    return frozenset({LAB_CONNECTION_ID, CLUSTER_CONNECTION_ID, *ssh})


def airflow_connection_env() -> dict[str, str]:
    """The lab's Airflow connections as `AIRFLOW_CONN_*` variables.

    SSH: key login, host key pinned (never auto-accepted). HiveServer2: the
    lab's endpoint on loopback (authentication NONE, lab only). Then the connections of
    lab targets studies run themselves (`Study.lab_connections`); the lab's own win a clash.
    """
    from benchcamp.core.study import study_lab_connections

    directory = lab_dir()
    host_key_file = directory / "ssh" / "host_ed25519.pub"
    extra: dict[str, object] = {
        "key_file": str(directory / "ssh" / "client_ed25519"),
        "look_for_keys": "false",
        "conn_timeout": 10,
        "no_host_key_check": "false",
    }
    if host_key_file.exists():
        extra["host_key"] = " ".join(host_key_file.read_text().split()[:2])
    ssh_connection = {
        "conn_type": "ssh",
        "host": LOOPBACK,
        "port": ssh_port(),
        "login": getpass.getuser(),
        "extra": extra,
    }
    hive_connection = {
        "conn_type": "hiveserver2",
        "host": LOOPBACK,
        "port": port("hiveserver2"),
        "login": getpass.getuser(),
        "schema": "default",
        "extra": {"auth_mechanism": "NONE"},
    }
    return {
        **study_lab_connections(),
        f"AIRFLOW_CONN_{LAB_CONNECTION_ID.upper()}": json.dumps(ssh_connection),
        f"AIRFLOW_CONN_{LAB_HIVE_CONNECTION_ID.upper()}": json.dumps(hive_connection),
        f"AIRFLOW_CONN_{CLUSTER_CONNECTION_ID.upper()}": json.dumps(cluster_ssh_connection()),
        f"AIRFLOW_CONN_{CLUSTER_HIVE_CONNECTION_ID.upper()}": json.dumps(cluster_hive_connection()),
    }


def cluster_ssh_connection() -> dict[str, object]:
    """SSH to the lab cluster's gateway (`lab cluster up`), as to a real cluster's edge host: its
    own address and port 22, the cluster's client key, the gateway's host key pinned."""
    host_key_file = cluster_dir() / "gateway" / "ssh" / "host_ed25519.pub"
    extra: dict[str, object] = {
        "key_file": str(cluster_dir() / "ssh" / "client_ed25519"),
        "look_for_keys": "false",
        "conn_timeout": 10,
        "no_host_key_check": "false",
    }
    if host_key_file.exists():
        extra["host_key"] = " ".join(host_key_file.read_text().split()[:2])
    return {
        "conn_type": "ssh",
        "host": CLUSTER_ADDRESSES["gateway"],
        "port": 22,
        "login": getpass.getuser(),
        "extra": extra,
    }


def cluster_hive_connection() -> dict[str, object]:
    """HiveServer2 on the lab cluster's master, as a real cluster's Hive is reached: its address
    and port (authentication NONE: the cluster's bridge is this machine's own)."""
    return {
        "conn_type": "hiveserver2",
        "host": CLUSTER_ADDRESSES["master"],
        "port": CLUSTER_HIVE_PORT,
        "login": getpass.getuser(),
        "schema": "default",
        "extra": {"auth_mechanism": "NONE"},
    }
