"""`benchcamp up` end to end through Airflow's REST API (tier 1): a real api-server, scheduler,
dag-processor and triggerer (LocalExecutor) in a private Airflow home, beside the real lab
(the stack itself: tests/helpers/stack.py).

Login is required; a bad trigger-form value is refused with the schema's message and creates no
run; a real one-cell campaign runs under the scheduler (pools enforced) into the warehouse, its
two repetitions in a randomised run order (repetition 2 first) that the scheduler follows, then a
third added by an adaptive round (a CI target the two cannot reach) and its stop recorded; the
README's `airflow backfill create` lists the last two scheduled dates (a dry run); a backfill
created through the REST API re-processes the original's date as a campaign of its own beside the
original, without overwriting it; the results page is served behind Airflow's login and read in
Chromium after its sign-in; the study's trigger form starts a tiny campaign with the conf it shows
(checked once it has planned: the scheduler's campaign above is the whole one); `down` leaves no
Airflow process behind. The other studies' forms, the backfill dialog onto an unreachable target,
an unknown conf key and a published import in the UI are the stack lane's (test_airflow_forms.py).

Regression alerts (issue 28): before the backfill, a recorded history is imported (twenty weekly
campaigns a year earlier, the original campaign's records at 0.5 s, on its host's fingerprint),
so the original is a regression against it; the backfill's campaign, whose build finds the
change, emits one Asset event per regressed metric and calls the notifier named by
AIRFLOW_VAR_BENCHCAMP_REGRESSION_NOTIFIER (a module on the workers' path, as the README shows)
once. (That a later campaign announces it no more is test_change_points.py's; a second backfilled
date here cost a whole scheduler campaign, about 150 CPU-seconds.)
"""

from __future__ import annotations

import json
import subprocess
import urllib.parse
import urllib.request
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.spec import study_names
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.conf import campaign_id
from benchcamp.presentation import report
from helpers.stack import (
    BIN,
    CELL,
    DAG,
    ONE_CELL,
    Api,
    create_backfill,
    dag_runs,
    failed_task_logs,
    hold_latest_date,
    logged_in,
    planned_then_stopped,
    sign_in,
    task_instances,
    task_states,
    trigger_from_form,
    wait_run,
    warehouse_rows,
)
from helpers.web import ARTIFACTS, BROWSER_WAIT_MS, chromium_page

pytestmark = pytest.mark.integration
# The original campaign: two repetitions in a seeded random order that runs repetition 2 first
# (seed 1; pipeline.run_order), so following the plan differs from following repetition numbers.
ORIGINAL = {**ONE_CELL, "repetitions": 2, "order": "randomised", "order_seed": 1}
# ... and adaptive repetitions (pipeline.adaptive): a 95 % CI within 0.1 % of the mean is out of reach
# of two (or three) WordCount repetitions, so one adaptive round adds repetition 3, the maximum.
ORIGINAL = {**ORIGINAL, "target_ci_pct": 0.1, "max_repetitions": 3}
HISTORY = 20  # weekly campaigns imported before the original: its regression's baseline
FAST_S = 0.5  # their WordCount's duration: faster than any JVM could run it


@pytest.fixture(scope="module")
def api(stack: dict[str, Any]) -> Api:
    """A logged-in client; the study unpaused, with the original run at its latest schedule date queued."""
    client, dag = logged_in(stack)
    assert dag["is_paused"] is True and dag["timetable_summary"], dag
    stack["original"] = hold_latest_date(client, dag, ORIGINAL)  # the "original" campaign of this test
    return client


def test_the_api_needs_a_login(stack: dict[str, Any]) -> None:
    assert Api(stack["base"]).call("GET", "/api/v2/dags")[0] == 401
    assert Api(stack["base"]).call("POST", "/auth/token", {"username": "admin", "password": "nope"})[0] == 401


