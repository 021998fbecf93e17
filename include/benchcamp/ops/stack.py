"""`make up` / `make down`: Airflow 3 on 127.0.0.1 beside the lab, login required, stopped by PID.

The api-server, scheduler, dag-processor and triggerer run with the project's DAGs and
plugins (LocalExecutor, parallelism sized for two cores, a PostgreSQL metadata database in the
Airflow home started first: `benchcamp.ops.metadb`, which says why not SQLite) and Airflow's
SimpleAuthManager: one `admin` user whose password is generated once, kept in the Airflow home
(mode 600) and printed when it is made. The JWT secret every component shares is generated the
same way. Each component is a process group started
by the project's process supervisor (`benchcamp.ops.supervisor`, as the lab's services are); its PID
file is `<airflow home>/run/<component>.pid`, its log `<airflow home>/logs/<component>.log`, and
`down` stops the group.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchcamp.airflow.airflow_env import DAG_PARSE_TIMEOUT_S, airflow_environment, prepare_airflow
from benchcamp.core.paths import airflow_home
from benchcamp.core.waiting import wait_until
from benchcamp.ops import metadb
from benchcamp.ops.supervisor import Supervised

API_HOST = "127.0.0.1"
COMPONENTS = ("api-server", "scheduler", "dag-processor", "triggerer")
USER = "admin"
PASSWORDS_FILE = "simple_auth_manager_passwords.json"
# The dag-processor's limit on one parse of the DAG file: the import's, and time to serialize.
DAG_PROCESSOR_TIMEOUT_S = 2 * DAG_PARSE_TIMEOUT_S


class StackError(RuntimeError):
    """Airflow did not come up; the message names the component and its log."""


def api_port() -> int:
    return int(os.environ.get("BENCHCAMP_AIRFLOW_PORT", "8080"))


def api_url() -> str:
    return f"http://{API_HOST}:{api_port()}"


def _private_file(path: Path, make: Any) -> str:
    """Read a secret file, creating it (mode 600) with `make()` the first time."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(make())
    return path.read_text(encoding="utf-8")


def credentials() -> tuple[str, str, bool]:
    """(user, password, made_now): the password is generated on the first `up` only."""
    path = airflow_home() / PASSWORDS_FILE
    made_now = not path.exists()
    stored = json.loads(_private_file(path, lambda: json.dumps({USER: secrets.token_urlsafe(18)})))
    return USER, str(stored[USER]), made_now


def stack_environment() -> dict[str, str]:
    """The Airflow CLI environment of `benchcamp run` plus what a long-running Airflow needs."""
    from benchcamp.ops import lab

    home = airflow_home()
    env = airflow_environment(lab.airflow_connection_env())
    env.update(metadb.airflow_env())
    env.update(
        {
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__AUTH_MANAGER": (
                "airflow.api_fastapi.auth.managers.simple.simple_auth_manager.SimpleAuthManager"
            ),
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": f"{USER}:admin",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(home / PASSWORDS_FILE),
            "AIRFLOW__API_AUTH__JWT_SECRET": _private_file(
                home / "jwt_secret", lambda: secrets.token_hex(32)
            ),
            "AIRFLOW__API__SECRET_KEY": _private_file(home / "api_secret_key", lambda: secrets.token_hex(32)),
            "AIRFLOW__API__HOST": API_HOST,
            "AIRFLOW__API__PORT": str(api_port()),
            "AIRFLOW__API__BASE_URL": api_url(),
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{api_url()}/execution/",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "True",
            "AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG": "4",
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "30",
            # the DAG file builds every study's DAG (a second or two of CPU): re-parsed every 2 min,
            # not Airflow's 30 s, so the controller stays quiet beside a lab it measures; a changed
            # study folder shows within 2 min (a new DAG file within the refresh interval)
            "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "120",
            # A parse that outlived Airflow's 50 s was killed, and its DAGs, not parsed for longer
            # than the 50 s stale threshold, were deactivated: the UI answered "Not Found" to a
            # trigger and a backfill until the next parse (four times in one `make test`, whose
            # load made a parse take 15-50 s). The parse may take as long as the import may,
            # and more; a DAG whose study folder is gone is deactivated after the same time.
            "AIRFLOW__DAG_PROCESSOR__DAG_FILE_PROCESSOR_TIMEOUT": str(DAG_PROCESSOR_TIMEOUT_S),
            "AIRFLOW__DAG_PROCESSOR__STALE_DAG_THRESHOLD": str(DAG_PROCESSOR_TIMEOUT_S),
        }
    )
    return env


def log_file(component: str) -> Path:
    return airflow_home() / "logs" / f"{component}.log"


