"""Pure parsers on real outputs recorded on the lab (tests/data/hadoop/README.md says how)."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from benchcamp.core.spec import load_spec, study_names
from benchcamp.platforms.hadoop import parse_job_reports
from benchcamp.transport.environment import fingerprint, parse_facts
from benchcamp.workloads import get_workload, registered
from benchcamp.workloads.base import ArchivedStep, GenerateError, ParseError, RunContext, Workload
from benchcamp.workloads.testdfsio import RESULT_FILE, parse_testdfsio_summary
from benchcamp.workloads.wordcount import WRITER_COUNTERS

DATA = Path(__file__).resolve().parents[1] / "data" / "hadoop"
SPEC = load_spec("hibench_dse")
START = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)
END = datetime(2026, 11, 22, 10, 0, 9, 500000, tzinfo=UTC)


def context(workload: str, size: float = 0.012) -> RunContext:
    params: dict[str, object] = {"data_size_gb": size}
    if workload == "wordcount":
        params |= {"maps": 4, "reduces": 2}
    return RunContext(SPEC, SPEC.environment("local_lab"), "c1", workload, params, 2, "tiny")  # type: ignore[arg-type]


def archived(tmp_path: Path, exit_code: int = 0, **files: str) -> ArchivedStep:
    for name, source in files.items():
        shutil.copyfile(DATA / source, tmp_path / name.replace("__", "."))
    return ArchivedStep(directory=tmp_path, exit_code=exit_code, started_at=START, finished_at=END)


def test_job_client_counters_of_the_recorded_wordcount() -> None:
    (job,) = parse_job_reports((DATA / "wordcount_0.012.stderr.log").read_text())
    assert job.succeeded and job.job_id is not None and job.job_id.startswith("job_local")
    assert job.counter("File Input Format Counters", "Bytes Read") == 13221754
    assert job.counter("Map-Reduce Framework", "Map input records") is not None


def test_wordcount_records(tmp_path: Path) -> None:
    step = archived(tmp_path, **{"stderr__log": "wordcount_0.012.stderr.log"})
    records = {r.metric: r for r in get_workload("wordcount").parse(context("wordcount"), step)}
    assert records["duration_s"].value == 9.5 and records["duration_s"].status == "ok"
    assert records["input_bytes"].value == 13221754
    assert records["duration_s"].params == {"data_size_gb": 0.012, "maps": 4, "reduces": 2}
    assert records["duration_s"].repetition == 2 and records["duration_s"].artifact == str(tmp_path)


def test_failed_wordcount_is_a_failed_record_not_a_dropped_one(tmp_path: Path) -> None:
    step = archived(tmp_path, exit_code=255, **{"stderr__log": "wordcount_missing_input.stderr.log"})
    (record,) = get_workload("wordcount").parse(context("wordcount"), step)
    assert record.metric == "duration_s" and record.status == "failed"


def test_output_cut_short_fails_with_the_archived_path(tmp_path: Path) -> None:
    text = (DATA / "wordcount_0.012.stderr.log").read_text()
    (tmp_path / "stderr.log").write_text(text[: len(text) // 3])
    step = ArchivedStep(directory=tmp_path, exit_code=0, started_at=START, finished_at=END)
    with pytest.raises(ParseError, match=str(tmp_path / "stderr.log")):
        get_workload("wordcount").parse(context("wordcount"), step)


def test_randomtextwriter_size_is_verified(tmp_path: Path) -> None:
    step = archived(tmp_path, **{"stderr__log": "randomtextwriter_0.012.stderr.log"})
    (job,) = parse_job_reports((DATA / "randomtextwriter_0.012.stderr.log").read_text())
    assert job.counter(WRITER_COUNTERS, "BYTES_WRITTEN") == 12884962
    assert get_workload("wordcount").verify_generate(context("wordcount"), step) == {
        "generated_bytes": 12884962.0
    }
    with pytest.raises(GenerateError, match="the cell asks for"):
        get_workload("wordcount").verify_generate(context("wordcount", size=0.02), step)


@pytest.mark.parametrize("mode", ["write", "read"])
def test_testdfsio_summary_from_result_file_and_log_agree(mode: str) -> None:
    from_file = parse_testdfsio_summary((DATA / f"dfsio_{mode}_0.012.result.txt").read_text(), mode)
    from_log = parse_testdfsio_summary((DATA / f"dfsio_{mode}_0.012.stderr.log").read_text(), mode)
    assert from_file is not None and from_file.complete
    assert from_file == from_log
    figures = from_file.figures("dfsio_result.txt")
    assert figures["files"] == 13 and figures["total_mb"] == 13
    assert parse_testdfsio_summary((DATA / f"dfsio_{mode}_0.012.result.txt").read_text(), "other") is None


def test_testdfsio_read_exact_values(tmp_path: Path) -> None:
    step = archived(
        tmp_path,
        **{"stderr__log": "dfsio_read_0.012.stderr.log", "dfsio_result__txt": "dfsio_read_0.012.result.txt"},
    )
    records = {r.metric: r.value for r in get_workload("dfsio_read").parse(context("dfsio_read"), step)}
    assert records == {
        "duration_s": 9.5,
        "files": 13.0,
        "total_mb": 13.0,
        "throughput_mb_s": 216.67,
        "avg_io_rate_mb_s": 430.65,
        "io_rate_stddev_mb_s": 343.47,
        "test_exec_time_s": 4.92,
    }


def test_testdfsio_zero_time_map_leaves_the_average_rate_undefined(tmp_path: Path) -> None:
    """Recorded on the lab: a map read its cached 1 MB file in 0 ms, TestDFSIO printed '?' and NaN."""
    step = archived(
        tmp_path,
        **{
            "stderr__log": "dfsio_read_zero_time_map.stderr.log",
            "dfsio_result__txt": "dfsio_read_zero_time_map.result.txt",
        },
    )
    records = {r.metric: r for r in get_workload("dfsio_read").parse(context("dfsio_read", size=0.017), step)}
    assert records["duration_s"].status == "ok"
    assert records["throughput_mb_s"].value == 642.86 and records["files"].value == 18
    assert "avg_io_rate_mb_s" not in records and "io_rate_stddev_mb_s" not in records


def dfsio_read_step(tmp_path: Path) -> ArchivedStep:
    """The recorded TestDFSIO -read step: its result file and its log."""
    return archived(
        tmp_path,
        **{"stderr__log": "dfsio_read_0.012.stderr.log", "dfsio_result__txt": "dfsio_read_0.012.result.txt"},
    )


def test_testdfsio_result_file_cut_mid_number_fails_naming_it(tmp_path: Path) -> None:
    step = dfsio_read_step(tmp_path)
    result = tmp_path / RESULT_FILE
    text = result.read_text()
    result.write_text(text[: text.index("216.67") + 2])  # "Throughput mb/sec: 21", then nothing
    with pytest.raises(
        ParseError, match=re.escape(f"{result}: the TestDFSIO read summary has no closing line")
    ):
        get_workload("dfsio_read").parse(context("dfsio_read"), step)
    result.write_text("")  # created, never written
    with pytest.raises(
        ParseError, match=re.escape(f"{result}: no TestDFSIO read summary in the result file")
    ):
        get_workload("dfsio_read").parse(context("dfsio_read"), step)


def test_testdfsio_log_cut_short_fails_naming_it(tmp_path: Path) -> None:
    step = dfsio_read_step(tmp_path)
    log = tmp_path / "stderr.log"
    text = log.read_text()
    log.write_text(text[: text.index("Test exec time sec: 4.92") + len("Test exec time sec: 4.9")])
    with pytest.raises(ParseError, match=re.escape(f"{log}: the TestDFSIO read summary has no closing line")):
        get_workload("dfsio_read").parse(context("dfsio_read"), step)


def test_testdfsio_copy_alone_cut_inside_a_lines_indentation_fails_naming_it(tmp_path: Path) -> None:
    """The result file alone (no block in the log), cut in the spaces before "Average IO rate":
    the whitespace-only last line reads like the block's closing empty line."""
    step = dfsio_read_step(tmp_path)
    result, log = tmp_path / RESULT_FILE, tmp_path / "stderr.log"
    log.write_text("")
    text = result.read_text()
    cut = text.index("Average IO rate")
    result.write_text(text[:cut])  # "...216.67\n " (the line's one leading space)
    assert not result.read_text().splitlines()[-1].strip()
    with pytest.raises(
        ParseError,
        match=re.escape(
            f"{result}: the TestDFSIO read summary has no 'Average IO rate mb/sec' line: cut short"
        ),
    ):
        get_workload("dfsio_read").parse(context("dfsio_read"), step)


