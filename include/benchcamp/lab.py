"""The local lab: real services on 127.0.0.1, started and stopped by the project.

For now: an sshd with its own host key and client key (the SSH target every
campaign goes through) and Hadoop 3.4.2 MapReduce in local mode behind a
`hadoop` command on the SSH session's PATH. Everything lives under one
directory (`.lab/` or $BENCHCAMP_LAB_DIR); services are stopped by their own PIDs.
Nothing here runs at import time.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchcamp.paths import repo_root

HADOOP_VERSION = "3.4.2"
DEFAULT_SSH_PORT = 2222
LAB_CONNECTION_ID = "benchcamp_lab_ssh"
_MR_JARS = {
    f"hadoop-mapreduce-examples-{HADOOP_VERSION}.jar": f"hadoop-mapreduce-examples-{HADOOP_VERSION}.jar",
    f"hadoop-mapreduce-client-jobclient-{HADOOP_VERSION}-tests.jar": (
        f"hadoop-mapreduce-client-jobclient-{HADOOP_VERSION}-tests.jar"
    ),
}


class LabError(RuntimeError):
    """The lab cannot be installed or started; the message says what to do."""


def lab_dir() -> Path:
    return Path(os.environ.get("BENCHCAMP_LAB_DIR") or repo_root() / ".lab")


def ssh_port() -> int:
    return int(os.environ.get("BENCHCAMP_LAB_SSH_PORT", DEFAULT_SSH_PORT))


def hadoop_home() -> Path:
    return repo_root() / "lab" / "hadoop"


def java_home() -> Path:
    """A Java 17 (Hadoop 3.4 does not run on 25); Debian's OpenJDK first."""
    for candidate in sorted(Path("/usr/lib/jvm").glob("java-17-openjdk*")):
        if (candidate / "bin" / "java").exists():
            return candidate
    java = shutil.which("java")
    if java is None:
        raise LabError("no Java found: install OpenJDK 17 (apt-get install -y openjdk-17-jdk-headless)")
    return Path(os.path.realpath(java)).parent.parent


# -- installation ---------------------------------------------------------------------------


def _apt_install(*packages: str) -> None:
    if os.geteuid() != 0:
        raise LabError(
            f"{', '.join(packages)} missing and not root: run `sudo apt-get install -y {' '.join(packages)}`"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], check=True, env=env
    )


def _hadoop_installed() -> bool:
    marker = hadoop_home() / "lib" / ".installed"
    return marker.exists() and marker.read_text().strip() == HADOOP_VERSION


def ensure_installed() -> None:
    """Idempotent set-up: openssh-server (apt), Hadoop jars (Maven Central), share/ layout."""
    if not Path("/usr/sbin/sshd").exists():
        _apt_install("openssh-server")
    if shutil.which("mvn") is None:
        _apt_install("maven")
    home = hadoop_home()
    if not _hadoop_installed():
        lib = home / "lib"
        if lib.exists():
            shutil.rmtree(lib)
        subprocess.run(
            [
                "mvn",
                "-q",
                "-B",
                "-f",
                str(home / "pom.xml"),
                "dependency:copy-dependencies",
                "-DoutputDirectory=lib",
            ],
            check=True,
        )
        (lib / ".installed").write_text(HADOOP_VERSION)
    share = home / "share" / "hadoop" / "mapreduce"
    share.mkdir(parents=True, exist_ok=True)
    for link_name, jar in _MR_JARS.items():
        link = share / link_name
        if not link.exists():
            link.unlink(missing_ok=True)
            link.symlink_to(Path("../../../lib") / jar)


# -- sshd -----------------------------------------------------------------------------------


def target_shell_env() -> dict[str, str]:
    """What an SSH session on the lab sees (sshd SetEnv): Hadoop on PATH, the work dir."""
    home = hadoop_home()
    java = java_home()
    return {
        "PATH": f"{repo_root() / 'lab' / 'bin'}:{java / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "JAVA_HOME": str(java),
        "HADOOP_HOME": str(home),
        "HADOOP_CONF_DIR": str(home / "conf"),
        "BENCHCAMP_WORK_DIR": str(lab_dir() / "work"),
    }


def sshd_config_text(directory: Path, port: int, env: dict[str, str]) -> str:
    set_env = " ".join(f'"{name}={value}"' for name, value in env.items())
    return "\n".join(
        [
            f"Port {port}",
            "ListenAddress 127.0.0.1",
            f"HostKey {directory / 'ssh' / 'host_ed25519'}",
            f"AuthorizedKeysFile {directory / 'ssh' / 'authorized_keys'}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "PermitRootLogin prohibit-password",
            "StrictModes no",
            f"PidFile {directory / 'run' / 'sshd.pid'}",
            "Subsystem sftp internal-sftp",
            "PrintMotd no",
            f"SetEnv {set_env}",
            "",
        ]
    )


def _keygen(path: Path) -> None:
    if not path.exists():
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "benchcamp-lab", "-f", str(path)],
            check=True,
        )


def _prepare_sshd(directory: Path, port: int) -> Path:
    ssh_dir = directory / "ssh"
    for sub in (ssh_dir, directory / "run", directory / "logs", directory / "work"):
        sub.mkdir(parents=True, exist_ok=True)
    _keygen(ssh_dir / "host_ed25519")
    _keygen(ssh_dir / "client_ed25519")
    authorized = ssh_dir / "authorized_keys"
    authorized.write_text((ssh_dir / "client_ed25519.pub").read_text())
    authorized.chmod(0o600)
    host_key = " ".join(host_public_key(directory).split()[:2])
    (ssh_dir / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key}\n")
    config = directory / "sshd_config"
    config.write_text(sshd_config_text(directory, port, target_shell_env()))
    return config


