# Over 600 lines: one environment's whole life (root filesystem, podman, up/down/status, facts,
# connections, the entry process inside) in the sections below, kept beside its one contract.
"""`lab_container`: the lab's HDFS + HiveServer2 + sshd inside a real container on this host.

The BigBench study compares the same services bare (`local_lab`) and in a container. This module
runs them in a podman container (Debian's podman with runc: crun 1.8 refuses this host's hybrid
cgroup v1/v2 layout) whose root filesystem the project builds itself: `lab/container/build-rootfs`
(mmdebstrap of a minimal Debian bookworm with Java 17, sshd, Python 3 and socat) is the recipe, and
its SHA-256 decides when the cached tree under lab/container/rootfs/ is rebuilt (lazily, on the
first `up` after the recipe changes: about a minute and 400 MB).

What runs inside is the bare lab's own code, not a copy: the container's entry process
(`inside`) calls `benchcamp.ops.lab.lab_up` with BENCHCAMP_LAB_DIR pointing at the container's
state directory and YARN left out, so the site files, sshd configuration, start commands and
health checks are the bare lab's. The checkout and the venv's Python are bind-mounted read-only
at their own paths (the jars the host's `ensure_installed` put there); the state directory
(HDFS blocks, metastore, logs, SSH keys) is the only writable mount; the root filesystem is an
overlay (`:O`), so the cached tree never changes. The bare lab binds 127.0.0.1, which here is the
container's own loopback: socat exposes sshd and HiveServer2 on the container's address
(CONTAINER_ADDRESS, on podman network NETWORK), so it runs beside the bare lab without a port
conflict. Memory is capped by the container's cgroup (MEMORY_LIMIT).

`up` / `down` / `status` / `facts` are idempotent; `down` leaves no container, process, overlay
mount, network namespace, veth or bridge behind. `lab_connections()` gives the environment's
Airflow connections (SSH with the host key pinned, HiveServer2).
"""

from __future__ import annotations

import argparse
import fcntl
import getpass
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchcamp.core.paths import repo_root
from benchcamp.ops.lab import DEFAULT_PORTS, LabError, lab_dir

CONTAINER_NAME = "benchcamp-bigbench-lab"
NETWORK = "benchcamp-bigbench"
SUBNET = "10.232.14.0/24"  # the links study uses 10.231.0.0/24
GATEWAY = "10.232.14.1"
CONTAINER_ADDRESS = "10.232.14.2"
HOSTNAME = "bigbench-lab"
# the services' heaps (NameNode 384 MB, DataNode 256 MB, HiveServer2 1 GB, which runs MapReduce
# locally), Spark's local[2] driver for each ML query (two at once in the throughput test) and the
# page cache, which the cgroup counts too: at 3 GiB the container sat at its cap during the
# throughput test and thrashed (load average 30); BENCHCAMP_CONTAINER_MEMORY overrides it
MEMORY_LIMIT = os.environ.get("BENCHCAMP_CONTAINER_MEMORY", "6g")
SSH_PORT = DEFAULT_PORTS["ssh"]
HIVE_PORT = DEFAULT_PORTS["hiveserver2"]
SSH_CONNECTION_ID = "benchcamp_container_ssh"
HIVE_CONNECTION_ID = "benchcamp_container_hive"
OCI_RUNTIME = "runc"
START_TIMEOUT_S = 480.0  # beyond the lab_up inside (420 s): its own error comes first
STOP_TIMEOUT_S = 60
NPROC_LIMIT = 32768  # per container; the lab's JVMs use a few hundred threads
ENVIRONMENT_KIND = "container"


def memory_bytes(text: str) -> int:
    """podman's memory size (`3g`, `512m`, `1024k`, bytes) in bytes."""
    match = re.fullmatch(r"(\d+)([bkmg]?)", text.strip().lower())
    if match is None:
        raise LabError(f"not a memory size: {text!r} (e.g. 3g, 2048m)")
    return int(match.group(1)) * 1024 ** "bkmg".index(match.group(2) or "b")


def container_home() -> Path:
    """lab/container/: the recipe (committed)."""
    return repo_root() / "lab" / "container"


def cache_home() -> Path:
    """Where the built root filesystem is kept: outside the checkout, as uv's and Maven's caches
    are, so a new clone of the same recipe starts at once ($BENCHCAMP_CACHE, else
    $XDG_CACHE_HOME/benchcamp or ~/.cache/benchcamp; then container/)."""
    base = os.environ.get("BENCHCAMP_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "benchcamp"
    )
    home = Path(base) / "container"
    home.mkdir(parents=True, exist_ok=True)
    return home


