"""The lab cluster as a user meets a real one (ops/lab/cluster.py): five hosts in network
namespaces, reached only over SSH at the gateway's address and the master's HTTP addresses.

One module-scoped cluster: `lab cluster up` from nothing (HDFS formatted), then a HiveBench
aggregation cell and a WordCount cell of hibench_dse on its `lab_cluster` environment through
the DAG (one repetition each, the Hive cell after its warm-up): the query ran through the
master's HiveServer2 as MapReduce jobs on the workers; WordCount's JobHistory answers are
archived, they show the maps on several workers, the phase means become records, and the
phase_times mart and the report show them. A file put from the gateway has three live replicas
on three DataNodes (fsck). Faults a cluster has: the metastore down fails the Hive cell naming
it while a later cell still runs; a worker lost under a running job fails that try naming the
host, and the next repetition is measured on the workers left with a new fingerprint; the gateway's host
key changed is refused naming the host. Last, the YCSB study on the same cluster: its stores
started for it (a three-node Cassandra ring and a distributed HBase on the workers) and on each a
cell of two clients on two hosts, merged from their histograms.
`lab cluster down` leaves no process and no namespace behind. (This module took over the lab's
one-node YARN campaign, whose assertions it covers, on a real multi-node YARN.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest
from benchcamp.ops.lab import cluster
from benchcamp.ops.toolkit import Daemon, LabError, http_json, namespaces
from benchcamp.pipeline.archive import read_failure
from benchcamp.pipeline.campaign.steps import TARGET_CHANGED_FILE
from benchcamp.platforms.jobhistory import load_job_history
from benchcamp.presentation import report

pytestmark = pytest.mark.integration

BENCHCAMP = str(Path(sys.executable).with_name("benchcamp"))
RUN_ID = "it_cluster"
CELL = "wordcount|data_size_gb=0.012|maps=4|reduces=2"
CELL_DIR = "wordcount_data_size_gb=0.012_maps=4_reduces=2"
HIVE_CELL = "hive_aggregation|data_size_gb=0.012"
HIVE_CELL_DIR = "hive_aggregation_data_size_gb=0.012"
DAEMON_NAMES = {"sshd", *(name for names in cluster.DAEMONS.values() for name in names)}
PHASES = ("phase_map_s", "phase_shuffle_s", "phase_merge_s", "phase_reduce_s", "job_elapsed_s")


def _benchcamp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BENCHCAMP, *args], capture_output=True, text=True, timeout=1800, check=False, env=env
    )


@pytest.fixture(scope="module")
def cluster_up() -> Iterator[str]:
    _benchcamp("lab", "cluster", "down")
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


def _run(
    tmp: Path, campaign: str, cells: str, *extra: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Path]]:
    """`benchcamp run` of hibench_dse cells on `lab_cluster`, one repetition, into `tmp`."""
    paths = {"results": tmp / "results", "warehouse": tmp / "warehouse" / "benchcamp.duckdb"}
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(paths["warehouse"]),
        "AIRFLOW_HOME": str(tmp / "airflow"),
    }
    result = _benchcamp(
        "run", "hibench_dse", "--ladder", "tiny", "--repetitions", "1", "--workloads",
        "wordcount,hive_aggregation", "--environment", "lab_cluster", "--cells", cells,
        "--campaign", campaign, "--keep-lab", *extra, env=env,
    )  # fmt: skip
    (tmp / "run.log").write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    return result, paths


@pytest.fixture(scope="module")
def campaign(cluster_up: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("cluster")
    result, paths = _run(tmp, RUN_ID, f"{HIVE_CELL},{CELL}")
    assert result.returncode == 0, f"exit {result.returncode}; see {tmp / 'run.log'}\n{result.stderr[-3000:]}"
    return paths


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


def test_up_shows_every_host_healthy_within_the_budget(cluster_up: str) -> None:
    status = cluster.cluster_status()
    assert status.healthy, status.format()
    assert [(each.host, each.name) for each in status.daemons if each.name != "sshd"] == [
        ("master", "namenode"), ("master", "resourcemanager"), ("master", "jobhistory"),
        ("master", "metastore"), ("master", "hiveserver2"),
        ("worker1", "datanode"), ("worker1", "nodemanager"), ("worker2", "datanode"),
        ("worker2", "nodemanager"), ("worker3", "datanode"), ("worker3", "nodemanager"),
    ]  # fmt: skip
    assert {each.host for each in status.daemons if each.name == "sshd"} == set(cluster.ADDRESSES)
    assert status.total_rss_mb < cluster.MEMORY_BUDGET_MB, status.format()
    assert "3 live DataNode(s)" in cluster_up and "3 active NodeManager(s)" in cluster_up


def test_the_wordcount_ran_on_several_workers_and_its_phases_are_records(campaign: dict[str, Path]) -> None:
    rep = campaign["results"] / "hibench_dse" / RUN_ID / CELL_DIR / "rep1"
    archived = rep / "jobhistory" / "try1" / "stdout.log"
    job = load_job_history(archived)  # the archived REST answers parse on their own
    # maps and reduces are per node (HiBench's NUM_MAPS/NUM_REDS) times the environment's 3 nodes
    assert job.succeeded and job.maps == 12 and job.reduces == 6
    nodes = {attempt.node.split(":")[0] for attempt in job.attempts if attempt.task_type == "MAP"}
    assert len(nodes) >= 2 and nodes <= {cluster.ADDRESSES[worker] for worker in cluster.WORKERS}, nodes
    records = {
        record["metric"]: record
        for record in map(json.loads, (rep / "records.jsonl").read_text().splitlines())
    }
    assert all(records[metric]["status"] == "ok" for metric in records)
    for metric in PHASES:
        assert records[metric]["artifact"] == str(archived)
        assert records[metric]["value"] == pytest.approx(job.metrics()[metric])
    assert records["phase_map_s"]["value"] > 0 and records["phase_shuffle_s"]["value"] > 0
    # the job's own elapsed time fits inside the duration timed around the client on the gateway
    assert records["job_elapsed_s"]["value"] < records["duration_s"]["value"]
    # the repetition ran on the gateway, as the environment's connection says
    environment = json.loads((rep / "environment.json").read_text())
    assert cluster.ADDRESSES["gateway"] in json.dumps(environment)


def test_the_hive_query_ran_through_the_masters_hiveserver2_as_yarn_jobs_on_the_workers(
    campaign: dict[str, Path],
) -> None:
    rep = campaign["results"] / "hibench_dse" / RUN_ID / HIVE_CELL_DIR / "rep1"
    records = {
        record["metric"]: record
        for record in map(json.loads, (rep / "records.jsonl").read_text().splitlines())
    }
    assert records["duration_s"]["status"] == "ok" and records["duration_s"]["value"] > 0, records
    # read from HDFS by YARN tasks, as HiveServer2's log counts it (not a local job's reads)
    assert records["hdfs_read_bytes"]["value"] > 0, records
    log = (rep / "execute" / "try1" / "operation.log").read_text()
    jobs = re.findall(r"Starting Job = (job_\d+_\d+), Tracking URL = http://([\d.]+):8088/", log)
    assert jobs and {address for _, address in jobs} == {cluster.ADDRESSES["master"]}, log[-2000:]
    history = cluster.url("jobhistory_http", "/ws/v1/history/mapreduce/jobs")
    workers = {cluster.ADDRESSES[worker] for worker in cluster.WORKERS}
    for job_id, _ in jobs:
        job = http_json(f"{history}/{job_id}")["job"]
        assert isinstance(job, dict) and job["state"] == "SUCCEEDED", job
        tasks = http_json(f"{history}/{job_id}/tasks")["tasks"]
        assert isinstance(tasks, dict)
        for task in tasks["task"]:
            answer = http_json(f"{history}/{job_id}/tasks/{task['id']}/attempts")["taskAttempts"]
            assert isinstance(answer, dict)
            nodes = {attempt["nodeHttpAddress"].split(":")[0] for attempt in answer["taskAttempt"]}
            assert nodes <= workers, (job_id, task["id"], nodes)


def _containers(host: str) -> dict[str, str]:
    """The containers a worker's NodeManager lists (finished ones stay listed a while): id to state."""
    url = f"http://{cluster.ADDRESSES[host]}:{cluster.PORTS['nodemanager_http']}/ws/v1/node/containers"
    try:
        listed = http_json(url).get("containers")
    except LabError:
        return {}
    found = listed.get("container", []) if isinstance(listed, dict) else []
    return {str(each["id"]): str(each["state"]) for each in found if isinstance(each, dict)}


