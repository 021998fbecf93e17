"""The Airflow stack's metadata database: PostgreSQL on a Unix socket in the Airflow home.

Why not SQLite: the scheduler, the api-server, the dag-processor, the triggerer and the
LocalExecutor's workers write it at once; on SQLite Airflow refuses backfills under that load
("Database is locked ... Please use PostgreSQL or MySQL") and a lock can end the scheduler's loop,
leaving every later run queued. PostgreSQL is what Airflow supports for this.

- binaries: the pgserver wheel's PostgreSQL build (a locked Python dependency, so a new machine
  needs nothing else); only its binaries are used, the server is one more process of the project's
  supervisor (`<airflow home>/run/metadb.pid`, log `<airflow home>/logs/metadb.log`);
- data: `<airflow home>/metadb` (initdb on first start), role and database `airflow`;
- access: a Unix socket only (no TCP port to collide with or expose), directory and socket mode
  700, trust authentication within that;
- as root: PostgreSQL refuses to run as root, so it runs in a user namespace that maps root to
  `nobody` (util-linux `unshare`); its files stay root's outside it.

`benchcamp run` (`airflow dags test`, one process) keeps its SQLite database in the same home.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pwd
import signal
import subprocess
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any

from benchcamp.core.paths import airflow_home
from benchcamp.ops.supervisor import Supervised

ROLE = "airflow"
DATABASE = "airflow"
SOCKET_NAME = ".s.PGSQL.5432"
# A Unix socket's path is limited to 107 bytes (sun_path); a longer home gets a socket dir in /tmp.
SOCKET_PATH_LIMIT = 100
SETTINGS = {
    "listen_addresses": "",
    "unix_socket_permissions": "0700",
    # Airflow's processes each pool up to 15 connections (5 + 10 overflow)
    "max_connections": "200",
    "shared_buffers": "32MB",
}


class MetadbError(RuntimeError):
    """The metadata database could not be prepared or started; the message names the log."""


def binaries() -> Path:
    """The directory of PostgreSQL's programs in the pgserver wheel."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise MetadbError("the pgserver package (PostgreSQL's binaries) is missing: run `make setup`")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def data_dir() -> Path:
    return airflow_home() / "metadb"


def socket_dir() -> Path:
    """`<airflow home>/run`, or a short directory in /tmp named after the home when that is too long."""
    run = airflow_home() / "run"
    if len(str(run / SOCKET_NAME)) <= SOCKET_PATH_LIMIT:
        return run
    digest = hashlib.sha256(str(airflow_home()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"benchcamp-metadb-{digest}"


def supervised() -> Supervised:
    home = airflow_home()
    return Supervised("metadb", home / "run" / "metadb.pid", home / "logs" / "metadb.log")


def url() -> str:
    """The SQLAlchemy URL Airflow uses (psycopg2; Airflow derives the asyncpg one from it)."""
    return f"postgresql+psycopg2://{ROLE}@/{DATABASE}?host={urllib.parse.quote(str(socket_dir()))}"


def airflow_env() -> dict[str, str]:
    return {"AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": url()}


def initialised() -> bool:
    return (data_dir() / "PG_VERSION").exists()


def _unprivileged(command: list[str]) -> list[str]:
    """`command` as it may run: as is, or for root inside a user namespace where root is `nobody`."""
    if os.geteuid() != 0:
        return command
    nobody = pwd.getpwnam("nobody")
    return ["unshare", "--user", f"--map-user={nobody.pw_uid}", f"--map-group={nobody.pw_gid}", *command]


def _run(command: list[str]) -> None:
    done = subprocess.run(_unprivileged(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise MetadbError(f"{' '.join(command)} failed (exit {done.returncode}): {done.stderr[-2000:]}")


def initialise() -> None:
    """initdb the data directory the first time (role `airflow`, UTF-8, C locale)."""
    if initialised():
        return
    data = data_dir()
    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    data.chmod(0o700)
    _run(
        [
            str(binaries() / "initdb"),
            "--pgdata",
            str(data),
            "--username",
            ROLE,
            "--auth",
            "trust",
            "--encoding",
            "UTF8",
            "--locale",
            "C",
        ]
    )


def _connect(database: str) -> Any:
    import psycopg2

    return psycopg2.connect(host=str(socket_dir()), user=ROLE, dbname=database, connect_timeout=5)


def ready() -> bool:
    """The server answers a query on its socket."""
    try:
        connection = _connect("postgres")
    except Exception:  # psycopg2.OperationalError while it starts; anything else is "not ready" too
        return False
    connection.close()
    return True


def _ensure_database() -> None:
    connection = _connect("postgres")
    try:
        connection.autocommit = True  # CREATE DATABASE refuses a transaction
        with connection.cursor() as cursor:
            cursor.execute("select 1 from pg_database where datname = %s", (DATABASE,))
            if cursor.fetchone() is None:
                cursor.execute(f'create database "{DATABASE}"')
    finally:
        connection.close()


def start(timeout_s: float = 120.0) -> int:
    """Initialise (first time), start and wait until it answers; its PID. Idempotent."""
    initialise()
    sockets = socket_dir()
    sockets.mkdir(parents=True, exist_ok=True, mode=0o700)
    server = supervised()
    command = [str(binaries() / "postgres"), "-D", str(data_dir()), "-k", str(sockets)]
    for name, value in SETTINGS.items():
        command += ["-c", f"{name}={value}"]
    pid = server.start(_unprivileged(command))
    if not server.wait_healthy(ready, timeout_s, 0.2):
        raise MetadbError(
            f"the metadata database did not answer within {timeout_s:.0f} s "
            f"({'running' if server.pid() else 'exited'}); see {server.log_file}"
        )
    _ensure_database()
    return pid


def stop(grace_s: float = 60.0) -> None:
    """PostgreSQL's fast shutdown (SIGINT to the postmaster: clients cut, a clean checkpoint)."""
    server = supervised()

    def fast_shutdown() -> bool:
        pid = server.pid()
        if pid is None:
            return False
        os.kill(pid, signal.SIGINT)
        return True

    server.stop(grace_s, request_stop=fast_shutdown)


def active_runs() -> list[tuple[str, str, dict[str, Any]]]:
    """The stack's queued and running DAG runs as (dag_id, run_id, conf); none when its database
    is not running (no stack, so nothing of it can hold a target)."""
    import json

    if not ready():
        return []
    connection = _connect(DATABASE)
    try:
        with connection.cursor() as cursor:
            cursor.execute("select dag_id, run_id, conf from dag_run where state in ('queued', 'running')")
            rows = cursor.fetchall()
    finally:
        connection.close()
    runs = []
    for dag_id, run_id, conf in rows:
        if isinstance(conf, (bytes, str)):
            try:
                conf = json.loads(conf)
            except ValueError:
                conf = {}
        runs.append((str(dag_id), str(run_id), conf if isinstance(conf, dict) else {}))
    return runs
