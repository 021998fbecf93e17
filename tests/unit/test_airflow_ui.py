"""The study DAGs as a user meets them in Airflow's UI: the trigger form (lab defaults that run,
descriptions of its own) and the grid's names for mapped repetitions.

Pure functions and `study_params` directly (no DagBag, no Airflow run): cheap.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchcamp.airflow.airflow_env import airflow_environment, ssh_connection_ids
from benchcamp.airflow.dag_factory import UNIT_LABEL, study_params, task_unit_label
from benchcamp.core.spec import load_spec, study_names
from benchcamp.ops import lab, stack
from benchcamp.pipeline.adaptive import adaptive_rounds
from benchcamp.pipeline.campaign.conf import DEFAULT_CONNECTIONS_ENV, check_conf, implemented_workloads
from benchcamp.pipeline.campaign.plan import plan_units, unit_label

STUDIES = study_names()


@pytest.mark.parametrize("study", STUDIES)
def test_on_a_lab_stack_the_form_opens_on_the_studys_lab_environment(
    study: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make up` passes the lab's connections; the form's default is reached through one of them,
    the spec's real-cluster targets stay selectable, and a run without an environment (a scheduled
    one, a REST trigger with `{}`) plans on the same one."""
    spec = load_spec(study)
    reachable = lab.lab_ssh_connection_ids()
    monkeypatch.setenv(DEFAULT_CONNECTIONS_ENV, ",".join(sorted(reachable)))
    environment = study_params(spec)["environment"]
    assert spec.environment(environment.value).transport.connection in reachable, study
    assert environment.schema["enum"] == [env.name for env in spec.environments]
    assert check_conf(spec, {}).environment == environment.value


