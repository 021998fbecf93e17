"""Imports point downward (DESIGN.md "Layers"): the import-linter contracts in pyproject.toml hold.

Kept by import-linter, which follows indirect imports too: the cli and `make up`'s stack share
`benchcamp.airflow.airflow_env` instead of importing each other; targets read what they need of Hadoop
and Hive from `benchcamp.platforms`, never from a workload's private module.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

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


def test_every_private_workload_module_is_forbidden_to_the_targets() -> None:
    """import-linter has no `_*` wildcard: the contract lists them, and a new one must be added."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    targets = next(
        c for c in contracts if "benchcamp.transport" in c["source_modules"] and c["type"] == "forbidden"
    )
    private = {f"benchcamp.workloads.{path.stem}" for path in (PACKAGE / "workloads").glob("_*.py")}
    private.discard("benchcamp.workloads.__init__")
    assert private and private <= set(targets["forbidden_modules"])
