"""DML_OPERATOR_REVERSE_SUBSEQUENCES: shape rules the descriptor file cannot express.

From the docs page: Axis "must be less than the DimensionCount of the InputTensor"; SequenceLengthsTensor has
InputTensor's Sizes "except for the dimension specified by the Axis parameter", whose size "must be 1";
OutputTensor "must have the same sizes and data type as the InputTensor" (DataType and DimensionCount are the
generic validator's rules). DirectML agrees (vectors: an OutputTensor of {1, 1, 1, 2} for a {1, 1, 1, 1}
input is refused; Axis 1 of 1-dimensional tensors is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; SequenceLengthsTensor is InputTensor with Sizes[Axis] = 1; OutputTensor has InputTensor's
    Sizes."""
    x = L.sizes(L.tensor(desc, "InputTensor"))
    out = L.same_sizes_problems(desc, "InputTensor", "OutputTensor")
    if not x:
        return out
    axis = desc.axis
    bad = L.axis_problems(desc, axis, len(x))
    if bad:
        return bad + out
    return L.expected_problems(desc, "SequenceLengthsTensor", f"InputTensor Sizes with Sizes[{axis}] = 1",
                               x[:axis] + [1] + x[axis + 1:]) + out
