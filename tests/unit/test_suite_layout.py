"""Where a test lives and what tests/run-suite names decide whether `make test` runs it: the unit
lane deselects the integration mark, stream 2 collects tests/integration and tests/studies less
the modules the other sessions run, and those sessions name modules and node ids. A test none of them selects
never runs (two integration tests under tests/unit did not, until they moved beside the
BigBench jars' tests); the last test here reads the sessions from the script itself and fails on
any such test."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

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
    assert found == [], f"integration tests under tests/unit never run in make test: {found}"


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


# what tests/run-suite calls besides the tools it is given stand-ins for (ruff, mypy, mkdocs, mvn,
# pytest): on PATH, alone, so that a command it gains is not run for real here
SHELL_TOOLS = ("awk", "cat", "date", "dirname", "head", "mkdir", "renice", "rm", "sleep", "touch")
RECORDER = '#!/bin/bash\nprintf "%s\\0" "$@" >"$SESSIONS/$$-$RANDOM"\n'
# one collection of the whole tree, each test with the names of its marks
LISTER = """import json, os
def pytest_collection_finish(session):
    tests = {item.nodeid: sorted({mark.name for mark in item.iter_markers()}) for item in session.items}
    with open(os.environ["TESTS_LISTED"], "w") as out:
        json.dump(tests, out)
"""


def _suite_sessions(tmp: Path) -> list[list[str]]:
    """The argument lists of every pytest session `make test` starts, as tests/run-suite starts
    them: the script itself runs in an empty tree with a pytest that records its arguments and
    stand-ins for the other tools, so its lists and selections are read, not copied here."""
    (tmp / "tests").mkdir()
    shutil.copy(SUITE, tmp / "tests" / "run-suite")
    venv_bin, path, sessions = tmp / "venv" / "bin", tmp / "path", tmp / "sessions"
    for directory in (venv_bin, path, sessions):
        directory.mkdir(parents=True)
    for stand_in in (
        venv_bin / "pytest",
        venv_bin / "ruff",
        venv_bin / "mypy",
        venv_bin / "mkdocs",
        path / "mvn",
    ):
        stand_in.write_text(RECORDER if stand_in.name == "pytest" else "#!/bin/bash\n")
        stand_in.chmod(0o755)
    for tool in SHELL_TOOLS:
        found = shutil.which(tool)
        assert found, f"{tool} not on PATH"
        (path / tool).symlink_to(found)
    env = {"PATH": str(path), "VENV": str(tmp / "venv"), "SESSIONS": str(sessions), "HOME": str(tmp)}
    with (tmp / "suite.log").open("w") as log:
        subprocess.run(
            [shutil.which("bash") or "bash", str(tmp / "tests" / "run-suite")],
            env=env, stdout=log, stderr=subprocess.STDOUT, timeout=120, check=False, cwd=tmp,
        )  # fmt: skip
    found = [session.read_bytes().split(b"\0")[:-1] for session in sorted(sessions.iterdir())]
    assert found, f"tests/run-suite started no pytest session:\n{(tmp / 'suite.log').read_text()}"
    return [[arg.decode() for arg in args] for args in found]


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
            f"tests/run-suite names {selector}: no such test"
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


def test_every_test_runs_in_a_session_of_make_test(tmp_path: Path) -> None:
    """A test that no session of tests/run-suite selects never runs: an integration test outside
    tests/integration, tests/studies and the modules the streams name, a module every stream ignores, a test of
    the last session's module that it does not name. Integration tests run once each (the unit
    lane's `-m "not integration"` aside, a test runs wherever a session names its module)."""
    tests = _every_test(tmp_path)
    sessions = _suite_sessions(tmp_path)
    selections = [_selected(args, tests) for args in sessions]
    never = sorted(set(tests) - set().union(*selections))
    assert never == [], f"no session of make test (tests/run-suite) runs these: {never}"
    integration = {nodeid for nodeid, marks in tests.items() if "integration" in marks}
    twice = sorted(nodeid for nodeid in integration if sum(nodeid in chosen for chosen in selections) > 1)
    assert twice == [], f"integration tests run by more than one session of make test: {twice}"
    assert len(integration) > 50 and len(sessions) >= 7, (len(integration), sessions)
