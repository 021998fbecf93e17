"""Project-local default locations, each overridable by an environment variable."""

from __future__ import annotations

import os
import re
from pathlib import Path


class UnsafePathName(ValueError):
    """A user-given name (campaign, cell, study) that would leave its parent folder."""


def check_component(name: str, what: str) -> str:
    """`name` as one path component that stays under its parent, locally and on HDFS.

    Refused: empty, `.`, `..`, anything with a slash, a backslash or a NUL, and names that start with
    a dot (hidden, and the step from `..` to `...` is too small to trust).
    """
    if not name or name.startswith(".") or any(bad in name for bad in ("/", "\\", "\0")):
        raise UnsafePathName(
            f"{what} {name!r} cannot name a folder: it must start with a letter or digit and hold no slash"
        )
    return name


_SAFE_SLUG = re.compile(r"[^A-Za-z0-9_.=-]+")


def slug(text: str) -> str:
    """A path component that is safe on any filesystem and stable for the same input.

    Leading dots become underscores: `.` and `..` would name the parent itself or above it.
    """
    cleaned = _SAFE_SLUG.sub("_", text).strip("_")[:180] or "_"
    return "_" * (len(cleaned) - len(cleaned.lstrip("."))) + cleaned.lstrip(".")


def child(parent: Path, *names: str, what: str = "name") -> Path:
    """`parent/names…`, each name checked by `check_component` and the result checked to be under
    `parent` once symbolic links are resolved (a link planted in the archive cannot redirect it)."""
    path = parent.joinpath(*(check_component(name, what) for name in names))
    resolved_parent = parent.resolve()
    if not path.resolve().is_relative_to(resolved_parent) or path.resolve() == resolved_parent:
        raise UnsafePathName(f"{what} {'/'.join(names)!r} resolves outside {parent}")
    return path


def repo_root() -> Path:
    """The checkout (the folder with pyproject.toml): include/benchcamp/core/paths.py → parents[3]."""
    return Path(__file__).resolve().parents[3]


def results_root() -> Path:
    return Path(os.environ.get("BENCHCAMP_RESULTS") or repo_root() / "results")


def default_warehouse() -> Path:
    """`$BENCHCAMP_WAREHOUSE`, else `<repo>/warehouse/benchcamp.duckdb` (git-ignored)."""
    return Path(os.environ.get("BENCHCAMP_WAREHOUSE") or repo_root() / "warehouse" / "benchcamp.duckdb")


def airflow_home() -> Path:
    return Path(os.environ.get("AIRFLOW_HOME") or repo_root() / ".airflow")


def write_atomically(path: Path, text: str) -> None:
    """Write a whole file or nothing: a reader polling the archive (the console's progress, a
    budget's costs) sees the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
