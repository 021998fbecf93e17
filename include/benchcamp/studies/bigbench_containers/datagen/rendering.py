"""Rendering rows as text with numpy: fields, digits, choices, NULLs, and whole chunks of rows.

A field is a list of segments; a segment holds up to 8 bytes of every row's text in one uint64
per row (first character in the lowest byte), with NUL bytes where a row's text is shorter than
the segment (a number with fewer digits than the chunk's largest). `render` ORs each row's segments one after the other into 8-byte words
(a shift and an OR per segment over the whole chunk), transposes the words once into rows and
drops the NULs. Digits come four at a time from tables of the 10^4 four-digit groups, so a
number costs a few whole-array operations per 4 digits instead of several per digit.
Generated text never holds a NUL (`_checked`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from benchcamp.studies.bigbench_containers.datagen.streams import MASK64, Ints, Mask

Words = npt.NDArray[np.uint64]


class _Segment(NamedTuple):
    """`width` bytes of text per row: one word per row, or one word (an int) for every row."""

    value: Words | int
    width: int


Field = list[_Segment]


def _digit_tables() -> tuple[Words, Words, Words]:
    """Words of the 4-digit groups 0000..9999: zero-padded, leading zeros as NUL, and leading
    zeros as NUL except the last digit (so 0 is '0')."""
    group = np.arange(10_000, dtype=np.uint64)
    padded = np.zeros(group.size, dtype=np.uint64)
    leading = np.zeros(group.size, dtype=np.uint64)
    unit = np.zeros(group.size, dtype=np.uint64)
    for byte in range(4):  # byte 0 holds the thousands
        power = np.uint64(10 ** (3 - byte))
        char = (group // power % np.uint64(10) + np.uint64(ord("0"))) << np.uint64(8 * byte)
        padded |= char
        leading |= np.where(group >= power, char, np.uint64(0))
        unit |= np.where((group >= power) | (byte == 3), char, np.uint64(0))
    return padded, np.concatenate([leading, padded]), np.concatenate([unit, padded])


# _LEADING[g] and _UNIT[g] are g's leading-NUL forms, [g + 10^4] its padded form
_PADDED, _LEADING, _UNIT = _digit_tables()


Unsigned = npt.NDArray[np.unsignedinteger[Any]]


def _unsigned(magnitude: Ints) -> tuple[Unsigned, int]:
    """Non-negative numbers as uint32 when they fit (a third of the time of 64-bit division
    here), else uint64; and the largest."""
    largest = int(magnitude.max(initial=0))
    return magnitude.astype(np.uint32 if largest < 2**32 else np.uint64), largest


def _digits(number: Unsigned, digits: int, zero_padded: bool) -> Field:
    """Decimal digits of numbers below 10^digits, in segments of 4 from the left; unless
    `zero_padded`, leading zeros are NUL and 0 is '0'."""
    segments: Field = []
    rest = number
    groups = -(-digits // 4)
    for group_index in range(groups):  # from the lowest group up
        top = group_index == groups - 1
        if top:  # below 10^4 by now
            group = rest.astype(np.intp)
        else:
            quotient = cast(Unsigned, rest // 10_000)  # numpy 2.2's stubs make it signed
            group = (rest - quotient * 10_000).astype(np.intp)
            if not zero_padded:  # padded when a higher group is not zero
                np.add(group, 10_000, out=group, where=quotient > 0)
            rest = quotient
        table = _PADDED if zero_padded else _UNIT if group_index == 0 else _LEADING
        words = table.take(group)
        width = digits - 4 * group_index if top else 4
        if width < 4:  # a top group narrower than 4: drop its first bytes (NUL or zeros)
            words >>= np.uint64(8 * (4 - width))
        segments.append(_Segment(words, width))
    return segments[::-1]


def literal(text: str) -> Field:
    encoded = _checked(text).encode("ascii")
    return [
        _Segment(int.from_bytes(encoded[start : start + 8], "little"), len(encoded[start : start + 8]))
        for start in range(0, len(encoded), 8)
    ]


class Choices:
    """A fixed list of strings as words (rows: 8-byte slices, columns: choices), gathered by index."""

    def __init__(self, texts: Sequence[str]) -> None:
        encoded = [_checked(text).encode("ascii") for text in texts]
        self.width = max(1, max(len(text) for text in encoded))
        slices = -(-self.width // 8)
        table = np.zeros((len(encoded), slices * 8), dtype=np.uint8)
        for row, text in enumerate(encoded):
            table[row, : len(text)] = np.frombuffer(text, dtype=np.uint8)
        self.words = np.ascontiguousarray(table.view("<u8").T).astype(np.uint64)

    def pick(self, index: Ints) -> Field:
        return [
            _Segment(words.take(index), min(8, self.width - 8 * slot))
            for slot, words in enumerate(self.words)
        ]


_UNSAFE_TEXT: Final = re.compile(r"[|\\\n\r\0]|[^\x00-\x7f]")


def _checked(text: str) -> str:
    if _UNSAFE_TEXT.search(text):
        raise ValueError(f"generated text must be ASCII without |, \\, NUL or line breaks: {text!r}")
    return text


def ints(values: Ints) -> Field:
    """Decimal digits of integers (negative ones get a '-')."""
    return _decimal_text(values, 0)


def _decimal_text(values: Ints, places: int) -> Field:
    """Digits of integers with a '.' before the last `places` digits (cents -> 12.34, 5 -> 0.05)."""
    values = np.asarray(values, dtype=np.int64)
    negative = values < 0
    magnitude, largest = _unsigned(np.abs(values))
    segments: Field = []
    if negative.any():
        segments.append(_Segment(negative.astype(np.uint64) * np.uint64(ord("-")), 1))
    if not places:
        return segments + _digits(magnitude, len(str(largest)), zero_padded=False)
    whole = magnitude // 10**places
    segments += _digits(whole, len(str(largest // 10**places)), zero_padded=False)
    segments += literal(".")
    return segments + _digits(magnitude - whole * 10**places, places, zero_padded=True)


def fixed_digits(values: Ints, width: int) -> Field:
    """Zero-padded digits (the cents of a decimal, HH/MM/SS, ids): the last `width` of them."""
    number, largest = _unsigned(np.asarray(values, dtype=np.int64))
    return _digits(number % 10**width if largest >= 10**width else number, width, zero_padded=True)


def money(cents: Ints) -> Field:
    """A decimal with 2 places from an integer number of cents."""
    return _decimal_text(cents, 2)


def concat(*fields: Field) -> Field:
    return [segment for field in fields for segment in field]


_NULL_WORD: Final = int.from_bytes(b"\\N", "little")


def nullable(value: Field, is_null: Mask) -> Field:
    """The field, or `\\N` where `is_null`."""
    if not is_null.any():
        return value
    return [_Segment(is_null.astype(np.uint64) * np.uint64(_NULL_WORD), 2), *blanked(value, is_null)]


def blanked(value: Field, blank: Mask) -> Field:
    """The field with no text (all NUL) where `blank`."""
    zero = np.uint64(0)
    return [
        _Segment(np.where(blank, zero, segment.value).astype(np.uint64), segment.width) for segment in value
    ]


_SEPARATOR: Final = _Segment(ord("|"), 1)
_NEWLINE: Final = _Segment(ord("\n"), 1)


def render(fields: Sequence[Field]) -> bytes:
    """Rows of `|`-separated fields, each ending in a newline."""
    segments: Field = []
    for index, text in enumerate(fields):
        if index:
            segments.append(_SEPARATOR)
        segments += text
    segments.append(_NEWLINE)
    rows = row_count(fields)
    words = np.zeros((-(-sum(segment.width for segment in segments) // 8), rows), dtype=np.uint64)
    constants = [0] * len(words)
    offset = 0
    for value, width in segments:
        word, shift = divmod(offset, 8)
        spills = shift + width > 8
        if isinstance(value, int):
            constants[word] |= (value << 8 * shift) & MASK64
            if spills:
                constants[word + 1] |= value >> 8 * (8 - shift)
        else:
            words[word] |= value << np.uint64(8 * shift) if shift else value
            if spills:
                words[word + 1] |= value >> np.uint64(8 * (8 - shift))
        offset += width
    for word, constant in enumerate(constants):
        if constant:
            words[word] |= np.uint64(constant)
    return words.T.tobytes().translate(None, b"\0")


def row_count(fields: Sequence[Field]) -> int:
    """Rows of a chunk: the length of its first per-row segment."""
    for text in fields:
        for segment in text:
            if not isinstance(segment.value, int):
                return int(segment.value.size)
    raise ValueError("a chunk needs at least one field that varies by row")


def text_row(values: Sequence[object]) -> str:
    """One row from Python values, for the small dimensions (None -> \\N, Cents -> 2 places)."""
    texts = [
        "" if value is None else _cents_text(value) if isinstance(value, Cents) else str(value)
        for value in values
    ]
    _checked("".join(texts))  # once per row: a '|' or a line break in any value shows here too
    return (
        "|".join("\\N" if value is None else text for value, text in zip(values, texts, strict=True)) + "\n"
    )


def _cents_text(value: int) -> str:
    return f"{'-' if value < 0 else ''}{abs(value) // 100}.{abs(value) % 100:02d}"


class Cents(int):
    """An amount in cents, written as a decimal with 2 places."""
