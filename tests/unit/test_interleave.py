"""Fair environment comparisons (docs/fair-comparisons.md): an interleave group's environments in
one campaign in balanced ABBA turns, refused where they cannot take turns; each repetition's
archive apart per environment; the target's load recorded around the timed step (real readings,
tests/data/host_load/) and a comparison flagged when its sides ran under different load."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
from benchcamp.core.records import ResultRecord, cell_key, write_jsonl
from benchcamp.core.spec import SpecError, load_spec, parse_spec
from benchcamp.core.study import study_folders
from benchcamp.pipeline import archive, host_load, run_order
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf
from benchcamp.pipeline.campaign.plan import plan_units
from benchcamp.pipeline.transform import build_marts
from benchcamp.presentation.environment_load_section import environment_load_blocks
from benchcamp.transport import ssh

BIGBENCH = load_spec("bigbench_containers")
RECORDED = Path(__file__).resolve().parents[1] / "data" / "host_load"
CONF: dict[str, Any] = {
    "ladder": "tiny",
    "repetitions": 4,
    "environment": "local_lab",
    "order": "interleaved",
}


def interleaved_plan(**conf: Any) -> dict[str, list[dict[str, Any]]]:
    return plan_units(BIGBENCH, check_conf(BIGBENCH, {**CONF, **conf}), "fair")


def test_an_interleaved_campaign_runs_its_group_in_abba_turns_under_the_target() -> None:
    units = interleaved_plan()
    assert [name for name, planned in units.items() if planned] == ["local_lab"]  # one task group, one pool
    turns = [(unit["environment"], unit["repetition"]) for unit in units["local_lab"]]
    assert turns == [
        ("local_lab", 1), ("lab_container", 1),
        ("lab_container", 2), ("local_lab", 2),
        ("local_lab", 3), ("lab_container", 3),
        ("lab_container", 4), ("local_lab", 4),
    ]  # fmt: skip
    positions = {env: [u["position"] for u in units["local_lab"] if u["environment"] == env] for env in
                 ("local_lab", "lab_container")}  # fmt: skip
    # a drift linear in the position adds the same to both sides: their positions sum alike
    assert positions == {"local_lab": [1, 4, 5, 8], "lab_container": [2, 3, 6, 7]}
    assert sum(positions["local_lab"]) == sum(positions["lab_container"]) == 18
    assert {unit["order"] for unit in units["local_lab"]} == {"interleaved"}
    # named by its other member, the group keeps its own order (A side first)
    other = interleaved_plan(environment="lab_container")["lab_container"]
    assert [u["environment"] for u in other[:2]] == ["local_lab", "lab_container"]


def test_turns_alternate_for_three_and_warmups_come_first() -> None:
    assert [run_order.balanced_turns(["a", "b", "c"], k) for k in (1, 2, 3)] == [
        ["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"],
    ]  # fmt: skip
    units = [
        {"environment": env, "workload": "w", "params": {"x": x}, "repetition": rep}
        for env in ("a", "b") for x in (1, 2) for rep in (0, 1, 2)
    ]  # fmt: skip
    ordered = run_order.ordered(units, "interleaved", 0)
    assert [(u["environment"], u["params"]["x"], u["repetition"]) for u in ordered] == [
        ("a", 1, 0), ("a", 2, 0), ("b", 1, 0), ("b", 2, 0),  # warm-ups first, group order
        ("a", 1, 1), ("a", 2, 1), ("b", 1, 1), ("b", 2, 1),  # a turn holds all of a side's cells
        ("b", 1, 2), ("b", 2, 2), ("a", 1, 2), ("a", 2, 2),
    ]  # fmt: skip


def test_interleaving_is_refused_where_the_environments_cannot_take_turns() -> None:
    with pytest.raises(CampaignConfError) as refused:
        check_conf(
            load_spec("hibench_dse"), {"ladder": "tiny", "order": "interleaved", "environment": "local_lab"}
        )
    assert str(refused.value) == (
        "order interleaved runs the interleave group of the environment, and 'local_lab' is in none "
        "(groups of study 'hibench_dse': none declared); choose an environment of a group or another order"
    )
    adaptive = BIGBENCH.model_copy(update={"max_repetitions": 6})
    with pytest.raises(
        CampaignConfError, match=r"adaptive repetitions \(target_ci_pct\) would add to one side"
    ):
        check_conf(adaptive, {**CONF, "target_ci_pct": 5})
    folders = study_folders()
    graph = (folders["mapreduce_ssd_hdd"] / "spec.yaml").read_text(encoding="utf-8")
    graph += "interleave:\n  - [lab_disk, lab_ram]\n  - [lab_ram, nowhere]\n"
    with pytest.raises(SpecError) as refused:
        parse_spec(graph, "graph.yaml")
    text = str(refused.value)
    assert "interleave[0]: this study reformats its storage (reformat_storage: true)" in text
    assert "interleave[1][0]: environment 'lab_ram' is in interleave group 0 already" in text
    assert "interleave[1][1]: environment 'nowhere' is not in 'environments'" in text
    bigbench = (folders["bigbench_containers"] / "spec.yaml").read_text(encoding="utf-8")
    groups = "interleave:\n  - [bare_metal, container]\n  - [local_lab, lab_container]\n"
    assert groups in bigbench
    with pytest.raises(SpecError, match="order: interleaved needs an `interleave` group"):
        parse_spec(bigbench.replace(groups, "order: interleaved\n"), "bigbench.yaml")


def test_each_environment_of_an_interleaved_campaign_is_archived_apart(tmp_path: Path) -> None:
    units = interleaved_plan()["local_lab"]
    first = {unit["environment"]: unit for unit in units if unit["repetition"] == 1}
    dirs = {env: archive.unit_repetition_dir(unit, tmp_path) for env, unit in first.items()}
    cell = "bigbench_load_cluster_nodes=1_scale_factor_gb=0.01"
    assert dirs == {
        "local_lab": tmp_path / "bigbench_containers" / "fair" / f"{cell}@local_lab" / "rep1",
        "lab_container": tmp_path / "bigbench_containers" / "fair" / f"{cell}@lab_container" / "rep1",
    }
    # a campaign on one environment keeps <cell>/rep<N>
    alone = plan_units(BIGBENCH, check_conf(BIGBENCH, {**CONF, "order": "sequential"}), "one")["local_lab"]
    assert archive.unit_repetition_dir(alone[0], tmp_path).parent.name == cell


def test_the_wrapper_reads_the_load_around_the_timed_step_only_for_execute() -> None:
    from benchcamp.core.steps import RunContext

    spec = load_spec("hibench_dse")
    ctx = RunContext(
        spec, spec.environment("local_lab"), "c", "wordcount", {"data_size_gb": 0.012}, 1, "tiny"
    )
    lines = ssh.wrapper_script(ctx, "execute", 1, "true\n").splitlines()
    start, end = lines.index("start=$(date +%s.%N)"), lines.index("end=$(date +%s.%N)")
    assert lines[start - 1] == (
        '{ echo "cores=$(nproc 2>/dev/null)"; echo "before=$(cat /proc/loadavg 2>/dev/null)"; } > "$JOB"/load.txt'
    )
    assert lines[end + 1] == 'echo "after=$(cat /proc/loadavg 2>/dev/null)" >> "$JOB"/load.txt'
    assert "load.txt" not in ssh.wrapper_script(ctx, "clean", 1, "true\n")


def test_recorded_readings_parse_to_their_one_minute_averages() -> None:
    assert host_load.parse_load((RECORDED / "a1.txt").read_text()) == {
        "cores": 2, "load1_before": 7.32, "load1_after": 8.05,
    }  # fmt: skip
    assert host_load.parse_load((RECORDED / "b2.txt").read_text()) == {
        "cores": 2, "load1_before": 8.36, "load1_after": 10.31,
    }  # fmt: skip
    # a target without /proc/loadavg, or a failed session: the readings are missing, not zero
    assert host_load.parse_load("cores=\nbefore=\nafter=\n") == dict.fromkeys(
        ("cores", "load1_before", "load1_after")
    )


START = datetime(2026, 11, 27, 8, 58, 51, tzinfo=UTC)
# the recorded ABBA turns: (file, environment, repetition, start offset s, duration s)
TURNS = [("a1", "local_lab", 1, 0, 8.0), ("b1", "lab_container", 1, 9, 8.0),
         ("b2", "lab_container", 2, 18, 8.0), ("a2", "local_lab", 2, 27, 8.0)]  # fmt: skip


def recorded_campaign(results: Path) -> Path:
    """An interleaved campaign's archive with the recorded load readings as its execute steps'."""
    params = {"cluster_nodes": 1, "scale_factor_gb": 0.01}
    for name, environment, repetition, offset, duration in TURNS:
        unit = {"study": "bigbench_containers", "campaign": "fair", "environment": environment,
                "workload": "bigbench_load", "params": params, "repetition": repetition, "order": "interleaved"}  # fmt: skip
        rep_dir = archive.unit_repetition_dir(unit, results)
        (rep_dir / "execute" / "try1").mkdir(parents=True)
        shutil.copy(RECORDED / f"{name}.txt", rep_dir / "execute" / "try1" / host_load.LOAD_FILE)
        started = START + timedelta(seconds=offset)
        record = ResultRecord(
            study="bigbench_containers", campaign="fair", environment=environment, workload="bigbench_load",
            params=params, repetition=repetition, metric="duration_s", value=duration, unit="s", status="ok",
            started_at=started, finished_at=started + timedelta(seconds=duration),
        )  # fmt: skip
        (rep_dir / archive.RECORDS_FILE).write_text(write_jsonl([record]), encoding="utf-8")
    return archive.campaign_dir("bigbench_containers", "fair", results)


def test_the_mart_flags_sides_that_ran_under_different_load(tmp_path: Path) -> None:
    campaign = recorded_campaign(tmp_path / "results")
    rows = host_load.load_rows(campaign)
    key = cell_key("bigbench_load", {"cluster_nodes": 1, "scale_factor_gb": 0.01})
    assert [(r["environment"], r["repetition"], r["load1_before"]) for r in rows] == [
        ("lab_container", 1, 8.05), ("lab_container", 2, 8.36), ("local_lab", 1, 7.32), ("local_lab", 2, 10.31),
    ]  # fmt: skip
    assert {r["cell_key"] for r in rows} == {key}
    warehouse = tmp_path / "wh.duckdb"
    wh.load_records(
        warehouse, archive.load_campaign_records("bigbench_containers", "fair", tmp_path / "results")
    )
    wh.replace_repetition_load(warehouse, "bigbench_containers", "fair", rows)
    order = [{"study": "bigbench_containers", "campaign": "fair", "environment": env, "workload": "bigbench_load",
              "cell_key": key, "repetition": rep, "planned_position": position, "order": "interleaved", "seed": 0}
             for position, (_, env, rep, _, _) in enumerate(TURNS, start=1)]  # fmt: skip
    wh.replace_run_order(warehouse, "bigbench_containers", "fair", order)
    build_marts(warehouse, select="+environment_load")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        cursor = con.execute("select * from main.environment_load where campaign = 'fair'")
        names = [column[0] for column in cursor.description]
        (row,) = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    assert (row["environment"], row["other_environment"], row["interleaved"], row["windows_overlap"]) == (
        "local_lab", "lab_container", True, True,
    )  # fmt: skip
    assert row["first_started_at"] == START and row["last_finished_at"] == START + timedelta(seconds=35)
    assert row["other_first_started_at"] == START + timedelta(seconds=9)
    assert row["other_last_finished_at"] == START + timedelta(seconds=26)
    assert (row["n_load"], row["other_n_load"], row["cores"]) == (2, 2, 2)
    assert row["load1_before_mean"] == pytest.approx(8.815)  # (7.32 + 10.31) / 2
    assert row["other_load1_before_mean"] == pytest.approx(8.205)  # (8.05 + 8.36) / 2
    assert row["load1_after_mean"] == pytest.approx((8.05 + 11.85) / 2)
    assert row["load_gap_per_core"] == pytest.approx(0.305)  # 0.61 apart on 2 cores
    assert row["load_gap_limit_per_core"] == pytest.approx(0.25) and row["load_differs"] is True
    (block,) = environment_load_blocks([row])
    assert block.title == (
        "Environment load, local_lab vs lab_container (interleaved (ABBA turns)): WARNING: the sides ran "
        "under different load (mean load before the repetitions differs by 0.31 per core, above 0.25); "
        "the comparison may reflect the load, not the environments"
    )
    text = "\n".join(block.lines())
    assert "| local_lab     | 2026-11-27 08:58:51 – 2026-11-27 08:59:26 |" in text
    assert "8.82" in text and "8.21" in text


def test_similar_load_and_a_missing_reading_are_said_as_such() -> None:
    row = {"load_gap_per_core": 0.1, "load_gap_limit_per_core": 0.25, "load_differs": False}
    from benchcamp.presentation.environment_load_section import load_verdict

    assert load_verdict(row) == "the sides ran under similar load (0.10 per core apart, at most 0.25)"
    assert load_verdict(row | {"load_gap_per_core": None, "load_differs": None}).startswith(
        "load not recorded on a side"
    )


def test_benchcamp_run_makes_one_campaign_of_the_pair_and_locks_both_targets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--environment local_lab,lab_container --order interleaved`: one campaign named as given
    (not one per environment), holding the lock of each environment's connection while it runs;
    the DAG run gets both locks' tokens."""
    import json

    from benchcamp.ops import cli, lab
    from benchcamp.pipeline import target_lock

    class LabReached(Exception):
        pass

    def lab_up() -> None:
        held = {
            connection: json.loads(target_lock.lock_path(connection).read_text())["campaign"]
            for connection in ("benchcamp_lab_ssh", "benchcamp_container_ssh")
        }
        raise LabReached(json.dumps(held, sort_keys=True))

    def lab_down() -> None:  # the real one would stop a lab an integration stream is using
        raise AssertionError("lab_down called by a unit test")

    monkeypatch.setenv(target_lock.LOCKS_ENV, str(tmp_path / "locks"))
    monkeypatch.setattr(lab, "lab_up", lab_up)
    monkeypatch.setattr(lab, "lab_down", lab_down)
    monkeypatch.setattr("benchcamp.ops.metadb.active_runs", lambda: [])
    with pytest.raises(LabReached) as reached:
        cli.main(
            ["run", "bigbench_containers", "--ladder", "tiny", "--environment", "local_lab,lab_container",
             "--order", "interleaved", "--campaign", "pair", "--keep-lab"]
        )  # fmt: skip
    assert json.loads(str(reached.value)) == {"benchcamp_container_ssh": "pair", "benchcamp_lab_ssh": "pair"}
    target_lock.check_free("lab_container", "benchcamp_container_ssh")  # released when the run ended


