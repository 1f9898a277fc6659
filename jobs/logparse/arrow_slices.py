"""Slices of one buffer as an Arrow string array, copied by ONE gather.

The reader and the Arrow executor cut records, messages and loggers out of bytes they already
hold. Arrow has no "substrings at these offsets" kernel, but a string array may use any
monotonic offsets over a buffer: seen as a wanted slice and the gap before the next one, per
row, the buffer is a string array whose even pieces ``take`` copies out.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = ["string_slices"]

_Positions = npt.NDArray[np.int32] | npt.NDArray[np.int64]


def string_slices(
    data: pa.Buffer | bytes, starts: _Positions, ends: _Positions, order: _Positions | None = None
) -> pa.Array:
    """``data[starts[i]:ends[i]]`` for each ``i`` of ``order`` (default: all, in order).

    Args:
        data: the bytes (UTF-8 wherever a slice starts and ends).
        starts: each slice's first byte; ``starts[i] <= ends[i] <= starts[i + 1]``.
        ends: each slice's end (exclusive).
        order: the slices to return, in that order.

    Returns:
        A string array without nulls or offset.
    """
    count = len(starts)
    pieces = np.empty(2 * count + 1, dtype=np.int32)
    pieces[0:-1:2] = starts
    pieces[1::2] = ends
    pieces[-1] = ends[-1] if count else 0
    buffer = data if isinstance(data, pa.Buffer) else pa.py_buffer(data)
    halves = pa.StringArray.from_buffers(2 * count, pa.py_buffer(pieces), buffer)
    wanted = np.arange(count, dtype=np.int64) if order is None else order.astype(np.int64)
    return halves.take(pa.array(2 * wanted))
