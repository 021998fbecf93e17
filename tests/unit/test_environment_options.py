"""An environment's options: one model per concern, each refusing its own bad values by spec key."""

from __future__ import annotations

from typing import Any

import pytest
from benchcamp.core.environment_options import (
    Environment,
    HadoopOptions,
    HiveOptions,
    JobHistoryOptions,
    TransportOptions,
    study_option_models,
)
from benchcamp.core.spec import SpecError, load_spec, parse_spec
from benchcamp.studies.bigbench_containers.options import SparkOptions
from benchcamp.studies.ycsb_hbase_cassandra.options import YcsbOptions
from pydantic import BaseModel, ValidationError

BAD_OPTIONS: list[tuple[type[BaseModel], dict[str, Any], str]] = [
    (TransportOptions, {}, "connection"),
    (TransportOptions, {"connection": ""}, "connection"),
    (TransportOptions, {"connection": "c", "nodes": 0}, "nodes"),
    (TransportOptions, {"connection": "c", "reformat_command": ""}, "reformat_command"),
    (TransportOptions, {"connection": "c", "drop_caches": "sometimes"}, "drop_caches"),
    (HadoopOptions, {"hadoop_command": "hadoop; rm -rf /"}, "hadoop_command"),
    (HadoopOptions, {"hadoop_command": ""}, "hadoop_command"),
    (HadoopOptions, {"safemode_wait_s": 0}, "safemode_wait_s"),
    (HadoopOptions, {"webhdfs_url": "ftp://nn:9870"}, "webhdfs_url"),
    (HadoopOptions, {"mapreduce_local": "maybe"}, "mapreduce_local"),
    (HadoopOptions, {"hadoop_comand": "hadoop"}, "hadoop_comand"),
    (HiveOptions, {"hive_connection": 7}, "hive_connection"),
    (JobHistoryOptions, {"jobhistory_url": "jhs:19888"}, "jobhistory_url"),
    (JobHistoryOptions, {"jobhistory_via": "ip netns exec x && curl"}, "jobhistory_via"),
    (YcsbOptions, {"ycsb_properties": {"cassandra hosts": "h"}}, "ycsb_properties"),
    (YcsbOptions, {"ycsb_properties": {"cassandra.port": [9042]}}, "ycsb_properties"),
    (SparkOptions, {"spark_master": "yarn --conf x"}, "spark_master"),
    (SparkOptions, {"spark_master": "local[two]"}, "spark_master"),
    (SparkOptions, {"spark_conf": {"yarn.resourcemanager.hostname": "rm"}}, "spark_conf"),
    (SparkOptions, {"spark_conf": {"spark.driver.host": "a\nb"}}, "spark_conf"),
    (SparkOptions, {"spark_conf": {"spark.executor.memory": ["512m"]}}, "spark_conf"),
]


@pytest.mark.parametrize(("model", "keys", "named"), BAD_OPTIONS)
def test_each_options_model_refuses_its_own_bad_values_naming_the_key(
    model: type[BaseModel], keys: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValidationError) as error:
        model.model_validate(keys)
    assert [item["loc"][0] for item in error.value.errors()] == [named] * len(error.value.errors())
    assert named in str(error.value)


def test_an_environment_routes_flat_keys_to_its_options() -> None:
    environment = load_spec("hibench_dse").environment("local_lab_yarn")
    assert environment.transport.connection == "benchcamp_lab_ssh"
    assert environment.hadoop.command == "hadoop-yarn"
    assert environment.jobhistory.url == "http://127.0.0.1:19888"
    assert environment.jobhistory.via == "ip netns exec benchcamp-yarn"
    assert environment.hive.connection is None and environment.option("ycsb_properties") == {}


def test_the_options_models_take_every_flat_key_once() -> None:
    models = [*Environment.option_parts().values(), *study_option_models()]
    assert YcsbOptions in models  # a study's own options, taken by every environment
    keys = [key for model in models for key in model.spec_keys()]
    assert len(keys) == len(set(keys))
    assert not set(keys) & {"name", "description", "baseline"}


def test_replace_validates_the_changed_keys_like_a_spec() -> None:
    environment = load_spec("hibench_dse").environment("local_lab")
    assert environment.replace(safemode_wait_s=5).hadoop.safemode_wait_s == 5
    assert environment.replace().flat_keys() == environment.flat_keys()
    with pytest.raises(ValidationError, match="hadoop_command: must be plain words"):
        environment.replace(hadoop_command="hadoop | tee")


def test_an_environment_error_names_the_flat_key_on_its_line() -> None:
    text = "\n".join(
        [
            "study: s",
            "title: t",
            "environments:",
            "  - name: lab",
            "    connection: c",
            "    jobhistory_url: jhs:19888",
            "    ycsb_properties: {'a b': x}",
            "axes: {n: {values: [1]}}",
            "workloads: [w]",
            "series: [{name: s, workloads: [w], axes: {n: [1]}}]",
        ]
    )
    with pytest.raises(SpecError) as error:
        parse_spec(text, "s.yaml")
    assert str(error.value).splitlines() == [
        "s.yaml:6: environments[0].jobhistory_url: String should match pattern '^https?://[A-Za-z0-9.-]+(:\\d+)?/?$'",
        "s.yaml:7: environments[0].ycsb_properties: 'a b' is not a YCSB property name (letters, digits, _ and .)",
    ]


def test_a_nested_options_mapping_is_refused_with_the_flat_keys_to_write() -> None:
    text = "study: s\ntitle: t\nenvironments:\n  - name: lab\n    connection: c\n    hive:\n      connection: h\n"
    text += "axes: {n: {values: [1]}}\nworkloads: [w]\nseries: [{name: s, workloads: [w], axes: {n: [1]}}]\n"
    with pytest.raises(SpecError) as error:
        parse_spec(text, "s.yaml")
    assert str(error.value) == (
        "s.yaml:6: environments[0].hive: unknown key: write its options flat here (hive_connection)"
    )
