"""The YCSB study's own environment option: where the YCSB bindings find a target's stores."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints

from benchcamp.core.environment_options import EnvironmentOptions
from benchcamp.workloads.ycsb import DEFAULT_BARRIER_PORT, YCSB_PROPERTY_NAME

# a host name or an IPv4 address as ssh takes it: nothing a shell could split or expand
HostName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]*$", max_length=253)]


def _ycsb_property_names(value: dict[str, str | int | float]) -> dict[str, str | int | float]:
    """Names YCSB takes after `-p`: anything else would be split or misread on its command line."""
    for name in value:
        if not YCSB_PROPERTY_NAME.fullmatch(name):
            raise ValueError(f"'{name}' is not a YCSB property name (letters, digits, _ and .)")
    return value


class YcsbOptions(EnvironmentOptions):
    """Where the YCSB bindings find this target's stores, and where its clients run."""

    properties: Annotated[dict[str, str | int | float], AfterValidator(_ycsb_property_names)] = Field(
        default_factory=dict,
        alias="ycsb_properties",
        description="YCSB `-p` properties that say where this target's stores listen (e.g. "
        "cassandra.hosts, cassandra.port, hbase.zookeeper.quorum); default: each binding's own "
        "(the store on the target itself, at its standard port)",
    )
    client_hosts: list[HostName] = Field(
        default_factory=list,
        alias="ycsb_client_hosts",
        description="hosts the YCSB clients of a run start on, reached from the target over SSH "
        "(the target account's own ssh: its keys and known hosts, or the ssh_config file named by "
        "BENCHCAMP_SSH_CONFIG in the target's environment); client N runs on the N-th host, round "
        "robin when there are fewer; each needs java and YCSB_CLASSPATH in its environment as the "
        "target does, and client 1's host takes the others' connections on `ycsb_barrier_port` "
        "(their start barrier); default: every client on the target itself",
    )
    barrier_port: int = Field(
        DEFAULT_BARRIER_PORT,
        ge=1024,
        le=65535,
        alias="ycsb_barrier_port",
        description="the TCP port on client 1's host where the clients on other hosts wait for "
        "each other before their operations start (YCSB's start barrier, lab/ycsb); it must be "
        "free there and reachable from the other client hosts",
    )
