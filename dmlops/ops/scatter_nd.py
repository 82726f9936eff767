"""DML_OPERATOR_SCATTER_ND: OutputTensor = InputTensor, then output[indices[j..., 0 .. k], rest...] =
updates[j..., rest...].

The last dimension of IndicesTensor's meaningful Sizes holds tuples of k coordinates into InputTensor's first k
meaningful dimensions; each writes a block of the remaining ones. dmlops writes at flat addresses
(dmlops.ops._indexing): negative coordinates of signed types count from the end; an address outside the tensor
writes its last element (inferred from GATHER's out-of-range vector); of duplicate addresses (undefined in the
docs; no vector has one) the last update in row-major order wins. ONNX: ONNX Runtime's DirectML provider has no
ScatterND kernel for opset 18, so the scatter is a MaxUnpool of update positions and one Gather (see
_indexing); torch: scatter on the flat tensor.

Shape rules the descriptor file cannot express:

From the docs page: InputDimensionCount and IndicesDimensionCount count the "actual dimensions ... after
ignoring any irrelevant leading ones" (so the dimensions before them must be 1); the last dimension of
IndicesTensor (indexTupleSize) "mustn't exceed" the input's dimensions (InputDimensionCount); UpdatesTensor.Sizes
= {1..., IndicesTensor's meaningful Sizes but the last, InputTensor's meaningful Sizes after the first
indexTupleSize}, right-aligned; OutputTensor's Sizes "must match InputTensor.Sizes". The page gives both counts
the range "[1, DimensionCount)", while GATHER_ND's page (the inverse operator) and DirectMLX say
"[1, DimensionCount]"; dmlops allows DimensionCount.
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
    right-aligned UpdatesTensor Sizes; OutputTensor has InputTensor's Sizes."""
    return L.nd_problems(desc, scatter=True)


# ----------------------------------------------------------------------------------------------- lowerings
def _addresses(desc) -> ix.Addresses:
    x = desc.input_tensor.sizes[desc.input_tensor.dimension_count - desc.input_dimension_count:]
    i = desc.indices_tensor.sizes[desc.indices_tensor.dimension_count - desc.indices_dimension_count:]
    return ix.tuples(x, i)


def reference(desc, x):
    """InputTensor with each update block written at its tuple's flat address."""
    a = ix.reference_addresses(_addresses(desc), x["IndicesTensor"])
    return {"OutputTensor": ix.reference_scatter(x["InputTensor"], a, x["UpdatesTensor"])}


def to_onnx(desc, g, x):
    """MaxUnpool of update positions, then one Gather from [updates, input]."""
    a = _addresses(desc)
    address = ix.onnx_addresses(a, g, x["IndicesTensor"])
    y = ix.onnx_scatter_flat(g, x["InputTensor"], a.count, address, x["UpdatesTensor"], int(np.prod(a.shape)))
    return {"OutputTensor": g.node("Reshape", [y, g.ints(desc.output_tensor.sizes)])}


def to_torch(desc, torch, x):
    """scatter on the flat tensor."""
    a = _addresses(desc)
    address = ix.torch_addresses(a, torch, x["IndicesTensor"])
    y = ix.torch_scatter_flat(torch, x["InputTensor"], a.count, address, x["UpdatesTensor"])
    return {"OutputTensor": y.reshape(desc.output_tensor.sizes)}


# ----------------------------------------------------------------------------------------------- samples
def _desc(data_type, in_sizes, index_type, index_sizes, updates_sizes, input_count, indices_count):
    from ..descs import ScatterNd

    return ScatterNd(input_tensor=td(data_type, in_sizes), indices_tensor=td(index_type, index_sizes),
                     updates_tensor=td(data_type, updates_sizes), output_tensor=td(data_type, in_sizes),
                     input_dimension_count=input_count, indices_dimension_count=indices_count)


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    out = [
        # The docs' example: [1..8] with [9, 10, 11, 12] at [4, 3, 1, 7]; output copied from the page (the page's
        # {8} input and {4, 1} indices differ in DimensionCount, which the tensor constraints forbid: {1, 8} here).
        Sample("docs_1d", _desc("FLOAT32", [1, 8], "UINT32", [4, 1], [1, 4], 1, 2),
               {"InputTensor": np.arange(1, 9, dtype=f32).reshape(1, 8),
                "IndicesTensor": np.array([[4], [3], [1], [7]], np.uint32),
                "UpdatesTensor": np.array([[9, 10, 11, 12]], f32)},
               {"OutputTensor": np.array([[1, 11, 3, 10, 9, 6, 7, 12]], f32)}, **EXACT),
        # Rows of {1, 3, 2} by negative INT32 1-tuples: row -1 (= 2) gets [7, 8], row 0 gets [5, 6].
        Sample("rows_negative", _desc("FLOAT32", [1, 3, 2], "INT32", [1, 2, 1], [1, 2, 2], 2, 2),
               {"InputTensor": np.arange(6, dtype=f32).reshape(1, 3, 2),
                "IndicesTensor": np.array([[[-1], [0]]], np.int32),
                "UpdatesTensor": np.array([[[7, 8], [5, 6]]], f32)},
               {"OutputTensor": np.array([[[5, 6], [2, 3], [7, 8]]], f32)}, **EXACT),
        # 2-tuples into {2, 2}: (1, 0) <- 9, (0, -1) <- -0.0 (its sign survives).
        Sample("points", _desc("FLOAT32", [2, 2], "INT64", [2, 2], [1, 2], 2, 2),
               {"InputTensor": np.array([[1, 2], [3, 4]], f32), "IndicesTensor": np.array([[1, 0], [0, -1]], np.int64),
                "UpdatesTensor": np.array([[9, -0.0]], f32)},
               {"OutputTensor": np.array([[1, -0.0], [9, 4]], f32)}, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc(t, [2, 2], "UINT32", [2, 2], [1, 2], 2, 2),
                          {"InputTensor": ew.int_array([[1, 0], [0, 1]], t),
                           "IndicesTensor": np.array([[1, 1], [0, 1]], np.uint32),
                           "UpdatesTensor": ew.int_array([[lo, hi]], t)},
                          {"OutputTensor": ew.int_array([[1, hi], [0, lo]], t)}, **EXACT))
    return out


SAMPLES = _samples()
