"""The BigBench study's own environment options: where the machine-learning queries' Spark step
runs (`spark_master`) and how it reaches that cluster (`spark_conf`)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field

from benchcamp.core.environment_options import EnvironmentOptions

SPARK_PROPERTY = re.compile(r"spark\.[A-Za-z0-9_.-]+")
SPARK_MASTER = re.compile(r"local(\[(\d+|\*)\])?|yarn|(spark|k8s)://[A-Za-z0-9.:/_-]+")


def _spark_properties(value: dict[str, str | int | float | bool]) -> dict[str, str | int | float | bool]:
    """Spark property names only (each becomes one `-Dname=value` argument of the driver's JVM),
    and values of one line: a setting split over lines is a mistake, not a Spark value."""
    for name, setting in value.items():
        if not SPARK_PROPERTY.fullmatch(name):
            raise ValueError(f"'{name}' is not a Spark property (spark. then letters, digits, _ . -)")
        if "\n" in str(setting):
            raise ValueError(f"'{name}': a value of one line")
    return value


def _spark_master(value: str) -> str:
    if not SPARK_MASTER.fullmatch(value):
        raise ValueError("must be local, local[N], local[*], yarn, spark://host:port or k8s://...")
    return value


class SparkOptions(EnvironmentOptions):
    """Where the ML queries' Spark step runs. The driver always runs on the controller, where
    Airflow's task runs (it reads the Hive export over hdfs://); with `yarn` its executors run in
    YARN containers on the target's workers, as a user's `spark-submit --master yarn` would."""

    master: Annotated[str, AfterValidator(_spark_master)] = Field(
        default="local[2]",
        alias="spark_master",
        description="Spark master of the ML queries' Spark step: local[2] (in the controller's "
        "JVM), or yarn (executors on the cluster's NodeManagers; spark_conf then says where the "
        "ResourceManager and Spark's jars are)",
    )
    conf: Annotated[dict[str, str | int | float | bool], AfterValidator(_spark_properties)] = Field(
        default_factory=dict,
        alias="spark_conf",
        description="Spark properties for that step, as `spark-submit --conf` takes them (e.g. "
        "spark.hadoop.yarn.resourcemanager.hostname, spark.yarn.jars, spark.driver.host, "
        "spark.executor.memory); given to the driver's JVM as -Dname=value",
    )
