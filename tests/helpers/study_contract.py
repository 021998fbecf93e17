"""The study contract's fixtures (a plugin tests/conftest.py registers): the example study
installed as a new study is added, and one warehouse of every study's recorded results, for
tests/unit/test_study_contract.py and tests/integration/test_results_page_browser.py."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.records import ResultRecord
from benchcamp.core.spec import load_spec, study_names
from benchcamp.core.study import forget_studies
from benchcamp.ops.cli import main
from benchcamp.pipeline import transform
from benchcamp.pipeline import warehouse as wh
from benchcamp.workloads.base import ArchivedStep, RunContext

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "data" / "example_study" / "example_sleep"
EXAMPLE_ID = EXAMPLE.name
STUDIES = [*study_names(), EXAMPLE_ID]
CAMPAIGN = "recorded"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Add the example study as a new study is added: its folder in a studies folder on
    `benchcamp.studies`' path, and the dbt project's `studies` link pointing there (a copy of the
    project: the repository's link points at include/benchcamp/studies). Yields the project copy."""
    import benchcamp.studies
    from benchcamp import workloads

    tmp = tmp_path_factory.mktemp("installed")
    studies = tmp / "studies"
    shutil.copytree(EXAMPLE, studies / EXAMPLE_ID, ignore=shutil.ignore_patterns("__pycache__"))
    project = tmp / "dbt_project"
    shutil.copytree(
        transform.project_dir(), project, symlinks=True, ignore=shutil.ignore_patterns("target", "logs")
    )
    bundled = (transform.project_dir() / "studies").resolve()
    (project / "studies").unlink()
    (project / "studies").symlink_to(studies, target_is_directory=True)
    for marts in sorted(bundled.glob("*/marts")):  # the bundled studies' marts stay in the project
        shutil.copytree(marts, studies / marts.parent.name / "marts")  # dbt follows no nested link
    workloads.registered()  # the bundled workloads found before the registry is swapped
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(workloads, "_REGISTRY", dict(workloads._REGISTRY))
        patch.setattr(workloads, "_DISCOVERED", False)
        patch.setattr(benchcamp.studies, "__path__", [*benchcamp.studies.__path__, str(studies)])
        patch.setattr(transform, "project_dir", lambda: project)
        forget_studies()
        yield project
    forget_studies()
    for name in [name for name in sys.modules if name.startswith(f"benchcamp.studies.{EXAMPLE_ID}")]:
        del sys.modules[name]


def example_records() -> list[Any]:
    """The example's recorded run (recorded/execute/stdout.log), parsed by its workload, twice."""
    from benchcamp.workloads import get_workload

    spec = load_spec(EXAMPLE_ID)
    recorded = EXAMPLE / "recorded" / "execute"
    records = []
    for repetition, seconds in ((1, 0.14), (2, 0.16)):
        started = datetime(2026, 11, 24, 7, repetition, tzinfo=UTC)
        step = ArchivedStep(
            directory=recorded,
            exit_code=0,
            started_at=started,
            finished_at=started + timedelta(seconds=seconds),
            files={"stdout.log": recorded / "stdout.log"},
        )
        ctx = RunContext(
            spec, spec.environment("local_lab"), CAMPAIGN, "sleep", {"seconds": 0.1}, repetition, "tiny"
        )
        records += get_workload("sleep").parse(ctx, step)
    return records


@pytest.fixture(scope="module")
def recorded(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One warehouse with recorded results of the implemented studies, built by one dbt build."""
    from helpers.bigbench import lab_records as bigbench_records
    from helpers.golden import published_records
    from helpers.graph import recorded_records as graph_records
    from helpers.hdfs_links import recorded_records as links_records
    from helpers.report import LATE
    from helpers.report import records as hibench_lab_records
    from helpers.ycsb import parsed_recording, records

    tmp = tmp_path_factory.mktemp("recorded")
    target = tmp / "warehouse.duckdb"
    wh.load_records(
        target,
        records()
        + parsed_recording()
        + example_records()
        + graph_records(CAMPAIGN)
        + links_records(CAMPAIGN)
        + [ResultRecord.model_validate(row) for row in bigbench_records(CAMPAIGN)]
        + hibench_lab_records(CAMPAIGN, LATE),  # with TestDFSIO: the hibench plugin's mart has rows
    )
    for study in (
        "ycsb_hbase_cassandra",
        "mapreduce_ssd_hdd",
        "hdfs_interconnects",
        "bigbench_containers",
        EXAMPLE_ID,
    ):
        wh.upsert_study_thresholds(target, study, load_spec(study).thresholds.max_stddev_pct)
        wh.upsert_axis_comparisons(target, study, load_spec(study).axes)  # as the load step does
    source = tmp / "published.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in published_records()))
    assert main(["import", str(source), "--warehouse", str(target)]) == ExitCode.OK  # and the dbt build
    return target
