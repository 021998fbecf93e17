"""The mapreduce_ssd_hdd study's workloads, plugin and device install, without a cluster.

The parser runs on outputs recorded from real lab runs (studies/mapreduce_ssd_hdd/recorded/:
each algorithm's execute step on karate through YARN with its gzipped JobHistory answers);
the refusals run on altered copies of them. Job settings per configuration set, the execute
commands (rendered through bash), the storage checks of the device install and the
environment's own facts are pure.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.spec import StudySpec
from benchcamp.core.steps import ArchivedStep, RunContext
from benchcamp.ops.lab.layout import LabError
from benchcamp.studies.mapreduce_ssd_hdd import device_hadoop
from benchcamp.studies.mapreduce_ssd_hdd.workloads import graphmr
from benchcamp.transport import environment as env_facts
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ParseError, render
from helpers.graph import RECORDED, SPEC, recorded_records


def context(
    workload: str, config_set: str = "defaults", graph: str = "karate", env: str = "lab_ram"
) -> RunContext:
    params: dict[str, Any] = {"graph": graph, "config_set": config_set}
    return RunContext(SPEC, SPEC.environment(env), "c1", workload, params, 1, "tiny")


def recorded_step(tmp_path: Path, workload: str) -> ArchivedStep:
    directory = tmp_path / workload
    shutil.copytree(RECORDED / workload, directory)
    now = datetime.now(UTC)
    return ArchivedStep(directory=directory, exit_code=0, started_at=now, finished_at=now)


def metrics(records: list[Any]) -> dict[str, float]:
    return {record.metric: record.value for record in records}


def recorded_config_set(workload: str) -> str:
    return str(json.loads((RECORDED / workload / "cell.json").read_text())["config_set"])


@pytest.mark.parametrize(
    ("workload", "answer", "jobs"),
    [
        ("triangle_counting", {"triangles": 45, "nodes": 34, "edges": 78}, {"1-wedges", "2-close"}),
        ("connected_components", {"components": 1, "largest": 34}, {"init", "iteration", "sizes"}),
        ("mutual_friends", {"nodes": 34, "edges": 78}, None),
    ],
)
def test_recorded_chains_parse_into_phase_times_per_job(
    tmp_path: Path, workload: str, answer: dict[str, float], jobs: set[str] | None
) -> None:
    ctx = context(workload, recorded_config_set(workload))
    step = recorded_step(tmp_path, workload)
    records = get_workload(workload).parse(ctx, step)
    values = metrics(records)
    summary = graphmr.parse_summary(step.text("stdout.log"), "stdout.log")
    assert values["duration_s"] == float(summary["seconds"]) > 0
    assert values["chain_jobs"] == len(summary["job_ids"].split(","))
    for name, expected in answer.items():
        assert values[name] == expected, name
    steps = {metric.split(":")[0] for metric in values if ":" in metric and not metric.startswith("setting:")}
    if jobs is not None:
        assert steps == jobs
    for job in steps:
        assert values[f"{job}:job_elapsed_s"] > 0
        assert values[f"{job}:phase_map_s"] > 0
        # speculation is off in every config set: no attempt failed, none killed
        assert values[f"{job}:failed_task_attempts"] == values[f"{job}:killed_task_attempts"] == 0
        if f"{job}:phase_reduce_s" in values:
            assert values[f"{job}:phase_shuffle_s"] >= 0 and values[f"{job}:phase_merge_s"] >= 0
    # the settings the cell asked for are the ones every job ran with, recorded as such
    assert values["setting:mapreduce.job.reduce.slowstart.completedmaps"] == 1.0
    assert values["setting:mapreduce.map.speculative"] == 0.0
    assert values["setting:mapreduce.job.running.map.limit"] == float(
        graphmr.job_settings(ctx)[graphmr.RUNNING_MAP_LIMIT]
    )
    assert all(record.status == "ok" for record in records)
    history = {Path(record.artifact).name for record in records if ":" in record.metric}
    assert history and all(name.startswith("jobhistory-job_") for name in history)


def test_components_iterations_are_averaged_into_one_step(tmp_path: Path) -> None:
    step = recorded_step(tmp_path, "connected_components")
    values = metrics(get_workload("connected_components").parse(context("connected_components"), step))
    summary = graphmr.parse_summary(step.text("stdout.log"), "stdout.log")
    assert values["iterations"] >= 2
    assert values["chain_jobs"] == values["iterations"] + 2 == int(summary["jobs"])


def rewrite_history(path: Path, change: Any) -> None:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    change(document)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(document, handle)


def test_a_job_that_ran_with_other_settings_is_refused(tmp_path: Path) -> None:
    step = recorded_step(tmp_path, "triangle_counting")
    ctx = context("triangle_counting", recorded_config_set("triangle_counting"))
    last = sorted(step.directory.glob("jobhistory-*.json.gz"))[-1]

    def speculate(document: dict[str, Any]) -> None:
        for entry in document["conf"]["conf"]["property"]:
            if entry["name"] == "mapreduce.map.speculative":
                entry["value"] = "true"

    rewrite_history(last, speculate)
    with pytest.raises(
        ParseError, match=r"jobhistory-job_.*mapreduce.map.speculative='true'.*asked for 'false'"
    ):
        get_workload("triangle_counting").parse(ctx, step)


def test_missing_or_broken_history_and_summary_name_the_file(tmp_path: Path) -> None:
    workload = get_workload("triangle_counting")
    ctx = context("triangle_counting", recorded_config_set("triangle_counting"))
    step = recorded_step(tmp_path, "triangle_counting")
    first = sorted(step.directory.glob("jobhistory-*.json.gz"))[0]
    first.write_bytes(b"not gzip")
    with pytest.raises(ParseError, match=rf"{first}: not readable"):
        workload.parse(ctx, step)
    first.unlink()
    with pytest.raises(ParseError, match=rf"{first}: the job's history was not fetched"):
        workload.parse(ctx, step)
    (step.directory / "stdout.log").write_text("graphmr: algorithm=triangles jobs=2 seconds=1.0\n")
    with pytest.raises(ParseError, match=r"stdout.log: the summary line has no job_ids="):
        workload.parse(ctx, step)
    (step.directory / "stdout.log").write_text("")
    with pytest.raises(ParseError, match=r"stdout.log: no 'graphmr: algorithm=...' summary line"):
        workload.parse(ctx, step)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("triangles=45 ", ""), "the summary line has no triangles="),
        (("wedges=209 ", ""), "the summary line has no wedges="),
        (("seconds=54.696", "seconds=-5.0"), "seconds=-5.0: a chain's time must be positive"),
        (("seconds=54.696", "seconds=0"), "seconds=0: a chain's time must be positive"),
        (("triangles=45", "triangles=-1"), "triangles=-1: a count cannot be negative"),
    ],
)
def test_a_summary_without_its_answer_or_with_a_negative_number_is_refused(
    change: tuple[str, str], message: str
) -> None:
    text = (RECORDED / "triangle_counting" / "stdout.log").read_text()
    assert change[0] in text
    with pytest.raises(ParseError, match=rf"stdout.log: {re.escape(message)}"):
        graphmr.parse_summary(text.replace(change[0], change[1]), "stdout.log")


def test_every_algorithms_recorded_summary_has_its_answer() -> None:
    for cell in ("triangle_counting", "connected_components", "mutual_friends"):
        fields = graphmr.parse_summary((RECORDED / cell / "stdout.log").read_text(), "stdout.log")
        assert set(graphmr.ANSWERS[fields["algorithm"]]) <= set(fields), cell


def test_a_failed_chain_is_one_failed_record(tmp_path: Path) -> None:
    step = recorded_step(tmp_path, "triangle_counting")
    failed = ArchivedStep(step.directory, 1, step.started_at, step.finished_at)
    records = get_workload("triangle_counting").parse(context("triangle_counting"), failed)
    assert [(record.metric, record.status) for record in records] == [("duration_s", "failed")]


def test_job_settings_per_configuration_set_build_on_each_other_as_the_paper_s() -> None:
    """containers = defaults with 3 maps; custom = containers plus the four settings; each
    single-setting step = just containers plus its one setting (the buffer per Tables 11, 12)."""
    sets = {
        name: graphmr.job_settings(context("mutual_friends", name))
        for name in SPEC.axes["config_set"].all_values()
    }
    common = {
        "mapreduce.map.speculative": "false",
        "mapreduce.reduce.speculative": "false",
        "mapreduce.job.reduce.slowstart.completedmaps": "1.0",
        "dfs.replication": "1",
    }
    containers = {**common, "mapreduce.job.running.map.limit": "3"}
    assert sets == {
        "defaults": {**common, "mapreduce.job.running.map.limit": "6"},
        "containers": containers,
        "custom": {
            **containers,
            "mapreduce.reduce.shuffle.parallel.copies": "50",
            "mapreduce.task.io.sort.factor": "100",
            "mapreduce.map.sort.spill.percent": "0.9",
            "io.file.buffer.size": "65536",
        },
        "sort_factor": {**containers, "mapreduce.task.io.sort.factor": "100"},
        "buffer_size": {**containers, "io.file.buffer.size": "131072"},
    }


def with_settings(changes: dict[str, Any]) -> StudySpec:
    settings = {workload: {**values, **changes} for workload, values in SPEC.settings.items()}
    return SPEC.model_copy(update={"settings": settings})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"custom.extends": "tuned"},
            "configuration set 'custom' of triangle_counting extends 'tuned', which is not a configuration "
            "set (settings.triangle_counting['custom.extends']): name one of buffer_size, containers, custom, "
            "defaults, sort_factor",
        ),
        (
            {"containers.extends": "custom"},
            "configuration sets of triangle_counting extend each other in a circle "
            "(custom -> containers -> custom): break it",
        ),
    ],
)
def test_a_set_extending_an_unknown_set_or_itself_is_refused_before_anything_runs(
    changes: dict[str, Any], message: str
) -> None:
    spec = with_settings(changes)
    params: dict[str, Any] = {"graph": "karate", "config_set": "custom"}
    ctx = RunContext(spec, spec.environment("lab_ram"), "c1", "triangle_counting", params, 1, "tiny")
    with pytest.raises(ValueError) as error:
        get_workload("triangle_counting").check_cell(ctx)
    assert str(error.value) == message


def test_cells_are_checked_before_anything_runs() -> None:
    workload = get_workload("triangle_counting")
    with pytest.raises(ValueError, match="unknown graph 'facebook'.*karate"):
        workload.check_cell(context("triangle_counting", graph="facebook"))
    settings = {**SPEC.settings, "triangle_counting": {"mapreduce.map.speculative": False}}
    bare = SPEC.model_copy(update={"settings": settings})
    ctx = RunContext(
        bare,
        SPEC.environment("lab_ram"),
        "c1",
        "triangle_counting",
        {"graph": "karate", "config_set": "custom"},
        1,
        "tiny",
    )
    with pytest.raises(
        ValueError, match="configuration set 'custom' of triangle_counting has no parallel_maps"
    ):
        workload.check_cell(ctx)


def bash_words(command: list[Any]) -> list[str]:
    """The words bash hands the program: the quoting proven through a real shell."""
    script = 'JOB=/job; DATA=/data; WORK=/work; printf "%s\\n" ' + render(command[1:])
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_execute_runs_the_protocol_then_the_graph_then_the_chain() -> None:
    ctx = context("triangle_counting", "custom", env="lab_disk")
    commands = get_workload("triangle_counting").execute(ctx)
    rendered = [render(command) for command in commands]
    assert rendered[0].startswith("( hadoop-device protocol lab_disk") and "--not-fstype tmpfs" in rendered[0]
    assert rendered[1].startswith("hadoop-device lab_disk fs -mkdir -p")
    assert rendered[2].startswith("hadoop-device lab_disk fs -put") and "karate.txt" in rendered[2]
    chain = bash_words(commands[3])
    assert chain[:3] == ["lab_disk", "jar", "/work/.benchcamp-tools/graphmr.jar"]
    assert chain[3] == "triangles"
    assert "mapreduce.reduce.shuffle.parallel.copies=50" in chain
    assert chain[-2:] == ["/data/graph.txt", "/data/out"]
    assert rendered[4].startswith("ip netns exec benchcamp-device python3 -c")
    no_protocol = SPEC.model_copy(update={"reformat_storage": False})
    plain = RunContext(no_protocol, ctx.environment, "c1", "triangle_counting", dict(ctx.params), 1, "tiny")
    assert not render(get_workload("triangle_counting").execute(plain)[0]).startswith("(")


def test_every_directory_hadoop_writes_is_on_the_storage(tmp_path: Path) -> None:
    files = device_hadoop.site_files(tmp_path / "device")
    text = "\n".join(files.values())
    for name in ("hadoop.tmp.dir", "dfs.namenode.name.dir", "dfs.datanode.data.dir",
                 "mapreduce.cluster.local.dir", "yarn.nodemanager.local-dirs"):  # fmt: skip
        properties = env_facts.parse_site_properties(text)
        assert properties[name].startswith(str(tmp_path / "device")), name


def test_storage_on_the_wrong_kind_of_file_system_or_unwritable_is_refused(tmp_path: Path) -> None:
    facts = device_hadoop.check_storage(tmp_path / "store")
    assert facts.fstype and facts.mount
    with pytest.raises(LabError, match=r"not on nosuchfs as the environment expects"):
        device_hadoop.check_storage(tmp_path / "store", fstype="nosuchfs")
    with pytest.raises(LabError, match=rf"is on {facts.fstype} .*expects a disk"):
        device_hadoop.check_storage(tmp_path / "store", not_fstype=facts.fstype)
    (tmp_path / "file").write_text("x")
    with pytest.raises(LabError, match="is not writable"):
        device_hadoop.check_storage(tmp_path / "file" / "store")


def test_the_environments_own_facts_join_the_fingerprint_when_named_hardware() -> None:
    text = "### target_facts\nprogress line\nstorage_device=vda\nstorage_rotational=1\nstorage_model=\n"
    assert env_facts.parse_target_facts(text.split("\n", 1)[1]) == {
        "storage_device": "vda",
        "storage_rotational": "1",
        "storage_model": "",
    }
    base = {"cpu_model": "x", "cpu_cores": 2, "mem_total_gib": 4.0, "disks": []}
    assert env_facts.fingerprint(base) == env_facts.fingerprint({**base, "target": {"a": "1"}})
    on_vda = env_facts.fingerprint({**base, "target_hardware": {"storage_device": "vda"}})
    on_vdb = env_facts.fingerprint({**base, "target_hardware": {"storage_device": "vdb"}})
    assert len({env_facts.fingerprint(base), on_vda, on_vdb}) == 3


def test_the_dag_s_load_copies_the_spec_s_set_comparisons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load task (run_load) writes the campaign and the pairs graph_config_deltas compares."""
    from benchcamp.core.records import cell_key
    from benchcamp.pipeline import archive
    from benchcamp.pipeline.campaign.finish import run_load

    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    records = recorded_records("c1")
    groups: dict[tuple[str, int], list[Any]] = {}
    for record in records:
        groups.setdefault((cell_key(record.workload, record.params), record.repetition), []).append(record)
    for (key, repetition), group in groups.items():
        archive.save_records(archive.repetition_dir(SPEC.study, "c1", key, repetition), group)
    warehouse = tmp_path / "wh.duckdb"
    assert run_load(SPEC.study, "c1", warehouse).records == len(records)
    with duckdb.connect(str(warehouse), read_only=True) as con:
        pairs = con.execute("select axis, value, against from raw.axis_comparisons order by all").fetchall()
    assert pairs == [
        ("config_set", "buffer_size", "containers"),
        ("config_set", "containers", "defaults"),
        ("config_set", "custom", "containers"),
        ("config_set", "custom", "defaults"),
        ("config_set", "sort_factor", "containers"),
    ]


