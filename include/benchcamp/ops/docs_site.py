"""The documentation site's reference pages, generated from the code at build time.

`mkdocs build` loads this module as a hook (mkdocs.yml `hooks:`): `on_files` adds the pages that
`reference_pages` writes, so the spec keys, the CLI's help, the result record and the marts'
columns are always what the code and the dbt project say, never a copy that drifts; and
`on_page_markdown` fills a study page's `<!-- spec tables: <study> -->` line with the axes and
environments its spec declares. The pages exist only in the built site; `make docs` builds it.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import annotated_types
import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from benchcamp.core import claims, environment_options, matrix, outcomes, records, spec
from benchcamp.core.paths import repo_root
from benchcamp.ops import cli

HELP_WIDTH = 100  # the CLI page's line width, whatever the terminal that builds the site


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _docstring(thing: object) -> str:
    """An object's docstring as one paragraph per blank-line block."""
    return inspect.cleandoc(thing.__doc__ or "")


def type_name(annotation: Any) -> str:
    """A field's type as a reader writes it: `int | null`, `list[str]`, `'tiny' | 'small'`."""
    if annotation is None or annotation is type(None):
        return "null"
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin is typing.Literal:
        return " | ".join(repr(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(arg) for arg in args)
    if origin in (list, tuple):
        inner = [type_name(arg) for arg in args if arg is not Ellipsis]
        return f"list[{', '.join(inner)}]"
    if origin is dict:
        return f"map[{type_name(args[0])}, {type_name(args[1])}]"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    alias_value = getattr(annotation, "__value__", None)  # a `type X = ...` alias
    if alias_value is not None:
        return type_name(alias_value)
    return getattr(annotation, "__name__", str(annotation))


def _constraints(info: FieldInfo) -> str:
    """The field's bounds and pattern, in words."""
    words = []
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            words.append(f"≥ {item.ge}")
        if isinstance(item, annotated_types.Gt):
            words.append(f"> {item.gt}")
        if isinstance(item, annotated_types.Le):
            words.append(f"≤ {item.le}")
        if isinstance(item, annotated_types.Lt):
            words.append(f"< {item.lt}")
        if isinstance(item, annotated_types.MinLen) and item.min_length:
            words.append("not empty" if item.min_length == 1 else f"at least {item.min_length} long")
        pattern = getattr(item, "pattern", None)
        if pattern:
            words.append(f"matches `{pattern}`")
    return "; ".join(words)


def _default(info: FieldInfo) -> str:
    """The default as YAML would write it, or `required`."""
    if info.is_required():
        return "required"
    value = (
        info.default if info.default is not PydanticUndefined else info.get_default(call_default_factory=True)
    )
    if isinstance(value, BaseModel):
        return "(its keys' defaults)"
    return f"`{yaml.safe_dump(value, default_flow_style=True).strip().removesuffix('...').strip()}`"


def _models_in(annotation: Any) -> Iterator[tuple[type[BaseModel], str]]:
    """The models a field holds and how a key path reaches into them (`[]` a list item, `<name>` a
    mapping's key)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, ""
    elif origin is typing.Annotated:
        yield from _models_in(args[0])
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _models_in(arg)
    elif origin in (list, tuple):
        for model, step in _models_in(args[0]):
            yield model, "[]" + step
    elif origin is dict:
        for model, step in _models_in(args[1]):
            yield model, ".<name>" + step


def _fields(model: type[BaseModel]) -> Iterator[tuple[str, FieldInfo, str]]:
    """A model's keys as a spec writes them, with the concern each belongs to. A model that routes
    flat keys to options models (`option_parts`) lists their keys in its place, and the studies' own
    options (`study_options`) by the concern their model names (`YcsbOptions`: ycsb)."""
    parts: dict[str, type[BaseModel]] = getattr(model, "option_parts", dict)()
    for name, info in model.model_fields.items():
        if name == "study_options" and parts:
            for study_model in environment_options.study_option_models():
                concern = study_model.__name__.removesuffix("Options").lower()
                for option, option_info in study_model.model_fields.items():
                    yield option_info.alias or option, option_info, concern
        elif name in parts:
            for option, option_info in parts[name].model_fields.items():
                yield option_info.alias or option, option_info, name
        else:
            yield info.alias or name, info, ""


def model_reference(root: type[BaseModel], title: str) -> str:
    """Every key of a YAML file read by `root`, one table per nested model, with its path."""
    lines = [f"## {title}", "", _docstring(root), ""]
    queue: list[tuple[type[BaseModel], str]] = [(root, "")]
    placed: dict[type[BaseModel], str] = {root: ""}  # each model's one section: its first path
    while queue:
        model, path = queue.pop(0)
        has_parts = hasattr(model, "option_parts")
        if path:
            lines += [f"### `{path}`", "", _docstring(model), ""]
        columns = ["key", "type", "default", "constraints", *(["concern"] if has_parts else []), "meaning"]
        lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        for key, info, concern in _fields(model):
            nested = list(_models_in(info.annotation))
            shown = type_name(info.annotation)
            for child, step in nested:
                if child not in placed:
                    placed[child] = f"{path}.{key}{step}" if path else f"{key}{step}"
                    queue.append((child, placed[child]))
                shown += f" (see [`{placed[child]}`](#{_anchor(placed[child])}))"
            cells = [f"`{key}`", shown, _default(info), _constraints(info)]
            cells += [concern or "environment"] if has_parts else []
            cells.append(info.description or "")
            lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _anchor(path: str) -> str:
    """The id MkDocs gives a `### \\`path\\`` heading (its toc slugify: word characters and hyphens)."""
    kept = "".join(ch if ch.isalnum() or ch in "_- " else "" for ch in path.lower())
    return "-".join(kept.split())


def spec_page() -> str:
    """The keys of a study's spec.yaml and claims.yaml, from the models that validate them."""
    return "\n".join(
        [
            "# Spec and claims keys",
            "",
            "Generated from the pydantic models that validate the files (`benchcamp.core.spec`,",
            "`benchcamp.core.claims`): what `benchcamp spec check` and the DAG factory accept. A key",
            "path `a[].b` is key `b` of an item of list `a`; `a.<name>.b` is key `b` under any key of",
            "mapping `a`. An environment's options are written flat under it; the concern column says",
            "which model validates each (code reads `environment.<concern>.<field>`).",
            "",
            model_reference(spec.StudySpec, "spec.yaml"),
            model_reference(claims.ClaimsFile, "claims.yaml"),
        ]
    )


def cli_page() -> str:
    """`benchcamp --help` and every subcommand's, as the parser prints them."""
    lines = [
        "# Command line",
        "",
        "Generated from `benchcamp.ops.cli.build_parser()`: each command's `--help`.",
        "",
    ]
    for prog, parser in _parsers(cli.build_parser()):
        parser.formatter_class = functools.partial(argparse.HelpFormatter, prog=parser.prog, width=HELP_WIDTH)
        lines += [f"## `{prog}`", "", "```", parser.format_help().rstrip(), "```", ""]
    lines += [
        "## Exit codes",
        "",
        "Generated from `benchcamp.core.outcomes`; when several apply, the one first in "
        f"{', '.join(str(int(code)) for code in outcomes.SEVERITY)} wins.",
        "",
        outcomes.table(),
        "",
    ]
    return "\n".join(lines)


def _parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every subcommand's parser, depth first, in the order they were added."""
    yield parser.prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _parsers(child)


def record_page() -> str:
    """The ResultRecord's fields: what the pipeline writes and `benchcamp import` accepts."""
    model = records.ResultRecord
    lines = [
        "# Result record",
        "",
        "Generated from `benchcamp.core.records.ResultRecord`. " + _docstring(model),
        "",
        "| field | type | default | constraints |",
        "|---|---|---|---|",
    ]
    for name, info in model.model_fields.items():
        cells = [f"`{name}`", type_name(info.annotation), _default(info), _constraints(info)]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    statuses = ", ".join(f"`{status}`" for status in typing.get_args(records.Status))
    lines += [
        "",
        f"`status` is one of {statuses}. [Importing results](../importing.md) says what an import refuses.",
        "",
    ]
    return "\n".join(lines)


def mart_files(root: Path) -> list[Path]:
    """Every mart's YAML: the dbt project's `models/marts/` and each study folder's `marts/`."""
    dbt = root / "dbt_project"
    return sorted(dbt.glob("models/marts/*.yml")) + sorted(dbt.glob("studies/*/marts/*.yml"))


def marts_page(root: Path) -> str:
    """Each mart with its description and its columns', from the dbt project's YAML."""
    lines = [
        "# Marts",
        "",
        "Generated from the dbt project's YAML (`dbt_project/models/marts/` and each study folder's",
        "`marts/`): the tables reports, the results page and other tools read by their column names.",
        "",
    ]
    for path in mart_files(root):
        where = path.relative_to(root).as_posix()
        for model in yaml.safe_load(path.read_text(encoding="utf-8")).get("models", []):
            lines += [
                f"## `{model['name']}`",
                "",
                f"`{where}`",
                "",
                " ".join(model.get("description", "").split()),
                "",
            ]
            columns = model.get("columns", [])
            if columns:
                lines += ["| column | meaning |", "|---|---|"]
                lines += [f"| `{col['name']}` | {_cell(col.get('description', ''))} |" for col in columns]
                lines.append("")
    return "\n".join(lines)


SPEC_TABLES = re.compile(r"^<!-- spec tables: ([a-z][a-z0-9_]*) -->$", flags=re.MULTILINE)


def _values(values: list[Any]) -> str:
    return ", ".join(f"{value:g}" if isinstance(value, float) else str(value) for value in values)


def spec_tables(study: str) -> str:
    """A study's axes and environments as its spec declares them, for its page."""
    loaded = spec.load_spec(study)
    lines = ["| axis | unit | values | baseline | meaning |", "|---|---|---|---|---|"]
    for name, axis in loaded.axes.items():
        if axis.ladder is not None:
            values = "; ".join(
                f"`{size}`: {_values(axis.ladder[size])}" for size in matrix.LADDERS if size in axis.ladder
            )
        else:
            values = _values(axis.values or [])
        baseline = "" if axis.baseline is None else str(axis.baseline)
        cells = [f"`{name}`", axis.unit, values, baseline, axis.description]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    lines += ["", "| environment | connection | meaning |", "|---|---|---|"]
    for environment in loaded.environments:
        name = f"`{environment.name}`" + (" (baseline)" if environment.baseline else "")
        cells = [name, f"`{environment.transport.connection}`", environment.description]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines)


def with_spec_tables(markdown: str) -> str:
    """A page with each `<!-- spec tables: <study> -->` line replaced by that study's tables."""
    return SPEC_TABLES.sub(lambda match: spec_tables(match.group(1)), markdown)


def reference_pages(root: Path | None = None) -> dict[str, str]:
    """The generated pages by their path under docs/."""
    root = root or repo_root()
    return {
        "reference/spec.md": spec_page(),
        "reference/cli.md": cli_page(),
        "reference/record.md": record_page(),
        "reference/marts.md": marts_page(root),
    }


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the generated reference pages to the site's files."""
    from mkdocs.structure.files import File

    for uri, content in reference_pages().items():
        files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs hook: fill a study page's spec tables from its spec."""
    return with_spec_tables(markdown)
