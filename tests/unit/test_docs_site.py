"""The documentation: the README's commands exist, and the site's generated reference pages say
what the code and the dbt project say (benchcamp.ops.docs_site). The site itself is built with
`mkdocs build --strict` by `make docs` and by tests/run-suite's unit lane, so a broken link fails
there; these tests pin the generated content without a build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from benchcamp.core.outcomes import table
from benchcamp.core.records import ResultRecord
from benchcamp.core.spec import Environment, StudySpec, load_spec, study_names
from benchcamp.ops import cli, docs_site

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# the documents a user copies `make` commands from
DOCUMENTS = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
RETIRED_TARGETS = {"test-integration"}  # replaced by the lanes (make test-lane, make test-all), 2026-12-01


def makefile_targets() -> set[str]:
    """The targets the Makefile defines (rule lines, not variable assignments)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {
        name
        for line in text.splitlines()
        if (match := re.match(r"^([a-z][\w-]*)\s*:(?!=)", line))
        for name in [match.group(1)]
    }


def code_blocks(text: str) -> str:
    """The text of a document's fenced code blocks."""
    return "\n".join(re.findall(r"^[ \t]*```[^\n]*\n(.*?)^[ \t]*```", text, flags=re.MULTILINE | re.DOTALL))


def make_commands(text: str) -> set[str]:
    """Every `make X` a document names: in code spans and at the start of a code block's line."""
    spans = re.findall(r"`make ([a-z][\w-]*)", text)
    lines = re.findall(r"^\s*(?:\$ )?make ([a-z][\w-]*)", code_blocks(text), flags=re.MULTILINE)
    return set(spans) | set(lines)


def benchcamp_commands(text: str) -> set[str]:
    """Every `benchcamp X` a document names: in code spans and at the start of a code block's line."""
    spans = re.findall(r"`(?:\.venv/bin/)?benchcamp ([a-z][\w-]*)", text)
    lines = re.findall(
        r"^\s*(?:\$ )?(?:\.venv/bin/)?benchcamp ([a-z][\w-]*)", code_blocks(text), flags=re.MULTILINE
    )
    return set(spans) | set(lines)


def cli_commands() -> set[str]:
    """The `benchcamp` CLI's subcommands, from its parser."""
    return {prog.split()[1] for prog, _ in docs_site._parsers(cli.build_parser()) if " " in prog}


