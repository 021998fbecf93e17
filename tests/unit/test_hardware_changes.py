"""Hardware changes and backfills through the real marts: a target upgraded between two weekly
campaigns, then a backfill of the first week on the new hardware (load → detection → dbt build).

The upgrade is detected once, at the first campaign on the new hardware; the time series keeps
one row per campaign (nothing averaged across the change); the backfill lands beside the
campaign it re-did, keyed by the same logical date, and is not an event itself.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.records import EnvironmentSnapshot, ResultRecord
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.campaign import resolve_campaign
from benchcamp.pipeline.transform import build_marts

STUDY = "hibench_dse"
WEEK1 = datetime(2026, 11, 7, 1, 0, tzinfo=UTC)
WEEK2 = WEEK1 + timedelta(days=7)
BACKFILL_AT = WEEK2 + timedelta(days=1)


def load_campaign(
    target: Path,
    campaign: str,
    ran_at: datetime,
    cores: int,
    seconds: tuple[float, ...],
    run: tuple[str, str, datetime],
) -> list[wh.HardwareChange]:
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
    return wh.detect_hardware_changes(target, STUDY, campaign)


@pytest.fixture(scope="module")
def marts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    target = tmp_path_factory.mktemp("hardware") / "benchcamp.duckdb"
    week1 = resolve_campaign({}, "scheduled__2026-11-07T01:00:00+00:00", "scheduled", WEEK1)
    week2 = resolve_campaign({}, "scheduled__2026-11-14T01:00:00+00:00", "scheduled", WEEK2)
    # A backfill re-processing week 1 keeps the original run's id (Airflow clears and re-queues it).
    backfill = resolve_campaign({}, "scheduled__2026-11-07T01:00:00+00:00", "backfill", WEEK1)
    events = {
        week1: load_campaign(target, week1, WEEK1, 8, (100.0, 102.0, 104.0), (week1, "scheduled", WEEK1)),
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
    build_marts(target)
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
