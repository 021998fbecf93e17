"""All five study specs validate and express their studies; bad specs fail naming the key."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from benchcamp.spec import LADDERS, MissingAxis, SpecError, load_spec, parse_spec, spec_files, study_names

STUDIES = [
    "bigbench_containers",
    "hdfs_interconnects",
    "hibench_dse",
    "mapreduce_ssd_hdd",
    "ycsb_hbase_cassandra",
]
SPEC_DIR = Path(__file__).resolve().parents[2] / "include/benchcamp/studies"


def raw(study: str) -> str:
    return (SPEC_DIR / f"{study}.yaml").read_text(encoding="utf-8")


def test_the_five_studies_are_bundled_one_file_per_study_id() -> None:
    assert study_names() == STUDIES
    assert [path.stem for path in spec_files()] == STUDIES


@pytest.mark.parametrize("study", STUDIES)
def test_spec_loads_with_every_ladder_a_schedule_and_one_baseline(study: str) -> None:
    spec = load_spec(study)
    assert spec.study == study and spec.schedule and spec.repetitions == 3
    assert sum(env.baseline for env in spec.environments) == 1
    assert spec.thresholds.max_stddev_pct > 0
    for ladder in LADDERS:
        assert spec.cells(ladder), f"{study} has no cells at {ladder}"
    assert len(spec.cells("tiny")) <= len(spec.cells("small")) <= len(spec.cells("paper"))


@pytest.mark.parametrize("study", STUDIES)
def test_every_cell_the_spec_plans_is_a_record_it_accepts(study: str) -> None:
    """The import's series rule (a record has exactly the axes of one of its workload's series)
    refuses nothing a campaign of the spec measures, and a cell without one of its axes is refused."""
    spec = load_spec(study)
    cells = {cell.key: cell for ladder in LADDERS for cell in spec.cells(ladder)}
    for cell in cells.values():
        spec.validate_record_params(cell.workload, cell.params)
        for axis in cell.params:
            short = {name: value for name, value in cell.params.items() if name != axis}
            with pytest.raises(MissingAxis, match=f"workload '{cell.workload}' needs axis") as refused:
                spec.validate_record_params(cell.workload, short)
            assert axis in refused.value.axes


@pytest.mark.parametrize("study", STUDIES)
def test_environments_name_connections_never_hosts(study: str) -> None:
    for env in load_spec(study).environments:
        for conn_id in (env.connection, env.hive_connection):
            assert conn_id is None or re.fullmatch(r"[a-z][a-z0-9_]*", conn_id), conn_id


def test_hibench_matrix_matches_the_study() -> None:
    spec = load_spec("hibench_dse")
    paper = spec.cells("paper")
    wordcount = [c for c in paper if c.workload == "wordcount"]
    assert {(c.params["data_size_gb"], c.params["maps"], c.params["reduces"]) for c in wordcount} == {
        (240, 3, 1), (240, 4, 2), (240, 6, 2), (240, 12, 4), (340, 4, 2), (440, 4, 2)
    }  # fmt: skip
    assert {c.params["data_size_gb"] for c in paper if c.workload == "dfsio_read"} == {240, 340, 440}
    assert spec.environment("dse_cluster").hadoop_command == "dse hadoop"


def test_bigbench_three_phases_thirty_queries_three_cluster_sizes() -> None:
    spec = load_spec("bigbench_containers")
    paper = spec.cells("paper")
    assert Counter(c.workload for c in paper) == {
        "bigbench_load": 3,
        "bigbench_throughput": 3,
        "bigbench_power": 30 * 3,  # q01..q30 × 10/20/50 nodes
    }
    assert {c.params["cluster_nodes"] for c in paper} == {10, 20, 50}
    assert {c.params["scale_factor_gb"] for c in paper} == {10000}  # 10 TB
    assert sorted({str(c.params["query"]) for c in paper if "query" in c.params}) == [
        f"q{n:02d}" for n in range(1, 31)
    ]
    assert spec.setting("bigbench_throughput", "streams", "paper") == 2  # S
    assert spec.setting("bigbench_power", "queries", "paper") == 30  # M
    assert [(e.name, e.baseline) for e in spec.environments][:2] == [
        ("bare_metal", True),
        ("container", False),
    ]


def test_ycsb_has_the_published_132_tests_plus_the_offered_load_sweep() -> None:
    spec = load_spec("ycsb_hbase_cassandra")
    cells = spec.cells("paper")
    published = [c for c in cells if c.series == "operationcount_sweep"]
    assert len(published) == 2 * 6 * 11 == 132
    assert sorted({int(c.params["operationcount"]) for c in published}) == [
        1000, 2000, 3000, 4000, 5000, 7500, 10000, 20000, 50000, 100000, 300000
    ]  # fmt: skip
    assert {c.params["threads"] for c in published} == {1}
    assert {c.params["store"] for c in cells} == {"cassandra", "hbase"}
    sweep = [c for c in cells if c.series == "offered_load_sweep"]
    assert {c.workload for c in sweep} == {f"ycsb_{w}" for w in "abcdef"}
    assert len({c.params["target_ops"] for c in sweep}) >= 5
    assert spec.repetitions == 3  # the study ran each test once
    assert spec.setting("ycsb_d", "requestdistribution", "paper") == "latest"
    assert spec.setting("ycsb_e", "scanproportion", "paper") == 0.95
    assert spec.setting("ycsb_f", "readmodifywriteproportion", "paper") == 0.5
    tiny = spec.cells("tiny")
    assert {c.params.get("operationcount") for c in tiny} - {None} == {1000, 2000}


def test_ssd_hdd_matrix_and_protocol() -> None:
    spec = load_spec("mapreduce_ssd_hdd")
    paper = spec.cells("paper")
    assert len(paper) == 3 * 10 * 3  # algorithms × graphs × configuration sets
    graphs = spec.axes["graph"].values_at("paper")
    assert len(graphs) == 10 and (graphs[0], graphs[-1]) == ("brightkite", "orkut")
    assert {c.params["config_set"] for c in paper} == {"defaults", "containers", "custom"}
    assert spec.reformat_storage and spec.drop_caches
    assert [(e.name, e.baseline) for e in spec.environments][:3] == [
        ("hdd", True), ("ssd_a", False), ("ssd_b", False)
    ]  # fmt: skip
    custom = {
        "custom.mapreduce.reduce.shuffle.parallel.copies": 50,
        "custom.mapreduce.task.io.sort.factor": 100,
        "custom.mapreduce.map.sort.spill.percent": 0.90,
        "custom.io.file.buffer.size": 65536,
        "mapreduce.map.speculative": False,
        "mapreduce.reduce.speculative": False,
    }
    for workload in spec.workloads:
        for name, value in custom.items():
            assert spec.setting(workload, name, "paper") == value, (workload, name)
        assert spec.setting(workload, "defaults.parallel_maps", "paper") == 6
        assert spec.setting(workload, "containers.parallel_maps", "paper") == 3


def test_hdfs_interconnects_matrix() -> None:
    spec = load_spec("hdfs_interconnects")
    assert [(e.name, e.baseline) for e in spec.environments][:3] == [
        ("tengige", True), ("ipoib", False), ("rdma_ib", False)
    ]  # fmt: skip
    paper = spec.cells("paper")
    assert {c.workload for c in paper} == {"swl", "srl", "rrl", "swt", "srt"}
    throughput = [c for c in paper if c.workload in ("swt", "srt")]
    assert {c.params["clients"] for c in throughput} == {4, 8, 12, 16}
    assert {c.params["data_size_gb"] for c in throughput} == {40}
    assert {c.params["storage"] for c in paper} == {"ram_disk", "ssd", "hdd"}
    assert all(spec.setting(w, "block_size_mb", "paper") == 128 for w in spec.workloads)


# -- bad specs are rejected, naming the key ----------------------------------------------


@pytest.mark.parametrize(
    ("study", "old", "new", "message"),
    [
        ("hibench_dse", "repetitions: 3", "repetitons: 3", "'repetitons': unknown key"),
        ("hibench_dse", "repetitions: 3", "repetitions: 0", "'repetitions': Input should be greater than or equal to 1"),
        ("hibench_dse", "repetitions: 3", "repetitions: -1", "'repetitions': Input should be greater than or equal to 1"),
        ("hibench_dse", "paper: [240, 340, 440]", "paper: [-240, 340, 440]", "'axes.data_size_gb': Value error, -240 must be greater than 0"),
        ("hibench_dse", "paper: [240, 340, 440]", "paper: [0, 340, 440]", "'axes.data_size_gb': Value error, 0 must be greater than 0"),
        ("hdfs_interconnects", "paper: [40]", "paper: [-40]", "'axes.data_size_gb'"),
        ("hibench_dse", "workloads: [dfsio_write, dfsio_read]", "workloads: [dfsio_write, sort]", "series[2] (dfsio_scaling): workload 'sort' is not in 'workloads'"),
        ("bigbench_containers", "workloads: [bigbench_power]", "workloads: [bigbench_refresh]", "workload 'bigbench_refresh' is not in 'workloads'"),
        ("hibench_dse", "axes: {data_size_gb: ladder}\n  - name: hive", "axes: {data_sise_gb: ladder}\n  - name: hive", "axis 'data_sise_gb' is not declared in 'axes'"),
        ("ycsb_hbase_cassandra", "axes: {store: [cassandra, hbase], operationcount", "axes: {store: [cassandra, mongodb], operationcount", "axis 'store' has no value 'mongodb'"),
        ("mapreduce_ssd_hdd", "config_set: [defaults, containers, custom]}", "config_set: [defaults, tuned]}", "axis 'config_set' has no value 'tuned'"),
        ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "every saturday"', "'schedule': Value error, 'every saturday' is not a five-field cron expression"),
        ("ycsb_hbase_cassandra", 'schedule: "30 2 * * *"', 'schedule: "30 2 * *"', "is not a five-field cron expression"),
        ("hibench_dse", "    hadoop_command: dse hadoop", "    hadoop_command: dse hadoop; rm -rf /", "must be plain words"),
        ("hibench_dse", "  max_stddev_pct: 10", "  max_stdev_pct: 10", "'thresholds.max_stdev_pct': unknown key"),
        ("mapreduce_ssd_hdd", "reformat_storage: true", "reformat_storag: true", "'reformat_storag': unknown key"),
    ],
)  # fmt: skip
def test_bad_spec_is_rejected_naming_the_key(study: str, old: str, new: str, message: str) -> None:
    text = raw(study)
    assert text.count(old) >= 1, f"fixture text not in {study}.yaml: {old!r}"
    with pytest.raises(SpecError) as error:
        parse_spec(text.replace(old, new, 1), f"{study}.yaml")
    assert str(error.value).startswith(f"{study}.yaml: ")
    assert message in str(error.value)


def test_unknown_study_lists_the_known_ones() -> None:
    with pytest.raises(SpecError) as error:
        load_spec("nope")
    assert str(error.value) == f"unknown study 'nope' (known: {', '.join(STUDIES)})"
