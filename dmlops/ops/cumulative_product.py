"""DML_OPERATOR_CUMULATIVE_PRODUCT: shape rules the descriptor file cannot express.

From the docs page: Axis "must be less than the DimensionCount of the InputTensor". That OutputTensor has
InputTensor's DataType, DimensionCount and Sizes is the generic validator's rule. DirectML agrees (vectors:
Axis 1 of a 1-dimensional tensor is refused).
"""
from __future__ import annotations

from ..errors import Problem
from . import _layout as L


def check(desc, level) -> list[Problem]:
    """Axis < InputTensor's DimensionCount."""
    return L.axis_problems(desc, desc.axis, L.rank(desc, "InputTensor"))
