"""Jinja2 for the results page and the HTML report, and template fragments study plugins bring.

One environment with autoescaping: every value a template shows (study, campaign, cell text,
a failure's details) is escaped by Jinja itself, so no renderer builds HTML by string joins.
The page's templates live in `presentation/templates/`; a study's fragments live in its own
folder and are rendered by `TemplateSection`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from benchcamp.presentation.blocks import Tables

TEMPLATES = Path(__file__).with_name("templates")


def _percent(value: float | None) -> str:
    """A % difference as the comparison shows it: signed, one decimal (no `-0.0%` for a rounding)."""
    if value is None:
        return ""
    return "±0.0%" if abs(value) < 0.05 else f"{value:+.1f}%"


@cache
def environment() -> jinja2.Environment:
    """The page's templates (presentation/templates), autoescaped, undefined names an error."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["percent"] = _percent
    return env


def render(template: str, **context: Any) -> str:
    """One of the page's templates rendered with `context`."""
    return environment().get_template(template).render(**context)


@cache
def _fragment(path: Path) -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(path.parent),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(path.name)


@dataclass(frozen=True)
class TemplateSection:
    """A study's page section as a Jinja2 fragment in its folder and the data it shows.

    `context` turns the campaign's tables into the fragment's variables (plain values: the
    fragment formats and Jinja escapes them). Called with the tables it returns the rendered
    HTML, so it is a `PageSection` (`core.study`) like a function returning HTML is.
    """

    template: Path
    context: Callable[[Tables], Mapping[str, Any]]

    def __call__(self, tables: Tables) -> str:
        return str(Markup(_fragment(self.template).render(**self.context(tables))))
