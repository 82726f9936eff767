"""DML_OPERATOR_ONE_HOT: along Axis, each sequence of OutputTensor holds OnValue at its index and OffValue
elsewhere.

OffValue is ValuesTensor's element 0 and OnValue "the 1st element along the fastest-changing dimension of size
>1" (the docs), which is flat element 1 of the logical tensor ({1, 1, 3, 1} [4, 2, 9]: off 4, on 2, the docs'
example 3). A negative index of a signed type counts from the end of the sequence; an index outside the sequence
(after that) sets the whole sequence to OffValue (the docs' example 4; DirectML's vectors
ONE_HOT-int32_indices_int32_values_axis3: -1 -> last, -5 -> first, -6, 5 and 8 -> all OffValue of a sequence of
5; UINT32 5 and 8 likewise). torch.nn.functional.one_hot raises on both instead. Every backend compares the index
with 0 .. n-1 in int64 and gathers [OffValue, OnValue] by the result, so values are copied bit for bit.

Shape rules the descriptor file cannot express:

From the docs page: Axis "must be less than the DimensionCount of the IndicesTensor"; IndicesTensor has
OutputTensor's Sizes "except for the dimension specified by the Axis parameter", whose size "must be 1"
(OutputTensor's size along Axis may be anything greater than 0); ValuesTensor "may have any size, so long as it
contains at least two elements" (OffValue and OnValue). DataType and DimensionCount are the generic validator's
rules. DirectML agrees (vectors: a one-element ValuesTensor is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _indexing as ix
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; IndicesTensor is 1 along Axis and equals OutputTensor elsewhere; two or more values."""
    op = desc.OPERATOR_TYPE
    out = []
    v = L.tensor(desc, "ValuesTensor")
    if v is not None and v.element_count < 2:
        out.append(Problem(op, "ValuesTensor", "shape",
                           f"Sizes {list(v.sizes)} hold {v.element_count} element(s); at least 2 are required "
                           "(the OffValue and the OnValue)."))
    i = L.sizes(L.tensor(desc, "IndicesTensor"))
    if not i:
        return out
    axis = desc.axis
    bad = L.axis_problems(desc, axis, len(i), "IndicesTensor")
    if bad:
        return out + bad
    out += L.size_problems(desc, "IndicesTensor", i, axis, 1)
    y = L.sizes(L.tensor(desc, "OutputTensor"), len(i))
    if y is not None:
        out += L.outside_axis_problems(desc, "OutputTensor", y, "IndicesTensor", i, axis)
    return out


# ----------------------------------------------------------------------------------------------- lowerings
def _positions(desc) -> np.ndarray:
    """0 .. n-1 along Axis, shaped to broadcast with IndicesTensor."""
    n = desc.output_tensor.sizes[desc.axis]
    shape = [1] * desc.output_tensor.dimension_count
    shape[desc.axis] = n
    return np.arange(n, dtype=np.int64).reshape(shape)


def reference(desc, x):
    """[OffValue, OnValue] taken by (index == position)."""
    idx = x["IndicesTensor"]
    n = desc.output_tensor.sizes[desc.axis]
    if idx.dtype.kind == "u":
        idx = np.minimum(idx, np.asarray(n, idx.dtype))  # anything >= n is off; int64 holds it
    idx = idx.astype(np.int64)
    if x["IndicesTensor"].dtype.kind == "i":
        idx = np.where(idx < 0, idx + n, idx)
    on = np.broadcast_to(idx == _positions(desc), desc.output_tensor.sizes)
    return {"OutputTensor": x["ValuesTensor"].reshape(-1)[:2][on.astype(np.int64)]}


def to_onnx(desc, g, x):
    """Equal of the int64 index with the positions, then Gather from [OffValue, OnValue]."""
    i64 = np.int64
    n = desc.output_tensor.sizes[desc.axis]
    dtype = g.dtype(x["IndicesTensor"])
    idx = g.cast(x["IndicesTensor"], i64)
    if dtype == np.uint64:  # 2**63 and up read as negative int64: off instead
        idx = g.node("Where", [g.node("Less", [idx, g.const(i64(0))], dtype=np.bool_), g.const(i64(n)), idx])
    if dtype.kind == "i":
        negative = g.node("Less", [idx, g.const(i64(0))], dtype=np.bool_)
        idx = g.node("Where", [negative, g.node("Add", [idx, g.const(i64(n))]), idx])
    on = g.cast(g.node("Equal", [idx, g.const(_positions(desc))], dtype=np.bool_), i64)
    pair = g.node("Slice", [g.node("Reshape", [x["ValuesTensor"], g.ints([-1])]), g.ints([0]), g.ints([2])])
    return {"OutputTensor": g.node("Gather", [pair, on], axis=0)}


