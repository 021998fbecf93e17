"""All five study specs validate and express their studies; bad specs fail naming the key."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import benchcamp.core.spec as spec_module
import pytest
from benchcamp.core.matrix import LADDERS
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.spec import (
    AIRFLOW_CRON_PRESETS,
    MissingAxis,
    SpecError,
    load_spec,
    parse_spec,
    schedule_problem,
    spec_files,
    study_names,
)
from benchcamp.ops.cli import main

STUDIES = [
    "bigbench_containers",
    "hdfs_interconnects",
    "hibench_dse",
    "mapreduce_ssd_hdd",
    "ycsb_hbase_cassandra",
]
SPEC_DIR = Path(__file__).resolve().parents[2] / "include/benchcamp/studies"


def raw(study: str) -> str:
    return (SPEC_DIR / study / "spec.yaml").read_text(encoding="utf-8")


def test_the_five_studies_are_bundled_one_file_per_study_id() -> None:
    assert study_names() == STUDIES
    assert [path.parent.name for path in spec_files()] == STUDIES


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
    refuses nothing a campaign of the spec measures, and a cell without one of its axes is refused,
    unless what is left is a cell of another series (YCSB's clients_sweep without `clients` is the
    offered-load sweep's one-client cell)."""
    spec = load_spec(study)
    cells = {cell.key: cell for ladder in LADDERS for cell in spec.cells(ladder)}
    for cell in cells.values():
        spec.validate_record_params(cell.workload, cell.params)
        shapes = {frozenset(axes) for _, axes in spec.record_axes(cell.workload)}
        for axis in cell.params:
            short = {name: value for name, value in cell.params.items() if name != axis}
            if frozenset(short) in shapes:
                spec.validate_record_params(cell.workload, short)
                continue
            with pytest.raises(MissingAxis, match=f"workload '{cell.workload}' needs axis") as refused:
                spec.validate_record_params(cell.workload, short)
            assert axis in refused.value.axes


@pytest.mark.parametrize("study", STUDIES)
def test_environments_name_connections_never_hosts(study: str) -> None:
    for env in load_spec(study).environments:
        for conn_id in (env.transport.connection, env.hive.connection):
            assert conn_id is None or re.fullmatch(r"[a-z][a-z0-9_]*", conn_id), conn_id


def test_hibench_matrix_matches_the_study() -> None:
    spec = load_spec("hibench_dse")
    paper = spec.cells("paper")
    wordcount = [c for c in paper if c.workload == "wordcount"]
    assert {(c.params["data_size_gb"], c.params["maps"], c.params["reduces"]) for c in wordcount} == {
        (240, 3, 1), (240, 4, 2), (240, 6, 2), (240, 12, 4), (340, 4, 2), (440, 4, 2)
    }  # fmt: skip
    assert {c.params["data_size_gb"] for c in paper if c.workload == "dfsio_read"} == {240, 340, 440}
    assert spec.environment("dse_cluster").hadoop.command == "dse hadoop"


