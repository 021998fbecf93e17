"""Imports point downward (README "Layout"): the import-linter contracts in pyproject.toml hold.

Kept by import-linter, which follows indirect imports too: the layers
ops > airflow > presentation > pipeline > workloads > transport > platforms > core import only
downward; no generic layer imports `benchcamp.studies`; the cli and `make up`'s stack share
`benchcamp.airflow.airflow_env` instead of importing each other; the studies reach the lab only through
the Hadoop-install toolkit (`benchcamp.ops.toolkit`) and the lab package's public names.
"""

from __future__ import annotations

import ast
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


def test_studies_are_kept_from_every_internal_module() -> None:
    """import-linter has no wildcard: the studies' contract lists every module of ops.lab (its
    package's names are the public ones), the supervisor and every workloads/_*.py; a new one
    must be added."""
    contract = next(
        c for c in _contracts() if c["type"] == "forbidden" and c["source_modules"] == ["benchcamp.studies"]
    )
    internal = {f"benchcamp.ops.lab.{path.stem}" for path in (PACKAGE / "ops" / "lab").glob("*.py")}
    internal -= {"benchcamp.ops.lab.__init__", "benchcamp.ops.lab.__main__"}
    internal |= {f"benchcamp.workloads.{path.stem}" for path in (PACKAGE / "workloads").glob("_*.py")}
    internal.discard("benchcamp.workloads.__init__")
    assert internal and internal | {"benchcamp.ops.supervisor"} <= set(contract["forbidden_modules"])


def test_studies_import_no_private_name() -> None:
    """`from benchcamp.x import _name` reaches around a module's public face (as `_apt_install`
    did): a study uses what the toolkit and the layers export."""
    found = []
    for path in sorted((PACKAGE / "studies").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchcamp"):
                names = [alias.name for alias in node.names if alias.name.startswith("_")]
                parts = [part for part in (node.module or "").split(".") if part.startswith("_")]
                if names or parts:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module} {names}")
    assert not found, found
