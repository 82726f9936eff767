"""DML_OPERATOR_SCATTER_ELEMENTS (alias DML_OPERATOR_SCATTER): OutputTensor = InputTensor, then
output[..., indices[..., i, ...], ...] = updates[..., i, ...] along Axis.

dmlops writes at flat addresses (dmlops.ops._indexing): negative indices of signed types count from the end
(vector SCATTER_ELEMENTS-float16_axis2_int32); an address outside the tensor writes its last element (inferred
from GATHER's out-of-range vector: no scatter vector has one); of duplicate addresses ("no guarantee of which last
write wins", the docs; no vector has one) the last update in row-major order wins on every dmlops backend, as the
docs' example 1 shows ([5, 6, 7, 8] at [3, 1, 3, 0] gives 7 at 3).
ONNX: ONNX Runtime's DirectML provider has no ScatterElements kernel for opset 18, so the scatter is a MaxUnpool
of update positions and one Gather (see _indexing); torch: scatter on the flat tensor.

Shape rules the descriptor file cannot express:

From the docs page (DML_SCATTER_OPERATOR_DESC): Axis ranges "[0, OutputTensor.DimensionCount)"; IndicesTensor's
Sizes "must match InputTensor.Sizes for every dimension except Axis" (stricter than ONNX ScatterElements, which
allows smaller indices); UpdatesTensor's Sizes "must match IndicesTensor.Sizes"; OutputTensor's Sizes "must
match InputTensor" (DataType and DimensionCount are the generic validator's rules). DirectML agrees (vectors:
an OutputTensor of {1, 1, 1, 2} for a {1, 1, 1, 1} input is refused; Axis 1 of 1-dimensional tensors is refused).
"""
from __future__ import annotations

import numpy as np

from ..errors import Problem
from ..sample import Sample, td
from . import _elementwise as ew
from . import _indexing as ix
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; IndicesTensor equals InputTensor outside Axis; UpdatesTensor has IndicesTensor's Sizes and
    OutputTensor InputTensor's."""
    return L.elements_problems(desc, scatter=True)


# ----------------------------------------------------------------------------------------------- lowerings
def _addresses(desc) -> ix.Addresses:
    return ix.elements(desc.input_tensor.sizes, desc.axis, desc.indices_tensor.sizes)


def reference(desc, x):
    """InputTensor with each update written at its coordinates, Axis replaced by its index."""
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
def _desc(data_type, in_sizes, index_type, index_sizes, axis):
    from ..descs import ScatterElements

    return ScatterElements(input_tensor=td(data_type, in_sizes), indices_tensor=td(index_type, index_sizes),
                           updates_tensor=td(data_type, index_sizes), output_tensor=td(data_type, in_sizes),
                           axis=axis)


EXACT = dict(atol=0, rtol=0, why="elements are copied, never computed")


def _samples():
    f32 = np.float32
    out = [
        # The docs' example 2 (its InputTensor is {3, 3}, the Sizes line says {2, 3}): output[indices[y, x], x] =
        # updates[y, x], output copied from the page. (Example 1 has a duplicate index 3; see the module docstring.)
        Sample("docs_2d", _desc("FLOAT32", [3, 3], "UINT32", [2, 3], 0),
               {"InputTensor": np.zeros((3, 3), f32), "IndicesTensor": np.array([[1, 0, 2], [0, 2, 1]], np.uint32),
                "UpdatesTensor": np.array([[10, 11, 12], [20, 21, 22]], f32)},
               {"OutputTensor": np.array([[20, 11, 0], [10, 0, 22], [0, 21, 12]], f32)}, **EXACT),
        # The docs' example 1 without its duplicate: [0, 1, 2, 3, 4] with [5, 6, 8] at [3, 1, 0].
        Sample("docs_1d", _desc("FLOAT32", [5], "UINT32", [3], 0),
               {"InputTensor": np.arange(5, dtype=f32), "IndicesTensor": np.array([3, 1, 0], np.uint32),
                "UpdatesTensor": np.array([5, 6, 8], f32)},
               {"OutputTensor": np.array([8, 6, 2, 5, 4], f32)}, **EXACT),
        # Axis 1, negative INT64 indices: row 0 writes 7 at column -1 = 2, row 1 writes 9 at -3 = 0.
        Sample("axis1_negative", _desc("FLOAT32", [2, 3], "INT64", [2, 1], 1),
               {"InputTensor": np.array([[1, 2, 3], [4, 5, 6]], f32), "IndicesTensor": np.array([[-1], [-3]], np.int64),
                "UpdatesTensor": np.array([[7], [9]], f32)},
               {"OutputTensor": np.array([[1, 2, 7], [9, 5, 6]], f32)}, **EXACT),
        # Bits survive: a NaN payload and -0.0 written over 1 and 2.
        Sample("float_bits", _desc("FLOAT32", [3], "UINT32", [2], 0),
               {"InputTensor": np.array([1, 2, 3], f32), "IndicesTensor": np.array([1, 0], np.uint32),
                "UpdatesTensor": np.array([0x7FC01234, 0x80000000], np.uint32).view(f32)},
               {"OutputTensor": np.array([0x80000000, 0x7FC01234, 0x40400000], np.uint32).view(f32)},
               float16=False, **EXACT),
    ]
    for t in ew.INTEGERS:
        lo, hi = ew.int_range(np.dtype(t.lower()))
        out.append(Sample(f"int_{t.lower()}", _desc(t, [2, 2], "UINT32", [1, 2], 0),
                          {"InputTensor": ew.int_array([[1, 0], [0, 1]], t),
                           "IndicesTensor": np.array([[1, 0]], np.uint32),
                           "UpdatesTensor": ew.int_array([[lo, hi]], t)},
                          {"OutputTensor": ew.int_array([[1, hi], [lo, 1]], t)}, **EXACT))
    return out


SAMPLES = _samples()