@pytest.mark.parametrize("study", STUDIES)
def test_without_a_stack_the_form_opens_on_the_specs_baseline(
    study: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = load_spec(study)
    monkeypatch.delenv(DEFAULT_CONNECTIONS_ENV, raising=False)
    baseline = next((env.name for env in spec.environments if env.baseline), spec.environments[0].name)
    assert study_params(spec)["environment"].value == baseline
    assert "stays selectable" not in study_params(spec)["environment"].description


def test_the_default_prefers_the_baseline_when_the_stack_reaches_it() -> None:
    spec = load_spec(STUDIES[0])
    for env in spec.environments:
        assert spec.default_environment([env.transport.connection]) in {
            e.name for e in spec.environments if e.transport.connection == env.transport.connection
        }
    assert spec.default_environment(["no_such_connection"]) == spec.default_environment()


def test_the_stack_environment_names_its_ssh_connections_only() -> None:
    connections = lab.airflow_connection_env()
    env = airflow_environment(connections)
    assert set(env[DEFAULT_CONNECTIONS_ENV].split(",")) == set(lab.lab_ssh_connection_ids())
    assert ssh_connection_ids({"AIRFLOW_CONN_X_HIVE": '{"conn_type": "hiveserver2"}'}) == []
    assert ssh_connection_ids({"AIRFLOW_CONN_GW": "ssh://bench@gw:22"}) == ["gw"]


def test_a_slow_parse_on_a_loaded_controller_never_deactivates_the_studies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Airflow, configured by the stack's environment, lets the DAG file's import take minutes, lets a
    parse run longer than the import may, and deactivates a DAG as stale only after a parse could
    have ended: in `make test` a parse took 15-50 s, and Airflow's defaults (30 s, 50 s, 50 s)
    failed it as an import error or killed it and then hid every study from the UI ("Not Found")."""
    from airflow.configuration import conf

    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path))  # the stack's secrets are written there
    for name, value in stack.stack_environment().items():
        if name.startswith("AIRFLOW__"):
            monkeypatch.setenv(name, value)
    imported = conf.getfloat("core", "dagbag_import_timeout")
    parsed = conf.getfloat("dag_processor", "dag_file_processor_timeout")
    stale = conf.getfloat("dag_processor", "stale_dag_threshold")
    assert imported >= 300 and parsed > imported and stale >= parsed, (imported, parsed, stale)
    # `benchcamp run` (airflow dags test) imports the same file under the same limit
    assert float(airflow_environment({})["AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT"]) == imported


@pytest.mark.parametrize("study", STUDIES)
def test_field_descriptions_are_the_studys_own(study: str) -> None:
    """The Cells example is a cell of the study's own default matrix; the max-repetitions text
    offers adaptive repetitions only on a study that declares them."""
    spec = load_spec(study)
    params = study_params(spec)
    keys = {cell.key for cell in spec.cells(spec.default_ladder, implemented_workloads(spec))}
    example = params["cells"].description.split("e.g. '", 1)[1].split("'", 1)[0]
    assert example in keys, (study, example)
    maximum = params["max_repetitions"].description
    if adaptive_rounds(spec):
        assert f"repetitions + {adaptive_rounds(spec)}" in maximum
    else:
        assert "+ 0" not in maximum and "no adaptive repetitions" in maximum


def test_a_mapped_repetition_is_named_by_its_cell_and_repetition() -> None:
    """What `map_index_template` renders for each step of a planned unit (Airflow renders it with
    the task's resolved arguments; the steps take the unit positionally)."""
    import jinja2

    spec = load_spec(STUDIES[0])
    conf = check_conf(spec, {"ladder": "tiny", "repetitions": 2})
    units = [unit for units in plan_units(spec, conf, "c1").values() for unit in units]
    measured = next(unit for unit in units if unit["repetition"] == 2)
    label = unit_label(measured)
    assert label.endswith(" · rep2") and label.split(" · ")[0].startswith(measured["workload"] + "|")
    assert unit_label({**measured, "repetition": 0}).endswith(" · warm-up rep0")

    class Step:  # what the template sees as `task` once Airflow resolved the mapped argument
        op_args = [measured]
        op_kwargs: dict[str, object] = {}

    template = jinja2.Environment().from_string(UNIT_LABEL)
    assert template.render(task=Step(), benchcamp_unit_label=task_unit_label) == label
    # never raises: a failed label would fail the repetition after it ran
    assert unit_label(None) == unit_label({"repetition": "x"}) == task_unit_label(object()) == ""


def test_unpausing_a_study_starts_no_catch_up_campaign() -> None:
    """The run Airflow creates for the latest scheduled date when a study is unpaused (or after the
    scheduler was down) starts long after its time: its plan skips it. A scheduled run on time, a
    manual run (the one triggered on the paused study), a backfill of old dates: they run."""
    from datetime import UTC, datetime, timedelta

    from benchcamp.pipeline.campaign.conf import SCHEDULED_START_GRACE, late_scheduled_run

    due = datetime(2026, 11, 21, 1, 0, tzinfo=UTC)
    assert late_scheduled_run("scheduled", due, due + timedelta(seconds=4)) is None
    assert late_scheduled_run("scheduled", due, due + SCHEDULED_START_GRACE) is None
    why = late_scheduled_run("scheduled", due, due + timedelta(days=5, hours=2, minutes=7))
    assert why is not None and "scheduled for 2026-11-21 01:00 UTC but starting 122 h 07 min later" in why
    assert "trigger the study" in why
    for run_type in ("manual", "backfill", "asset_triggered"):
        assert late_scheduled_run(run_type, due, due + timedelta(days=30)) is None
    assert late_scheduled_run("scheduled", None, due) is None
    # a scheduled run a user cleared days later to run it again
    assert late_scheduled_run("scheduled", due, due + timedelta(days=3), cleared=True) is None


def test_the_plan_logs_the_conf_it_used_and_why_a_backfill_has_none() -> None:
    from benchcamp.pipeline.campaign.conf import conf_summary

    spec = load_spec(STUDIES[0])
    given = {"ladder": "tiny", "repetitions": 1}
    conf = check_conf(spec, given)
    lines = conf_summary("backfill", given, conf)
    assert lines[0] == 'run conf: {"ladder": "tiny", "repetitions": 1}'
    assert "ladder=tiny repetitions=1" in lines[1] and len(lines) == 2
    dropped = conf_summary("backfill", None, check_conf(spec, {}), spec)
    assert dropped[0] == "run conf: {}" and "Override parameters on existing runs" in dropped[-1]
    defaults = check_conf(spec, {})
    said = (
        f"no parameters given: the defaults, ladder {defaults.ladder}, {len(defaults.workloads)} "
        f"workload(s), {defaults.repetitions} repetition(s) a cell"
    )
    assert dropped[2] == said  # this study's spec states no duration for its default ladder
    assert conf_summary("manual", {}, defaults, spec)[2:] == [said]  # no backfill warning
    hibench = load_spec("hibench_dse")  # it does: the line gives it
    (line,) = conf_summary("manual", None, check_conf(hibench, {}), hibench)[2:]
    assert line.endswith(f"3 repetition(s) a cell ({hibench.campaign_durations['small']})"), line


@pytest.mark.parametrize("study", STUDIES)
def test_every_form_schema_is_a_valid_draft_07_schema_that_refuses_bad_values(study: str) -> None:
    """The schemas name draft-07 (Airflow then checks them against its small meta-schema on every
    task's serialization); each is valid there and still refuses what the form must refuse."""
    import jsonschema
    from benchcamp.airflow.dag_factory import JSON_SCHEMA_DRAFT

    params = study_params(load_spec(study))
    for name, param in params.items():
        assert param.schema["$schema"] == JSON_SCHEMA_DRAFT, name
        assert jsonschema.validators.validator_for(param.schema) is jsonschema.Draft7Validator, name
        jsonschema.Draft7Validator.check_schema(param.schema)
        param.resolve(param.value)  # every default is accepted
    for name, bad in {"repetitions": 0, "campaign": "../x", "order_seed": 2**32, "workloads": []}.items():
        with pytest.raises(ValueError):
            params[name].resolve(bad)