def test_a_bad_param_is_refused_with_the_schema_message_and_no_run(api: Api) -> None:
    before = len(dag_runs(api))
    for conf, message in (
        ({"ladder": "huge"}, "'huge' is not one of ['tiny', 'small', 'paper']"),
        ({"repetitions": 0}, "0 is less than or equal to the minimum of 0"),
        ({"repetitions": 51}, "51 is greater than or equal to the maximum of 51"),
        ({"environment": "mars"}, "'mars' is not one of"),
        ({"campaign": ".."}, "does not match"),
    ):
        status, answer = api.call("POST", f"/api/v2/dags/{DAG}/dagRuns", {"logical_date": None, "conf": conf})
        assert status == 400 and message in str(answer), answer
    assert len(dag_runs(api)) == before


def test_a_campaign_runs_under_the_scheduler_into_the_warehouse(stack: dict[str, Any], api: Api) -> None:
    run = stack["original"]
    state = wait_run(api, run["dag_run_id"])
    states = task_states(api, run["dag_run_id"])
    assert state == "success", (states, failed_task_logs(api, run["dag_run_id"]))
    assert {"plan", "report", "publish"} <= set(states) and states["report"] == "success"
    # the change_points mart was read after dbt_build: one campaign of history, no regression event
    assert states["alert_regressions"] == "success", states
    scheduled = [r for r in dag_runs(api) if r["run_type"] == "scheduled"]
    assert scheduled == [], "unpausing started a scheduled campaign at the run's date"
    # The targets this run did not use: every step skipped, and only `units_<env>` (which skips
    # itself) ever started a process; the scheduler skipped the rest of each group.
    others = [
        ti for ti in task_instances(api, run["dag_run_id"])
        if ti["task_id"].endswith(("_local_lab_yarn", "_lab_cluster", "_dse_cluster"))
        or ti["task_id"].split(".")[0].endswith(("_local_lab_yarn", "_lab_cluster", "_dse_cluster"))
    ]  # fmt: skip
    assert others and {ti["state"] for ti in others} == {"skipped"}, others
    started = sorted(ti["task_id"] for ti in others if ti.get("pid") or ti.get("hostname"))  # ran by a worker
    assert started == ["units_dse_cluster", "units_lab_cluster", "units_local_lab_yarn"], started
    campaign = campaign_id(run["dag_run_id"])
    stack["campaign"] = campaign
    tables = report.read_tables(Path(stack["env"]["BENCHCAMP_WAREHOUSE"]), DAG, campaign)
    (row,) = tables["scaling"]
    assert (row["workload"], row["data_size_gb"], row["n"], row["n_failed"]) == ("wordcount", 0.012, 3, 0)
    assert row["mean_s"] > 0
    raw = archive.campaign_dir(DAG, campaign, Path(stack["env"]["BENCHCAMP_RESULTS"]))
    assert (raw / "wordcount_data_size_gb=0.012_maps=4_reduces=2" / "rep1" / "records.jsonl").exists()
    _the_scheduler_followed_the_run_order(stack, api, run["dag_run_id"], campaign, raw)
    _an_adaptive_round_added_a_repetition(stack, api, run["dag_run_id"], campaign, raw)


