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


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, modules: set[str]) -> list[str]:
    """The package's modules an import statement loads (a `from x import y` of a submodule: x.y)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    base = node.module or ""
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def test_no_import_inside_a_function_hides_a_cycle() -> None:
    """An import inside a function may keep a heavy module off an import path (the CLI, a DAG file),
    never hide a cycle: the module it imports must not import the importing module back, directly
    or through other module-level imports (what `blocks.py`/`report.py` and `spec.py`/`study.py`
    did)."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(paths)
    top: dict[str, set[str]] = {}
    inner: dict[str, list[tuple[int, str]]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top[name], inner[name] = set(), []
        pending: list[tuple[ast.AST, bool]] = [(node, False) for node in tree.body]
        while pending:
            node, in_function = pending.pop()
            if isinstance(node, ast.If) and _is_type_checking(node):
                continue  # never runs
            if isinstance(node, ast.Import | ast.ImportFrom):
                for module in _imported(node, modules):
                    if module in modules and module != name:
                        if in_function:
                            inner[name].append((node.lineno, module))
                        else:
                            top[name].add(module)
            nested = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            pending += [(child, nested) for child in ast.iter_child_nodes(node)]

    def reaches(start: str, goal: str) -> bool:
        seen, stack = set(), [start]
        while stack:
            module = stack.pop()
            if module == goal:
                return True
            if module not in seen:
                seen.add(module)
                stack += top.get(module, ())
        return False

    assert len(paths) > 90 and sum(len(found) for found in inner.values()) > 50  # the scan sees them
    cycles = [
        f"{paths[name].relative_to(ROOT)}:{line}: imports {module}, which imports it back"
        for name, found in inner.items()
        for line, module in dict.fromkeys(found)
        if reaches(module, name)
    ]
    assert not cycles, "\n".join(cycles)
