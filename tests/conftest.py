"""Shared test set-up: every test gets its own results dir, warehouse and Airflow home."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

# Helpers' asserts explain their failures as a test's own do; registered before they are imported.
pytest.register_assert_rewrite("helpers")
# Fixtures modules in several folders use by name (tests/helpers/__init__.py says why they are
# not imported from test modules): the shared lab's, for the integration modules of
# tests/integration and tests/studies/<study>/; the study contract's recorded warehouse, for
# tests/unit/test_study_contract.py and the browser's tests/integration/test_results_page_browser.py.
pytest_plugins = ["helpers.lab", "helpers.stack", "helpers.study_contract"]

os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
os.environ.setdefault("AIRFLOW__COSMOS__ENABLE_TELEMETRY", "False")

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def isolated_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("BENCHCAMP_WAREHOUSE", str(tmp_path / "warehouse" / "benchcamp.duckdb"))
    return tmp_path


@pytest.fixture(scope="session")
def made_by_setup() -> Callable[..., None]:
    """`(*needs)` fails the test when something `make setup` builds or installs is missing: a
    path (a `*` in its name: any file matching it), e.g. a jar of lab/*/target, the lab's Hadoop
    jars or openssh-server's sshd, or a command on PATH (java comes with setup's Maven). A skip
    would let the suite pass without running the test; the failure says how to get it instead."""

    def require(*needs: Path | str) -> None:
        missing = [_named(need) for need in needs if not _present(need)]
        if missing:
            pytest.fail(f"{', '.join(missing)} missing: run `make setup`", pytrace=False)

    return require


def _present(need: Path | str) -> bool:
    if isinstance(need, Path):
        return any(need.parent.glob(need.name))
    return shutil.which(need) is not None


def _named(need: Path | str) -> str:
    if isinstance(need, Path):
        return str(need.relative_to(ROOT)) if need.is_relative_to(ROOT) else str(need)
    return f"{need} on PATH"