def recipe_file() -> Path:
    return container_home() / "build-rootfs"


def rootfs_dir() -> Path:
    return cache_home() / "rootfs"


def rootfs_meta_file() -> Path:
    return cache_home() / "rootfs.json"


def containers_conf() -> Path:
    return cache_home() / "containers.conf"


def state_dir() -> Path:
    """The container's lab directory (its BENCHCAMP_LAB_DIR), the same path inside and out."""
    if os.environ.get("BENCHCAMP_CONTAINER_INSIDE") == "1":
        return lab_dir()
    return lab_dir() / "bigbench-container"


def ready_file() -> Path:
    return state_dir() / "run" / "container-ready.json"


# -- the root filesystem --------------------------------------------------------------------


def recipe_digest(recipe: bytes | None = None) -> str:
    """SHA-256 of the recipe: a changed package list, mirror or hook rebuilds the root filesystem."""
    return hashlib.sha256(recipe if recipe is not None else recipe_file().read_bytes()).hexdigest()


def packages_digest(dpkg_status: str) -> tuple[str, int]:
    """The installed packages and versions (dpkg's status file) as one SHA-256, and their count:
    the content of a root filesystem built from the same recipe on another day may differ."""
    installed: list[str] = []
    for stanza in dpkg_status.split("\n\n"):
        fields = dict(
            (line.split(":", 1)[0], line.split(":", 1)[1].strip())
            for line in stanza.splitlines()
            if ":" in line and not line.startswith(" ")
        )
        if fields.get("Status", "").endswith(" installed") and "Package" in fields:
            arch = fields.get("Architecture", "")
            installed.append(f"{fields['Package']}:{arch}={fields.get('Version', '')}")
    installed.sort()
    return hashlib.sha256("\n".join(installed).encode()).hexdigest(), len(installed)


def rootfs_meta() -> dict[str, object]:
    try:
        return dict(json.loads(rootfs_meta_file().read_text()))
    except (OSError, ValueError):
        return {}


def rootfs_current() -> bool:
    """Built, and from the recipe as it is now."""
    return (rootfs_dir() / "usr" / "bin").is_dir() and rootfs_meta().get("recipe_sha256") == recipe_digest()