def _an_adaptive_round_added_a_repetition(
    stack: dict[str, Any], api: Api, run_id: str, campaign: str, raw: Path
) -> None:
    """Two repetitions could not bring the 95 % CI of the cell's mean within 0.1 %: adapt_local_lab_1
    added repetition 3 (archived in its round file), the mapped adaptive_local_lab_1 group ran it,
    adapt_local_lab_2 found the cell at max_repetitions (its group skipped). The stop was loaded into
    raw.adaptive_stops with the interval of the three loaded durations, validation expected the
    three, and the report states the achieved interval from the repetition_adequacy mart."""
    from scipy import stats

    states = task_states(api, run_id)
    assert (states["adapt_local_lab_1"], states["adaptive_local_lab_1.execute"]) == ("success", "success"), (
        states
    )
    assert (states["adapt_local_lab_2"], states["adaptive_local_lab_2.execute"]) == ("success", "skipped"), (
        states
    )
    round1 = json.loads((raw / "adaptive" / "local_lab" / "round1.json").read_text())
    assert [(unit["repetition"], unit["position"]) for unit in round1["added_units"]] == [(3, 3)]
    (decision,) = round1["decisions"]
    assert decision["more"] and decision["repetitions"] == 2 and decision["half_width_pct"] > 0.1
    durations = [
        value
        for (value,) in warehouse_rows(
            stack,
            "select value from raw.results where metric = 'duration_s' and status = 'ok' "
            f"and campaign = '{campaign}' order by repetition",
        )
    ]
    assert len(durations) == 3
    mean, sigma = sum(durations) / 3, float(stats.tstd(durations))
    achieved = float(stats.t.ppf(0.975, 2)) * sigma / 3**0.5 / mean * 100
    (stop,) = warehouse_rows(
        stack,
        "select reason, repetitions, ok_n, failed_n, target_ci_pct, max_repetitions, decided_round, "
        f"half_width_pct from raw.adaptive_stops where campaign = '{campaign}'",
    )
    assert stop[:7] == ("max_repetitions", 3, 3, 0, 0.1, 3, 2) and abs(stop[7] - achieved) < 1e-9, stop
    assert (
        warehouse_rows(
            stack,
            "select expectation from raw.validation_failures where expectation in "
            f"('repetitions_complete', 'record_count') and campaign = '{campaign}'",
        )
        == []
    )
    (row,) = report.read_tables(Path(stack["env"]["BENCHCAMP_WAREHOUSE"]), DAG, campaign)[
        "repetition_adequacy"
    ]
    assert (row["n"], row["n_failed"], row["stop_reason"], row["target_reached"]) == (
        3,
        0,
        "max_repetitions",
        False,
    )
    text = report.render(
        report.read_tables(Path(stack["env"]["BENCHCAMP_WAREHOUSE"]), DAG, campaign), "table", DAG
    )
    assert "max_repetitions reached at n = 3" in text and f"{achieved:.2f}" in text, text
    print(text[text.index("Repetitions: achieved") :].split("\n\n")[0])


def _the_scheduler_followed_the_run_order(
    stack: dict[str, Any], api: Api, run_id: str, campaign: str, raw: Path
) -> None:
    """The plan put repetition 2 first; each repetition archived its planned position, the load
    copied them into raw.run_order, and the scheduler ran the executes in that order (map index
    order under the target's one-slot pool), as the records' start times and Airflow's own task
    start times both say; the run_order_drift mart says the plan was followed."""
    cell = raw / "wordcount_data_size_gb=0.012_maps=4_reduces=2"
    archived = {rep: json.loads((cell / f"rep{rep}" / "run_order.json").read_text()) for rep in (1, 2)}
    assert {rep: (row["planned_position"], row["order"], row["seed"]) for rep, row in archived.items()} == {
        1: (2, "randomised", 1),
        2: (1, "randomised", 1),
    }
    planned = warehouse_rows(
        stack,
        'select repetition, planned_position, "order", seed from raw.run_order '
        f"where campaign = '{campaign}' order by planned_position",
    )
    # repetition 3, added by the adaptive round, runs after everything planned
    assert planned == [(2, 1, "randomised", 1), (1, 2, "randomised", 1), (3, 3, "randomised", 1)]
    started = warehouse_rows(
        stack,
        "select repetition from raw.results where metric = 'duration_s' "
        f"and campaign = '{campaign}' order by started_at",
    )
    assert [rep for (rep,) in started] == [2, 1, 3]
    path = f"/api/v2/dags/{DAG}/dagRuns/{urllib.parse.quote(run_id)}/taskInstances?limit=500"
    status, answer = api.call("GET", path)
    assert status == 200, answer
    executes = sorted(
        (ti for ti in answer["task_instances"] if ti["task_id"] == "repetitions_local_lab.execute"),
        key=lambda ti: ti["start_date"],
    )
    assert [ti["map_index"] for ti in executes] == [0, 1], executes  # map index 0 is repetition 2
    (drift,) = warehouse_rows(
        stack,
        f"select run_order, seed, followed_plan from main.run_order_drift where campaign = '{campaign}'",
    )
    assert drift == ("randomised", 1, True)


