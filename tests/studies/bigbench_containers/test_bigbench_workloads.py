"""The BigBench run's pure parts: stream orders, outcomes, records, checks and refusals.

Recorded outputs of real runs (include/benchcamp/studies/bigbench_containers/recorded/lab/) are
parsed back into the records they gave.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchcamp.core.spec import load_spec
from benchcamp.core.steps import RunContext
from benchcamp.studies.bigbench_containers.workloads import phases
from benchcamp.studies.bigbench_containers.workloads.phases import (
    QUERIES,
    OutcomesError,
    PhaseOutcome,
    QueryOutcome,
    RunOutcomes,
    read_outcomes,
    record_specs,
    stream_orders,
)
from benchcamp.studies.bigbench_containers.workloads.run import (
    BigBenchRun,
    _checked,
    database,
    database_locations,
    generated_row_problems,
)
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import ArchivedStep

RECORDED = Path(__file__).parents[3] / "include/benchcamp/studies/bigbench_containers/recorded/lab"


def _ctx(repetition: int = 1) -> RunContext:
    spec = load_spec("bigbench_containers")
    params = {"cluster_nodes": 1, "scale_factor_gb": 0.01}
    return RunContext(
        spec, spec.environment("local_lab"), "camp", "bigbench_load", params, repetition, "tiny"
    )


def test_the_run_is_the_bigbench_load_workload_one_unit_per_run() -> None:
    assert isinstance(get_workload("bigbench_load"), BigBenchRun)
    spec = load_spec("bigbench_containers")
    from benchcamp.pipeline.campaign.conf import implemented_workloads

    assert implemented_workloads(spec) == ["bigbench_load"]
    assert [cell.key for cell in spec.cells("tiny", implemented_workloads(spec))] == [
        "bigbench_load|cluster_nodes=1|scale_factor_gb=0.01"
    ]


def test_a_cells_cluster_size_is_its_environments_nodes_whatever_the_ladder_lists() -> None:
    """The tiny ladder lists 1 node; on the lab cluster's three workers the run is labelled 3, on
    a real 10-node cluster 10, and a cell of another size is refused there, naming the size."""
    from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf
    from benchcamp.pipeline.campaign.plan import plan_units

    spec = load_spec("bigbench_containers")
    assert spec.axes["cluster_nodes"].values_at("tiny") == [1]
    sizes = {
        name: {cell.params["cluster_nodes"] for cell in spec.cells("paper", None, spec.environment(name))}
        for name in ("local_lab", "lab_container", "lab_cluster", "bare_metal")
    }
    assert sizes == {"local_lab": {1}, "lab_container": {1}, "lab_cluster": {3}, "bare_metal": {10}}
    conf = check_conf(spec, {"ladder": "tiny", "environment": "lab_cluster", "repetitions": 1})
    (unit,) = plan_units(spec, conf, "camp")["lab_cluster"]
    assert unit["params"] == {"cluster_nodes": 3, "scale_factor_gb": 0.01}
    one_node = "bigbench_load|cluster_nodes=1|scale_factor_gb=0.01"
    with pytest.raises(
        CampaignConfError, match=r"on environment 'lab_cluster' \(cluster_nodes is its nodes, 3\)"
    ):
        check_conf(spec, {"ladder": "tiny", "environment": "lab_cluster", "cells": [one_node]})
    # an interleaved pair plans each side at its own size (both the lab's one host here)
    pair = check_conf(
        spec, {"ladder": "tiny", "environment": "local_lab", "order": "interleaved", "repetitions": 1}
    )
    assert {
        u["environment"]: u["params"]["cluster_nodes"] for u in plan_units(spec, pair, "camp")["local_lab"]
    } == {
        "local_lab": 1,
        "lab_container": 1,
    }


def test_an_axis_names_an_environment_key_that_exists_and_that_it_can_take() -> None:
    from benchcamp.core.spec import SpecError, parse_spec

    source = (RECORDED.parents[1] / "spec.yaml").read_text(encoding="utf-8")
    for old, new, expected in (
        (
            "environment_key: nodes",
            "environment_key: node_count",
            r"spec\.yaml:\d+: axes\.cluster_nodes\.environment_key: 'node_count' is not an environment key",
        ),
        (
            "environment_key: nodes",
            "environment_key: data_root",
            r"spec\.yaml:\d+: environments\[0\]\.data_root: axis 'cluster_nodes' takes it: '/benchmarks/benchcamp' is not a number",
        ),
    ):
        assert old in source
        with pytest.raises(SpecError, match=expected):
            parse_spec(source.replace(old, new), "spec.yaml", study="bigbench_containers")


def test_stream_orders_are_seeded_permutations_of_the_thirty_queries() -> None:
    orders = stream_orders("camp", 1, 3)
    assert len(orders) == 3
    assert all(sorted(order) == list(QUERIES) for order in orders)
    assert len({tuple(order) for order in orders}) == 3  # each stream its own shuffle
    assert all(order != list(QUERIES) for order in orders)
    assert stream_orders("camp", 1, 3) == orders  # same campaign and run: same orders
    assert stream_orders("camp", 2, 3) != orders  # another repetition: other orders
    assert stream_orders("other", 1, 3) != orders


@pytest.mark.parametrize("streams", [0, -1, True, 1.5, "2"])
def test_streams_below_one_or_not_whole_are_refused(streams: object) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        stream_orders("camp", 1, streams)  # type: ignore[arg-type]


def test_unknown_or_repeated_query_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown BigBench queries q31, Q01"):
        phases.check_query_names(["q01", "q31", "Q01"])
    with pytest.raises(ValueError, match="listed twice: q02"):
        phases.check_query_names(["q02", "q02"])


def _outcomes(failed_power: str = "", failed_stream: tuple[int, str] | None = None) -> RunOutcomes:
    power = [
        QueryOutcome(q, "failed" if q == failed_power else "ok", 1.0 + i, f"/a/power/{q}")
        for i, q in enumerate(QUERIES)
    ]
    streams = [
        [
            QueryOutcome(q, "failed" if failed_stream == (s, q) else "ok", 2.0, f"/a/s{s}/{q}", stream=s)
            for q in order
        ]
        for s, order in enumerate(stream_orders("camp", 1, 2), start=1)
    ]
    return RunOutcomes(
        load=PhaseOutcome("ok", 12.5, "/a/load"),
        power=power,
        throughput=PhaseOutcome("ok" if failed_stream is None else "failed", 99.0, "/a/throughput"),
        streams=streams,
    )


def test_records_of_a_valid_run_follow_the_record_contract() -> None:
    outcomes = _outcomes()
    assert outcomes.invalid_reasons() == []
    specs = record_specs(outcomes)
    load = [s for s in specs if s.workload == "bigbench_load"]
    assert [(s.params, s.metric, s.value, s.status) for s in load] == [({}, "duration_s", 12.5, "ok")]
    power = [s for s in specs if s.workload == "bigbench_power"]
    assert [s.params["query"] for s in power] == list(QUERIES)
    assert power[4].value == 5.0 and power[4].artifact == "/a/power/q05"
    per_stream = [s for s in specs if s.workload == "bigbench_throughput" and s.params["stream"] != "all"]
    assert len(per_stream) == 60 and {s.params["stream"] for s in per_stream} == {"1", "2"}
    phase = {s.metric: s for s in specs if s.params.get("stream") == "all"}
    assert phase["duration_s"].value == 99.0 and phase["duration_s"].params == {
        "query": "all",
        "stream": "all",
    }
    assert (phase["streams"].value, phase["streams"].unit) == (2.0, "count")
    assert (phase["queries"].value, phase["queries"].unit) == (30.0, "count")


def test_a_failed_query_is_a_failed_record_and_makes_the_run_invalid() -> None:
    outcomes = _outcomes(failed_power="q07", failed_stream=(2, "q11"))
    specs = record_specs(outcomes)
    q07 = next(s for s in specs if s.workload == "bigbench_power" and s.params["query"] == "q07")
    assert (q07.status, q07.value) == ("failed", 7.0)  # its elapsed time is kept
    q11 = next(s for s in specs if s.params.get("stream") == "2" and s.params["query"] == "q11")
    assert q11.status == "failed"
    assert outcomes.invalid_reasons() == ["power test: q07 failed", "q11 failed in stream 2"]
    assert sum(s.status == "ok" for s in specs if s.workload == "bigbench_power") == 29


def test_a_failed_load_gives_only_its_record_and_the_reason() -> None:
    outcomes = RunOutcomes(load=PhaseOutcome("failed", 3.0, "/a/load", "SemanticException x"))
    assert outcomes.invalid_reasons() == ["load failed: SemanticException x"]
    assert [(s.workload, s.status) for s in record_specs(outcomes)] == [("bigbench_load", "failed")]


def test_outcomes_round_trip_and_refusals(tmp_path: Path) -> None:
    outcomes = _outcomes(failed_power="q03")
    path = tmp_path / "outcomes.json"
    path.write_text(outcomes.to_json())
    assert read_outcomes(path) == outcomes
    assert json.loads(path.read_text())["invalid_reasons"] == ["power test: q03 failed"]
    path.write_text(json.dumps({"format": "other"}))
    with pytest.raises(OutcomesError, match="not a benchcamp-bigbench-run/1 file"):
        read_outcomes(path)
    path.write_text(json.dumps({"format": phases.OUTCOMES_FORMAT, "load": {}}))
    with pytest.raises(OutcomesError, match="malformed"):
        read_outcomes(path)
    with pytest.raises(OutcomesError, match="missing or not JSON"):
        read_outcomes(tmp_path / "absent.json")


def test_results_are_checked_against_duckdb_or_non_empty() -> None:
    from benchcamp.studies.bigbench_containers.queries import result_fingerprint

    rows = [[1, "a", "2.50"], [2, "b", None]]
    fingerprint = result_fingerprint(rows)
    expected = {"q01": {"rows": fingerprint.rows, "checksum": fingerprint.checksum}}
    ok = _checked(QueryOutcome("q01", "ok", 1.0, "/a"), rows, expected)
    assert ok.status == "ok" and ok.checked == "DuckDB fingerprint (2 rows)"
    wrong = _checked(QueryOutcome("q01", "ok", 1.0, "/a"), rows[:1], expected)
    assert wrong.status == "failed" and "differs from DuckDB's (2 rows" in wrong.error
    assert _checked(QueryOutcome("q02", "ok", 1.0, "/a"), rows, expected).error == (
        "no DuckDB result to check q02 against"
    )
    assert _checked(QueryOutcome("q10", "ok", 1.0, "/a"), [], expected).error == "q10 returned no rows"
    assert _checked(QueryOutcome("q10", "ok", 1.0, "/a"), rows, expected).status == "ok"


def test_generated_rows_exact_for_dimensions_close_for_facts() -> None:
    wanted = {"item": 100, "store_sales": 1000, "reason": 35}
    assert generated_row_problems({"item": 100, "store_sales": 1100, "reason": 35}, wanted) == []
    assert generated_row_problems({"item": 100, "store_sales": 1300, "reason": 0}, wanted) == [
        "store_sales: 1300 rows, about 1000 expected",
        "reason: no rows",
    ]
    assert generated_row_problems({"item": 100}, {"item": 100, "store": 12}) == ["store: not written"]


def test_check_cell_refuses_what_cannot_run() -> None:
    workload = get_workload("bigbench_load")
    workload.check_cell(_ctx())
    ctx = _ctx()
    settings = {**ctx.spec.settings, "bigbench_throughput": {"queries": 30, "streams": 0}}
    bad = RunContext(ctx.spec.model_copy(update={"settings": settings}), ctx.environment, "c", ctx.workload,
                     ctx.params, 1, "tiny")  # fmt: skip
    with pytest.raises(ValueError, match="streams must be a whole number of at least 1, not 0"):
        workload.check_cell(bad)
    settings = {**ctx.spec.settings, "bigbench_power": {"queries": 29}}
    bad = RunContext(ctx.spec.model_copy(update={"settings": settings}), ctx.environment, "c", ctx.workload,
                     ctx.params, 1, "tiny")  # fmt: skip
    with pytest.raises(ValueError, match="queries is 29"):
        workload.check_cell(bad)


def test_one_database_per_repetition() -> None:
    assert database(_ctx(1)) != database(_ctx(2))
    assert database(_ctx(1)).startswith("bb_")


def test_a_runs_databases_live_under_its_repetitions_data_path() -> None:
    """Not in HiveServer2's warehouse: the cleanup and the next preflight delete them with the
    input, without HiveServer2."""
    ctx = _ctx(1)
    clauses = database_locations(ctx, "bb_x")
    base = ctx.data_location("hive")
    assert clauses == f"LOCATION '{base}/bb_x.db' MANAGEDLOCATION '{base}/bb_x.managed'"
    assert base.startswith(f"{ctx.environment.hadoop.data_root.rstrip('/')}/{ctx.unit_path}/")


def test_recorded_run_parses_into_the_contract_records() -> None:
    """A real run of the tiny campaign on local_lab (integration test, 25 Nov 2026): q10 failed in
    the power test and in stream 1, q19 in stream 2 (the UDF jar's word list not found in the
    lab HiveServer2's local MapReduce task); every other query ran and was checked."""
    from datetime import UTC, datetime

    step_dir = RECORDED / "execute"
    outcomes = read_outcomes(step_dir / "outcomes.json")
    reasons = ["power test: q10 failed", "q10 failed in stream 1", "q19 failed in stream 2"]
    assert outcomes.invalid_reasons() == reasons
    assert (step_dir / "validity.txt").read_text() == "invalid: " + "; ".join(reasons) + "\n"
    now = datetime.now(UTC)
    records = get_workload("bigbench_load").parse(_ctx(), ArchivedStep(step_dir, 1, now, now))
    count = {
        w: sum(r.workload == w for r in records)
        for w in ("bigbench_load", "bigbench_power", "bigbench_throughput")
    }
    assert count == {"bigbench_load": 1, "bigbench_power": 30, "bigbench_throughput": 60 + 3}
    failed = {
        (r.workload, r.params.get("query"), r.params.get("stream"), r.metric)
        for r in records
        if r.status == "failed"
    }
    assert failed == {
        ("bigbench_power", "q10", None, "duration_s"),
        ("bigbench_throughput", "q10", "1", "duration_s"),
        ("bigbench_throughput", "q19", "2", "duration_s"),
        ("bigbench_throughput", "all", "all", "duration_s"),
    }
    assert {r.params["scale_factor_gb"] for r in records} == {0.01}
    spec = load_spec("bigbench_containers")
    for record in records:
        spec.validate_record_params(record.workload, record.params)
    for number, stream in enumerate(outcomes.streams, start=1):
        assert [o.query for o in stream] == outcomes.orders[number - 1]
        assert sorted(o.query for o in stream) == list(QUERIES)
    assert outcomes.orders == stream_orders("it_bigbench", 1, 2)  # the campaign's seeded shuffles


def test_recorded_query_times_are_the_servers_own() -> None:
    """Each recorded query's time is the sum of HiveServer2's compile and execute times of its
    statements, as its operation log says (plus the Spark step's wall time for ML queries); a
    failed query keeps its elapsed time and its error."""
    from benchcamp.platforms.hive import server_timing, statement_logs

    outcomes = {o.query: o for o in read_outcomes(RECORDED / "execute" / "outcomes.json").power}
    for name in ("q01", "q18", "q20"):
        directory = RECORDED / "execute" / "power" / name
        logs = statement_logs((directory / "operation.log").read_text())
        timings = [server_timing(log) for label, log in logs.items() if label.startswith(f"{name}_")]
        hive_s = sum(t.total_s for t in timings if t is not None)
        assert outcomes[name].hive_s == pytest.approx(hive_s)
        spark = outcomes[name].spark_s or 0.0
        assert outcomes[name].seconds == pytest.approx(hive_s + spark)
    assert outcomes["q20"].spark_s and outcomes["q20"].spark_s > 0 and outcomes["q01"].spark_s is None
    failed = outcomes["q10"]
    assert failed.status == "failed" and failed.hive_s is None and failed.seconds > 0
    assert "q10_2" in failed.error and "MapRedTask" in failed.error
    assert "BENCHCAMP_ERROR" in (RECORDED / "execute" / "power" / "q10" / "operation.log").read_text()


def test_recorded_results_check_as_the_run_checked_them() -> None:
    from benchcamp.studies.bigbench_containers.ml import KMeansResult, parse_result

    expected = json.loads((RECORDED / "generate" / "expected.json").read_text())
    assert len(expected) == 21 and all(found["rows"] > 0 for found in expected.values())
    power = RECORDED / "execute" / "power"
    rows = json.loads((power / "q01" / "results.json").read_text())["q01_0"]
    assert _checked(QueryOutcome("q01", "ok", 1.0, "/a"), rows, expected).status == "ok"
    assert _checked(QueryOutcome("q01", "ok", 1.0, "/a"), rows[1:], expected).status == "failed"
    text = json.loads((power / "q18" / "results.json").read_text())
    assert _checked(QueryOutcome("q18", "ok", 1.0, "/a"), text["q18_3"], expected).status == "ok"
    assert isinstance(parse_result("q20", power / "q20" / "spark-result.json"), KMeansResult)


def test_recorded_generate_step_verifies() -> None:
    from datetime import UTC, datetime

    directory = RECORDED / "generate"
    now = datetime.now(UTC)
    checked = get_workload("bigbench_load").verify_generate(_ctx(), ArchivedStep(directory, 0, now, now))
    assert checked["rows"] > 0 and checked["bytes"] > 5_000_000


def test_run_execute_uses_a_workloads_own_step_and_saves_its_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generic hook: a workload's `run_own_step` replaces the SSH/Hive execute path; its
    archived step is parsed like any other, the repetition's data removed afterwards."""
    from datetime import UTC, datetime

    from benchcamp.core.records import read_records
    from benchcamp.pipeline.campaign.steps import run_execute
    from benchcamp.transport import ssh

    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path))
    unit = {
        "study": "bigbench_containers", "campaign": "hook", "environment": "local_lab",
        "workload": "bigbench_load", "params": {"cluster_nodes": 1, "scale_factor_gb": 0.01},
        "repetition": 1, "ladder": "tiny",
    }  # fmt: skip
    rep = (
        tmp_path
        / "bigbench_containers"
        / "hook"
        / "bigbench_load_cluster_nodes=1_scale_factor_gb=0.01"
        / "rep1"
    )
    for step in ("clean", "generate"):
        (rep / step / "try1").mkdir(parents=True)
        (rep / step / "try1" / "meta.json").write_text('{"exit_code": 0}')
    (rep / "generate" / "try1" / "verified.json").write_text("{}")

    def own_step(self: BigBenchRun, ctx: RunContext, archive_dir: Path) -> ArchivedStep:
        archive_dir.mkdir(parents=True)
        (archive_dir / "outcomes.json").write_text(_outcomes(failed_power="q09").to_json())
        now = datetime.now(UTC)
        return ArchivedStep(archive_dir, 1, now, now)

    removed: list[str] = []
    # the target's load before and after the own step, as tests/data/host_load/a1.txt recorded it
    # (no SSH target here: the two readings stand for the two short sessions)
    readings = iter([("2", "7.32 8.46 7.87 15/340 23410"), ("2", "8.05 8.58 7.92 17/442 23604")])
    monkeypatch.setattr(ssh, "read_load", lambda connection: next(readings))
    monkeypatch.setattr(BigBenchRun, "run_own_step", own_step)
    monkeypatch.setattr(
        "benchcamp.pipeline.campaign.steps._capture_environment", lambda *args, **kwargs: None
    )
    monkeypatch.setattr(ssh, "run_step", lambda ctx, conn, name, *rest, **kw: removed.append(name))
    with pytest.raises(ssh.StepFailed):
        run_execute(unit)
    records = read_records(rep / "records.jsonl")
    assert len(records) == 1 + 30 + 60 + 3
    failed = [(r.workload, r.params.get("query")) for r in records if r.status == "failed"]
    assert failed == [("bigbench_power", "q09")]
    assert removed == ["remove_data"]
    recorded = Path(__file__).parents[2] / "data" / "host_load" / "a1.txt"
    assert (rep / "execute" / "try1" / "load.txt").read_text() == recorded.read_text()