def host_public_key(directory: Path | None = None) -> str:
    return ((directory or lab_dir()) / "ssh" / "host_ed25519.pub").read_text().strip()


def airflow_connection_env() -> dict[str, str]:
    """`AIRFLOW_CONN_BENCHCAMP_LAB_SSH`: key login, host key pinned (never auto-accepted)."""
    directory = lab_dir()
    host_key_file = directory / "ssh" / "host_ed25519.pub"
    extra: dict[str, object] = {
        "key_file": str(directory / "ssh" / "client_ed25519"),
        "look_for_keys": "false",
        "conn_timeout": 10,
        "no_host_key_check": "false",
    }
    if host_key_file.exists():
        extra["host_key"] = " ".join(host_key_file.read_text().split()[:2])
    connection = {
        "conn_type": "ssh",
        "host": "127.0.0.1",
        "port": ssh_port(),
        "login": getpass.getuser(),
        "extra": extra,
    }
    return {f"AIRFLOW_CONN_{LAB_CONNECTION_ID.upper()}": json.dumps(connection)}


# -- lifecycle ------------------------------------------------------------------------------


@dataclass
class ServiceStatus:
    name: str
    port: int
    pid: int | None
    alive: bool
    healthy: bool
    rss_mb: float
    detail: str = ""


@dataclass
class LabStatus:
    directory: Path
    services: list[ServiceStatus] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return all(service.healthy for service in self.services)

    def format(self) -> str:
        lines = [
            f"lab: {self.directory}",
            f"{'service':<10} {'port':>6} {'pid':>8} {'state':<10} {'rss MB':>8}",
        ]
        for service in self.services:
            state = "healthy" if service.healthy else ("running" if service.alive else "stopped")
            pid = str(service.pid) if service.pid else "-"
            lines.append(
                f"{service.name:<10} {service.port:>6} {pid:>8} {state:<10} {service.rss_mb:>8.0f}  {service.detail}"
            )
        total = sum(service.rss_mb for service in self.services)
        lines.append(f"total RSS: {total:.0f} MB")
        return "\n".join(lines)


def _pid_file(directory: Path) -> Path:
    return directory / "run" / "sshd.pid"


def _read_pid(directory: Path) -> int | None:
    path = _pid_file(directory)
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def _rss_mb(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _ssh_login_works(directory: Path, port: int) -> tuple[bool, str]:
    import paramiko

    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.load_host_keys(str(directory / "ssh" / "known_hosts"))
    try:
        client.connect(
            "127.0.0.1",
            port=port,
            username=getpass.getuser(),
            key_filename=str(directory / "ssh" / "client_ed25519"),
            look_for_keys=False,
            allow_agent=False,
            timeout=5,
        )
        _, stdout, _ = client.exec_command('command -v hadoop && test -d "$BENCHCAMP_WORK_DIR"', timeout=10)
        ok = stdout.channel.recv_exit_status() == 0
        return ok, "login ok, hadoop on PATH" if ok else "login ok but hadoop or the work dir is missing"
    except Exception as exc:  # any failure means "not healthy"; the message says which
        return False, f"{type(exc).__name__}: {exc}"
    finally:
        client.close()


def lab_status() -> LabStatus:
    directory = lab_dir()
    port = ssh_port()
    pid = _read_pid(directory)
    healthy, detail = _ssh_login_works(directory, port) if pid else (False, "not running")
    if pid is None and _pid_file(directory).exists():
        detail = "crashed or killed (stale pid file); see " + str(directory / "logs" / "sshd.log")
    return LabStatus(
        directory=directory,
        services=[ServiceStatus("sshd", port, pid, pid is not None, healthy, _rss_mb(pid), detail)],
    )


def lab_up(timeout_s: float = 20.0) -> LabStatus:
    """Start the lab (a no-op for services already healthy) and wait until SSH logins work."""
    ensure_installed()
    directory = lab_dir()
    port = ssh_port()
    config = _prepare_sshd(directory, port)
    if _read_pid(directory) is None:
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)
        _pid_file(directory).unlink(missing_ok=True)
        subprocess.run(
            ["/usr/sbin/sshd", "-f", str(config), "-E", str(directory / "logs" / "sshd.log")], check=True
        )
    deadline = time.monotonic() + timeout_s
    while True:
        status = lab_status()
        if status.healthy:
            return status
        if time.monotonic() > deadline:
            log = directory / "logs" / "sshd.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise LabError(
                f"the lab's sshd on 127.0.0.1:{port} did not become healthy:\n{status.format()}\n{tail}"
            )
        time.sleep(0.3)


def lab_down(timeout_s: float = 10.0) -> None:
    """Stop every lab service by its recorded PID; leave no process behind."""
    directory = lab_dir()
    pid = _read_pid(directory)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    _pid_file(directory).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchcamp.lab up|down|status`: the same as `benchcamp lab ...`."""
    from benchcamp.cli import main as cli_main

    return cli_main(["lab", *(argv if argv is not None else sys.argv[1:] or ["status"])])


if __name__ == "__main__":
    sys.exit(main())
