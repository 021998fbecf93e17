"""Command rendering: every value from a spec or the UI reaches the shell quoted."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from benchcamp.core.spec import load_spec, study_names
from benchcamp.transport.ssh import commands_body, prologue, wrapper_script
from benchcamp.workloads import get_workload, registered
from benchcamp.workloads.base import RunContext, Shell, render
from benchcamp.workloads.testdfsio import file_count
from benchcamp.workloads.wordcount import total_bytes

SPEC = load_spec("hibench_dse")


def context(
    workload: str, params: dict[str, object], campaign: str = "manual__2026-11-22T10:00:00+00:00"
) -> RunContext:
    return RunContext(SPEC, SPEC.environment("local_lab"), campaign, workload, params, 1, "tiny")  # type: ignore[arg-type]


def test_plain_words_are_quoted_and_shell_fragments_are_not() -> None:
    line = render(["echo", "a b", "$(rm -rf /)", Shell('"$DATA"/in')])
    assert line == "echo 'a b' '$(rm -rf /)' \"$DATA\"/in"
    assert subprocess.run(["bash", "-c", "DATA=/x; " + line], capture_output=True, text=True).stdout == (
        "a b $(rm -rf /) /x/in\n"
    )


def test_wordcount_commands_follow_the_study() -> None:
    ctx = context("wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2})
    workload = get_workload("wordcount")
    (generate,) = workload.generate(ctx)
    (execute,) = workload.execute(ctx)
    assert generate[:4] == ["hadoop", "jar", '"$HADOOP_EXAMPLES_JAR"', "randomtextwriter"]
    assert f"mapreduce.randomtextwriter.totalbytes={total_bytes(0.012)}" in generate
    assert "mapreduce.job.maps=1" in generate  # the lab's LocalJobRunner writes with one map
    assert f"mapreduce.randomtextwriter.bytespermap={total_bytes(0.012)}" in generate
    assert "mapreduce.job.reduces=2" in execute
    # generated input under $INPUT, which is the repetition's $DATA while the study regenerates
    assert render(execute).endswith('"$INPUT"/input "$DATA"/output') and render(generate).endswith(
        '"$INPUT"/input'
    )
    assert 'export INPUT="$DATA"' in prologue(ctx, "execute", 1)


def test_dse_prefix_and_nodes_scale_task_counts() -> None:
    dse = SPEC.environment("dse_cluster")
    ctx = RunContext(SPEC, dse, "c", "wordcount", {"data_size_gb": 240, "maps": 4, "reduces": 2}, 1, "paper")
    (execute,) = get_workload("wordcount").execute(ctx)
    assert execute[:2] == ["dse", "hadoop"]
    (generate,) = get_workload("wordcount").generate(ctx)
    assert "mapreduce.job.maps=32" in generate  # 4 writer maps per node × 8 nodes
    assert "mapreduce.job.reduces=16" in execute  # 2 per node × 8 nodes


def test_testdfsio_file_count_matches_the_published_numbers() -> None:
    assert [file_count(size, 400) for size in (240, 340, 440)] == [615, 871, 1127]


def test_dfsio_read_writes_its_files_first_untimed() -> None:
    ctx = context("dfsio_read", {"data_size_gb": 0.012})
    workload = get_workload("dfsio_read")
    (generate,) = workload.generate(ctx)
    (execute,) = workload.execute(ctx)
    assert "-write" in generate and "-read" in execute
    assert "-resFile" in execute and "-resFile" not in generate
    assert get_workload("dfsio_write").generate(ctx) == []


def test_hostile_campaign_id_cannot_escape_the_quoting() -> None:
    ctx = context(
        "wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, campaign="x'; touch /tmp/pwned; '"
    )
    text = prologue(ctx, "execute", 1)
    assert "touch /tmp/pwned" not in text.replace("touch_tmp_pwned", "")
    assert "/tmp/pwned" not in text


def _run_wrapper(script: str, work_dir: object) -> tuple[subprocess.CompletedProcess[str], list[str], str]:
    """Run a step wrapper in bash as the target would: the result, its status lines, its job folder."""
    result = subprocess.run(
        ["bash", "-s"],
        input=script,
        capture_output=True,
        text=True,
        env={"BENCHCAMP_WORK_DIR": str(work_dir), "PATH": "/usr/bin:/bin"},
    )
    lines = result.stdout.splitlines()
    marks = [line for line in lines if line.startswith("BENCHCAMP_STATUS")]
    job = next((line.split(" ", 1)[1] for line in lines if line.startswith("BENCHCAMP_JOB")), "")
    return result, marks, job


def test_wrapper_is_valid_bash_and_times_the_body(tmp_path: object) -> None:
    ctx = context("wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2})
    result, marks, job = _run_wrapper(
        wrapper_script(ctx, "execute", 1, commands_body([["echo", "it's fine"]])), tmp_path
    )
    assert result.returncode == 0, result.stderr
    rc, start, end = marks[0].split()[1:]
    assert rc == "0" and float(end) >= float(start)
    with open(f"{job}/stdout.log") as handle:
        assert handle.read() == "it's fine\n"


def test_a_body_and_an_after_script_without_a_final_newline_still_run(tmp_path: object) -> None:
    """The heredoc delimiter must start its own line: a body ending without a newline once made the
    whole step "not start" (the delimiter was glued to the body's last line)."""
    ctx = context("wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2})
    result, marks, job = _run_wrapper(
        wrapper_script(ctx, "execute", 1, "echo body", after="echo after"), tmp_path
    )
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    assert marks and marks[0].split()[1] == "0"
    with open(f"{job}/stdout.log") as out, open(f"{job}/after.log") as after:
        assert (out.read(), after.read()) == ("body\n", "after\n")


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_workload_renders_parseable_commands(name: str) -> None:
    spec = next(load_spec(study) for study in study_names() if name in load_spec(study).workloads)
    cell = spec.cells("tiny", [name])[0]
    ctx = RunContext(spec, spec.environments[-1], "c", name, cell.params, 1, "tiny")
    workload = get_workload(name)
    for command in [*workload.generate(ctx), *workload.execute(ctx)]:
        assert shlex.split(render(command))
