"""The Airflow stack for the stack's end-to-end modules (a fixture plugin tests/conftest.py
registers): `stack` starts `benchcamp up` in a private Airflow home beside the shared lab, once per
module that asks for it, and stops it after, checking that `down` leaves no Airflow process; the
REST client, the waits and the browser's steps (sign-in, the trigger form, the backfill dialog)
that tests/integration/test_airflow_e2e.py (tier 1) and test_airflow_forms.py (the stack lane) share.

Every wait is on a condition (a run's state, a task's, a backfill's completion) within one bounded
limit, and says on failure what it waited for and what the scheduler last logged; a run that
failed is shown with the end of each failed task's log (`failed_task_logs`): on CI's loaded
machine the original campaign's plan once failed with no more said than its state (2026-11-29).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.ops import lab
from benchcamp.ops.supervisor import alive

from helpers.web import ARTIFACTS, BROWSER_WAIT_MS, chromium_page

BIN = Path(sys.executable).parent
DAG = "hibench_dse"
CELL = "wordcount|data_size_gb=0.012|maps=4|reduces=2"
ONE_CELL = {
    "ladder": "tiny",
    "repetitions": 1,
    "workloads": ["wordcount"],
    "cells": [CELL],
    "fail_on_validation": False,
}
# How long a run may take to end here: a queued one waits for the run before it (559 s on CI's
# loaded machine, 2026-11-29).
RUN_WAIT_S = 1500

# A notifier as a user writes one (README): here it appends what it was given to a file.
NOTIFIER = """import json


def notify(context):
    with open({calls!r}, "a", encoding="utf-8") as calls:
        calls.write(json.dumps({{"run_id": context["run_id"], "regressions": context["regressions"]}}) + "\\n")
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Api:
    def __init__(self, base: str, token: str | None = None, home: Path | None = None) -> None:
        self.base, self.token, self.home = base, token, home

    def diagnosis(self) -> str:
        """Which stack processes run and the scheduler log's end: what a run left queued needs."""
        if self.home is None:
            return ""
        states = ", ".join(
            f"{pid_file.stem} {'running' if alive(int(pid_file.read_text() or 0)) else 'GONE'}"
            for pid_file in sorted((self.home / "run").glob("*.pid"))
        )
        log = self.home / "logs" / "scheduler.log"
        tail = log.read_text(errors="replace").splitlines()[-40:] if log.exists() else []
        return "\n".join([f"stack processes: {states}", "scheduler.log ends:", *tail])

    def logged_error(self, answer: object, lines: int = 30) -> str:
        """What the api-server logged under a "Database error" answer's ID (the failing statement
        and its traceback: the answer itself hides them)."""
        message = answer.get("detail", {}).get("message", "") if isinstance(answer, dict) else ""
        marker = message.rsplit("look for ID ", 1)[-1].strip() if "look for ID " in message else ""
        log = self.home / "logs" / "api-server.log" if self.home else None
        if not marker or log is None or not log.exists():
            return "(no error ID in the answer, or no api-server log)"
        text = log.read_text(errors="replace").splitlines()
        start = next((i for i, line in enumerate(text) if f"Error with id {marker}" in line), None)
        return "(its ID is not in the log)" if start is None else "\n".join(text[start : start + lines])

    def call(self, method: str, path: str, body: object | None = None) -> tuple[int, Any]:
        request = urllib.request.Request(self.base + path, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        data = json.dumps(body).encode() if body is not None else None
        try:
            # Creating a backfill (it clears the original run's tasks) took 35 s beside the
            # suite's load: a user's browser waits for the answer, and so does this client.
            with urllib.request.urlopen(request, data, timeout=180) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, text


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, shared_lab: Callable[[], lab.LabStatus]
) -> Iterator[dict[str, Any]]:
    shared_lab()
    tmp = tmp_path_factory.mktemp("stack")
    port = free_port()
    alerts = tmp / "notifier"
    alerts.mkdir()
    (alerts / "e2e_alerts.py").write_text(NOTIFIER.format(calls=str(tmp / "notifier_calls.jsonl")))
    env = {
        **os.environ,
        # the user's notifier, on the workers' path (README "Change points and regression alerts")
        "PYTHONPATH": os.pathsep.join(filter(None, [str(alerts), os.environ.get("PYTHONPATH")])),
        "AIRFLOW_VAR_BENCHCAMP_REGRESSION_NOTIFIER": "e2e_alerts:notify",
        "AIRFLOW_HOME": str(tmp / "airflow"),
        "BENCHCAMP_AIRFLOW_PORT": str(port),
        "BENCHCAMP_RESULTS": str(tmp / "results"),
        "BENCHCAMP_WAREHOUSE": str(tmp / "warehouse" / "benchcamp.duckdb"),
        # the dse_cluster target, pointed at a port nobody listens on
        "AIRFLOW_CONN_DSE_GATEWAY_SSH": json.dumps(
            {"conn_type": "ssh", "host": "127.0.0.1", "port": free_port(), "login": "nobody"}
        ),
    }
    started = subprocess.run(
        [str(BIN / "benchcamp"), "up"], env=env, capture_output=True, text=True, timeout=900
    )
    try:
        assert started.returncode == 0, started.stdout[-3000:] + started.stderr[-3000:]
        assert f"Airflow UI: http://127.0.0.1:{port}  login: admin / " in started.stdout
        password = started.stdout.rsplit("login: admin / ", 1)[1].split()[0]
        yield {"env": env, "base": f"http://127.0.0.1:{port}", "password": password, "tmp": tmp}
    finally:
        pids = [
            int(path.read_text())
            for path in (tmp / "airflow" / "run").glob("*.pid")
            if path.read_text().strip()
        ]
        stopped = subprocess.run(
            [str(BIN / "benchcamp"), "down", "--keep-lab"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert stopped.returncode == 0, stopped.stderr
        left = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not _zombie(pid)]
        assert not left, f"down left Airflow processes {left}"


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].split()[0] == "Z"
    except OSError:
        return True