def test_the_makefile_targets_are_read_from_its_rules() -> None:
    targets = makefile_targets()
    assert {"run", "test", "docs", "up", "down", "status", "lab-up", "benchmark", "manifest"} <= targets
    assert "VENV" not in targets and "LADDER" not in targets  # assignments are no targets


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_make_command_a_document_names_is_a_makefile_target(document: Path) -> None:
    named = make_commands(document.read_text(encoding="utf-8"))
    # the changelog records what was run then, under the names targets had then
    retired = RETIRED_TARGETS if document.name == "changelog.md" else set()
    assert named - makefile_targets() - retired == set(), (
        f"{document.name} names make targets the Makefile lacks"
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_benchcamp_command_a_document_names_is_a_cli_command(document: Path) -> None:
    named = benchcamp_commands(document.read_text(encoding="utf-8"))
    assert named - cli_commands() == set(), f"{document.name} names benchcamp commands the CLI lacks"


def test_the_commands_are_read_from_code_not_prose() -> None:
    text = "benchcamp turns studies into campaigns: `benchcamp run x`\n```sh\n$ .venv/bin/benchcamp report y\n```\n"
    assert benchcamp_commands(text) == {"run", "report"}
    assert make_commands("make sure of it; `make docs`\n```\nmake test-unit PYTEST_ARGS=-x\n```") == {
        "docs",
        "test-unit",
    }
    assert {"run", "import", "report", "spec", "lab", "airflow-env"} <= cli_commands()


def test_the_readme_names_its_two_commands_first_and_fits_a_few_screens() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[3].startswith("make run ") and lines[4].startswith("make test ")
    assert make_commands(README.read_text(encoding="utf-8")) >= {"run", "test", "up", "docs"}
    assert len(lines) <= 250, "the README is the short tour: details go to a page under docs/"


@pytest.mark.parametrize("document", [README, ROOT / "CONTRIBUTING.md"], ids=lambda path: path.name)
def test_the_repository_documents_link_only_to_files_that_exist(document: Path) -> None:
    """GitHub shows these as they are: a link to a generated reference page would be broken."""
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", document.read_text(encoding="utf-8"))
    assert targets
    assert [target for target in targets if "://" not in target and not (ROOT / target).exists()] == []


def test_the_nav_names_only_pages_that_exist_or_are_generated() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(items: list[object]) -> list[str]:
        out: list[str] = []
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            out += pages(value) if isinstance(value, list) else [str(value)]
        return out

    named = pages(config["nav"])
    generated = set(docs_site.reference_pages(ROOT))
    assert generated <= set(named)
    assert [page for page in named if page not in generated and not (ROOT / "docs" / page).is_file()] == []
    assert config["hooks"] == ["include/benchcamp/ops/docs_site.py"]


def test_the_spec_page_lists_every_key_with_its_model_s_type_default_and_meaning() -> None:
    page = docs_site.spec_page()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    keys = [row.split("|")[1].strip().strip("`") for row in rows]
    assert set(StudySpec.model_fields) <= set(keys)
    flat = {key for model in Environment.option_parts().values() for key in model.spec_keys()}
    assert flat <= set(keys)  # an environment's options as a spec writes them, flat
    assert (
        "| `hadoop_command` | str | `hadoop` | not empty | hadoop | e.g. hadoop, yarn, dse hadoop |" in rows
    )
    assert (
        "| `repetitions` | int | `3` | ≥ 1; ≤ 100 |  |" in rows
        and "| `schedule` | str \\| null | `null` |  | cron; null = manual only |" in rows
    )
    # a nested model links to its own table, whose heading MkDocs gives that anchor
    assert "(see [`history.change_points`](#historychange_points))" in page
    assert "### `history.change_points`" in page
    assert "| `max_pvalue` | float | `0.001` | > 0; < 1 |" in page
    assert "## claims.yaml" in page


def test_the_cli_page_has_every_command_s_help_and_the_exit_codes() -> None:
    page = docs_site.cli_page()
    headings = re.findall(r"^## `(.+)`$", page, flags=re.MULTILINE)
    assert headings == [
        "benchcamp",
        "benchcamp import",
        "benchcamp report",
        "benchcamp spec",
        "benchcamp spec check",
        "benchcamp lab",
        "benchcamp run",
        "benchcamp up",
        "benchcamp down",
        "benchcamp status",
        "benchcamp airflow-init",
        "benchcamp airflow-env",
    ]
    assert "usage: benchcamp report [-h] [--campaign CAMPAIGN]" in page
    helps = re.findall(r"^```\n(.*?)^```$", page, flags=re.MULTILINE | re.DOTALL)
    assert len(helps) == len(headings)
    assert max(len(line) for text in helps for line in text.splitlines()) <= docs_site.HELP_WIDTH
    assert table() in page


def test_the_record_page_lists_the_record_s_fields_in_order() -> None:
    page = docs_site.record_page()
    fields = re.findall(r"^\| `(\w+)` \|", page, flags=re.MULTILINE)
    assert fields == list(ResultRecord.model_fields)
    assert "| `repetition` | int | required | ≥ -99; ≤ 1000000 |" in page
    assert "`status` is one of `ok`, `failed`, `warmup`, `warmup_failed`." in page


def test_the_marts_page_has_every_mart_and_its_columns_from_the_dbt_yaml() -> None:
    page = docs_site.marts_page(ROOT)
    files = docs_site.mart_files(ROOT)
    assert ROOT / "dbt_project/models/marts/scaling.yml" in files
    assert any("/marts/" in path.as_posix() and "studies" in path.parts for path in files)
    models = [model["name"] for path in files for model in yaml.safe_load(path.read_text())["models"]]
    assert re.findall(r"^## `(\w+)`$", page, flags=re.MULTILINE) == models
    assert "| `data_size_gb` | total input size in GiB (what the studies call GB). |" in page
    assert "| `stddev_s` | σ (s), the sample standard deviation (n − 1) of the durations. |" in page


def test_each_study_has_a_page_whose_spec_tables_come_from_its_spec() -> None:
    for study in study_names():
        page = (ROOT / "docs" / "studies" / f"{study}.md").read_text(encoding="utf-8")
        assert f"<!-- spec tables: {study} -->" in page, study
        filled = docs_site.with_spec_tables(page)
        spec = load_spec(study)
        assert all(f"| `{axis}` |" in filled for axis in spec.axes), study
        assert all(f"| `{env.name}`" in filled for env in spec.environments), study
        assert "<!-- spec tables" not in filled


def test_the_spec_tables_say_what_the_spec_says() -> None:
    tables = docs_site.spec_tables("hibench_dse").splitlines()
    assert (
        "| `data_size_gb` | GiB | `tiny`: 0.012, 0.017, 0.022; `small`: 0.024, 0.034, 0.044; "
        "`paper`: 240, 340, 440 | smallest | total input size across the cluster |"
    ) in tables
    assert "| `maps` |  | 3, 4, 6, 12 | 4 | map tasks per node (HiBench NUM_MAPS) |" in tables
    assert (
        "| `dse_cluster` | `dse_gateway_ssh` | a DataStax Enterprise cluster reached through its gateway node |"
        in tables
    )
    assert tables[0] == "| axis | unit | values | baseline | meaning |"
