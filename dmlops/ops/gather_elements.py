"""DML_OPERATOR_GATHER_ELEMENTS: shape rules the descriptor file cannot express.

From the docs page: Axis ranges "[0, InputTensor.DimensionCount)"; IndicesTensor's Sizes "must match
InputTensor.Sizes for every dimension except Axis"; OutputTensor's Sizes "must match IndicesTensor.Sizes"
(DataType and DimensionCount are the generic validator's rules). DirectML agrees (vectors: an OutputTensor
of {1, 1, 1, 2} for {1, 1, 1, 1} indices is refused; Axis 1 of a 1-dimensional input is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis in range; IndicesTensor equals InputTensor outside Axis; OutputTensor has IndicesTensor's Sizes."""
    return L.elements_problems(desc, scatter=False)
