"""DML_OPERATOR_SPLIT: shape rules the descriptor file cannot express.

From the docs page: Axis "must be in the range [0, InputTensor.DimensionCount - 1]"; every OutputTensors[i]
has InputTensor's Sizes "in all dimensions except for this axis"; and "the output tensors' split axis sizes
must sum up to exactly the input tensor's split axis size". OutputCount > 0 and the shared DataType and
DimensionCount are checked by the generic validator. DirectML agrees (vectors: two outputs of 1 along an
axis of size 1 are refused; the {1, 2, 1, 1} twin runs).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; outputs equal to InputTensor outside Axis; their Axis sizes sum to InputTensor's."""
    op = desc.OPERATOR_TYPE
    x = L.sizes(L.tensor(desc, "InputTensor"))
    if not x:
        return []
    axis = desc.axis
    out = L.axis_problems(desc, axis, len(x))
    if out:
        return out
    parts = []
    for i, t in enumerate(desc.output_tensors):
        y = L.sizes(t, len(x))
        if y is None:
            return out  # the generic validator reports the DimensionCount difference
        out += L.outside_axis_problems(desc, f"OutputTensors[{i}]", y, "InputTensor", x, axis)
        parts.append(y[axis])
    if parts and sum(parts) != x[axis]:
        terms = " + ".join(map(str, parts))
        out.append(Problem(op, "OutputTensors", "shape",
                           f"Sizes[{axis}] sum to {sum(parts)} ({terms}); they must sum to InputTensor's "
                           f"Sizes[{axis}] = {x[axis]}."))
    return out
