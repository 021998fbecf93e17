"""The Airflow CLI as the project runs it: its environment, its invocation, and the one-time set-up.

Both `benchcamp run` (cli) and `make up` (stack) start Airflow this way; it lives below both so
neither imports the other.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from benchcamp.core.paths import airflow_home, default_warehouse, repo_root, results_root

# How long the DAG file's import may take (Airflow's [core] dagbag_import_timeout, 30 s by default).
DAG_PARSE_TIMEOUT_S = 300


def airflow_environment(connections: Mapping[str, str]) -> dict[str, str]:
    """Environment for the Airflow CLI: project-local home, our dags, and `connections`.

    `connections`: the `AIRFLOW_CONN_*` variables of the targets (the callers in ops pass the lab's,
    `lab.airflow_connection_env()`: the lab is above this layer and is not imported from here).
    """
    from benchcamp.pipeline.campaign.conf import DEFAULT_CONNECTIONS_ENV

    root = repo_root()
    env = {
        "AIRFLOW_HOME": str(airflow_home()),
        "AIRFLOW__CORE__DAGS_FOLDER": str(root / "dags"),
        "AIRFLOW__CORE__PLUGINS_FOLDER": str(root / "plugins"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__PARALLELISM": "4",
        # The DAG file builds every study's DAG: 2-5 s alone, but 30-50 s on a controller as loaded
        # as `make test`'s (load average 20 on 2 cores), where Airflow's 30 s failed it as an
        # import error. A hung import still ends, after 5 min.
        "AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT": str(DAG_PARSE_TIMEOUT_S),
        "AIRFLOW__COSMOS__ENABLE_TELEMETRY": "False",
        "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
        "BENCHCAMP_WAREHOUSE": str(default_warehouse()),
        "BENCHCAMP_RESULTS": str(results_root()),
    }
    env.update(connections)
    # the trigger forms default to the environments these connections reach (`campaign.conf.default_environment`)
    env[DEFAULT_CONNECTIONS_ENV] = ",".join(ssh_connection_ids(connections))
    return env


def ssh_connection_ids(connections: Mapping[str, str]) -> list[str]:
    """The ids of the SSH connections among `AIRFLOW_CONN_*` variables (JSON values), sorted."""
    ids = []
    for name, value in connections.items():
        try:
            conn_type = json.loads(value).get("conn_type")
        except (ValueError, AttributeError):  # a URI form: its scheme is the type
            conn_type = value.split(":", 1)[0]
        if conn_type == "ssh":
            ids.append(name.removeprefix("AIRFLOW_CONN_").lower())
    return sorted(ids)


def run_airflow(
    args: list[str], env: dict[str, str], check: bool = True, log: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The Airflow CLI with the project's environment; output to `log` when given (it is long)."""
    binary = Path(sys.executable).with_name("airflow")
    if log is None:
        return subprocess.run([str(binary), *args], env={**os.environ, **env}, check=check)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as handle:
        return subprocess.run(
            [str(binary), *args],
            env={**os.environ, **env},
            check=check,
            stdout=handle,
            stderr=subprocess.STDOUT,
        )


