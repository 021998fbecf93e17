"""Hardware changes and backfills through the real marts: a target upgraded between two weekly
campaigns, then a backfill of the first week on the new hardware (load → detection → dbt build).

The upgrade is detected once, at the first campaign on the new hardware; the time series keeps
one row per campaign (nothing averaged across the change); the backfill lands beside the
campaign it re-did, keyed by the same logical date, and is not an event itself.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import duckdb
import pytest
from benchcamp.core.records import EnvironmentSnapshot, ResultRecord
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.campaign.conf import resolve_campaign
from benchcamp.pipeline.hardware_changes import HardwareChange, detect_hardware_changes
from benchcamp.pipeline.transform import build_marts

STUDY = "hibench_dse"
WEEK1 = datetime(2026, 11, 7, 1, 0, tzinfo=UTC)
SETTINGS = {  # campaign.run_settings of a randomised, adaptive campaign with a note
    "ladder": "tiny", "repetitions": 1, "warmups": None, "workloads": ["wordcount", "dfsio_write"],
    "cells": [], "order": "randomised", "order_seed": 7, "target_ci_pct": 5.0, "max_repetitions": 4,
    "note": "new disks",
}  # fmt: skip
WEEK2 = WEEK1 + timedelta(days=7)
BACKFILL_AT = WEEK2 + timedelta(days=1)


def load_campaign(
    target: Path,
    campaign: str,
    ran_at: datetime,
    cores: int,
    seconds: tuple[float, ...],
    run: tuple[str, str, datetime],
) -> list[HardwareChange]:
    """What the DAG's load task writes for one campaign: records, the host's facts, the run, detection."""
    records = [
        ResultRecord(
            study=STUDY,
            campaign=campaign,
            environment="dse_cluster",
            workload="wordcount",
            params={"data_size_gb": 1, "maps": 4, "reduces": 2},
            repetition=rep,
            metric="duration_s",
            value=value,
            unit="s",
            status="ok",
            started_at=ran_at + timedelta(minutes=rep),
            finished_at=ran_at + timedelta(minutes=rep, seconds=value),
        )
        for rep, value in enumerate(seconds, start=1)
    ]
    wh.load_records(target, records)
    wh.load_environment(
        target,
        EnvironmentSnapshot(
            study=STUDY,
            campaign=campaign,
            environment="dse_cluster",
            host="node1",
            fingerprint=f"cores{cores}",
            facts={"cpu_model": "Xeon", "cpu_cores": cores, "mem_total_gib": 64, "disks": "sda:1"},
            captured_at=ran_at,
        ),
    )
    wh.record_campaign_run(target, STUDY, campaign, *run)
    return detect_hardware_changes(target, STUDY, campaign)


@pytest.fixture(scope="module")
def marts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    target = tmp_path_factory.mktemp("hardware") / "benchcamp.duckdb"
    week1 = resolve_campaign({}, "scheduled__2026-11-07T01:00:00+00:00", "scheduled", WEEK1)
    week2 = resolve_campaign({}, "scheduled__2026-11-14T01:00:00+00:00", "scheduled", WEEK2)
    # A backfill re-processing week 1 keeps the original run's id (Airflow clears and re-queues it).
    backfill = resolve_campaign({}, "scheduled__2026-11-07T01:00:00+00:00", "backfill", WEEK1)
    events = {
        week1: load_campaign(
            target, week1, WEEK1, 8, (100.0, 102.0, 104.0), (week1, "scheduled", WEEK1, json.dumps(SETTINGS))
        ),
        week2: load_campaign(target, week2, WEEK2, 16, (60.0, 61.0, 62.0), (week2, "scheduled", WEEK2)),
        backfill: load_campaign(
            target,
            backfill,
            BACKFILL_AT,
            16,
            (59.0, 60.0, 61.0),
            ("scheduled__2026-11-07T01:00:00+00:00", "backfill", WEEK1),
        ),
    }
    build_marts(target, unit_tests=False)  # dbt's unit tests: test_marts_golden's scenario
    from benchcamp.presentation import report

    reports = {
        name: report.render(report.read_tables(target, STUDY, name), "table", STUDY)
        for name in (week1, week2)
    }
    with duckdb.connect(str(target), read_only=True) as con:

        def select(sql: str) -> list[dict[str, Any]]:
            cursor = con.execute(sql)
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

        return {
            "warehouse": target,
            "names": (week1, week2, backfill),
            "reports": reports,
            "events": events,
            "history": select("select * from main.campaign_history order by first_started_at"),
            "changes": select("select * from main.hardware_changes"),
            "campaigns": select("select * from main.campaigns order by campaign"),
        }


def test_a_backfill_is_named_by_its_logical_date_not_by_the_run_it_re_did(marts: dict[str, Any]) -> None:
    week1, week2, backfill = marts["names"]
    assert week1 == "scheduled__2026-11-07T01_00_00+00_00"
    assert backfill == "backfill__2026-11-07T01_00_00+00_00" != week1
    assert resolve_campaign({"campaign": "mine"}, "x", "backfill", WEEK1) == "mine"  # a name given wins


def test_a_second_backfill_of_a_date_is_a_campaign_of_its_own() -> None:
    """Airflow re-processes a date by clearing its run (same id, `clear_number` + 1): the second
    backfill of a date must not resume the first's campaign (it would keep its repetitions)."""
    run_id = "backfill__2026-11-07T01:00:00+00:00"
    first = resolve_campaign({}, run_id, "backfill", WEEK1, reruns=0)
    again = resolve_campaign({}, run_id, "backfill", WEEK1, reruns=1)
    assert first == "backfill__2026-11-07T01_00_00+00_00"
    assert again == "backfill__2026-11-07T01_00_00+00_00__rerun1"
    # a cleared manual run is the same campaign (resumed, README "Exit codes and faults")
    assert resolve_campaign({}, "manual__x", "manual", WEEK1, reruns=2) == "manual__x"


