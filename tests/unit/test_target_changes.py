"""A target that changes under a repetition (`recheck_facts`): a worker lost mid-job.

The facts are asked just before and just after every timed step; a repetition over which a
hardware fact changed is failed naming the change (never counted); a change since the
campaign's capture captures the environment again (tests/unit/test_environment_capture.py). The
wrapper runs here for real in bash, its facts_command reading a file the "job" rewrites, as a
ResourceManager's node list changes when a NodeManager stops mid-job.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from benchcamp.core.environment_options import TransportOptions
from benchcamp.core.spec import load_spec
from benchcamp.pipeline.campaign import steps
from benchcamp.transport import environment as env_facts
from benchcamp.transport import ssh
from benchcamp.workloads.base import ArchivedStep, RunContext
from pydantic import ValidationError

SPEC = load_spec("hibench_dse")
NOW = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
NAMES = ("yarn_active_nodes", "yarn_nodes")
THREE = "yarn_active_nodes=3\nyarn_nodes=10.232.0.11,10.232.0.12,10.232.0.13\n"
TWO = "yarn_active_nodes=2\nyarn_nodes=10.232.0.11,10.232.0.12\n"


def _context(facts_command: str, recheck: bool = True) -> RunContext:
    environment = SPEC.environment("lab_cluster")
    transport = environment.transport.model_copy(
        update={"facts_command": facts_command, "hardware_facts": NAMES, "recheck_facts": recheck}
    )
    environment = environment.model_copy(update={"transport": transport})
    params = {"data_size_gb": 0.012, "maps": 4, "reduces": 2}
    return RunContext(SPEC, environment, "c1", "wordcount", params, 1, "tiny")


def test_the_cluster_environments_recheck_their_workers() -> None:
    for study in ("hibench_dse", "mapreduce_ssd_hdd", "bigbench_containers"):
        transport = load_spec(study).environment("lab_cluster").transport
        assert transport.recheck_facts and set(NAMES) <= set(transport.hardware_facts), study


def test_recheck_without_the_facts_it_compares_is_refused() -> None:
    with pytest.raises(ValidationError, match="recheck_facts needs a facts_command"):
        TransportOptions(connection="c", recheck_facts=True)
    with pytest.raises(ValidationError, match="hardware_facts"):
        TransportOptions(connection="c", recheck_facts=True, facts_command="echo a=1")


def test_a_change_names_the_facts_and_what_they_became() -> None:
    assert env_facts.hardware_change(NAMES, THREE, THREE) == ""
    assert env_facts.hardware_change(NAMES, THREE, TWO) == (
        "yarn_active_nodes 3 → 2, yarn_nodes 10.232.0.11,10.232.0.12,10.232.0.13 → 10.232.0.11,10.232.0.12"
    )
    # a fact not printed (the ResourceManager did not answer) cannot be compared: it counts
    assert env_facts.hardware_change(NAMES, THREE, "facts_command exited 7\n").startswith(
        "yarn_active_nodes 3 → ?"
    )


def _run_wrapper(ctx: RunContext, body: str, work: Path) -> Path:
    """The execute step's wrapper in bash as the target runs it; its job folder."""
    result = subprocess.run(
        ["bash", "-s"],
        input=ssh.wrapper_script(ctx, "execute", 1, body),
        capture_output=True,
        text=True,
        env={"BENCHCAMP_WORK_DIR": str(work), "PATH": os.environ["PATH"]},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    job = next(
        line.split(" ", 1)[1] for line in result.stdout.splitlines() if line.startswith("BENCHCAMP_JOB")
    )
    return Path(job)


def test_the_wrapper_asks_the_facts_around_the_timed_body_only(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.txt"
    nodes.write_text(THREE)
    ctx = _context(f"cat {nodes}")
    # the "job" loses worker3 halfway, as a NodeManager stopped under a running job
    job = _run_wrapper(ctx, f"printf '{TWO}' > {nodes}\n", tmp_path / "work")
    before, after = ((job / name).read_text() for name in (env_facts.FACTS_BEFORE, env_facts.FACTS_AFTER))
    assert (before, after) == (THREE, TWO)
    step = ArchivedStep(directory=job, exit_code=0, started_at=NOW, finished_at=NOW)
    assert steps._target_change(ctx, step).startswith("yarn_active_nodes 3 → 2, yarn_nodes")
    assert steps._hardware_before(ctx, step) == {
        "yarn_active_nodes": "3",
        "yarn_nodes": "10.232.0.11,10.232.0.12,10.232.0.13",
    }
    # other steps, and environments without recheck_facts, never ask
    assert "facts_before" not in ssh.wrapper_script(ctx, "generate", 1, "true\n")
    assert "facts_before" not in ssh.wrapper_script(
        _context(f"cat {nodes}", recheck=False), "execute", 1, "true\n"
    )


def test_a_step_whose_facts_could_not_be_read_after_it_counts_as_changed(tmp_path: Path) -> None:
    ctx = _context("false")
    (tmp_path / env_facts.FACTS_BEFORE).write_text(THREE)
    (tmp_path / env_facts.FACTS_AFTER).write_text("facts_command exited 1\n")
    step = ArchivedStep(directory=tmp_path, exit_code=0, started_at=NOW, finished_at=NOW)
    assert "yarn_nodes 10.232.0.11,10.232.0.12,10.232.0.13 → ?" in steps._target_change(ctx, step)
    # a step that never reached its body wrote neither: its own failure is the reason
    empty = ArchivedStep(directory=tmp_path / "none", exit_code=1, started_at=NOW, finished_at=NOW)
    assert steps._target_change(ctx, empty) == ""