def to_torch(desc, torch, x):
    """(index == position) in int64, then index_select from [OffValue, OnValue]."""
    n = desc.output_tensor.sizes[desc.axis]
    idx = x["IndicesTensor"]
    if idx.dtype == torch.uint64:  # 2**63 and up read as negative int64: off instead
        v = idx.view(torch.int64)
        v = torch.where(v < 0, torch.full_like(v, n), v)
    else:
        v = idx.to(torch.int64)
        if idx.dtype.is_signed:
            v = torch.where(v < 0, v + n, v)
    positions = torch.from_numpy(_positions(desc)).to(v.device)
    on = (v == positions).to(torch.int64).expand(desc.output_tensor.sizes)
    pair = x["ValuesTensor"].reshape(-1)[:2]
    return {"OutputTensor": ix.torch_gather(torch, pair, on)}


# ----------------------------------------------------------------------------------------------- samples
def _desc(index_type, index_sizes, value_type, value_sizes, out_sizes, axis):
    from ..descs import OneHot

    return OneHot(indices_tensor=td(index_type, index_sizes), values_tensor=td(value_type, value_sizes),
                  output_tensor=td(value_type, out_sizes), axis=axis)


EXACT = dict(atol=0, rtol=0, why="values are copied, never computed")


def _samples():
    f32 = np.float32
    col = [[[[0], [3], [2]]]]
    out = [
        # The docs' examples 1 to 4, outputs copied from the page.
        Sample("docs_rows", _desc("UINT32", [1, 1, 3, 1], "FLOAT32", [1, 1, 1, 2], [1, 1, 3, 4], 3),
               {"IndicesTensor": np.array(col, np.uint32), "ValuesTensor": np.array([[[[0, 1]]]], f32)},
               {"OutputTensor": np.array([[[[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]]], f32)}, **EXACT),
        Sample("docs_columns", _desc("UINT32", [1, 1, 1, 4], "FLOAT32", [1, 1, 1, 2], [1, 1, 3, 4], 2),
               {"IndicesTensor": np.array([[[[0, 2, 1, 0]]]], np.uint32), "ValuesTensor": np.array([[[[0, 1]]]], f32)},
               {"OutputTensor": np.array([[[[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]]]], f32)}, **EXACT),
        Sample("docs_values", _desc("UINT32", [1, 1, 3, 1], "FLOAT32", [1, 1, 3, 1], [1, 1, 3, 4], 3),
               {"IndicesTensor": np.array(col, np.uint32), "ValuesTensor": np.array([[[[4], [2], [9]]]], f32)},
               {"OutputTensor": np.array([[[[2, 4, 4, 4], [4, 4, 4, 2], [4, 4, 2, 4]]]], f32)}, **EXACT),
        Sample("docs_negative_out_of_bounds", _desc("INT32", [1, 1, 3, 1], "FLOAT32", [1, 1, 1, 2], [1, 1, 3, 4], 3),
               {"IndicesTensor": np.array([[[[-3], [100], [3]]]], np.int32),
                "ValuesTensor": np.array([[[[0, 1]]]], f32)},
               {"OutputTensor": np.array([[[[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]]], f32)}, **EXACT),
        # INT64 indices below -n and UINT64 2**64 - 1: all OffValue. Values: a NaN payload on, -0.0 off.
        Sample("int64_bits", _desc("INT64", [3, 1], "FLOAT32", [1, 2], [3, 2], 1),
               {"IndicesTensor": np.array([[-3], [-2], [1]], np.int64),
                "ValuesTensor": np.array([[0x80000000, 0x7FC01234]], np.uint32).view(f32)},
               {"OutputTensor": np.array([[0x80000000] * 2, [0x7FC01234, 0x80000000], [0x80000000, 0x7FC01234]],
                                         np.uint32).view(f32)}, float16=False, **EXACT),
        Sample("uint64_huge", _desc("UINT64", [2, 1], "FLOAT32", [1, 2], [2, 3], 1),
               {"IndicesTensor": np.array([[2**64 - 1], [2]], np.uint64), "ValuesTensor": np.array([[5, 7]], f32)},
               {"OutputTensor": np.array([[5, 5, 5], [5, 5, 7]], f32)}, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc("UINT32", [2, 1], t, [2, 1], [2, 2], 1),
                          {"IndicesTensor": np.array([[1], [0]], np.uint32), "ValuesTensor": ew.int_array([[lo], [hi]], t)},
                          {"OutputTensor": ew.int_array([[lo, hi], [hi, lo]], t)}, **EXACT))
    return out


SAMPLES = _samples()