def dag_runs(api: Api, dag_id: str = DAG) -> list[dict[str, Any]]:
    status, answer = api.call("GET", f"/api/v2/dags/{dag_id}/dagRuns?limit=100")
    assert status == 200, answer
    return list(answer["dag_runs"])


def wait_run(api: Api, run_id: str, timeout_s: float = RUN_WAIT_S, dag_id: str = DAG) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        status, run = api.call("GET", f"/api/v2/dags/{dag_id}/dagRuns/{urllib.parse.quote(run_id)}")
        assert status == 200, run
        if run["state"] in ("success", "failed"):
            return str(run["state"])
        assert time.monotonic() < deadline, f"run {run_id} still {run['state']}\n{api.diagnosis()}"
        time.sleep(5)


def task_instances(api: Api, run_id: str, dag_id: str = DAG) -> list[dict[str, Any]]:
    path = f"/api/v2/dags/{dag_id}/dagRuns/{urllib.parse.quote(run_id)}/taskInstances?limit=500"
    status, answer = api.call("GET", path)
    assert status == 200, answer
    return list(answer["task_instances"])


def task_states(api: Api, run_id: str, dag_id: str = DAG) -> dict[str, str]:
    return {
        ti["task_id"]: ti["state"] for ti in task_instances(api, run_id, dag_id) if ti["map_index"] in (-1, 0)
    }


