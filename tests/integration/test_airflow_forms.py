"""The rest of the Airflow stack end to end (the stack lane; tier 1's part is test_airflow_e2e.py,
the stack itself tests/helpers/stack.py): an unknown conf key fails the run's first task naming
the key; the YCSB study's trigger form starts a tiny campaign with the conf it shows (checked
once it has planned: `benchcamp run`'s YCSB campaign is the stores lane's); every other study's
form opens, accepts its defaults and refuses a bad number without a run; a publication's
BigBench figures import into the stack's warehouse and read in Chromium; a backfill of an
earlier date from the UI's dialog onto an unreachable target gets a run and a campaign of its
own, fails with the host and port and leaves the warehouse as it was.
"""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from benchcamp.pipeline.campaign.conf import campaign_id
from benchcamp.presentation import report
from helpers.stack import (
    BIN,
    CELL,
    DAG,
    Api,
    backfill_in_browser,
    dag_runs,
    hold_latest_date,
    logged_in,
    login,
    open_trigger_form,
    planned_then_stopped,
    task_states,
    trigger_from_form,
    wait_run,
    warehouse_rows,
)
from helpers.web import ARTIFACTS, BROWSER_WAIT_MS, chromium_page

pytestmark = pytest.mark.integration
UNKNOWN_KEY = {"ladder": "tiny", "ladderr": 1}


@pytest.fixture(scope="module")
def api(stack: dict[str, Any]) -> Api:
    """A logged-in client; the study unpaused, with a run carrying an unknown conf key at its
    latest schedule date (with catchup off, unpausing schedules that date at once: the run there
    makes the scheduler skip it, and its plan fails naming the key)."""
    client, dag = logged_in(stack)
    assert dag["is_paused"] is True, dag
    run = hold_latest_date(client, dag, UNKNOWN_KEY)
    assert run["state"] == "queued", run
    stack["held"] = run
    return client


def test_an_unknown_conf_key_fails_the_first_task_naming_it(stack: dict[str, Any], api: Api) -> None:
    run = stack["held"]
    assert wait_run(api, run["dag_run_id"]) == "failed"
    states = task_states(api, run["dag_run_id"])
    assert states["plan"] == "failed"
    # Nothing ran, so nothing is cleaned, validated, loaded, built or reported.
    later = {task: state for task, state in states.items() if task != "plan"}
    assert later and set(later.values()) <= {"skipped", "upstream_failed"}, later
    status, log = api.call("GET", f"/api/v2/dags/{DAG}/dagRuns/{run['dag_run_id']}/taskInstances/plan/logs/1")
    assert "ladderr" in json.dumps(log)
    scheduled = [r for r in dag_runs(api) if r["run_type"] == "scheduled"]
    assert scheduled == [], "unpausing started a scheduled campaign at the held run's date"


def test_a_user_triggers_the_ycsb_study_from_its_form(stack: dict[str, Any], api: Api) -> None:
    """As tier 1's form test, for a study whose default target is a real node: the lab chosen."""
    dag_id = "ycsb_hbase_cassandra"
    wanted = {
        "workloads": ["ycsb_a"],
        "cells": ["ycsb_a|operationcount=1000|store=cassandra|threads=1"],
        "environment": "local_lab",
    }
    run = trigger_from_form(stack, api, dag_id, wanted)
    try:
        planned = planned_then_stopped(api, run["dag_run_id"], dag_id)
        assert planned["plan"] == "success", planned
        assert run["conf"]["environment"] == "local_lab", run["conf"]
    finally:
        # paused again once tried, as the stack found it: left unpaused, its own schedule (YCSB
        # nightly at 02:30) would start a full campaign on the lab under the later tests
        api.call("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": True})


# The studies whose form is not used to start a campaign above (a BigBench, graph or HDFS-links
# run takes minutes): each form still opens, accepts its defaults and refuses a bad number.
FORM_ONLY = ("bigbench_containers", "mapreduce_ssd_hdd", "hdfs_interconnects")


@pytest.mark.parametrize("dag_id", FORM_ONLY)
def test_every_other_study_form_opens_and_refuses_a_bad_number_without_a_run(
    stack: dict[str, Any], api: Api, dag_id: str
) -> None:
    status, dag = api.call("GET", f"/api/v2/dags/{dag_id}")
    assert status == 200 and dag["is_paused"] is True, dag
    before = {run["dag_run_id"] for run in dag_runs(api, dag_id)}
    with chromium_page() as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        dialog = open_trigger_form(page, stack, dag_id)
        page.screenshot(path=str(ARTIFACTS / f"20-{dag_id}-form-as-opened.png"), full_page=True)
        trigger = dialog.get_by_role("button", name="Trigger")
        assert trigger.is_enabled(), "the form must accept its own defaults"
        text = dialog.inner_text()
        for workload in _form_workloads(dag_id):
            assert workload in text, f"{workload} not offered by the form"
        # Airflow's form unpauses a paused DAG before the server has checked the conf (its
        # "Unpause ... on trigger" box is ticked by default), so even a refused trigger would
        # leave the study scheduled: the README tells users to untick it, as this user does.
        dialog.get_by_text(f"Unpause {dag_id} on trigger").click()
        repetitions = dialog.locator("input[name=element_repetitions]")
        repetitions.fill("99")
        repetitions.blur()
        trigger.click()
        page.get_by_text("99 is greater than or equal to the maximum of 51").first.wait_for(
            timeout=BROWSER_WAIT_MS
        )
        page.screenshot(path=str(ARTIFACTS / f"21-{dag_id}-form-refuses-99.png"))
        assert not errors, errors
    assert {run["dag_run_id"] for run in dag_runs(api, dag_id)} == before
    status, dag = api.call("GET", f"/api/v2/dags/{dag_id}")
    assert status == 200, dag
    if not dag["is_paused"]:  # with the box unticked, the refused trigger leaves the study paused
        api.call("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": True})
        pytest.fail(f"a refused trigger unpaused {dag_id} with 'Unpause on trigger' unticked")