def start_airflow(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """The Airflow CLI in a session of its own, output appended to `log`: a signal to the caller
    does not reach it by itself, and `stop_process_group` stops it with every process it started."""
    binary = Path(sys.executable).with_name("airflow")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as handle:
        return subprocess.Popen(
            [str(binary), *args],
            env={**os.environ, **env},
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_process_group(process: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGTERM to the process's group, SIGKILL to what is left after `grace_s`."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its children too, whatever the leader did
    except ProcessLookupError:
        pass
    process.wait()


_MARK_FAILED = """
import json, sys
from airflow.models.dagrun import DagRun
from airflow.models.taskinstance import TaskInstance
from airflow.utils import timezone
from airflow.utils.session import create_session
from airflow.utils.state import DagRunState, TaskInstanceState

dag_id, campaign = sys.argv[1], sys.argv[2]
active = {"running", "queued", "scheduled", "up_for_retry", "up_for_reschedule", "deferred", "restarting"}
marked = []
with create_session() as session:
    runs = session.query(DagRun).filter(DagRun.dag_id == dag_id).all()
    for run in runs:
        if str(getattr(run.state, "value", run.state)) not in ("running", "queued"):
            continue
        if (run.conf or {}).get("campaign") != campaign:
            continue
        for ti in session.query(TaskInstance).filter(
            TaskInstance.dag_id == dag_id, TaskInstance.run_id == run.run_id
        ):
            if ti.state is not None and str(getattr(ti.state, "value", ti.state)) in active:
                ti.state = TaskInstanceState.FAILED
                ti.end_date = timezone.utcnow()
        run.state = DagRunState.FAILED
        run.end_date = timezone.utcnow()
        marked.append(run.run_id)
print(json.dumps(marked))
"""


def mark_run_failed(env: dict[str, str], dag_id: str, campaign: str) -> list[str]:
    """Mark the campaign's unfinished DAG run failed (its unfinished tasks too) in the metadata
    database `env` points at, after its process was stopped: a killed `airflow dags test` left it
    `running` for ever. Returns the run ids marked (none when it cannot tell)."""
    done = subprocess.run(
        [sys.executable, "-c", _MARK_FAILED, dag_id, campaign],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    try:
        marked: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return []
    return marked


def pool_definitions() -> dict[str, dict[str, object]]:
    """Every pool the study DAGs use, as `airflow pools import` reads them: one slot each."""
    from benchcamp.core.spec import load_spec, study_names
    from benchcamp.pipeline.campaign.conf import WAREHOUSE_POOL, target_pool

    pools = {WAREHOUSE_POOL: "DuckDB warehouse: one writer at a time"}
    for study in study_names():
        for environment in load_spec(study).environments:
            pools[target_pool(environment.name)] = f"target {environment.name}: one campaign at a time"
    return {
        name: {"slots": 1, "description": text, "include_deferred": False} for name, text in pools.items()
    }


PREPARED_FILE = "benchcamp-prepared.json"


def _template_file(home: Path, settings: Mapping[str, str], wanted: Mapping[str, object]) -> Path:
    """Where a freshly prepared metadata DB is kept for the next new home with the same set-up.

    Named by a digest of what decides the DB's contents: the Airflow version, the pools, the
    home's own `airflow.cfg` (if any) and every `AIRFLOW__*` setting (the auth manager's tables,
    the log template Airflow records); a setting that names the home makes the digest the home's
    own, so nothing is shared where it could differ.
    """
    airflow = {name: value for name, value in settings.items() if name.startswith("AIRFLOW__")}
    config = home / "airflow.cfg"
    key = {**wanted, "settings": airflow, "cfg": config.read_text() if config.exists() else None}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "benchcamp" / "airflow-db" / f"{digest}.db"


def _copy_atomically(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".tmp", delete=False) as handle:
        temporary = Path(handle.name)
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def prepare_airflow(env: dict[str, str], log_to_file: bool = True) -> None:
    """Migrate the metadata DB and create the pools the study DAGs use (idempotent).

    Airflow's output goes to `<AIRFLOW_HOME>/migrate.log`, or to stdout with `log_to_file=False`
    (a container's log). A home prepared before by the same Airflow version with the same pools
    (`benchcamp-prepared.json` beside its database) is not prepared again: the two Airflow
    commands cost about ten seconds of CPU. A new home with its own SQLite file starts from a copy
    of the database the last new home with the same set-up got (`_template_file`), so only the
    first `benchcamp run` of a set-up pays them (the test suite makes about ten homes).
    """
    from importlib.metadata import version

    home = Path(env["AIRFLOW_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    pools = pool_definitions()
    wanted = {"airflow": version("apache-airflow-core"), "pools": pools}
    marker = home / PREPARED_FILE
    database = home / "airflow.db"
    settings = {**os.environ, **env}
    # only the home's own SQLite file is known to be the database the marker speaks of
    own_database = not settings.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN")
    if own_database and database.exists() and marker.exists():
        try:
            if json.loads(marker.read_text()) == wanted:
                return
        except ValueError:
            pass  # a damaged marker: prepare again
    # a new home's own database: from the template if there is one, else it becomes the template
    template = _template_file(home, settings, wanted) if own_database and not database.exists() else None
    if template is not None and template.exists():
        _copy_atomically(template, database)
        marker.write_text(json.dumps(wanted))
        return
    log = home / "migrate.log" if log_to_file else None
    run_airflow(["db", "migrate"], env, log=log)
    pool_file = home / "pools.json"
    pool_file.write_text(json.dumps(pools))
    run_airflow(["pools", "import", str(pool_file)], env, log=log)
    marker.write_text(json.dumps(wanted))
    if template is not None and not database.with_name("airflow.db-wal").exists():
        try:  # a read-only cache only loses the saving
            _copy_atomically(database, template)
        except OSError:
            pass