def test_set_comparisons_print_a_phase_per_row_and_a_storage_per_column() -> None:
    """Tables 9 to 14's shape, for any pair the spec names; drive against drive keeps its own."""
    from benchcamp.studies.mapreduce_ssd_hdd.plugin import delta_blocks

    def row(
        comparison: str, env: str, base_env: str, config_set: str, against: str, phase: str, pct: float
    ) -> dict[str, Any]:
        return {
            "comparison": comparison, "environment": env, "baseline_environment": base_env,
            "workload": "triangle_counting", "graph": "youtube", "config_set": config_set,
            "baseline_config_set": against, "job": "1-wedges", "phase": phase, "delta_pct": pct,
            "baseline_campaign": "c0",
        }  # fmt: skip

    rows = [
        row("config_set", "hdd", "hdd", "sort_factor", "containers", "merge", -12.5),
        row("config_set", "ssd_a", "ssd_a", "sort_factor", "containers", "merge", -4.0),
        row("config_set", "ssd_a", "ssd_a", "sort_factor", "containers", "map", 1.0),
        row("config_set", "hdd", "hdd", "buffer_size", "containers", "shuffle", 3.0),
        row("storage", "ssd_a", "hdd", "containers", "containers", "map", -20.0),
    ]
    blocks = delta_blocks({"graph_config_deltas": rows})
    assert [(block.title, block.headers) for block in blocks] == [
        ("triangle_counting on youtube: buffer_size vs containers, % difference per phase and storage",
         ("Job", "Phase", "hdd Δ%")),
        ("triangle_counting on youtube: sort_factor vs containers, % difference per phase and storage",
         ("Job", "Phase", "hdd Δ%", "ssd_a Δ%")),
        ("triangle_counting on youtube, containers: ssd_a vs hdd (its latest campaign, c0), % difference per phase",
         ("Job", "map Δ%", "shuffle Δ%", "merge Δ%", "reduce Δ%", "job elapsed Δ%")),
    ]  # fmt: skip
    assert [row.texts for row in blocks[1].rows] == [
        ["1-wedges", "map", "-", "1.00"],
        ["1-wedges", "merge", "-12.50", "-4.00"],
    ]