def test_benchcamp_run_on_a_real_cluster_neither_starts_nor_stops_the_lab(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A campaign on an environment reached through the user's own connection (`dse_cluster`):
    the one-host lab is not the target, so it is not started, and a lab the user has up for
    something else is not stopped when the campaign ends."""
    from benchcamp.core.outcomes import ExitCode
    from benchcamp.ops import cli, lab
    from benchcamp.pipeline import target_lock

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the lab was started or stopped for a real cluster's campaign")

    ran: list[tuple[str | None, str]] = []

    def run_campaign(_args: object, _env: object, target: str | None, conf: dict[str, object]) -> ExitCode:
        ran.append((target, str(conf["environment"])))
        return ExitCode.OK

    monkeypatch.setenv(target_lock.LOCKS_ENV, str(tmp_path / "locks"))
    monkeypatch.setattr(lab, "lab_up", never)
    monkeypatch.setattr(lab, "lab_down", never)
    monkeypatch.setattr("benchcamp.ops.metadb.active_runs", lambda: [])
    monkeypatch.setattr(cli, "prepare_airflow", lambda _env: None)
    monkeypatch.setattr(cli, "_run_campaign", run_campaign)
    code = cli.main(
        ["run", "hibench_dse", "--ladder", "tiny", "--workloads", "wordcount", "--environment", "dse_cluster",
         "--campaign", "real"]
    )  # fmt: skip
    assert (code, ran) == (ExitCode.OK, [("dse_cluster", "dse_cluster")])


@pytest.mark.parametrize(
    ("running_before", "keep", "stopped"),
    [(False, False, True), (True, False, False), (False, True, False)],
)
def test_benchcamp_run_stops_the_lab_cluster_only_when_it_started_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, running_before: bool, keep: bool, stopped: bool
) -> None:
    """`--environment lab_cluster`: the cluster starts for the campaign and, like the one-host lab,
    stops after it unless --keep-lab; a cluster the user had up before stays up."""
    from benchcamp.core.outcomes import ExitCode
    from benchcamp.ops import cli, lab
    from benchcamp.ops.lab import cluster
    from benchcamp.pipeline import target_lock

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the one-host lab was started or stopped for the lab cluster's campaign")

    calls: list[str] = []

    class Status:
        def format(self) -> str:
            return "lab cluster: up"

    def up(**_kwargs: object) -> Status:
        calls.append("up")
        return Status()

    monkeypatch.setenv(target_lock.LOCKS_ENV, str(tmp_path / "locks"))
    monkeypatch.setattr(lab, "lab_up", never)
    monkeypatch.setattr(lab, "lab_down", never)
    monkeypatch.setattr(cluster, "cluster_running", lambda: running_before)
    monkeypatch.setattr(cluster, "cluster_up", up)
    monkeypatch.setattr(cluster, "cluster_down", lambda: calls.append("down"))
    monkeypatch.setattr("benchcamp.ops.metadb.active_runs", lambda: [])
    monkeypatch.setattr(cli, "prepare_airflow", lambda _env: None)
    monkeypatch.setattr(cli, "_run_campaign", lambda *_args: ExitCode.OK)
    code = cli.main(
        ["run", "hibench_dse", "--ladder", "tiny", "--workloads", "wordcount", "--environment", "lab_cluster",
         "--campaign", "on_cluster", *(["--keep-lab"] if keep else [])]
    )  # fmt: skip
    assert (code, calls) == (ExitCode.OK, ["up", "down"] if stopped else ["up"])
