"""DML_OPERATOR_ONE_HOT: shape rules the descriptor file cannot express.

From the docs page: Axis "must be less than the DimensionCount of the IndicesTensor"; IndicesTensor has
OutputTensor's Sizes "except for the dimension specified by the Axis parameter", whose size "must be 1"
(OutputTensor's size along Axis may be anything greater than 0); ValuesTensor "may have any size, so long as it
contains at least two elements" (OffValue and OnValue). DataType and DimensionCount are the generic validator's
rules. DirectML agrees (vectors: a one-element ValuesTensor is refused).
"""
from __future__ import annotations

from ..errors import Problem
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
