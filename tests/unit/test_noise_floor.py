"""The noise floor's probe scripts and parsers, on the lab's recorded outputs (tests/data/noise_floor)."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path

import pytest
from benchcamp.core.steps import NoiseProbe, Shell
from benchcamp.pipeline import noise_floor
from benchcamp.pipeline.noise_floor import NoiseFloor, parse_hive_probe, parse_probe_output, probe_body

DATA = Path(__file__).resolve().parents[1] / "data" / "noise_floor"


def test_the_recorded_empty_jobs_give_four_timed_runs_after_the_untimed_one() -> None:
    untimed, timed, problem = parse_probe_output((DATA / "lab-empty-job-1.stdout.log").read_text(), 4)
    assert problem == ""
    assert untimed == pytest.approx(1796240221.700788494 - 1796240217.784554462)
    assert timed == pytest.approx([3.3009, 2.9739, 3.7268, 3.1148], abs=1e-3)
    floor = NoiseFloor(
        environment="local_lab", kind="k", description="an empty job", workloads=["w"], durations_s=timed
    )
    assert floor.stddev_s == pytest.approx(statistics.stdev(timed))
    assert floor.resolution_s(10) == pytest.approx(floor.stddev_s * 10)  # type: ignore[operator]
    assert floor.line(10).startswith(
        "local_lab: an empty job: mean 3.28 s, σ 0.33 s over 4 runs → resolution 3.27 s"
    )
    for name in ("lab-empty-job-2.stdout.log", "lab-empty-job-3.stdout.log"):
        assert parse_probe_output((DATA / name).read_text(), 4)[2] == ""


def test_a_failed_run_or_set_up_leaves_the_floor_unmeasured() -> None:
    lines = (DATA / "lab-empty-job-1.stdout.log").read_text().splitlines()
    failed = "\n".join([*lines[:2], lines[2].replace("=2 0 ", "=2 1 ")])
    untimed, timed, problem = parse_probe_output(failed, 4)
    assert (len(timed), problem) == (1, "run 2 exited 1 (run-2.log)")
    assert parse_probe_output("noise_floor_setup_failed=255\n", 4) == (
        None,
        [],
        "its set-up exited 255 (setup.log)",
    )
    assert parse_probe_output("\n".join(lines[:3]), 4)[2] == "2 of 4 timed runs reported"  # cut short
    floor = NoiseFloor(
        environment="e",
        kind="k",
        description="an empty job",
        workloads=["w"],
        durations_s=timed,
        problem=problem,
    )
    assert (floor.measured, floor.resolution_s(10)) == (False, None)
    assert noise_floor.resolutions([floor], 10) == {}
    assert "not measured (run 2 exited 1 (run-2.log)); every cell gated" in floor.line(10)


def test_the_recorded_hive_probe_is_timed_as_the_hive_cells_are() -> None:
    untimed, timed, problem = parse_hive_probe((DATA / "lab-hive-aggregation.operation.log").read_text(), 4)
    assert problem == ""
    assert untimed == pytest.approx(2.011)
    assert timed == pytest.approx([0.773, 0.818, 0.84, 0.718])  # compile + execute, as HiveServer2 logged
    assert parse_hive_probe((DATA / "lab-hive-aggregation.operation.log").read_text(), 5)[2] == (
        "no server timing for run 5"
    )


def test_the_probe_script_runs_as_written_and_quotes_what_it_is_given(tmp_path: Path) -> None:
    """The script under bash, with a `job` that prints its run: one line per run, the set-up and
    clean-up once, and a path with a quote in it reaching the job intact."""
    probe = NoiseProbe(
        kind="k",
        description="d",
        setup=[["touch", Shell('"$JOB"/set-up')]],
        job=["printf", "%s\\n", "it's run", Shell('"$run"')],
        cleanup=[["touch", Shell('"$JOB"/cleaned')]],
    )
    script = probe_body(probe, 3)
    out = subprocess.run(
        ["bash", "-c", script], env={"JOB": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    untimed, timed, problem = parse_probe_output(out, 3)
    assert (problem, len(timed)) == ("", 3) and untimed is not None
    assert (tmp_path / "run-2.log").read_text() == "it's run\n2\n"
    assert (tmp_path / "set-up").exists() and (tmp_path / "cleaned").exists()
    assert "drop_caches" not in script and "drop_caches" in probe_body(probe, 3, drop_caches=True)


def test_a_floor_covers_only_its_workloads_on_its_target() -> None:
    floor = NoiseFloor(
        environment="local_lab", kind="k", description="d", workloads=["wordcount", "dfsio_read"],
        durations_s=[3.0, 3.2, 3.4],
    )  # fmt: skip
    found = noise_floor.resolutions([floor], 10)
    assert set(found) == {("local_lab", "wordcount"), ("local_lab", "dfsio_read")}
    assert found[("local_lab", "wordcount")].resolution_s(10) == pytest.approx(2.0)
    assert found[("local_lab", "wordcount")].resolution_s(20) == pytest.approx(1.0)
