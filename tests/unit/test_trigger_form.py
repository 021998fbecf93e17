"""The trigger form as a user meets it on each study: lab defaults that run, descriptions of its own.

`study_params` is built directly (no DagBag): what the form opens on is the Params' defaults.
"""

from __future__ import annotations

import pytest
from benchcamp.airflow.airflow_env import airflow_environment, ssh_connection_ids
from benchcamp.airflow.dag_factory import study_params
from benchcamp.core.spec import load_spec, study_names
from benchcamp.ops import lab
from benchcamp.pipeline.adaptive import adaptive_rounds
from benchcamp.pipeline.campaign import DEFAULT_CONNECTIONS_ENV, check_conf, implemented_workloads

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
