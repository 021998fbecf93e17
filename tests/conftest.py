"""Shared test set-up: every test gets its own results dir, warehouse and Airflow home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
os.environ.setdefault("AIRFLOW__COSMOS__ENABLE_TELEMETRY", "False")

DATA = Path(__file__).parent / "data"


@pytest.fixture
def isolated_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("BENCHCAMP_WAREHOUSE", str(tmp_path / "warehouse" / "benchcamp.duckdb"))
    return tmp_path
