"""The lab's Hadoop install per storage device, and the study's protocol before every experiment.

Study 4 ran a separate, identical Hadoop install on each drive of one machine. The lab does the
same with one install at a time: HDFS (NameNode, DataNode), YARN (ResourceManager, NodeManager)
and the JobHistory server, all inside one loopback-only network namespace (`NETNS`: the shuffle
server binds to every interface, and HDFS in the same namespace needs no veth), with every
directory Hadoop writes (HDFS name and data, `hadoop.tmp.dir`, the NodeManager's local dirs where
map outputs spill and shuffles merge, `mapreduce.cluster.local.dir`) under one storage path. The
jars, configuration and daemon logs stay on the lab's disk.

`protocol DEVICE STORAGE` is the study's protocol: stop whatever install runs, drop the page
cache, format a new HDFS on STORAGE, start the five daemons, verify (HDFS out of safe mode with
its DataNode, the NodeManager registered, JobHistory answering), and print the storage's facts
(`storage_*=` lines: mount, file system, device, rotational flag, model). STORAGE is checked
first: it must be writable and, with `--fstype` / `--not-fstype`, on the expected kind of file
system, so a RAM cell never silently runs on disk. `lab/bin/hadoop-device DEVICE ...` is then
that install's `hadoop` command; it refuses to run while another device's install is up.
The lab has no HDD: its "disk" is whatever block device holds the lab directory (a virtual disk
here, whose rotational flag says nothing about the medium behind it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops.lab import lab_dir, yarn_home
from benchcamp.ops.toolkit import (
    DATANODE_CLASS,
    FIFO_SCHEDULER,
    JOBHISTORY_CLASS,
    LOOPBACK,
    NAMENODE_CLASS,
    NODEMANAGER_CLASS,
    RESOURCEMANAGER_CLASS,
    START_TIMEOUT_S,
    Daemon,
    LabError,
    active_nodemanagers,
    drop_page_cache,
    ensure_netns,
    format_namenode,
    http_json,
    java17_options,
    make_shared_dirs,
    namenode_state,
    site_xml,
    stop_daemons,
    wait_healthy,
    write_conf,
)

NETNS = "benchcamp-device"
NAMENODE_PORT = 9000
HTTP_PORTS = {
    "namenode": 9870,
    "datanode": 9864,
    "resourcemanager": 8088,
    "nodemanager": 8042,
    "jobhistory": 19888,
}
DAEMONS = {
    "namenode": NAMENODE_CLASS,
    "datanode": DATANODE_CLASS,
    "resourcemanager": RESOURCEMANAGER_CLASS,
    "nodemanager": NODEMANAGER_CLASS,
    "jobhistory": JOBHISTORY_CLASS,
}
DATA_ROOT = "/benchcamp"  # the study's lab environments' data_root, made world-writable
# Room for the application master, six parallel maps (the `defaults` set) and a reduce.
NODE_MEMORY_MB = 4096
TASK_MEMORY_MB = 384


def install_dir() -> Path:
    """Configuration and bookkeeping of the device install (on the lab's disk, not the device)."""
    return lab_dir() / "device"


def current_file() -> Path:
    """Names the device whose install is up; written once it is healthy, removed by stop."""
    return install_dir() / "current"


def daemon(name: str) -> Daemon:
    """One of the install's five daemons, in the loopback-only namespace, run/device-<name>.pid."""
    return Daemon(
        f"device-{name}",
        DAEMONS[name],
        [install_dir() / "conf", yarn_home() / "lib" / "*"],
        install_dir() / "conf",
        yarn_home(),
        lab_dir() / "run",
        lab_dir() / "logs",
        heap_mb=384 if name == "namenode" else 256,
        options=java17_options(),
        namespace=NETNS,
    )


def daemons() -> list[Daemon]:
    return [daemon(name) for name in DAEMONS]


def site_files(storage: Path) -> dict[str, str]:
    """core/hdfs/yarn/mapred-site.xml: every directory Hadoop writes is under `storage`."""
    task_opts = " ".join(java17_options())
    classpath = f"{install_dir() / 'conf'},{yarn_home() / 'lib' / '*'}"
    core: dict[str, str | int | bool] = {
        "fs.defaultFS": f"hdfs://{LOOPBACK}:{NAMENODE_PORT}",
        "hadoop.tmp.dir": str(storage / "tmp"),
    }
    hdfs: dict[str, str | int | bool] = {
        "dfs.namenode.name.dir": str(storage / "hdfs" / "name"),
        "dfs.datanode.data.dir": str(storage / "hdfs" / "data"),
        "dfs.replication": 1,
        "dfs.permissions.enabled": False,
        "dfs.namenode.safemode.extension": 0,
        "dfs.namenode.rpc-address": f"{LOOPBACK}:{NAMENODE_PORT}",
        "dfs.namenode.http-address": f"{LOOPBACK}:{HTTP_PORTS['namenode']}",
        "dfs.namenode.secondary.http-address": f"{LOOPBACK}:0",
        "dfs.datanode.address": f"{LOOPBACK}:9866",
        "dfs.datanode.http.address": f"{LOOPBACK}:{HTTP_PORTS['datanode']}",
        "dfs.datanode.ipc.address": f"{LOOPBACK}:9867",
        "dfs.datanode.hostname": LOOPBACK,
        "dfs.http.policy": "HTTP_ONLY",
    }
    yarn: dict[str, str | int | bool] = {
        "yarn.resourcemanager.hostname": LOOPBACK,
        "yarn.resourcemanager.webapp.address": f"{LOOPBACK}:{HTTP_PORTS['resourcemanager']}",
        "yarn.resourcemanager.recovery.enabled": False,
        "yarn.resourcemanager.scheduler.class": FIFO_SCHEDULER,
        "yarn.nodemanager.hostname": LOOPBACK,
        "yarn.nodemanager.address": f"{LOOPBACK}:8041",
        "yarn.nodemanager.webapp.address": f"{LOOPBACK}:{HTTP_PORTS['nodemanager']}",
        "yarn.nodemanager.aux-services": "mapreduce_shuffle",
        "yarn.nodemanager.aux-services.mapreduce_shuffle.class": "org.apache.hadoop.mapred.ShuffleHandler",
        "yarn.nodemanager.local-dirs": str(storage / "yarn" / "nm-local"),
        "yarn.nodemanager.log-dirs": str(storage / "yarn" / "nm-logs"),
        "yarn.nodemanager.resource.memory-mb": NODE_MEMORY_MB,
        "yarn.nodemanager.resource.cpu-vcores": 8,
        "yarn.nodemanager.vmem-check-enabled": False,
        "yarn.nodemanager.pmem-check-enabled": False,
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": "100.0",
        "yarn.nodemanager.delete.debug-delay-sec": 0,
        # one node on loopback: heartbeats every 250 ms instead of 1 s, so containers start when
        # asked rather than up to a second later (a wait no phase of the study measures)
        "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": 250,
        "yarn.scheduler.minimum-allocation-mb": 128,
        "yarn.scheduler.maximum-allocation-mb": NODE_MEMORY_MB,
        "yarn.log-aggregation-enable": False,
        "yarn.timeline-service.enabled": False,
        "yarn.application.classpath": classpath,
    }
    mapred: dict[str, str | int | bool] = {
        "mapreduce.framework.name": "yarn",
        "mapreduce.application.classpath": classpath,
        "mapreduce.cluster.local.dir": str(storage / "tmp" / "mapred-local"),
        "mapreduce.jobhistory.address": f"{LOOPBACK}:10020",
        "mapreduce.jobhistory.webapp.address": f"{LOOPBACK}:{HTTP_PORTS['jobhistory']}",
        "mapreduce.jobhistory.admin.address": f"{LOOPBACK}:10033",
        "yarn.app.mapreduce.am.resource.mb": TASK_MEMORY_MB,
        "yarn.app.mapreduce.am.command-opts": f"-Xmx256m {task_opts}",
        "mapreduce.map.memory.mb": TASK_MEMORY_MB,
        "mapreduce.reduce.memory.mb": TASK_MEMORY_MB,
        "mapreduce.map.java.opts": f"-Xmx256m {task_opts}",
        "mapreduce.reduce.java.opts": f"-Xmx256m {task_opts}",
        "mapreduce.task.io.sort.mb": 64,
        # The chain's driver notices a finished job within 0.2 s (default 5 s) and asks the
        # history server at once instead of retrying the finished application master 3 x 1 s:
        # the chain's wall time is then the jobs', not the client's polling.
        "mapreduce.client.completion.pollinterval": 200,
        "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms": 250,  # the AM's asks for containers
        "mapreduce.client.progressmonitor.pollinterval": 200,
        "yarn.app.mapreduce.client-am.ipc.max-retries": 0,
        "yarn.app.mapreduce.client-am.ipc.max-retries-on-timeouts": 0,
    }
    comment = f"benchcamp mapreduce_ssd_hdd: the device install on {storage}"
    return {
        "core-site.xml": site_xml(core, comment),
        "hdfs-site.xml": site_xml(hdfs, comment),
        "yarn-site.xml": site_xml(yarn, comment),
        "mapred-site.xml": site_xml(mapred, comment),
    }


@dataclass(frozen=True)
class StorageFacts:
    """Where a storage path lives: its mount, file system, block device and what sysfs says of it."""

    path: Path
    mount: str
    fstype: str
    source: str
    device: str  # the whole disk's kernel name (vda, nvme0n1), or "" for tmpfs and friends
    rotational: str  # "1", "0" or "" (no block device)
    model: str

    def lines(self) -> list[str]:
        return [
            f"storage_path={self.path}",
            f"storage_mount={self.mount}",
            f"storage_fstype={self.fstype}",
            f"storage_source={self.source}",
            f"storage_device={self.device}",
            f"storage_rotational={self.rotational}",
            f"storage_model={self.model}",
        ]


def _mount_of(path: Path) -> tuple[str, str, str]:
    """(mount point, file system type, source) of the longest mount containing `path`."""
    best = ("/", "", "")
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        source, mount, fstype = fields[0], fields[1].replace("\\040", " "), fields[2]
        inside = str(path) == mount or str(path).startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best[0]):
            best = (mount, fstype, source)
    return best


