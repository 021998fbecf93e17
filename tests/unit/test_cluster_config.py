"""The lab cluster's configuration (ops/lab/cluster.py): what each host's daemons bind and reach.

The cluster itself runs in tests/integration/test_lab_cluster.py; here, the files it is made of."""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path

import pytest
from benchcamp.core.paths import repo_root
from benchcamp.core.spec import load_spec
from benchcamp.ops.lab import cluster
from benchcamp.ops.lab.config import cassandra_yaml


def _properties(xml: str) -> dict[str, str]:
    return dict(re.findall(r"<name>([^<]+)</name><value>([^<]*)</value>", xml))


@pytest.mark.parametrize("host", list(cluster.ADDRESSES))
def test_every_host_reaches_the_master_and_binds_only_its_own_address(host: str) -> None:
    files = cluster.site_files(host)
    master, own = cluster.ADDRESSES["master"], cluster.ADDRESSES[host]
    hdfs, yarn = _properties(files["hdfs-site.xml"]), _properties(files["yarn-site.xml"])
    core, mapred = _properties(files["core-site.xml"]), _properties(files["mapred-site.xml"])
    assert core["fs.defaultFS"] == f"hdfs://{master}:8020"
    assert hdfs["dfs.replication"] == "3"
    assert hdfs["dfs.namenode.rpc-address"] == f"{master}:8020"
    for key in ("dfs.datanode.address", "dfs.datanode.http.address", "dfs.datanode.ipc.address"):
        assert hdfs[key].split(":")[0] == own
    assert yarn["yarn.resourcemanager.hostname"] == master
    assert yarn["yarn.nodemanager.hostname"] == own
    assert yarn["yarn.nodemanager.address"] == f"{own}:8041"
    assert mapred["mapreduce.framework.name"] == "yarn"
    assert mapred["mapreduce.jobhistory.webapp.address"] == f"{master}:19888"
    # a daemon on loopback would be reachable from its own host only: nothing binds 127.0.0.1
    assert not any("127.0.0.1" in text or "localhost" in text for text in files.values())
    # every folder a daemon writes is the host's own
    assert hdfs["dfs.datanode.data.dir"].startswith(str(cluster.host_dir(host)))
    assert yarn["yarn.nodemanager.local-dirs"].startswith(str(cluster.host_dir(host)))


def test_the_scheduler_spreads_a_job_over_the_workers() -> None:
    """One container per node heartbeat: a job's maps land on several workers (the FIFO scheduler
    put all three maps of a WordCount on the first worker to ask)."""
    capacity = _properties(cluster.site_files("master")["capacity-scheduler.xml"])
    assert capacity["yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled"] == "false"
    assert capacity["yarn.scheduler.capacity.root.queues"] == "default"
    yarn = _properties(cluster.site_files("master")["yarn-site.xml"])
    assert yarn["yarn.resourcemanager.scheduler.class"].endswith("CapacityScheduler")


def test_the_hosts_share_one_subnet_with_this_machine_s_leg() -> None:
    network = cluster.network()
    subnet = ipaddress.ip_network(f"{cluster.HOST_ADDRESS}/24", strict=False)
    addresses = [*network.addresses.values(), cluster.HOST_ADDRESS]
    assert len(set(addresses)) == len(addresses) == 6
    assert all(ipaddress.ip_address(address) in subnet for address in addresses)
    ports = [network.port(namespace) for namespace in network.addresses]
    assert len(set(ports)) == len(ports) and all(len(port) <= 15 for port in ports)  # Linux's IFNAMSIZ
    assert cluster.DAEMONS["gateway"] == () and all(
        cluster.DAEMONS[worker] == ("datanode", "nodemanager") for worker in cluster.WORKERS
    )


def test_status_names_every_daemon_and_the_budget() -> None:
    status = cluster.ClusterStatus(
        [
            cluster.DaemonStatus("master", "namenode", 11, True, 210.0, "3 live DataNode(s)"),
            cluster.DaemonStatus("worker2", "datanode", None, False, 0.0, "crashed; see x.log"),
        ]
    )
    text = status.format()
    assert "worker2  10.232.0.12  datanode" in text and "stopped" in text and "crashed; see x.log" in text
    assert f"total RSS: 210 MB (budget {cluster.MEMORY_BUDGET_MB} MB)" in text
    assert not status.healthy and status.problems() == {"worker2 datanode": "crashed; see x.log"}