def test_the_tasks_after_plan_keep_the_name_plan_fixed_when_one_task_is_cleared() -> None:
    from types import SimpleNamespace

    from benchcamp.airflow.dag_factory import PLANNED_CAMPAIGN, _campaign

    pushed: dict[tuple[str, str], str] = {}

    def context(task_id: str, clear_number: int) -> dict[str, Any]:
        ti = SimpleNamespace(
            task_id=task_id,
            xcom_pull=lambda task_ids, key: pushed.get((task_ids, key)),
        )
        run = SimpleNamespace(run_type="backfill", logical_date=WEEK1, clear_number=clear_number)
        return {"ti": ti, "dag_run": run, "params": {}, "run_id": "backfill__2026-11-07T01:00:00+00:00"}

    planned = _campaign(context("plan", 1))  # a backfill re-processing the date: cleared once
    assert planned == "backfill__2026-11-07T01_00_00+00_00__rerun1"
    pushed[("plan", PLANNED_CAMPAIGN)] = planned
    # later, a user clears only `report` (clear_number 2): it still reports the plan's campaign
    assert _campaign(context("report", 2)) == planned
    # without the plan's XCom (plan itself failed), the name is computed the same way
    pushed.clear()
    assert _campaign(context("validate", 1)) == planned


def test_each_campaign_says_what_it_ran_with_on_the_page(marts: dict[str, Any]) -> None:
    """The settings the DAG's load recorded (the conf with the DAG's defaults filled in) reach the
    campaigns mart and the page; an imported campaign (none recorded) shows no such line."""
    from benchcamp.presentation import report
    from helpers.results_page import results_client
    from markupsafe import escape

    week1, week2, _ = marts["names"]
    by_name = {row["campaign"]: row for row in marts["campaigns"]}
    assert json.loads(by_name[week1]["settings"]) == SETTINGS and by_name[week2]["settings"] is None
    line = report.settings_line(by_name[week1]["settings"])
    assert line == (
        "ladder tiny · 1 repetition per cell · the spec's warm-ups · workloads wordcount, dfsio_write · "
        "cells all · order randomised (seed 7) · adaptive: more repetitions until the 95 % CI is within "
        "5.0 % of the mean, at most 4 · note: new disks"
    )
    client = results_client(marts["warehouse"], signed_in=True)
    assert f"Ran with: {escape(line)}" in client.get(f"/{STUDY}?campaign={quote(week1)}").text
    assert "Ran with:" not in client.get(f"/{STUDY}?campaign={quote(week2)}").text


def test_the_upgrade_is_one_event_at_the_first_campaign_on_new_hardware(marts: dict[str, Any]) -> None:
    week1, week2, backfill = marts["names"]
    assert [len(marts["events"][name]) for name in (week1, week2, backfill)] == [0, 1, 0]
    (change,) = marts["changes"]
    assert (change["campaign"], change["previous_campaign"]) == (week2, week1)
    assert (change["previous_fingerprint"], change["fingerprint"]) == ("node1=cores8", "node1=cores16")
    assert '"cpu_cores": [8, 16]' in change["changed_facts"]
    # the marker sits before the first point measured on the new hardware
    first_on_new = min(row["first_started_at"] for row in marts["history"] if row["campaign"] == week2)
    assert change["marker_at"] == first_on_new


def test_the_time_series_keeps_every_campaign_apart(marts: dict[str, Any]) -> None:
    week1, week2, backfill = marts["names"]
    rows = {row["campaign"]: row for row in marts["history"]}
    assert set(rows) == {week1, week2, backfill}
    assert rows[week1]["mean_s"] == pytest.approx(102.0) and rows[week1]["fingerprint"] == "cores8"
    assert rows[week2]["mean_s"] == pytest.approx(61.0) and rows[week2]["fingerprint"] == "cores16"
    assert rows[backfill]["mean_s"] == pytest.approx(60.0) and rows[backfill]["n"] == 3


def test_the_backfill_lands_beside_the_original_with_the_same_logical_date(marts: dict[str, Any]) -> None:
    week1, _week2, backfill = marts["names"]
    campaigns = {row["campaign"]: row for row in marts["campaigns"]}
    assert (campaigns[week1]["run_type"], campaigns[backfill]["run_type"]) == ("scheduled", "backfill")
    assert campaigns[week1]["logical_date"] == campaigns[backfill]["logical_date"] == WEEK1
    assert campaigns[week1]["records"] == campaigns[backfill]["records"] == 3


def test_the_report_of_the_first_campaign_on_new_hardware_says_so(marts: dict[str, Any]) -> None:
    week1, week2, _backfill = marts["names"]
    assert (
        "Hardware change on dse_cluster: this campaign is the first on node1=cores16"
        in marts["reports"][week2]
    )
    assert f"campaign {week1}" in marts["reports"][week2] and "cpu_cores" in marts["reports"][week2]
    assert "Hardware change" not in marts["reports"][week1]
