"""`benchcamp report --beside ENV` (presentation/beside.py): a campaign's cells beside the same
cells' latest campaign on another environment, from a warehouse built by dbt as campaigns build it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from benchcamp.core.records import ResultRecord
from benchcamp.ops import cli
from benchcamp.pipeline import warehouse as wh
from benchcamp.pipeline.transform import build_marts
from benchcamp.presentation.beside import render_beside

STUDY = "hibench_dse"
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _records(
    campaign: str, environment: str, finished: datetime, means: dict[float, float]
) -> list[ResultRecord]:
    """WordCount (4 maps, 2 reduces) at each size: three repetitions of mean - 1, mean, mean + 1."""
    return [
        ResultRecord(
            study=STUDY,
            campaign=campaign,
            environment=environment,
            workload="wordcount",
            params={"data_size_gb": size, "maps": 4, "reduces": 2},
            repetition=rep,
            metric="duration_s",
            value=mean + rep - 2,
            unit="s",
            status="ok",
            started_at=finished - timedelta(seconds=mean + rep - 2),
            finished_at=finished,
        )  # fmt: skip
        for size, mean in means.items()
        for rep in (1, 2, 3)
    ]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("beside") / "benchcamp.duckdb"
    wh.load_records(path, _records("lab_old", "local_lab", T0, {0.012: 50.0, 0.017: 57.0}))
    wh.load_records(path, _records("lab_new", "local_lab", T0 + timedelta(days=1), {0.012: 40.0}))
    cluster = {0.012: 60.0, 0.017: 114.0, 0.022: 80.0}
    wh.load_records(path, _records("on_cluster", "lab_cluster", T0 + timedelta(days=2), cluster))
    build_marts(path, unit_tests=False)  # dbt's unit tests: test_marts_golden's scenario
    return path


def test_each_cell_is_set_beside_its_latest_campaign_on_the_other_environment(warehouse: Path) -> None:
    text = render_beside(warehouse, STUDY, "on_cluster", "local_lab")
    rows = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in text.splitlines()
        if line.startswith("| wordcount")
    ]
    # workload, settings, environment, size, mean here, mean there, ratio, campaign there
    # 0.012: the latest local_lab campaign with that cell (lab_new, mean 40); 0.017: only lab_old
    # has it (57); 0.022: never measured there, listed with dashes
    assert [row[4:] for row in rows] == [
        ["60.00 ± 1.00 (n=3)", "40.00 ± 1.00 (n=3)", "1.50x", "lab_new"],
        ["114.00 ± 1.00 (n=3)", "57.00 ± 1.00 (n=3)", "2.00x", "lab_old"],
        ["80.00 ± 1.00 (n=3)", "-", "-", "-"],
    ]
    assert {tuple(row[:3]) for row in rows} == {("wordcount", "maps=4 reduces=2", "lab_cluster")}
    assert [row[3] for row in rows] == ["0.012", "0.017", "0.022"]  # sizes as the ladder writes them
    header = [cell.strip() for cell in text.splitlines()[1].split("|")[1:-1]]
    assert header == [
        "workload",
        "settings",
        "environment",
        "size GiB",
        "mean s",
        "local_lab mean s",
        "ratio",
        "campaign",
    ]
    assert text.splitlines()[-1].startswith("fingerprints: lab_cluster ")
    assert "local_lab " in text.splitlines()[-1]


def test_an_environment_never_run_says_so(warehouse: Path) -> None:
    text = render_beside(warehouse, STUDY, "on_cluster", "local_lab_yarn")
    assert "no campaign of hibench_dse on local_lab_yarn" in text and "run it there first" in text


def test_the_cli_refuses_an_unknown_environment_before_reading(
    warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["report", STUDY, "--warehouse", str(warehouse), "--beside", "nowhere"])
    assert code == cli.ExitCode.BAD_INPUT
    assert "--beside nowhere: not an environment of hibench_dse" in capsys.readouterr().err


def test_the_cli_resolves_baseline_to_the_studys_baseline_environment(
    warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["report", STUDY, "--warehouse", str(warehouse), "--beside", "baseline"])
    assert code == cli.ExitCode.OK
    assert "on_cluster beside local_lab" in capsys.readouterr().out