def warehouse_rows(stack: dict[str, Any], sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(stack["env"]["BENCHCAMP_WAREHOUSE"], read_only=True) as con:
        return con.execute(sql).fetchall()


def create_backfill(api: Api, body: dict[str, Any], timeout_s: float = 1800) -> list[dict[str, Any]]:
    """Create a backfill through the REST API (once: the stack's PostgreSQL takes it while the
    scheduler writes, where SQLite answered "Database is locked"), wait until it completes; its runs."""
    status, backfill = api.call("POST", "/api/v2/backfills", {"dag_id": DAG, "max_active_runs": 1, **body})
    assert status == 200, backfill
    return backfill_done(api, backfill, timeout_s)


def backfill_done(api: Api, backfill: dict[str, Any], timeout_s: float) -> list[dict[str, Any]]:
    """Wait until a backfill completes and every backfill run has ended; those runs."""
    deadline = time.monotonic() + timeout_s
    while True:
        status, state = api.call("GET", f"/api/v2/backfills/{backfill['id']}")
        assert status == 200, state
        runs = [r for r in dag_runs(api) if r["run_type"] == "backfill"]
        if state["completed_at"] and all(r["state"] in ("success", "failed") for r in runs):
            return runs
        assert time.monotonic() < deadline, (
            f"backfill {backfill['id']} still running: {runs}\n{api.diagnosis()}"
        )
        time.sleep(5)


def login(page: Any, stack: dict[str, Any]) -> None:
    page.goto(f"{stack['base']}/auth/login")
    sign_in(page, stack)
    page.wait_for_url(lambda url: "/auth/login" not in url, timeout=BROWSER_WAIT_MS)


def sign_in(page: Any, stack: dict[str, Any]) -> None:
    """Airflow's sign-in form, on the page the browser is on."""
    page.locator("input[name=username]").fill("admin")
    page.locator("input[name=password]").fill(stack["password"])
    page.get_by_role("button", name="Sign in").click()


def open_trigger_form(page: Any, stack: dict[str, Any], dag_id: str) -> Any:
    """Sign in, open the study's page, press Trigger; the form's dialog once its fields are drawn."""
    login(page, stack)
    page.goto(f"{stack['base']}/dags/{dag_id}")
    page.get_by_role("button", name="Trigger").first.click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("Size ladder").wait_for()
    return dialog


def choose_option(page: Any, dialog: Any, field: str, option: str) -> None:
    dialog.locator(f"#element_{field}").click()
    page.get_by_role("option", name=option, exact=True).click()


def fill_tiny_run(page: Any, dialog: Any, wanted: dict[str, Any]) -> None:
    """The form's fields for a one-cell tiny run: ladder, one repetition, no warm-up, the wanted
    workloads (the others' chips removed), cells and (when given) environment."""
    dialog.locator("input[name=element_repetitions]").fill("1")
    choose_option(page, dialog, "ladder", "tiny")
    workloads = dialog.locator("#element_workloads")
    for chip in workloads.locator("[aria-label^='Remove ']").all()[::-1]:
        if chip.get_attribute("aria-label") != f"Remove {wanted['workloads'][0]}":
            chip.click()
    if wanted["environment"]:
        choose_option(page, dialog, "environment", wanted["environment"])
    dialog.locator("[name=element_cells]").fill("\n".join(wanted["cells"]))
    dialog.locator("input[name=element_warmup_repetitions]").fill("0")


def backfill_in_browser(
    stack: dict[str, Any], api: Api, date: datetime, wanted: dict[str, Any], timeout_s: float
) -> list[dict[str, Any]]:
    """Airflow 3.3's backfill dialog as a user fills it for one date (its date pickers' popovers
    typed into), with "Override parameters on existing runs" ticked and a tiny one-cell run in
    the form; waits until the backfill completes: its runs."""
    status, before = api.call("GET", f"/api/v2/backfills?dag_id={DAG}")
    assert status == 200, before
    known = {backfill["id"] for backfill in before["backfills"]}
    with chromium_page() as page:
        dialog = open_trigger_form(page, stack, DAG)
        dialog.get_by_text("Backfill", exact=True).first.click()
        for picker in (0, 1):  # From, To
            page.get_by_test_id("datetime-input").nth(picker).click()
            popover = page.locator("[data-scope=popover][data-part=content][data-state=open]")
            popover.get_by_placeholder("YYYY/MM/DD").fill(f"{date:%Y/%m/%d}")
            popover.get_by_placeholder("HH:mm").fill(f"{date:%H:%M}")
            page.keyboard.press("Escape")
        page.get_by_text("1 run will be triggered.").wait_for(timeout=BROWSER_WAIT_MS)
        dialog.get_by_text("Override parameters on existing runs").click()
        fill_tiny_run(page, dialog, wanted)
        page.screenshot(path=str(ARTIFACTS / "20-backfill-dialog-filled.png"), full_page=True)
        dialog.get_by_role("button", name="Run Backfill").click()
        deadline = time.monotonic() + 60
        while True:
            status, answer = api.call("GET", f"/api/v2/backfills?dag_id={DAG}")
            assert status == 200, answer
            created = [backfill for backfill in answer["backfills"] if backfill["id"] not in known]
            if created:
                break
            assert time.monotonic() < deadline, "the dialog created no backfill"
            time.sleep(1)
    (backfill,) = created
    assert backfill["dag_run_conf"]["environment"] == wanted["environment"], backfill
    return backfill_done(api, backfill, timeout_s)


def failed_task_logs(api: Api, run_id: str, dag_id: str = DAG, chars: int = 3000) -> str:
    """The end of each failed task's log: what a failed run's assertion shows beside its states."""
    quoted = urllib.parse.quote(run_id)
    parts = []
    for ti in task_instances(api, run_id, dag_id):
        if ti["state"] != "failed":
            continue
        status, log = api.call(
            "GET",
            f"/api/v2/dags/{dag_id}/dagRuns/{quoted}/taskInstances/{ti['task_id']}/logs/"
            f"{max(ti.get('try_number') or 1, 1)}?map_index={ti['map_index']}",
        )
        parts.append(f"--- {ti['task_id']} [{ti['map_index']}] (HTTP {status}):\n{json.dumps(log)[-chars:]}")
    return "\n".join(parts)


def logged_in(stack: dict[str, Any]) -> tuple[Api, dict[str, Any]]:
    """A logged-in client, and the study DAG once the dag-processor has parsed it and computed its
    next schedule date (within 300 s: the first parse beside a loaded lab)."""
    status, answer = Api(stack["base"]).call(
        "POST", "/auth/token", {"username": "admin", "password": stack["password"]}
    )
    assert status in (200, 201), answer
    client = Api(stack["base"], answer["access_token"], stack["tmp"] / "airflow")
    deadline = time.monotonic() + 300
    while True:
        status, dag = client.call("GET", f"/api/v2/dags/{DAG}")
        if status == 200 and dag.get("next_dagrun_logical_date"):
            return client, dag
        assert time.monotonic() < deadline, f"the study DAG was never parsed: {dag}"
        time.sleep(3)


def hold_latest_date(api: Api, dag: dict[str, Any], conf: dict[str, Any]) -> dict[str, Any]:
    """A run with `conf` at the paused DAG's latest schedule date, then the DAG unpaused: with
    catchup off, unpausing schedules that date at once, and the run there makes the scheduler
    skip it (no full campaign nobody asked for). The run, as the API created it."""
    status, run = api.call(
        "POST",
        f"/api/v2/dags/{dag['dag_id']}/dagRuns",
        {"logical_date": dag["next_dagrun_logical_date"], "conf": conf},
    )
    assert status == 200, run
    status, answer = api.call("PATCH", f"/api/v2/dags/{dag['dag_id']}", {"is_paused": False})
    assert status == 200 and answer["is_paused"] is False, answer
    return run


def trigger_from_form(stack: dict[str, Any], api: Api, dag_id: str, wanted: dict[str, Any]) -> dict[str, Any]:
    """The trigger form as a user has it: it opens without an error, refuses an out-of-range
    number with the schema's message (no run), and starts a tiny campaign with the conf it shows;
    the run it started."""
    status, dag = api.call("GET", f"/api/v2/dags/{dag_id}")
    assert status == 200, dag
    if dag["is_paused"]:  # a refused run (an unknown key) holds the date the scheduler would run
        hold_latest_date(api, dag, {"ladderr": 1})
    before = {run["dag_run_id"] for run in dag_runs(api, dag_id)}
    with chromium_page() as page:
        dialog = open_trigger_form(page, stack, dag_id)
        page.screenshot(path=str(ARTIFACTS / f"10-{dag_id}-form-as-opened.png"))
        assert "required" not in dialog.locator("#element_campaign").evaluate("e => e.outerHTML")
        trigger = dialog.get_by_role("button", name="Trigger")
        assert trigger.is_enabled(), "the form must accept its own defaults"

        repetitions = dialog.locator("input[name=element_repetitions]")
        repetitions.fill("99")
        repetitions.blur()
        assert repetitions.input_value() == "99", "an out-of-range number must not be clamped"
        trigger.click()
        refusal = page.get_by_text("99 is greater than or equal to the maximum of 51").first
        refusal.wait_for(timeout=BROWSER_WAIT_MS)
        page.screenshot(path=str(ARTIFACTS / f"11-{dag_id}-form-refuses-99.png"))
        assert {run["dag_run_id"] for run in dag_runs(api, dag_id)} - before == set()

        fill_tiny_run(page, dialog, wanted)
        page.screenshot(path=str(ARTIFACTS / f"12-{dag_id}-form-filled.png"), full_page=True)
        trigger.click()
        deadline = time.monotonic() + 60
        while not (new := [r for r in dag_runs(api, dag_id) if r["dag_run_id"] not in before]):
            assert time.monotonic() < deadline, "the form started no run"
            time.sleep(1)
    (run,) = new
    conf = run["conf"]
    assert conf["ladder"] == "tiny" and conf["repetitions"] == 1 and conf["warmup_repetitions"] == 0, conf
    assert conf["workloads"] == wanted["workloads"] and conf["cells"] == wanted["cells"], conf
    assert conf["campaign"] is None and conf["note"] is None and conf["fail_on_validation"] is True, conf
    return dict(run)


# PostgreSQL's words when it ends a transaction that another one's rows held up: a deadlock, or
# a serializable transaction's conflict. Either is undone whole, and pressing again is safe.
TRANSIENT = ("deadlock detected", "could not serialize access")


def mark_failed(api: Api, dag_id: str, run_id: str, attempts: int = 3) -> None:
    """Mark a run failed as a user does from the UI, pressing again, at most `attempts` times in
    all, only when PostgreSQL ended the api-server's transaction as one side of a deadlock.

    Airflow 3.3's api-server marks the run's task instances while the scheduler and the
    workers update them; PostgreSQL then ends one side (apache/airflow#66734 and #66765 name
    such api-server/scheduler deadlocks on task_instance), and the api-server answers 500,
    "Database error" (stack lane on CI, 2026-12-03). Its log names only the statement, so the
    deadlock is read from PostgreSQL's own log, in what it wrote during the request; any
    other error fails at once with the end of both logs."""
    path = f"/api/v2/dags/{dag_id}/dagRuns/{urllib.parse.quote(run_id)}"
    postgres_log = api.home / "logs" / "metadb.log" if api.home else None
    for attempt in range(1, attempts + 1):
        written = postgres_log.stat().st_size if postgres_log and postgres_log.exists() else 0
        status, answer = api.call("PATCH", path, {"state": "failed"})
        if status == 200:  # its body may still show the state before the change
            return
        during = ""
        if postgres_log and postgres_log.exists():
            with postgres_log.open("rb") as log:
                log.seek(written)
                during = log.read().decode(errors="replace")
        deadlocked = status == 500 and any(words in during for words in TRANSIENT)
        assert deadlocked and attempt < attempts, (
            f"marking {run_id} failed answered {status} on attempt {attempt} of {attempts}: {answer}\n"
            f"PostgreSQL logged during it:\n{during[-3000:]}\n"
            f"the api-server logged of it:\n{api.logged_error(answer)}\n{api.diagnosis()}"
        )
        time.sleep(2)


UNFINISHED = ("scheduled", "queued", "running", "restarting", "up_for_retry", "up_for_reschedule", "deferred")


def planned_then_stopped(api: Api, run_id: str, dag_id: str, timeout_s: float = RUN_WAIT_S) -> dict[str, str]:
    """Wait until the run's plan task has succeeded (its conf checked, its units planned), then
    stop the run as a user does from the UI (marked failed: Airflow ends its running tasks) and
    wait until it has ended with none of its tasks unfinished; the plan's task states. For a form's run whose
    campaign another test runs through (the scheduler's in test_airflow_e2e, `benchcamp run` in the
    studies' modules): a whole tiny campaign under the scheduler costs minutes."""
    deadline = time.monotonic() + timeout_s
    while (states := task_states(api, run_id, dag_id)).get("plan") != "success":
        assert states.get("plan") not in ("failed", "upstream_failed"), (
            states,
            failed_task_logs(api, run_id, dag_id),
        )
        assert time.monotonic() < deadline, f"{run_id}'s plan still {states.get('plan')}\n{api.diagnosis()}"
        time.sleep(3)
    planned = dict(states)
    quoted = urllib.parse.quote(run_id)
    mark_failed(api, dag_id, run_id)
    deadline = time.monotonic() + 300
    while True:
        status, run = api.call("GET", f"/api/v2/dags/{dag_id}/dagRuns/{quoted}")
        assert status == 200, run
        unfinished = [
            ti["task_id"] for ti in task_instances(api, run_id, dag_id) if ti["state"] in UNFINISHED
        ]
        # Airflow may end a run marked failed as success: the tasks it stopped read failed or
        # skipped, and its last tasks (validate, cleanup: all done) then succeed; ended is enough
        if run["state"] in ("success", "failed") and not unfinished:
            return planned
        assert time.monotonic() < deadline, (
            f"{run_id} stopped 300 s ago, yet {run['state']}, tasks {unfinished} unfinished"
        )
        time.sleep(3)
