"""The hdfs_interconnects study's workloads and lab cluster, without a cluster.

The workloads' parse runs on outputs recorded from real lab runs through Airflow
(studies/hdfs_interconnects/recorded/lab/<environment>/<cell>/: each repetition's execute step
on the shaped links cluster, with its cell); the refusals run on altered copies. The execute
commands (rendered through bash), the settings' checks, the links cluster's configuration
(every daemon on its own bridge address) and its tc arguments are pure.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.steps import ArchivedStep, RunContext
from benchcamp.studies.hdfs_interconnects import links_hadoop
from benchcamp.studies.hdfs_interconnects.workloads import micro
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ParseError, render
from helpers.hdfs_links import RECORDED, SPEC


def context(workload: str, params: dict[str, Any], env: str = "lab_1gbe", spec: Any = SPEC) -> RunContext:
    return RunContext(spec, spec.environment(env), "c1", workload, params, 1, "tiny")


def recorded_cells() -> list[Path]:
    return sorted(RECORDED.glob("*/*/cell.json"))


def recorded_step(tmp_path: Path, cell_file: Path) -> tuple[ArchivedStep, dict[str, Any]]:
    cell = json.loads(cell_file.read_text())
    directory = tmp_path / cell_file.parent.parent.name / cell_file.parent.name
    shutil.copytree(cell_file.parent, directory)
    now = datetime.now(UTC)
    return ArchivedStep(directory=directory, exit_code=0, started_at=now, finished_at=now), cell


def metrics(records: list[Any]) -> dict[str, float]:
    return {record.metric: record.value for record in records}


def test_every_benchmark_and_level_is_recorded() -> None:
    cells = [json.loads(path.read_text()) for path in recorded_cells()]
    assert {cell["workload"] for cell in cells} == {"swl", "srl", "rrl", "swt", "srt"}
    assert {cell["environment"] for cell in cells} == {"lab_1gbe", "lab_unshaped"}


@pytest.mark.parametrize(
    "cell_file", recorded_cells(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}"
)
def test_recorded_runs_parse_into_the_cells_measurement(tmp_path: Path, cell_file: Path) -> None:
    step, cell = recorded_step(tmp_path, cell_file)
    ctx = context(cell["workload"], cell["params"], cell["environment"])
    values = metrics(get_workload(cell["workload"]).parse(ctx, step))
    text = step.text("stdout.log")
    assert values["duration_s"] > 0 and values["mb_s"] > 0
    if "file_size_mb" in cell["params"]:
        size = round(cell["params"]["file_size_mb"] * micro.MB)
        # the warm-up file is in the output but not in the records
        assert f"size_bytes={micro.WARMUP_BYTES} " in text and f"size_bytes={size} " in text
        if cell["workload"] == "rrl":
            assert values["min_read_s"] <= values["duration_s"] <= values["max_read_s"]
        else:
            assert values["mb_s"] == pytest.approx(size / micro.MB / values["duration_s"], rel=0.01)
    else:
        total = round(cell["params"]["data_size_gb"] * 1024 * micro.MB)
        assert values["mb_s"] == pytest.approx(total / micro.MB / values["duration_s"], rel=0.01)
        assert values["fastest_client_s"] <= values["slowest_client_s"] <= values["duration_s"]


def _first(workload: str) -> Path:
    return next(path for path in recorded_cells() if json.loads(path.read_text())["workload"] == workload)


def test_a_run_with_other_file_settings_is_refused_naming_the_line(tmp_path: Path) -> None:
    step, cell = recorded_step(tmp_path, _first("swl"))
    stdout = step.directory / "stdout.log"
    stdout.write_text(stdout.read_text().replace("replication=1", "replication=3"))
    with pytest.raises(ParseError, match=r"stdout.log, line \d+: written with .*replication"):
        get_workload("swl").parse(context("swl", cell["params"], cell["environment"]), step)


def test_a_run_of_another_size_or_cut_short_is_refused(tmp_path: Path) -> None:
    step, cell = recorded_step(tmp_path, _first("srl"))
    with pytest.raises(ParseError, match="expected the warm-up file and one of"):
        get_workload("srl").parse(context("srl", {"file_size_mb": 3}, cell["environment"]), step)
    stdout = step.directory / "stdout.log"
    stdout.write_text("".join(stdout.read_text().splitlines(keepends=True)[:-1]))  # no done line
    with pytest.raises(ParseError, match=str(stdout)):
        get_workload("srl").parse(context("srl", cell["params"], cell["environment"]), step)


def test_throughput_of_other_clients_is_refused(tmp_path: Path) -> None:
    step, cell = recorded_step(tmp_path, _first("swt"))
    with pytest.raises(ParseError, match="the cell asked for 8 clients"):
        get_workload("swt").parse(context("swt", {**cell["params"], "clients": 8}, cell["environment"]), step)


def test_a_failed_run_is_a_failed_repetition(tmp_path: Path) -> None:
    step, cell = recorded_step(tmp_path, _first("swt"))
    failed = ArchivedStep(step.directory, 1, step.started_at, step.finished_at)
    (record,) = get_workload("swt").parse(context("swt", cell["params"], cell["environment"]), failed)
    assert (record.metric, record.status) == ("duration_s", "failed")


def test_execute_runs_the_tool_with_the_spec_settings_through_bash() -> None:
    ctx = context("swl", {"file_size_mb": 64})
    (command,) = get_workload("swl").execute(ctx)
    words = subprocess.run(
        ["bash", "-c", 'DATA=/d WORK=/w; printf "%s\\n" ' + render(command)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert words[:4] == ["hdfs-links", "hadoop", "1gbe", "jar"]
    assert words[4] == "/w/.benchcamp-tools/hdfsbench.jar" and words[5:8] == ["swl", "--dir", "/d/hdfsbench"]
    options = dict(zip(words[8::2], words[9::2], strict=False))
    assert options["--sizes"] == f"{micro.WARMUP_BYTES},{64 * micro.MB}"
    assert (options["--block-size"], options["--replication"], options["--buffer"]) == ("128m", "1", "64k")
    (throughput,) = get_workload("srt").execute(context("srt", {"data_size_gb": 0.25, "clients": 4}))
    assert "--total 268435456 --clients 4" in render(throughput)


def test_settings_and_cells_it_cannot_run_are_refused_before_anything_runs() -> None:
    spec = SPEC.model_copy(update={"settings": {**SPEC.settings, "swl": {"replication": 0}}})
    with pytest.raises(ValueError, match="settings.swl.replication must be a whole number"):
        get_workload("swl").check_cell(context("swl", {"file_size_mb": 1}, spec=spec))
    spec = SPEC.model_copy(update={"settings": {**SPEC.settings, "swl": {"replicas": 2}}})
    with pytest.raises(ValueError, match="replicas is not an hdfsbench setting"):
        get_workload("swl").check_cell(context("swl", {"file_size_mb": 1}, spec=spec))
    with pytest.raises(ValueError, match="clients must be a whole number"):
        get_workload("swt").check_cell(context("swt", {"data_size_gb": 1, "clients": 0}))


def test_every_daemon_listens_on_its_own_bridge_address() -> None:
    for node in links_hadoop.NODES:
        hdfs = links_hadoop.site_files(node)["hdfs-site.xml"]
        assert "127.0.0.1" not in hdfs and "localhost" not in hdfs
        assert f"{links_hadoop.ADDRESSES[node]}:9866" in hdfs
        assert "<name>dfs.client.read.shortcircuit</name><value>false</value>" in hdfs
    addresses = list(links_hadoop.ADDRESSES.values()) + [links_hadoop.HOST_ADDRESS]
    assert len(set(addresses)) == len(addresses) == 6


def test_shaping_is_a_millisecond_bucket_on_both_ends_of_every_link() -> None:
    assert links_hadoop.burst_bytes(1_000) == 125_000  # 1 Gbit/s: 125 kB per millisecond
    assert links_hadoop.burst_bytes(10) == 64 * 1024  # never below 64 kB
    ends = links_hadoop.link_ends()
    assert len(ends) == 2 * len(links_hadoop.NODES)
    assert ("benchcamp-links-hub", "port-dn3") in ends and ("benchcamp-links-dn3", "eth0") in ends
    assert links_hadoop.LEVELS["unshaped"] is None


def test_facts_say_what_the_links_ran_at() -> None:
    facts = links_hadoop.LinkFacts(
        "10gbe", None, 950.4, 949.6, "on", "not_permitted: tc: Operation not permitted"
    )
    lines = dict(line.split("=", 1) for line in facts.lines())
    assert lines["link_rate_configured_mbit"] == "none" and lines["link_qdisc"] == "none"
    assert lines["link_rate_measured_out_mbit"] == "950" and lines["link_shaping"].startswith("not_permitted")
    hardware = SPEC.environment("lab_1gbe").transport.hardware_facts
    assert set(hardware) <= set(lines) and "link_rate_measured_out_mbit" not in hardware  # noise never splits


def test_a_point_ordering_against_the_link_rates_is_said_so() -> None:
    from benchcamp.studies.hdfs_interconnects.plugin import follows_the_links

    faster = {"link_out_mbit": 4000.0, "other_link_out_mbit": 950.0}
    assert follows_the_links({**faster, "improvement_pct": 30.0}) is True
    assert follows_the_links({**faster, "improvement_pct": -5.0}) is False
    slower = {"link_out_mbit": 950.0, "other_link_out_mbit": 4000.0}
    assert follows_the_links({**slower, "improvement_pct": -30.0}) is True
    assert follows_the_links({**slower, "improvement_pct": 8.6}) is False
    assert follows_the_links({**slower, "improvement_pct": None}) is None
    assert (
        follows_the_links({"link_out_mbit": None, "other_link_out_mbit": 1.0, "improvement_pct": 1.0}) is None
    )
