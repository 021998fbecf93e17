"""Project-local default locations, each overridable by an environment variable."""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The checkout (the folder with pyproject.toml): include/benchcamp/paths.py → parents[2]."""
    return Path(__file__).resolve().parents[2]


def results_root() -> Path:
    return Path(os.environ.get("BENCHCAMP_RESULTS") or repo_root() / "results")


def default_warehouse() -> Path:
    return Path(os.environ.get("BENCHCAMP_WAREHOUSE") or repo_root() / "warehouse" / "benchcamp.duckdb")


def airflow_home() -> Path:
    return Path(os.environ.get("AIRFLOW_HOME") or repo_root() / ".airflow")
