"""Fixed-width arrays between pyarrow and numpy, read and built from their buffers.

pyarrow's own bridge (``Array.to_numpy``, ``pa.array(ndarray)``, ``take`` with numpy indices) goes through
its pandas compatibility layer, which imports pandas the first time it runs: about 0.15 s of every
``rankscope`` command, which otherwise never needs pandas. The arrays rankscope moves between the two
libraries are numbers and masks without nulls, so their data buffer is all there is to move; these two
functions do that and hand anything else (nulls, strings) to pyarrow's bridge.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["to_numpy", "to_arrow"]


def to_numpy(array: pa.Array | pa.ChunkedArray, null: int | float | None = None) -> np.ndarray:
    """The values of a numeric or boolean arrow array as a numpy array; nulls become ``null`` if given.

    A single chunk of numbers without nulls is a read-only view of arrow's buffer (as ``to_numpy`` gives);
    several chunks are concatenated. Other types, and nulls with no ``null`` value to stand for them, go
    through pyarrow's ``to_numpy(zero_copy_only=False)``.

    Examples
    --------
    >>> to_numpy(pa.chunked_array([[1, 2], [3]]))
    array([1, 2, 3])
    >>> to_numpy(pa.array([True, False, True]).slice(1))
    array([False,  True])
    >>> to_numpy(pa.array([4, None, 6], pa.int32()), null=-1)
    array([ 4, -1,  6], dtype=int32)
    """
    if isinstance(array, pa.ChunkedArray):
        parts = [to_numpy(chunk, null) for chunk in array.chunks]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else np.empty(0, dtype=_dtype(array.type))
    kind = array.type
    fixed = pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
    if not fixed or (array.null_count and null is None):
        return array.to_numpy(zero_copy_only=False)
    n, offset = len(array), array.offset
    validity, data = array.buffers()[:2]
    if pa.types.is_boolean(kind):
        values = _bits(data, offset, n)
    else:
        dtype = _dtype(kind)
        values = np.frombuffer(data, dtype=dtype, count=n, offset=offset * dtype.itemsize) if n else np.empty(0, dtype)
        values.flags.writeable = False  # arrow's memory: read only, as pyarrow's own view
    if array.null_count:
        values = np.where(_bits(validity, offset, n), values, np.asarray(null, dtype=values.dtype))
    return values


def to_arrow(values: np.ndarray) -> pa.Array:
    """A 1-D numeric or boolean numpy array as an arrow array (numbers share the numpy memory).

    Examples
    --------
    >>> to_arrow(np.array([3, 1], dtype=np.int32)).type
    DataType(int32)
    >>> to_arrow(np.array([True, False])).to_pylist()
    [True, False]
    """
    values = np.ascontiguousarray(values)
    if values.ndim != 1:
        raise ValueError(f"expected a 1-D array, got shape {values.shape}")
    if values.dtype == bool:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def _bits(buffer: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """Arrow's bit-packed booleans (least significant bit first) as a numpy bool array."""
    if n == 0:
        return np.zeros(0, dtype=bool)
    bits = np.unpackbits(np.frombuffer(buffer, dtype=np.uint8), count=offset + n, bitorder="little")
    return bits[offset:].view(bool)


def _dtype(kind: pa.DataType) -> np.dtype:
    if pa.types.is_boolean(kind):
        return np.dtype(bool)
    return np.dtype(kind.to_pandas_dtype())