def test_bigbench_three_phases_thirty_queries_three_cluster_sizes() -> None:
    spec = load_spec("bigbench_containers")
    paper = spec.cells("paper")
    queries = [f"q{n:02d}" for n in range(1, 31)]
    streams = [*(str(n) for n in range(1, 9)), "all"]
    assert Counter(c.workload for c in paper) == {
        "bigbench_load": 3,  # one unit per run: its execute step runs all three phases
        "bigbench_power": 31 * 3,  # q01..q30 and `all` (an imported T_PT) × 10/20/50 nodes
        "bigbench_throughput": 31 * len(streams) * 3,  # per stream and query, `all` for the phase
    }
    assert {c.params["cluster_nodes"] for c in paper} == {10, 20, 50}
    assert {c.params["scale_factor_gb"] for c in paper} == {10000}  # 10 TB
    assert sorted({str(c.params["query"]) for c in paper if "query" in c.params}) == ["all", *queries]
    assert [c.key for c in spec.cells("tiny", ["bigbench_load"])] == [
        "bigbench_load|cluster_nodes=1|scale_factor_gb=0.01"
    ]
    spec.validate_record_params(
        "bigbench_power", {"cluster_nodes": 10, "scale_factor_gb": 10000, "query": "all"}
    )
    spec.validate_record_params(
        "bigbench_throughput",
        {"cluster_nodes": 10, "scale_factor_gb": 10000, "query": "all", "stream": "all"},
    )
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
    # algorithms × graphs × configuration sets, and the single-setting steps on YouTube (issue 31)
    assert len(paper) == 3 * 10 * 3 + 2 * 2
    graphs = spec.axes["graph"].values_at("paper")
    assert len(graphs) == 10 and (graphs[0], graphs[-1]) == ("brightkite", "orkut")
    steps = {
        (c.workload, c.params["graph"], c.params["config_set"])
        for c in paper
        if c.series == "single_settings"
    }
    assert steps == {
        (workload, "youtube", config_set)
        for workload in ("mutual_friends", "triangle_counting")
        for config_set in ("sort_factor", "buffer_size")
    }  # their "just containers" on YouTube is a cell of the algorithms series
    assert not any(c.series == "single_settings" for c in spec.cells("tiny") + spec.cells("small"))
    assert [(item.value, item.against) for item in spec.axes["config_set"].comparisons] == [
        ("containers", "defaults"),
        ("custom", "defaults"),
        ("custom", "containers"),  # the paper's Tables 13 and 14
        ("sort_factor", "containers"),
        ("buffer_size", "containers"),
    ]
    assert spec.reformat_storage and spec.drop_caches
    assert [(e.name, e.baseline) for e in spec.environments][:3] == [
        ("hdd", True), ("ssd_a", False), ("ssd_b", False)
    ]  # fmt: skip
    custom = {
        "containers.extends": "defaults",
        "custom.extends": "containers",
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
    assert all(spec.setting(w, "block_size_mb", "paper") == 128 for w in spec.workloads)
    # the lab's three link levels are environments on the same hosts, their rates as facts
    lab = {e.name: e for e in spec.environments if e.transport.connection == "benchcamp_lab_ssh"}
    assert list(lab) == ["lab_1gbe", "lab_10gbe", "lab_unshaped"]
    assert all(spec.reformat_storage and e.transport.facts_command for e in lab.values())


# -- bad specs are rejected, naming the file, the line and the key -------------------------


def line_of(text: str, fragment: str) -> int:
    """The line (from 1) on which `fragment` starts in `text`."""
    assert fragment in text, f"not in the spec: {fragment!r}"
    return text[: text.index(fragment)].count("\n") + 1


# (study, old, new, the expected "key.path: message", where the problem is: a fragment of the
# changed text, by default the first line of `new`)
BAD_SPECS = [
    ("hibench_dse", "repetitions: 3", "repetitons: 3", "repetitons: unknown key (check the spelling)", None),
    ("hibench_dse", "repetitions: 3", "repetitions: 0", "repetitions: Input should be greater than or equal to 1", None),
    ("hibench_dse", "repetitions: 3", "repetitions: -1", "repetitions: Input should be greater than or equal to 1", None),
    ("hibench_dse", "paper: [240, 340, 440]", "paper: [-240, 340, 440]", "axes.data_size_gb.ladder.paper[0]: -240 must be greater than 0", None),
    ("hibench_dse", "paper: [240, 340, 440]", "paper: [0, 340, 440]", "axes.data_size_gb.ladder.paper[0]: 0 must be greater than 0", None),
    ("hdfs_interconnects", "paper: [40]", "paper: [-40]", "axes.data_size_gb.ladder.paper[0]: -40 must be greater than 0", None),
    ("hibench_dse", "paper: [240, 340, 440]", "paper: [240, {a: 1}]", "axes.data_size_gb.ladder.paper[1]: Input should be a valid number, integer or string", None),
    ("hibench_dse", "workloads: [dfsio_write, dfsio_read]", "workloads: [dfsio_write, sort]", "series[2].workloads[1]: workload 'sort' is not in 'workloads'", None),
    ("bigbench_containers", "workloads: [bigbench_power]", "workloads: [bigbench_refresh]", "series[1].workloads[0]: workload 'bigbench_refresh' is not in 'workloads'", None),
    ("hibench_dse", "axes: {data_size_gb: ladder}\n  - name: hive", "axes: {data_sise_gb: ladder}\n  - name: hive", "series[2].axes.data_sise_gb: axis 'data_sise_gb' is not declared in 'axes'", None),
    ("hibench_dse", "      - {maps: 3, reduces: 1}", "      - {maps: 3, reduce: 1}", "series[0].combinations[0].reduce: axis 'reduce' is not declared in 'axes'", None),
    ("ycsb_hbase_cassandra", "axes: {store: [cassandra, hbase], operationcount", "axes: {store: [cassandra, mongodb], operationcount", "series[0].axes.store[1]: axis 'store' has no value 'mongodb'", None),
    ("mapreduce_ssd_hdd", "config_set: [defaults, containers, custom]}", "config_set: [defaults, tuned]}", "series[0].axes.config_set[1]: axis 'config_set' has no value 'tuned'", None),
    ("hibench_dse", "    hadoop_command: dse hadoop", "    hadoop_command: dse hadoop; rm -rf /", "environments[2].hadoop_command: must be plain words", None),
    ("hibench_dse", "  max_stddev_pct: 10", "  max_stdev_pct: 10", "thresholds.max_stdev_pct: unknown key (check the spelling)", None),
    ("mapreduce_ssd_hdd", "reformat_storage: true", "reformat_storag: true", "reformat_storag: unknown key (check the spelling)", None),
    ("hibench_dse", "    connection: dse_gateway_ssh\n", "", "environments[2].connection: required key is missing", "  - name: dse_cluster"),
    ("hibench_dse", "    pages_per_gb: 550000          #", "    pages_per_gb: [1]          #", "settings.hive_aggregation.pages_per_gb: Input should be a valid number, integer, string, boolean or dictionary", None),
    # the schedule: checked as Airflow's cron timetable checks it (croniter), naming the key
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "61 * * * *"', "schedule: '61 * * * *' is not a valid cron expression ([61 * * * *] is not acceptable, out of range): give five fields (minute hour day-of-month month day-of-week, e.g. '0 1 * * 6'), an Airflow preset (@hourly, @daily, @weekly, @monthly, @quarterly, @yearly, @once) or null for manual runs only", None),
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "0 25 * * *"', "schedule: '0 25 * * *' is not a valid cron expression ([0 25 * * *] is not acceptable, out of range)", None),
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "*/0 * * * *"', "schedule: '*/0 * * * *' is not a valid cron expression", None),
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "every saturday"', "schedule: 'every saturday' is not a five-field cron expression: give five fields", None),
    ("ycsb_hbase_cassandra", 'schedule: "30 2 * * *"', 'schedule: "30 2 * *"', "schedule: '30 2 * *' is not a five-field cron expression", None),
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "0 1 * * 6 0"', "schedule: '0 1 * * 6 0' is not a five-field cron expression", None),
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "@dialy"', "schedule: '@dialy' is not a five-field cron expression", None),
    ("hibench_dse", 'schedule: "0 1 * * 6"', 'schedule: "0 0 31 2 *"', "schedule: '0 0 31 2 *' never fires: no date matches it (like 31 February)", None),
    # repeated workloads, series names, environment names, axis values and keys
    ("hibench_dse", "workloads: [wordcount, dfsio_write,", "workloads: [wordcount, dfsio_write, wordcount,", "workloads[2]: 'wordcount' is listed twice (first at [0]): remove one", None),
    ("hibench_dse", "- name: dfsio_scaling", "- name: wordcount_scaling", "series[2].name: 'wordcount_scaling' is listed twice (first at [1]): remove one", "- name: wordcount_scaling\n    description: TestDFSIO"),
    ("hibench_dse", "workloads: [dfsio_write, dfsio_read]", "workloads: [dfsio_write, dfsio_read, dfsio_write]", "series[2].workloads[2]: 'dfsio_write' is listed twice (first at [0]): remove one", None),
    ("hibench_dse", "- name: local_lab_yarn", "- name: local_lab", "environments[1].name: 'local_lab' is listed twice (first at [0]): remove one", "- name: local_lab\n    description: >\n      the lab's YARN"),
    ("hibench_dse", "    nodes: 3", "    nodes: 3\n    baseline: true", "environments[3].baseline: at most one environment is the baseline (local_lab is)", "    baseline: true\nworkloads"),
    ("hibench_dse", "values: [3, 4, 6, 12]", "values: [3, 4, 6, 4.0]", "axes.maps.values[3]: 4.0 is listed twice (first at [1]): remove one", None),
    ("hibench_dse", "small: [0.024, 0.034, 0.044]", "small: [0.024, 0.034, 0.024]", "axes.data_size_gb.ladder.small[2]: 0.024 is listed twice (first at [0]): remove one", None),
    ("hibench_dse", "maps: [4], reduces: [2]}", "maps: [4, 4], reduces: [2]}", "series[1].axes.maps[1]: 4 is listed twice (first at [0]): remove one", None),
    ("hibench_dse", "repetitions: 3\n", "repetitions: 3\nrepetitions: 5\n", "repetitions: key 'repetitions' is given twice (first on line 12); only the last one would count: merge them", "repetitions: 5"),
    # empty value lists, ladder levels and series sizes
    ("hibench_dse", "values: [3, 4, 6, 12]\n    baseline: 4", "values: []\n    baseline: 4", "axes.maps.values: is empty: list at least one value", None),
    ("hibench_dse", "tiny: [0.012, 0.017, 0.022]", "tiny: []", "axes.data_size_gb.ladder.tiny: is empty: list at least one value", None),
    ("hibench_dse", "maps: [4], reduces: [2]}", "maps: [], reduces: [2]}", "series[1].axes.maps: is empty: list at least one value, or write ladder", None),
    ("hibench_dse", "    ladders: [paper]", "    ladders: []", "series[0].ladders: is empty: list the sizes the series runs at (tiny, small, paper)", None),
    ("hibench_dse", "      paper: [240, 340, 440]\n", "", "axes.data_size_gb.ladder: ladder lacks size 'paper': give tiny, small, paper", "    ladder:\n      tiny: [0.012"),
    # a baseline that is not on every ladder level (or not one of the values)
    ("hibench_dse", "    baseline: smallest\n    ladder:", "    baseline: 0.024\n    ladder:", "axes.data_size_gb.baseline: 0.024 is not on the ladder's tiny and paper levels: list it on every level, or write 'smallest'", None),
    ("mapreduce_ssd_hdd", "    baseline: smallest  ", "    baseline: brightkite  ", "axes.graph.baseline: 'brightkite' is not on the ladder's tiny level: list it on every level, or write 'smallest'", None),
    ("hibench_dse", "    baseline: 4", "    baseline: 5", "axes.maps.baseline: 5 is not one of the values [3, 4, 6, 12]", None),
    # an axis's comparisons name two different values it takes, each pair once
    ("mapreduce_ssd_hdd", "      - {value: custom, against: containers}", "      - {value: custom, against: contaners}", "axes.config_set.comparisons[2].against: 'contaners' is not one of the axis's values ['defaults', 'containers', 'custom', 'sort_factor', 'buffer_size']: name one of them, or add it to the values", None),
    ("mapreduce_ssd_hdd", "      - {value: sort_factor, against: containers}", "      - {value: sort_factors, against: containers}", "axes.config_set.comparisons[3].value: 'sort_factors' is not one of the axis's values", None),
    ("mapreduce_ssd_hdd", "      - {value: custom, against: containers}", "      - {value: custom, against: custom}", "axes.config_set.comparisons[2].against: compares 'custom' with itself: name another value", None),
    ("mapreduce_ssd_hdd", "      - {value: custom, against: containers}", "      - {value: custom, against: defaults}  # again", "axes.config_set.comparisons[2]: ('custom', 'defaults') is listed twice (first at [1]): remove one", "defaults}  # again"),
]  # fmt: skip


@pytest.mark.parametrize(("study", "old", "new", "problem", "where"), BAD_SPECS)
def test_bad_spec_is_refused_naming_the_line_and_the_key(
    study: str, old: str, new: str, problem: str, where: str | None
) -> None:
    text = raw(study)
    assert old in text, f"fixture text not in {study}.yaml: {old!r}"
    broken = text.replace(old, new, 1)
    line = line_of(broken, where or new.splitlines()[0])
    with pytest.raises(SpecError) as error:
        parse_spec(broken, f"{study}.yaml")
    (message,) = str(error.value).splitlines()
    assert message.startswith(f"{study}.yaml:{line}: {problem}")


def test_every_problem_is_listed_at_once_in_the_order_of_the_file() -> None:
    """Checks that need another key (series -> workloads) run whenever that key is valid."""
    broken = (
        raw("hibench_dse")
        .replace('schedule: "0 1 * * 6"', 'schedule: "0 25 * * *"')
        .replace("repetitions: 3", "repetitons: 3")
        .replace("- name: local_lab_yarn", "- name: local_lab")
        .replace("values: [3, 4, 6, 12]", "values: []")
        .replace("small: [0.024, 0.034, 0.044]", "small: []")
        .replace("- name: dfsio_scaling", "- name: wordcount_scaling")
        .replace("workloads: [dfsio_write, dfsio_read]", "workloads: [dfsio_write, sort]")
        .replace("  hive_join:\n    pages", "  hive_joins:\n    pages")
    )
    with pytest.raises(SpecError) as error:
        parse_spec(broken, "hibench_dse.yaml", study="hibench_dse")
    expected = [
        ('schedule: "0 25', "schedule"),
        ("repetitons: 3", "repetitons"),
        ("- name: local_lab\n    description: >\n      the lab's YARN", "environments[1].name"),
        ("small: []", "axes.data_size_gb.ladder.small"),
        ("values: []", "axes.maps.values"),
        ("- name: wordcount_scaling\n    description: TestDFSIO", "series[2].name"),
        ("workloads: [dfsio_write, sort]", "series[2].workloads[1]"),
        ("hive_joins:", "settings.hive_joins"),
    ]
    assert [line.split(": ")[0:2] for line in str(error.value).splitlines()] == [
        [f"hibench_dse.yaml:{line_of(broken, fragment)}", path] for fragment, path in expected
    ]


def test_a_key_with_dots_is_quoted_and_a_shared_anchor_is_reported_for_each_user() -> None:
    broken = raw("mapreduce_ssd_hdd").replace("buffer.size: 65536", "buffer.size: [64]")
    line = line_of(broken, "    custom.io.file.buffer.size: [64]")
    with pytest.raises(SpecError) as error:
        parse_spec(broken, "m.yaml")
    assert str(error.value).splitlines() == [
        f"m.yaml:{line}: settings.{workload}['custom.io.file.buffer.size']: Input should be a valid "
        "number, integer, string, boolean or dictionary"
        for workload in ("mutual_friends", "triangle_counting", "connected_components")
    ]


def test_a_spec_whose_study_is_not_its_file_name_is_refused() -> None:
    with pytest.raises(SpecError) as error:
        parse_spec(raw("hibench_dse"), "hibench.yaml", study="hibench")
    assert str(error.value) == (
        "hibench.yaml:4: study: is 'hibench_dse' but the file is named 'hibench': rename one of them"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("study: x\nrepetitions: [3\n", "spec.yaml:3: not valid YAML: while parsing a flow sequence, expected ',' or ']'"),
        ("", "spec.yaml:1: a spec must be a mapping of keys (study, title, axes, ...)"),
        ("- study\n", "spec.yaml:1: a spec must be a mapping of keys (study, title, axes, ...)"),
        ("study: x\n---\nstudy: y\n", "spec.yaml:2: not valid YAML: expected a single document in the stream"),
    ],
)  # fmt: skip
def test_text_that_is_not_a_spec_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(SpecError) as error:
        parse_spec(text, "spec.yaml")
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    "schedule",
    ["@hourly", "@daily", "@weekly", "@monthly", "@quarterly", "@yearly", "@once", "*/15 2-4 * * MON-FRI"],
)
def test_airflow_presets_and_cron_expressions_are_accepted(schedule: str) -> None:
    spec = parse_spec(raw("hibench_dse").replace('"0 1 * * 6"', f'"{schedule}"', 1))
    assert spec.schedule == schedule


