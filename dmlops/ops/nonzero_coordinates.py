"""DML_OPERATOR_NONZERO_COORDINATES: OutputCountTensor holds the number of non-zero elements of InputTensor;
the first count rows of OutputCoordinatesTensor ({1, ..., 1, M, N}) hold their coordinates in ascending element
(row-major) order, each the last N of the element's DimensionCount coordinates (the docs' example: N = 3 of a
{1, 1, 2, 4} input gives rows [0, 0, 3]; the dropped leading coordinates are 0, as N covers the effective rank).

From DirectML's vectors (float32, float16, int32, uint8): NaN is non-zero, -0.0 and +0.0 are zero (the docs), and
denormals are non-zero, not flushed (1.4e-45 in float32 and 6e-8 in float16 are counted: 18 of 20). DirectML
leaves the rows beyond the count undefined (the vectors mark them unwritten; the buffers it returned held 0 there);
dmlops writes 0. ONNX NonZero on x != 0 (NonZero itself lacks int8/int16/uint16/uint32 on ONNX Runtime's CPU
provider) and torch.nonzero lower it, padded with zero rows to M.

Shape rules the descriptor file cannot express:

From the docs page: OutputCountTensor "must be a scalar - that is, the Sizes of this tensor must all be 1";
OutputCoordinatesTensor has Sizes {1, ..., 1, M, N}, where M "is the total number of elements in the
InputTensor" and N "is greater or equal to the effective rank of InputTensor, up to the DimensionCount of the
input" (the effective rank excludes leading dimensions of size 1; {1, 1, 1, 1} has effective rank 0). The UINT32
data types and the dimension counts are the support tiers'.
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """OutputCountTensor all 1s; OutputCoordinatesTensor {1..., M, N} with M = InputTensor's element count and
    effective rank <= N <= DimensionCount."""
    op = desc.OPERATOR_TYPE
    out = []
    count = L.tensor(desc, "OutputCountTensor")
    if count is not None and any(s != 1 for s in count.sizes):
        out.append(Problem(op, "OutputCountTensor", "shape",
                           f"Sizes {list(count.sizes)} must all be 1 (a scalar holding the count)."))
    x, y = L.tensor(desc, "InputTensor"), L.sizes(L.tensor(desc, "OutputCoordinatesTensor"))
    if x is None or not x.dimension_count or y is None or len(y) < 2:
        return out
    out += L.leading_ones_problems(desc, "OutputCoordinatesTensor", y, 2, "two (M and N)")
    m, n = y[-2:]
    if m != x.element_count:
        out.append(Problem(op, "OutputCoordinatesTensor", "shape",
                           f"M (Sizes[{len(y) - 2}]) is {m}; it must be InputTensor's element count "
                           f"{x.element_count}."))
    lead = 0
    while lead < x.dimension_count and x.sizes[lead] == 1:
        lead += 1
    effective = x.dimension_count - lead
    if not max(effective, 1) <= n <= x.dimension_count:
        out.append(Problem(op, "OutputCoordinatesTensor", "shape",
                           f"N (Sizes[{len(y) - 1}]) is {n}; it must be at least InputTensor's effective rank "
                           f"({effective}) and at most its DimensionCount ({x.dimension_count})."))
    return out


def _layout(desc):
    """(M, N, rank) of the descriptor."""
    m, n = desc.output_coordinates_tensor.sizes[-2:]
    return m, n, len(desc.input_tensor.sizes)


def reference(desc, x):
    """np.argwhere(x != 0) (row-major), the last N columns, zero rows up to M."""
    m, n, rank = _layout(desc)
    found = np.argwhere(x["InputTensor"] != 0)[:, rank - n:]
    coordinates = np.zeros((m, n), np.int64)
    coordinates[: len(found)] = found
    return {"OutputCountTensor": np.full(desc.output_count_tensor.sizes, len(found), np.int64),
            "OutputCoordinatesTensor": coordinates.reshape(desc.output_coordinates_tensor.sizes)}


def to_onnx(desc, g, x):
    """NonZero(Not(Equal(x, 0))) transposed to [count, rank], its last N columns, then zero rows: Concat with an
    Expand of 0 to [M, N] and Slice the first M rows (every shape input a constant); the count is a ReduceSum."""
    m, n, rank = _layout(desc)
    v = x["InputTensor"]
    nonzero = g.node("Not", [g.node("Equal", [v, g.const(np.asarray(0, g.dtype(v)))], dtype=np.bool_)])
    found = g.node("Transpose", [g.node("NonZero", [nonzero], dtype=np.int64)], perm=[1, 0])
    if n < rank:
        found = g.node("Slice", [found, g.ints([rank - n]), g.ints([rank]), g.ints([1])])
    zeros = g.node("Expand", [g.const(np.asarray(0, np.int64)), g.ints([m, n])])
    padded = g.node("Slice", [g.node("Concat", [found, zeros], axis=0), g.ints([0]), g.ints([m]), g.ints([0])])
    count = g.node("ReduceSum", [g.cast(nonzero, np.int64)], keepdims=0)
    return {"OutputCountTensor": g.node("Reshape", [count, g.ints(desc.output_count_tensor.sizes)]),
            "OutputCoordinatesTensor": g.node("Reshape", [padded, g.ints(desc.output_coordinates_tensor.sizes)])}


def to_torch(desc, torch, x):
    """torch.nonzero(x != 0), the last N columns, zero rows up to M (constant_pad_nd)."""
    m, n, rank = _layout(desc)
    bits, _ = ew.torch_bits(torch, x["InputTensor"])  # torch 2.4 compares no uint16/uint32: the same bits in int64
    found = torch.nonzero(bits != 0)[:, rank - n:]
    count = found.shape[0]
    padded = torch.nn.functional.pad(found, (0, 0, 0, m - count))
    return {"OutputCountTensor": torch.full(desc.output_count_tensor.sizes, count, dtype=torch.int64,
                                            device=found.device),
            "OutputCoordinatesTensor": padded.reshape(desc.output_coordinates_tensor.sizes)}


def _desc(sizes, n, data_type="FLOAT32", strides=None, rank_out=None):
    from ..descs import NonzeroCoordinates

    rank_out = rank_out or len(sizes)
    m = int(np.prod(sizes))
    return NonzeroCoordinates(input_tensor=td(data_type, sizes, strides),
                              output_count_tensor=td("UINT32", [1] * rank_out),
                              output_coordinates_tensor=td("UINT32", [1] * (rank_out - 2) + [m, n]))


def _want(count, rows, m, n, rank_out):
    coordinates = np.zeros((m, n), np.uint32)
    coordinates[: len(rows)] = np.reshape(rows, (len(rows), n))
    return {"OutputCountTensor": np.full([1] * rank_out, count, np.uint32),
            "OutputCoordinatesTensor": coordinates.reshape([1] * (rank_out - 2) + [m, n])}


def _samples():
    exact = dict(atol=0, rtol=0, why="counting and coordinates are exact")
    docs = np.array([[[[1.0, 0.0, 0.0, 2.0], [-0.0, 3.5, 0.0, -5.2]]]], np.float32)
    out = [
        # The docs' example: N = 3 of a {1, 1, 2, 4} input; 4 non-zeros (-0.0 is zero), then zero rows.
        Sample("docs", _desc([1, 1, 2, 4], 3), {"InputTensor": docs},
               _want(4, [[0, 0, 0], [0, 0, 3], [0, 1, 1], [0, 1, 3]], 8, 3, 4), **exact),
        Sample("docs_full_rank", _desc([1, 1, 2, 4], 4), {"InputTensor": docs},
               _want(4, [[0, 0, 0, 0], [0, 0, 0, 3], [0, 0, 1, 1], [0, 0, 1, 3]], 8, 4, 4), **exact),
        # NaN and a denormal are non-zero, both zeros are zero (the vectors), inf too is non-zero.
        Sample("nan_denormal_zeros", _desc([1, 1, 2, 3], 2),
               {"InputTensor": np.array([[[[np.nan, -0.0, 0.0], [1e-45, np.inf, 0.0]]]], np.float32)},
               _want(3, [[0, 0], [1, 0], [1, 1]], 6, 2, 4), **exact),
        # Nothing non-zero: count 0, every row zero.
        Sample("all_zero", _desc([1, 1, 2, 2], 2), {"InputTensor": np.zeros((1, 1, 2, 2), np.float32)},
               _want(0, [], 4, 2, 4), **exact),
        # A 3-dimensional input ({2, 1, 3}, effective rank 3) with a 2-dimensional output pair (count {1, 1}).
        Sample("rank_3", _desc([2, 1, 3], 3, rank_out=2),
               {"InputTensor": np.array([[[0, 7, 0]], [[-1, 0, 2]]], np.float32)},
               _want(3, [[0, 0, 1], [1, 0, 0], [1, 0, 2]], 6, 3, 2), **exact),
        # Zero strides: a row [0, 4] broadcast over 3 rows: column 1 of every row.
        Sample("broadcast", _desc([1, 1, 3, 2], 2, strides=[0, 0, 0, 1]),
               {"InputTensor": np.array([0, 4], np.float32)}, _want(3, [[0, 1], [1, 1], [2, 1]], 6, 2, 4), **exact),
    ]
    # Every integer type the operator takes, by hand: [[0, lo], [hi, 0], [1, 0]] -> (0, 1), (1, 0), (2, 0).
    for t in ("INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32"):
        info = np.iinfo(np.dtype(t.lower()))
        x = np.array([[[[0, info.min or 5], [info.max, 0], [1, 0]]]], np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc([1, 1, 3, 2], 2, t), {"InputTensor": x},
                          _want(3, [[0, 1], [1, 0], [2, 0]], 6, 2, 4), **exact))
    return out


SAMPLES = _samples()