def test_testdfsio_result_file_and_log_that_disagree_fail_naming_both(tmp_path: Path) -> None:
    step = dfsio_read_step(tmp_path)
    result, log = tmp_path / RESULT_FILE, tmp_path / "stderr.log"
    result.write_text(result.read_text().replace("Throughput mb/sec: 216.67", "Throughput mb/sec: 21"))
    with pytest.raises(ParseError) as failure:
        get_workload("dfsio_read").parse(context("dfsio_read"), step)
    assert str(failure.value) == (
        f"{result} disagrees with {log}: TestDFSIO 'Throughput mb/sec' is '21' in the result file, '216.67' in the log"
    )
    # a complete summary of another run (the other recorded read) beside this run's log
    shutil.copyfile(DATA / "dfsio_read_zero_time_map.result.txt", result)
    with pytest.raises(ParseError, match=re.escape(f"{result} disagrees with {log}: TestDFSIO 'Average IO")):
        get_workload("dfsio_read").parse(context("dfsio_read"), step)


def test_testdfsio_either_copy_alone_is_enough(tmp_path: Path) -> None:
    step = dfsio_read_step(tmp_path)
    (tmp_path / RESULT_FILE).unlink()  # no result file archived: the log's block
    records = {r.metric: r for r in get_workload("dfsio_read").parse(context("dfsio_read"), step)}
    assert records["throughput_mb_s"].value == 216.67
    assert records["throughput_mb_s"].artifact == str(tmp_path / "stderr.log")
    shutil.copyfile(DATA / "dfsio_read_0.012.result.txt", tmp_path / RESULT_FILE)
    (tmp_path / "stderr.log").write_text("")  # a log4j set to WARN prints no block
    records = {r.metric: r for r in get_workload("dfsio_read").parse(context("dfsio_read"), step)}
    assert records["test_exec_time_s"].value == 4.92
    assert records["test_exec_time_s"].artifact == str(tmp_path / RESULT_FILE)


