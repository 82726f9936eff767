"""DML_OPERATOR_GATHER_ND: output[j..., rest...] = input[indices[j..., 0 .. k], rest...].

The last dimension of IndicesTensor's meaningful Sizes holds index tuples of k coordinates into the first k
meaningful dimensions of InputTensor; each tuple gathers the block of the remaining dimensions. dmlops reads at
flat addresses (dmlops.ops._indexing: a negative coordinate of a signed type counts from the end of its
dimension; an address outside the tensor reads its last element, inferred from GATHER's vector). ONNX: one flat
Gather (ONNX Runtime's CPU GatherND takes int64 only and raises on out-of-range indices); torch: index_select on
the flat tensor.

Shape rules the descriptor file cannot express:

From the docs page: InputDimensionCount ranges "[1, InputTensor.DimensionCount]" and IndicesDimensionCount
"[1, IndicesTensor.DimensionCount]", each the number of "actual dimensions ... after ignoring any irrelevant
leading ones" (so the dimensions before them must be 1); the last dimension of IndicesTensor (indexTupleSize,
the coordinates per index tuple) "cannot exceed" the input's dimensions (InputDimensionCount, as DirectMLX's
dml::GatherND asserts); OutputTensor.Sizes = {1..., IndicesTensor's meaningful Sizes but the last, InputTensor's
meaningful Sizes after the first indexTupleSize}, right-aligned. (The page's formula takes the input part from
InputTensor.DimensionCount - indexTupleSize, which contradicts its own example {3,4,5,6,7} -> {6,7}; dmlops
follows the example.)
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _indexing as ix
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Dimension counts in range with leading 1s before them; indexTupleSize <= InputDimensionCount; the
    right-aligned OutputTensor Sizes."""
    return L.nd_problems(desc, scatter=False)


# ----------------------------------------------------------------------------------------------- lowerings
def _addresses(desc) -> ix.Addresses:
    batch = getattr(desc, "batch_dimension_count", 0)
    x = desc.input_tensor.sizes[desc.input_tensor.dimension_count - desc.input_dimension_count:]
    i = desc.indices_tensor.sizes[desc.indices_tensor.dimension_count - desc.indices_dimension_count:]
    return ix.tuples(x, i, batch)


def reference(desc, x):
    """InputTensor read at the flat address of each index tuple's block."""
    a = ix.reference_addresses(_addresses(desc), x["IndicesTensor"])
    return {"OutputTensor": ix.reference_gather(x["InputTensor"], a).reshape(desc.output_tensor.sizes)}


def to_onnx(desc, g, x):
    """One flat Gather by the int64 addresses."""
    a = ix.onnx_addresses(_addresses(desc), g, x["IndicesTensor"])
    return {"OutputTensor": g.node("Reshape", [ix.onnx_gather(g, x["InputTensor"], a),
                                               g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """index_select on the flat tensor by the int64 addresses."""
    a = ix.torch_addresses(_addresses(desc), torch, x["IndicesTensor"])
    return {"OutputTensor": ix.torch_gather(torch, x["InputTensor"], a).reshape(desc.output_tensor.sizes)}


# ----------------------------------------------------------------------------------------------- samples
def _desc(data_type, in_sizes, index_type, index_sizes, out_sizes, input_count, indices_count):
    from ..descs import GatherNd

    return GatherNd(input_tensor=td(data_type, in_sizes), indices_tensor=td(index_type, index_sizes),
                    output_tensor=td(data_type, out_sizes), input_dimension_count=input_count,
                    indices_dimension_count=indices_count)


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    x8 = np.arange(8, dtype=f32).reshape(1, 2, 2, 2)
    out = [
        # The docs' examples 1 (rows by 1-tuples) and 2 (2-tuples into {2, 2, 2}), outputs copied from the page.
        Sample("docs_rows", _desc("FLOAT32", [2, 2], "UINT32", [2, 1], [2, 2], 2, 2),
               {"InputTensor": np.array([[0, 1], [2, 3]], f32), "IndicesTensor": np.array([[1], [0]], np.uint32)},
               {"OutputTensor": np.array([[2, 3], [0, 1]], f32)}, **EXACT),
        Sample("docs_pairs", _desc("FLOAT32", [1, 2, 2, 2], "UINT32", [1, 1, 2, 2], [1, 1, 2, 2], 3, 2),
               {"InputTensor": x8, "IndicesTensor": np.array([[[[0, 1], [1, 0]]]], np.uint32)},
               {"OutputTensor": np.array([[[[2, 3], [4, 5]]]], f32)}, **EXACT),
        # Full tuples (k = 3) with negative INT32 coordinates: (-1, -1, -1) = 7, (0, -2, 1) = 1, (1, 0, -2) = 4.
        Sample("points_negative", _desc("FLOAT32", [1, 2, 2, 2], "INT32", [1, 1, 3, 3], [1, 1, 1, 3], 3, 2),
               {"InputTensor": x8, "IndicesTensor": np.array([[[[-1, -1, -1], [0, -2, 1], [1, 0, -2]]]], np.int32)},
               {"OutputTensor": np.array([[[[7, 1, 4]]]], f32)}, **EXACT),
        # Out of range: tuple (2, 0) of {2, 2, 2} starts past the tensor, so its block reads the last element 7.
        Sample("out_of_range", _desc("FLOAT32", [2, 2, 2], "INT64", [1, 2, 2], [1, 2, 2], 3, 2),
               {"InputTensor": x8.reshape(2, 2, 2), "IndicesTensor": np.array([[[1, 1], [2, 0]]], np.int64)},
               {"OutputTensor": np.array([[[6, 7], [7, 7]]], f32)}, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc(t, [2, 2], "UINT32", [2, 1], [2, 2], 2, 2),
                          {"InputTensor": ew.int_array([[lo, hi], [1, 0]], t),
                           "IndicesTensor": np.array([[1], [0]], np.uint32)},
                          {"OutputTensor": ew.int_array([[1, 0], [lo, hi]], t)}, **EXACT))
    return out


SAMPLES = _samples()