def test_a_backfill_rebuilds_the_latest_date_beside_the_original(stack: dict[str, Any], api: Api) -> None:
    original = stack["original"]
    assert wait_run(api, original["dag_run_id"]) == "success", failed_task_logs(api, original["dag_run_id"])
    before = warehouse_rows(
        stack, f"select cell_key, value from raw.results where campaign = '{stack['campaign']}' order by all"
    )
    latest = datetime.fromisoformat(original["logical_date"])
    previous = latest - timedelta(days=7)  # hibench_dse is weekly
    # The README's CLI invocation, as a dry run: it lists the two dates and creates nothing.
    cli = subprocess.run(
        [
            "bash",
            "-c",
            f'eval "$({BIN}/benchcamp airflow-env)" && {BIN}/airflow backfill create --dag-id {DAG} '
            f"--from-date {previous.isoformat()} --to-date {latest.isoformat()} "
            "--reprocess-behavior completed --max-active-runs 1 --dry-run",
        ],
        env=stack["env"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr[-3000:]
    attempted = cli.stdout.split("Runs to be attempted:", 1)[-1]
    for date in (previous, latest):
        assert date.strftime("%Y-%m-%d 01:00:00") in attempted, cli.stdout[-3000:]
    assert [r for r in dag_runs(api) if r["run_type"] == "backfill"] == []
    history = _import_a_faster_history(stack, latest)
    runs = create_backfill(
        api,
        {
            "from_date": latest.isoformat(),
            "to_date": latest.isoformat(),
            "dag_run_conf": ONE_CELL,
            "reprocess_behavior": "completed",
        },
    )
    (run,) = runs
    assert datetime.fromisoformat(run["logical_date"]) == latest and run["state"] == "success", runs
    # The original run was re-processed (Airflow keeps its id; a new date's run is the UI
    # backfill's, below).
    assert run["dag_run_id"] == original["dag_run_id"]
    # The backfilled date is a campaign of its own, named by its logical date and saying that its
    # run was re-processed (cleared once); the original's rows are exactly what they were.
    campaigns = dict(
        warehouse_rows(stack, f"select campaign, logical_date from main.campaigns where study = '{DAG}'")
    )
    assert campaigns[campaign_id(f"backfill__{latest.isoformat()}__rerun1")] == latest, campaigns
    assert stack["campaign"] in campaigns
    after = warehouse_rows(
        stack, f"select cell_key, value from raw.results where campaign = '{stack['campaign']}' order by all"
    )
    assert after == before
    measured = [
        row
        for row in warehouse_rows(
            stack, f"select campaign, n from main.campaign_history where study = '{DAG}' order by campaign"
        )
        if row[0] not in history
    ]
    # the original campaign ran two repetitions (in a randomised order) and an adaptive third, the
    # backfill one
    assert len(measured) == 2 and all(n == (3 if name == stack["campaign"] else 1) for name, n in measured), (
        measured
    )
    # Same machine, same hardware: no change event.
    assert warehouse_rows(stack, "select * from raw.hardware_changes") == []
    _the_regression_was_announced_once(stack, api, history, run["dag_run_id"])


def _import_a_faster_history(stack: dict[str, Any], latest: datetime) -> list[str]:
    """`benchcamp import` of a recorded history into the stack's warehouse (the stack idle): the
    original campaign's repetitions as HISTORY weekly campaigns a year before it, each lasting
    FAST_S (its throughput as fast; seeded noise of 1 %: a steady past) with the original's host
    facts. No WordCount JVM finishes that fast, so however the shared machine slows the original
    and the backfill's campaigns, they are a regression no campaign announced yet; the long steady
    history keeps the step significant at Otava's default p 0.001 when the two after it differ by
    ten times (as they may beside the other stream)."""
    import random

    from benchcamp.core.records import EnvironmentSnapshot
    from benchcamp.pipeline import warehouse as wh

    warehouse = Path(stack["env"]["BENCHCAMP_WAREHOUSE"])
    records = warehouse_rows(
        stack,
        "select environment, workload, params, repetition, metric, value, unit from raw.results "
        f"where campaign = '{stack['campaign']}' and status = 'ok' and metric in "
        "('duration_s', 'throughput_mb_s')",
    )
    hosts = warehouse_rows(
        stack,
        f"select environment, host, fingerprint, facts from raw.environments where campaign = '{stack['campaign']}'",
    )
    assert records and hosts, (records, hosts)
    values: dict[tuple[str, str], list[float]] = {}
    for environment, _, _, _, metric, value, _ in records:
        values.setdefault((environment, metric), []).append(value)
    rng = random.Random(28)
    names, lines = [], []
    for week in range(HISTORY):
        name = f"history_{week + 1:02d}"
        names.append(name)
        at = latest - timedelta(days=365 - 7 * week)
        for environment, host, fingerprint, facts in hosts:
            wh.load_environment(
                warehouse,
                EnvironmentSnapshot(
                    study=DAG, campaign=name, environment=environment, host=host,
                    fingerprint=fingerprint, captured_at=at,
                    facts=json.loads(facts) if isinstance(facts, str) else dict(facts),
                ),
            )  # fmt: skip
        for environment, workload, params, repetition, metric, value, unit in records:
            duration = sum(values[environment, "duration_s"]) / len(values[environment, "duration_s"])
            mean = sum(values[environment, metric]) / len(values[environment, metric])
            factor = FAST_S / duration if metric == "duration_s" else duration / FAST_S
            value = mean * factor * rng.uniform(0.99, 1.01)
            started = at + timedelta(minutes=repetition)
            lines.append(
                {
                    "study": DAG, "campaign": name, "environment": environment, "workload": workload,
                    "params": json.loads(params) if isinstance(params, str) else params,
                    "repetition": repetition, "metric": metric, "value": value, "unit": unit,
                    "status": "ok", "started_at": started.isoformat(),
                    "finished_at": (started + timedelta(seconds=10)).isoformat(),
                }
            )  # fmt: skip
    source = stack["tmp"] / "history.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    imported = subprocess.run(
        [str(BIN / "benchcamp"), "import", str(source)],
        env=stack["env"], capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stdout[-3000:] + imported.stderr[-3000:]
    return names


def _the_regression_was_announced_once(
    stack: dict[str, Any], api: Api, history: list[str], first_run_id: str
) -> None:
    """The backfill campaign's build found the original twice as slow as its history: its
    alert_regressions emitted one event per regressed metric on the study's regression asset and
    called the notifier once."""
    calls_file = stack["tmp"] / "notifier_calls.jsonl"
    assert calls_file.exists(), "the notifier was never called"
    calls = [json.loads(line) for line in calls_file.read_text().splitlines()]
    assert [call["run_id"] for call in calls] == [first_run_id], calls
    regressions = calls[0]["regressions"]
    assert {r["metric"] for r in regressions} >= {"duration_s"}, regressions
    for regression in regressions:
        assert (regression["cell_key"], regression["environment"]) == (CELL, "local_lab"), regression
        either_side = (regression["campaign_before"], regression["campaign_after"])
        assert either_side == (history[-1], stack["campaign"]), regression
        assert abs(regression["change_pct"]) > 50, regression
    uri = urllib.parse.quote(f"benchcamp://regressions/{DAG}/local_lab", safe="")
    # An asset first named through an alias is created inactive with its event; Airflow lists it
    # as active once the scheduler's periodic asset check runs ([scheduler]
    # parsing_cleanup_interval, 60 s by default).
    status, answer = api.call("GET", f"/api/v2/assets?uri_pattern={uri}&only_active=false")
    assert status == 200 and len(answer["assets"]) == 1, answer
    status, events = api.call("GET", f"/api/v2/assets/events?asset_id={answer['assets'][0]['id']}&limit=50")
    assert status == 200, events
    extras = [event["extra"] for event in events["asset_events"]]
    assert sorted(e["metric"] for e in extras) == sorted(r["metric"] for r in regressions), extras
    assert {e["found_by_campaign"] for e in extras} == {regressions[0]["found_by_campaign"]}, extras


def test_the_results_page_is_served_by_airflow_behind_its_login(stack: dict[str, Any], api: Api) -> None:
    anonymous = Api(stack["base"])
    assert anonymous.call("GET", "/benchcamp/hibench_dse")[0] == 401
    request = urllib.request.Request(
        f"{stack['base']}/benchcamp/hibench_dse?campaign={urllib.parse.quote(stack['campaign'])}"
    )
    request.add_header("Authorization", f"Bearer {api.token}")
    with urllib.request.urlopen(request, timeout=60) as answer:
        page = answer.read().decode()
    assert (
        f"Campaign <b>{stack['campaign']}</b>" in page
        and "wordcount on local_lab (maps=4, reduces=2)" in page
    )
    status, plugins = api.call("GET", "/api/v2/plugins")
    assert status == 200, plugins
    views = [view for plugin in plugins["plugins"] for view in plugin["external_views"]]
    assert any(view["href"] == "/benchcamp/" and view["category"] == "browse" for view in views), views


# -- the browser: Debian's Chromium driven by Playwright ------------------------------------------


def test_a_user_logs_in_and_reads_the_results_page_in_a_browser(stack: dict[str, Any], api: Api) -> None:
    """Log in through Airflow's own form, open the results page, check its numbers and figures.

    Screenshots land in test-artifacts/browser/ (the README's picture comes from there).
    """
    tables = report.read_tables(Path(stack["env"]["BENCHCAMP_WAREHOUSE"]), DAG, stack["campaign"])
    (row,) = tables["scaling"]
    base = stack["base"]
    with chromium_page() as page:
        # no session yet: the page sends the browser to Airflow's sign-in, and back after it
        page.goto(f"{base}/benchcamp/{DAG}")
        assert "/auth/login" in page.url and "next=" in page.url, page.url
        sign_in(page, stack)
        page.wait_for_url(lambda url: f"/benchcamp/{DAG}" in url, timeout=BROWSER_WAIT_MS)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(ARTIFACTS / "01-results-page-after-sign-in.png"))

        answer = page.goto(f"{base}/benchcamp/{DAG}?campaign={urllib.parse.quote(stack['campaign'])}")
        assert answer is not None and answer.status == 200
        page.screenshot(path=str(ARTIFACTS / "02-results-page.png"), full_page=True)
        text = page.locator("body").inner_text()
        assert f"Campaign {stack['campaign']}" in text
        cells = page.locator("table").first.locator("tbody tr").first.locator("td").all_inner_texts()
        assert cells[0] == "0.012" and f"{row['mean_s']:.2f}" in cells, cells
        downloads = page.locator("a[href*='/figures/'][href*='.svg?']")
        assert downloads.count() >= 3, "a figure per kind: time vs size, throughput, time series"
        figures = page.locator("svg")
        assert figures.count() >= downloads.count()
        for index in range(figures.count()):
            figure = figures.nth(index)
            box = figure.bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 50, (index, box)
            assert figure.locator("path, rect, circle, line, text").count() > 0, index

        svg_link = downloads.first.get_attribute("href")
        assert svg_link
        answer = page.goto(
            f"{base}/benchcamp/{svg_link}" if not svg_link.startswith("/") else base + svg_link
        )
        assert answer is not None and answer.status == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")

        # Airflow's UI keeps polling while campaigns run, so "network idle" may never come: wait
        # for the view itself, which Airflow shows in a frame of its page, listing every study
        page.goto(f"{base}/")
        page.get_by_role("button", name="Browse").click()
        page.get_by_role("menuitem", name="Benchmark results").click()
        page.wait_for_url(lambda url: "/plugin/benchcamp_results" in url, timeout=BROWSER_WAIT_MS)
        view = page.frame_locator("iframe")
        view.get_by_role("heading", name="Benchmark results").wait_for(timeout=BROWSER_WAIT_MS)
        for study in study_names():
            view.locator(f"a[href='{study}']").wait_for(timeout=BROWSER_WAIT_MS)
        page.screenshot(path=str(ARTIFACTS / "03-browse-benchmark-results.png"))


def test_a_user_triggers_the_study_from_its_form_with_the_defaults(stack: dict[str, Any], api: Api) -> None:
    """The form opens, refuses 99 repetitions without a run, and starts a tiny run with the conf it
    shows, which plans; then it is stopped (the scheduler campaign above ran a whole one)."""
    wanted = {"workloads": ["wordcount"], "cells": [CELL], "environment": None}
    run = trigger_from_form(stack, api, DAG, wanted)
    planned = planned_then_stopped(api, run["dag_run_id"], DAG)
    assert planned["plan"] == "success", planned