@contextmanager
def _locked(name: str) -> Iterator[None]:
    """One builder/starter at a time (two DAG runs' preflights may call `up` together)."""
    lock = cache_home() / f"rootfs.{name}.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def ensure_rootfs() -> dict[str, object]:
    """Build the root filesystem unless the cached one matches the recipe; its metadata."""
    with _locked("build"):
        if rootfs_current():
            return rootfs_meta()
        _ensure_host_packages()
        target, building = rootfs_dir(), cache_home() / "rootfs.new"
        for stale in (building, target):
            if stale.exists():
                subprocess.run(["rm", "-rf", "--one-file-system", str(stale)], check=True)
        log = cache_home() / "rootfs.build.log"
        started = time.monotonic()
        with log.open("wb") as handle:
            result = subprocess.run(
                [str(recipe_file()), str(building)], stdout=handle, stderr=subprocess.STDOUT, check=False
            )
        build_s = time.monotonic() - started
        if result.returncode != 0:
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
            raise LabError(
                f"building the container root filesystem failed (exit {result.returncode}); {log}:\n{tail}"
            )
        building.rename(target)
        digest, count = packages_digest((target / "var" / "lib" / "dpkg" / "status").read_text())
        size = subprocess.run(["du", "-sb", str(target)], capture_output=True, text=True, check=True)
        meta: dict[str, object] = {
            "recipe_sha256": recipe_digest(),
            "packages_sha256": digest,
            "packages": count,
            "build_s": round(build_s, 1),
            "size_bytes": int(size.stdout.split()[0]),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        rootfs_meta_file().write_text(json.dumps(meta, indent=2) + "\n")
        return meta


HOST_PACKAGES = {"podman": "podman", "runc": "runc", "mmdebstrap": "mmdebstrap"}


def _ensure_host_packages() -> None:
    """podman, runc and mmdebstrap from Debian (apt), as the bare lab installs openssh-server."""
    missing = [package for command, package in HOST_PACKAGES.items() if shutil.which(command) is None]
    if not missing:
        return
    if os.geteuid() != 0:
        raise LabError(
            f"{', '.join(missing)} missing and not root: run `sudo apt-get install -y {' '.join(missing)}`"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)


# -- podman ---------------------------------------------------------------------------------


def podman_env() -> dict[str, str]:
    """podman with the project's containers.conf (runc, file limits this host allows), nothing
    written to the host's /etc/containers."""
    return {**os.environ, "CONTAINERS_CONF": str(containers_conf())}


def have_podman() -> bool:
    return shutil.which("podman") is not None


def podman(*args: str, check: bool = True, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """One podman command with the project's containers.conf; LabError when it fails (check)."""
    if not have_podman():
        raise LabError("podman is not installed: `lab/bin/bigbench-container up` installs it (apt, as root)")
    result = subprocess.run(
        ["podman", *args], capture_output=True, text=True, env=podman_env(), timeout=timeout, check=False
    )
    if check and result.returncode != 0:
        raise LabError(
            f"podman {' '.join(args[:2])} failed (exit {result.returncode}): {result.stderr.strip()[-800:]}"
        )
    return result


def container_state() -> str:
    """`running`, `exited`, ... or `absent` (also when podman is not installed)."""
    if not have_podman():
        return "absent"
    result = podman("container", "inspect", "--format", "{{.State.Status}}", CONTAINER_NAME, check=False)
    return result.stdout.strip() if result.returncode == 0 else "absent"


def python_home() -> Path:
    """The installation the venv's Python comes from (mounted read-only beside the checkout)."""
    return Path(sys.base_prefix).resolve()


def run_arguments(memory: str = MEMORY_LIMIT) -> list[str]:
    """`podman run` for the container: its network and address, memory cap, mounts, entry."""
    root, state, python = repo_root(), state_dir(), python_home()
    mounts = [f"{root}:{root}:ro"]
    if python != root and not python.is_relative_to(root):
        mounts.append(f"{python}:{python}:ro")
    mounts.append(f"{state}:{state}:rw")
    arguments = [
        "run", "--detach", "--name", CONTAINER_NAME, "--hostname", HOSTNAME,
        "--runtime", OCI_RUNTIME, "--init",
        "--network", NETWORK, "--ip", CONTAINER_ADDRESS,
        "--memory", memory, "--memory-swap", memory,
        "--label", "benchcamp.environment=lab_container",
        "--env", f"BENCHCAMP_LAB_DIR={state}", "--env", "BENCHCAMP_LAB_YARN=0",
        "--env", "BENCHCAMP_LAB_STORES=0", "--env", "BENCHCAMP_CONTAINER_INSIDE=1",
        "--env", f"BENCHCAMP_CONTAINER_ADDRESS={CONTAINER_ADDRESS}",
        "--env", "USER=root", "--env", "LOGNAME=root", "--env", "HOME=/root",
        "--env", "PYTHONDONTWRITEBYTECODE=1",
        "--workdir", str(state),
    ]  # fmt: skip
    # the bare lab's state (its keys, HDFS) is not the container's business: hidden by a tmpfs
    bare = lab_dir().resolve()
    if bare.is_relative_to(root):
        arguments += ["--mount", f"type=tmpfs,destination={bare}"]
    for mount in mounts:
        arguments += ["--volume", mount]
    venv_python = root / ".venv" / "bin" / "python"
    arguments += ["--rootfs", f"{rootfs_dir()}:O"]
    arguments += [str(venv_python), "-m", "benchcamp.studies.bigbench_containers.container_lab", "inside"]
    return arguments


def container_id_file() -> Path:
    return state_dir() / "run" / "container-id"


def bridge_file() -> Path:
    return state_dir() / "run" / "bridge"


def _ensure_network() -> None:
    """The container's own bridge network (no DNS server: nothing resolves names in it)."""
    if podman("network", "exists", NETWORK, check=False).returncode != 0:
        podman("network", "create", "--disable-dns", "--subnet", SUBNET, "--gateway", GATEWAY, NETWORK)
    result = podman("network", "inspect", "--format", "{{.NetworkInterface}}", NETWORK)
    bridge_file().write_text(result.stdout.strip() + "\n")  # for `leftovers` once the network is gone


# -- up / down / status ---------------------------------------------------------------------


@dataclass
class ContainerStatus:
    state: str  # podman's container state, or `absent`
    ssh: tuple[bool, str]
    hive: tuple[bool, str]
    memory_mb: float
    memory_limit_mb: float
    memory_peak_mb: float = 0.0
    services_rss_mb: float = 0.0  # the lab services' resident memory when they came up

    @property
    def healthy(self) -> bool:
        return self.state == "running" and self.ssh[0] and self.hive[0]

    def format(self) -> str:
        lines = [f"container {CONTAINER_NAME}: {self.state} at {CONTAINER_ADDRESS} (network {NETWORK})"]
        lines.append(
            f"  sshd        {SSH_PORT:>6}  {'healthy' if self.ssh[0] else 'unhealthy'}  {self.ssh[1]}"
        )
        lines.append(
            f"  hiveserver2 {HIVE_PORT:>6}  {'healthy' if self.hive[0] else 'unhealthy'}  {self.hive[1]}"
        )
        if self.state == "running":
            lines.append(
                f"  memory (cgroup, page cache included): {self.memory_mb:.0f} MB used, peak"
                f" {self.memory_peak_mb:.0f} MB, limit {self.memory_limit_mb:.0f} MB;"
                f" services' RSS at start {self.services_rss_mb:.0f} MB"
            )
        return "\n".join(lines)


def _probe(check: Callable[[], tuple[bool, str]]) -> tuple[bool, str]:
    try:
        return check()
    except Exception as exc:  # any failing probe means "not healthy"; say why
        return False, f"{type(exc).__name__}: {exc}"


def ssh_run(command: str, timeout_s: float = 30.0) -> tuple[int, str, str]:
    """One command through the container's sshd, as the SSH connection logs in (key, pinned host key)."""
    import paramiko

    keys = state_dir() / "ssh"
    host_key = paramiko.Ed25519Key(data=_public_key_blob(keys / "host_ed25519.pub"))
    client = paramiko.SSHClient()
    client.get_host_keys().add(f"[{CONTAINER_ADDRESS}]:{SSH_PORT}", host_key.get_name(), host_key)
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    try:
        client.connect(
            CONTAINER_ADDRESS, port=SSH_PORT, username="root", key_filename=str(keys / "client_ed25519"),
            look_for_keys=False, allow_agent=False, timeout=5,
        )  # fmt: skip
        _, stdout, stderr = client.exec_command(command, timeout=timeout_s)
        code = stdout.channel.recv_exit_status()
        return code, stdout.read().decode(errors="replace"), stderr.read().decode(errors="replace")
    finally:
        client.close()


def _public_key_blob(path: Path) -> bytes:
    import base64

    return base64.b64decode(path.read_text().split()[1])


def _check_ssh() -> tuple[bool, str]:
    code, out, _ = ssh_run('command -v hadoop >/dev/null && test -d "$BENCHCAMP_WORK_DIR" && hostname')
    return (
        code == 0,
        f"login ok on {out.strip()}, hadoop on PATH" if code == 0 else f"login ok, check exit {code}",
    )


def hive_query(sql: str) -> list[tuple[object, ...]]:
    """Rows of one statement through the container's HiveServer2 (the Hive connection's endpoint);
    [] for a statement without a result set."""
    from pyhive import hive

    connection = hive.connect(CONTAINER_ADDRESS, port=HIVE_PORT, username=getpass.getuser(), auth="NONE")
    try:
        cursor = connection.cursor()
        cursor.execute(sql)
        if cursor.description is None:  # DDL and INSERT: no result set
            return []
        return [tuple(row) for row in cursor.fetchall()]
    finally:
        connection.close()


def _check_hive() -> tuple[bool, str]:
    rows = hive_query("SELECT version()")
    return True, f"Hive {str(rows[0][0]).split()[0] if rows else '?'}, query ok"


def status() -> ContainerStatus:
    state = container_state()
    if state != "running":
        return ContainerStatus(
            state, (False, "container not running"), (False, "container not running"), 0.0, 0.0
        )
    limits = parse_cgroup_limits(_exec_cat(CGROUP_FILES))
    return ContainerStatus(
        state,
        _probe(_check_ssh),
        _probe(_check_hive),
        limits.get("memory_usage_bytes", 0) / 2**20,
        limits.get("memory_limit_bytes", 0) / 2**20,
        limits.get("memory_peak_bytes", 0) / 2**20,
        float(_ready().get("rss_mb", 0.0)),
    )


def _ready() -> dict[str, float]:
    """What the entry process wrote once the services were healthy (start time, their RSS)."""
    try:
        return {name: float(value) for name, value in json.loads(ready_file().read_text()).items()}
    except (OSError, ValueError):
        return {}


def up(timeout_s: float = START_TIMEOUT_S, memory: str = MEMORY_LIMIT) -> ContainerStatus:
    """Start the container unless it runs healthy already; wait until sshd and HiveServer2 answer
    on the container's address. LabError (with the container's log) when it does not come up."""
    from benchcamp.ops.lab import ensure_installed

    with _locked("up"):
        current = status()
        if current.healthy:
            return current
        _ensure_host_packages()
        containers_conf().write_text(containers_conf_text())
        if current.state != "absent":  # exited, or running unhealthy: start again from scratch
            _remove_container()  # (before a rebuild: its overlay sits on the root filesystem)
        ensure_installed()  # the host's jars the container mounts
        meta = ensure_rootfs()
        for sub in ("run", "logs"):
            (state_dir() / sub).mkdir(parents=True, exist_ok=True)
        _ensure_network()
        ready_file().unlink(missing_ok=True)
        started = podman(*run_arguments(memory))
        container_id_file().write_text(started.stdout.strip() + "\n")  # for `leftovers` after removal
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            state = container_state()
            if state != "running":
                raise LabError(f"the lab container exited ({state}) while starting:\n{_container_log()}")
            if ready_file().exists():
                current = status()
                if current.healthy:
                    _log_event("up", {**meta, **_ready(), "memory_limit": memory})
                    return current
            time.sleep(1.0)
        raise LabError(
            f"the lab container was not healthy after {timeout_s:.0f} s:\n{status().format()}\n{_container_log()}"
        )


def facts_file() -> Path:
    """The facts as `name=value` lines, where the container sees them too: the environment's
    facts_command reads them over SSH (`$BENCHCAMP_WORK_DIR/../run/container-facts.txt` inside)."""
    return state_dir() / "run" / "container-facts.txt"


def ensure() -> dict[str, str]:
    """The DAG's preflight for `lab_container` (its controller_setup, `bigbench-container up`):
    the container up and healthy (a no-op when it is), then its facts, written to facts_file()
    for the campaign's environment capture."""
    up()
    found = facts()
    facts_file().write_text("".join(f"{name}={value}\n" for name, value in found.items()), encoding="utf-8")
    return found


def _container_log(lines: int = 40) -> str:
    result = podman("logs", "--tail", str(lines), CONTAINER_NAME, check=False)
    return (result.stdout + result.stderr).strip()


def _log_event(what: str, meta: Mapping[str, object]) -> None:
    log = state_dir() / "logs" / "container-events.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        handle.write(
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {what} {json.dumps(dict(meta))}\n"
        )


def _remove_container() -> None:
    """Stop (SIGTERM: the entry process stops the lab's services cleanly) and remove the container."""
    if container_state() == "running":
        podman(
            "stop", "--time", str(STOP_TIMEOUT_S), CONTAINER_NAME, check=False, timeout=STOP_TIMEOUT_S + 30
        )
    podman("rm", "--force", "--ignore", CONTAINER_NAME, check=False)


def down() -> list[str]:
    """Stop and remove the container and its network; what is left behind (empty when clean)."""
    with _locked("up"):
        if have_podman():
            _remove_container()
            if podman("network", "exists", NETWORK, check=False).returncode == 0:
                podman("network", "rm", "--force", NETWORK, check=False)
        return leftovers()


def leftovers() -> list[str]:
    """Anything of the container still on the host: container, processes, mounts, netns, bridge, veth."""
    found: list[str] = []
    if container_state() != "absent":
        found.append(f"container {CONTAINER_NAME}")
    if have_podman() and podman("network", "exists", NETWORK, check=False).returncode == 0:
        found.append(f"podman network {NETWORK}")
    state = str(state_dir())
    try:
        container_id = container_id_file().read_text().strip()
    except OSError:
        container_id = ""
    if container_id:  # cgroupfs: <controller>/libpod_parent/libpod-<id>[/...]
        cgroups = sorted(Path("/sys/fs/cgroup").glob(f"*/libpod_parent/*{container_id}*"))
        cgroups += sorted(Path("/sys/fs/cgroup").glob(f"*/*/libpod_parent/*{container_id}*"))
        found += [f"cgroup {path}" for path in cgroups]
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        mine = CONTAINER_NAME in command or bool(container_id and container_id in command)
        # the lab's JVMs name the state directory in their system properties (-Dhadoop.log.dir=...)
        if mine or f"={state}/" in command or "container_lab inside" in command:
            found.append(f"process {pid}: {command[:120]}")
    mounts = Path("/proc/mounts").read_text()
    found += [f"mount {line.split()[1]}" for line in mounts.splitlines() if str(rootfs_dir()) in line]
    try:
        bridge = bridge_file().read_text().strip()
    except OSError:
        bridge = ""
    if bridge:
        links = subprocess.run(
            ["ip", "-o", "link", "show"], capture_output=True, text=True, check=False
        ).stdout
        found += [
            f"link {line.split(':')[1].strip()}" for line in links.splitlines() if _on_bridge(line, bridge)
        ]
    found += [f"network namespace {name}" for name in _container_netns()]
    return found


def _on_bridge(line: str, bridge: str) -> bool:
    """An `ip -o link` line of the bridge itself or of a port (veth) attached to it."""
    name = line.split(":")[1].strip().split("@")[0] if line.count(":") >= 2 else ""
    return name == bridge or f" master {bridge} " in line


def _container_netns() -> list[str]:
    """Network namespaces podman made for the container (named netns-*, bound under /run/netns)
    that still hold an interface with the container's address."""
    names: list[str] = []
    for path in sorted(Path("/run/netns").glob("netns-*")):
        result = subprocess.run(
            ["ip", "-n", path.name, "-o", "-4", "addr"], capture_output=True, text=True, check=False
        )
        if CONTAINER_ADDRESS + "/" in result.stdout:
            names.append(path.name)
    return names


# -- facts ----------------------------------------------------------------------------------

CGROUP_FILES = (
    "/proc/self/cgroup",
    "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    "/sys/fs/cgroup/memory/memory.usage_in_bytes",
    "/sys/fs/cgroup/memory/memory.max_usage_in_bytes",
    "/sys/fs/cgroup/memory.peak",
    "/sys/fs/cgroup/memory.max",
    "/sys/fs/cgroup/memory.current",
    "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
    "/sys/fs/cgroup/cpu/cpu.cfs_period_us",
    "/sys/fs/cgroup/cpu.max",
)
UNLIMITED = 2**62  # cgroup v1 writes "no limit" as a huge page-rounded number


def _exec_cat(paths: Sequence[str]) -> str:
    """`==> path <==` blocks of the files as the container sees them (missing ones left out)."""
    script = 'for f in "$@"; do [ -r "$f" ] && { echo "==> $f <=="; cat "$f"; }; done; true'
    result = podman("exec", CONTAINER_NAME, "sh", "-c", script, "sh", *paths, check=False)
    return result.stdout


def parse_cat_blocks(text: str) -> dict[str, str]:
    blocks: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        header = re.fullmatch(r"==> (.+) <==", line)
        if header:
            current = header.group(1)
            blocks[current] = ""
        elif current is not None:
            blocks[current] += line + "\n"
    return {path: body.strip() for path, body in blocks.items()}


def parse_cgroup_limits(text: str) -> dict[str, int]:
    """The container's cgroup limits from its files (v1 or v2): memory limit/usage/peak in bytes
    (limit 0: none; usage counts the page cache too), CPU quota in millicores (0: no quota), and the cgroup version (1 or 2)."""
    files = parse_cat_blocks(text)
    limits: dict[str, int] = {}
    if "/sys/fs/cgroup/memory.max" in files:
        limits["cgroup_version"] = 2
        raw = files["/sys/fs/cgroup/memory.max"]
        limits["memory_limit_bytes"] = 0 if raw == "max" else int(raw)
        limits["memory_usage_bytes"] = int(files.get("/sys/fs/cgroup/memory.current", "0") or 0)
        limits["memory_peak_bytes"] = int(files.get("/sys/fs/cgroup/memory.peak", "0") or 0)
        quota, _, period = files.get("/sys/fs/cgroup/cpu.max", "max 100000").partition(" ")
        limits["cpu_quota_millicores"] = 0 if quota == "max" else int(quota) * 1000 // int(period)
    else:
        limits["cgroup_version"] = 1
        raw_limit = int(files.get("/sys/fs/cgroup/memory/memory.limit_in_bytes", "0") or 0)
        limits["memory_limit_bytes"] = 0 if raw_limit >= UNLIMITED else raw_limit
        limits["memory_usage_bytes"] = int(files.get("/sys/fs/cgroup/memory/memory.usage_in_bytes", "0") or 0)
        limits["memory_peak_bytes"] = int(
            files.get("/sys/fs/cgroup/memory/memory.max_usage_in_bytes", "0") or 0
        )
        quota_us = int(files.get("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1") or -1)
        period_us = int(files.get("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000") or 100000)
        limits["cpu_quota_millicores"] = 0 if quota_us < 0 else quota_us * 1000 // period_us
    return limits


def parse_podman_version(text: str) -> dict[str, str]:
    """`podman version --format json`: the client's version and the Go it was built with."""
    client = dict(json.loads(text).get("Client") or {})
    return {"version": str(client.get("Version", "")), "go": str(client.get("GoVersion", ""))}


def parse_runc_version(text: str) -> str:
    match = re.search(r"runc version (\S+)", text)
    return match.group(1) if match else text.strip().splitlines()[0] if text.strip() else ""


def facts() -> dict[str, str]:
    """The environment's captured facts (name → value): runtime, root filesystem, cgroup limits,
    kernel, address. LabError when the container does not run."""
    if container_state() != "running":
        raise LabError(f"the lab container {CONTAINER_NAME} is not running: `lab/bin/bigbench-container up`")
    inside = parse_cat_blocks(_exec_cat(("/proc/sys/kernel/osrelease", "/etc/debian_version", *CGROUP_FILES)))
    limits = parse_cgroup_limits(_exec_cat(CGROUP_FILES))
    cpus = podman("exec", CONTAINER_NAME, "nproc", check=False).stdout.strip()
    java = podman("exec", CONTAINER_NAME, "java", "-version", check=False).stderr.splitlines()
    version = parse_podman_version(podman("version", "--format", "json").stdout)
    runc = subprocess.run([OCI_RUNTIME, "--version"], capture_output=True, text=True, check=False).stdout
    meta = rootfs_meta()
    return {
        "environment_kind": ENVIRONMENT_KIND,
        "container_runtime": "podman",
        "container_runtime_version": version["version"],
        "oci_runtime": OCI_RUNTIME,
        "oci_runtime_version": parse_runc_version(runc),
        "container_name": CONTAINER_NAME,
        "container_address": CONTAINER_ADDRESS,
        "container_network": f"{NETWORK} {SUBNET} (bridge, own network namespace)",
        "rootfs_recipe_sha256": str(meta.get("recipe_sha256", "")),
        "rootfs_packages_sha256": str(meta.get("packages_sha256", "")),
        "rootfs_packages": str(meta.get("packages", "")),
        "rootfs_size_bytes": str(meta.get("size_bytes", "")),
        "rootfs_distribution": f"debian {inside.get('/etc/debian_version', '?')}",
        "kernel": inside.get("/proc/sys/kernel/osrelease", ""),
        "cgroup_version": str(limits["cgroup_version"]),
        "cgroup_memory_limit_bytes": str(limits["memory_limit_bytes"]),
        "cgroup_memory_peak_bytes": str(limits["memory_peak_bytes"]),
        "cgroup_cpu_quota_millicores": str(limits["cpu_quota_millicores"]),
        "cpus_visible": cpus,
        "java": java[0] if java else "",
    }


# -- commands in the container from the controller -------------------------------------------


def work_dir() -> Path:
    """Writable in the container and the same path on the host (inside the state directory)."""
    return state_dir() / "work"


def exec_argv(command: Sequence[str]) -> list[str]:
    """`command` run inside the running container (its root filesystem, cgroup and network: its
    127.0.0.1 is the container lab's, not the bare lab's), for a step the controller runs itself
    (e.g. a Spark job reading WebHDFS at 127.0.0.1:9870). Files it should leave for the host go
    under `work_dir()`; the checkout is read-only in there."""
    return ["podman", "exec", "--workdir", str(work_dir()), CONTAINER_NAME, *command]


# -- Airflow connections ---------------------------------------------------------------------


def lab_connections(directory: Path | None = None) -> dict[str, str]:
    """AIRFLOW_CONN_BENCHCAMP_CONTAINER_SSH / _HIVE: SSH into the container's sshd with its key
    (host key pinned, never auto-accepted), HiveServer2 on the container's address (authentication
    NONE: lab only, reachable from this host only).

    The keys are made here if the container has not run yet (its sshd uses them): a campaign
    builds its connections before its preflight starts the container, and a connection without
    the host key would refuse the container's sshd."""
    from benchcamp.ops.lab import ensure_ssh_keys

    state = directory or state_dir()
    ensure_ssh_keys(state / "ssh")
    extra: dict[str, object] = {
        "key_file": str(state / "ssh" / "client_ed25519"),
        "look_for_keys": "false",
        "conn_timeout": 10,
        "no_host_key_check": "false",
    }
    host_key = state / "ssh" / "host_ed25519.pub"
    if host_key.exists():
        extra["host_key"] = " ".join(host_key.read_text().split()[:2])
    ssh = {"conn_type": "ssh", "host": CONTAINER_ADDRESS, "port": SSH_PORT, "login": "root", "extra": extra}
    hive = {
        "conn_type": "hiveserver2",
        "host": CONTAINER_ADDRESS,
        "port": HIVE_PORT,
        "login": "root",
        "schema": "default",
        "extra": {"auth_mechanism": "NONE"},
    }
    return {
        f"AIRFLOW_CONN_{SSH_CONNECTION_ID.upper()}": json.dumps(ssh),
        f"AIRFLOW_CONN_{HIVE_CONNECTION_ID.upper()}": json.dumps(hive),
    }


def containers_conf_text() -> str:
    """The project's containers.conf: runc (crun 1.8 refuses hybrid cgroups), no syslog, and
    the open-file and process limits this host grants (podman's defaults, above them, are refused
    without CAP_SYS_RESOURCE)."""
    limits = ", ".join(f'"{name}={value}:{value}"' for name, value in _host_limits().items())
    return "\n".join(
        [
            "# generated by container_lab.py (rewritten on every up)",
            "[containers]",
            f"default_ulimits = [{limits}]",
            "[engine]",
            f'runtime = "{OCI_RUNTIME}"',
            'events_logger = "file"',
            "",
        ]
    )


def _host_limits() -> dict[str, int]:
    """This process's hard limit on open files, and at most NPROC_LIMIT processes: runc is refused
    more than that here (EPERM above it, whatever this process's own limit says)."""
    import resource

    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    unlimited = resource.RLIM_INFINITY
    return {
        "nofile": 1048576 if nofile == unlimited else nofile,
        "nproc": NPROC_LIMIT if nproc == unlimited else min(nproc, NPROC_LIMIT),
    }


# -- inside the container ---------------------------------------------------------------------


def forwarder_commands(address: str) -> list[list[str]]:
    """socat from the container's address to the loopback the bare lab's services bind."""
    return [
        ["socat", f"TCP-LISTEN:{number},bind={address},fork,reuseaddr", f"TCP:127.0.0.1:{number}"]
        for number in (SSH_PORT, HIVE_PORT)
    ]


def inside() -> int:
    """The container's entry process: the bare lab's `lab_up` (its jars are the host's, mounted
    read-only and installed by the host's `up`), socat on the container's address, then wait for
    SIGTERM and stop the services with the bare lab's `lab_down`."""
    from benchcamp.ops.lab import lab_down, lab_up

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    address = os.environ["BENCHCAMP_CONTAINER_ADDRESS"]
    forwarders: list[subprocess.Popen[bytes]] = []
    try:
        started = time.monotonic()
        lab = lab_up(install=False)  # nothing to install in here: the checkout is read-only
        print(lab.format(), flush=True)
        forwarders = [subprocess.Popen(command) for command in forwarder_commands(address)]
        ready_file().write_text(
            json.dumps({"up_s": round(time.monotonic() - started, 1), "rss_mb": round(lab.total_rss_mb)})
            + "\n"
        )
        print(f"lab container ready on {address} in {time.monotonic() - started:.1f} s", flush=True)
        while not stop.wait(1.0):
            if any(forwarder.poll() is not None for forwarder in forwarders):
                print("a socat forwarder exited: stopping", flush=True)
                return 1
        return 0
    except LabError as exc:
        print(f"the lab did not come up in the container: {exc}", flush=True)
        return 1
    finally:
        for forwarder in forwarders:
            forwarder.terminate()
        ready_file().unlink(missing_ok=True)
        lab_down()
        print("lab services stopped", flush=True)


# -- command line ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bigbench-container", description=__doc__.splitlines()[0])
    parser.add_argument(
        "command", choices=("up", "down", "status", "facts", "connections", "rootfs", "inside")
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            started = time.monotonic()
            ensure()
            print(status().format())
            print(f"up in {time.monotonic() - started:.1f} s; facts in {facts_file()}")
        elif args.command == "down":
            left = down()
            print("down: nothing left behind" if not left else "down, but left behind:\n" + "\n".join(left))
            return 0 if not left else 1
        elif args.command == "status":
            current = status()
            print(current.format())
            return 0 if current.healthy else 3
        elif args.command == "facts":
            for name, value in facts().items():
                print(f"{name}={value}")
        elif args.command == "connections":
            for name, value in lab_connections().items():
                print(f"{name}={value}")
        elif args.command == "rootfs":
            print(json.dumps(ensure_rootfs(), indent=2))
        else:
            return inside()
    except LabError as exc:
        print(f"bigbench-container {args.command}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