@pytest.mark.parametrize("host", cluster.WORKERS)
def test_each_workers_cassandra_is_a_node_of_one_ring_at_its_own_address(host: str) -> None:
    """`up --stores`: a node per worker, listening only on the worker's address, every worker a
    seed (no node bootstraps from another), 16 tokens, its data under the worker's folder; the
    lab's single node keeps 127.0.0.1, one token and its own seed."""
    conf = json.loads(cluster.cassandra_conf(host).split("\n", 1)[1])
    own = cluster.ADDRESSES[host]
    assert (conf["listen_address"], conf["rpc_address"]) == (own, own)
    assert (conf["storage_port"], conf["native_transport_port"], conf["num_tokens"]) == (7000, 9042, 16)
    seeds = conf["seed_provider"][0]["parameters"][0]["seeds"]
    assert seeds == ",".join(f"{cluster.ADDRESSES[worker]}:7000" for worker in cluster.WORKERS)
    assert conf["data_file_directories"] == [str(cluster.host_dir(host) / "cassandra" / "data")]
    assert "cassandra" not in cluster.DAEMONS[host] and cluster.STORES[host] == ("cassandra", "regionserver")
    lab = json.loads(cassandra_yaml(Path("/lab")).split("\n", 1)[1])
    assert (lab["listen_address"], lab["num_tokens"]) == ("127.0.0.1", 1)
    assert lab["seed_provider"][0]["parameters"][0]["seeds"] == f"127.0.0.1:{lab['storage_port']}"


def test_the_ycsb_study_reaches_the_ring_as_a_user_points_it_at_theirs() -> None:
    """Only through the spec: the gateway's connection and the ring's addresses and copies."""
    environment = load_spec("ycsb_hbase_cassandra").environment("lab_cluster")
    assert environment.transport.connection == "benchcamp_cluster_ssh"
    properties = environment.option("ycsb_properties")
    hosts = properties["cassandra.hosts"].split(",")
    assert hosts == [cluster.ADDRESSES[worker] for worker in cluster.WORKERS]
    assert properties["cassandra.replicationfactor"] == len(cluster.WORKERS)
    # HBase: its ZooKeeper on the master at the default port, the table split over the workers
    assert properties["hbase.zookeeper.quorum"] == cluster.ADDRESSES["master"]
    assert "hbase.zookeeper.property.clientPort" not in properties and cluster.PORTS["zookeeper"] == 2181
    assert properties["benchcamp.hbase.regions"] == len(cluster.WORKERS)
    assert "YCSB_CLASSPATH" in cluster.shell_env("gateway")


@pytest.mark.parametrize("host", list(cluster.ADDRESSES))
def test_hbase_is_distributed_with_its_root_on_hdfs_and_every_server_at_its_host_s_address(host: str) -> None:
    """`up --stores`: one ZooKeeper on the master (bound to its address), the master there, a
    region server per worker registering under the worker's address (the hosts share one host
    name), the root folder on the cluster's HDFS; nothing on loopback."""
    site = _properties(cluster.hbase_site(host))
    master, own = cluster.ADDRESSES["master"], cluster.ADDRESSES[host]
    assert site["hbase.cluster.distributed"] == "true"
    assert site["hbase.rootdir"] == f"hdfs://{master}:8020/hbase"
    assert (site["hbase.zookeeper.quorum"], site["hbase.zookeeper.property.clientPort"]) == (master, "2181")
    assert site["hbase.zookeeper.property.clientPortAddress"] == master
    assert (site["hbase.master.hostname"], site["hbase.master.ipc.address"]) == (master, master)
    assert site["hbase.unsafe.regionserver.hostname"] == site["hbase.regionserver.ipc.address"] == own
    assert (site["hbase.master.port"], site["hbase.regionserver.port"]) == ("16000", "16020")
    assert site["hbase.tmp.dir"].startswith(str(cluster.host_dir(host)))
    assert site["hbase.zookeeper.property.dataDir"].startswith(str(cluster.host_dir("master")))
    assert "127.0.0.1" not in cluster.hbase_site(host) and "localhost" not in cluster.hbase_site(host)