def test_session_setup_statements_are_not_timed() -> None:
    from benchcamp.studies.bigbench_containers.workloads.run import is_timed

    assert not is_timed("ADD JAR /x/bigbench-udf.jar")
    assert not is_timed("  create temporary function f AS 'a.B'")
    assert is_timed("SELECT 1") and is_timed("INSERT OVERWRITE DIRECTORY '/x' SELECT 1")


def test_generate_runs_datagen_and_duckdb_then_uploads_through_webhdfs() -> None:
    from benchcamp.workloads.base import render

    lines = [render(command) for command in get_workload("bigbench_load").generate(_ctx())]
    datagen = next(line for line in lines if "bigbench_containers.datagen" in line)
    assert "--scale-factor 0.01 --seed 1" in datagen and '> "$JOB"/datagen.json' in datagen
    assert any("workloads.expected" in line and '"$JOB"/expected.json' in line for line in lines)
    assert any("op=CREATE" in line for line in lines)  # WebHDFS, no hadoop fs JVM
    assert any("/benchcamp/bigbench_containers/camp/bigbench_load_cluster_nodes=1_scale_factor_gb=0.01/input" in line
               for line in lines)  # fmt: skip


def test_the_spark_step_runs_inside_the_lab_container_and_here_elsewhere(tmp_path: Path) -> None:
    from benchcamp.studies.bigbench_containers.workloads.run import RunDriver

    spec = load_spec("bigbench_containers")
    params = {"cluster_nodes": 1, "scale_factor_gb": 0.01}
    bare = RunDriver(_ctx(), tmp_path)
    assert bare.spark_argv(["/usr/bin/java", "-cp", "x"]) == ["/usr/bin/java", "-cp", "x"]
    assert bare.spark_result_path("q20", None, tmp_path / "r.json") == tmp_path / "r.json"
    ctx = RunContext(spec, spec.environment("lab_container"), "camp", "bigbench_load", params, 1, "tiny")
    inside = RunDriver(ctx, tmp_path).spark_argv(["/usr/bin/java", "-cp", "x"])
    assert inside[:2] == ["podman", "exec"] and inside[-3:] == ["java", "-cp", "x"]