def _form_workloads(dag_id: str) -> list[str]:
    """The workloads a run can be asked for (BigBench's one: its load runs the three phases)."""
    from benchcamp.core.spec import load_spec
    from benchcamp.pipeline.campaign.conf import implemented_workloads

    return implemented_workloads(load_spec(dag_id))


def test_published_bigbench_results_import_and_read_in_a_browser(stack: dict[str, Any], api: Api) -> None:
    """A user fills the study's template with a publication's phase figures (invented ones here),
    imports it into the stack's warehouse and reads the computed Qpm on the results page."""
    import csv

    from benchcamp.core.paths import repo_root

    template = repo_root() / "include/benchcamp/studies/bigbench_containers/published/template.csv"
    figures = {  # (environment, workload, metric) -> value; container 5 % faster in every phase
        ("bare_metal", "bigbench_load", "duration_s"): "3000",
        ("bare_metal", "bigbench_power", "t_pt_s"): "9000",
        ("bare_metal", "bigbench_throughput", "duration_s"): "16000",
        ("container", "bigbench_load", "duration_s"): "2850",
        ("container", "bigbench_power", "t_pt_s"): "8550",
        ("container", "bigbench_throughput", "duration_s"): "15200",
    }
    with template.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    filled = stack["tmp"] / "published.csv"
    campaign = "published_e2e"
    with filled.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            if row["metric"] == "bbqpm_published":
                continue  # this publication gives the phases, not its Qpm
            if not row["value"]:
                row["value"] = figures[(row["environment"], row["workload"], row["metric"])]
            writer.writerow({**row, "campaign": campaign})
    warehouse = Path(stack["env"]["BENCHCAMP_WAREHOUSE"])
    imported = subprocess.run(
        [str(BIN / "benchcamp"), "import", str(filled), "--warehouse", str(warehouse)],
        env=stack["env"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert imported.returncode == 0, imported.stdout[-3000:] + imported.stderr[-3000:]
    study = "bigbench_containers"
    tables = report.read_tables(warehouse, study, campaign)
    qpm = {row["environment"]: row for row in tables["bigbench_qpm"]}
    # BBQpm@SF = SF * 60 * M / (0.1 T_load + sqrt(T_PT * T_throughput / S)), SF 10000, M 30, S 2
    assert qpm["bare_metal"]["bbqpm"] == pytest.approx(10000 * 60 * 30 / (300 + (9000 * 16000 / 2) ** 0.5))
    with chromium_page() as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        login(page, stack)
        answer = page.goto(f"{stack['base']}/benchcamp/{study}?campaign={campaign}")
        assert answer is not None and answer.status == 200
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(ARTIFACTS / "30-bigbench-published-results.png"), full_page=True)
        text = page.locator("body").inner_text()
        assert f"Campaign {campaign}" in text
        assert "derived from BigBench; not comparable with TPCx-BB results" in text
        for environment in ("bare_metal", "container"):
            assert f"{qpm[environment]['bbqpm']:.2f}" in text, (environment, text[:3000])
        figures_on_page = page.locator("svg")
        for index in range(figures_on_page.count()):
            box = figures_on_page.nth(index).bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 50, (index, box)
        assert not errors, errors


def test_a_backfill_onto_an_unreachable_target_fails_clearly_and_loses_nothing(
    stack: dict[str, Any], api: Api
) -> None:
    # the published import's rows, earlier in this module, are what must stay as they were
    before = warehouse_rows(stack, "select * from raw.results order by all")
    assert before, "no earlier rows to keep: the published import runs first"
    latest = datetime.fromisoformat(stack["held"]["logical_date"])
    older = latest - timedelta(days=14)
    # As a user backfills from the UI: Trigger → Backfill, the date, "Override parameters on
    # existing runs" ticked (without it Airflow 3.3's dialog sends no conf at all, README), then
    # the form's fields; the run gets exactly the conf the form showed.
    wanted = {"workloads": ["wordcount"], "cells": [CELL], "environment": "dse_cluster"}
    runs = backfill_in_browser(stack, api, older, wanted, timeout_s=1500)
    (run,) = [r for r in runs if datetime.fromisoformat(r["logical_date"]) == older]
    conf = run["conf"]
    assert (conf["ladder"], conf["repetitions"], conf["environment"]) == ("tiny", 1, "dse_cluster"), conf
    assert conf["workloads"] == wanted["workloads"] and conf["cells"] == wanted["cells"], conf
    states = task_states(api, run["dag_run_id"])
    assert run["state"] == "failed", states
    assert states["preflight_dse_cluster"] == "failed", states
    assert states["publish"] == "upstream_failed", states
    status, log = api.call(
        "GET",
        f"/api/v2/dags/{DAG}/dagRuns/{run['dag_run_id']}/taskInstances/preflight_dse_cluster/logs/1",
    )
    port = json.loads(stack["env"]["AIRFLOW_CONN_DSE_GATEWAY_SSH"])["port"]
    assert f"cannot reach target 127.0.0.1:{port}" in json.dumps(log), log
    # Every earlier row is as it was; the failed repetition is kept and marked, never dropped.
    campaign = campaign_id(f"backfill__{older.isoformat()}")
    after = warehouse_rows(stack, "select * from raw.results order by all")
    assert [row for row in after if row[1] != campaign] == before
    statuses = {
        row[0]
        for row in warehouse_rows(stack, f"select status from raw.results where campaign = '{campaign}'")
    }
    assert statuses == {"failed"}, statuses