def test_the_stores_add_cassandra_and_hbase_daemons_in_each_host_s_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without `--stores` no store runs; with it, Cassandra and then HBase start after Hadoop's
    and Hive's daemons: ZooKeeper before the master before the region servers, each in its
    host's namespace with a small heap and the host's HBase configuration first on its class path."""
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    running = {each.name.split("-")[-1] for each in cluster.daemons()}
    assert not {"cassandra", *cluster.HBASE_DAEMONS} & running
    cluster.stores_marker().parent.mkdir(parents=True)
    cluster.stores_marker().touch()
    names = [each.name for each in cluster.daemons()]
    stores = [f"cluster-{worker}-cassandra" for worker in cluster.WORKERS]
    stores += ["cluster-master-zookeeper", "cluster-master-hmaster"]
    stores += [f"cluster-{worker}-regionserver" for worker in cluster.WORKERS]
    assert names[-len(stores) :] == stores
    for name in cluster.HBASE_DAEMONS:
        host = "master" if name != "regionserver" else "worker2"
        daemon = cluster.daemon(host, name)
        command = daemon.java()
        assert daemon.namespace == f"benchcamp-cl-{host}"
        assert daemon.heap_mb is not None and daemon.heap_mb <= 384 and f"-Xmx{daemon.heap_mb}m" in command
        assert daemon.classpath[0] == cluster.hbase_conf_dir(host)
        assert command[-1] == ("start" if name != "zookeeper" else cluster.ZOOKEEPER_CLASS)
        assert "-Dzookeeper.admin.enableServer=false" in command  # port 8080 stays free
    assert cluster.host_daemons("gateway") == ()
    status = cluster.ClusterStatus(budget_mb=cluster.MEMORY_BUDGET_MB + cluster.STORES_MEMORY_BUDGET_MB)
    assert f"budget {cluster.MEMORY_BUDGET_MB + cluster.STORES_MEMORY_BUDGET_MB} MB" in status.format()


@pytest.mark.parametrize("host", list(cluster.ADDRESSES))
def test_a_reformat_removes_every_folder_hadoop_writes_on_a_host(host: str) -> None:
    """`lab cluster reformat` (a study's storage protocol) removes HADOOP_DATA under each host's
    data folder: every HDFS and YARN folder of the host's configuration must be among them, or a
    "new" HDFS would start on an old one's blocks or spills."""
    data = cluster.host_dir(host) / "data"
    written = {
        value.split(",")[0]
        for xml in cluster.site_files(host).values()
        for value in _properties(xml).values()
        if value.startswith(str(data))
    }
    assert written and all(path.startswith(str(data)) for path in written)
    assert {Path(path).relative_to(data).parts[0] for path in written} <= set(cluster.HADOOP_DATA)


def test_bigbench_s_spark_on_the_cluster_names_what_lab_cluster_up_provides() -> None:
    """The study's `spark_conf` names the cluster's ResourceManager, NameNode and the HDFS folder
    `lab cluster up` puts Spark's jars in, for the Spark the ML program is built with: a new Spark
    in its pom without the spec following would send executors jars of another version."""
    pom = (repo_root() / "lab" / "bigbench-ml" / "pom.xml").read_text(encoding="utf-8")
    match = re.search(r"<spark.version>([^<]+)</spark.version>", pom)
    assert match
    environment = load_spec("bigbench_containers").environment("lab_cluster")
    conf = environment.option("spark_conf")
    master = cluster.ADDRESSES["master"]
    namenode = f"hdfs://{master}:{cluster.PORTS['namenode']}"
    assert environment.option("spark_master") == "yarn"
    assert conf["spark.yarn.jars"] == f"{namenode}{cluster.spark_jars_dir(match.group(1))}/*.jar"
    assert conf["spark.hadoop.fs.defaultFS"] == namenode
    assert conf["spark.hadoop.yarn.resourcemanager.hostname"] == master
    assert conf["spark.driver.host"] == cluster.HOST_ADDRESS  # this machine's leg on the bridge
    executor_mb = int(str(conf["spark.executor.memory"]).removesuffix("m"))
    assert executor_mb + max(384, executor_mb // 10) <= cluster.NODE_MEMORY_MB  # with YARN's overhead


def test_status_says_where_spark_s_jars_are() -> None:
    status = cluster.ClusterStatus(spark="Spark's jars: /apps/spark/4.0.1/jars on HDFS (193 files, 251 MB)")
    assert "Spark's jars: /apps/spark/4.0.1/jars on HDFS" in status.format()
