"""DML_OPERATOR_GATHER_ELEMENTS: output[..., i, ...] = input[..., indices[..., i, ...], ...] along Axis.

Each output element reads InputTensor at its own coordinates with the Axis coordinate replaced by its index.
dmlops reads at flat addresses (dmlops.ops._indexing: negative indices of signed types count from the end, vector
GATHER_ELEMENTS-float16_axis2_int32; an address outside the tensor reads its last element, inferred from GATHER's
vector). ONNX: one flat Gather (GatherElements and torch.gather raise on out-of-range indices); torch:
index_select on the flat tensor.

Shape rules the descriptor file cannot express:

From the docs page: Axis ranges "[0, InputTensor.DimensionCount)"; IndicesTensor's Sizes "must match
InputTensor.Sizes for every dimension except Axis"; OutputTensor's Sizes "must match IndicesTensor.Sizes"
(DataType and DimensionCount are the generic validator's rules). DirectML agrees (vectors: an OutputTensor
of {1, 1, 1, 2} for {1, 1, 1, 1} indices is refused; Axis 1 of a 1-dimensional input is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _indexing as ix
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; IndicesTensor equals InputTensor outside Axis; OutputTensor has IndicesTensor's Sizes."""
    return L.elements_problems(desc, scatter=False)


# ----------------------------------------------------------------------------------------------- lowerings
def _addresses(desc) -> ix.Addresses:
    return ix.elements(desc.input_tensor.sizes, desc.axis, desc.indices_tensor.sizes)


def reference(desc, x):
    """InputTensor read at each element's coordinates, Axis replaced by its index."""
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
def _desc(data_type, in_sizes, index_type, index_sizes, axis):
    from ..descs import GatherElements

    return GatherElements(input_tensor=td(data_type, in_sizes), indices_tensor=td(index_type, index_sizes),
                          output_tensor=td(data_type, index_sizes), axis=axis)


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    x33 = np.arange(1, 10, dtype=f32).reshape(3, 3)
    out = [
        # The docs' example: output[y, x] = input[indices[y, x], x].
        Sample("docs_axis0", _desc("FLOAT32", [3, 3], "UINT32", [2, 3], 0),
               {"InputTensor": x33, "IndicesTensor": np.array([[1, 2, 0], [2, 0, 0]], np.uint32)},
               {"OutputTensor": np.array([[4, 8, 3], [7, 2, 3]], f32)}, **EXACT),
        # Axis 1 with negative INT64 indices: row y reads columns [-1, 0] = [2, 0] and [1, -3] = [1, 0].
        Sample("axis1_negative", _desc("FLOAT32", [2, 3], "INT64", [2, 2], 1),
               {"InputTensor": np.array([[1, 2, 3], [4, 5, 6]], f32),
                "IndicesTensor": np.array([[-1, 0], [1, -3]], np.int64)},
               {"OutputTensor": np.array([[3, 1], [5, 4]], f32)}, **EXACT),
        # Out of range (GATHER's vector float32_out_of_range_indices shows the rule): the flat address is what
        # counts. Row 0's index 3 (dimension of 3) lands on address 3, element [1, 0] = 4, inside the tensor; row
        # 1's -7 counts from the end to -4, address 3 - 4 = -1, outside: the last element, 6.
        Sample("out_of_range", _desc("FLOAT32", [2, 3], "INT32", [2, 1], 1),
               {"InputTensor": np.array([[1, 2, 3], [4, 5, 6]], f32),
                "IndicesTensor": np.array([[3], [-7]], np.int32)},
               {"OutputTensor": np.array([[4], [6]], f32)}, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc(t, [2, 2], "UINT32", [2, 2], 1),
                          {"InputTensor": ew.int_array([[lo, hi], [1, 0]], t),
                           "IndicesTensor": np.array([[1, 1], [1, 0]], np.uint32)},
                          {"OutputTensor": ew.int_array([[hi, hi], [0, 1]], t)}, **EXACT))
    return out


SAMPLES = _samples()