def _supervised(component: str) -> Supervised:
    return Supervised(component, airflow_home() / "run" / f"{component}.pid", log_file(component))


def _read_pid(component: str) -> int | None:
    return _supervised(component).pid()


def _command(component: str) -> list[str]:
    airflow = str(Path(sys.executable).with_name("airflow"))
    if component == "api-server":
        return [airflow, "api-server", "--host", API_HOST, "--port", str(api_port()), "--workers", "1"]
    return [airflow, component]


def _start(component: str, env: dict[str, str]) -> int:
    return _supervised(component).start(_command(component), env={**os.environ, **env}, cwd=airflow_home())


def health() -> dict[str, Any]:
    """The api-server's /api/v2/monitor/health answer (unauthenticated by design)."""
    with urllib.request.urlopen(f"{api_url()}/api/v2/monitor/health", timeout=5) as answer:  # noqa: S310
        return dict(json.load(answer))


@dataclass
class ComponentStatus:
    name: str
    pid: int | None
    healthy: bool
    detail: str


def status() -> list[ComponentStatus]:
    try:
        answer = health()
    except (OSError, ValueError) as exc:
        answer = {"error": str(exc)}
    key = {"scheduler": "scheduler", "dag-processor": "dag_processor", "triggerer": "triggerer"}
    database_pid = metadb.supervised().pid()
    database_ready = database_pid is not None and metadb.ready()
    rows = [
        ComponentStatus(
            "metadb",
            database_pid,
            database_ready,
            f"PostgreSQL on {metadb.socket_dir()}"
            if database_ready
            else ("not answering" if database_pid else "not running"),
        )
    ]
    for component in COMPONENTS:
        pid = _read_pid(component)
        if component == "api-server":
            healthy = pid is not None and "error" not in answer
            detail = f"{api_url()}" if healthy else str(answer.get("error", "not running"))
        else:
            state = dict(answer.get(key[component]) or {}).get("status")
            healthy = pid is not None and state == "healthy"
            detail = f"heartbeat {state}" if state else "no heartbeat yet"
        rows.append(ComponentStatus(component, pid, healthy, detail if pid else "not running"))
    return rows


def format_status(rows: list[ComponentStatus]) -> str:
    lines = [f"airflow: {airflow_home()}", f"{'component':<14} {'pid':>8} {'state':<9} detail"]
    for row in rows:
        state = "healthy" if row.healthy else ("starting" if row.pid else "stopped")
        lines.append(f"{row.name:<14} {row.pid or '-':>8} {state:<9} {row.detail}")
    return "\n".join(lines)


def up(timeout_s: float = 240.0) -> str:
    """Start the lab and every Airflow component not running; wait until all are healthy."""
    from benchcamp.ops import lab

    lab_status = lab.lab_up()
    env = stack_environment()
    user, password, made_now = credentials()
    try:
        metadb.start()
    except metadb.MetadbError as exc:
        raise StackError(f"Airflow did not come up: {exc}") from exc
    prepare_airflow(env)  # metadata DB migrated, one pool per target and the warehouse pool
    for component in COMPONENTS:
        if _read_pid(component) is None:
            _start(component, env)

    def not_up(why: str, names: list[str] | tuple[str, ...], rows: list[ComponentStatus]) -> StackError:
        logs = ", ".join(
            str(metadb.supervised().log_file if name == "metadb" else log_file(name)) for name in names
        )
        return StackError(f"Airflow did not come up ({why}); see {logs}\n{format_status(rows)}")

    def unless_dead() -> list[ComponentStatus]:
        rows = status()
        dead = [row.name for row in rows if row.pid is None]  # a healthy component has a PID
        if dead:
            raise not_up(f"{dead[0]} exited", dead, rows)
        return rows

    rows, healthy = wait_until(unless_dead, lambda rows: all(row.healthy for row in rows), timeout_s, 2)
    if not healthy:
        raise not_up(f"not healthy after {timeout_s:.0f} s", ("metadb", *COMPONENTS), rows)
    login = (
        f"login: {user} / {password}"
        if made_now
        else f"login: {user} (password in {airflow_home() / PASSWORDS_FILE})"
    )
    return "\n".join([lab_status.format(), "", format_status(rows), "", f"Airflow UI: {api_url()}  {login}"])


def _stop(component: str, timeout_s: float = 30.0) -> None:
    _supervised(component).stop(timeout_s)


def down(keep_lab: bool = False) -> None:
    """Stop every Airflow component (whole process groups), the metadata database, then the lab
    unless `keep_lab`."""
    from benchcamp.ops import lab

    for component in reversed(COMPONENTS):
        _stop(component)
    metadb.stop()
    if not keep_lab:
        lab.lab_down()
