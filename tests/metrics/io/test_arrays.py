"""metrics.io.arrays: numpy <-> arrow for fixed-width arrays, equal to pyarrow's own bridge."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.io.arrays import to_arrow, to_numpy

TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32(), pa.uint64(), pa.float32(),
         pa.float64(), pa.bool_()]


def _values(kind: pa.DataType, n: int, rng: np.random.Generator) -> list:
    if pa.types.is_boolean(kind):
        return [bool(v) for v in rng.integers(0, 2, n)]
    if pa.types.is_floating(kind):
        return [float(v) for v in rng.normal(0, 100, n)]
    info = np.iinfo(kind.to_pandas_dtype())
    return [int(v) for v in rng.integers(max(info.min, -1000), min(info.max, 1000), n)]


@pytest.mark.parametrize("kind", TYPES, ids=str)
@pytest.mark.parametrize("start, length", [(0, 0), (0, 1), (0, 17), (3, 9), (7, 1), (8, 8), (5, 0)])
def test_slices_equal_pyarrows_conversion(kind, start, length):
    rng = np.random.default_rng(len(str(kind)) * 100 + start * 10 + length)
    array = pa.array(_values(kind, 24, rng), kind).slice(start, length)
    got = to_numpy(array)
    expected = array.to_numpy(zero_copy_only=False)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", TYPES, ids=str)
def test_chunks_are_concatenated_in_order(kind):
    rng = np.random.default_rng(3)
    chunked = pa.chunked_array([pa.array(_values(kind, n, rng), kind) for n in (5, 0, 11, 1)], kind)
    np.testing.assert_array_equal(to_numpy(chunked), chunked.to_numpy())
    assert to_numpy(pa.chunked_array([], kind)).dtype == chunked.to_numpy().dtype


@pytest.mark.parametrize("kind", [pa.int32(), pa.int64(), pa.float64(), pa.bool_()], ids=str)
def test_nulls_take_the_value_given(kind):
    values = _values(kind, 20, np.random.default_rng(5))
    with_nulls = [None if i % 3 == 1 else v for i, v in enumerate(values)]
    array = pa.array(with_nulls, kind).slice(2, 15)
    fill = False if pa.types.is_boolean(kind) else -1
    expected = np.array([fill if v is None else v for v in with_nulls[2:17]], dtype=to_numpy(array, fill).dtype)
    np.testing.assert_array_equal(to_numpy(array, null=fill), expected)


def test_nulls_without_a_value_and_strings_go_through_pyarrow():
    got = to_numpy(pa.array([1.0, None]))
    assert got[0] == 1.0 and np.isnan(got[1])
    assert to_numpy(pa.array(["b", "a"])).tolist() == ["b", "a"]


def test_a_single_chunk_is_a_view_and_read_only():
    array = pa.array(np.arange(10, dtype=np.int64))
    view = to_numpy(array)
    assert not view.flags.writeable
    assert view.ctypes.data == array.buffers()[1].address


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=50), st.integers(0, 10))
def test_int64_round_trip(values, start):
    array = np.array(values, dtype=np.int64)
    arrow = to_arrow(array)
    assert arrow.type == pa.int64() and arrow.to_pylist() == values
    np.testing.assert_array_equal(to_numpy(arrow.slice(start)), array[start:])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=70), st.integers(0, 9))
def test_bool_round_trip(values, start):
    arrow = to_arrow(np.array(values, dtype=bool))
    assert arrow.type == pa.bool_() and arrow.to_pylist() == values
    assert to_numpy(arrow.slice(start)).tolist() == values[start:]


def test_to_arrow_takes_non_contiguous_input_and_rejects_2d():
    values = np.arange(10, dtype=np.int32)[::3]
    assert to_arrow(values).to_pylist() == [0, 3, 6, 9]
    with pytest.raises(ValueError, match="1-D"):
        to_arrow(np.zeros((2, 2)))
