"""All five study specs validate and express their studies; bad specs fail naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchcamp.spec import LADDERS, SpecError, load_spec, parse_spec, spec_files, study_names

STUDIES = [
    "bigbench_containers",
    "hdfs_interconnects",
    "hibench_dse",
    "mapreduce_ssd_hdd",
    "ycsb_hbase_cassandra",
]
HIBENCH = (Path(__file__).resolve().parents[2] / "include/benchcamp/studies/hibench_dse.yaml").read_text()


def test_the_five_studies_are_bundled() -> None:
    assert study_names() == STUDIES
    assert [path.stem for path in spec_files()] == STUDIES


@pytest.mark.parametrize("study", STUDIES)
def test_spec_validates_with_every_ladder_and_a_schedule(study: str) -> None:
    spec = load_spec(study)
    assert spec.study == study and spec.schedule and spec.repetitions >= 3
    assert sum(env.baseline for env in spec.environments) == 1
    for ladder in LADDERS:
        assert spec.cells(ladder), f"{study} has no cells at {ladder}"


def test_hibench_matrix_matches_the_study() -> None:
    spec = load_spec("hibench_dse")
    paper = spec.cells("paper")
    wordcount = [c for c in paper if c.workload == "wordcount"]
    assert {(c.params["data_size_gb"], c.params["maps"], c.params["reduces"]) for c in wordcount} == {
        (240, 3, 1), (240, 4, 2), (240, 6, 2), (240, 12, 4), (340, 4, 2), (440, 4, 2)
    }  # fmt: skip
    assert {c.params["data_size_gb"] for c in paper if c.workload == "dfsio_read"} == {240, 340, 440}
    assert spec.environment("dse_cluster").hadoop_command == "dse hadoop"


def test_ycsb_has_the_published_132_tests_plus_the_offered_load_sweep() -> None:
    cells = load_spec("ycsb_hbase_cassandra").cells("paper")
    published = [c for c in cells if c.series == "operationcount_sweep"]
    assert len(published) == 2 * 6 * 11 == 132
    assert {c.params["store"] for c in cells} == {"cassandra", "hbase"}
    assert any("target_fraction" in c.params for c in cells)


def test_bigbench_power_test_has_thirty_queries_per_environment_point() -> None:
    spec = load_spec("bigbench_containers")
    power = [c for c in spec.cells("paper") if c.workload == "bigbench_power"]
    assert len(power) == 30 * 3  # 30 queries × 10/20/50 nodes
    assert spec.setting("bigbench_throughput", "streams", "paper") == 2


def test_ssd_hdd_matrix_and_protocol() -> None:
    spec = load_spec("mapreduce_ssd_hdd")
    assert len(spec.cells("paper")) == 3 * 10 * 3
    assert spec.reformat_storage and spec.drop_caches
    assert [env.name for env in spec.environments] == ["hdd", "ssd_a", "ssd_b"]


def test_hdfs_interconnects_baseline_is_10gige() -> None:
    spec = load_spec("hdfs_interconnects")
    assert next(env.name for env in spec.environments if env.baseline) == "tengige"
    clients = {c.params["clients"] for c in spec.cells("paper") if c.workload == "swt"}
    assert clients == {4, 8, 12, 16}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("repetitions: 3", "repetitons: 3", "'repetitons': unknown key"),
        ("repetitions: 3", "repetitions: 0", "'repetitions': Input should be greater than or equal to 1"),
        ("repetitions: 3", "repetitions: -1", "'repetitions'"),
        ("paper: [240, 340, 440]", "paper: [-240, 340, 440]", "must be greater than 0"),
        ("paper: [240, 340, 440]", "paper: [0, 340, 440]", "must be greater than 0"),
        (
            "workloads: [dfsio_write, dfsio_read]",
            "workloads: [dfsio_write, sort]",
            "workload 'sort' is not in 'workloads'",
        ),
        (
            "axes: {data_size_gb: ladder}\n  - name: hive",
            "axes: {data_sise_gb: ladder}\n  - name: hive",
            "axis 'data_sise_gb' is not declared",
        ),
        ('schedule: "0 1 * * 6"', 'schedule: "every saturday"', "not a five-field cron expression"),
        ("    hadoop_command: dse hadoop", "    hadoop_command: dse hadoop; rm -rf /", "must be plain words"),
        ("  max_stddev_pct: 10", "  max_stdev_pct: 10", "'thresholds.max_stdev_pct': unknown key"),
    ],
)
def test_bad_spec_is_rejected_naming_the_key(old: str, new: str, message: str) -> None:
    assert old in HIBENCH
    with pytest.raises(SpecError, match=r".*" + __import__("re").escape(message)):
        parse_spec(HIBENCH.replace(old, new, 1), "hibench_dse.yaml")


def test_unknown_category_value_in_a_series() -> None:
    text = load_spec("ycsb_hbase_cassandra")  # noqa: F841 - loads fine
    raw = (
        Path(__file__).resolve().parents[2] / "include/benchcamp/studies/ycsb_hbase_cassandra.yaml"
    ).read_text()
    with pytest.raises(SpecError, match="axis 'store' has no value 'mongodb'"):
        parse_spec(
            raw.replace(
                "axes: {store: [cassandra, hbase], operationcount",
                "axes: {store: [cassandra, mongodb], operationcount",
                1,
            )
        )


def test_unknown_study_lists_the_known_ones() -> None:
    with pytest.raises(
        SpecError, match="unknown study 'nope' \\(known: bigbench_containers, hdfs_interconnects"
    ):
        load_spec("nope")
