"""No code branches on a lab environment's name (issue 29): what a study needs of the lab is a
spec key or a connection that a real cluster can set too, so the same DAG runs unchanged there.

Every string literal in the package that equals the name of an environment reached through a lab
connection (the one-host lab's, the lab cluster's, a study's own lab target's) is a branch on
being in the lab, or a default that only the lab satisfies."""

from __future__ import annotations

import ast
from pathlib import Path

from benchcamp.core.spec import load_spec, study_names
from benchcamp.ops.lab import lab_ssh_connection_ids

PACKAGE = Path(__file__).resolve().parents[2] / "include" / "benchcamp"
# Known, to be made a spec key (the BigBench Spark step's way into the lab's container): listed
# here so that it is seen, and so that this test fails once it is gone and the entry must go too.
KNOWN = {("studies/bigbench_containers/workloads/run.py", "lab_container")}


def _lab_environment_names() -> set[str]:
    connections = lab_ssh_connection_ids()
    return {
        environment.name
        for study in study_names()
        for environment in load_spec(study).environments
        if environment.transport.connection in connections
    }


def test_no_module_names_a_lab_environment() -> None:
    names = _lab_environment_names()
    assert {"local_lab", "lab_cluster", "lab_ram"} <= names  # the scan looks for real names
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                found.add((str(path.relative_to(PACKAGE)), node.value))
    assert found == KNOWN, sorted(found - KNOWN) or f"no longer found, remove from KNOWN: {KNOWN - found}"
