"""The workload registry: every module in this package, and every study folder's `workloads/`
modules (`core.study.study_workload_modules`), register their workloads.

Lookups go through :func:`get_workload`; nothing else in the project branches on
workload names. Discovery is lazy, so importing the registry at DAG parse time is
cheap (the workload modules only import the standard library and pydantic).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TypeVar

from benchcamp.core.study import study_workload_modules
from benchcamp.workloads.base import Workload

_REGISTRY: dict[str, Workload] = {}
_DISCOVERED = False
W = TypeVar("W", bound=type[Workload])


class UnknownWorkload(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def register(cls: W) -> W:
    """Class decorator: instantiate and register a workload, refusing duplicate names."""
    name = cls.name
    if name in _REGISTRY and type(_REGISTRY[name]) is not cls:
        raise ValueError(
            f"workload '{name}' is registered twice ({type(_REGISTRY[name]).__name__}, {cls.__name__})"
        )
    _REGISTRY[name] = cls()
    return cls


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base" and not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")
    for name in study_workload_modules():  # a new study's workloads live in its own folder
        importlib.import_module(name)
    _DISCOVERED = True


def registered() -> dict[str, Workload]:
    _discover()
    return dict(_REGISTRY)


def is_implemented(name: str) -> bool:
    return name in registered()


def get_workload(name: str) -> Workload:
    workloads = registered()
    if name not in workloads:
        raise UnknownWorkload(
            f"no workload '{name}' is implemented (implemented: {', '.join(sorted(workloads))})"
        )
    return workloads[name]
