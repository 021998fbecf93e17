"""The study plugin contract: what a study folder adds to the generic pipeline, found at run time.

A study is a folder of the `benchcamp.studies` package: `spec.yaml` (what to run), and optionally
`plugin.py` defining `STUDY = Study(...)` with the hooks below (how to show and run it beyond the
generic marts), `workloads/` (its own workload modules, see `benchcamp.workloads`) and `marts/`
(its dbt models, built by the one `dbt build`: dbt_project.yml lists the studies folder). Every
hook defaults to nothing, so a folder with only a spec is a study too.

Generic layers never import `benchcamp.studies` by name (an import-linter contract): they ask this
registry, which imports each study's plugin module by its dotted name when first asked.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from benchcamp.core.figure import Figure
from benchcamp.core.records import ResultRecord

STUDIES_PACKAGE = "benchcamp.studies"
PLUGIN_MODULE = "plugin"
WORKLOADS_PACKAGE = "workloads"
SPEC_FILE = "spec.yaml"

Rows = list[dict[str, Any]]
Tables = dict[str, Rows]  # mart name → one campaign's rows, as `presentation.marts.read_tables` gives
# Lines of the text report (each block starts with ""). Prefer `presentation.blocks.TableSection`,
# a report section given as data: called it gives these lines; its `blocks(tables)` gives the rows
# the results page and the HTML report render through their templates and compare across
# campaigns. A plain function's lines are shown on the page as preformatted text.
ReportSection = Callable[[Tables], list[str]]
FigureMaker = Callable[[Tables], list[Figure]]
# An HTML fragment for the results page and the static report. Prefer
# `presentation.templating.TemplateSection(template, context)`: a Jinja2 fragment in the study's
# folder and a function of the tables giving its (autoescaped) variables; called, it renders.
PageSection = Callable[[Tables], str]
CellProblems = dict[tuple[str, str, str], list[str]]  # (environment, workload, cell_key) → messages


@dataclass(frozen=True)
class Answer:
    """What a study's headline comparisons say, for the report's answer block (printed first):
    sentences with their numbers, and notes naming the methods behind them."""

    sentences: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


# The study's headline comparisons in words (e.g. HBase against Cassandra), read from its marts'
# rows: the answer block adds them after the published claims' sentences.
AnswerSection = Callable[[Tables], Answer]


@dataclass(frozen=True)
class Mart:
    """A mart the study's report reads, in the report only when the campaign has rows in it."""

    name: str
    order_by: str  # the columns its rows are listed by (the report's row order)


@dataclass(frozen=True)
class CellCheck:
    """An expectation a study adds to the campaign suite: no cell has a problem `find` reports.

    The suite is one (exported to expectations/campaign_suite.json), so a study's checks run on
    every campaign's cells, after the generic expectations. `find` reads one campaign's measured
    records; per cell, `count_column` is how many problems it found (0 expected) and
    `details_column` their messages. `records_sql`, a DuckDB condition on the imported records
    (study, campaign, environment, workload, params as JSON, metric, value, unit, status), is
    what `benchcamp import` hands `find`: the few records the check can use.
    """

    id: str
    notes: str
    count_column: str
    details_column: str
    find: Callable[[list[ResultRecord]], CellProblems]
    records_sql: str = "status = 'ok'"


@dataclass(frozen=True)
class Study:
    """What one study adds beyond its spec, its workloads and its marts.

    The text report prints the generic sections, then `report_sections` (in order, before the
    validation verdicts); the results page and the HTML report render the same sections from
    their rows (those given as `TableSection`s) through templates; the page shows the generic
    figures, then `figures` (interactive on the page), then `page_sections`; `checks` join the validation suite; `lab_services` are the lab's optional services a campaign of the study needs
    (`benchcamp run` starts them); `build_dags` makes the study's DAGs from its id, when the one
    DAG the factory builds from the spec (once the spec has implemented workloads) is not it;
    `lab_connections` gives the `AIRFLOW_CONN_*` variables of lab environments the study runs
    itself (e.g. a second lab target), merged into the lab's own connections, and `lab_teardown`
    stops them when the lab stops (their environments' `controller_setup` starts them).
    `native_names` maps, per native format of `benchcamp import --from` (`hibench-report`), the
    tool's own workload names (a HiBench report's Type) to the study's workloads: which of the
    tool's runs measure which workload is the study's call, so a name not listed is refused.
    `effective_settings` are Hadoop/Hive settings the study varies or reports: every environment
    capture asks HiveServer2 their effective values (defaults included), whatever the study.
    `environment_options` are the study's own environment concerns (`core.environment_options.EnvironmentOptions`
    models): their flat keys are valid on every environment and read by key (`environment.option`).
    `answers` put the study's headline comparisons in words, after its claims, in the answer block
    every report starts with (`presentation.answer_section`).
    """

    id: str
    marts: tuple[Mart, ...] = ()
    report_sections: tuple[ReportSection, ...] = ()
    figures: tuple[FigureMaker, ...] = ()
    page_sections: tuple[PageSection, ...] = ()
    checks: tuple[CellCheck, ...] = ()
    lab_services: frozenset[str] = frozenset()
    build_dags: Callable[[str], list[Any]] | None = None  # airflow DAGs; None: the factory's one
    lab_connections: Callable[[], dict[str, str]] | None = None  # AIRFLOW_CONN_* name → JSON
    lab_teardown: Callable[[], None] | None = None  # stops what those lab targets run; `lab down` calls it
    native_names: dict[str, dict[str, str]] = field(default_factory=dict)  # format → tool's name → workload
    effective_settings: tuple[str, ...] = ()  # e.g. mapreduce.job.reduces: asked of HiveServer2
    # `core.environment_options.EnvironmentOptions` models: keys every environment of any spec may set
    environment_options: tuple[type[Any], ...] = ()
    answers: tuple[AnswerSection, ...] = ()


