"""The HDFS interconnect study through Airflow on the lab's shaped links.

`benchcamp run hdfs_interconnects --environment lab_1gbe` runs one campaign on the links cluster
(a NameNode and 4 DataNodes in their own network namespaces, every link shaped to 1 Gbit/s): its
preflight builds and shapes the links, measures them with iperf3 and formats HDFS. To fit the CI
budget it runs two cells, one repetition each: a 64 MB sequential write (latency) and the
4-client sequential read (throughput); `make run STUDY=hdfs_interconnects` runs every benchmark at
all three levels. Then, on the cluster it left up, DataNodes are killed in the middle of a
throughput run: the run fails and its error names a killed DataNode's address.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest
from benchcamp.ops import lab
from benchcamp.studies.hdfs_interconnects import links_hadoop

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[3]
CAMPAIGN = "it_links"
CELLS = ("swl|file_size_mb=64", "srt|clients=4|data_size_gb=0.25")
LINKS_TOOL = str(ROOT / "lab" / "bin" / "hdfs-links")
JAR = str(ROOT / "lab" / "hdfsbench" / "target" / "hdfsbench.jar")


@pytest.fixture(scope="module")
def campaign(
    tmp_path_factory: pytest.TempPathFactory,
    shared_lab: Callable[[], lab.LabStatus],
    campaign_measured: Callable[..., None],
) -> Iterator[dict[str, Path]]:
    shared_lab()
    tmp = tmp_path_factory.mktemp("links")
    paths = {
        "results": tmp / "results",
        "warehouse": tmp / "warehouse" / "benchcamp.duckdb",
        "log": tmp / "run.log",
    }
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(paths["warehouse"]),
        "AIRFLOW_HOME": str(tmp / "airflow"),
    }
    command = [
        str(BIN / "benchcamp"), "run", "hdfs_interconnects", "--ladder", "tiny", "--repetitions", "1",
        "--environment", "lab_1gbe", "--cells", ",".join(CELLS), "--campaign", CAMPAIGN, "--keep-lab",
    ]  # fmt: skip
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1500)
    paths["log"].write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    campaign_measured(result, paths["log"])
    yield paths
    subprocess.run([LINKS_TOOL, "stop"], capture_output=True, timeout=120)


def query(campaign: dict[str, Path], sql: str) -> list[dict[str, object]]:
    with duckdb.connect(str(campaign["warehouse"]), read_only=True) as connection:
        relation = connection.sql(sql)
        return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def test_the_links_were_shaped_and_measured_as_facts(campaign: dict[str, Path]) -> None:
    (row,) = query(campaign, "select fingerprint, facts from raw.environments")
    facts = json.loads(str(row["facts"]))
    target = facts["target"]
    assert (target["link_level"], target["link_shaping"], target["link_qdisc"]) == ("1gbe", "done", "tbf")
    assert target["link_rate_configured_mbit"] == "1000" and target["link_offloads"] == "off"
    # iperf3 through the shaped link: at most the rate, and most of it
    for direction in ("out", "in"):
        assert 700 <= float(target[f"link_rate_measured_{direction}_mbit"]) <= 1000, target
    assert facts["target_hardware"] == {
        name: target[name] for name in ("link_rate_configured_mbit", "link_offloads", "link_datanodes")
    }


def test_each_cell_measured_over_the_link(campaign: dict[str, Path]) -> None:
    (write,) = query(campaign, "select * from hdfs_micro_latency")
    assert (write["workload"], write["file_size_mb"], write["n"], write["n_failed"]) == ("swl", 64, 1, 0)
    assert write["link_level"] == "1gbe" and write["link_out_mbit"] > 0
    # 64 MB cannot cross a 1 Gbit/s link (119 MB/s) in less than about half a second
    assert write["latency_s"] > 64 / 125 and write["mb_s"] < 125
    (read,) = query(campaign, "select * from hdfs_micro_throughput")
    assert (read["workload"], read["clients"], read["n"], read["n_failed"]) == ("srt", 4, 1, 0)
    assert 0 < read["mb_s"] < 125
    report = (campaign["results"] / "hdfs_interconnects" / CAMPAIGN / "report.txt").read_text()
    assert "Latency on lab_1gbe" in report and "Throughput on lab_1gbe" in report
    assert "link 1gbe: measured" in report


def test_a_datanode_killed_mid_run_fails_the_run_naming_it(campaign: dict[str, Path]) -> None:
    """Three of the four: with replication 1 a client whose DataNode dies cannot go on, and with
    three gone some client is (almost surely, 1 - 4^-4) writing to one of them."""
    status = subprocess.run([LINKS_TOOL, "status"], capture_output=True, text=True, timeout=60)
    assert status.stdout.strip() == "level=1gbe", status.stdout  # up and healthy after the campaign
    before = _blocks()
    run = subprocess.Popen(
        [LINKS_TOOL, "hadoop", "1gbe", "jar", JAR, "swt", "--dir", "/benchcamp/it-killed", "--total", "1g",
         "--clients", "4", "--replication", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # Each client asks the NameNode for its first block as it starts writing (256 MB each, two
    # blocks): once four more blocks exist, all four write (1 GB at 1 Gbit/s takes about 9 s). A
    # fixed 6 s wait here could end before a loaded machine had started the JVM.
    deadline = time.monotonic() + 300
    while _blocks() < before + 4:
        assert run.poll() is None, f"the clients ended before writing: {run.communicate()[1][-2000:]}"
        assert time.monotonic() < deadline, "the four clients had not started writing after 300 s"
        time.sleep(0.2)
    killed = ("dn1", "dn2", "dn3")
    for node in killed:
        victim = links_hadoop.daemon(node).pid()
        assert victim is not None, node
        os.kill(victim, signal.SIGKILL)
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode != 0 and "hdfsbench: done" not in stdout, stdout[-2000:]
    assert any(f"{links_hadoop.ADDRESSES[node]}:9866" in stderr for node in killed), stderr[-3000:]


def _blocks() -> int:
    """The blocks the links' NameNode knows (its FSNamesystem JMX bean, from inside its namespace)."""
    from benchcamp.ops.toolkit import jmx_bean

    base = f"http://{links_hadoop.ADDRESSES['nn']}:{links_hadoop.NAMENODE_HTTP}"
    bean = jmx_bean(base, "Hadoop:service=NameNode,name=FSNamesystem", links_hadoop.netns("nn"))
    return int(str(bean["BlocksTotal"]))
