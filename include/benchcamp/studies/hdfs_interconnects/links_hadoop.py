"""The lab's HDFS across shaped links: a NameNode and 4 DataNodes, each in its own network namespace.

Study 5 compares interconnects with the benchmark on the NameNode's host and 4 DataNodes. The lab
builds that on one machine: namespaces `benchcamp-links-nn` (NameNode, and the benchmark client)
and `benchcamp-links-dn1..4` (one DataNode each), every one joined by a veth pair to a bridge in
`benchcamp-links-hub`, addresses 10.231.0.0/24 (the daemons bind those, never 127.0.0.1, so every
byte crosses a veth). Each link is shaped in both directions (`tc tbf` on both ends of its veth)
to the interconnect level: `1gbe` (1 Gbit/s), `10gbe` (10 Gbit/s) or `unshaped`. Shaped links have
segmentation and receive offloads off (`ethtool -K ... tso off gso off gro off`): with TSO/GSO a
64 kB super-packet passes tbf as one packet and the shaping is not exact. The token bucket is one
millisecond of the rate (at least 64 kB), so even a 1 MB file mostly goes at the shaped rate.

`protocol LEVEL` stops whatever runs, builds the network, shapes it, measures each direction of
the NameNode's link with iperf3 (to dn1 and back: the rate the level really gives on this CPU,
recorded as facts; on 2 cores a shaped 10 Gbit/s link reaches about 4 Gbit/s), formats HDFS on
the DataNodes' storage (a tmpfs, so the disk never bounds what the link allows), starts the five
daemons and waits for 4 live DataNodes. `ensure LEVEL` does it only when that level is not the
one up and healthy (each repetition calls it; the benchmark deletes its own files). `facts LEVEL`
prints the running cluster's facts (`link_*=` lines); `hadoop LEVEL ARGS` is its `hadoop`
command, in the NameNode's namespace. Memory: NameNode heap 384 MB, DataNodes 160 MB each,
about 1.5 GB resident in all beside the lab.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops.lab import hadoop_home, lab_dir
from benchcamp.ops.toolkit import (
    DATANODE_CLASS,
    NAMENODE_CLASS,
    START_TIMEOUT_S,
    BridgeNetwork,
    Daemon,
    LabError,
    apt_install,
    format_namenode,
    java17_options,
    make_shared_dirs,
    namenode_state,
    run_ip,
    site_xml,
    stop_daemons,
    wait_healthy,
    write_conf,
)

PREFIX = "benchcamp-links"
HUB = f"{PREFIX}-hub"
BRIDGE = "br0"
DATANODES = ("dn1", "dn2", "dn3", "dn4")
NODES = ("nn", *DATANODES)
SUBNET_PREFIX = "10.231.0."
ADDRESSES = {"nn": "10.231.0.1", **{dn: f"10.231.0.{11 + i}" for i, dn in enumerate(DATANODES)}}
# The lab host's own (unshaped) leg on the bridge, for WebHDFS from outside the namespaces: the
# campaign's clean deletes a repetition's files over HTTP instead of starting `hadoop fs` JVMs.
HOST_LINK = "benchcamp-links"
HOST_ADDRESS = "10.231.0.254"
NAMENODE_PORT = 9000
NAMENODE_HTTP = 9870
DATA_ROOT = "/benchcamp"
# The levels: a rate in Mbit/s, None for no shaping (offloads on, the veth's own speed).
LEVELS: dict[str, int | None] = {"1gbe": 1_000, "10gbe": 10_000, "unshaped": None}
IPERF_SECONDS = 2


def netns(node: str) -> str:
    return f"{PREFIX}-{node}"


def in_netns(node: str) -> list[str]:
    return ["ip", "netns", "exec", netns(node)]


def install_dir() -> Path:
    """Configuration and bookkeeping (on the lab's disk)."""
    return lab_dir() / "links"


def storage_dir() -> Path:
    """Where the DataNodes and the NameNode keep their data: a tmpfs (see the module docstring)."""
    return Path(os.environ.get("BENCHCAMP_LINKS_STORAGE", "/dev/shm/benchcamp-links"))


def state_file() -> Path:
    """The running level and its measured facts, written once the cluster is healthy."""
    return install_dir() / "state.json"


def daemon(node: str) -> Daemon:
    """The node's daemon (the NameNode on `nn`, a DataNode elsewhere) in its namespace."""
    return Daemon(
        f"links-{node}",
        NAMENODE_CLASS if node == "nn" else DATANODE_CLASS,
        [conf_dir(node), hadoop_home() / "lib" / "*"],
        conf_dir(node),
        hadoop_home(),
        lab_dir() / "run",
        lab_dir() / "logs",
        heap_mb=384 if node == "nn" else 160,
        options=java17_options(),
        namespace=netns(node),
    )


def daemons() -> list[Daemon]:
    return [daemon(node) for node in NODES]


def network() -> BridgeNetwork:
    """The hub's bridge, one veth pair per node and the host's leg (unshaped)."""
    return BridgeNetwork(
        HUB,
        {netns(node): ADDRESSES[node] for node in NODES},
        BRIDGE,
        host_link=HOST_LINK,
        host_address=HOST_ADDRESS,
    )


def ensure_tools() -> None:
    """iperf3 and ethtool (Debian packages), installed on first use when root."""
    missing = [tool for tool in ("iperf3", "ethtool") if shutil.which(tool) is None]
    if missing:
        apt_install(*missing)


def conf_dir(node: str) -> Path:
    return install_dir() / f"conf-{node}"


def site_files(node: str) -> dict[str, str]:
    """core-site and hdfs-site of one node: every address is the node's own on the bridge."""
    address = ADDRESSES[node]
    core: dict[str, str | int | bool] = {
        "fs.defaultFS": f"hdfs://{ADDRESSES['nn']}:{NAMENODE_PORT}",
        "hadoop.tmp.dir": str(storage_dir() / node / "tmp"),
    }
    hdfs: dict[str, str | int | bool] = {
        "dfs.namenode.name.dir": str(storage_dir() / "nn" / "name"),
        "dfs.datanode.data.dir": str(storage_dir() / node / "data"),
        "dfs.permissions.enabled": False,
        "dfs.namenode.safemode.extension": 0,
        "dfs.namenode.rpc-address": f"{ADDRESSES['nn']}:{NAMENODE_PORT}",
        "dfs.namenode.http-address": f"{ADDRESSES['nn']}:{NAMENODE_HTTP}",
        "dfs.namenode.secondary.http-address": f"{address}:0",
        "dfs.datanode.address": f"{address}:9866",
        "dfs.datanode.http.address": f"{address}:9864",
        "dfs.datanode.ipc.address": f"{address}:9867",
        "dfs.datanode.hostname": address,
        "dfs.datanode.use.datanode.hostname": False,
        "dfs.client.use.datanode.hostname": False,
        "dfs.namenode.datanode.registration.ip-hostname-check": False,
        "dfs.namenode.heartbeat.recheck-interval": 30_000,  # a dead DataNode noticed in about 45 s
        "dfs.heartbeat.interval": 1,
        "dfs.http.policy": "HTTP_ONLY",
        "dfs.client.read.shortcircuit": False,  # every byte over the link, as the study's client
    }
    comment = f"benchcamp hdfs_interconnects: the links cluster's {node}"
    return {"core-site.xml": site_xml(core, comment), "hdfs-site.xml": site_xml(hdfs, comment)}


def stop() -> None:
    """Stop the daemons (DataNodes first) and remove the namespaces with their links."""
    state_file().unlink(missing_ok=True)
    stop_daemons(daemons())
    network().remove()


def build_network() -> None:
    """The bridge network, addressed and up (no shaping yet)."""
    network().build()


def link_ends() -> list[tuple[str, str]]:
    """Every (namespace, interface) whose egress is shaped: both ends of every node's link."""
    return [end for node in NODES for end in ((netns(node), "eth0"), (HUB, f"port-{node}"))]


def burst_bytes(rate_mbit: int) -> int:
    """tbf's bucket: one millisecond of the rate, at least 64 kB (a bigger bucket lets a small
    file pass at the veth's own speed; a smaller one starves on the timer's granularity)."""
    return max(64 * 1024, rate_mbit * 1_000_000 // 8 // 1000)


def shape(level: str) -> None:
    """tbf on both ends of every link at the level's rate, offloads off (nothing for `unshaped`)."""
    rate = LEVELS[level]
    if rate is None:
        return
    for namespace, interface in link_ends():
        run_ip(
            "ip",
            "netns",
            "exec",
            namespace,
            "ethtool",
            "-K",
            interface,
            "tso",
            "off",
            "gso",
            "off",
            "gro",
            "off",
        )
        run_ip("tc", "-n", namespace, "qdisc", "replace", "dev", interface, "root", "tbf",
             "rate", f"{rate}mbit", "burst", str(burst_bytes(rate)), "latency", "20ms")  # fmt: skip


def measure_rate(source: str, target: str) -> float:
    """iperf3 from `source`'s namespace to `target`'s (a one-off server there): Mbit/s received.

    An attempt that gives no received rate (the server not listening yet, or iperf3's JSON
    holding an `error` with exit 0, seen on a loaded machine) is tried again, a new server each
    time, for up to 20 s; then LabError with iperf3's last words."""
    deadline = time.monotonic() + 20
    while True:
        server = subprocess.Popen(
            [*in_netns(target), "iperf3", "--server", "--one-off", "--bind", ADDRESSES[target]],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            time.sleep(0.3)
            client = run_ip(*in_netns(source), "iperf3", "--client", ADDRESSES[target], "--time",
                          str(IPERF_SECONDS), "--json", check=False)  # fmt: skip
        finally:
            server.kill()
            server.wait()
        try:
            return float(json.loads(client.stdout)["end"]["sum_received"]["bits_per_second"]) / 1e6
        except (ValueError, KeyError, TypeError):
            if time.monotonic() > deadline:
                words = (client.stdout.strip() or client.stderr.strip())[-300:]
                raise LabError(f"iperf3 {source} -> {target} gave no rate: {words}") from None


@dataclass(frozen=True)
class LinkFacts:
    level: str
    configured_mbit: int | None
    measured_out_mbit: float  # NameNode's host -> dn1 (the write direction)
    measured_in_mbit: float  # dn1 -> NameNode's host (the read direction)
    offloads: str
    shaping: str = "done"  # or "not_permitted: <why>" (with --allow-unshaped)

    def lines(self) -> list[str]:
        return [
            f"link_level={self.level}",
            f"link_shaping={self.shaping}",
            f"link_rate_configured_mbit={self.configured_mbit if self.configured_mbit else 'none'}",
            f"link_rate_measured_out_mbit={self.measured_out_mbit:.0f}",
            f"link_rate_measured_in_mbit={self.measured_in_mbit:.0f}",
            f"link_offloads={self.offloads}",
            f"link_datanodes={len(DATANODES)}",
            f"link_qdisc={'tbf' if self.configured_mbit else 'none'}",
        ]


def _namenode_http() -> str:
    return f"http://{ADDRESSES['nn']}:{NAMENODE_HTTP}"


def live_datanodes() -> tuple[int, str]:
    """(live DataNodes, FSState) from the NameNode's JMX; (0, why) when it does not answer."""
    try:
        state = namenode_state(_namenode_http(), netns("nn"))
    except LabError as exc:
        return 0, str(exc)
    return state.live_datanodes, state.fs_state


def problems() -> dict[str, str]:
    """What is not up, per node ({} when the NameNode is out of safe mode with 4 live DataNodes)."""
    found = {node: "not running (see its log)" for node in NODES if daemon(node).pid() is None}
    live, state = live_datanodes()
    if live < len(DATANODES) or state != "Operational":
        found.setdefault("nn", f"{live} of {len(DATANODES)} DataNodes live, state {state}")
    return found


def _safemode_problem() -> dict[str, str]:
    try:
        if namenode_state(_namenode_http(), netns("nn")).safemode:
            return {"nn": "in safe mode"}
    except LabError as exc:
        return {"nn": str(exc)}
    return {}


def protocol(level: str, allow_unshaped: bool = False) -> list[str]:
    """Stop, build and shape the network, measure it, format HDFS, start, verify; the facts.

    Shaping the host refuses (no `tc`, no permission) fails the protocol, unless `allow_unshaped`:
    then the links stay unshaped and the facts say so (`link_shaping=not_permitted: ...`, the
    configured rate `none`), so no number is reported as a level it did not run at."""
    if level not in LEVELS:
        raise LabError(f"unknown link level '{level}': one of {', '.join(LEVELS)}")
    started = time.monotonic()
    ensure_tools()
    stop()
    build_network()
    configured, shaping = LEVELS[level], "done" if LEVELS[level] else "none"
    try:
        shape(level)
    except LabError as exc:
        if not allow_unshaped:
            stop()
            raise LabError(f"shaping the links to {level} is not permitted here: {exc}") from exc
        for namespace, interface in link_ends():
            run_ip("tc", "-n", namespace, "qdisc", "del", "dev", interface, "root", check=False)
        configured, shaping = None, "not_permitted: " + str(exc).replace("\n", " ")[:200]
    try:
        rates = measure_rate("nn", "dn1"), measure_rate("dn1", "nn")
    except LabError:
        stop()
        raise
    facts = LinkFacts(level, configured, *rates, "off" if configured else "on", shaping)
    shutil.rmtree(storage_dir(), ignore_errors=True)
    for node in NODES:
        write_conf(conf_dir(node), site_files(node), repo_root() / "lab" / "hadoop" / "log4j.properties")
    try:
        format_namenode(daemon("nn"), "benchcamp-links", "links-format")
    except LabError as exc:
        stop()
        raise LabError(f"formatting the links cluster's HDFS failed: {exc}") from exc
    for each in daemons():
        each.start()
    wait_healthy(_safemode_problem, daemons(), "the NameNode did not leave safe mode", START_TIMEOUT_S, stop)
    wait_healthy(problems, daemons(), "the links cluster is not healthy", START_TIMEOUT_S, stop)
    make_shared_dirs(_namenode_http(), [DATA_ROOT], netns("nn"), 30.0)
    state_file().write_text(json.dumps({"level": level, "facts": facts.lines()}) + "\n")
    return [*facts.lines(), f"protocol_s={time.monotonic() - started:.1f}"]


def running_level() -> str | None:
    if not state_file().exists():
        return None
    return str(json.loads(state_file().read_text())["level"])


def ensure(level: str, allow_unshaped: bool = False) -> list[str]:
    """The cluster at `level`, healthy: left as it is when it already is, else the protocol."""
    if running_level() == level and not problems():
        return [*facts(level), "protocol=kept"]
    return [*protocol(level, allow_unshaped), "protocol=ran"]


def facts(level: str) -> list[str]:
    """The running cluster's link facts: LabError unless it runs at `level`."""
    running = running_level()
    if running != level:
        raise LabError(f"the links cluster is not up at '{level}' (running: {running or 'none'})")
    return list(json.loads(state_file().read_text())["facts"])


def hadoop(level: str, args: list[str]) -> int:
    """The cluster's `hadoop` (lab/bin/hadoop) in the NameNode's namespace, with its configuration."""
    running = running_level()
    if running != level:
        print(
            f"hdfs-links: the cluster is not up at '{level}' (running: {running or 'none'}); "
            f"start it with: hdfs-links ensure {level}",
            file=sys.stderr,
        )
        return 3
    command = [*in_netns("nn"), str(repo_root() / "lab" / "bin" / "hadoop"), *args]
    return subprocess.run(command, env=daemon("nn").env(), check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hdfs-links", description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("protocol", "stop, build and shape the links, measure them, format HDFS, start, verify"),
        ("ensure", "the protocol unless the cluster already runs healthy at LEVEL"),
        ("facts", "the running cluster's link facts (name=value lines)"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument("level", choices=sorted(LEVELS))
        if name != "facts":
            command.add_argument(
                "--allow-unshaped", action="store_true",
                help="when the host refuses shaping, run unshaped and say so in the facts",
            )  # fmt: skip
    run = commands.add_parser("hadoop", help="the cluster's hadoop command, in the NameNode's namespace")
    run.add_argument("level", choices=sorted(LEVELS))
    run.add_argument("args", nargs=argparse.REMAINDER)
    commands.add_parser("stop", help="stop the cluster and remove its namespaces")
    commands.add_parser("status", help="the running level, and what is not healthy")
    args = parser.parse_args(argv)
    try:
        if args.command == "protocol":
            print("\n".join(protocol(args.level, args.allow_unshaped)))
        elif args.command == "ensure":
            print("\n".join(ensure(args.level, args.allow_unshaped)))
        elif args.command == "facts":
            print("\n".join(facts(args.level)))
        elif args.command == "hadoop":
            return hadoop(args.level, args.args)
        elif args.command == "stop":
            stop()
        else:
            print(f"level={running_level() or 'none'}")
            for node, problem in (problems() if running_level() else {}).items():
                print(f"{node}: {problem}")
    except LabError as exc:
        print(f"hdfs-links: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
