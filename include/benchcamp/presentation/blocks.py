"""The report as data: blocks of rows that the text report, the results page and the HTML report share.

Each section of a report turns a campaign's mart rows into `Block`s once; the text report prints
them as pipe tables (`Block.lines`), the page and the static HTML report hand the same blocks to
Jinja2 templates, and the comparison of two campaigns matches their blocks cell by cell. A cell
keeps the number it shows (`Cell.value`), so a comparison computes its difference from the mart's
value, never from parsed text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchcamp.presentation.text import grid, left_align

Tables = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Cell:
    """One shown cell: its text as printed, and the mart's number behind it (None for text)."""

    text: str
    value: float | None = None


def num(text: str, value: Any) -> Cell:
    """A numeric cell: `value` kept for comparisons when it is a finite number."""
    plain = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if plain is not None and plain != plain:  # NaN compares with nothing
        plain = None
    return Cell(text, None if plain is None else float(plain))


def attempts_cell(failed: Any, killed: Any) -> Cell:
    """Failed task attempts, with the killed ones beside them (`1 (+2 killed)`): a speculative copy
    killed when its twin finished first is no failure, a failed attempt is."""
    if failed is None:
        return num("-", None)
    extra = f" (+{killed:.0f} killed)" if killed else ""
    return num(f"{failed:.0f}{extra}", failed)


@dataclass(frozen=True)
class Row:
    """A table row: `key` names it across campaigns (e.g. its data size), `cells` are what is shown."""

    key: tuple[str, ...]
    cells: tuple[Cell, ...]

    @property
    def texts(self) -> list[str]:
        return [cell.text for cell in self.cells]


@dataclass(frozen=True)
class Block:
    """A titled part of a report: a table, a sentence, or a list (validation failures).

    `text_columns`: the last columns are left-aligned text (the text report's alignment);
    `lead_text_columns`: so are the first ones (YCSB's store, condition and operation).
    `notes` follow the table; `items` are list entries (printed as `- item`), after the notes
    unless `items_first` (the answer block: its sentences, then the methods behind them).
    """

    title: str
    headers: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    text_columns: int = 0
    lead_text_columns: int = 0
    notes: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    kind: str = "table"  # a CSS hook and a matching key: scaling, dfsio, phases, hardware, validation, ...
    items_first: bool = False

    def lines(self) -> list[str]:
        """The block as the text report prints it: a blank line, the title, the table, notes, items."""
        out = ["", self.title]
        if self.headers:
            body = [row.texts for row in self.rows]
            if self.lead_text_columns:
                left_align(list(self.headers), body, columns=self.lead_text_columns)
            out.append(grid(list(self.headers), body, text_columns=self.text_columns))
        items = [f"- {item}" for item in self.items]
        out += [*items, *self.notes] if self.items_first else [*self.notes, *items]
        return out

    def is_text_column(self, index: int) -> bool:
        """Whether column `index` reads as text (left-aligned) rather than a number."""
        return index < self.lead_text_columns or index >= len(self.headers) - self.text_columns


BlockMaker = Callable[[Tables], list[Block]]


def lines_of(blocks: Sequence[Block]) -> list[str]:
    """Every block's text lines, in order."""
    return [line for block in blocks for line in block.lines()]


@dataclass(frozen=True)
class TableSection:
    """A study's report section given as data: a `ReportSection` (`core.study`) that also has blocks.

    Called, it returns the text report's lines (the contract every report section keeps); the
    results page and the HTML report call `blocks` instead and render the rows through their
    templates, so a study's tables look like the generic ones and take part in comparisons.
    """

    make: BlockMaker

    def __call__(self, tables: Tables) -> list[str]:
        return lines_of(self.make(tables))

    def blocks(self, tables: Tables) -> list[Block]:
        return self.make(tables)


# -- comparing two campaigns -------------------------------------------------------------------


@dataclass(frozen=True)
class ComparedCell:
    """A cell of the compared campaign: its text, and the % difference from the baseline's cell."""

    text: str
    change_pct: float | None = None  # None: no number on one side, or a zero baseline
    numeric: bool = False
    changed_text: bool = False  # a text cell whose text differs (a verdict that flipped)


