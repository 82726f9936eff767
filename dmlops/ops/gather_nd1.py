"""DML_OPERATOR_GATHER_ND1: GATHER_ND within each of BatchDimensionCount leading batch dimensions:
output[b..., j..., rest...] = input[b..., indices[b..., j..., 0 .. k], rest...].

dmlops reads at flat addresses (dmlops.ops._indexing; see gather_nd.py), the batch's offset in the base.
DirectML agrees (vector GATHER_ND1-float32_batch_dims_1: {1, 3, 4, 5} by {1, 3, 2, 1} with one batch dimension
gives {1, 3, 2, 5}, each batch reading its own rows).

Shape rules the descriptor file cannot express:

GATHER_ND's rules (see gather_nd.py) with BatchDimensionCount leading batch dimensions: BatchDimensionCount must
be less than both InputDimensionCount and IndicesDimensionCount (DirectMLX's dml::GatherND asserts this; the
page states the range against the tensors' DimensionCount, but DirectML refuses BatchDimensionCount 1 with
InputDimensionCount = IndicesDimensionCount = 1 on 4-dimensional tensors); the batch Sizes of InputTensor and
IndicesTensor must be equal; indexTupleSize <= InputDimensionCount - BatchDimensionCount; OutputTensor.Sizes =
{1..., IndicesTensor's meaningful Sizes but the last, InputTensor's meaningful Sizes after the batch and the
indexed dimensions}, right-aligned (the page's example 2: {1, 3,2,2} by {1, 3,2,2} with one batch dimension
gives {1,1, 3,2}).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _indexing as ix
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """GATHER_ND's rules with BatchDimensionCount batch dimensions."""
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
def _desc(data_type, in_sizes, index_type, index_sizes, out_sizes, input_count, indices_count, batch):
    from ..descs import GatherNd1

    return GatherNd1(input_tensor=td(data_type, in_sizes), indices_tensor=td(index_type, index_sizes),
                     output_tensor=td(data_type, out_sizes), input_dimension_count=input_count,
                     indices_dimension_count=indices_count, batch_dimension_count=batch)


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    x12 = np.arange(12, dtype=f32).reshape(1, 3, 2, 2)
    out = [
        # The docs' example 2: three batches of {2, 2}, a 3x2 array of 2-tuples; output copied from the page.
        Sample("docs_batch", _desc("FLOAT32", [1, 3, 2, 2], "UINT32", [1, 3, 2, 2], [1, 1, 3, 2], 3, 3, 1),
               {"InputTensor": x12,
                "IndicesTensor": np.array([[[[0, 0], [1, 1]], [[1, 1], [0, 0]], [[0, 1], [1, 0]]]], np.uint32)},
               {"OutputTensor": np.array([[[[0, 3], [7, 4], [9, 10]]]], f32)}, **EXACT),
        # The docs' example 1 (no batch dimension): rows by 1-tuples.
        Sample("docs_rows", _desc("FLOAT32", [2, 2], "UINT32", [2, 1], [2, 2], 2, 2, 0),
               {"InputTensor": np.array([[0, 1], [2, 3]], f32), "IndicesTensor": np.array([[1], [0]], np.uint32)},
               {"OutputTensor": np.array([[2, 3], [0, 1]], f32)}, **EXACT),
        # One batch dimension, rows by negative INT64 1-tuples: batch b reads its row -1 (= 1), then row 0.
        Sample("batch_negative", _desc("FLOAT32", [1, 3, 2, 2], "INT64", [1, 3, 2, 1], [1, 3, 2, 2], 3, 3, 1),
               {"InputTensor": x12, "IndicesTensor": np.array([[[[-1], [0]]] * 3], np.int64).reshape(1, 3, 2, 1)},
               {"OutputTensor": np.array([[[[2, 3], [0, 1]], [[6, 7], [4, 5]], [[10, 11], [8, 9]]]], f32)},
               **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        # Two batches of two elements: batch 0 reads [1, 0], batch 1 reads [0, 0].
        out.append(Sample(f"int_{t.lower()}", _desc(t, [1, 2, 2], "UINT32", [2, 2, 1], [1, 2, 2], 2, 3, 1),
                          {"InputTensor": ew.int_array([[[lo, hi], [1, 0]]], t),
                           "IndicesTensor": np.array([[[1], [0]], [[0], [0]]], np.uint32)},
                          {"OutputTensor": ew.int_array([[[hi, lo], [1, 1]]], t)}, **EXACT))
    return out


SAMPLES = _samples()
