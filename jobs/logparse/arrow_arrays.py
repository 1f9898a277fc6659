"""Arrow arrays as numpy, and back: unsliced buffers, validity masks, coded vocabularies.

The Arrow executor's vectorised steps read string arrays' offsets and bytes with numpy and build
arrays from numpy results; these helpers are those conversions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


def flat(array: pa.Array) -> pa.Array:
    """``array`` without a slice offset (buffers then start at row 0)."""
    return pa.concat_arrays([array]) if array.offset else array


def validity_bitmap(mask: BoolArray) -> pa.Buffer:
    """An Arrow validity bitmap of ``mask`` (True: valid)."""
    return pa.py_buffer(np.packbits(mask, bitorder="little").tobytes())


def string_parts(array: pa.Array) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """Offsets and bytes of a string array without nulls or offset."""
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[: len(array) + 1]
    data = array.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return offsets, raw


def masked(array: pa.Array, valid: BoolArray) -> pa.Array:
    """A string array (no nulls, no offset) with ``~valid`` rows made null."""
    buffers = array.buffers()
    return pa.StringArray.from_buffers(len(array), buffers[1], buffers[2], validity_bitmap(valid))


def string_lengths(array: pa.Array) -> IntArray:
    """Byte lengths of a string array's values (no nulls, no offset)."""
    offsets, _ = string_parts(array)
    return np.diff(offsets).astype(np.int64)


def as_mask(array: pa.Array) -> BoolArray:
    """A boolean Arrow array as numpy (null = False)."""
    return np.asarray(pc.fill_null(array, False).to_numpy(zero_copy_only=False), dtype=bool)


def from_codes(codes: npt.NDArray[Any], vocabulary: pa.Array) -> pa.Array:
    """``vocabulary[codes[i]]`` per row, null where a code is negative."""
    valid = codes >= 0
    indices = pa.array(np.where(valid, codes, 0).astype(np.int32), mask=~valid)
    return vocabulary.take(indices)