@dataclass(frozen=True)
class ComparedRow:
    key: tuple[str, ...]
    cells: tuple[ComparedCell, ...]
    only_in: str | None = None  # the campaign this row is in when the other lacks it


@dataclass(frozen=True)
class ComparedBlock:
    """One block of both campaigns: the headers, each side's rows (matched by row key)."""

    title: str
    block: Block  # the block as the side that has it shows it (headers, alignment)
    baseline_block: Block | None  # each side's own block (its notes and items)
    compared_block: Block | None
    baseline: tuple[ComparedRow, ...]
    compared: tuple[ComparedRow, ...]
    only_in: str | None = None  # the campaign that has this block when the other does not


@dataclass(frozen=True)
class Comparison:
    baseline: str
    compared: str
    blocks: tuple[ComparedBlock, ...] = field(default_factory=tuple)
    environments: tuple[str, str] | None = None  # compared across these two environments


def _block_key(block: Block, rename: tuple[str, str] | None = None) -> tuple[str, str]:
    """A block's identity: its kind and title, the title's environment name `rename[0]` read as
    `rename[1]` (so the same table of two environments matches)."""
    if rename is None:
        return block.kind, block.title
    return block.kind, re.sub(
        rf"(?<![A-Za-z0-9_]){re.escape(rename[0])}(?![A-Za-z0-9_])", rename[1], block.title
    )


def _pct(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or before == 0:
        return None
    return (after - before) / abs(before) * 100


def _compare_rows(mine: Block, other: Block | None, me: str, diff: bool) -> tuple[ComparedRow, ...]:
    """`mine`'s rows; with `diff`, each numeric cell's % difference from the same cell of `other`."""
    theirs = {row.key: row for row in other.rows} if other is not None else {}
    columns = {header: index for index, header in enumerate(other.headers)} if other is not None else {}
    out = []
    for row in mine.rows:
        match = theirs.get(row.key)
        cells = []
        for index, cell in enumerate(row.cells):
            header = mine.headers[index] if index < len(mine.headers) else ""
            before = None
            if match is not None and header in columns and columns[header] < len(match.cells):
                before = match.cells[columns[header]]
            numeric = cell.value is not None
            cells.append(
                ComparedCell(
                    cell.text,
                    _pct(before.value, cell.value) if diff and before is not None else None,
                    numeric,
                    diff and before is not None and not numeric and before.text != cell.text,
                )
            )
        out.append(ComparedRow(row.key, tuple(cells), None if match is not None else me))
    return tuple(out)


def compare(
    baseline: tuple[str, list[Block]],
    compared: tuple[str, list[Block]],
    environments: tuple[str, str] | None = None,
) -> Comparison:
    """Match two campaigns' blocks (by kind and title) and rows (by key); cells match by header.

    The compared campaign's numeric cells carry their % difference from the baseline's; a row or
    block present in one campaign only says which. `environments` (the baseline's, the compared
    one's): a comparison by environment, whose tables are titled by their environment, so the
    compared side's titles are matched with its environment's name read as the baseline's.
    """
    (base_name, base_blocks), (other_name, other_blocks) = baseline, compared
    rename = (environments[1], environments[0]) if environments else None
    base_by_key = {_block_key(block): block for block in base_blocks}
    other_by_key = {_block_key(block, rename): block for block in other_blocks}
    keys = list(dict.fromkeys([*base_by_key, *other_by_key]))
    out = []
    for key in keys:
        base, other = base_by_key.get(key), other_by_key.get(key)
        shown = base or other
        assert shown is not None
        out.append(
            ComparedBlock(
                shown.title,
                shown,
                base,
                other,
                _compare_rows(base, other, base_name, diff=False) if base is not None else (),
                _compare_rows(other, base, other_name, diff=True) if other is not None else (),
                None if base is not None and other is not None else (base_name if base else other_name),
            )
        )
    return Comparison(base_name, other_name, tuple(out), environments)