def _stop_when(
    started: Path, pattern: str, daemons: list[Daemon], done: dict[str, Path], busy: str = ""
) -> None:
    """Stop `daemons` once a folder `pattern` under `started` exists (a step of the running
    campaign began; `done` then names it) and, with `busy`, once that host's NodeManager runs a
    container it did not list then (the step's job, not the generator's finished ones): a fault
    that comes under a running job."""
    deadline = time.monotonic() + 900
    found: list[Path] = []
    while not found and time.monotonic() < deadline:
        found = sorted(started.glob(pattern)) if started.is_dir() else []
        time.sleep(0.2)
    earlier = set(_containers(busy)) if busy else set()
    while busy and time.monotonic() < deadline:
        if any(state == "RUNNING" and name not in earlier for name, state in _containers(busy).items()):
            break
        time.sleep(0.2)
    for daemon in daemons:
        daemon.stop(20.0)
    if found:
        done["step"] = found[0]


def test_the_metastore_and_a_worker_lost_mid_campaign(
    campaign: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """While the Hive cell generates its data the metastore stops, and while the WordCount's job
    runs containers on worker3 its NodeManager and DataNode stop. The Hive cell fails naming the
    metastore. The WordCount's first repetition is failed, never counted, whether YARN re-ran the
    lost tasks or not: the workers' facts asked just before and after its job differ, and the
    failure names the lost host. Its second repetition runs on the two workers left, and its facts
    and fingerprint say so (the time series splits)."""
    tmp = tmp_path_factory.mktemp("faults")
    run = "it_cluster_faults"
    cells = tmp / "results" / "hibench_dse" / run
    stopped: list[dict[str, Path]] = [{}, {}]
    watchers = [
        threading.Thread(
            target=_stop_when,
            args=(
                cells / HIVE_CELL_DIR,
                "rep*/generate",
                [cluster.daemon("master", "metastore")],
                stopped[0],
            ),
            daemon=True,
        ),
        threading.Thread(
            # the WordCount's first timed step, whichever repetition Airflow runs first
            target=_stop_when,
            args=(
                cells / CELL_DIR,
                "rep*/execute",
                [cluster.daemon("worker3", name) for name in ("nodemanager", "datanode")],
                stopped[1],
                "worker3",
            ),
            daemon=True,
        ),
    ]
    for watcher in watchers:
        watcher.start()
    try:
        # no warm-up: the Hive cell's would only fail the same way first
        result, paths = _run(tmp, run, f"{HIVE_CELL},{CELL}", "--warmups", "0", "--repetitions", "2")
    finally:
        for watcher in watchers:
            watcher.join(60)
        up = _benchcamp("lab", "cluster", "up")
        assert up.returncode == 0, up.stdout + up.stderr
    assert all("step" in each for each in stopped), stopped
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    hive = stopped[0]["step"].parent
    records = [json.loads(line) for line in (hive / "records.jsonl").read_text().splitlines()]
    assert records and all(record["status"] == "failed" for record in records), records
    failure = read_failure(hive)
    assert failure is not None and "answers but cannot reach its Hive metastore" in failure.message, failure
    assert f"HiveServer2 {cluster.ADDRESSES['master']}:{cluster.PORTS['hiveserver2']}" in failure.message
    assert "metastore" in output.lower(), output[-3000:]
    lost_rep = stopped[1]["step"].parent
    changed = (lost_rep / "execute" / "try1" / TARGET_CHANGED_FILE).read_text()
    lost = re.escape(cluster.ADDRESSES["worker3"])
    assert "the target changed during the repetition: yarn_active_nodes 3 → 2" in changed, changed
    assert re.search(rf"yarn_nodes [\d.,]*{lost}[\d.,]* → (?![\d.,]*{lost})", changed), changed
    records = [json.loads(line) for line in (lost_rep / "records.jsonl").read_text().splitlines()]
    assert records and all(record["status"] == "failed" for record in records), records
    failure = read_failure(lost_rep)
    assert failure is not None and failure.exception == "TargetChanged" and "yarn_nodes" in failure.message
    (rep,) = {cells / CELL_DIR / "rep1", cells / CELL_DIR / "rep2"} - {lost_rep}  # after the loss
    records = [json.loads(line) for line in (rep / "records.jsonl").read_text().splitlines()]
    assert records and all(record["status"] == "ok" for record in records), records
    job = load_job_history(rep / "jobhistory" / "try1" / "stdout.log")
    nodes = {attempt.node.split(":")[0] for attempt in job.attempts}
    assert job.succeeded and nodes <= {cluster.ADDRESSES["worker1"], cluster.ADDRESSES["worker2"]}, nodes
    facts = json.loads((rep / "environment.json").read_text())
    assert facts["facts"]["target"]["yarn_active_nodes"] == "2", facts["facts"]["target"]
    before = json.loads(
        (campaign["results"] / "hibench_dse" / RUN_ID / CELL_DIR / "rep1" / "environment.json").read_text()
    )
    assert before["facts"]["target"]["yarn_active_nodes"] == "3"
    assert facts["fingerprint"] != before["fingerprint"]


def test_a_changed_gateway_host_key_is_refused_naming_the_host(
    campaign: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway's sshd comes back with a new host key; the connection still pins the old one.
    The campaign's preflight (its first step on the target, in this process: what `benchcamp
    run` prints of a refusal is the lab's tests' concern) is refused naming the host, at once."""
    from benchcamp.ops import lab
    from benchcamp.pipeline.campaign.target import run_preflight
    from benchcamp.transport.ssh import TargetRefused

    tmp = tmp_path_factory.mktemp("changed_key")
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp / "results"))
    monkeypatch.setenv("BENCHCAMP_WAREHOUSE", str(tmp / "warehouse" / "benchcamp.duckdb"))
    for name, value in lab.airflow_connection_env().items():
        monkeypatch.setenv(name, value)
    unit = {
        "study": "hibench_dse", "campaign": "it_cluster_changed_key", "environment": "lab_cluster",
        "workload": "wordcount", "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2},
        "repetition": 1, "ladder": "tiny",
    }  # fmt: skip
    keys = cluster.host_dir("gateway") / "ssh"
    saved = tmp_path_factory.mktemp("gateway_key")
    sshd = cluster.sshd("gateway")
    sshd.stop(10.0)
    shutil.copy2(keys / "host_ed25519", saved / "host_ed25519")
    try:
        (keys / "host_ed25519").unlink()
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(saved / "new")], check=True)
        shutil.copy2(saved / "new", keys / "host_ed25519")  # the public half stays the pinned one
        cluster.start_sshd("gateway")
        with pytest.raises(TargetRefused) as refused:
            run_preflight([unit])  # type: ignore[list-item]
    finally:
        sshd.stop(10.0)
        shutil.copy2(saved / "host_ed25519", keys / "host_ed25519")
        cluster.start_sshd("gateway")
    message = str(refused.value)
    assert "host key changed" in message and cluster.ADDRESSES["gateway"] in message, message


def test_phase_times_mart_and_report(campaign: dict[str, Path]) -> None:
    tables = report.read_tables(campaign["warehouse"], "hibench_dse", RUN_ID)
    (row,) = tables["phase_times"]
    assert (row["environment"], row["cell_key"], row["n"]) == ("lab_cluster", CELL, 1)
    for phase in ("map", "shuffle", "merge", "reduce"):  # one repetition has no spread
        assert row[f"{phase}_s"] is not None and row[f"{phase}_stddev_s"] is None
    # a task attempt that failed is counted, not hidden, and a speculative copy YARN killed when its
    # twin finished first (Hadoop's default, seen on this cluster) apart from it: the mart's counts
    # are the archived job's own
    archived = (
        campaign["results"]
        / "hibench_dse"
        / RUN_ID
        / CELL_DIR
        / "rep1"
        / "jobhistory"
        / "try1"
        / "stdout.log"
    )
    attempts = load_job_history(archived).attempts
    failed = [a for a in attempts if a.state not in ("SUCCEEDED", "KILLED")]
    killed = [a for a in attempts if a.state == "KILLED"]
    assert (row["failed_task_attempts"], row["killed_task_attempts"]) == (len(failed), len(killed))
    assert row["fingerprint"] != "unknown"
    scaling = {row["workload"]: row for row in tables["scaling"]}
    assert set(scaling) == {"wordcount", "hive_aggregation"}
    assert all(row["n"] == 1 and row["n_failed"] == 0 for row in scaling.values()), scaling
    assert scaling["hive_aggregation"]["n_warmup"] == 1
    text = report.render(tables, "table", "hibench_dse")
    assert "wordcount task phases (JobHistory) on lab_cluster" in text


def test_a_file_put_from_the_gateway_has_three_replicas_on_three_datanodes(cluster_up: str) -> None:
    """A write's pipeline may leave out a DataNode (one just restarted by the fault test, or busy
    under load: the NameNode's placement skips it) and HDFS then re-replicates the block within
    seconds: the three replicas are asked of fsck until they are there, for up to 300 s (a loaded
    machine slows the re-replication, not its outcome)."""
    inputs = [Path(__file__).resolve().parents[2] / name for name in ("README.md", "Makefile")]
    fsck = "hadoop org.apache.hadoop.hdfs.tools.DFSck /benchcamp/replicas -files -blocks -replicaDetails"
    code, output = _gateway(
        "hostname -I && hadoop fs -mkdir -p /benchcamp/replicas && "
        f"hadoop fs -put -f {' '.join(str(path) for path in inputs)} /benchcamp/replicas && {fsck}"
    )
    deadline = time.monotonic() + 300
    while code == 0 and re.search(r"Live_repl=[0-2]\b", output) and time.monotonic() < deadline:
        time.sleep(3)
        code, output = _gateway(f"hostname -I && {fsck}")
    assert code == 0, output[-4000:]
    assert output.split()[0] == cluster.ADDRESSES["gateway"]  # the commands ran on the gateway
    assert "Status: HEALTHY" in output and "Default replication factor:\t3" in output, output[-3000:]
    files = [line for line in output.splitlines() if line.startswith("/benchcamp/replicas/")]
    assert len(files) == 2 and all("replication=3" in line for line in files), files
    blocks = [line for line in output.splitlines() if " len=" in line]
    holders = [set(re.findall(r"DatanodeInfoWithStorage\[([\d.]+):", line)) for line in blocks]
    assert blocks and all("Live_repl=3" in line for line in blocks), blocks
    assert all(len(each) == 3 for each in holders), blocks  # three replicas on three DataNodes


YCSB_CELLS = {
    store: (
        f"ycsb_a|clients=2|store={store}|target_ops=500|threads=8",
        f"ycsb_a_clients=2_store={store}_target_ops=500_threads=8",
    )
    for store in ("cassandra", "hbase")
}


def test_ycsb_clients_on_two_hosts_against_the_ring_and_the_distributed_hbase(
    cluster_up: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`benchcamp run` of the YCSB study on `lab_cluster` starts the stores on the running cluster
    (a Cassandra node on each worker, one ring; HBase's ZooKeeper and HMaster on the master, a
    RegionServer on each worker) and runs, on each store, a cell of two clients as the
    environment places them (`ycsb_client_hosts`): client 1 on the gateway, client 2 on the
    master, each over the gateway's ssh. The run's throughput is the sum of the clients', its
    percentiles (service and intended) those of their merged HdrHistograms, as archived, and the
    mart carries both latencies."""
    from benchcamp.workloads.ycsb import parse_ycsb_text
    from benchcamp.workloads.ycsb_histograms import merge_logs, read_histogram_log, value_at_percentile

    tmp = tmp_path_factory.mktemp("ycsb")
    campaign = "it_cluster_ycsb"
    paths = {"results": tmp / "results", "warehouse": tmp / "warehouse" / "benchcamp.duckdb"}
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(paths["warehouse"]),
        "AIRFLOW_HOME": str(tmp / "airflow"),
    }
    cells = ",".join(cell for cell, _ in YCSB_CELLS.values())
    result = _benchcamp(
        "run", "ycsb_hbase_cassandra", "--ladder", "tiny", "--repetitions", "1", "--warmups", "0",
        "--environment", "lab_cluster", "--cells", cells, "--campaign", campaign, "--keep-lab", env=env,
    )  # fmt: skip
    (tmp / "run.log").write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    assert result.returncode == 0, f"exit {result.returncode}; see {tmp / 'run.log'}\n{result.stderr[-3000:]}"
    status = cluster.cluster_status()
    stores = {(each.host, each.name) for each in status.daemons if each.name not in DAEMON_NAMES}
    assert {(worker, name) for worker in cluster.WORKERS for name in ("cassandra", "regionserver")} <= stores
    assert {("master", "zookeeper"), ("master", "hmaster")} <= stores and status.healthy, status.format()
    rows = report.read_tables(paths["warehouse"], "ycsb_hbase_cassandra", campaign)["ycsb_summary"]
    for store, (_, cell_dir) in YCSB_CELLS.items():
        step = paths["results"] / "ycsb_hbase_cassandra" / campaign / cell_dir / "rep1" / "execute" / "try1"
        for n, host in ((1, "gateway"), (2, "master")):  # what each client's ssh said on leaving its host
            assert (
                f"Connection to {cluster.ADDRESSES[host]} closed."
                in (step / f"client{n}.ssh.log").read_text()
            )
        records = {
            record["metric"]: record
            for record in map(json.loads, (step.parents[1] / "records.jsonl").read_text().splitlines())
        }
        assert {record["status"] for record in records.values()} == {"ok"}, store
        own = [parse_ycsb_text((step / f"client{n}.stdout.log").read_text(), f"client{n}") for n in (1, 2)]
        assert records["throughput_ops_s"]["value"] == pytest.approx(
            sum(each.throughput_ops_s for each in own)
        )
        assert records["operations_ok"]["value"] == 1000 == sum(each.ok_operations for each in own)
        for operation, metric in (
            ("READ", "read_p99_latency_us"),
            ("Intended-READ", "intended_read_p99_latency_us"),
        ):
            merged = merge_logs(
                [
                    read_histogram_log((step / f"client{n}.{operation}.hdr").read_text(), operation)
                    for n in (1, 2)
                ]
            )
            assert records[metric]["value"] == value_at_percentile(merged.histogram, 99), (store, metric)
        (read,) = [row for row in rows if row["store"] == store and row["op_type"] == "read"]
        assert (read["clients"], read["n"]) == (2, 1)
        assert read["p99_latency_us"] == records["read_p99_latency_us"]["value"]
        assert read["intended_p99_latency_us"] == records["intended_read_p99_latency_us"]["value"]
