"""Imports point downward (README "Layout"): the import-linter contracts in pyproject.toml hold.

Kept by import-linter, which follows indirect imports too: the layers
ops > airflow > presentation > pipeline > workloads > transport > platforms > core import only
downward; no generic layer imports `benchcamp.studies`; the cli and `make up`'s stack share
`benchcamp.airflow.airflow_env` instead of importing each other; the transport reads what it needs
of Hadoop and Hive from `benchcamp.platforms`, never from a workload's private module.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "include" / "benchcamp"


def test_the_import_contracts_are_kept() -> None:
    result = subprocess.run(
        [
            str(Path(sys.executable).with_name("lint-imports")),
            "--config",
            str(ROOT / "pyproject.toml"),
            "--no-cache",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def _contracts() -> list[dict[str, Any]]:
    contracts: list[dict[str, Any]] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"
    ]["importlinter"]["contracts"]
    return contracts


def test_every_subpackage_is_a_layer_and_none_imports_the_studies() -> None:
    """A new top-level module or subpackage of benchcamp must find its place in the layers."""
    contracts = _contracts()
    layers = next(c for c in contracts if c["type"] == "layers")
    assert layers["containers"] == ["benchcamp"]
    children = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.is_file() and path.suffix == ".py") or (path / "__init__.py").is_file()
    }
    assert children - {"__init__", "studies"} == set(layers["layers"])
    studies = next(c for c in contracts if c.get("forbidden_modules") == ["benchcamp.studies"])
    assert studies["source_modules"] == [f"benchcamp.{layer}" for layer in reversed(layers["layers"])]


def test_every_private_workload_module_is_forbidden_to_the_transport() -> None:
    """import-linter has no `_*` wildcard: the contract lists them, and a new one must be added."""
    contracts = _contracts()
    targets = next(
        c
        for c in contracts
        if c["type"] == "forbidden"
        and "benchcamp.transport" in c["source_modules"]
        and all(name.startswith("benchcamp.workloads._") for name in c["forbidden_modules"])
    )
    private = {f"benchcamp.workloads.{path.stem}" for path in (PACKAGE / "workloads").glob("_*.py")}
    private.discard("benchcamp.workloads.__init__")
    assert private and private <= set(targets["forbidden_modules"])