def test_a_null_schedule_means_manual_runs_only() -> None:
    assert parse_spec(raw("hibench_dse").replace('"0 1 * * 6"', "null", 1)).schedule is None


def test_the_schedule_check_agrees_with_airflows_own_timetable() -> None:
    """The presets are Airflow's (copied: importing them takes seconds), and what the spec refuses
    Airflow's cron timetable refuses too."""
    from airflow.sdk.definitions.timetables._cron import CRON_PRESETS
    from airflow.sdk.definitions.timetables.trigger import CronTriggerTimetable
    from airflow.sdk.exceptions import AirflowTimetableInvalid

    assert AIRFLOW_CRON_PRESETS == CRON_PRESETS
    for schedule in ["61 * * * *", "0 25 * * *", "*/0 * * * *", "every saturday", "@dialy"]:
        assert schedule_problem(schedule)
        with pytest.raises(AirflowTimetableInvalid):
            CronTriggerTimetable(schedule, timezone="UTC").validate()
    for schedule in [*CRON_PRESETS, "0 1 * * 6", "30 2 * * *"]:
        assert schedule_problem(schedule) is None
        CronTriggerTimetable(schedule, timezone="UTC").validate()


def test_unknown_study_lists_the_known_ones() -> None:
    with pytest.raises(SpecError) as error:
        load_spec("nope")
    assert str(error.value) == f"unknown study 'nope' (known: {', '.join(STUDIES)})"


