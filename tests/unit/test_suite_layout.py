"""Which tier or lane runs a test is decided by tests/lanes.toml: the unit tier (tier 1's `-m "not
integration"`) runs every test without the integration mark, and each lane's sessions name the
integration modules it runs. Checked here, from the runner's own sessions and one collection of
the tree: every test is run by exactly one tier or lane, each integration module whole; no unit
module holds an integration test (it would never run); module basenames are unique and no test
module imports another; an unknown lane exits 2 naming the lanes; the CI lane is deterministic."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from _pytest.mark.expression import Expression

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
    assert found == [], f"integration tests under tests/unit never run in any lane: {found}"


ROOT = UNIT.parents[1]
TESTS = ROOT / "tests"
SUITE = TESTS / "run-suite"


def _test_modules() -> list[Path]:
    """Every test module pytest collects (tests/data holds data, not tests)."""
    return sorted(path for path in TESTS.rglob("test_*.py") if TESTS / "data" not in path.parents)


def test_no_test_module_imports_another() -> None:
    """Shared helpers are fixtures (a conftest.py, or a plugin tests/conftest.py registers) or
    modules of tests/helpers: a test module imported by another has its tests collected twice,
    and works only once its folder happens to be on sys.path."""
    found = []
    for path in [*_test_modules(), *TESTS.glob("helpers/*.py"), *TESTS.rglob("conftest.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            if any(part.startswith(("test_", "conftest")) for name in names for part in name.split(".")):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == [], f"test modules imported by name (make them fixtures or tests/helpers): {found}"


def test_test_module_basenames_are_unique() -> None:
    """pytest's default (`prepend`) import mode imports a test module by its basename: two
    `test_x.py` in folders without `__init__.py` (tests/unit, tests/integration, each
    tests/studies/<study>/) would collide, so a moved module keeps its unique name."""
    names = [path.name for path in _test_modules()]
    assert sorted(name for name in set(names) if names.count(name) > 1) == []


# one collection of the whole tree, each test with the names of its marks
LISTER = """import json, os
def pytest_collection_finish(session):
    tests = {item.nodeid: sorted({mark.name for mark in item.iter_markers()}) for item in session.items}
    with open(os.environ["TESTS_LISTED"], "w") as out:
        json.dump(tests, out)
"""


def _suite() -> ModuleType:
    """tests/run-suite itself (a script without .py), so its lanes and sessions are read, not copied."""
    loader = importlib.machinery.SourceFileLoader("run_suite", str(SUITE))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("run_suite", loader))
    loader.exec_module(module)
    return module


def _lane_sessions() -> dict[str, list[list[str]]]:
    """Each lane's pytest argument lists, as tests/run-suite builds them (the unit tier is tier1's
    first), without the pytest executable or the caller's PYTEST_ARGS (`.ci/run`'s -ra)."""
    suite = _suite()
    given = os.environ.pop("PYTEST_ARGS", None)
    try:
        lanes = {name: [command[1:] for command, _ in suite.sessions(name)] for name in suite.LANES}
    finally:
        if given is not None:
            os.environ["PYTEST_ARGS"] = given
    lanes["tier1"].insert(0, list(suite.UNIT_TESTS))
    return lanes


def _every_test(tmp: Path) -> dict[str, list[str]]:
    """Every test under pytest's testpaths (node id: its marks), collected by pytest itself."""
    (tmp / "lister").mkdir()
    (tmp / "lister" / "list_tests.py").write_text(LISTER)
    path = os.pathsep.join(filter(None, (str(tmp / "lister"), os.environ.get("PYTHONPATH"))))
    # not PYTEST_ADDOPTS: a -k or -m there would leave tests out of the collection
    env = {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}
    env.update(PYTHONPATH=path, TESTS_LISTED=str(tmp / "tests.json"))
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "list_tests"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert collected.returncode == 0, collected.stdout[-4000:] + collected.stderr[-4000:]
    tests: dict[str, list[str]] = json.loads((tmp / "tests.json").read_text())
    return tests


def _names(nodeid: str, selector: str) -> bool:
    """Whether a path or node id given on pytest's command line names this test."""
    if "::" in selector:
        return nodeid == selector or nodeid.startswith((selector + "::", selector + "["))
    selector = selector.rstrip("/")
    path = nodeid.split("::", 1)[0]
    return path == selector or path.startswith(selector + "/")


