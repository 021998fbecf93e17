"""Leftovers on the lab's real HDFS and HiveServer2, through the functions the DAG's tasks call.

A campaign killed mid-way never runs its cleanup; a cleanup whose HiveServer2 is down could not
drop its tables. Here an earlier campaign's leftovers are planted (HDFS files, a staging folder on
the target's disk, an external Hive table over them), then the next campaign's preflight must
remove them and say so, and a cleanup whose HiveServer2 cannot be reached must still delete the
campaign's data and record the drops it could not run (BigBench's databases, which nothing else
finds again), which the next preflight runs, or keeps while HiveServer2 still fails. The study is a
copy of hibench_dse under its own name: the preflight removes whatever its study left on the
target, and a developer's hibench_dse campaign may use the same lab at the same time.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.spec import load_spec
from benchcamp.ops import lab
from benchcamp.pipeline import hive_leftovers
from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
from benchcamp.pipeline.campaign.steps import run_clean, run_execute, run_generate
from benchcamp.pipeline.campaign.target import run_cleanup, run_preflight
from benchcamp.platforms.hive import HiveStatement
from benchcamp.studies.bigbench_containers.workloads.run import database
from benchcamp.transport import hive, ssh
from benchcamp.workloads.base import render
from benchcamp.workloads.hivebench import table_name

pytestmark = pytest.mark.integration
STUDY = "leftovers_it"  # hibench_dse's spec under a name no other test uses
OTHER_STUDY = "leftovers_it_other"
WORDCOUNT = {"data_size_gb": 0.012, "maps": 4, "reduces": 2}
WORDCOUNT_CELL = "wordcount_data_size_gb=0.012_maps=4_reduces=2"
HIVE_CELL = "hive_aggregation_data_size_gb=0.012"
PART = b"leftover line\n" * 1000  # 14000 bytes
TABLE = "bc_0123456789ab_uservisits"  # named as HiveBench names its tables
OTHER_TABLE = "bc_ba9876543210_uservisits"


def _units(name: str) -> list[dict[str, Any]]:
    return [
        {"study": STUDY, "campaign": name, "environment": "local_lab", "workload": workload,
         "params": params, "repetition": 1, "ladder": "tiny"}
        for workload, params in (("wordcount", WORDCOUNT), ("hive_aggregation", {"data_size_gb": 0.012}))
    ]  # fmt: skip


BIGBENCH = {"cluster_nodes": 1, "scale_factor_gb": 0.01}


def _bigbench_unit(name: str) -> dict[str, Any]:
    """A BigBench repetition of campaign `name`: its cleanup drops its two databases."""
    return {"study": STUDY, "campaign": name, "environment": "local_lab", "workload": "bigbench_load",
            "params": BIGBENCH, "repetition": 1, "ladder": "tiny"}  # fmt: skip


def _webhdfs(method: str, path: str, op: str, data: bytes | None = None) -> int:
    """One WebHDFS call to the lab's NameNode (no JVM); its HTTP status. A CREATE is sent on to
    the DataNode the NameNode redirects to, as `curl -L` does."""
    user = getpass.getuser()
    url = f"{lab.target_shell_env()['BENCHCAMP_WEBHDFS_URL']}/webhdfs/v1{urllib.parse.quote(path)}"
    request = urllib.request.Request(f"{url}?op={op}&user.name={user}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        if exc.code != 307 or data is None:
            return exc.code
        redirected = urllib.request.Request(exc.headers["Location"], data=data, method=method)
        with urllib.request.urlopen(redirected, timeout=30) as answer:
            return int(answer.status)


def _put(path: str, data: bytes) -> None:
    assert _webhdfs("PUT", path, "CREATE&overwrite=true", data) == 201


def _exists(path: str) -> bool:
    return _webhdfs("GET", path, "GETFILESTATUS") == 200


def _hive(statements: list[HiveStatement], archive: Path) -> dict[str, Any]:
    step = hive.run_statements(lab.LAB_HIVE_CONNECTION_ID, statements, archive)
    assert step.exit_code == 0, step.text("stderr.log")
    return dict(json.loads(step.text("results.json")))


def _plant(tmp_path: Path, earlier: str) -> dict[str, str]:
    """What a killed campaign `earlier` leaves: its repetitions' HDFS data, a generator's staging
    folder, an external table over its data; and another study's data and table (kept)."""
    root = lab.HDFS_BASE_PATH
    paths = {
        "wordcount": f"{root}/{STUDY}/{earlier}/{WORDCOUNT_CELL}/rep1",
        "hive": f"{root}/{STUDY}/{earlier}/{HIVE_CELL}/rep1",
        "other": f"{root}/{OTHER_STUDY}/{earlier}/{HIVE_CELL}/rep1",
    }
    _put(f"{paths['wordcount']}/output/part-r-00000", PART)  # 1 file; then 2 and 2 (kept)
    for key in ("hive", "other"):
        for table in ("rankings", "uservisits"):
            _put(f"{paths[key]}/{table}/part-00000", PART)
    staging = (
        Path(lab.target_shell_env()["BENCHCAMP_WORK_DIR"]) / STUDY / earlier / HIVE_CELL / "rep1" / "staging"
    )
    staging.mkdir(parents=True, exist_ok=True)
    (staging / "part-00000").write_bytes(PART)
    paths["staging"] = str(staging)
    tables = ((TABLE, paths["hive"]), (OTHER_TABLE, paths["other"]))
    _hive(
        [HiveStatement(f"drop_{name}", f"DROP TABLE IF EXISTS {name}") for name, _ in tables]
        + [
            HiveStatement(
                f"create_{name}",
                f"CREATE EXTERNAL TABLE {name} (line STRING) STORED AS TEXTFILE LOCATION '{location}/uservisits'",
            )
            for name, location in tables
        ],
        tmp_path / "hive_plant",
    )
    return paths


