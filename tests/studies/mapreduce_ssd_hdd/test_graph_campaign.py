"""The SSD vs HDD study through Airflow on the lab's device install.

`benchcamp run mapreduce_ssd_hdd --environment lab_ram` runs one campaign on the lab's Hadoop
install per device with its storage on a tmpfs, each repetition preceded by the study's protocol
(stop, drop caches, reformat, start, verify). To fit the CI budget it runs one cell: triangle
counting on karate under the `custom` configuration set, one repetition (about 3.5 min); the
disk's install (`lab_disk`) is brought up by its protocol and checked apart (about 20 s), and
`make run STUDY=mapreduce_ssd_hdd` runs every algorithm and configuration set on both devices.
Asserted: the exact triangle count, phase times per job of the chain from the JobHistory
server, the custom settings as every job's effective configuration, the device's storage facts
in its fingerprint, the disk install's own facts, and the refusal of storage of the wrong kind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from benchcamp.ops import lab

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[3]
CAMPAIGN = "it_graph"
CELL = "triangle_counting|config_set=custom|graph=karate"
DEVICES = ("lab_ram",)
DEVICE_TOOL = str(ROOT / "lab" / "bin" / "hadoop-device")


@pytest.fixture(scope="module")
def campaigns(
    tmp_path_factory: pytest.TempPathFactory,
    shared_lab: Callable[[], lab.LabStatus],
    campaign_measured: Callable[..., None],
) -> dict[str, Path]:
    shared_lab()
    tmp = tmp_path_factory.mktemp("graph")
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
        str(BIN / "benchcamp"), "run", "mapreduce_ssd_hdd", "--ladder", "tiny", "--repetitions", "1",
        "--environment", "lab_ram", "--cells", CELL, "--campaign", CAMPAIGN, "--keep-lab",
    ]  # fmt: skip
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1500)
    paths["log"].write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    subprocess.run([str(ROOT / "lab" / "bin" / "hadoop-device"), "stop"], capture_output=True, timeout=120)
    campaign_measured(result, paths["log"])
    return paths


def query(campaigns: dict[str, Path], sql: str) -> list[dict[str, object]]:
    with duckdb.connect(str(campaigns["warehouse"]), read_only=True) as connection:
        relation = connection.sql(sql)
        return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def test_each_device_ran_the_chain_with_the_exact_answer(campaigns: dict[str, Path]) -> None:
    rows = query(
        campaigns,
        "select environment, metric, value, status from raw.results "
        "where metric in ('triangles', 'duration_s', 'chain_jobs') order by environment, metric",
    )
    for device in DEVICES:
        values = {row["metric"]: row["value"] for row in rows if row["environment"] == device}
        statuses = {row["status"] for row in rows if row["environment"] == device}
        assert values.get("triangles") == 45, (device, values)  # karate club: 45 triangles
        assert values["chain_jobs"] == 2 and values["duration_s"] > 0
        assert statuses == {"ok"}


def test_phase_times_per_job_of_the_chain(campaigns: dict[str, Path]) -> None:
    rows = query(campaigns, "select * from graph_phase_times order by environment, job")
    assert [(row["environment"], row["job"]) for row in rows] == [
        (device, job) for device in DEVICES for job in ("1-wedges", "2-close")
    ]
    for row in rows:
        assert row["campaign"] == CAMPAIGN
        assert row["config_set"] == "custom" and row["graph"] == "karate" and row["n"] == 1
        assert row["map_s"] > 0 and row["shuffle_s"] > 0 and row["reduce_s"] > 0 and row["merge_s"] >= 0
        assert row["job_elapsed_s"] > row["map_s"]
        assert row["chain_s"] > row["job_elapsed_s"]


def test_the_custom_set_is_what_every_job_ran_with(campaigns: dict[str, Path]) -> None:
    rows = query(
        campaigns, "select environment, metric, value from raw.results where metric like 'setting:%'"
    )
    for device in DEVICES:
        settings = {row["metric"]: row["value"] for row in rows if row["environment"] == device}
        assert settings["setting:mapreduce.reduce.shuffle.parallel.copies"] == 50
        assert settings["setting:mapreduce.task.io.sort.factor"] == 100
        assert settings["setting:io.file.buffer.size"] == 65536
        assert settings["setting:mapreduce.job.reduce.slowstart.completedmaps"] == 1.0


def test_the_device_is_its_own_hardware_in_the_facts(campaigns: dict[str, Path]) -> None:
    (row,) = query(campaigns, "select environment, fingerprint, facts from raw.environments")
    facts = json.loads(str(row["facts"]))
    assert facts["target"]["storage_fstype"] == "tmpfs"
    assert facts["target"]["storage_path"] == "/dev/shm/benchcamp-device"
    assert facts["target_hardware"] == {
        name: facts["target"][name]
        for name in ("storage_fstype", "storage_device", "storage_rotational", "storage_model")
    }
    report = (campaigns["results"] / "mapreduce_ssd_hdd" / CAMPAIGN / "report.txt").read_text()
    assert "triangle_counting on karate, lab_ram: mean phase times per job" in report


def test_the_disk_install_comes_up_on_the_disk(
    tmp_path: Path, shared_lab: Callable[[], lab.LabStatus]
) -> None:
    """lab_disk's protocol on a directory of the lab's disk: HDFS formatted there, its facts."""
    storage = tmp_path / "device-storage"
    try:
        done = subprocess.run(
            [DEVICE_TOOL, "protocol", "lab_disk", str(storage), "--not-fstype", "tmpfs"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        printed = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        assert printed["hdfs_formatted"] == "yes" and printed["device"] == "lab_disk"
        facts = subprocess.run([DEVICE_TOOL, "facts", "lab_disk"], capture_output=True, text=True, timeout=60)
        described = dict(line.split("=", 1) for line in facts.stdout.splitlines())
        assert described["storage_path"] == str(storage)
        assert described["storage_fstype"] not in ("", "tmpfs") and described["storage_rotational"] in (
            "0",
            "1",
        )
        assert (storage / "hdfs" / "name" / "current" / "VERSION").is_file()  # the NameNode's own format
        listed = subprocess.run(
            [DEVICE_TOOL, "lab_disk", "fs", "-ls", "/"], capture_output=True, text=True, timeout=120
        )
        assert "/benchcamp" in listed.stdout
        other = subprocess.run(
            [DEVICE_TOOL, "lab_ram", "fs", "-ls", "/"], capture_output=True, text=True, timeout=60
        )
        assert (
            other.returncode == 3
            and "the 'lab_ram' install is not running (running: lab_disk)" in other.stderr
        )
    finally:
        subprocess.run([DEVICE_TOOL, "stop"], capture_output=True, timeout=120)


def test_storage_not_on_the_expected_kind_is_refused_before_hadoop_stops() -> None:
    done = subprocess.run(
        [str(ROOT / "lab" / "bin" / "hadoop-device"), "protocol", "lab_disk", "/dev/shm/benchcamp-refused", "--not-fstype", "tmpfs"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert "storage path /dev/shm/benchcamp-refused is on tmpfs" in done.stderr
    Path("/dev/shm/benchcamp-refused").rmdir()