def _whole_disk(source: str) -> str:
    """`/dev/vda1` -> `vda` (the disk whose queue/rotational counts), "" for non-devices."""
    if not source.startswith("/dev/"):
        return ""
    name = Path(os.path.realpath(source)).name
    block = Path("/sys/class/block") / name
    if not block.exists():
        return ""
    return block.resolve().parent.name if (block / "partition").exists() else name


def storage_facts(path: Path) -> StorageFacts:
    mount, fstype, source = _mount_of(path.resolve())
    disk = _whole_disk(source)
    sys_block = Path("/sys/block") / disk if disk else None

    def read(relative: str) -> str:
        try:
            return (sys_block / relative).read_text().strip() if sys_block else ""
        except OSError:
            return ""

    return StorageFacts(path, mount, fstype, source, disk, read("queue/rotational"), read("device/model"))


def check_storage(path: Path, fstype: str | None = None, not_fstype: str | None = None) -> StorageFacts:
    """The storage path made and writable, on the expected kind of file system; LabError if not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".benchcamp-write-probe"
        probe.write_text("ok\n")
        probe.unlink()
    except OSError as exc:
        raise LabError(f"storage path {path} is not writable: {exc}") from exc
    facts = storage_facts(path)
    if fstype is not None and facts.fstype != fstype:
        raise LabError(
            f"storage path {path} is on {facts.fstype or 'an unknown file system'} ({facts.mount}), "
            f"not on {fstype} as the environment expects"
        )
    if not_fstype is not None and facts.fstype == not_fstype:
        raise LabError(
            f"storage path {path} is on {not_fstype} ({facts.mount}); the environment expects a disk"
        )
    return facts


def stop() -> None:
    """Stop every daemon of the running install (JobHistory first, NameNode last)."""
    current_file().unlink(missing_ok=True)
    stop_daemons(daemons())


def _url(name: str, path: str) -> str:
    return f"http://{LOOPBACK}:{HTTP_PORTS[name]}{path}"


def _health() -> dict[str, str]:
    """What is not up yet, per daemon ({} once all five are)."""
    problems = {name: "not running (exited; see its log)" for name in DAEMONS if daemon(name).pid() is None}
    try:
        state = namenode_state(_url("namenode", ""), NETNS)
        if state.live_datanodes < 1 or state.fs_state != "Operational":
            problems["namenode"] = f"{state.live_datanodes} live DataNode(s), state {state.fs_state}"
    except LabError as exc:
        problems["namenode"] = str(exc)
    try:
        if active_nodemanagers(_url("resourcemanager", ""), NETNS) < 1:
            problems["nodemanager"] = "not registered with the ResourceManager yet"
    except (LabError, KeyError) as exc:
        problems["resourcemanager"] = str(exc)
    if "jobhistory" not in problems:
        try:
            http_json(_url("jobhistory", "/ws/v1/history/info"), NETNS)
        except LabError as exc:
            problems["jobhistory"] = str(exc)
    return problems


def _safemode_problem() -> dict[str, str]:
    """The NameNode out of safe mode, asked over HTTP (JMX) rather than by a `dfsadmin` JVM."""
    try:
        if namenode_state(_url("namenode", ""), NETNS).safemode:
            return {"namenode": "in safe mode"}
    except LabError as exc:
        return {"namenode": str(exc)}
    return {}


def protocol(
    device: str, storage: Path, fstype: str | None = None, not_fstype: str | None = None
) -> list[str]:
    """Stop, drop the page cache, reformat on `storage`, start, verify; the facts lines it prints."""
    started = time.monotonic()
    facts = check_storage(storage, fstype, not_fstype)
    stop()
    for sub in ("hdfs", "tmp", "yarn"):
        shutil.rmtree(storage / sub, ignore_errors=True)
    dropped = drop_page_cache()
    write_conf(
        install_dir() / "conf", site_files(storage), repo_root() / "lab" / "hadoop" / "log4j.properties"
    )
    for sub in ("yarn/nm-local", "yarn/nm-logs", "tmp/mapred-local"):
        (storage / sub).mkdir(parents=True, exist_ok=True)
    ensure_netns(NETNS)  # the format runs where the NameNode will
    try:
        format_namenode(daemon("namenode"), "benchcamp-device", "device-format")
    except LabError as exc:
        raise LabError(f"formatting HDFS on {storage} failed: {exc}") from exc
    for name in ("namenode", "datanode", "resourcemanager", "nodemanager"):
        daemon(name).start()
    wait_healthy(_safemode_problem, daemons()[:4], "HDFS did not leave safe mode", START_TIMEOUT_S, stop)
    make_shared_dirs(_url("namenode", ""), [DATA_ROOT, "/tmp"], NETNS, START_TIMEOUT_S)
    daemon("jobhistory").start()
    wait_healthy(_health, daemons(), "the device install is not healthy", START_TIMEOUT_S, stop)
    current_file().write_text(device + "\n")
    storage_file().write_text(f"{storage}\n")
    return [
        f"device={device}",
        *facts.lines(),
        f"drop_caches={dropped}",
        "hdfs_formatted=yes",
        f"protocol_s={time.monotonic() - started:.1f}",
    ]


def storage_file() -> Path:
    """Where the running install's storage path is kept (for `facts`)."""
    return install_dir() / "storage"


