"""Counter-based random numbers: value = mix(seed, table, stream, row), no state to carry.

So a row's values depend on its keys alone, never on which rows, chunks or files came before.
"""

from __future__ import annotations

import hashlib
from typing import Final, cast

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

_GOLDEN: Final = 0x9E3779B97F4A7C15
MASK64: Final = (1 << 64) - 1


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser: a bijection on 64 bits whose output bits all depend on all input bits.
    In place (`values` is the caller's scratch array): fewer temporaries, fewer page faults."""
    values ^= values >> np.uint64(30)
    values *= np.uint64(0xBF58476D1CE4E5B9)
    values ^= values >> np.uint64(27)
    values *= np.uint64(0x94D049BB133111EB)
    values ^= values >> np.uint64(31)
    return values


class Random:
    """Independent streams of pseudo-random numbers for one table, addressed by row keys."""

    def __init__(self, seed: int, table: str) -> None:
        digest = hashlib.blake2b(f"{seed}:{table}".encode(), digest_size=8).digest()
        self._key = int.from_bytes(digest, "little")

    def bits(self, stream: int, keys: Ints) -> npt.NDArray[np.uint64]:
        offset = (self._key + stream * _GOLDEN * 0x632BE59BD9B4E019) & MASK64
        mixed = keys.astype(np.uint64)
        mixed *= np.uint64(_GOLDEN)
        mixed += np.uint64(offset)
        return _mix(mixed)

    def below(self, stream: int, keys: Ints, bound: int | Ints) -> Ints:
        """Integers in [0, bound), bound < 2^32 and may vary per row: the high 32 bits scaled by the
        bound (a multiply instead of a division; the bias, under bound / 2^32, does not matter here)."""
        scaled = self.bits(stream, keys)
        scaled >>= np.uint64(32)
        scaled *= np.asarray(bound, dtype=np.uint64)
        scaled >>= np.uint64(32)
        return scaled.view(np.int64)  # below 2^32: the same numbers

    def unit(self, stream: int, keys: Ints) -> npt.NDArray[np.float64]:
        """Uniform floats in [0, 1)."""
        # cast: numpy 2.2's stubs (Otava's pin) widen float64 * float to floating[Any]
        return cast(
            npt.NDArray[np.float64],
            (self.bits(stream, keys) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53)),
        )

    def skewed(self, stream: int, keys: Ints, count: int) -> Ints:
        """Integers in [0, count) where low values are much more likely (density ~ 1/sqrt)."""
        return np.minimum((self.unit(stream, keys) ** 2 * count).astype(np.int64), count - 1)
