"""Where a test lives decides whether `make test` runs it: the unit lane deselects the integration
mark and the integration streams collect tests/integration only, so an integration test under
tests/unit would never run (two did, until they moved to tests/integration/test_bigbench_jars.py)."""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).resolve().parent


def _marks_integration(node: ast.AST) -> bool:
    """`pytest.mark.integration` (or `mark.integration`), as a decorator or in `pytestmark`."""
    return any(
        isinstance(inner, ast.Attribute)
        and inner.attr == "integration"
        and "mark" in ast.unparse(inner.value)
        for inner in ast.walk(node)
    )


def test_no_unit_module_holds_an_integration_test() -> None:
    found = []
    for path in sorted(UNIT.glob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            decorated = isinstance(node, ast.FunctionDef | ast.ClassDef) and any(
                _marks_integration(decorator) for decorator in node.decorator_list
            )
            module_mark = (
                isinstance(node, ast.Assign)
                and any(isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets)
                and _marks_integration(node.value)
            )
            if decorated or module_mark:
                found.append(f"{path.name}:{node.lineno}")
    assert found == [], f"integration tests under tests/unit never run in make test: {found}"
