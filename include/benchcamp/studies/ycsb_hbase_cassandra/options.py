"""The YCSB study's own environment option: where the YCSB bindings find a target's stores."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from benchcamp.core.environment_options import EnvironmentOptions
from benchcamp.workloads.ycsb import YCSB_PROPERTY_NAME


def _ycsb_property_names(value: dict[str, str | int | float]) -> dict[str, str | int | float]:
    """Names YCSB takes after `-p`: anything else would be split or misread on its command line."""
    for name in value:
        if not YCSB_PROPERTY_NAME.fullmatch(name):
            raise ValueError(f"'{name}' is not a YCSB property name (letters, digits, _ and .)")
    return value


class YcsbOptions(EnvironmentOptions):
    """Where the YCSB bindings find this target's stores."""

    properties: Annotated[dict[str, str | int | float], AfterValidator(_ycsb_property_names)] = Field(
        default_factory=dict,
        alias="ycsb_properties",
        description="YCSB `-p` properties that say where this target's stores listen (e.g. "
        "cassandra.hosts, cassandra.port, hbase.zookeeper.quorum); default: each binding's own "
        "(the store on the target itself, at its standard port)",
    )