def _selected(args: list[str], tests: dict[str, list[str]]) -> set[str]:
    """The tests a session with these arguments runs, selected as pytest selects them: the
    positional paths and node ids (none: the testpaths, every test here), less `--ignore`d paths
    and `--deselect`ed node-id prefixes, then the `-m` expression over each test's marks."""
    named: list[str] = []
    ignored: list[str] = []
    deselected: list[str] = []
    marks = None
    given = iter(args)
    for arg in given:
        if arg == "-m":
            marks = Expression.compile(next(given))
        elif arg.startswith("--ignore="):
            ignored.append(arg.removeprefix("--ignore="))
        elif arg.startswith("--deselect="):
            deselected.append(arg.removeprefix("--deselect="))
        elif arg.startswith("--basetemp="):
            continue
        elif arg in ("-n", "--dist"):  # pytest-xdist's workers run what the session selects
            next(given)
        else:
            assert not arg.startswith("-"), f"tests/run-suite passes {arg}: teach _selected what it selects"
            named.append(arg)
    for selector in named + ignored + deselected:  # a stale name selects, or leaves out, nothing
        assert any(_names(nodeid, selector) for nodeid in tests), (
            f"tests/lanes.toml names {selector}: no such test"
        )
    return {
        nodeid
        for nodeid, test_marks in tests.items()
        if (not named or any(_names(nodeid, selector) for selector in named))
        and not any(_names(nodeid, path) for path in ignored)
        and not nodeid.startswith(tuple(deselected))
        and (marks is None or _carries(marks, test_marks))
    }


def _carries(expression: Expression, marks: list[str]) -> bool:
    """Whether a test with these marks matches a `-m` expression, by pytest's own evaluation."""
    return expression.evaluate(lambda name, /, **_: name in marks)


def test_every_test_runs_in_exactly_one_tier_or_lane(tmp_path: Path) -> None:
    """A test that no session of tests/lanes.toml selects never runs (an integration module no
    lane names, an integration test under tests/unit); an integration test two lanes run costs its
    time twice. Each module with an integration test is in exactly one tier or lane, whole; the
    unit tier (tier 1's `-m "not integration"`) runs every other test."""
    tests = _every_test(tmp_path)
    lanes = _lane_sessions()
    chosen = {name: set().union(*(_selected(args, tests) for args in lane)) for name, lane in lanes.items()}
    never = sorted(set(tests) - set().union(*chosen.values()))
    assert never == [], f"no tier or lane of tests/lanes.toml runs these: {never}"
    modules: dict[str, set[str]] = {}
    for name, selected in chosen.items():
        for nodeid in selected:
            if "integration" in tests[nodeid]:
                modules.setdefault(nodeid.split("::", 1)[0], set()).add(name)
    twice = {module: sorted(names) for module, names in modules.items() if len(names) > 1}
    assert twice == {}, f"modules in more than one tier or lane of tests/lanes.toml: {twice}"
    for module in modules:  # whole: a lane that names some of a module's tests runs all of them
        integration = {
            nodeid
            for nodeid, marks in tests.items()
            if nodeid.startswith(module + "::") and "integration" in marks
        }
        (lane,) = modules[module]
        assert integration <= chosen[lane], (
            f"{lane} runs only some of {module}: {sorted(integration - chosen[lane])}"
        )
    assert len(modules) >= 15 and set(lanes) >= {"tier1", "cluster", "stack"}, (modules, lanes)


def test_an_unknown_lane_names_the_lanes_and_exits_2() -> None:
    run = subprocess.run(
        [sys.executable, str(SUITE), "nope"], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 2, run
    assert "unknown lane nope: the lanes are tier1, cluster" in run.stderr, run.stderr


def test_the_ci_lane_is_one_of_the_lanes_and_says_why() -> None:
    """`.ci/run`'s choice is the repository's alone: the same commit gives the same lane."""
    runs = [
        subprocess.run(
            [sys.executable, str(SUITE), "choose"], capture_output=True, text=True, timeout=60, check=False
        )
        for _ in range(2)
    ]
    assert all(run.returncode == 0 for run in runs), runs
    (lane,) = {run.stdout.strip() for run in runs}
    assert lane in _suite().LANES and lane != "tier1", lane
    assert runs[0].stderr.startswith(f"{lane}: commit "), runs[0].stderr
