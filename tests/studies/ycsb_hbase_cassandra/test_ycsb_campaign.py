"""The YCSB DAG end to end through Airflow against the lab's real Cassandra and HBase.

Workload A on both stores: one unthrottled cell (operationcount 1000, one thread) and a short
offered-load sweep (-target 250 ops/s from one client of 16 threads, 1000 ops/s from two clients
of 8 threads started together), two repetitions each, through
`benchcamp run` (`airflow dags test`) in a private Airflow home, results directory and
warehouse. Then, with the lab still up, Cassandra is stopped and one more repetition is run:
it must fail naming the store's address, archive what it got, and count nothing as a result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.core.records import cell_key
from benchcamp.ops import lab
from benchcamp.presentation import report

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
STUDY = "ycsb_hbase_cassandra"
CAMPAIGN = "it_ycsb"
STORES = ("cassandra", "hbase")
CELLS = [
    {"store": store, **params}
    for store in STORES
    for params in (
        {"operationcount": 1000, "threads": 1},
        {"target_ops": 250, "threads": 16},
        {"target_ops": 1000, "threads": 8, "clients": 2},
    )
]


@pytest.fixture(scope="module")
def campaign(
    tmp_path_factory: pytest.TempPathFactory,
    lab_with_stores: Callable[[], lab.LabStatus],
    campaign_measured: Callable[..., None],
) -> dict[str, Path]:
    lab_with_stores()
    tmp = tmp_path_factory.mktemp("ycsb_campaign")
    paths = {
        "results": tmp / "results",
        "warehouse": tmp / "warehouse" / "benchcamp.duckdb",
        "airflow": tmp / "airflow",
        "log": tmp / "run.log",
    }
    env = {
        **os.environ,
        "BENCHCAMP_RESULTS": str(paths["results"]),
        "BENCHCAMP_WAREHOUSE": str(paths["warehouse"]),
        "AIRFLOW_HOME": str(paths["airflow"]),
    }
    cells = ",".join(cell_key("ycsb_a", cell) for cell in CELLS)  # type: ignore[arg-type]
    command = [str(BIN / "benchcamp"), "run", STUDY, "--ladder", "tiny", "--environment", "local_lab"]
    # no warm-ups here (the spec's one per cell): the HiBench campaign test covers them end to end
    command += [
        "--repetitions",
        "2",
        "--warmups",
        "0",
        "--cells",
        cells,
        "--campaign",
        CAMPAIGN,
        "--keep-lab",
    ]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    paths["log"].write_text(result.stdout + "\n--- stderr ---\n" + result.stderr)
    campaign_measured(result, paths["log"])
    return paths


def test_every_cell_of_both_stores_ran_twice_and_parsed(campaign: dict[str, Path]) -> None:
    tables = report.read_tables(campaign["warehouse"], STUDY, CAMPAIGN)
    summary = tables["ycsb_summary"]
    seen = {(row["store"], row["pair_params"], row["op_type"]) for row in summary}
    for cell in CELLS:
        pair = "|".join(f"{k}={v}" for k, v in sorted(cell.items()) if k != "store")
        for op in ("read", "update"):  # workload A: 50/50
            assert (cell["store"], pair, op) in seen, (cell, sorted(seen))
    for row in summary:
        assert (row["n"], row["n_failed"]) == (2, 0), row
        assert row["throughput_ops_s"] > 0 and row["avg_latency_us"] > 0
        assert row["p99_latency_us"] >= row["p95_latency_us"] > 0
        assert row["operations_requested"] == 1000


def test_offered_load_points_and_the_store_comparison(campaign: dict[str, Path]) -> None:
    tables = report.read_tables(campaign["warehouse"], STUDY, CAMPAIGN)
    points = {(row["store"], row["op_type"], row["target_ops"]) for row in tables["ycsb_latency_throughput"]}
    assert points == {
        (store, op, target) for store in STORES for op in ("read", "update") for target in (250, 1000)
    }
    for row in tables["ycsb_latency_throughput"]:
        assert 0 < row["achieved_pct"] <= 105, row  # YCSB's throttle never offers more than the target
        # every timed run's logs give its served rate: its operations over a part of its RunTime
        assert row["served_pct"] >= row["achieved_pct"], row
    # the 1000 ops/s points: two clients' throughputs summed, their histograms merged
    assert {(row["target_ops"], row["clients"]) for row in tables["ycsb_latency_throughput"]} == {
        (250, 1),
        (1000, 2),
    }
    comparison = tables["ycsb_comparison"]
    assert {(row["pair_params"], row["op_type"]) for row in comparison} >= {
        ("operationcount=1000|threads=1", "read"),
        ("target_ops=250|threads=16", "update"),
        ("clients=2|target_ops=1000|threads=8", "read"),
    }
    for row in comparison:
        assert (row["hbase_n"], row["cassandra_n"]) == (2, 2)
        assert row["throughput_ratio"] > 0 and row["throughput_p_value"] is not None
        assert row["throughput_verdict"] in ("HBase higher", "Cassandra higher", "no significant difference")
    text = report.render(tables, "table", STUDY)
    assert "ycsb_a on local_lab: YCSB results per store" in text and "Served (ops/s)" in text
    assert "ycsb_a: HBase vs Cassandra on local_lab (Welch's t-test over repetitions)" in text


def test_every_figure_traces_to_an_archived_output(campaign: dict[str, Path]) -> None:
    run_dirs = sorted((campaign["results"] / STUDY / CAMPAIGN).glob("ycsb_a_*/rep*/execute/try1"))
    assert len(run_dirs) == len(CELLS) * 2
    for run_dir in run_dirs:
        if "clients=2" in run_dir.parents[2].name:  # each client's summary and histogram logs
            for n in (1, 2):
                assert "[OVERALL], Throughput(ops/sec)" in (run_dir / f"client{n}.stdout.log").read_text()
                assert (run_dir / f"client{n}.ycsb.json").exists() and (
                    run_dir / f"client{n}.READ.hdr"
                ).exists()
        else:
            stdout = (run_dir / "stdout.log").read_text()
            assert "[OVERALL], Throughput(ops/sec)" in stdout and (run_dir / "ycsb.json").exists()
        assert "[INSERT], Return=OK, 1000" in (run_dir / "load.stdout.log").read_text()
        assert (run_dir / "load.ycsb.json").exists()
        records = [
            json.loads(line) for line in (run_dir.parents[1] / "records.jsonl").read_text().splitlines()
        ]
        assert {record["status"] for record in records} == {"ok"}
        for record in records:
            assert Path(record["artifact"]).exists(), record


def test_a_store_that_is_not_running_fails_the_repetition_naming_its_address(
    campaign: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchcamp.core.spec import load_spec
    from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
    from benchcamp.pipeline.campaign.steps import run_clean, run_execute, run_generate
    from benchcamp.pipeline.campaign.target import run_preflight
    from benchcamp.transport.ssh import StepFailed, TargetRefused
    from helpers.web import free_port

    monkeypatch.setenv("BENCHCAMP_RESULTS", str(campaign["results"]))
    monkeypatch.setenv("BENCHCAMP_WAREHOUSE", str(campaign["warehouse"]))
    for name, value in lab.airflow_connection_env().items():
        monkeypatch.setenv(name, value)
    # The target's Cassandra moved to a port where nothing listens (its `ycsb_properties`, as a
    # user points the study at their own store), rather than the shared lab's Cassandra stopped:
    # the other stream's modules wait on the shared lab being healthy.
    closed = free_port()
    spec = load_spec(STUDY)
    environments = [
        env.replace(ycsb_properties={"cassandra.port": closed}) if env.name == "local_lab" else env
        for env in spec.environments
    ]
    moved = spec.model_copy(update={"environments": environments})
    monkeypatch.setattr("benchcamp.pipeline.campaign.plan.load_spec", lambda _study: moved)
    unit = {
        "study": STUDY, "campaign": "it_ycsb_down", "environment": "local_lab", "workload": "ycsb_a",
        "params": {"store": "cassandra", "operationcount": 1000, "threads": 1}, "repetition": 1,
        "ladder": "tiny",
    }  # fmt: skip
    # down before the campaign: its preflight refuses it, naming the node and where it is set
    with pytest.raises(
        TargetRefused, match=rf"not answering from the target: Cassandra at 127\.0\.0\.1:{closed} "
    ):
        run_preflight([unit])  # type: ignore[list-item]
    # down after the preflight (stopped mid-campaign): the repetition fails naming the address
    run_clean(unit)
    run_generate(unit)
    with pytest.raises(StepFailed, match=rf"Cassandra at \[/127\.0\.0\.1:{closed}\]"):
        run_execute(unit)
    rep_dir = rep_dir_for(context_for(unit))
    (record,) = [json.loads(line) for line in (rep_dir / "records.jsonl").read_text().splitlines()]
    assert (record["metric"], record["status"]) == ("duration_s", "failed")
    assert (Path(record["artifact"]) / "stderr.log").exists()