def study_lab_connections() -> dict[str, str]:
    """Every study's extra lab connections (`Study.lab_connections`), in study order."""
    connections: dict[str, str] = {}
    for plugin in study_plugins():
        if plugin.lab_connections is not None:
            connections.update(plugin.lab_connections())
    return connections


def effective_settings() -> tuple[str, ...]:
    """Every study's `effective_settings`, in study order, each once: what a capture asks Hive."""
    return tuple(dict.fromkeys(name for plugin in study_plugins() for name in plugin.effective_settings))


def study_lab_teardowns() -> list[tuple[str, Callable[[], None]]]:
    """Every study's `lab_teardown`, with the study's id, in study order."""
    return [(plugin.id, plugin.lab_teardown) for plugin in study_plugins() if plugin.lab_teardown is not None]


def _studies_package() -> Any:
    return importlib.import_module(STUDIES_PACKAGE)


def study_folders() -> dict[str, Path]:
    """Every study folder by id (sorted): a subpackage of `benchcamp.studies` holding a spec.yaml."""
    package = _studies_package()
    found = {
        module.name: Path(str(module.module_finder.path)) / module.name  # type: ignore[union-attr]
        for module in pkgutil.iter_modules(package.__path__)
        if module.ispkg
    }
    return {name: found[name] for name in sorted(found) if (found[name] / SPEC_FILE).is_file()}


def _has_module(study: str, name: str) -> bool:
    folder = study_folders().get(study)
    return folder is not None and (
        (folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file()
    )


@cache
def study_plugin(study: str) -> Study:
    """The study's `plugin.STUDY`, or the defaults when its folder has no plugin module."""
    if not _has_module(study, PLUGIN_MODULE):
        return Study(study)
    module = importlib.import_module(f"{STUDIES_PACKAGE}.{study}.{PLUGIN_MODULE}")
    plugin = getattr(module, "STUDY", None)
    if not isinstance(plugin, Study) or plugin.id != study:
        raise TypeError(f"{module.__name__}.STUDY must be Study({study!r}, ...), got {plugin!r}")
    return plugin


def study_plugins() -> list[Study]:
    """Every study's plugin (defaults for those without one), by study id."""
    return [study_plugin(study) for study in study_folders()]


def cell_checks() -> list[CellCheck]:
    """Every study's extra expectations, in study order (the suite's order after the generic ones)."""
    return [check for plugin in study_plugins() for check in plugin.checks]


def study_workload_modules() -> list[str]:
    """The dotted names of the workload modules study folders bring (`<study>/workloads/*.py`)."""
    names = []
    for study, folder in study_folders().items():
        if not _has_module(study, WORKLOADS_PACKAGE):
            continue
        package = f"{STUDIES_PACKAGE}.{study}.{WORKLOADS_PACKAGE}"
        names += [
            f"{package}.{module.name}"
            for module in pkgutil.iter_modules([str(folder / WORKLOADS_PACKAGE)])
            if not module.name.startswith("_")
        ]
    return names


# Caches of what the study folders hold, kept above this module (`core.spec`'s loaded specs):
# each registers its `cache_clear` here, so this module never imports its users.
_DERIVED_CACHES: list[Callable[[], None]] = []


def forget_with_the_studies(cache_clear: Callable[[], None]) -> None:
    """Have `forget_studies` drop a cache built from the study folders too."""
    _DERIVED_CACHES.append(cache_clear)


def forget_studies() -> None:
    """Drop what was discovered (tests that install a study into `benchcamp.studies.__path__`)."""
    study_plugin.cache_clear()
    for cache_clear in _DERIVED_CACHES:
        cache_clear()
