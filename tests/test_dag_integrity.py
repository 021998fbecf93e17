"""Every DAG file imports without error, opens no connection at parse time, and has the study's shape."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DAG_FILES = sorted((ROOT / "dags").glob("*.py"))


def registered_dag_ids() -> list[str]:
    """The DAG ids the study registry builds (core.study): what dags/ must hold, and nothing else."""
    from benchcamp.airflow.dag_factory import study_dags

    return [dag.dag_id for dag in study_dags()]


def test_there_is_one_dag_per_implemented_study() -> None:
    from benchcamp.core.spec import load_spec, study_names
    from benchcamp.pipeline.campaign.conf import implemented_workloads

    implemented = [study for study in study_names() if implemented_workloads(load_spec(study))]
    assert registered_dag_ids() == implemented
    assert {"hibench_dse", "ycsb_hbase_cassandra"} <= set(implemented)  # the bundled implemented studies


@pytest.fixture
def dagbag(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a connection was opened at DAG parse time: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    from airflow.dag_processing.dagbag import DagBag

    return DagBag(dag_folder=str(ROOT / "dags"), safe_mode=True)


def test_dags_import_without_errors_or_connections(dagbag) -> None:  # type: ignore[no-untyped-def]
    assert dagbag.import_errors == {}
    assert set(dagbag.dag_ids) == set(registered_dag_ids())


def test_a_tasks_parse_builds_only_its_own_studys_dag(monkeypatch: pytest.MonkeyPatch) -> None:
    """Airflow's parsing context names the DAG a task's process parses the file for: only that
    study's DAG is built; a DAG id no study has (another plugin's) still finds every DAG."""
    from airflow.dag_processing.dagbag import DagBag

    monkeypatch.setenv("_AIRFLOW_PARSING_CONTEXT_DAG_ID", "hibench_dse")
    assert DagBag(dag_folder=str(ROOT / "dags"), safe_mode=True).dag_ids == ["hibench_dse"]
    monkeypatch.setenv("_AIRFLOW_PARSING_CONTEXT_DAG_ID", "not_a_study")
    assert set(DagBag(dag_folder=str(ROOT / "dags"), safe_mode=True).dag_ids) == set(registered_dag_ids())


def test_hibench_dag_shape(dagbag) -> None:  # type: ignore[no-untyped-def]
    dag = dagbag.dags["hibench_dse"]
    ids = set(dag.task_dict)
    for step in ("clean", "generate", "execute"):
        assert f"repetitions_local_lab.{step}" in ids
    assert {"plan", "validate", "load", "report", "publish"} <= ids
    # the marts in one dbt build, in the warehouse's pool, between load and report
    build = dag.task_dict["dbt_build"]
    assert build.pool == "benchcamp_warehouse" and build.upstream_task_ids == {"load"}
    assert build.downstream_task_ids == {"alert_regressions"}
    # the campaign's regressions (change_points mart) as Asset events, before the report
    alert = dag.task_dict["alert_regressions"]
    assert alert.downstream_task_ids == {"report"} and alert.pool == "benchcamp_warehouse"
    (regression_alias,) = alert.outlets
    assert regression_alias.name == "benchcamp_regression"
    assert dag.task_dict["repetitions_local_lab.execute"].pool == "benchcamp_target_local_lab"
    assert dag.task_dict["load"].pool == "benchcamp_warehouse"
    assert dag.max_active_runs == 1 and not dag.catchup
    assert dag.schedule == "0 1 * * 6" or str(dag.timetable.summary) == "0 1 * * 6"
    assert dag.params["ladder"] == "small"
    clean = dag.task_dict["repetitions_local_lab.clean"]
    assert clean.downstream_task_ids == {"repetitions_local_lab.generate"}
    # a target that cannot be prepared or cleaned fails the run, whatever fail_on_validation says
    assert {"preflight_local_lab", "cleanup_local_lab", "report"} <= dag.task_dict[
        "publish"
    ].upstream_task_ids
    # the load task announces hardware changes through an asset alias
    (alias,) = dag.task_dict["load"].outlets
    assert alias.name == "benchcamp_hardware_change"
    # the grid: one (collapsed) group per target, task ids unprefixed;
    # each mapped repetition named by cell and repetition
    assert list(dag.task_group.children) == [
        "plan", "target_local_lab", "target_local_lab_yarn", "target_dse_cluster", "target_lab_cluster",
        "validate", "load", "dbt_build", "alert_regressions", "report", "publish",
    ]  # fmt: skip
    assert dag.task_dict["preflight_local_lab"].task_group.group_id == "target_local_lab"
    # A target the run does not use: its `units_<env>` skips; it is the group's setup and the
    # cleanup its teardown, so the scheduler skips the group's steps without a process each, those
    # that run whatever happened before them too; publish accepts the other targets' skipped steps.
    units, cleanup = dag.task_dict["units_dse_cluster"], dag.task_dict["cleanup_dse_cluster"]
    assert units.is_setup and cleanup.is_teardown and cleanup.on_failure_fail_dagrun
    assert "units_dse_cluster" in cleanup.upstream_task_ids
    assert dag.task_dict["warmups_done_dse_cluster"].trigger_rule == "all_done"
    assert dag.task_dict["publish"].trigger_rule == "none_failed_min_one_success"
    for step in ("clean", "generate", "execute"):
        assert "benchcamp_unit_label" in dag.task_dict[f"adaptive_dse_cluster_1.{step}"].map_index_template
    # the documentation says how long a campaign takes at each ladder size
    assert "| small | 15 | 45 | 19 min for 45 repetitions" in dag.doc_md
    assert "| paper |" in dag.doc_md and "over 26 h" in dag.doc_md


@pytest.mark.parametrize("dag_file", [path.stem for path in DAG_FILES])
def test_dag_file_does_not_import_heavy_libraries_at_parse_time(dag_file: str) -> None:
    code = (
        f"import sys; sys.path.insert(0, 'dags'); import {dag_file}; "
        "heavy = [m for m in ('great_expectations', 'duckdb', 'pandas', 'dbt.cli.main') if m in sys.modules]; "
        "print('heavy:' + ','.join(heavy))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "heavy:"


def test_ycsb_dag_shape_and_trigger_form(dagbag) -> None:  # type: ignore[no-untyped-def]
    from airflow.sdk.definitions.param import ParamsDict
    from airflow.sdk.exceptions import ParamValidationError

    dag = dagbag.dags["ycsb_hbase_cassandra"]
    ids = set(dag.task_dict)
    for environment in ("single_node", "local_lab"):
        assert {f"repetitions_{environment}.{step}" for step in ("clean", "generate", "execute")} <= ids
    assert dag.params["workloads"] == [f"ycsb_{letter}" for letter in "abcdef"]
    assert dag.params["repetitions"] == 3 and dag.params["environment"] == "single_node"
    assert "| small | 116 | 348 |" in dag.doc_md
    # an unknown workload letter never reaches a run
    for bad in ({"workloads": ["ycsb_g"]}, {"workloads": []}, {"repetitions": -1}):
        params = ParamsDict(dict(dag.params.items()))
        with pytest.raises(ParamValidationError):
            params.update(bad)
            params.validate()


def test_every_study_form_validates_its_defaults_and_leaves_optional_fields_optional(dagbag) -> None:  # type: ignore[no-untyped-def]
    """The trigger form must submit as it opens: defaults valid, and the optional fields (cells,
    campaign, note, warm-ups) nullable, since the form marks a field without null as required."""
    from airflow.sdk.definitions.param import ParamsDict
    from benchcamp.core.spec import load_spec
    from benchcamp.pipeline.campaign.conf import check_conf

    for dag_id, dag in dagbag.dags.items():
        params = ParamsDict(dict(dag.params.items()))
        defaults = params.validate()
        for optional in ("cells", "campaign", "note", "warmup_repetitions"):
            schema = dag.params.get_param(optional).schema
            assert "null" in schema["type"] and defaults[optional] is None, (dag_id, optional, schema)
        workloads = dag.params.get_param("workloads").schema
        assert workloads["examples"] == workloads["items"]["enum"] == defaults["workloads"], dag_id
        check_conf(load_spec(dag_id), defaults)  # the plan accepts what the form sends


def test_bad_params_are_rejected_before_a_run_exists(dagbag) -> None:  # type: ignore[no-untyped-def]
    from airflow.sdk.definitions.param import ParamsDict
    from airflow.sdk.exceptions import ParamValidationError

    dag = dagbag.dags["hibench_dse"]
    for bad in (
        {"repetitions": 0},
        {"repetitions": 51},
        {"ladder": "huge"},
        {"workloads": ["sort"]},
        {"environment": "mars"},
        {"campaign": ".."},
        {"campaign": "."},
        {"campaign": "a/.."},
        {"campaign": "/etc"},
    ):
        params = ParamsDict(dict(dag.params.items()))
        with pytest.raises(ParamValidationError):
            params.update(bad)
            params.validate()


def test_schedules_can_be_turned_off_for_manual_only_stacks(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchcamp.airflow.dag_factory import schedule_for
    from benchcamp.core.spec import load_spec

    spec = load_spec("hibench_dse")
    assert schedule_for(spec) == "0 1 * * 6"
    monkeypatch.setenv("BENCHCAMP_SCHEDULES", "off")
    assert schedule_for(spec) is None


def test_adaptive_rounds_exist_only_with_max_repetitions_in_the_spec(dagbag) -> None:  # type: ignore[no-untyped-def]
    """hibench_dse declares max_repetitions 5 over 3 repetitions: per target, two rounds of an
    `adapt` decision then a mapped clean -> generate -> execute group, then the target's cleanup
    (validate records why the last round's cells stopped). ycsb_hbase_cassandra declares it too
    (`make run` measures its stores to a target); hdfs_interconnects does not: no such task."""
    dag = dagbag.dags["hibench_dse"]
    for env in ("local_lab", "local_lab_yarn", "lab_cluster", "dse_cluster"):
        assert dag.task_dict[f"adapt_{env}_1"].upstream_task_ids >= {f"repetitions_{env}.execute"}
        for k in (1, 2):
            group = f"adaptive_{env}_{k}"
            assert dag.task_dict[f"{group}.clean"].upstream_task_ids == {f"adapt_{env}_{k}"}
            assert dag.task_dict[f"{group}.clean"].pool == f"benchcamp_target_{env}"
            assert dag.task_dict[f"{group}.generate"].downstream_task_ids == {f"{group}.execute"}
        assert f"adapt_{env}_2" in dag.task_dict[f"adaptive_{env}_1.execute"].downstream_task_ids
        assert f"adaptive_{env}_2.execute" in dag.task_dict[f"cleanup_{env}"].upstream_task_ids
        assert f"adapt_{env}_3" not in dag.task_dict and f"adaptive_{env}_3.clean" not in dag.task_dict
        # failed repetitions are counted; on a target the run does not use, skipped with its group
        assert dag.task_dict[f"adapt_{env}_2"].trigger_rule == "all_done"
    for optional in ("target_ci_pct", "max_repetitions", "budget_s"):
        assert "null" in dag.params.get_param(optional).schema["type"] and dag.params[optional] is None
    ycsb = dagbag.dags["ycsb_hbase_cassandra"]
    assert "adaptive_single_node_2.execute" in ycsb.task_dict["cleanup_single_node"].upstream_task_ids
    links = dagbag.dags["hdfs_interconnects"]
    assert not [task for task in links.task_dict if task.startswith(("adapt_", "adaptive_"))]