def _tables(tmp_path: Path) -> set[str]:
    rows = _hive([HiveStatement("tables", "SHOW TABLES", fetch=True)], tmp_path / "hive_show")["tables"]
    return {str(row[0]) for row in rows}


@pytest.fixture
def on_lab(
    hibench_copy_on_lab: Callable[[str], None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[None]:
    hibench_copy_on_lab(STUDY)
    yield
    for name, value in lab.airflow_connection_env().items():  # a test may have moved HiveServer2
        monkeypatch.setenv(name, value)
    for study in (STUDY, OTHER_STUDY):
        assert _webhdfs("DELETE", f"{lab.HDFS_BASE_PATH}/{study}", "DELETE&recursive=true") == 200
    _hive(
        [HiveStatement(f"drop_{name}", f"DROP TABLE IF EXISTS {name}") for name in (TABLE, OTHER_TABLE)],
        tmp_path / "hive_drop",
    )


def test_the_next_campaigns_preflight_removes_what_a_killed_one_left_and_says_so(
    on_lab: None, tmp_path: Path
) -> None:
    paths = _plant(tmp_path, "killed")
    facts = run_preflight(_units("next"))
    assert facts["leftover_campaigns"] == "killed"
    # the campaign's folder on HDFS and the staging folder; 3 files on HDFS, 1 on the disk
    assert (facts["leftovers_removed"], facts["leftovers_files"]) == ("2", "4")
    assert facts["leftovers_bytes"] == str(4 * len(PART))
    assert facts["leftover_tables"] == "1"
    assert not _exists(f"{lab.HDFS_BASE_PATH}/{STUDY}") and not Path(paths["staging"]).exists()
    assert _exists(paths["other"]), "another study's data is never touched"
    tables = _tables(tmp_path)
    assert TABLE not in tables and OTHER_TABLE in tables


def test_the_preflight_removes_leftovers_with_hadoop_fs_where_there_is_no_webhdfs(
    on_lab: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = load_spec("hibench_dse").model_copy(update={"study": STUDY})
    environments = [e.replace(webhdfs_url=None) if e.name == "local_lab" else e for e in spec.environments]
    spec = spec.model_copy(update={"environments": environments})
    monkeypatch.setattr("benchcamp.pipeline.campaign.plan.load_spec", lambda study: spec)
    paths = _plant(tmp_path, "failed")
    facts = run_preflight(_units("next")[:1])  # WordCount only: no HiveServer2 asked
    assert facts["leftover_campaigns"] == "failed" and facts["leftovers_removed"] == "2"
    assert facts["leftovers_files"] == "4" and facts["leftovers_bytes"] == str(4 * len(PART))
    assert "leftover_tables" not in facts
    assert not _exists(f"{lab.HDFS_BASE_PATH}/{STUDY}/failed") and _exists(paths["other"])


def test_cleanup_deletes_the_data_when_hiveserver2_cannot_be_reached(
    on_lab: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _plant(tmp_path, "current")
    name = f"AIRFLOW_CONN_{lab.LAB_HIVE_CONNECTION_ID.upper()}"
    unreachable = {**json.loads(os.environ[name]), "port": 9}  # nothing listens on the discard port
    monkeypatch.setenv(name, json.dumps(unreachable))
    with pytest.raises(ssh.StepFailed, match=r"(?s)data is deleted \(verified gone\) but HiveServer2"):
        run_cleanup(_units("current"))
    assert not _exists(f"{lab.HDFS_BASE_PATH}/{STUDY}/current")
    assert not Path(paths["staging"]).exists() and _exists(paths["other"])


def test_hdfs_full_during_generate_fails_the_repetition_with_hdfs_s_reason(
    on_lab: None, tmp_path: Path
) -> None:
    """HDFS full (a space quota on the campaign's folder, below one block): generate fails, the
    repetition is marked failed with HDFS's own message in its reason, and the cleanup leaves
    nothing behind."""
    from benchcamp.pipeline import archive

    unit = _units("full")[0]  # WordCount: its generate writes to HDFS
    run_preflight([unit])
    folder = f"{lab.HDFS_BASE_PATH}/{STUDY}/full"
    assert _webhdfs("PUT", folder, "MKDIRS") == 200
    ctx = context_for(unit)
    quota = ssh.run_step(
        ctx, ctx.environment.transport.connection, "quota", render([*ctx.hadoop, "dfsadmin", "-setSpaceQuota", "1k", folder]) + "\n",
        tmp_path / "quota",
    )  # fmt: skip
    assert quota.exit_code == 0, quota.text("stderr.log")
    run_clean(unit)
    with pytest.raises(
        ssh.TargetRefused, match="step 'generate' exited 1 on .*: the file system is full: .*Quota"
    ):
        run_generate(unit)  # permanent: no retry
    with pytest.raises(ssh.StepFailed, match="the generate step"):
        run_execute(unit)
    rep_dir = rep_dir_for(ctx)
    reason = archive.read_failure(rep_dir)
    assert reason is not None and reason.step in ("generate", "execute"), reason
    assert (
        "quota" in (reason.message + reason.stderr_tail).lower()
        or "DSQuotaExceeded" in (rep_dir / "generate" / "try1" / "stderr.log").read_text()
    ), reason
    assert [record.status for record in archive.load_campaign_records(STUDY, "full")] == ["failed"]
    run_cleanup([unit])
    assert not _exists(folder)


HIVE_CONN_ENV = f"AIRFLOW_CONN_{lab.LAB_HIVE_CONNECTION_ID.upper()}"


def _hive_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lab's Hive connection moved to the discard port (nothing listens), tried once: the
    transport's retries (15 s each) would only wait for a port that stays closed."""
    unreachable = {**json.loads(lab.airflow_connection_env()[HIVE_CONN_ENV]), "port": 9}
    monkeypatch.setenv(HIVE_CONN_ENV, json.dumps(unreachable))
    monkeypatch.setattr(ssh, "CONNECT_ATTEMPTS", 1)


def _hive_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HIVE_CONN_ENV, lab.airflow_connection_env()[HIVE_CONN_ENV])


@pytest.fixture
def left_in_hive(on_lab: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """What campaign `current`'s cleanup must drop and nothing but its own drops finds: the
    BigBench repetition's two databases (one with a table: CASCADE), and a table named as its
    HiveBench repetition names one, over data outside the study's path (the preflight's sweep
    looks only there)."""
    bigbench = database(context_for(_bigbench_unit("current")))
    names = {
        "database": bigbench,
        "text_database": f"{bigbench}_text",
        "table": table_name(context_for(_units("current")[1]), "uservisits"),
    }
    elsewhere = f"{lab.HDFS_BASE_PATH}/{OTHER_STUDY}/elsewhere/uservisits"
    _put(f"{elsewhere}/part-00000", PART)
    drops = [
        HiveStatement("drop_db", f"DROP DATABASE IF EXISTS {bigbench} CASCADE"),
        HiveStatement("drop_text", f"DROP DATABASE IF EXISTS {bigbench}_text CASCADE"),
        HiveStatement("drop_table", f"DROP TABLE IF EXISTS {names['table']}"),
    ]
    _hive(
        [
            *drops,
            HiveStatement("db", f"CREATE DATABASE {bigbench}"),
            HiveStatement("text_db", f"CREATE DATABASE {bigbench}_text"),
            HiveStatement("text_table", f"CREATE TABLE {bigbench}_text.item (line STRING)"),
            HiveStatement(
                "table",
                f"CREATE EXTERNAL TABLE {names['table']} (line STRING) STORED AS TEXTFILE LOCATION '{elsewhere}'",
            ),
        ],
        tmp_path / "hive_plant_left",
    )
    yield names
    _hive_back(monkeypatch)  # before `on_lab`'s own teardown: this one needs HiveServer2 too
    _hive(drops, tmp_path / "hive_drop_left")


def _databases(tmp_path: Path) -> set[str]:
    rows = _hive([HiveStatement("databases", "SHOW DATABASES", fetch=True)], tmp_path / "hive_show_db")
    return {str(row[0]) for row in rows["databases"]}


def _cleanup_without_hiveserver2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Campaign `current`'s cleanup with HiveServer2 unreachable: its data goes, and it fails
    naming the record of the drops it could not run; the record's path."""
    _hive_unreachable(monkeypatch)
    path = hive_leftovers.record_path(STUDY, "local_lab")
    with pytest.raises(ssh.StepFailed) as failed:
        run_cleanup([*_units("current"), _bigbench_unit("current")])
    assert "data is deleted (verified gone) but HiveServer2" in str(failed.value)
    assert f"in {path}: the next campaign of {STUDY} on this target drops them" in str(failed.value)
    assert not _exists(f"{lab.HDFS_BASE_PATH}/{STUDY}/current")
    _hive_back(monkeypatch)
    return path


def test_a_cleanup_without_hiveserver2_records_its_drops_and_the_next_preflight_runs_them(
    left_in_hive: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _cleanup_without_hiveserver2(monkeypatch, tmp_path)
    record = hive_leftovers.read_record(path, STUDY, "local_lab")
    assert record is not None and record.campaigns() == ["current"]
    (entry,) = record.left
    assert (
        entry.why.startswith("cannot reach HiveServer2 127.0.0.1:9 through connection")
        and entry.hive_connection == lab.LAB_HIVE_CONNECTION_ID
    )
    table, bigbench = left_in_hive["table"], left_in_hive["database"]
    output = table_name(context_for(_units("current")[1]), "uservisits_aggre")
    assert [(drop.kind, drop.name) for drop in entry.drops] == [
        ("table", table), ("table", output), ("database", bigbench), ("database", f"{bigbench}_text"),
    ]  # fmt: skip
    assert {bigbench, f"{bigbench}_text"} <= _databases(tmp_path) and table in _tables(tmp_path)

    facts = run_preflight(_units("next"))
    assert facts["hive_leftovers_dropped"] == f"{table},{output},{bigbench},{bigbench}_text"
    assert facts["leftover_campaigns"] == "current" and facts["leftover_tables"] == "0"
    assert not path.exists()
    replayed = Path(facts["archive"]) / "hive_leftovers"
    assert json.loads((replayed / "record.json").read_text())["left"][0]["campaign"] == "current"
    assert json.loads((replayed / "meta.json").read_text())["exit_code"] == 0
    assert not {bigbench, f"{bigbench}_text"} & _databases(tmp_path) and table not in _tables(tmp_path)
    assert _exists(f"{lab.HDFS_BASE_PATH}/{OTHER_STUDY}/elsewhere/uservisits"), (
        "an external table's data stays"
    )


def test_a_preflight_whose_hiveserver2_still_fails_keeps_the_record(
    left_in_hive: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _cleanup_without_hiveserver2(monkeypatch, tmp_path)
    recorded = path.read_text()
    _hive_unreachable(monkeypatch)
    with pytest.raises(
        ssh.TargetUnreachable, match=rf"did not run the 4 drop\(s\).*kept in {re.escape(str(path))}"
    ):
        run_preflight(_units("next"))
    assert path.read_text() == recorded
    _hive_back(monkeypatch)
    assert {left_in_hive["database"], left_in_hive["text_database"]} <= _databases(tmp_path)