def facts(device: str) -> list[str]:
    """The running install's storage facts (the environment's facts_command): LabError unless
    `device`'s install is the one running."""
    running = current_file().read_text().strip() if current_file().exists() else "none"
    if running != device or not storage_file().exists():
        raise LabError(f"the '{device}' install is not running (running: {running})")
    return [f"device={device}", *storage_facts(Path(storage_file().read_text().strip())).lines()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hadoop-device", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("protocol", help="stop, drop caches, reformat on STORAGE, start, verify")
    run.add_argument("device", help="the device's name (the environment's)")
    run.add_argument("storage", type=Path, help="where every directory Hadoop writes goes")
    kind = run.add_mutually_exclusive_group()
    kind.add_argument("--fstype", help="refuse a storage path not on this file system type (e.g. tmpfs)")
    kind.add_argument("--not-fstype", help="refuse a storage path on this file system type")
    described = commands.add_parser("facts", help="the running install's storage facts (name=value)")
    described.add_argument("device")
    commands.add_parser("stop", help="stop the running device install")
    commands.add_parser("status", help="which device install runs, and what is not healthy")
    args = parser.parse_args(argv)
    try:
        if args.command == "protocol":
            print("\n".join(protocol(args.device, args.storage.absolute(), args.fstype, args.not_fstype)))
        elif args.command == "facts":
            print("\n".join(facts(args.device)))
        elif args.command == "stop":
            stop()
        else:
            running = current_file().read_text().strip() if current_file().exists() else "none"
            print(f"device={running}")
            for name, problem in (_health() if running != "none" else {}).items():
                print(f"{name}: {problem}")
    except LabError as exc:
        print(f"hadoop-device: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