# -- `benchcamp spec check` and the DAG factory ----------------------------------------------


def test_spec_check_passes_the_shipped_specs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check"]) == ExitCode.OK
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": ok (")[0] for line in lines] == [str(path) for path in spec_files()]


def test_spec_check_prints_every_problem_of_every_file_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "hibench_dse.yaml"
    bad.write_text(
        raw("hibench_dse")
        .replace('schedule: "0 1 * * 6"', 'schedule: "61 * * * *"')
        .replace("    baseline: smallest\n    ladder:", "    baseline: 0.024\n    ladder:")
    )
    good = tmp_path / "ycsb_hbase_cassandra.yaml"
    good.write_text(raw("ycsb_hbase_cassandra"))
    missing = tmp_path / "missing.yaml"
    assert main(["spec", "check", str(bad), str(good), str(missing)]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"{bad}:11: schedule: '61 * * * *' is not a valid cron expression ([61 * * * *] is not "
        "acceptable, out of range): give five fields (minute hour day-of-month month day-of-week, "
        "e.g. '0 1 * * 6'), an Airflow preset (@hourly, @daily, @weekly, @monthly, @quarterly, "
        "@yearly, @once) or null for manual runs only",
        f"{bad}:{line_of(bad.read_text(), '    baseline: 0.024')}: axes.data_size_gb.baseline: 0.024 is not on the ladder's tiny and paper levels: "
        "list it on every level, or write 'smallest'",
        f"{good}: ok (ycsb_hbase_cassandra: 116 cells at the default ladder, small)",
        f"{missing}: cannot read: [Errno 2] No such file or directory: '{missing}'",
    ]
    assert captured.err == "3 problem(s) in 2 of 3 spec(s)\n"


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder standing in for the bundled studies (load_spec's cache cleared around it)."""
    monkeypatch.setattr(spec_module, "spec_files", lambda: iter(sorted(tmp_path.glob("*.yaml"))))
    load_spec.cache_clear()
    yield tmp_path
    load_spec.cache_clear()


def test_the_dag_factory_refuses_a_bad_spec_with_the_message_of_spec_check(
    bundled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchcamp.airflow.dag_factory import build_study_dag

    spec_file = bundled / "hibench_dse.yaml"
    spec_file.write_text(
        raw("hibench_dse")
        .replace('schedule: "0 1 * * 6"', 'schedule: "0 25 * * *"')
        .replace("workloads: [wordcount, dfsio_write,", "workloads: [wordcount, dfsio_write, wordcount,")
    )
    assert main(["spec", "check", str(spec_file)]) == ExitCode.BAD_INPUT
    checked = capsys.readouterr().out
    with pytest.raises(SpecError) as error:
        build_study_dag("hibench_dse")
    assert str(error.value) + "\n" == checked
    assert (
        len(checked.splitlines()) == 2
        and f"{spec_file}:{line_of(spec_file.read_text(), 'workloads: [')}: workloads[2]: " in checked
    )
