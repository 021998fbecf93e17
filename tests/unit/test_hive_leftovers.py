"""The record of what a cleanup could not drop in HiveServer2 (`pipeline.hive_leftovers`): only a
product's drops are recorded, it is written whole, read back as written, and a corrupt one is
refused naming the file and the fix. The lab round trip is in tests/integration/test_leftovers.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from benchcamp.pipeline import hive_leftovers
from benchcamp.pipeline.campaign.plan import context_for
from benchcamp.platforms.hive import HiveStatement
from benchcamp.workloads import get_workload

STUDY, ENVIRONMENT = "bigbench_containers", "local_lab"
AT = datetime(2026, 12, 7, 23, 50, tzinfo=UTC)


@pytest.fixture(autouse=True)
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    return tmp_path / "results"


def _product_drops() -> list[HiveStatement]:
    """The drops BigBench's and HiveBench's cleanups really run, for one repetition each."""
    bigbench = context_for(
        {"study": STUDY, "campaign": "c1", "environment": ENVIRONMENT, "workload": "bigbench_load",
         "params": {"cluster_nodes": 1, "scale_factor_gb": 0.01}, "repetition": 1, "ladder": "tiny"}
    )  # fmt: skip
    hivebench = context_for(
        {"study": "hibench_dse", "campaign": "c1", "environment": ENVIRONMENT, "workload": "hive_aggregation",
         "params": {"data_size_gb": 0.012}, "repetition": 1, "ladder": "tiny"}
    )  # fmt: skip
    return [
        *get_workload("bigbench_load").hive_clean(bigbench),
        *get_workload("hive_aggregation").hive_clean(hivebench),
    ]


def _entry(
    campaign: str, drops: list[hive_leftovers.LeftDrop], at: datetime = AT
) -> hive_leftovers.LeftCampaign:
    return hive_leftovers.LeftCampaign(
        campaign=campaign, at=at, why="TargetUnreachable: HiveServer2 127.0.0.1:9", hive_connection="lab_hive",
        cleanup_archive=f"/results/{STUDY}/{campaign}/cleanup/local_lab/try1/hive", drops=drops,
    )  # fmt: skip


def test_every_drop_a_workload_cleans_with_is_recorded_and_rebuilt_from_its_name() -> None:
    statements = _product_drops()
    drops = [hive_leftovers.drop_of(statement) for statement in statements]
    assert all(drops), statements
    kinds = [(drop.kind, drop.cascade) for drop in drops if drop]
    assert kinds == [("database", True), ("database", True), ("table", False), ("table", False)]
    database = drops[0]
    assert database is not None and database.name.startswith("bb_") and len(database.name) == 15
    assert drops[1] is not None and drops[1].name == f"{database.name}_text"
    assert [drop.sql for drop in drops if drop] == [statement.sql for statement in statements]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "DROP TABLE bc_0123456789ab_rankings",  # no IF EXISTS: not what a cleanup writes
        "DROP TABLE IF EXISTS bc_x; DROP DATABASE default",
        "DROP TABLE IF EXISTS `bc x`",
        "DROP TABLE IF EXISTS db.bc_x",
        "DROP TABLE IF EXISTS bc_x CASCADE",  # CASCADE is a database's
        "DROP DATABASE IF EXISTS bb_x CASCADE PURGE",
        "drop table if exists bc_x",
    ],
)
def test_a_statement_the_product_does_not_write_is_never_recorded(sql: str) -> None:
    assert hive_leftovers.drop_of(HiveStatement("x", sql)) is None


def test_the_record_is_written_whole_and_read_back_with_each_campaign_once(results: Path) -> None:
    drops = [drop for drop in map(hive_leftovers.drop_of, _product_drops()) if drop]
    path = hive_leftovers.save(STUDY, ENVIRONMENT, _entry("c1", drops[:2]))
    assert path == results / STUDY / ".hive_leftovers" / "local_lab.json"
    assert not path.with_name(path.name + ".tmp").exists()
    hive_leftovers.save(STUDY, ENVIRONMENT, _entry("c2", drops[2:]))
    hive_leftovers.save(STUDY, ENVIRONMENT, _entry("c1", drops[:1]))  # c1's retried cleanup replaces it
    record = hive_leftovers.read_record(path, STUDY, ENVIRONMENT)
    assert record is not None and record.campaigns() == ["c2", "c1"]
    assert record.names() == [drop.name for drop in (*drops[2:], drops[0])]
    assert [statement.sql for statement in hive_leftovers.replay_statements(record)] == [
        drop.sql for drop in (*drops[2:], drops[0])
    ]
    assert json.loads(path.read_text())["left"][1]["drops"][0] == {
        "kind": "database", "name": drops[0].name, "cascade": True, "sql": f"DROP DATABASE IF EXISTS {drops[0].name} CASCADE",
    }  # fmt: skip
    assert hive_leftovers.read_record(path.with_name("other.json"), STUDY, "other") is None


def test_forgetting_what_was_dropped_keeps_what_was_added_since(results: Path) -> None:
    drops = [drop for drop in map(hive_leftovers.drop_of, _product_drops()) if drop]
    path = hive_leftovers.save(STUDY, ENVIRONMENT, _entry("c1", drops[:2]))
    replayed = hive_leftovers.read_record(path, STUDY, ENVIRONMENT)
    hive_leftovers.save(STUDY, ENVIRONMENT, _entry("c2", drops[2:]))  # recorded while c1's ran
    assert hive_leftovers.forget(STUDY, ENVIRONMENT, done=replayed)
    record = hive_leftovers.read_record(path, STUDY, ENVIRONMENT)
    assert record is not None and record.campaigns() == ["c2"]
    assert not hive_leftovers.forget(STUDY, ENVIRONMENT, campaign="c3")
    assert hive_leftovers.forget(STUDY, ENVIRONMENT, campaign="c2")
    assert not path.exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"study": "bigbench_containers", "environment": "local_lab", "left": [', "JSONDecodeError"),
        ("", "JSONDecodeError"),
        ('{"study": "bigbench_containers", "environment": "local_lab"}', "left"),
        ('{"study": "hibench_dse", "environment": "local_lab", "left": []}', "records study 'hibench_dse'"),
    ],
)
def test_a_corrupt_record_is_refused_naming_the_file_and_the_fix(results: Path, text: str, says: str) -> None:
    path = hive_leftovers.record_path(STUDY, ENVIRONMENT)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(hive_leftovers.RecordCorrupt) as refused:
        hive_leftovers.read_record(path, STUDY, ENVIRONMENT)
    assert str(refused.value).startswith(f"{path}: ") and says in str(refused.value)
    assert "drop what it names in HiveServer2 by hand" in str(refused.value)
    with pytest.raises(hive_leftovers.RecordCorrupt):  # nor is it overwritten by the next cleanup
        hive_leftovers.save(STUDY, ENVIRONMENT, _entry("c3", []))
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("drop", "says"),
    [
        ({"kind": "table", "name": "bc_x", "sql": "DROP TABLE IF EXISTS bc_x; DROP DATABASE d CASCADE"}, "is not the drop"),
        ({"kind": "database", "name": "bb_x; SELECT 1", "sql": "DROP DATABASE IF EXISTS bb_x; SELECT 1"}, "not a safe Hive identifier"),
        ({"kind": "table", "name": "bc_x", "cascade": True, "sql": "DROP TABLE IF EXISTS bc_x CASCADE"}, "only a database"),
        ({"kind": "view", "name": "bc_x", "sql": "DROP VIEW IF EXISTS bc_x"}, "kind"),
    ],
)  # fmt: skip
def test_a_record_edited_to_run_other_hiveql_is_refused(
    results: Path, drop: dict[str, object], says: str
) -> None:
    entry = json.loads(_entry("c1", []).model_dump_json())
    entry["drops"] = [drop]
    path = hive_leftovers.record_path(STUDY, ENVIRONMENT)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"study": STUDY, "environment": ENVIRONMENT, "left": [entry]}))
    with pytest.raises(hive_leftovers.RecordCorrupt, match=says):
        hive_leftovers.read_record(path, STUDY, ENVIRONMENT)


def test_a_study_or_environment_name_cannot_move_the_record_out_of_the_results(results: Path) -> None:
    path = hive_leftovers.record_path("../x", "../../etc")  # slugged: no name stays a parent
    assert path == results / "___x" / ".hive_leftovers" / "___.._etc.json"