def test_testdfsio_figure_that_is_not_a_number_fails(tmp_path: Path) -> None:
    step = dfsio_read_step(tmp_path)
    for name in (RESULT_FILE, "stderr.log"):
        path = tmp_path / name
        path.write_text(path.read_text().replace("Total MBytes processed: 13", "Total MBytes processed: 1x3"))
    with pytest.raises(
        ParseError, match=re.escape(f"{tmp_path / RESULT_FILE}: TestDFSIO 'Total MBytes processed' is '1x3'")
    ):
        get_workload("dfsio_read").parse(context("dfsio_read"), step)


def test_testdfsio_without_summary_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "stderr.log").write_text("nothing useful\n")
    step = ArchivedStep(directory=tmp_path, exit_code=0, started_at=START, finished_at=END)
    with pytest.raises(ParseError, match="stderr.log"):
        get_workload("dfsio_write").parse(context("dfsio_write"), step)


def test_environment_facts_and_fingerprint() -> None:
    facts = parse_facts((DATA / "environment_facts.stdout.log").read_text())
    assert facts["cpu_cores"] == 2 and facts["hadoop_version"] == "Hadoop 3.4.2"
    assert facts["java_version"].startswith('openjdk version "17')
    assert facts["hadoop_settings"]["mapreduce.framework.name"] == "local"
    assert facts["hadoop_settings"]["fs.defaultFS"] == "file:///"
    assert len(fingerprint(facts)) == 16
    assert fingerprint({**facts, "kernel": "other"}) == fingerprint(facts)
    assert fingerprint({**facts, "cpu_cores": 64}) != fingerprint(facts)


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_registered_workload_honours_the_contract(name: str, tmp_path: Path) -> None:
    """Registry contract: a family, a declared study, commands, and failed runs kept as failed records."""
    workload = get_workload(name)
    assert workload.family and workload.name == name
    (spec,) = [load_spec(study) for study in study_names() if name in load_spec(study).workloads]
    cell = spec.cells("tiny", [name])[0]
    ctx = RunContext(spec, spec.environments[-1], "c1", name, cell.params, 2, "tiny")
    workload.check_cell(ctx)
    drives_its_own_step = type(workload).run_own_step is not Workload.run_own_step
    assert drives_its_own_step or workload.execute(ctx) or workload.hive_execute(ctx), (
        "a workload must execute something"
    )
    (tmp_path / "stderr.log").write_text("boom\n")
    failed = workload.parse(
        ctx, ArchivedStep(directory=tmp_path, exit_code=1, started_at=START, finished_at=END)
    )
    assert [r.status for r in failed] == ["failed"] and failed[0].metric == "duration_s"
