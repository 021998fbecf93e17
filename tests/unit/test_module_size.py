"""The house rule (STYLE.md; issue 30): no module of the package over about 600 lines without the
reason at its top (before its imports). A module that grows past it is split by concern, or its first lines say why
it reads better whole (`# Over 600 lines: ...`). Several had grown past it unnoticed."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "include" / "benchcamp"
LIMIT = 650  # "about 600"
REASON = "# Over 600 lines"


def test_every_module_over_about_600_lines_says_why_at_its_top() -> None:
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        top = lines[: next((n for n, line in enumerate(lines) if line.startswith(("import ", "from "))), 0)]
        if len(lines) > LIMIT and not any(line.startswith(REASON) for line in top):
            unexplained.append(f"{path.relative_to(PACKAGE)}: {len(lines)} lines")
    assert not unexplained, f"split by concern, or say why at the top ('{REASON}: ...'): " + "; ".join(
        unexplained
    )