def test_a_valid_run_writes_its_bbqpm_for_the_claims_and_an_invalid_one_none(tmp_path: Path) -> None:
    """BBQpm@SF = SF·60·M / (0.1·T_load + sqrt(T_PT·T_throughput/S)), T_PT = M × geomean(power):
    here power times 1..30 s, T_load 12.5 s, T_throughput 99 s, S 2, SF 0.01 (the lab's tiny)."""
    import math
    from datetime import UTC, datetime

    from benchcamp.studies.bigbench_containers.workloads.phases import bbqpm

    t_pt = 30 * math.exp(sum(math.log(1.0 + i) for i in range(30)) / 30)
    expected = 0.01 * 60 * 30 / (0.1 * 12.5 + math.sqrt(t_pt * 99.0 / 2))
    assert bbqpm(_outcomes(), 0.01) == pytest.approx(expected, rel=1e-12)
    assert bbqpm(_outcomes(failed_power="q09"), 0.01) is None
    assert bbqpm(_outcomes(failed_stream=(2, "q07")), 0.01) is None
    (tmp_path / "outcomes.json").write_text(_outcomes().to_json())
    now = datetime.now(UTC)
    records = get_workload("bigbench_load").parse(_ctx(), ArchivedStep(tmp_path, 0, now, now))
    (qpm,) = [record for record in records if record.metric == "bbqpm"]
    assert (qpm.workload, qpm.params, qpm.unit, qpm.status) == (
        "bigbench_throughput",
        {"cluster_nodes": 1, "scale_factor_gb": 0.01, "query": "all", "stream": "all"},
        "BBQpm",
        "ok",
    )
    assert qpm.value == pytest.approx(expected, rel=1e-12)


def _with_only(value: str) -> RunContext:
    """The study's spec with `settings.bigbench_power.only` set, as a user writes it."""
    from benchcamp.core.spec import parse_spec

    text = (RECORDED.parents[1] / "spec.yaml").read_text(encoding="utf-8")
    anchor = "  bigbench_power:\n    queries: 30"
    assert anchor in text
    spec = parse_spec(text.replace(anchor, f"{anchor}\n    only: {value}"), study="bigbench_containers")
    params = {"cluster_nodes": 1, "scale_factor_gb": 0.01}
    return RunContext(spec, spec.environment("local_lab"), "camp", "bigbench_load", params, 1, "tiny")


def test_a_partial_run_names_its_queries_comma_separated_and_checks_them() -> None:
    from benchcamp.studies.bigbench_containers.workloads.run import power_order

    assert power_order(_ctx()) == list(QUERIES)
    assert power_order(_with_only("q01, q10,q20")) == ["q01", "q10", "q20"]
    with pytest.raises(ValueError, match="unknown BigBench queries q31"):
        power_order(_with_only("q01,q31"))
    with pytest.raises(ValueError, match="queries listed twice: q01"):
        power_order(_with_only("q01,q01"))
