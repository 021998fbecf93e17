"""A spec's problems: the base models every spec model builds on and how a problem is reported.

A bad spec is refused with every problem at once, each as `file:line: key.path: what to fix`:
a model's own checks yield `Problem`s at their key paths (`Checked`), pydantic's errors become
problems too, and `report_problems` finds each one's line in the YAML (a repeated key included).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Self

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

NAME = r"^[a-z][a-z0-9_]*$"
_SPEC_PROBLEMS = "spec_problems"  # the pydantic error type that carries a model's own problems


class SpecError(ValueError):
    """A spec that does not validate; each line of the message names the file, line and key."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a spec: where (a key path, or a line) and what to fix."""

    loc: tuple[str | int, ...]
    message: str
    line: int | None = None  # when the key path alone would point elsewhere (a repeated key)


class MissingAxis(SpecError):
    """A record without an axis of its series; `axes`: the one it lacks, or the one per series
    when it could belong to several (e.g. a CSV's missing column to name instead)."""

    def __init__(self, message: str, axes: tuple[str, ...]) -> None:
        super().__init__(message)
        self.axes = axes


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def refuse(problems: Iterable[Problem]) -> None:
    """Raise every problem at once: a pydantic validator yields one error, so the problems travel
    in its context and `parse_spec` unpacks them (their paths are relative to the validated value)."""
    found = list(problems)
    if found:
        summary = "; ".join(f"{key_path(item.loc) or 'here'}: {item.message}" for item in found)
        raise PydanticCustomError(_SPEC_PROBLEMS, summary, {"problems": found})


class Checked(Strict):
    """A model whose own checks report every problem at its own key path, not only the first."""

    def problems(self) -> Iterator[Problem]:
        yield from ()

    @model_validator(mode="after")
    def _refuse_problems(self) -> Self:
        refuse(self.problems())
        return self


def repeats(loc: tuple[str | int, ...], items: Iterable[Hashable]) -> Iterator[Problem]:
    """A problem for every item listed a second time (4 and 4.0 are the same number)."""
    first: dict[Hashable, int] = {}
    for index, item in enumerate(items):
        if item in first:
            yield Problem((*loc, index), f"{item!r} is listed twice (first at [{first[item]}]): remove one")
        else:
            first[item] = index


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def key_path(loc: Sequence[str | int]) -> str:
    """`series[2].axes.maps`, `settings.ycsb_a['custom.io.file.buffer.size']`: a key path to look up."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _is_union_tag(part: str | int) -> bool:
    """Pydantic names the member of a union in an error's location: 'int', 'list[...]', '[key]'."""
    return isinstance(part, str) and (part in ("float", "int", "str", "bool") or "[" in part)


def _locate(root: yaml.Node, loc: Sequence[str | int]) -> tuple[tuple[str | int, ...], int]:
    """The key path `loc` names in the document (union tags dropped) and the line of its key,
    item, or (for a missing key) the mapping that lacks it."""
    node: yaml.Node | None = root
    path: list[str | int] = []
    line = root.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            pair = next((pair for pair in node.value if pair[0].value == str(part)), None)
            if pair is not None:
                path.append(part)
                line, node = pair[0].start_mark.line + 1, pair[1]
                continue
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            path.append(part)
            node = node.value[part]
            line = node.start_mark.line + 1
            continue
        if not _is_union_tag(part):
            path.append(part)
            node = None  # a key the document lacks: stay on its mapping's line
    return tuple(path), line


def repeated_keys(root: yaml.Node) -> Iterator[Problem]:
    """Keys given twice in one mapping, which YAML loaders resolve silently (the last one wins)."""
    seen: set[int] = set()

    def walk(node: yaml.Node, loc: tuple[str | int, ...]) -> Iterator[Problem]:
        if id(node) in seen:  # an alias of an anchor already walked
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                name, line = str(key.value), key.start_mark.line + 1
                if name in first and name != "<<":
                    yield Problem(
                        (*loc, name),
                        f"key '{name}' is given twice (first on line {first[name]}); only the last one "
                        "would count: merge them",
                        line,
                    )
                first.setdefault(name, line)
                yield from walk(value, (*loc, name))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                yield from walk(item, (*loc, index))

    yield from walk(root, ())


def validation_problems(error: ValidationError) -> Iterator[Problem]:
    for item in error.errors():
        loc = tuple(item["loc"])
        if item["type"] == _SPEC_PROBLEMS:
            for problem in item["ctx"]["problems"]:
                yield Problem(loc + problem.loc, problem.message)
        elif item["type"] == "extra_forbidden":
            yield Problem(loc, "unknown key (check the spelling)")
        elif item["type"] == "missing":
            yield Problem(loc, "required key is missing")
        else:
            yield Problem(loc, item["msg"].removeprefix("Value error, "))


_TYPE_MESSAGE = "Input should be a valid "


def _joined(messages: list[str]) -> str:
    """Several messages on one key: separate faults, or the members of a union it matches none
    of ('Input should be a valid number', '... integer', '... string'), said once."""
    if len(messages) > 1 and all(message.startswith(_TYPE_MESSAGE) for message in messages):
        kinds = [message.removeprefix(_TYPE_MESSAGE) for message in messages]
        return f"{_TYPE_MESSAGE}{', '.join(kinds[:-1])} or {kinds[-1]}"
    return "; ".join(messages)


def report_problems(source: str, root: yaml.Node, problems: Iterable[Problem]) -> str:
    """One `source:line: key.path: message` line per problem, in the order of the file."""
    lines: dict[tuple[int, str], list[str]] = {}
    for problem in problems:
        loc, line = _locate(root, problem.loc)
        where = key_path(loc)
        messages = lines.setdefault((problem.line or line, where), [])
        if problem.message not in messages:
            messages.append(problem.message)
    return "\n".join(
        f"{source}:{line}: {where + ': ' if where else ''}{_joined(messages)}"
        for (line, where), messages in sorted(lines.items(), key=lambda entry: entry[0][0])
    )


def yaml_error(source: str, exc: yaml.YAMLError) -> SpecError:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        context = f"{exc.context}, " if exc.context else ""
        line = mark.line + 1 if mark else 1
        return SpecError(f"{source}:{line}: not valid YAML: {context}{exc.problem}")
    return SpecError(f"{source}: not valid YAML: {exc}")
